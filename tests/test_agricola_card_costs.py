"""Card effects on what rooms, renovation, fences and improvements cost (and the cards left
for last: Mini Pasture, Scholar, Mantlepiece, Bottles): one scenario row per clause where it
fires (exact deltas) and one where it must not. The coverage test of
``test_agricola_card_effects.py`` counts :data:`COST_ROWS`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from agricola_cards_helpers import Rows, registrar
from test_agricola_card_effects import (
    Data,
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
    _played_gives,
    _round_gives,
)
from test_agricola_card_spaces import _pos, _use_card

from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.components import HOUSE_STONE, SPACE_ID

S = SPACE_ID
COST_ROWS: Rows = {}
row = registrar(COST_ROWS)
MINE = ("A016", "A087", "A088", "A123", "A143", "B002", "B013", "B033", "B036", "B097",
        "B126", "B145")




def _at(cards: tuple[str, ...], setup: Callable[[Data], None], space: str) -> CardState:
    """Seat 0, with ``cards`` played and an empty hand, places a person on ``space``."""
    d = _pos()
    _played(d, 0, *cards)
    _hand(d, 0)
    setup(d)
    s = _load(d)
    _do(s, type="place", space=S[space])
    return s


def _builds(cards: tuple[str, ...], setup: Callable[[Data], None], space: str,
            *then: dict[str, Any]) -> tuple[CardState, dict[str, int]]:
    """:func:`_at`, then the actions with the fields ``then`` (a room's cell left out: the
    first spot); the goods' change."""
    d = _pos()
    _played(d, 0, *cards)
    _hand(d, 0)
    setup(d)
    s = _load(d)
    before = _goods_of(s, 0)
    _do(s, type="place", space=S[space])
    for fields in then:
        if fields.get("type") == "build_room" and "cell" not in fields:
            fields = {**fields, "cell": s._farms[0].room_spots()[0]}
        if fields.get("type") == "pasture" and not _can(s, **fields):
            continue  # the one pasture left, built at once
        _do(s, **fields)
    return s, _delta(before, _goods_of(s, 0))


ROOM = {"type": "build_room"}
RENOVATE = {"type": "renovate"}


def _stone(d: Data) -> None:
    _farm(d, 0, house="stone")


def _clay(d: Data) -> None:
    _farm(d, 0, house="clay")


# --- rooms and renovation -----------------------------------------------------------------------

@row("A143", "cost")
def _a143() -> None:
    s, got = _builds(("A143",), lambda d: (_stone(d), _goods(d, 0, stone=4, reed=2, wood=1)),
                     "farm_expansion", ROOM)
    assert got == {"stone": -4, "reed": -2} and s._farms[0].num_rooms() == 3
    _, got = _builds(("A143",), lambda d: (_clay(d), _goods(d, 0, stone=1, reed=1)),
                     "house_redevelopment")  # the one choice, taken at once
    assert got == {"stone": -1, "reed": -1}
    d = _data()
    _played(d, 0, "A143")
    _hand(d, 0, "B033")  # Mantlepiece: 1 stone
    _clay(d)
    _goods(d, 0, food=1)
    s = _load(d)
    before = _goods_of(s, 0)
    _play(s, "B033")
    assert _delta(before, _goods_of(s, 0)) == {}


@row("A143", "quiet")
def _a143_q() -> None:
    _, got = _builds(("A143",), lambda d: _goods(d, 0, wood=5, reed=2, stone=1),
                     "farm_expansion", ROOM)
    assert got == {"wood": -5, "reed": -2}  # no stone in the cost
    d = _pos()
    _stone(d)
    _goods(d, 0, stone=4, reed=2, wood=1)
    assert not _can(_load(d), type="place", space=S["farm_expansion"])


@row("A123", "cost")
def _a123() -> None:
    s = _at(("A123",), lambda d: (_clay(d), _goods(d, 0, clay=5, wood=1, reed=2)),
            "farm_expansion")
    cell = s._farms[0].room_spots()[0]
    assert _can(s, type="build_room", cell=cell, pay=[0, 5, 2, 0])
    before = _goods_of(s, 0)
    _do(s, type="build_room", cell=cell, pay=[1, 3, 2, 0])
    assert _delta(before, _goods_of(s, 0)) == {"wood": -1, "clay": -3, "reed": -2}
    _, got = _builds(("A123",), lambda d: (_clay(d), _goods(d, 0, stone=1, wood=1, reed=1)),
                     "house_redevelopment")  # 2 stone: 1 wood in their place
    assert got == {"wood": -1, "reed": -1}


@row("A123", "quiet")
def _a123_q() -> None:
    s = _at(("A123",), lambda d: _goods(d, 0, wood=6, reed=2), "farm_expansion")
    assert not _can(s, pay=[6, 0, 2, 0]) and _can(s, type="build_room")
    assert all("pay" not in a for a in s.legal_actions())  # no clay or stone to replace


@row("B145", "cost")
def _b145() -> None:
    _, got = _builds(("B145",), lambda d: _goods(d, 0, wood=6), "farm_expansion", ROOM)
    assert got == {"wood": -6}
    s = _at(("B145",), lambda d: _goods(d, 0, wood=6, reed=2), "farm_expansion")
    cell = s._farms[0].room_spots()[0]
    assert _can(s, type="build_room", cell=cell, pay=[5, 0, 2, 0])
    assert _can(s, type="build_room", cell=cell, pay=[6, 0, 0, 0])


@row("B145", "quiet")
def _b145_q() -> None:
    _, got = _builds(("B145",), lambda d: _goods(d, 0, wood=5, reed=2), "farm_expansion", ROOM)
    assert got == {"wood": -5, "reed": -2}  # 6 wood for the reed: not affordable


@row("B126", "cost")
def _b126() -> None:
    _, got = _builds(("B126",), lambda d: _goods(d, 0, wood=3, reed=2), "farm_expansion", ROOM)
    assert got == {"wood": -3, "reed": -2}
    _, got = _builds(("B126",), lambda d: (_clay(d), _goods(d, 0, clay=3, reed=2)),
                     "farm_expansion", ROOM)
    assert got == {"clay": -3, "reed": -2}
    # Cottager's room on Day Laborer is paid what Carpenter says too.
    d = _pos()
    _played(d, 0, "B126", "B087")
    _goods(d, 0, wood=3, reed=2)
    s = _load(d)
    before = _goods_of(s, 0)
    _do(s, type="place", space=S["day_laborer"])
    _do(s, **_use_card("B087", build="room", cell=s._farms[0].room_spots()[0]))
    assert _delta(before, _goods_of(s, 0)) == {"food": 2, "wood": -3, "reed": -2}


@row("B126", "quiet")
def _b126_q() -> None:
    _, got = _builds(("B126",), lambda d: (_clay(d), _goods(d, 0, stone=2, reed=1)),
                     "house_redevelopment")  # a renovation costs what it costs
    assert got == {"stone": -2, "reed": -1}


@row("B013", "cost")
def _b013() -> None:
    _, got = _builds(("B013",), lambda d: _goods(d, 0, wood=2, reed=2), "farm_expansion", ROOM)
    assert got == {"wood": -2, "reed": -2}


@row("B013", "quiet")
def _b013_q() -> None:
    s = _at(("B013",), lambda d: (_clay(d), _goods(d, 0, wood=2, clay=4, reed=2)),
            "farm_expansion")
    assert not _can(s, type="build_room")  # a clay room: 5 clay


@row("A087", "cost")
def _a087() -> None:
    s, got = _builds(("A087",), lambda d: _goods(d, 0, clay=2, stone=2, reed=1),
                     "house_redevelopment", {"type": "renovate", "to": "stone"})
    assert got == {"stone": -2, "reed": -1} and s._farms[0].material == HOUSE_STONE
    s = _at(("A087", "A143"), lambda d: _goods(d, 0, clay=2, stone=1, reed=1),
            "house_redevelopment")  # Stonecutter: 1 stone less on the way to stone too
    assert _can(s, type="renovate", to="stone")


@row("A087", "quiet")
def _a087_q() -> None:
    s = _at(("A087",), lambda d: (_clay(d), _goods(d, 0, clay=2, stone=2, reed=1)),
            "house_redevelopment")
    assert not any(a.get("to") for a in s.legal_actions())
    assert s._farms[0].material == HOUSE_STONE  # the one renovation, taken at once


@row("B033", "cost")
def _b033() -> None:
    d = _pos()
    _played(d, 0, "B033")
    _clay(d)
    _goods(d, 0, stone=2, reed=1, clay=5)
    s = _load(d)
    assert not _can(s, type="place", space=S["house_redevelopment"])


@row("B033", "quiet")
def _b033_q() -> None:
    _, got = _builds(("B033",), lambda d: (_clay(d), _goods(d, 0, clay=5, reed=2)),
                     "farm_expansion", ROOM)  # rooms are no renovation
    assert got == {"clay": -5, "reed": -2}


@row("B033", "on_play")
def _b033_p() -> None:
    d = _data()
    _hand(d, 0, "B033")
    _clay(d)
    _goods(d, 0, stone=1)
    s = _load(d)
    _play(s, "B033")
    assert s.card_points(0) == {"B033": 13} and s.breakdown(0)["cards"] == 10


# --- fences -------------------------------------------------------------------------------------

PASTURE_4 = ({"type": "pasture_from", "cell": 4}, {"type": "pasture", "shape": [4]})


@row("A088", "cost")
def _a088() -> None:
    s, got = _builds(("A088",), lambda d: _goods(d, 0, wood=1), "fencing", *PASTURE_4)
    assert got == {"wood": -1} and s._farms[0].pastures == (1 << 4,)
    assert s.to_dict()["cards"]["marks"]["A088"] == [13, S["fencing"], 3]


@row("A088", "quiet")
def _a088_q() -> None:
    def setup(d: Data) -> None:
        _goods(d, 0, wood=4)
        d["cards"]["marks"] = {"A088": [13, S["fencing"], 3]}  # this action's 3 are used
    _, got = _builds(("A088",), setup, "fencing", *PASTURE_4)
    assert got == {"wood": -4}
    d = _pos()
    _goods(d, 0, wood=3)
    assert not _can(_load(d), type="place", space=S["fencing"])  # no Hedge Keeper


@row("A016", "cost")
def _a016() -> None:
    _, got = _builds(("A016",), lambda d: _goods(d, 0, wood=1, clay=3), "fencing", *PASTURE_4)
    assert got == {"wood": -1, "clay": -3}


@row("A016", "quiet")
def _a016_q() -> None:
    _, got = _builds(("A016",), lambda d: _goods(d, 0, wood=4, clay=3), "fencing", *PASTURE_4)
    assert got == {"wood": -4}  # wood first (ruling C28)


@row("A016", "on_play")
def _a016_p() -> None:
    _played_gives("A016", lambda d: _goods(d, 0), {"clay": 1})


# --- on play and round start --------------------------------------------------------------------

@row("B002", "on_play")
def _b002() -> None:
    d = _data()
    _hand(d, 0, "B002")
    _goods(d, 0, food=2)
    s = _load(d)
    before = _goods_of(s, 0)
    _play(s, "B002")
    _do(s, type="card_choice", card="B002", choice=4)
    assert _delta(before, _goods_of(s, 0)) == {"food": -2}
    assert s._farms[0].pastures == (1 << 4,) and s._farms[0].fences_built() == 4


@row("B002", "quiet")
def _b002_q() -> None:
    d = _data()
    _hand(d, 0, "B002")
    _goods(d, 0, food=2)
    _pasture(d, [3, 4])
    s = _load(d)
    _play(s, "B002")
    assert not _can(s, choice=0) and _can(s, choice=9) and _can(s, choice=2)
    assert _can(s, choice=4)  # split off the pasture


@row("B036", "cost")
def _b036() -> None:
    _played_gives("B036", lambda d: _goods(d, 0, clay=2, food=2), {"clay": -2, "food": -2})


@row("B036", "quiet")
def _b036_q() -> None:
    from test_agricola_card_effects import _not_playable
    _not_playable("B036", lambda d: _goods(d, 0, clay=1, food=2))


@row("B097", "round_start")
def _b097() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "B097")
        _stone(d)
        _hand(d, 0, "A098", "A032")
        _goods(d, 0, food=1, wood=2)
    s = _round_gives(setup, {"food": -1}, 2,
                     _use_card("B097", play="play_occupation", which="A098"))
    assert s.played(0)[0] == ("B097", "A098")
    s = _round_gives(setup, {"wood": -2}, 2,
                     _use_card("B097", play="play_minor", which="A032"))
    assert s.played(0)[1] == ("A032",)


@row("B097", "quiet")
def _b097_q() -> None:
    def setup(d: Data) -> None:
        _played(d, 0, "B097")
        _hand(d, 0, "A098", "A032")
        _goods(d, 0, food=1, wood=2)
    s = _round_gives(setup, {})  # a wooden house
    assert not s._pending and s.hands(0)[0] == ("A098",)


def test_the_rows_cover_exactly_this_group() -> None:
    assert {c for c, _ in COST_ROWS} == set(MINE)


@pytest.mark.parametrize(("card", "what"), sorted(COST_ROWS))
def test_cost_row(card: str, what: str) -> None:
    COST_ROWS[(card, what)]()


def test_only_the_forbidding_cards_can_make_building_work_dearer() -> None:
    """``MAY_FORBID`` (what the usable spaces rely on): every other cost card leaves a room, a
    renovation or fences a way to pay no dearer than the printed cost, whatever the house."""
    from arena.engine.agricola.cards.effects import EFFECTS
    from arena.engine.agricola.cards.effects.base import Thing
    from arena.engine.agricola.cards.effects.building import MAY_FORBID, OPTIONAL_COSTS
    from arena.engine.agricola.components import GOODS

    def row(**amounts: int) -> tuple[int, ...]:
        return tuple(amounts.get(g, 0) for g in GOODS)

    materials = ("wood", "clay", "stone")
    things = []
    for rooms in range(2, 6):
        for m, name in enumerate(materials):
            things.append((Thing("room", "", rooms, m), row(**{name: 5}, reed=2)))
            if m < 2:
                things.append((Thing("renovation", "", rooms, m),
                               row(**{materials[m + 1]: rooms}, reed=1)))
        things.append((Thing("fences", "", rooms, 0), row(wood=rooms)))
    cost_cards = [c for c, e in EFFECTS.items() if e.cost is not None]
    assert "B033" in cost_cards and len(cost_cards) > 5
    for card in cost_cards:
        rule = EFFECTS[card].cost
        assert rule is not None
        for thing, base in things:
            got = rule(thing, base)
            cheaper = got is not None and all(a <= b for a, b in zip(got, base, strict=True))
            assert cheaper or card in OPTIONAL_COSTS or card in MAY_FORBID, (card, thing)


def test_the_cards_changing_each_kind_of_building_are_all_named() -> None:
    """``CHANGED_BY`` (placement decides a building space again only for a seat with one of
    its cards): every other cost card's rule leaves what a room or a renovation costs as it
    is, whatever the house and whatever the cost it is handed (another rule may have changed
    it); Conservator and Mantlepiece change renovation, the fence cards fences."""
    import itertools

    from arena.engine.agricola.cards.effects import EFFECTS
    from arena.engine.agricola.cards.effects.base import Thing
    from arena.engine.agricola.cards.effects.building import (
        BUILDING_SPACES,
        CHANGED_BY,
        CONSERVATOR,
        HEDGE_KEEPER,
        MAY_FORBID,
        RAMMED_CLAY,
    )
    from arena.engine.agricola.components import (
        BUILD_FENCES,
        BUILD_ROOMS,
        BUILD_STABLES,
        GOODS,
        RENOVATE,
    )

    # The parts deciding the building spaces: what CHANGED_BY names, and the Family's stables.
    kinds = {part.kind for _, parts in BUILDING_SPACES for part in parts}
    assert kinds == {BUILD_ROOMS, RENOVATE, BUILD_FENCES, BUILD_STABLES}
    assert {CONSERVATOR, *MAY_FORBID} <= CHANGED_BY[RENOVATE]
    assert CHANGED_BY[BUILD_FENCES] == {HEDGE_KEEPER, RAMMED_CLAY}
    costs = [(*c, *(0,) * (len(GOODS) - 4)) for c in itertools.product((0, 1, 2, 5), repeat=4)]
    cost_cards = [c for c, e in EFFECTS.items() if e.cost is not None]
    for kind, what in ((BUILD_ROOMS, "room"), (RENOVATE, "renovation")):
        changing = set()
        for card in cost_cards:
            rule = EFFECTS[card].cost
            assert rule is not None
            for rooms, material, base in itertools.product(range(1, 7), range(3), costs):
                if rule(Thing(what, "", rooms, material), base) != base:
                    changing.add(card)
                    break
        assert changing <= CHANGED_BY[kind], (kind, changing - CHANGED_BY[kind])
        assert changing, kind
