"""Card effects in the field phase, on capacity and at any time (rows of the table of
test_agricola_card_harvest, which this module also runs and checks for coverage), and random
playouts with the whole group's cards dealt."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from agricola_cards_helpers import play_out, stacked
from test_agricola_card_effects import (
    DAY_LABORER,
    Data,
    _at_round,
    _can,
    _data,
    _do,
    _farm,
    _goods,
    _hand,
    _load,
    _pasture,
    _play,
    _played,
    _played_gives,
)
from test_agricola_card_harvest import (
    HARVEST_ROWS,
    MINE,
    USE,
    S,
    _act,
    _pos,
    _rich,
    _three_rooms,
    row,
)

from arena.engine.agricola.cards.deck import BY_ID
from arena.engine.agricola.cards.state import CardState

# --- the field phase ----------------------------------------------------------------------------

def _harvest(setup: Callable[[Data], None], *then: dict[str, Any]) -> tuple[CardState,
                                                                         dict[str, int]]:
    """Round 4 ends (a harvest) with every seat fed from 10 food; seat 0's delta without
    Day Laborer's 2 food and the 4 food its family eats."""
    def at(d: Data) -> None:
        _at_round(d, 4)
        _rich(d)
        setup(d)
        d["players"][0]["goods"]["food"] += 10
    s = _pos(at)
    got = _act(s, {"type": "place", "space": DAY_LABORER}, *then)
    got["food"] = got.get("food", 0) - 2 + 4
    return s, {g: n for g, n in got.items() if n}


@row("A112", "on_play")
def _a112() -> None:
    _played_gives("A112", lambda d: None, {"grain": 1})


@row("A112", "field_phase")
def _a112_f() -> None:
    s, got = _harvest(lambda d: (_played(d, 0, "A112"),
                                 _farm(d, 0, fields=[[1, "grain", 3], [2, "grain", 2]])),
                      {"type": USE, "card": "A112"})
    assert got == {"grain": 4} and s._farms[0].grain_in_fields() == 1


@row("A112", "quiet")
def _a112_q() -> None:
    s, got = _harvest(lambda d: (_played(d, 0, "A112"), _farm(d, 0, fields=[[1, "grain", 1]])))
    assert got == {"grain": 1} and not s._pending


@row("B039", "field_phase")
def _b039() -> None:
    assert _harvest(lambda d: (_played(d, 0, "B039"), _pasture(d, [3, 4]),
                               _goods(d, 0, sheep=4)))[1] == {"food": 2, "sheep": 1}


@row("B039", "scoring")
def _b039_s() -> None:
    s = _pos(lambda d: (_played(d, 0, "B039"), _pasture(d, [3, 4]), _goods(d, 0, sheep=4)))
    assert s.card_points(0) == {"B039": 1} and s.card_points(1) == {}


@row("B039", "quiet")
def _b039_q() -> None:
    assert _harvest(lambda d: _played(d, 0, "B039"))[1] == {}


@row("B050", "field_phase")
def _b050() -> None:
    assert _harvest(lambda d: (_played(d, 0, "B050"), _pasture(d, [3, 4, 8, 9]),
                               _goods(d, 0, sheep=3)))[1] == {"food": 1, "sheep": 1}
    assert _harvest(lambda d: (_played(d, 0, "B050"), _pasture(d, [3, 4]),
                               _goods(d, 0, cattle=2)))[1] == {"food": 1, "cattle": 1}


@row("B050", "quiet")
def _b050_q() -> None:
    assert _harvest(lambda d: (_played(d, 0, "B050"), _pasture(d, [3, 4]),
                               _goods(d, 0, sheep=2, cattle=1)))[1] == {"sheep": 1}


_THREE = [[1, "grain", 2], [2, "vegetable", 2], [3, None, 0]]


@row("B061", "field_phase")
def _b061() -> None:
    assert _harvest(lambda d: (_played(d, 0, "B061"), _farm(d, 0, fields=_THREE)))[1] == \
        {"food": 3, "grain": 1, "vegetable": 1}


@row("B061", "quiet")
def _b061_q() -> None:
    assert _harvest(lambda d: (_played(d, 0, "B061"), _farm(d, 0, fields=_THREE[:2])))[1] == \
        {"grain": 1, "vegetable": 1}


# --- capacity -----------------------------------------------------------------------------------

@row("A086", "on_play")
def _a086() -> None:
    _played_gives("A086", lambda d: None, {"grain": 1},
                  {"type": "card_choice", "card": "A086", "choice": "grain"})


@row("A086", "capacity")
def _a086_c() -> None:  # 3 rooms: 3 animals in the house, a saved state with them loads
    s = _pos(lambda d: (_played(d, 0, "A086"), _three_rooms(d, 0), _goods(d, 0, boar=3)))
    assert s._farms[0].fits(1, 1, 1) and not s._farms[0].fits(0, 4, 0)


@row("A086", "quiet")
def _a086_q() -> None:
    s = _pos(lambda d: _played(d, 1, "A086"))
    assert s._farms[0].fits(0, 1, 0) and not s._farms[0].fits(0, 2, 0)


@row("A012", "capacity")
def _a012() -> None:
    s = _pos(lambda d: (_played(d, 0, "A012"), _pasture(d, [4]), _goods(d, 0, sheep=5)))
    assert s._farms[0].fits(5, 0, 0) and not s._farms[0].fits(6, 0, 0)
    c = s.clone()
    assert c._farms[0].fits(5, 0, 0)


@row("A012", "quiet")
def _a012_q() -> None:
    s = _pos(lambda d: (_played(d, 1, "A012"), _pasture(d, [4])))
    assert s._farms[0].fits(3, 0, 0) and not s._farms[0].fits(4, 0, 0)


def _caravan(people: int) -> bool:
    def setup(d: Data) -> None:
        _played(d, 0, "B010")
        d["players"][0]["people"] = people
        d["players"][0]["people_to_place"] = 1
    s = _pos(setup, space="basic_wish_for_children")
    return _can(s, type="place", space=S["basic_wish_for_children"])


row("B010", "capacity")(lambda: _assert(_caravan(2)))
row("B010", "quiet")(lambda: _assert(not _caravan(3)))


def _assert(ok: bool) -> None:
    assert ok


def _beans(**goods: int) -> CardState:
    s = _pos(lambda d: (_played(d, 0, "B068"), _goods(d, 0, grain=1, **goods),
                        _farm(d, 0, fields=[[1, None, 0]])), space="grain_utilization")
    _do(s, type="place", space=S["grain_utilization"])
    return s


@row("B068", "capacity")
def _b068() -> None:
    s = _beans(vegetable=1)
    _do(s, type="sow", card="B068")
    assert s.mark("B068") == (2,) and s._goods[0][8] == 0
    assert s.score_input(0).vegetables == 2
    t, got = _harvest(lambda d: (_played(d, 0, "B068"), d["cards"].update(marks={"B068": [2]})))
    assert got == {"vegetable": 1} and t.mark("B068") == (1,)


@row("B068", "quiet")
def _b068_q() -> None:
    assert not _can(_beans(), card="B068")


# --- any time -----------------------------------------------------------------------------------

@row("A102", "on_play")
def _a102() -> None:
    d = _data()
    _hand(d, 0, "A102")
    s = _load(d)
    _play(s, "A102")
    assert s.mark("A102") == (8,)


@row("A102", "anytime")
def _a102_a() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "A102")
        d["cards"]["marks"] = {"A102": [3]}
        _goods(d, 0, food=2)
    s = _pos(setup)
    assert _act(s, {"type": USE, "card": "A102", "buy": "clay"}) == {"food": -1, "clay": 1}
    assert s.mark("A102") == (2,) and s.phase == "place" and s.current_player == 0


@row("A102", "quiet")
def _a102_q() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "A102")
        d["cards"]["marks"] = {"A102": [3]}
        _goods(d, 0)
    assert not _can(_pos(setup), card="A102")  # no food


@row("B104", "anytime")
def _b104() -> None:  # at a feeding short of food: the sheep becomes a vegetable, then food
    def setup(d: Data) -> None:
        _at_round(d, 4)
        _rich(d)
        _played(d, 0, "B104")
        _goods(d, 0, sheep=1, food=1)
    s = _pos(setup)
    _do(s, type="place", space=DAY_LABORER)
    assert s.phase == "feed" and s.current_player == 0
    assert _act(s, {"type": USE, "card": "B104", "get": "vegetable"}) == \
        {"sheep": -1, "vegetable": 1}
    assert s.phase == "feed" and _can(s, type="feed", vegetable=1, begging=0)


@row("B104", "quiet")
def _b104_q() -> None:
    s = _pos(lambda d: (_played(d, 0, "B104"), _goods(d, 0, food=3)))
    assert not _can(s, card="B104")


@row("A071", "anytime")
def _a071() -> None:
    s = _pos(lambda d: (_played(d, 0, "A071"),
                        _farm(d, 0, fields=[[1, "vegetable", 2], [2, None, 0]])))
    _do(s, type=USE, card="A071", cell=1, to=2)
    assert s._farms[0].crop(1)[1] == 1 and s._farms[0].crop(2)[1] == 1
    assert s._farms[0].vegetables_in_fields() == 2


@row("A071", "quiet")
def _a071_q() -> None:
    s = _pos(lambda d: (_played(d, 0, "A071"),
                        _farm(d, 0, fields=[[1, "grain", 1], [2, None, 0]])))
    assert not _can(s, card="A071")


@row("B080", "anytime")
def _b080() -> None:
    s = _pos(lambda d: (_played(d, 0, "B080"), _goods(d, 0, clay=3)))
    assert not _can(s, card="B080", clay=4)
    assert _act(s, {"type": USE, "card": "B080", "clay": 3}) == {"clay": -3, "stone": 2}


@row("B080", "quiet")
def _b080_q() -> None:
    assert not _can(_pos(lambda d: (_played(d, 0, "B080"), _goods(d, 0, clay=1))), card="B080")


# --- the table ----------------------------------------------------------------------------------

def test_rows_cover_the_group() -> None:
    assert {c for c, _ in HARVEST_ROWS} == MINE
    for c in MINE:
        whats = {w for k, w in HARVEST_ROWS if k == c}
        assert whats == {m.value for m in BY_ID[c].moments} | {"quiet"}, c


@pytest.mark.parametrize(("card", "what"), sorted(HARVEST_ROWS))
def test_harvest_row(card: str, what: str) -> None:
    HARVEST_ROWS[(card, what)]()


# --- playouts with these cards dealt ------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_with_these_cards(n: int) -> None:
    for seed in range(2):
        play_out(stacked(n, seed, MINE), random.Random(100 + seed), save_every=17)
