"""Card effects of the SPACE_USED moment: one scenario row per clause where it fires (exact
deltas) and one where it must not; the turn's decisions held before the next person is placed;
random playouts with these cards in hand. The coverage test of
``test_agricola_card_effects.py`` counts :data:`SPACE_ROWS`."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from agricola_cards_helpers import Rows, play_out, registrar, stacked
from test_agricola_card_effects import (
    Data,
    _at_round,
    _can,
    _data,
    _delta,
    _do,
    _farm,
    _goods,
    _goods_of,
    _hand,
    _load,
    _pasture,
    _play,
    _played,
    _round_gives,
)

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects import EFFECTS
from arena.engine.agricola.cards.effects.base import AT_END, AT_USE
from arena.engine.agricola.cards.hands import pool
from arena.engine.agricola.cards.spaces import CARD_SPACES
from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.components import SPACE_ID
from arena.engine.agricola.game import AGRICOLA

S = SPACE_ID
SPACE_ROWS: Rows = {}
row = registrar(SPACE_ROWS)
#: The cards of this group: every card with a SPACE_USED clause.
MINE = ("A024", "A026", "A050", "A056", "A067", "A078", "A080", "A108", "A114", "A116", "A119",
        "A138", "A147", "A155", "A160", "B019", "B024", "B047", "B056", "B062", "B077", "B087",
        "B091", "B108", "B121", "B142", "B156", "B166")




# --- positions ----------------------------------------------------------------------------------

def _pos(rnd: int = 13, n: int = 4, seed: int = 1) -> Data:
    """Round ``rnd`` (no harvest in between), seat 0 to place with 2 people at home, every
    other seat home; every pile empty."""
    d = _data(n, seed)
    _at_round(d, rnd)
    d["players"][0]["people_to_place"] = 2
    d["board"]["accumulated"] = [[s, g, 0] for s, g, _ in d["board"]["accumulated"]]
    return d


def _pile(d: Data, space: str, good: str, n: int) -> None:
    acc = [a for a in d["board"]["accumulated"] if a[0] != S[space]]
    d["board"]["accumulated"] = [*acc, [S[space], good, n]]


def _pile_of(s: CardState, space: str) -> int:
    return sum(n for sp, _, n in s._board.piles() if sp == S[space])


def _use(space: str, setup: Callable[[Data], None], delta: dict[str, int],
         *then: dict[str, Any], rnd: int = 13, n: int = 4, seat: int = 0) -> CardState:
    """Seat 0 uses ``space`` in a position made by ``setup``, then takes the actions with the
    fields ``then``; ``seat``'s goods change by ``delta``."""
    d = _pos(rnd, n)
    setup(d)
    s = _load(d)
    before = _goods_of(s, seat)
    _do(s, type="place", space=S[space])
    for fields in then:
        _do(s, **fields)
    assert _delta(before, _goods_of(s, seat)) == delta
    return s


def _asked(s: CardState, card: str) -> bool:
    return any(pd.card == card for pd in s._pending)


def _use_card(card: str, **fields: Any) -> dict[str, Any]:
    return {"type": "use_card", "card": card, **fields}


def _no(card: str) -> dict[str, Any]:
    return {"type": "decline", "card": card}


def _pick(card: str, value: str) -> dict[str, Any]:
    return {"type": "card_choice", "card": card, "choice": value}


def _gain_rows(card: str, space: str, pile: tuple[str, int] | None, delta: dict[str, int],
               quiet_space: str, quiet_delta: dict[str, int],
               alone: dict[str, int] | None = None) -> None:
    """An automatic "also take" card: it fires on ``space``; on ``quiet_space`` it must not,
    nor on ``space`` when another seat owns the card (the user gets what the space gives
    ``alone``: its pile, unless said)."""
    def setup(d: Data, owner: int = 0) -> None:
        _played(d, owner, card)
        if pile:
            _pile(d, space, pile[0], pile[1])

    def fires() -> None:
        _use(space, setup, delta)

    def quiet() -> None:
        _use(quiet_space, setup, quiet_delta)
        base = alone if alone is not None else {pile[0]: pile[1]} if pile else {}
        s = _use(space, lambda d: setup(d, 1), base)
        assert not s._pending
    row(card, "space_used")(fires)
    row(card, "quiet")(quiet)


_gain_rows("A116", "forest", ("wood", 3), {"wood": 4}, "clay_pit", {})
_gain_rows("A080", "western_quarry", ("stone", 1), {"stone": 2}, "clay_pit", {})
_gain_rows("A067", "grain_seeds", None, {"grain": 2}, "vegetable_seeds", {"vegetable": 1},
           {"grain": 1})
_gain_rows("B142", "grain_seeds", None, {"grain": 1, "vegetable": 1}, "day_laborer",
           {"food": 2}, {"grain": 1})
_gain_rows("A078", "fishing", ("food", 1), {"food": 2, "reed": 1}, "reed_bank", {})
_gain_rows("A155", "traveling_players", ("food", 1), {"food": 1, "wood": 1, "grain": 1},
           "fishing", {})
_gain_rows("B077", "day_laborer", None, {"food": 2, "clay": 3}, "grain_seeds", {"grain": 1},
           {"food": 2})


# --- automatic, with a condition ----------------------------------------------------------------

@row("A119", "space_used")
def _a119() -> None:
    d = _pos()
    _played(d, 0, "A119")
    s = _load(d)
    _do(s, type="place", space=S["farmland"])
    assert s._goods[0][0] == 0  # not before the end of the turn
    _do(s, type="plough", cell=0)
    assert _goods_of(s, 0)["wood"] == 1 and s.current_player == 0 and s.phase == "place"


@row("A119", "quiet")
def _a119_q() -> None:
    _use("day_laborer", lambda d: _played(d, 0, "A119"), {"food": 2})


@row("B121", "space_used")
def _b121() -> None:
    _use("forest", lambda d: (_played(d, 0, "B121"), _pile(d, "forest", "wood", 3)),
         {"wood": 3, "clay": 1})
    _use("clay_pit", lambda d: _played(d, 0, "B121"), {"clay": 1})  # 4 players


@row("B121", "quiet")
def _b121_q() -> None:
    _use("clay_pit", lambda d: _played(d, 0, "B121"), {}, n=2)
    _use("fishing", lambda d: _played(d, 0, "B121"), {})


@row("B056", "space_used")
def _b056() -> None:
    _use("reed_bank", lambda d: _played(d, 0, "B056"), {"food": 1})
    d = _pos()
    first = d["board"]["order"][0]
    _played(d, 0, "B056")
    s = _load(d)
    before = _goods_of(s, 0)
    _do(s, type="place", space=first)
    assert _goods_of(s, 0)["food"] - before["food"] >= 1
    assert s._board.card_of_round(1) == first


@row("B056", "quiet")
def _b056_q() -> None:
    _use("fishing", lambda d: _played(d, 0, "B056"), {})  # Fishing itself is not above
    _use("day_laborer", lambda d: _played(d, 0, "B056"), {"food": 2})


def _farmland_taken(d: Data) -> None:
    _played(d, 0, "B062")
    d["board"]["occupants"] = [[S["farmland"], 2]]


@row("B062", "space_used")
def _b062() -> None:
    _use("grain_seeds", _farmland_taken, {"grain": 1, "food": 3})


@row("B062", "quiet")
def _b062_q() -> None:
    _use("grain_seeds", lambda d: _played(d, 0, "B062"), {"grain": 1})


@row("A050", "space_used")  # another seat's card: the user gets 1 food, the owner 3
def _a050() -> None:
    def setup(d: Data) -> None:
        _played(d, 1, "A050")
        _pile(d, "cattle_market", "cattle", 1)
    s = _use("cattle_market", setup, {"cattle": 1, "food": 1})
    d = _pos()
    setup(d)
    before = [_goods_of(_load(d), p)["food"] for p in range(4)]
    assert [_goods_of(s, p)["food"] - before[p] for p in range(4)] == [1, 3, 1, 1]
    _use("cattle_market", lambda d: (_played(d, 0, "A050"), _pile(d, "cattle_market",
                                                                  "cattle", 1)),
         {"cattle": 1, "food": 3})


@row("A050", "quiet")
def _a050_q() -> None:
    s = _use("sheep_market", lambda d: (_played(d, 1, "A050"), _pile(d, "sheep_market",
                                                                     "sheep", 1)),
             {"sheep": 1})
    assert _goods_of(s, 1)["food"] == 3


@row("B047", "space_used")
def _b047() -> None:
    s = _use("fishing", lambda d: _played(d, 0, "B047"), {}, rnd=5)
    assert s.to_dict()["cards"]["promised"] == [[r, 0, "food", 1] for r in (6, 7, 8)]


@row("B047", "round_start")
def _b047_r() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "B047")
        d["cards"]["promised"] = [[3, 0, "food", 1]]
    _round_gives(setup, {"food": 1})


@row("B047", "quiet")
def _b047_q() -> None:
    s = _use("day_laborer", lambda d: _played(d, 0, "B047"), {"food": 2}, rnd=5)
    assert s.to_dict()["cards"]["promised"] == []


# --- choices ------------------------------------------------------------------------------------

@row("A114", "space_used")
def _a114() -> None:
    s = _use("day_laborer", lambda d: _played(d, 0, "A114"), {"food": 2, "grain": 1}, rnd=3)
    assert not s._pending  # before round 6: grain, nothing asked
    _use("day_laborer", lambda d: _played(d, 0, "A114"), {"food": 2, "vegetable": 1},
         _pick("A114", "vegetable"), rnd=6)


@row("A114", "quiet")
def _a114_q() -> None:
    _use("day_laborer", lambda d: _played(d, 1, "A114"), {"food": 2})
    _use("grain_seeds", lambda d: _played(d, 0, "A114"), {"grain": 1})


@row("B156", "space_used")
def _b156() -> None:
    _use("resource_market_4p", lambda d: _played(d, 0, "B156"),
         {"reed": 1, "stone": 1, "food": 1, "clay": 1}, _pick("B156", "clay"))


@row("B156", "quiet")
def _b156_q() -> None:
    s = _use("grain_seeds", lambda d: _played(d, 0, "B156"), {"grain": 1})
    assert not s._pending


# --- optional clauses ---------------------------------------------------------------------------

def _forest(card: str, wood: int = 3, **goods: int) -> Callable[[Data], None]:
    def setup(d: Data) -> None:
        _played(d, 0, card)
        _pile(d, "forest", "wood", wood)
        _goods(d, 0, **goods)
    return setup


@row("A108", "space_used")
def _a108() -> None:
    s = _use("forest", _forest("A108"), {"wood": 2, "food": 2}, _use_card("A108"))
    assert _pile_of(s, "forest") == 1


@row("A108", "quiet")
def _a108_q() -> None:
    s = _use("forest", _forest("A108"), {"wood": 3}, _no("A108"))
    assert _pile_of(s, "forest") == 0
    s = _use("clay_pit", _forest("A108"), {})
    assert not s._pending


@row("A056", "space_used")
def _a056() -> None:
    s = _use("forest", _forest("A056"), {"wood": 1, "food": 3}, _use_card("A056"))
    assert _pile_of(s, "forest") == 2


@row("A056", "quiet")
def _a056_q() -> None:
    s = _use("forest", _forest("A056", 1), {"wood": 1})  # 1 wood: nothing to ask
    assert not s._pending and s.current_player == 0


@row("A138", "space_used")
def _a138() -> None:
    _use("fishing", lambda d: (_played(d, 0, "A138"), _goods(d, 0, wood=1)),
         {"wood": -1, "food": 2, "reed": 1}, _use_card("A138"))


@row("A138", "quiet")
def _a138_q() -> None:
    s = _use("fishing", lambda d: _played(d, 0, "A138"), {})
    assert not s._pending


def _sheep(d: Data) -> None:
    _played(d, 0, "A147")
    _pasture(d, [3, 4])
    _goods(d, 0, food=1)
    _pile(d, "sheep_market", "sheep", 2)


@row("A147", "space_used")
def _a147() -> None:
    _use("sheep_market", _sheep, {"food": -1, "sheep": 3}, _use_card("A147"))


@row("A147", "quiet")
def _a147_q() -> None:
    _use("sheep_market", _sheep, {"sheep": 2}, _no("A147"))


@row("A147", "keep")  # the animal bought does not fit: which to keep is asked
def _a147_keep() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "A147")
        _farm(d, 0, stables=[0])
        _goods(d, 0, food=1, sheep=1)
        _pile(d, "pig_market", "boar", 1)
    s = _use("pig_market", setup, {"food": -1, "boar": 2}, _use_card("A147"))
    assert _can(s, type="keep") and s.current_player == 0
    d = json.loads(json.dumps(s.to_dict()))
    assert AGRICOLA.state_from_dict(d).to_dict() == d
    s.apply(next(a for a in s.legal_actions() if a.get("boar") == 2))
    assert _goods_of(s, 0)["sheep"] == 0 and s.current_player == 0 and s.phase == "place"


@row("B166", "space_used")
def _b166() -> None:
    _use("grain_seeds", lambda d: (_played(d, 0, "B166"), _goods(d, 0, food=1)),
         {"grain": 1, "food": -1, "cattle": 1}, _use_card("B166"))


@row("B166", "quiet")
def _b166_q() -> None:
    s = _use("grain_seeds", lambda d: (_played(d, 0, "B166"), _goods(d, 0)), {"grain": 1})
    assert not s._pending  # no food


def _oven(card: str, grain: int) -> Callable[[Data], None]:
    def setup(d: Data) -> None:
        _played(d, 0, card)
        _goods(d, 0, grain=grain)
        d["players"][0]["majors"] = [0]
        d["board"]["majors"] = [m for m in d["board"]["majors"] if m != 0]
    return setup


@row("B108", "space_used")
def _b108() -> None:
    _use("forest", _oven("B108", 1), {"grain": -1, "food": 2},
         _use_card("B108", grain=1))


@row("B108", "quiet")
def _b108_q() -> None:
    s = _use("forest", lambda d: (_played(d, 0, "B108"), _goods(d, 0, grain=2)), {})
    assert not s._pending  # no baking improvement


@row("A024", "space_used")
def _a024() -> None:
    s = _use("farmland", _oven("A024", 2), {"grain": -2, "food": 4},
             _use_card("A024", grain=2), {"type": "plough", "cell": 0})
    assert s._farms[0].num_fields() == 1


@row("A024", "quiet")
def _a024_q() -> None:
    s = _use("grain_seeds", _oven("A024", 2), {"grain": 1})
    assert not s._pending


@row("B091", "space_used")
def _b091() -> None:
    s = _use("day_laborer", lambda d: _played(d, 0, "B091"), {"food": 2},
             _use_card("B091", cell=0))
    assert s._farms[0].num_fields() == 1


@row("B091", "quiet")
def _b091_q() -> None:
    s = _use("day_laborer", lambda d: _played(d, 0, "B091"), {"food": 2}, _no("B091"))
    assert s._farms[0].num_fields() == 0


@row("B019", "on_play")
def _b019() -> None:
    d = _data()
    _hand(d, 0, "B019")
    _played(d, 0, "A086")
    _goods(d, 0, wood=2)
    s = _load(d)
    _play(s, "B019")
    assert s.mark("B019") == (2,)


@row("B019", "space_used")
def _b019_s() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "B019")
        d["cards"]["marks"] = {"B019": [2]}
    s = _use("farmland", setup, {}, _use_card("B019", cell=0))  # then Farmland's: 1 way
    assert s._farms[0].num_fields() == 2 and s.mark("B019") == (1,)


@row("B019", "quiet")
def _b019_q() -> None:
    s = _use("farmland", lambda d: _played(d, 0, "B019"), {})  # no tile left
    assert not s._pending


@row("B087", "space_used")
def _b087() -> None:
    s = _use("day_laborer", lambda d: (_played(d, 0, "B087"), _goods(d, 0, wood=5, reed=2)),
             {"food": 2, "wood": -5, "reed": -2},
             _use_card("B087", build="room", cell=0))
    assert s._farms[0].num_rooms() == 3
    s = _use("day_laborer", lambda d: (_played(d, 0, "B087"), _goods(d, 0, clay=2, reed=1)),
             {"food": 2, "clay": -2, "reed": -1}, _use_card("B087", build="renovation"))
    assert s._farms[0].material == 1


@row("B087", "quiet")
def _b087_q() -> None:
    s = _use("day_laborer", lambda d: (_played(d, 0, "B087"), _goods(d, 0, wood=4, reed=2)),
             {"food": 2})
    assert not s._pending


# --- another player's use -----------------------------------------------------------------------

@row("A160", "space_used")
def _a160() -> None:
    def setup(d: Data) -> None:
        _played(d, 1, "A160")
        _goods(d, 1, food=1)
        _pile(d, "traveling_players", "food", 2)
    d = _pos()
    setup(d)
    s = _load(d)
    before = _goods_of(s, 0)
    _do(s, type="place", space=S["traveling_players"])
    assert s.current_player == 1  # the owner decides in seat 0's turn
    _do(s, type="use_card", card="A160")
    got = _goods_of(s, 1)
    assert (got["food"], got["wood"], got["vegetable"]) == (0, 1, 1)
    assert _delta(before, _goods_of(s, 0)) == {"food": 2} and s.current_player == 0


@row("A160", "quiet")
def _a160_q() -> None:
    s = _use("traveling_players", lambda d: (_played(d, 0, "A160"),
                                              _pile(d, "traveling_players", "food", 2)),
             {"food": 2})
    assert not s._pending
    s = _use("fishing", lambda d: _played(d, 1, "A160"), {}, seat=1)


# --- placement rules ----------------------------------------------------------------------------

def _guest(d: Data, host: int = 1) -> None:
    _played(d, 0, "A026")
    _farm(d, 0, rooms=[0, 5, 10])
    d["board"]["occupants"] = [[S["basic_wish_for_children"], host]]


@row("A026", "space_used")
def _a026() -> None:
    d = _pos()
    _guest(d)
    s = _load(d)
    _do(s, type="place", space=S["basic_wish_for_children"])
    assert s._people[0] == 3 and s._board.occupant(S["basic_wish_for_children"]) == 1
    back = json.loads(json.dumps(s.to_dict()))
    assert back["cards"]["guests"] == [[S["basic_wish_for_children"], 0]]
    assert AGRICOLA.state_from_dict(back).to_dict() == back


@row("A026", "quiet")
def _a026_q() -> None:
    for setup in (lambda d: _guest(d, 0),  # its own person there
                  lambda d: (_guest(d), d["cards"].update(guests=[[S["basic_wish_for_children"],
                                                                   2]])),
                  lambda d: (_guest(d), _take_card(d, "A026"))):
        d = _pos()
        setup(d)
        assert not _can(_load(d), type="place", space=S["basic_wish_for_children"])


def _take_card(d: Data, card: str) -> None:
    d["cards"]["players"][0]["minors"].remove(card)


def _lasso(first: str, **pile: int) -> CardState:
    d = _pos()
    _played(d, 0, "B024")
    d["players"][1]["people_to_place"] = 1
    for space, n in pile.items():
        _pile(d, space, "sheep" if space == "sheep_market" else "wood", n)
    s = _load(d)
    _do(s, type="place", space=S[first])
    return s


@row("B024", "space_used")
def _b024() -> None:
    s = _lasso("day_laborer")
    _do(s, type="use_card", card="B024")
    assert s.current_player == 0 and s.phase == "place"
    spaces = {a["space"] for a in s.legal_actions()}
    assert spaces == {S["sheep_market"], S["pig_market"], S["cattle_market"]} - {
        sp for sp, _ in s._board.occupied()}
    _do(s, type="place", space=S["sheep_market"])
    assert s.current_player == 1 and not _asked(s, "B024")
    s = _lasso("sheep_market", sheep_market=1)
    _do(s, type="use_card", card="B024")
    assert s.current_player == 0 and _can(s, type="place", space=S["day_laborer"])


@row("B024", "quiet")
def _b024_q() -> None:
    s = _lasso("day_laborer")
    _do(s, type="decline", card="B024")
    assert s.current_player == 1
    d = _pos()
    _played(d, 0, "B024")
    d["board"]["occupants"] = [[S[m], 2] for m in ("sheep_market", "pig_market",
                                                    "cattle_market")]
    s = _load(d)
    _do(s, type="place", space=S["day_laborer"])
    assert not s._pending  # no market free


# --- the table, the turn's decisions, the playouts ----------------------------------------------

def test_the_rows_cover_exactly_this_group() -> None:
    assert {c for c, _ in SPACE_ROWS} == set(MINE)
    assert all(c in EFFECTS for c in MINE)


@pytest.mark.parametrize(("card", "what"), sorted(SPACE_ROWS))
def test_space_row(card: str, what: str) -> None:
    SPACE_ROWS[(card, what)]()


@pytest.mark.parametrize("n", [2, 4])
def test_an_event_acts_on_no_space_but_those_it_names(n: int) -> None:
    """The engine calls a SPACE_USED event only for the spaces it names: on a use of any other
    space, by anyone, at either time, the event changes nothing (its owner rich enough for
    every clause). Brook and Lasso name none: they hear every space."""
    named = [c for c in MINE if EFFECTS[c].spaces is not None]
    assert set(MINE) - set(named) == {"B024", "B056"}
    d = _pos(8, n)
    named = [c for c in named if c in (*pool("occupation", n), *pool("minor", n))]
    _played(d, 0, *named)
    _goods(d, 0, wood=6, clay=6, reed=6, stone=6, food=9, grain=4, vegetable=2, sheep=1)
    d["cards"]["marks"] = {"B019": [2]}
    s = _load(d)
    before = s.to_dict()
    for card in named:
        event = EFFECTS[card].events[Moment.SPACE_USED]
        others = set(range(len(CARD_SPACES))) - (EFFECTS[card].spaces or set())
        for space, user, when in itertools.product(sorted(others), range(n), (AT_USE, AT_END)):
            c = s.clone()
            c._use = (space, user, when)
            event(c, 0, card)
            assert c.to_dict() == before, (card, space, user, when)


def test_a_decision_held_saves_and_loads() -> None:
    s = _use("forest", _forest("A108"), {"wood": 3})
    d = json.loads(json.dumps(s.to_dict()))
    assert d["cards"]["hold"] == 1 and d["current_player"] == 0
    back = AGRICOLA.state_from_dict(d)
    assert back.to_dict() == d and back.legal_actions() == s.legal_actions()


def _keen(s: CardState, rng: random.Random) -> int:
    """Play a card whenever one can be played, so the effects come into play."""
    plays = [i for i, a in enumerate(s.legal_actions())
             if a["type"] in ("play_occupation", "play_minor")]
    return rng.choice(plays) if plays and rng.random() < 0.8 else rng.randrange(s.num_legal())


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_with_space_cards(n: int) -> None:
    for seed in range(3):
        play_out(stacked(n, seed, MINE), random.Random(100 + seed), save_every=17, choose=_keen)


