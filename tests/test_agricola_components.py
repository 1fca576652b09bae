"""Agricola component data against the reference's tables (A2 set-up, A3 spaces for 1-2
players, A4 stage cards, A5 3- and 4-player spaces, A7 farm costs, A8 majors and solo) and
RULES.md's rulings."""

from __future__ import annotations

import pytest

from arena.engine.agricola import components as c
from arena.engine.agricola.components import (
    ALL,
    AND_OR,
    AND_THEN,
    BAKE,
    BOARD_SPACES,
    BUILD_FENCES,
    BUILD_MAJOR,
    BUILD_ROOMS,
    BUILD_STABLES,
    FAMILY_GROWTH,
    FAMILY_GROWTH_WITHOUT_ROOM,
    GAIN,
    GAIN_ONE_OF,
    MAJORS,
    ONE,
    PLOUGH,
    RENOVATE,
    SOW,
    SPACE_ID,
    SPACES,
    STAGE_CARDS,
    STARTING_PLAYER,
    TAKE_ALL,
    accumulation,
    spaces_for,
)


def keys(ids: tuple[int, ...]) -> set[str]:
    return {SPACES[i].key for i in ids}


def test_goods_are_indexed_with_building_resources_first() -> None:
    assert c.GOODS[c.WOOD] == "wood"
    assert c.GOODS[c.VEGETABLE] == "vegetable"
    assert c.GOODS[c.CATTLE] == "cattle"
    assert len(c.GOODS) == 10
    assert [c.GOODS[g] for g in c.BUILDING_RESOURCES] == ["wood", "clay", "reed", "stone"]
    assert c.BUILDING_RESOURCES == (0, 1, 2, 3)
    assert [c.GOODS[g] for g in c.ANIMALS] == ["sheep", "boar", "cattle"]


def test_space_ids_are_stable() -> None:
    # Saved states and observations carry these indices: changing the order breaks them.
    assert c.SPACE_KEYS == (
        "farm_expansion", "meeting_place", "grain_seeds", "farmland", "lessons",
        "day_laborer", "forest", "clay_pit", "reed_bank", "fishing", "side_job", "copse",
        "grove", "hollow_3p", "hollow_4p", "resource_market_3p", "resource_market_4p",
        "lessons_3p", "lessons_4p", "traveling_players",
        "major_improvement", "fencing", "grain_utilization", "sheep_market",
        "basic_wish_for_children", "house_redevelopment", "western_quarry",
        "vegetable_seeds", "pig_market", "cattle_market", "eastern_quarry",
        "urgent_wish_for_children", "cultivation", "farm_redevelopment",
    )
    assert len(SPACE_ID) == len(SPACES)
    assert c.MAJOR_KEYS == (
        "fireplace_2", "fireplace_3", "cooking_hearth_4", "cooking_hearth_5", "clay_oven",
        "stone_oven", "joinery", "pottery", "basketmakers_workshop", "well",
    )


BASE = {"farm_expansion", "meeting_place", "grain_seeds", "farmland", "lessons",
        "day_laborer", "forest", "clay_pit", "reed_bank", "fishing"}


@pytest.mark.parametrize(
    ("players", "board"),
    [
        (1, BASE),
        (2, BASE | {"side_job"}),
        (3, BASE | {"side_job", "grove", "hollow_3p", "resource_market_3p", "lessons_3p"}),
        (4, BASE | {"side_job", "copse", "grove", "hollow_4p", "resource_market_4p",
                    "lessons_4p", "traveling_players"}),
    ],
)
def test_the_board_of_each_player_count(players: int, board: set[str]) -> None:
    assert keys(BOARD_SPACES[players]) == board
    assert len(BOARD_SPACES[players]) == len(board)
    assert all(SPACES[i].stage == 0 for i in BOARD_SPACES[players])
    every = spaces_for(players)
    assert len(every) == len(board) + 14 == len(set(every))


@pytest.mark.parametrize(("players", "usable"), [(1, 9), (2, 10), (3, 13), (4, 15)])
def test_usable_board_spaces_leave_out_the_lessons(players: int, usable: int) -> None:
    assert sum(1 for i in BOARD_SPACES[players] if not SPACES[i].dead) == usable


def test_only_the_lessons_are_dead_and_they_do_nothing() -> None:
    dead = {s.key for s in SPACES if s.dead}
    assert dead == {"lessons", "lessons_3p", "lessons_4p"}
    for key in dead:
        space = SPACES[SPACE_ID[key]]
        assert space.parts == ()
        assert space.removed == (c.OCCUPATION,)
    # Card-game branches removed from live spaces.
    assert {s.key for s in SPACES if c.MINOR_IMPROVEMENT in s.removed} == {
        "meeting_place", "major_improvement", "basic_wish_for_children", "house_redevelopment"}


ACCUMULATES_2P = {
    "meeting_place": ((c.FOOD, 1),),
    "forest": ((c.WOOD, 3),),
    "clay_pit": ((c.CLAY, 1),),
    "reed_bank": ((c.REED, 1),),
    "fishing": ((c.FOOD, 1),),
    "sheep_market": ((c.SHEEP, 1),),
    "western_quarry": ((c.STONE, 1),),
    "pig_market": ((c.BOAR, 1),),
    "cattle_market": ((c.CATTLE, 1),),
    "eastern_quarry": ((c.STONE, 1),),
}


@pytest.mark.parametrize(
    ("players", "expected"),
    [
        (1, {**ACCUMULATES_2P, "forest": ((c.WOOD, 2),)}),
        (2, ACCUMULATES_2P),
        (3, {**ACCUMULATES_2P, "grove": ((c.WOOD, 2),), "hollow_3p": ((c.CLAY, 1),)}),
        (4, {**ACCUMULATES_2P, "copse": ((c.WOOD, 1),), "grove": ((c.WOOD, 2),),
             "hollow_4p": ((c.CLAY, 2),), "traveling_players": ((c.FOOD, 1),)}),
    ],
)
def test_what_accumulates_at_each_player_count(
    players: int, expected: dict[str, tuple[tuple[int, int], ...]]
) -> None:
    got = {SPACES[i].key: accumulation(i, players) for i in spaces_for(players)
           if accumulation(i, players)}
    assert got == expected


def test_an_accumulation_space_is_taken_whole() -> None:
    for space in SPACES:
        takes = any(p.kind == TAKE_ALL for p in space.parts)
        assert takes == bool(space.accumulates), space.key


#: Every live space: how its parts combine and the parts' kinds, in the printed order.
EFFECTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "farm_expansion": (AND_OR, (BUILD_ROOMS, BUILD_STABLES)),
    "meeting_place": (ALL, (STARTING_PLAYER, TAKE_ALL)),
    "grain_seeds": (ONE, (GAIN,)),
    "farmland": (ONE, (PLOUGH,)),
    "day_laborer": (ONE, (GAIN,)),
    "forest": (ONE, (TAKE_ALL,)),
    "clay_pit": (ONE, (TAKE_ALL,)),
    "reed_bank": (ONE, (TAKE_ALL,)),
    "fishing": (ONE, (TAKE_ALL,)),
    "side_job": (AND_OR, (BUILD_STABLES, BAKE)),
    "copse": (ONE, (TAKE_ALL,)),
    "grove": (ONE, (TAKE_ALL,)),
    "hollow_3p": (ONE, (TAKE_ALL,)),
    "hollow_4p": (ONE, (TAKE_ALL,)),
    "resource_market_3p": (ALL, (GAIN, GAIN_ONE_OF)),
    "resource_market_4p": (ONE, (GAIN,)),
    "traveling_players": (ONE, (TAKE_ALL,)),
    "major_improvement": (ONE, (BUILD_MAJOR,)),
    "fencing": (ONE, (BUILD_FENCES,)),
    "grain_utilization": (AND_OR, (SOW, BAKE)),
    "sheep_market": (ONE, (TAKE_ALL,)),
    "basic_wish_for_children": (ONE, (FAMILY_GROWTH,)),
    "house_redevelopment": (AND_THEN, (RENOVATE, BUILD_MAJOR)),
    "western_quarry": (ONE, (TAKE_ALL,)),
    "vegetable_seeds": (ONE, (GAIN,)),
    "pig_market": (ONE, (TAKE_ALL,)),
    "cattle_market": (ONE, (TAKE_ALL,)),
    "eastern_quarry": (ONE, (TAKE_ALL,)),
    "urgent_wish_for_children": (ONE, (FAMILY_GROWTH_WITHOUT_ROOM,)),
    "cultivation": (AND_OR, (PLOUGH, SOW)),
    "farm_redevelopment": (AND_THEN, (RENOVATE, BUILD_FENCES)),
}


def test_every_live_space_says_what_it_lets_a_player_do() -> None:
    live = {s.key: (s.combine, tuple(p.kind for p in s.parts)) for s in SPACES if not s.dead}
    assert live == EFFECTS
    for s in SPACES:
        if s.combine == ONE:
            assert len(s.parts) <= 1, s.key
        else:
            assert len(s.parts) >= 2, s.key


def part(key: str, n: int) -> c.Part:
    return SPACES[SPACE_ID[key]].parts[n]


def test_the_figures_of_the_parts() -> None:
    assert part("grain_seeds", 0).goods == ((c.GRAIN, 1),)
    assert part("day_laborer", 0).goods == ((c.FOOD, 2),)
    assert part("vegetable_seeds", 0).goods == ((c.VEGETABLE, 1),)
    # Farm Expansion: stables 2 wood each, any number; Side Job: exactly one for 1 wood.
    assert (part("farm_expansion", 1).cost, part("farm_expansion", 1).limit) == ((2, 0, 0, 0), 0)
    assert (part("side_job", 0).cost, part("side_job", 0).limit) == ((1, 0, 0, 0), 1)
    assert part("fencing", 0).cost == (1, 0, 0, 0) == part("farm_redevelopment", 1).cost
    assert part("farmland", 0).limit == 1 == part("cultivation", 0).limit
    assert part("major_improvement", 0).limit == 1 == part("house_redevelopment", 1).limit
    # Resource Market: 3 players 1 food and 1 reed or 1 stone; 4 players reed, stone and food.
    assert part("resource_market_3p", 0).goods == ((c.FOOD, 1),)
    assert part("resource_market_3p", 1).goods == ((c.REED, 1), (c.STONE, 1))
    assert sorted(part("resource_market_4p", 0).goods) == [(c.REED, 1), (c.STONE, 1),
                                                           (c.FOOD, 1)]


STAGES = (
    {"major_improvement", "fencing", "grain_utilization", "sheep_market"},
    {"basic_wish_for_children", "house_redevelopment", "western_quarry"},
    {"vegetable_seeds", "pig_market"},
    {"cattle_market", "eastern_quarry"},
    {"urgent_wish_for_children", "cultivation"},
    {"farm_redevelopment"},
)


def test_the_fourteen_stage_cards_by_stage() -> None:
    assert [keys(ids) for ids in STAGE_CARDS] == list(STAGES)
    assert [len(ids) for ids in STAGE_CARDS] == [4, 3, 2, 2, 2, 1]
    assert sum(len(ids) for ids in STAGE_CARDS) == 14
    for stage, ids in enumerate(STAGE_CARDS, 1):
        assert all(SPACES[i].stage == stage for i in ids)
        # As many cards in a stage as it has rounds.
        assert len(ids) == len(c.STAGE_ROUNDS[stage - 1])
    # Every player count plays all fourteen.
    for players in range(1, 5):
        assert set(spaces_for(players)) >= {i for ids in STAGE_CARDS for i in ids}


def test_rounds_stages_and_harvests() -> None:
    assert c.NUM_ROUNDS == 14
    assert [c.stage_of_round(r) for r in range(1, 15)] == [1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4,
                                                           5, 5, 6]
    assert c.HARVEST_ROUNDS == (4, 7, 9, 11, 13, 14)
    # A harvest ends every stage.
    assert tuple(rounds[-1] for rounds in c.STAGE_ROUNDS) == c.HARVEST_ROUNDS
    for bad in (0, 15):
        with pytest.raises(ValueError):
            c.stage_of_round(bad)


#: The reference's A8 table: (name, cost as wood, clay, reed, stone, points).
MAJOR_TABLE = [
    ("Fireplace", (0, 2, 0, 0), 1),
    ("Fireplace", (0, 3, 0, 0), 1),
    ("Cooking Hearth", (0, 4, 0, 0), 1),
    ("Cooking Hearth", (0, 5, 0, 0), 1),
    ("Clay Oven", (0, 3, 0, 1), 2),
    ("Stone Oven", (0, 1, 0, 3), 3),
    ("Joinery", (2, 0, 0, 2), 2),
    ("Pottery", (0, 2, 0, 2), 2),
    ("Basketmaker's Workshop", (0, 0, 2, 2), 2),
    ("Well", (1, 0, 0, 3), 4),
]


def test_the_ten_majors_cost_and_score_as_printed() -> None:
    assert [(m.name, m.cost, m.points) for m in MAJORS] == MAJOR_TABLE
    assert [i for i, m in enumerate(MAJORS) if m.or_return_fireplace] == list(c.COOKING_HEARTHS)


def test_cooking_and_baking_rates() -> None:
    fire = {g: f for g, f in MAJORS[c.FIREPLACE_2].cook}
    hearth = {g: f for g, f in MAJORS[c.HEARTH_4].cook}
    assert fire == {c.SHEEP: 2, c.BOAR: 2, c.CATTLE: 3, c.VEGETABLE: 2}
    assert hearth == {c.SHEEP: 2, c.BOAR: 3, c.CATTLE: 4, c.VEGETABLE: 3}
    assert MAJORS[c.FIREPLACE_3].cook == MAJORS[c.FIREPLACE_2].cook
    assert MAJORS[c.HEARTH_5].cook == MAJORS[c.HEARTH_4].cook
    assert c.COOKERS == (c.FIREPLACE_2, c.FIREPLACE_3, c.HEARTH_4, c.HEARTH_5)
    # (food per grain, most grain per Bake Bread action (0: any), free bake when built)
    bake = {i: (MAJORS[i].bake_food, MAJORS[i].bake_limit, MAJORS[i].free_bake)
            for i in c.BAKERS}
    assert bake == {
        c.FIREPLACE_2: (2, 0, False), c.FIREPLACE_3: (2, 0, False),
        c.HEARTH_4: (3, 0, False), c.HEARTH_5: (3, 0, False),
        c.CLAY_OVEN: (5, 1, True), c.STONE_OVEN: (4, 2, True),
    }
    assert c.RAW_FOOD == ((c.GRAIN, 1), (c.VEGETABLE, 1))


def test_crafts_and_the_well() -> None:
    crafts = {i: (MAJORS[i].craft, MAJORS[i].bonus) for i, m in enumerate(MAJORS) if m.craft}
    assert crafts == {
        c.JOINERY: ((c.WOOD, 2), ((3, 1), (5, 2), (7, 3))),
        c.POTTERY: ((c.CLAY, 2), ((3, 1), (5, 2), (7, 3))),
        c.BASKETMAKER: ((c.REED, 3), ((2, 1), (4, 2), (5, 3))),
    }
    assert tuple(crafts) == c.CRAFTS
    assert [i for i, m in enumerate(MAJORS) if m.well_food] == [c.WELL]
    assert MAJORS[c.WELL].well_food == 5
    assert [c.craft_bonus(c.BASKETMAKER, n) for n in range(7)] == [0, 0, 1, 1, 2, 3, 3]
    assert [c.craft_bonus(c.JOINERY, n) for n in range(9)] == [0, 0, 0, 1, 1, 2, 2, 3, 3]


def test_set_up_constants() -> None:
    assert (c.START_PEOPLE, c.SUPPLY_PEOPLE, c.MAX_PEOPLE) == (2, 3, 5)
    assert (c.MAX_STABLES, c.MAX_FENCES) == (4, 15)
    assert (c.START_FOOD_FIRST, c.START_FOOD_OTHERS, c.START_FOOD_SOLO) == (2, 3, 0)
    assert (c.FARM_ROWS, c.FARM_COLS, c.FARM_SPACES) == (3, 5, 15)
    assert c.START_ROOMS == ((1, 0), (2, 0))
    assert (c.FOOD_PER_PERSON, c.FOOD_PER_NEWBORN) == (2, 1)
    assert (c.FOOD_PER_PERSON_SOLO, c.FOOD_PER_NEWBORN_SOLO) == (3, 1)
    assert c.BEGGING_POINTS == -3
    assert (c.SOWN_GRAIN, c.SOWN_VEGETABLE) == (3, 2)
    assert (c.PASTURE_CAPACITY_PER_SPACE, c.UNFENCED_STABLE_CAPACITY, c.HOUSE_PETS) == (2, 1, 1)


def test_room_and_renovation_costs() -> None:
    assert c.room_cost(c.HOUSE_WOOD) == (5, 0, 2, 0)
    assert c.room_cost(c.HOUSE_CLAY) == (0, 5, 2, 0)
    assert c.room_cost(c.HOUSE_STONE) == (0, 0, 2, 5)
    # 1 of the new material per room, 1 reed for the whole house.
    assert c.renovation_cost(c.HOUSE_WOOD, 2) == (0, 2, 1, 0)
    assert c.renovation_cost(c.HOUSE_WOOD, 3) == (0, 3, 1, 0)
    assert c.renovation_cost(c.HOUSE_CLAY, 4) == (0, 0, 1, 4)
    with pytest.raises(ValueError):
        c.renovation_cost(c.HOUSE_STONE, 3)
    assert c.STABLE_COST == (2, 0, 0, 0)
    assert c.SIDE_JOB_STABLE_COST == c.FENCE_COST == (1, 0, 0, 0)


def test_the_data_is_immutable() -> None:
    with pytest.raises(AttributeError):
        SPACES[0].stage = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        MAJORS[0].points = 9  # type: ignore[misc]
    assert isinstance(SPACES, tuple)
    assert isinstance(BOARD_SPACES, tuple)
