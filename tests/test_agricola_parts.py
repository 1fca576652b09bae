"""Agricola: the parts of an action space (``parts.py``): options, usability, carrying out.

Reference A3/A4 (what each space does), A7 (rooms 5 + 2 reed next to a room, renovation 1 per
room + 1 reed, fields next to fields, stables 4 at most, 2 wood at Farm Expansion and exactly
one for 1 wood at Side Job, 15 fences at 1 wood each, family growth "with room" needs
rooms > people), A8 (majors' costs, a Cooking Hearth for a returned Fireplace, which goes back
on the board). Rulings P1-P12 in RULES.md.
"""

from __future__ import annotations

from typing import Any

import pytest

from arena.engine.agricola.board import Board, new_board, prepare_round
from arena.engine.agricola.components import (
    CLAY_OVEN,
    FIREPLACE_2,
    FIREPLACE_3,
    HEARTH_4,
    HEARTH_5,
    HOUSE_CLAY,
    SPACE_ID,
    SPACES,
    WELL,
    Part,
)
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.parts import (
    Holding,
    animal_options,
    apply,
    can_use,
    keep_animals,
    options,
    pasture_options,
)
from arena.engine.agricola.usable import space_usable
from arena.engine.chance import SeededChance


def goods(**kw: int) -> tuple[int, ...]:
    names = ("wood", "clay", "reed", "stone", "grain", "vegetable", "food", "sheep", "boar",
             "cattle")
    return tuple(kw.get(n, 0) for n in names)


def board() -> Board:
    b = new_board(2, SeededChance(3))
    prepare_round(b)
    return b


def part(space: str, i: int = 0) -> tuple[Part, int]:
    sid = SPACE_ID[space]
    return SPACES[sid].parts[i], sid


def opts(space: str, h: Holding, i: int = 0, done: int = 0,
         b: Board | None = None) -> list[dict[str, Any]]:
    p, sid = part(space, i)
    return options(p, h, b or board(), sid, done)


def holding(g: tuple[int, ...], farm: Farm | None = None, majors: tuple[int, ...] = (),
            people: int = 2) -> Holding:
    return Holding(g, farm or Farm(), majors, people)


def cells(actions: list[dict[str, Any]]) -> list[int]:
    return [a["cell"] for a in actions]


# --- rooms, stables, ploughing, sowing ---------------------------------------------------------

def test_rooms_go_next_to_the_house_and_only_when_affordable() -> None:
    assert cells(opts("farm_expansion", holding(goods(wood=5, reed=2)))) == [0, 6, 11]
    assert opts("farm_expansion", holding(goods(wood=4, reed=2))) == []
    assert opts("farm_expansion", holding(goods(wood=5, reed=1))) == []
    clay = Farm()
    clay.renovate()
    assert opts("farm_expansion", holding(goods(wood=9, reed=9), clay)) == []
    assert len(opts("farm_expansion", holding(goods(clay=5, reed=2), clay))) == 3


def test_building_a_room_pays_exactly_and_widens_the_house() -> None:
    p, sid = part("farm_expansion")
    h = holding(goods(wood=11, reed=5, food=3))
    out = apply({"type": "build_room", "cell": 6}, p, h, board(), sid, 0)
    assert out.goods == goods(wood=6, reed=3, food=3) and out.born == 0
    assert h.farm.num_rooms() == 3
    assert cells(options(p, Holding(out.goods, h.farm, (), 2), board(), sid, 1)) == [0, 1, 7, 11]


def test_farm_expansion_stables_cost_2_wood_any_number_until_four() -> None:
    farm = Farm()
    h = holding(goods(wood=2), farm)
    assert len(opts("farm_expansion", h, 1, done=3)) == 13  # no limit per action
    assert opts("farm_expansion", holding(goods(wood=1)), 1) == []
    for c in (1, 2, 3, 4):
        farm.build_stable(c)
    assert opts("farm_expansion", holding(goods(wood=9), farm), 1) == []  # 4 stables max


def test_side_job_builds_exactly_one_stable_for_1_wood() -> None:
    h = holding(goods(wood=1))
    assert len(opts("side_job", h)) == 13
    assert opts("side_job", h, done=1) == []
    assert opts("side_job", holding(goods())) == []
    p, sid = part("side_job")
    out = apply({"type": "build_stable", "cell": 4}, p, h, board(), sid, 0)
    assert out.goods == goods() and h.farm.stables == 1 << 4
    with pytest.raises(ValueError):
        apply({"type": "build_stable", "cell": 3}, p, Holding(goods(wood=5), h.farm, (), 2),
              board(), sid, 0, done=1)


def test_ploughing_one_field_next_to_the_others() -> None:
    farm = Farm()
    farm.plough(0)
    assert cells(opts("farmland", holding(goods(), farm))) == [1]
    assert opts("farmland", holding(goods(), farm), done=1) == []  # Farmland ploughs one
    farm.build_stable(1)  # the only space next to the field is taken: no plough spot left
    assert not space_usable(SPACE_ID["farmland"], holding(goods(), farm), board())
    assert space_usable(SPACE_ID["farmland"], holding(goods()), board())


def test_sowing_per_empty_field_and_seed_in_supply() -> None:
    farm = Farm()
    farm.plough(0)
    farm.plough(1)
    h = holding(goods(grain=1, vegetable=1), farm)
    assert [(a["cell"], a["crop"]) for a in opts("grain_utilization", h)] == [
        (0, "grain"), (0, "vegetable"), (1, "grain"), (1, "vegetable")]
    assert [a["crop"] for a in opts("grain_utilization", holding(goods(vegetable=2), farm))] \
        == ["vegetable", "vegetable"]
    assert opts("grain_utilization", holding(goods(), farm)) == []
    p, sid = part("grain_utilization")
    out = apply({"type": "sow", "cell": 1, "crop": "grain"}, p, h, board(), sid, 0)
    assert out.goods == goods(vegetable=1) and farm.crop(1) == (1, 3)
    assert cells(options(p, Holding(out.goods, farm, (), 2), board(), sid, 1)) == [0]


def test_cultivation_may_sow_the_field_it_just_ploughed() -> None:
    h = holding(goods(grain=1))
    plough, sid = part("cultivation", 0)
    sow, _ = part("cultivation", 1)
    assert not can_use(sow, h, board(), sid) and space_usable(sid, h, board())
    apply({"type": "plough", "cell": 12}, plough, h, board(), sid, 0)
    assert options(sow, h, board(), sid) == [{"type": "sow", "cell": 12, "crop": "grain"}]


# --- baking ------------------------------------------------------------------------------------

def test_baking_needs_a_baking_improvement_and_grain() -> None:
    assert opts("grain_utilization", holding(goods(grain=3)), 1) == []
    h = holding(goods(grain=3), majors=(FIREPLACE_2, CLAY_OVEN))
    assert [(a["grain"], a["uses"]) for a in opts("grain_utilization", h, 1)] == [
        (1, [[CLAY_OVEN, 1]]), (2, [[CLAY_OVEN, 1], [FIREPLACE_2, 1]]),
        (3, [[CLAY_OVEN, 1], [FIREPLACE_2, 2]])]
    assert opts("grain_utilization", h, 1, done=1) == []  # one Bake Bread per action
    p, sid = part("grain_utilization", 1)
    out = apply({"type": "bake", "grain": 2, "uses": [[CLAY_OVEN, 1], [FIREPLACE_2, 1]]},
                p, h, board(), sid, 0)
    assert out.goods == goods(grain=1, food=7)


# --- fences ------------------------------------------------------------------------------------

def test_fencing_needs_wood_for_a_whole_pasture() -> None:
    sid = SPACE_ID["fencing"]
    assert not space_usable(sid, holding(goods()), board())
    assert not space_usable(sid, holding(goods(wood=3)), board())  # a pasture needs 4 fences
    h = holding(goods(wood=4))
    assert space_usable(sid, h, board())
    assert cells(opts("fencing", h)) == [0, 1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14]
    assert [a["shape"] for a in pasture_options(h, 4)] == [[4]]
    assert [a["shape"] for a in pasture_options(holding(goods(wood=6)), 3)] == [
        [3], [3, 4], [3, 8]]


def test_a_pasture_pays_one_wood_per_new_fence() -> None:
    p, sid = part("fencing")
    h = holding(goods(wood=9, food=1))
    out = apply({"type": "pasture", "shape": [3, 4]}, p, h, board(), sid, 0, start=3)
    assert out.goods == goods(wood=3, food=1) and h.farm.pastures == (0b11 << 3,)
    h2 = Holding(out.goods, h.farm, (), 2)
    out2 = apply({"type": "pasture", "shape": [4]}, p, h2, board(), sid, 0, done=1)
    assert out2.goods == goods(wood=2, food=1) and len(h.farm.pastures) == 2
    for bad, start, wood in (([5], None, 15), ([0, 2], None, 15), ([4, 9], 9, 15),
                             ([3, 3], None, 15), ([4], None, 3), ("4", None, 15)):
        fresh = holding(goods(wood=wood))
        with pytest.raises(ValueError):
            apply({"type": "pasture", "shape": bad}, p, fresh, board(), sid, 0, start=start)
        assert fresh.farm == Farm()


def test_fifteen_fences_at_most() -> None:
    farm = Farm()
    farm.build_pasture(0b11110 | 0b11110 << 5)  # 8 spaces, 12 fences
    assert farm.fences_left() == 3
    h = holding(goods(wood=99), farm)
    # Only subdivisions (new fences inside) or a neighbour costing at most 3 fences remain.
    for a in opts("fencing", h):
        for s in pasture_options(h, a["cell"]):
            probe = farm.copy()
            assert probe.build_pasture(sum(1 << c for c in s["shape"]), 99) <= 3
    assert {a["cell"] for a in opts("fencing", h)} >= {0, 1}  # a neighbour, a subdivision
    farm.build_pasture(1 << 0, 99)
    assert farm.fences_left() == 0
    assert not space_usable(SPACE_ID["fencing"], holding(goods(wood=99), farm), board())


# --- majors ------------------------------------------------------------------------------------

def test_majors_affordable_and_on_the_board() -> None:
    b = board()
    h = holding(goods(clay=3))
    assert [(a["major"], a["pay"]) for a in opts("major_improvement", h, b=b)] == [
        (FIREPLACE_2, "goods"), (FIREPLACE_3, "goods")]
    b.take_major(FIREPLACE_2)  # someone else built it
    assert [a["major"] for a in opts("major_improvement", h, b=b)] == [FIREPLACE_3]
    assert opts("major_improvement", holding(goods(clay=1)), b=b) == []
    assert opts("major_improvement", h, done=1) == []  # one major per action
    rich = holding(goods(wood=9, clay=9, reed=9, stone=9))
    assert len(opts("major_improvement", rich)) == 10


def test_a_cooking_hearth_paid_with_a_returned_fireplace() -> None:
    b = board()
    b.take_major(FIREPLACE_2)
    h = holding(goods(clay=1), majors=(FIREPLACE_2,))
    assert opts("major_improvement", h, b=b) == [
        {"type": "build_major", "major": HEARTH_4, "pay": "fireplace"},
        {"type": "build_major", "major": HEARTH_5, "pay": "fireplace"}]
    p, sid = part("major_improvement")
    out = apply({"type": "build_major", "major": HEARTH_4, "pay": "fireplace"}, p, h, b, sid, 0)
    assert out.goods == goods(clay=1) and out.majors == (HEARTH_4,)
    assert b.major_available(FIREPLACE_2) and not b.major_available(HEARTH_4)


def test_a_hearth_for_goods_keeps_the_fireplace_and_both_fireplaces_give_the_dearer() -> None:
    b = board()
    b.take_major(FIREPLACE_2)
    b.take_major(FIREPLACE_3)
    p, sid = part("major_improvement")
    h = holding(goods(clay=5), majors=(FIREPLACE_2, FIREPLACE_3))
    out = apply({"type": "build_major", "major": HEARTH_5, "pay": "goods"}, p, h, b, sid, 0)
    assert out.goods == goods() and out.majors == (FIREPLACE_2, FIREPLACE_3, HEARTH_5)
    out = apply({"type": "build_major", "major": HEARTH_4, "pay": "fireplace"}, p,
                Holding(out.goods, h.farm, out.majors, 2), b, sid, 0)
    assert out.majors == (FIREPLACE_2, HEARTH_4, HEARTH_5) and b.major_available(FIREPLACE_3)


def test_an_oven_gives_a_free_bake_and_the_well_promises_food() -> None:
    p, sid = part("major_improvement")
    b = board()
    out = apply({"type": "build_major", "major": CLAY_OVEN, "pay": "goods"}, p,
                holding(goods(clay=3, stone=2)), b, sid, 1)
    assert out.free_bake and out.goods == goods(stone=1) and out.majors == (CLAY_OVEN,)
    out = apply({"type": "build_major", "major": WELL, "pay": "goods"}, p,
                holding(goods(wood=1, stone=3)), b, sid, 1)
    assert not out.free_bake and [r for r, s, _ in b.promises() if s == 1] == [2, 3, 4, 5, 6]


def test_illegal_major_builds_are_refused_without_change() -> None:
    p, sid = part("major_improvement")
    b = board()
    for action in ({"type": "build_major", "major": WELL, "pay": "goods"},
                   {"type": "build_major", "major": HEARTH_4, "pay": "fireplace"},
                   {"type": "build_room", "cell": 0}):
        with pytest.raises(ValueError):
            apply(action, p, holding(goods(clay=9)), b, sid, 0)
    assert b.majors() == tuple(range(10))


# --- renovation and family growth -------------------------------------------------------------

def test_renovation_costs_one_per_room_and_one_reed() -> None:
    farm = Farm()
    farm.build_room(0)
    assert opts("house_redevelopment", holding(goods(clay=3, reed=1), farm)) == [
        {"type": "renovate"}]
    assert opts("house_redevelopment", holding(goods(clay=2, reed=1), farm)) == []
    assert opts("house_redevelopment", holding(goods(clay=3), farm)) == []
    p, sid = part("house_redevelopment")
    out = apply({"type": "renovate"}, p, holding(goods(clay=4, reed=2, stone=3), farm),
                board(), sid, 0)
    assert out.goods == goods(clay=1, reed=1, stone=3) and farm.material == HOUSE_CLAY
    assert opts("house_redevelopment", holding(goods(stone=3, reed=1), farm)) == [
        {"type": "renovate"}]
    farm.renovate()
    assert opts("house_redevelopment", holding(goods(stone=9, reed=9), farm)) == []


def test_redevelopment_needs_the_renovation_whatever_comes_after() -> None:
    rich = goods(wood=9, stone=9, clay=1)  # majors and fences affordable, no reed
    assert not space_usable(SPACE_ID["house_redevelopment"], holding(rich), board())
    assert not space_usable(SPACE_ID["farm_redevelopment"], holding(rich), board())
    assert space_usable(SPACE_ID["farm_redevelopment"], holding(goods(clay=2, reed=1)), board())


@pytest.mark.parametrize(("rooms", "people", "with_room", "without_room"), [
    (2, 2, False, True), (3, 2, True, True), (3, 3, False, True), (4, 4, False, True),
    (5, 4, True, True), (6, 5, False, False),
])
def test_family_growth(rooms: int, people: int, with_room: bool, without_room: bool) -> None:
    farm = Farm()
    for c in (0, 1, 2, 3)[: rooms - 2]:
        farm.build_room(c)
    h = holding(goods(), farm, people=people)
    assert space_usable(SPACE_ID["basic_wish_for_children"], h, board()) is with_room
    assert space_usable(SPACE_ID["urgent_wish_for_children"], h, board()) is without_room
    if with_room:
        p, sid = part("basic_wish_for_children")
        assert apply({"type": "family_growth"}, p, h, board(), sid, 0).born == 1


# --- goods, the token, markets -----------------------------------------------------------------

def test_goods_parts_are_always_usable_and_single() -> None:
    b = board()
    h = holding(goods())
    forest = SPACE_ID["forest"]
    for key in ("forest", "meeting_place", "day_laborer", "sheep_market", "cattle_market"):
        assert space_usable(SPACE_ID[key], h, b)
    out = apply({"type": "take"}, SPACES[forest].parts[0], h, b, forest, 0)
    assert out.goods == goods(wood=3) and b.accumulated(forest) == ()
    assert options(SPACES[forest].parts[0], h, b, forest, 1) == []
    mp = SPACE_ID["meeting_place"]
    apply({"type": "starting_player"}, SPACES[mp].parts[0], h, b, mp, 1)
    assert b.start_player == 1


def test_resource_market_one_of_reed_or_stone() -> None:
    p, sid = part("resource_market_3p", 1)
    h = holding(goods(food=1))
    assert options(p, h, board(), sid) == [{"type": "gain", "good": "reed"},
                                           {"type": "gain", "good": "stone"}]
    assert apply({"type": "gain", "good": "stone"}, p, h, board(), sid, 0).goods == \
        goods(food=1, stone=1)
    with pytest.raises(ValueError):
        apply({"type": "gain", "good": "wood"}, p, h, board(), sid, 0)


def test_market_animals_that_do_not_fit() -> None:
    farm = Farm()
    g = goods(sheep=3, boar=1)
    keep = animal_options(g, (), farm)
    assert keep == [{"type": "keep", "sheep": 0, "boar": 1, "cattle": 0},
                    {"type": "keep", "sheep": 1, "boar": 0, "cattle": 0}]
    assert keep_animals(g, (), farm, keep[1]) == goods(sheep=1)  # released: no cooker
    assert keep_animals(g, (HEARTH_4,), farm, keep[0]) == goods(boar=1, food=6)
    with pytest.raises(ValueError):
        keep_animals(g, (), farm, {"type": "keep", "sheep": 2, "boar": 0, "cattle": 0})
    farm.build_pasture(1 << 4)
    fits = goods(sheep=2, cattle=1)
    assert animal_options(fits, (), farm) == [
        {"type": "keep", "sheep": 2, "boar": 0, "cattle": 1}]
    assert keep_animals(fits, (FIREPLACE_2,), farm, animal_options(fits, (), farm)[0]) == fits


def test_options_are_deterministic_and_each_is_accepted_by_apply() -> None:
    farm = Farm()
    farm.plough(2)
    h = holding(goods(wood=9, clay=9, reed=9, stone=9, grain=2, vegetable=1), farm,
                majors=(FIREPLACE_2,))
    applied = 0
    for sid, s in enumerate(SPACES):
        b = board()
        b.take_major(FIREPLACE_2)  # the player's
        for i, p in enumerate(s.parts):
            if p.kind == "take_accumulated" and sid not in b.spaces():
                continue
            first = options(p, h, b, sid)
            assert first == options(p, h, b, sid)
            for a in first:
                probe = Holding(h.goods, farm.copy(), h.majors, 2)
                out = apply(a, p, probe, b.copy(), sid, 0)
                assert all(n >= 0 for n in out.goods), (s.key, i, a)
                applied += 1
                if a["type"] == "pasture_from":  # every first step leads to a pasture
                    second = pasture_options(probe, a["cell"])
                    assert second and all(x["shape"][0] == a["cell"] for x in second)
                    after = apply(second[-1], p, probe, b.copy(), sid, 0, start=a["cell"])
                    assert 0 <= after.goods[0] < h.goods[0]
    assert applied > 100
