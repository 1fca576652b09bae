"""Card effects: one scenario row per clause of each implemented card (it fires, with its
exact deltas) and one where it must not; the coverage of those rows against the implemented
cards and the PENDING set; random playouts with the implemented cards in hand."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from agricola_cards_helpers import Row, Rows, load, play_out, registrar, stacked

from arena.engine.agricola.cards.card import MODIFIERS, Moment
from arena.engine.agricola.cards.deck import BASE_DECK, BY_ID
from arena.engine.agricola.cards.effects import EFFECTS
from arena.engine.agricola.cards.spaces import LESSONS, MEETING_PLACE
from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.components import GOODS, SPACE_ID
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.game import new_card_state
from arena.engine.chance import SeededChance

DAY_LABORER = SPACE_ID["day_laborer"]

#: Cards not implemented yet (other groups shrink this): none left.
PENDING: set[str] = set()

# --- building positions by editing saved states -------------------------------------------------

Data = dict[str, Any]


def _data(n: int = 4, seed: int = 1) -> Data:
    d: Data = json.loads(json.dumps(new_card_state(n, SeededChance(seed)).to_dict()))
    return d


_load = load


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

ROWS: Rows = {}
row = registrar(ROWS)




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
    _played_gives("B102", lambda d: _pasture(d, [3, 4]), {"sheep": 2})  # 4 players


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
        _played(d, 0, "A086", "A087")
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
    _hand(d, 0, "A032")  # Manger: 2 wood
    s = _load(d)
    before = _goods_of(s, 0)
    _play(s, "A032")
    assert _delta(before, _goods_of(s, 0)) == {"wood": -1}


@row("A075", "quiet")
def _a075_q() -> None:
    _not_playable("A032", lambda d: _goods(d, 0, wood=1))


def _major(card: str, setup: Callable[[Data], None], major: int,
           delta: dict[str, int]) -> None:
    """Seat 0, with ``card`` played, builds ``major`` on Major Improvement for ``delta``."""
    d = _data()
    _at_round(d, 4)  # stage 1's cards are all out: Major Improvement among them
    _played(d, 0, card)
    _hand(d, 0)
    setup(d)
    s = _load(d)
    before = _goods_of(s, 0)
    _do(s, type="place", space=SPACE_ID["major_improvement"])
    if _can(s, type="build_major", major=major, pay="goods"):  # else it was the one choice
        _do(s, type="build_major", major=major, pay="goods")
    assert major in s._majors[0]
    assert _delta(before, _goods_of(s, 0)) == delta


@row("A075", "major")
def _a075_m() -> None:
    _major("A075", lambda d: _goods(d, 0, wood=1, stone=2), 6, {"wood": -1, "stone": -2})


@row("B095", "cost")
def _b095() -> None:
    _major("B095", lambda d: (_goods(d, 0, wood=2, stone=2), _farm(d, 0, rooms=[0, 5, 10])),
           6, {"wood": -2, "stone": -1})  # Joinery: 2 stone less 1


@row("B095", "quiet")
def _b095_q() -> None:
    _major("B095", lambda d: _goods(d, 0, wood=2, stone=2), 6, {"wood": -2, "stone": -2})


# --- more on play -------------------------------------------------------------------------------

@row("A125", "on_play")
def _a125() -> None:
    _played_gives("A125", lambda d: _farm(d, 0, house="clay"), {"clay": 3, "reed": 2, "stone": 2})


@row("A125", "quiet")
def _a125_q() -> None:
    _played_gives("A125", lambda d: None, {})  # a wooden house


@row("A005", "on_play")
def _a005() -> None:
    _played_gives("A005", lambda d: _goods(d, 0, food=1, clay=5), {"food": -1, "clay": 2})


@row("A005", "quiet")
def _a005_q() -> None:
    _played_gives("A005", lambda d: _goods(d, 0, food=1, clay=1), {"food": -1})


@row("B008", "on_play")
def _b008() -> None:
    _played_gives("B008", lambda d: _goods(d, 0, grain=1), {"grain": -1, "vegetable": 1})


@row("B008", "quiet")
def _b008_q() -> None:
    _not_playable("B008", lambda d: _goods(d, 0, food=3))


def _full_farm(d: Data) -> None:
    _farm(d, 0, fields=[[c, None, 0] for c in range(15) if c not in (5, 10)])


@row("A033", "on_play")
def _a033() -> None:
    _played_gives("A033", _full_farm, {"food": 26})  # round 1: 13 rounds left
    d = _data()
    _played(d, 0, "A033")
    d["cards"]["marks"] = {"A033": [13]}
    assert _load(d).card_points(0) == {"A033": 13}


@row("A033", "quiet")
def _a033_q() -> None:
    _not_playable("A033", lambda d: None)  # unused spaces


@row("A002", "on_play")
def _a002() -> None:
    d = _data()
    _hand(d, 0, "A002")
    _goods(d, 0, food=2)
    s = _load(d)
    _play(s, "A002")
    _do(s, type="card_choice", card="A002", choice=0)
    assert s._farms[0].num_fields() == 1 and "A002" in s.hands(1)[1]


@row("A002", "quiet")
def _a002_q() -> None:
    _not_playable("A002", lambda d: _goods(d, 0, food=1))


@row("B136", "on_play")
def _b136() -> None:
    _played_gives("B136", lambda d: None, {"wood": 4})  # round 1: 13 rounds left


@row("B136", "scoring")
def _b136_s() -> None:
    d = _data()
    _played(d, 0, "B136")
    s = _load(d)
    assert s.card_points(0) == s.card_points(1) == {"B136": 3}  # a tie: both


@row("B136", "quiet")
def _b136_q() -> None:
    d = _data()
    _played(d, 0, "B136")
    _farm(d, 1, rooms=[0, 5, 10])
    s = _load(d)
    assert s.card_points(0) == {} and s.card_points(1) == {"B136": 3}


# --- more collecting ----------------------------------------------------------------------------

def _collect_rows(card: str, good: str, rounds: list[int], setup: Callable[[Data], None],
                  quiet: Callable[[], None]) -> None:
    def on_play() -> None:
        d = _data()
        _hand(d, 0, card)
        setup(d)
        s = _load(d)
        _play(s, card)
        assert s.to_dict()["cards"]["promised"] == [[r, 0, good, 1] for r in rounds]

    def round_start() -> None:
        def at(d: Data) -> None:
            _played(d, 0, card)
            d["cards"]["promised"] = [[3, 0, good, 1]]
        _round_gives(at, {good: 1})

    row(card, "on_play")(on_play)
    row(card, "round_start")(round_start)
    row(card, "quiet")(quiet)


def _occupations(n: int) -> Callable[[Data], None]:
    def setup(d: Data) -> None:
        _played(d, 0, *[c for c in ("A086", "A087", "A088")[:n]])
        _goods(d, 0, wood=3, reed=1, grain=1, sheep=0)
    return setup


_collect_rows("B045", "food", [2, 3, 4],
              lambda d: (_goods(d, 0, wood=1), _farm(d, 0, fields=[[0, "vegetable", 1],
                                                                   [1, "vegetable", 2]])),
              lambda: _not_playable("B045", lambda d: _goods(d, 0, wood=1)))
_collect_rows("A069", "vegetable", [5, 8, 10], _occupations(2),
              lambda: _not_playable("A069", _occupations(1)))
_collect_rows("B066", "grain", [5, 8, 11, 14], _occupations(2),
              lambda: _not_playable("B066", _occupations(1)))
_collect_rows("B074", "wood", [2, 4, 6, 8, 10, 12, 14], lambda d: _goods(d, 0, clay=5),
              lambda: _not_playable("B074", lambda d: _goods(d, 0, clay=4)))
_collect_rows("B084", "boar", [2, 3], _occupations(3),
              lambda: _not_playable("B084", _occupations(2)))


def _b164_quiet() -> None:  # from round 13 on, every round space named is past round 14
    d = _data()
    _at_round(d, 13)
    _hand(d, 0, "B164")
    s = _load(d)
    _play(s, "B164")
    assert s.to_dict()["cards"]["promised"] == []


_collect_rows("B164", "sheep", [3, 6, 9, 11], lambda d: None, _b164_quiet)


@row("B164", "keep")  # sheep taken at round start that do not fit: which to keep is asked
def _b164_keep() -> None:
    d = _data()
    _at_round(d, 2)
    _played(d, 0, "B164")
    _goods(d, 0, boar=1)
    d["cards"]["promised"] = [[3, 0, "sheep", 1]]
    s = _load(d)
    _do(s, type="place", space=DAY_LABORER)
    assert s.current_player == 0 and _can(s, type="keep")
    s.apply_index(0)
    assert sum(s._goods[0][7:]) == 1


# --- more round start ---------------------------------------------------------------------------

@row("B057", "round_start")
def _b057() -> None:
    _round_gives(lambda d: _played(d, 0, "B057"), {"food": 1})


@row("B057", "quiet")
def _b057_q() -> None:
    _round_gives(lambda d: (_played(d, 0, "B057"), _farm(d, 0, house="clay")), {})


@row("B118", "round_start")
def _b118() -> None:
    _round_gives(lambda d: _played(d, 0, "B118"), {"wood": 1})


@row("B118", "quiet")
def _b118_q() -> None:
    _round_gives(lambda d: (_played(d, 0, "B118"), _farm(d, 0, rooms=[0, 5, 10])), {})


@row("A090", "round_start")
def _a090() -> None:
    s = _round_gives(lambda d: (_played(d, 0, "A090"), _farm(d, 0, house="stone"),
                                _goods(d, 0, food=1)),
                     {"food": -1}, 2, {"type": "use_card", "card": "A090", "cell": 0})
    assert s._farms[0].num_fields() == 1


@row("A090", "quiet")
def _a090_q() -> None:
    s = _round_gives(lambda d: (_played(d, 0, "A090"), _goods(d, 0, food=1)), {})
    assert s._farms[0].num_fields() == 0 and not s._pending  # a wooden house


@row("A019", "on_play")
def _a019() -> None:
    d = _data()
    _hand(d, 0, "A019")
    _goods(d, 0, wood=1)
    s = _load(d)
    _play(s, "A019")
    assert s.to_dict()["cards"]["marks"] == {"A019": [6]}


@row("A019", "round_start")
def _a019_r() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "A019")
        d["cards"]["marks"] = {"A019": [3]}
    s = _round_gives(setup, {}, 2, {"type": "use_card", "card": "A019", "cell": 1})
    assert s._farms[0].num_fields() == 1 and s.mark("A019") == ()


@row("A019", "quiet")
def _a019_q() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "A019")
        d["cards"]["marks"] = {"A019": [4]}
    s = _round_gives(setup, {})
    assert not s._pending and s.mark("A019") == (4,)


@row("B089", "on_play")
def _b089() -> None:
    _played_gives("B089", lambda d: None, {"wood": 1})


@row("B089", "round_start")
def _b089_r() -> None:
    s = _round_gives(lambda d: (_played(d, 0, "B089"), _farm(d, 0, house="stone"),
                                _goods(d, 0, wood=1)),
                     {"wood": -1}, 2, {"type": "use_card", "card": "B089", "cell": 2})
    assert s._farms[0].num_stables() == 1


@row("B089", "quiet")
def _b089_q() -> None:
    s = _round_gives(lambda d: (_played(d, 0, "B089"), _farm(d, 0, house="stone"),
                                _goods(d, 0, wood=1)),
                     {}, 2, {"type": "decline", "card": "B089"})
    assert s._farms[0].num_stables() == 0


# --- more scoring -------------------------------------------------------------------------------

def _points(card: str, setup: Callable[[Data], None]) -> dict[str, int]:
    d = _data()
    _played(d, 0, card)
    setup(d)
    return _load(d).card_points(0)


def _pasture(d: Data, cells: list[int], stables: tuple[int, ...] = ()) -> None:
    f = Farm()
    for c in stables:
        f.build_stable(c)
    f.build_pasture(sum(1 << c for c in cells))
    d["players"][0]["farm"] = f.to_dict()


@row("A133", "scoring")
def _a133() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "A032", "A038", "A075")
        d["players"][0]["majors"] = [0, 2, 4]
        d["board"]["majors"] = [m for m in d["board"]["majors"] if m not in (0, 2, 4)]
    assert _points("A133", setup)["A133"] == 3  # 3 majors and 3 minors


@row("A133", "quiet")
def _a133_q() -> None:
    assert _points("A133", lambda d: _played(d, 0, "A009")) == {}


@row("B098", "scoring")
def _b098() -> None:
    def setup(d: Data) -> None:
        _pasture(d, [3, 4, 8, 9])  # 8 animals
        _goods(d, 0, sheep=5)
    assert _points("B098", setup) == {"B098": 1}


@row("B098", "quiet")
def _b098_q() -> None:
    def setup(d: Data) -> None:
        _pasture(d, [4])  # 2 animals: never room for 3 more
        _goods(d, 0, sheep=1)
    assert _points("B098", setup) == {}


@row("B099", "scoring")
def _b099() -> None:
    assert _points("B099", lambda d: _played(d, 0, "A086", "A087")) == {"B099": 2}


@row("B099", "quiet")
def _b099_q() -> None:
    d = _data()
    _played(d, 0, "A086", "B099")
    assert _load(d).card_points(0) == {}


@row("A032", "scoring")
def _a032() -> None:
    assert _points("A032", lambda d: _pasture(d, [3, 4, 8, 9, 13, 14])) == {"A032": 1}


@row("A032", "quiet")
def _a032_q() -> None:
    assert _points("A032", lambda d: _pasture(d, [3, 4, 8, 9])) == {}


@row("A038", "scoring")
def _a038() -> None:
    assert _points("A038", lambda d: _farm(d, 0, house="clay")) == {"A038": 2}


@row("A038", "quiet")
def _a038_q() -> None:
    assert _points("A038", lambda d: _farm(d, 0, house="stone")) == {}


# --- coverage -----------------------------------------------------------------------------------

def _all_rows() -> dict[tuple[str, str], Row]:
    """The rows of this file and of the other groups' files."""
    from test_agricola_card_capacity import HARVEST_ROWS
    from test_agricola_card_costs import COST_ROWS
    from test_agricola_card_spaces import SPACE_ROWS
    return {**ROWS, **SPACE_ROWS, **HARVEST_ROWS, **COST_ROWS}


def test_every_implemented_card_has_its_rows_and_the_rest_is_pending() -> None:
    rows = _all_rows()
    covered = {c for c, _ in rows}
    assert covered == set(EFFECTS)
    for c in EFFECTS:
        whats = {w for k, w in rows if k == c}
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

@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_random_games_with_effects(n: int) -> None:
    """Playouts whose hands hold the cards with effects first."""
    for seed in range(3):
        play_out(stacked(n, seed, EFFECTS), random.Random(seed), save_every=23)
