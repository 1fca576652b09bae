"""Card effects: one scenario row per clause of each implemented card (it fires, with its
exact deltas) and one where it must not; the coverage of those rows against the implemented
cards and the PENDING set; random playouts with the implemented cards in hand."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from arena.engine.agricola.cards.card import MODIFIERS, Moment
from arena.engine.agricola.cards.deck import BASE_DECK, BY_ID
from arena.engine.agricola.cards.effects import EFFECTS
from arena.engine.agricola.cards.hands import pool
from arena.engine.agricola.cards.spaces import LESSONS, MEETING_PLACE
from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.components import GOODS, SPACE_ID
from arena.engine.agricola.game import AGRICOLA, new_card_state
from arena.engine.chance import SeededChance

DAY_LABORER = SPACE_ID["day_laborer"]

#: Cards not implemented yet (other groups shrink this).
PENDING: set[str] = {
    "A002", "A005", "A012", "A016", "A019", "A024", "A026", "A032", "A033", "A038", "A050",
    "A053", "A055", "A056", "A063", "A067", "A069", "A071", "A078", "A080", "A083", "A086",
    "A087", "A088", "A090", "A092", "A102", "A108", "A110", "A111", "A112", "A114", "A116",
    "A119", "A120", "A123", "A125", "A133", "A138", "A143", "A147", "A155", "A160", "A165",
    "B002", "B008", "B010", "B013", "B016", "B019", "B024", "B025", "B033", "B036", "B039",
    "B045", "B047", "B050", "B056", "B057", "B061", "B062", "B066", "B068", "B074", "B077",
    "B080", "B084", "B087", "B089", "B091", "B095", "B097", "B098", "B099", "B104", "B107",
    "B108", "B109", "B118", "B121", "B126", "B136", "B142", "B145", "B156", "B163", "B164",
    "B166",
}

# --- building positions by editing saved states -------------------------------------------------

Data = dict[str, Any]


def _data(n: int = 2, seed: int = 1) -> Data:
    d: Data = json.loads(json.dumps(new_card_state(n, SeededChance(seed)).to_dict()))
    return d


def _load(d: Data) -> CardState:
    s = AGRICOLA.state_from_dict(d)
    assert isinstance(s, CardState)
    return s


def _take_out(d: Data, card: str) -> None:
    for x in d["cards"]["players"]:
        for k in ("hand_occupations", "hand_minors", "occupations", "minors"):
            if card in x[k]:
                x[k].remove(card)


def _hand(d: Data, seat: int, *cards: str) -> None:
    """``seat``'s hand is exactly ``cards`` (the cards it held go to nobody)."""
    x = d["cards"]["players"][seat]
    x["hand_occupations"], x["hand_minors"] = [], []
    for c in cards:
        _take_out(d, c)
        x["hand_occupations" if c in OCCS else "hand_minors"].append(c)


def _played(d: Data, seat: int, *cards: str) -> None:
    x = d["cards"]["players"][seat]
    for c in cards:
        _take_out(d, c)
        x["occupations" if c in OCCS else "minors"].append(c)


def _goods(d: Data, seat: int, **amounts: int) -> None:
    """``seat``'s goods are ``amounts`` (the rest 0)."""
    d["players"][seat]["goods"] = {g: amounts.get(g, 0) for g in GOODS}


def _farm(d: Data, seat: int, **farm: Any) -> None:
    d["players"][seat]["farm"].update(farm)


def _at_round(d: Data, rnd: int) -> None:
    """The same position in round ``rnd`` (stage cards revealed up to it), seat 0 to place
    its last person, everyone else home."""
    b = d["board"]
    order = b["order"]
    printed = [s for s in b["spaces"] if s not in b["revealed"]]
    d["round"] = b["round"] = rnd
    b["revealed"] = order[:rnd]
    b["spaces"] = printed + order[:rnd]
    b["hidden_cards"] = sorted(order[rnd:])
    b["accumulated"] = [a for a in b["accumulated"] if a[0] in b["spaces"]]
    for p, x in enumerate(d["players"]):
        x["people_to_place"] = 1 if p == 0 else 0


def _goods_of(s: CardState, seat: int) -> dict[str, int]:
    return dict(zip(GOODS, s._goods[seat], strict=True))


def _delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {g: after[g] - before[g] for g in GOODS if after[g] != before[g]}


def _do(s: CardState, **fields: Any) -> None:
    """Take the legal action with these fields (exactly one must match)."""
    hits = [a for a in s.legal_actions() if all(a.get(k) == v for k, v in fields.items())]
    assert len(hits) == 1, (fields, s.legal_actions())
    s.apply(hits[0])


def _can(s: CardState, **fields: Any) -> bool:
    return any(all(a.get(k) == v for k, v in fields.items()) for a in s.legal_actions())


def _play(s: CardState, card: str) -> None:
    """Seat 0 plays ``card``: an occupation on Lessons, a minor on Meeting Place."""
    occ = card in OCCS
    _do(s, type="place", space=LESSONS if occ else MEETING_PLACE)
    typ = "play_occupation" if occ else "play_minor"
    if _can(s, type=typ, card=card):
        _do(s, type=typ, card=card)
    assert card in s.played(0)[0 if occ else 1] or BY_ID[card].traveling


def _next_round(s: CardState) -> None:
    """Seat 0 places its last person on Day Laborer (2 food): the round ends, the next
    begins."""
    rnd = s.round
    _do(s, type="place", space=DAY_LABORER)
    assert s.round == rnd + 1


OCCS = frozenset(c.id for c in BASE_DECK if c.kind.value == "occupation")

# --- the scenario table -------------------------------------------------------------------------

Row = Callable[[], None]
ROWS: dict[tuple[str, str], Row] = {}


def row(card: str, what: str) -> Callable[[Row], Row]:
    """Register a scenario for ``card``: ``what`` is a clause's moment (it fires) or
    "quiet" (it must not)."""
    def wrap(f: Row) -> Row:
        assert (card, what) not in ROWS
        ROWS[(card, what)] = f
        return f
    return wrap


def _played_gives(card: str, setup: Callable[[Data], None], delta: dict[str, int],
                  *then: dict[str, Any]) -> None:
    """Seat 0 plays ``card`` in a position made by ``setup``, then takes the actions with
    the fields ``then``; its goods change by ``delta`` (the cost included)."""
    d = _data()
    _hand(d, 0, card)
    setup(d)
    s = _load(d)
    before = _goods_of(s, 0)
    _play(s, card)
    for fields in then:
        _do(s, **fields)
    assert _delta(before, _goods_of(s, 0)) == delta


def _not_playable(card: str, setup: Callable[[Data], None]) -> None:
    d = _data()
    _hand(d, 0, card)
    setup(d)
    s = _load(d)
    space = LESSONS if card in OCCS else MEETING_PLACE
    if _can(s, type="place", space=space):
        _do(s, type="place", space=space)
    assert not _can(s, card=card)


def _round_gives(setup: Callable[[Data], None], delta: dict[str, int], rnd: int = 2,
                 *then: dict[str, Any], seat: int = 0) -> CardState:
    """The round after ``rnd`` begins in a position made by ``setup``; ``seat``'s goods change
    by ``delta`` (Day Laborer's 2 food left out for seat 0)."""
    d = _data()
    _at_round(d, rnd)
    setup(d)
    s = _load(d)
    before = _goods_of(s, seat)
    _next_round(s)
    for fields in then:
        _do(s, **fields)
    got = _delta(before, _goods_of(s, seat))
    if seat == 0:
        got["food"] = got.get("food", 0) - 2
        got = {g: n for g, n in got.items() if n}
    assert got == delta
    return s


# --- on play ------------------------------------------------------------------------------------

@row("A009", "on_play")
def _a009() -> None:
    _played_gives("A009", lambda d: _goods(d, 0, sheep=1), {"sheep": -1, "cattle": 1})


@row("A009", "quiet")
def _a009_q() -> None:
    _not_playable("A009", lambda d: _goods(d, 0, food=5))


@row("B102", "on_play")
def _b102() -> None:
    _played_gives("B102", lambda d: None, {"clay": 3})  # 2 players


@row("B102", "quiet")
def _b102_q() -> None:
    d = _data()
    _played(d, 0, "B102")
    s = _load(d)
    before = _goods_of(s, 0)
    _do(s, type="place", space=DAY_LABORER)
    assert _delta(before, _goods_of(s, 0)) == {"food": 2}


@row("B123", "on_play")
def _b123() -> None:
    _played_gives("B123", lambda d: _goods(d, 0, food=1), {"food": -1, "stone": 2},
                  {"type": "use_card", "card": "B123"})


@row("B123", "quiet")
def _b123_q() -> None:
    _played_gives("B123", lambda d: _goods(d, 0, food=1), {},
                  {"type": "decline", "card": "B123"})
    _played_gives("B123", lambda d: None, {})  # no food: nothing asked


# --- collecting from round spaces ---------------------------------------------------------------

@row("A044", "on_play")
def _a044() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "A024", "A026")
        _goods(d, 0, wood=1)
        d["cards"]["players"][0]["occupations"] = ["A086", "A087"]
    d = _data()
    _hand(d, 0, "A044")
    setup(d)
    s = _load(d)
    _play(s, "A044")
    assert s.to_dict()["cards"]["promised"] == [[r, 0, "food", 1] for r in (2, 3, 4)]


@row("A044", "round_start")
def _a044_r() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "A044")
        d["cards"]["promised"] = [[3, 0, "food", 1], [4, 0, "food", 1]]
    s = _round_gives(setup, {"food": 1})
    assert s.to_dict()["cards"]["promised"] == [[4, 0, "food", 1]]


@row("A044", "quiet")
def _a044_q() -> None:
    _not_playable("A044", lambda d: _goods(d, 0, wood=1))  # no occupation


# --- round start --------------------------------------------------------------------------------

@row("B114", "round_start")
def _b114() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "B114")
        _farm(d, 0, rooms=[0, 5, 10])
    _round_gives(setup, {"food": 1, "vegetable": 1}, 2,
                 {"type": "card_choice", "card": "B114", "choice": "vegetable"})


@row("B114", "quiet")
def _b114_q() -> None:
    _round_gives(lambda d: _played(d, 0, "B114"), {})  # 2 rooms


# --- scoring and costs --------------------------------------------------------------------------

@row("A098", "scoring")
def _a098() -> None:
    d = _data()
    _played(d, 0, "A098")
    _farm(d, 0, stables=[0, 1])
    s = _load(d)
    assert s.card_points(0) == {"A098": 2} and s.card_points(1) == {}


@row("A098", "quiet")
def _a098_q() -> None:
    d = _data()
    _played(d, 1, "A098")
    _farm(d, 0, stables=[0, 1])
    assert _load(d).card_points(0) == {}


@row("A075", "cost")
def _a075() -> None:
    d = _data()
    _played(d, 0, "A075")
    _goods(d, 0, wood=1)
    d["cards"]["players"][0]["occupations"] = ["A086", "A087"]
    _hand(d, 0, "A032")  # Manger: 2 wood
    s = _load(d)
    s._occs[0] = ("A086", "A087")
    before = _goods_of(s, 0)
    _play(s, "A032")
    assert _delta(before, _goods_of(s, 0)) == {"wood": -1}


@row("A075", "quiet")
def _a075_q() -> None:
    _not_playable("A032", lambda d: _goods(d, 0, wood=1))


# --- coverage -----------------------------------------------------------------------------------

def test_every_implemented_card_has_its_rows_and_the_rest_is_pending() -> None:
    covered = {c for c, _ in ROWS}
    assert covered == set(EFFECTS)
    for c in EFFECTS:
        whats = {w for k, w in ROWS if k == c}
        assert "quiet" in whats, c
        assert {m.value for m in EFFECTS[c].moments} <= whats | {"collect"}, c
    assert {c.id for c in BASE_DECK} - set(EFFECTS) == PENDING


def test_implemented_moments_are_the_clauses_moments() -> None:
    for c, e in EFFECTS.items():
        assert e.moments == frozenset(BY_ID[c].moments), c
        for m in e.events:
            assert m in e.moments and m not in MODIFIERS, (c, m)
        assert (e.score is not None) == (Moment.SCORING in e.moments), c
        assert (e.ask is None) == (e.answer is None), c


@pytest.mark.parametrize(("card", "what"), sorted(ROWS))
def test_card_row(card: str, what: str) -> None:
    ROWS[(card, what)]()


# --- playouts with the implemented cards in hand ------------------------------------------------

def _biased(n: int, seed: int) -> CardState:
    """A new game whose hands hold the implemented cards first."""
    d = json.loads(json.dumps(new_card_state(n, SeededChance(seed)).to_dict()))
    rng = random.Random(seed)
    for kind, key in (("occupation", "hand_occupations"), ("minor", "hand_minors")):
        cards = [c for c in pool(kind, n) if c in EFFECTS]
        rest = [c for c in pool(kind, n) if c not in EFFECTS]
        rng.shuffle(cards)
        rng.shuffle(rest)
        deck = cards + rest
        for p in range(n):
            d["cards"]["players"][p][key] = sorted(deck[p * 7:(p + 1) * 7])
    return _load(d)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_random_games_with_effects(n: int) -> None:
    for seed in range(3):
        s = _biased(n, seed)
        rng = random.Random(seed)
        steps = 0
        while not s.is_terminal:
            k = s.num_legal()
            assert k >= 1
            if steps % 23 == 0:
                d = s.to_dict()
                back = AGRICOLA.state_from_dict(json.loads(json.dumps(d)))
                assert back.to_dict() == d and back.legal_actions() == s.legal_actions()
                seat = s.current_player
                assert seat is not None
                obs = s.observation(seat)
                assert AGRICOLA.determinize(obs, rng).observation(seat) == obs
            s.apply_index(rng.randrange(k))
            steps += 1
            assert all(min(g) >= 0 for g in s._goods)
            held = sorted(c for p in range(n) for h in s.hands(p) for c in h)
            played = sorted(c for p in range(n) for h in s.played(p) for c in h)
            box = sorted(c for b in s.box() for c in b)
            assert sorted(held + played + box) == sorted(
                [*pool("occupation", n), *pool("minor", n)])
        r = s.result()
        assert [sum(b.values()) for b in r.breakdown] == list(r.scores)
