"""Card effects at sub-actions, returning home, the field phase, capacity and any time: one
row per clause where it fires (exact deltas) and one where it must not, and random playouts
with these cards dealt. The rows count in the coverage test of test_agricola_card_effects."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agricola_cards_helpers import Rows, registrar
from test_agricola_card_effects import (
    Data,
    _at_round,
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
    _played_gives,
    _round_gives,
)

from arena.engine.agricola.cards.spaces import LESSONS
from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.components import SPACE_ID

HARVEST_ROWS: Rows = {}
row = registrar(HARVEST_ROWS)
MINE: frozenset[str] = frozenset({
    "A086", "A092", "A102", "A110", "A111", "A112", "A120", "A165", "B104", "B107", "B109",
    "B163", "A012", "A053", "A055", "A063", "A071", "A083", "B010", "B016", "B025", "B039",
    "B050", "B061", "B068", "B080",
})
S = SPACE_ID
USE, NO = "use_card", "decline"




def _round_of(d: Data, space: str) -> int:
    """The first round whose stage card is ``space`` (seed 1's order)."""
    return int(d["board"]["order"].index(S[space])) + 1


def _pos(setup: Callable[[Data], None], rnd: int = 1, space: str | None = None) -> CardState:
    d = _data()
    if space is not None:
        rnd = _round_of(d, space)
    if rnd > 1:
        _at_round(d, rnd)
    setup(d)
    return _load(d)


def _majors(d: Data, seat: int, *majors: int) -> None:
    d["players"][seat]["majors"] = list(majors)
    d["board"]["majors"] = [m for m in d["board"]["majors"] if m not in majors]


def _rich(d: Data) -> None:
    for p in range(1, 4):
        _goods(d, p, food=10)


def _act(s: CardState, *steps: dict[str, Any]) -> dict[str, int]:
    """Seat 0's goods delta over the actions with these fields."""
    before = _goods_of(s, 0)
    for fields in steps:
        _do(s, **fields)
    return _delta(before, _goods_of(s, 0))


def _first_room(s: CardState) -> dict[str, Any]:
    return {"type": "build_room", "cell": s._farms[0].room_spots()[0]}


def _promised(s: CardState) -> list[list[Any]]:
    out: list[list[Any]] = s.to_dict()["cards"]["promised"]
    return out


# --- sub-actions --------------------------------------------------------------------------------

@row("A110", "sub_action")
def _a110() -> None:
    s = _pos(lambda d: (_played(d, 0, "A110"), _farm(d, 0, house="clay"),
                        _goods(d, 0, clay=5, reed=2)))
    assert _act(s, {"type": "place", "space": S["farm_expansion"]}, _first_room(s)) == \
        {"clay": -5, "reed": -2, "food": 3}


@row("A110", "quiet")
def _a110_q() -> None:
    s = _pos(lambda d: (_played(d, 0, "A110"), _goods(d, 0, wood=5, reed=2)))
    assert _act(s, {"type": "place", "space": S["farm_expansion"]}, _first_room(s)) == \
        {"wood": -5, "reed": -2}


def _wall(answer: str) -> CardState:
    s = _pos(lambda d: (_played(d, 0, "A111"), _goods(d, 0, wood=5, reed=2)))
    _act(s, {"type": "place", "space": S["farm_expansion"]}, _first_room(s),
         {"type": answer, "card": "A111"})
    return s


@row("A111", "sub_action")
def _a111() -> None:
    assert _promised(_wall(USE)) == [[r, 0, "food", 1] for r in (2, 3, 4, 5)]


@row("A111", "quiet")
def _a111_q() -> None:
    assert _promised(_wall(NO)) == []


def _collects(card: str, good: str) -> None:
    def setup(d: Data) -> None:
        _played(d, 0, card)
        d["cards"]["promised"] = [[3, 0, good, 2]]
        d["cards"]["marks"] = {card: [1]} if card != "A111" else {}
    _round_gives(setup, {good: 2})


row("A111", "round_start")(lambda: _collects("A111", "food"))
row("A120", "round_start")(lambda: _collects("A120", "clay"))
row("B107", "round_start")(lambda: _collects("B107", "food"))


@row("A120", "on_play")
def _a120() -> None:
    d = _data()
    _hand(d, 0, "A120")
    _farm(d, 0, house="clay")
    s = _load(d)
    _play(s, "A120")
    assert _promised(s) == [[r, 0, "clay", 2] for r in range(2, 7)]


def _renovated(card: str, house: str, **goods: int) -> CardState:
    s = _pos(lambda d: (_played(d, 0, card), _farm(d, 0, house=house), _goods(d, 0, **goods)),
             space="house_redevelopment")
    _do(s, type="place", space=S["house_redevelopment"])  # its one renovation at once
    return s


@row("A120", "sub_action")
def _a120_s() -> None:
    s = _renovated("A120", "wood", clay=2, reed=1)
    rnd = _round_of(_data(), "house_redevelopment")  # the next round has begun and paid
    assert _promised(s) == [[r, 0, "clay", 2] for r in range(rnd + 2, rnd + 6)]
    assert s._goods[0][1] == 2
    assert s.mark("A120") == (1,)


@row("A120", "quiet")
def _a120_q() -> None:
    d = _data()
    _hand(d, 0, "A120")
    s = _load(d)
    _play(s, "A120")  # a wooden house: nothing yet
    assert _promised(s) == [] and s.mark("A120") == ()


@row("B107", "on_play")
def _b107() -> None:
    d = _data()
    _hand(d, 0, "B107")
    _farm(d, 0, house="stone")
    s = _load(d)
    _play(s, "B107")
    assert _promised(s) == [[r, 0, "food", 3] for r in range(2, 15)]


@row("B107", "sub_action")
def _b107_s() -> None:
    s = _renovated("B107", "clay", stone=2, reed=1)
    rnd = _round_of(_data(), "house_redevelopment")
    assert _promised(s) == [[r, 0, "food", 3] for r in range(rnd + 2, 15)]


@row("B107", "quiet")
def _b107_q() -> None:
    s = _renovated("B107", "wood", clay=2, reed=1)  # to clay: not yet
    assert _promised(s) == []


def _three_rooms(d: Data, *seats: int) -> None:
    for p in seats:
        _farm(d, p, rooms=[0, 5, 10])


@row("B163", "on_play")
def _b163() -> None:
    _played_gives("B163", lambda d: _three_rooms(d, 1, 2, 3),
                  {"wood": 3, "clay": 2, "reed": 1, "stone": 1})


@row("B163", "sub_action")
def _b163_s() -> None:  # seat 0's room leaves seat 1 the only house of 2 rooms
    s = _pos(lambda d: (_played(d, 1, "B163"), _three_rooms(d, 2, 3),
                        _goods(d, 0, wood=5, reed=2)))
    before = _goods_of(s, 1)
    _act(s, {"type": "place", "space": S["farm_expansion"]}, _first_room(s))
    assert _delta(before, _goods_of(s, 1)) == {"wood": 3, "clay": 2, "reed": 1, "stone": 1}
    assert s.mark("B163") == (1,)


@row("B163", "quiet")
def _b163_q() -> None:
    _played_gives("B163", lambda d: _three_rooms(d, 2, 3), {})  # seat 1 has 2 rooms too


@row("A055", "sub_action")
def _a055() -> None:
    _played_gives("A055", lambda d: _goods(d, 0, wood=1, clay=1), {"wood": -1, "clay": -1,
                                                                     "food": 1})


@row("A055", "quiet")
def _a055_q() -> None:
    s = _pos(lambda d: (_played(d, 0, "A055"), _hand(d, 0, "A086")))
    assert _act(s, {"type": "place", "space": LESSONS}) == {}  # its one play is made at once
    assert s.played(0)[0] == ("A086",)


def _windmill(rnd: int) -> dict[str, int]:
    def setup(d: Data) -> None:
        _at_round(d, rnd)
        _played(d, 0, "A063")
        _majors(d, 0, 0)  # a Fireplace: 2 food per grain
        _goods(d, 0, grain=1)
    s = _pos(setup)
    return _act(s, {"type": "place", "space": S["grain_utilization"]})  # its one bake at once


@row("A063", "sub_action")
def _a063() -> None:
    assert _windmill(5) == {"grain": -1, "food": 5}


@row("A063", "quiet")
def _a063_q() -> None:
    assert _windmill(6) == {"grain": -1, "food": 2}


def _crook(shape: list[int]) -> CardState:
    s = _pos(lambda d: (_played(d, 0, "A083"), _goods(d, 0, wood=15)), space="fencing")
    _do(s, type="place", space=S["fencing"])
    _do(s, type="pasture_from", cell=shape[0])
    _do(s, type="pasture", shape=shape)
    return s


@row("A083", "sub_action")
def _a083() -> None:
    assert _crook([3, 4, 8, 9])._goods[0][7] == 2  # sheep


@row("A083", "quiet")
def _a083_q() -> None:
    assert _crook([4, 9])._goods[0][7] == 0


@row("B016", "on_play")
def _b016() -> None:
    _played_gives("B016", lambda d: _goods(d, 0, wood=1), {"wood": -1, "food": 1})


@row("B016", "sub_action")
def _b016_s() -> None:
    s = _renovated("B016", "wood", clay=2, reed=1)
    _do(s, type=USE, card="B016", cell=0)
    assert s._farms[0].num_stables() == 1 and s._goods[0][0] == 0


@row("B016", "quiet")
def _b016_q() -> None:
    s = _renovated("B016", "wood", clay=2, reed=1)
    _do(s, type=NO, card="B016")
    assert s._farms[0].num_stables() == 0


@row("B025", "on_play")
def _b025() -> None:
    _played_gives("B025", lambda d: _goods(d, 0, wood=1), {"wood": -1, "food": 1})


def _paddle(answer: dict[str, Any]) -> dict[str, int]:
    s = _pos(lambda d: (_played(d, 0, "B025"), _hand(d, 0, "A086"), _majors(d, 0, 0),
                        _goods(d, 0, grain=1)))
    return _act(s, {"type": "place", "space": LESSONS},  # the one play is made at once
                {"type": "card_choice", "card": "A086", "choice": "wood"}, answer)


@row("B025", "sub_action")
def _b025_s() -> None:
    assert _paddle({"type": USE, "card": "B025", "grain": 1}) == \
        {"wood": 1, "grain": -1, "food": 2}


@row("B025", "quiet")
def _b025_q() -> None:
    assert _paddle({"type": NO, "card": "B025"}) == {"wood": 1}


def _adopt(answer: str) -> CardState:
    s = _pos(lambda d: (_played(d, 0, "A092"), _three_rooms(d, 0), _goods(d, 0, food=1)),
             space="basic_wish_for_children")
    _do(s, type="place", space=S["basic_wish_for_children"])
    _do(s, type=answer, card="A092")
    return s


@row("A092", "sub_action")
def _a092() -> None:
    s = _adopt(USE)
    rnd = _round_of(_data(), "basic_wish_for_children")
    assert s.round == rnd and s.current_player == 0 and s.phase == "place"
    assert (s._people[0], s._newborns[0], s._home[0], s._goods[0][9]) == (3, 0, 1, 0)


@row("A092", "quiet")
def _a092_q() -> None:
    s = _adopt(NO)  # the newborn waits: the round is over
    assert s.round == _round_of(_data(), "basic_wish_for_children") + 1


def _paper(answer: str) -> dict[str, int]:
    s = _pos(lambda d: (_played(d, 0, "B109"), _hand(d, 0, "A098"),
                        _goods(d, 0, wood=1, food=1)))
    return _act(s, {"type": "place", "space": LESSONS}, {"type": answer, "card": "B109"})


@row("B109", "sub_action")
def _b109() -> None:
    assert _paper(USE) == {"wood": -1}  # 1 food, paid for the occupation played after


@row("B109", "quiet")
def _b109_q() -> None:
    assert _paper(NO) == {"food": -1}


# --- returning home -----------------------------------------------------------------------------

def _claypipe(had: int) -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "A053")
        d["cards"]["marks"] = {"A053": [2, had]}
    s = _pos(setup, 2)
    reed = s._board.to_dict()["accumulated"] if hasattr(s._board, "to_dict") else None
    del reed
    got = _act(s, {"type": "place", "space": S["reed_bank"]})
    assert got.pop("reed") >= 1
    assert got == ({"food": 2} if had == 6 else {}) and s.mark("A053") == ()


row("A053", "return_home")(lambda: _claypipe(6))
row("A053", "quiet")(lambda: _claypipe(5))


@row("A165", "on_play")
def _a165() -> None:
    _played_gives("A165", lambda d: None, {"boar": 1})


@row("A165", "return_home")
def _a165_r() -> None:
    _round_gives(lambda d: (_played(d, 0, "A165"), _pasture(d, [3, 4]), _goods(d, 0, boar=2)),
                 {"boar": 1}, 12)


@row("A165", "quiet")
def _a165_q() -> None:
    _round_gives(lambda d: (_played(d, 0, "A165"), _pasture(d, [3, 4]), _goods(d, 0, boar=2)),
                 {}, 10)
