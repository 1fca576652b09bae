"""Agricola final scoring and ranks (reference A8 "Scoring"; RULES.md D1, D3, D4).

Scoring table of the reference (points -1 / 1 / 2 / 3 / 4):
  fields 0-1 / 2 / 3 / 4 / 5+; pastures 0 / 1 / 2 / 3 / 4+; grain 0 / 1-3 / 4-5 / 6-7 / 8+;
  vegetables 0 / 1 / 2 / 3 / 4+; sheep 0 / 1-3 / 4-5 / 6-7 / 8+; boar 0 / 1-2 / 3-4 / 5-6 / 7+;
  cattle 0 / 1 / 2-3 / 4-5 / 6+.
Also -1 per unused farmyard space, +1 per fenced stable, +1 per clay room, +2 per stone room,
+3 per person, the majors' points, the crafts' bonuses, -3 per begging marker. Ties: more
building resources left, still tied a shared rank.
"""

from __future__ import annotations

import dataclasses

import pytest

from arena.engine.agricola.components import (
    BASKETMAKER,
    CLAY_OVEN,
    FIREPLACE_2,
    FIREPLACE_3,
    HEARTH_4,
    HEARTH_5,
    JOINERY,
    MAJORS,
    POTTERY,
    STONE_OVEN,
    WELL,
    row_points,
)
from arena.engine.agricola.scoring import (
    SCORE_KEYS,
    ScoreInput,
    final_ranks,
    rank_players,
    score_breakdown,
    score_total,
)

#: The seven table rows with every (count, points) step: each boundary and a count well above.
ROWS: dict[str, list[tuple[int, int]]] = {
    "fields": [(0, -1), (1, -1), (2, 1), (3, 2), (4, 3), (5, 4), (9, 4)],
    "pastures": [(0, -1), (1, 1), (2, 2), (3, 3), (4, 4), (7, 4)],
    "grain": [(0, -1), (1, 1), (3, 1), (4, 2), (5, 2), (6, 3), (7, 3), (8, 4), (20, 4)],
    "vegetables": [(0, -1), (1, 1), (2, 2), (3, 3), (4, 4), (11, 4)],
    "sheep": [(0, -1), (1, 1), (3, 1), (4, 2), (5, 2), (6, 3), (7, 3), (8, 4), (15, 4)],
    "boar": [(0, -1), (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (7, 4), (12, 4)],
    "cattle": [(0, -1), (1, 1), (2, 2), (3, 2), (4, 3), (5, 3), (6, 4), (10, 4)],
}


@pytest.mark.parametrize(
    ("row", "count", "points"),
    [(row, count, points) for row, steps in ROWS.items() for count, points in steps],
)
def test_each_row_scores_each_step_of_the_table(row: str, count: int, points: int) -> None:
    breakdown = score_breakdown(ScoreInput(**{row: count}))
    assert breakdown[row] == points
    # The other six rows are at zero, so each of them costs its -1.
    assert sum(breakdown[r] for r in ROWS if r != row) == -6


def test_nothing_at_all_scores_minus_one_for_each_of_the_seven_rows() -> None:
    breakdown = score_breakdown(ScoreInput())
    assert [breakdown[r] for r in ROWS] == [-1] * 7
    assert score_total(ScoreInput()) == -7


def test_a_row_caps_at_four_and_scores_minus_one_below_its_first_step() -> None:
    assert row_points((1, 2, 3, 4), 1000) == 4
    assert row_points((2, 3, 4, 5), 1) == -1


@pytest.mark.parametrize("unused", range(14))
def test_each_unused_farmyard_space_costs_one(unused: int) -> None:
    assert score_breakdown(ScoreInput(unused_spaces=unused))["unused_spaces"] == -unused


@pytest.mark.parametrize("stables", range(5))
def test_each_fenced_stable_scores_one(stables: int) -> None:
    assert score_breakdown(ScoreInput(fenced_stables=stables))["fenced_stables"] == stables


def test_a_fifth_stable_does_not_exist() -> None:
    with pytest.raises(ValueError, match="stables"):
        ScoreInput(fenced_stables=5)


@pytest.mark.parametrize("rooms", [2, 3, 5, 13])
def test_clay_rooms_score_one_and_stone_rooms_two_each(rooms: int) -> None:
    assert score_breakdown(ScoreInput(clay_rooms=rooms))["clay_rooms"] == rooms
    assert score_breakdown(ScoreInput(stone_rooms=rooms))["stone_rooms"] == 2 * rooms
    # A wooden house scores nothing for its rooms.
    wooden = score_breakdown(ScoreInput())
    assert wooden["clay_rooms"] == wooden["stone_rooms"] == 0


def test_a_house_is_not_clay_and_stone_at_once() -> None:
    with pytest.raises(ValueError, match="material"):
        ScoreInput(clay_rooms=2, stone_rooms=2)


@pytest.mark.parametrize("people", range(6))
def test_each_person_scores_three(people: int) -> None:
    assert score_breakdown(ScoreInput(people=people))["people"] == 3 * people


def test_a_sixth_person_does_not_exist() -> None:
    with pytest.raises(ValueError, match="people"):
        ScoreInput(people=6)


@pytest.mark.parametrize("markers", [0, 1, 2, 7])
def test_each_begging_marker_costs_three(markers: int) -> None:
    assert score_breakdown(ScoreInput(begging=markers))["begging"] == -3 * markers


@pytest.mark.parametrize(
    ("major", "points"),
    [(FIREPLACE_2, 1), (FIREPLACE_3, 1), (HEARTH_4, 1), (HEARTH_5, 1), (CLAY_OVEN, 2),
     (STONE_OVEN, 3), (JOINERY, 2), (POTTERY, 2), (BASKETMAKER, 2), (WELL, 4)],
)
def test_each_major_scores_its_printed_points(major: int, points: int) -> None:
    breakdown = score_breakdown(ScoreInput(majors=(major,)))
    assert breakdown["majors"] == points
    # With no resources left, no craft bonus.
    assert breakdown["crafts"] == 0


def test_all_ten_majors_score_nineteen() -> None:
    # 4 x 1 (fireplaces, hearths) + 2 + 3 (ovens) + 3 x 2 (crafts) + 4 (Well) = 19.
    assert score_breakdown(ScoreInput(majors=tuple(range(10))))["majors"] == 19


CRAFT_STEPS: dict[int, tuple[str, list[tuple[int, int]]]] = {
    JOINERY: ("wood", [(0, 0), (2, 0), (3, 1), (4, 1), (5, 2), (6, 2), (7, 3), (15, 3)]),
    POTTERY: ("clay", [(0, 0), (2, 0), (3, 1), (4, 1), (5, 2), (6, 2), (7, 3), (15, 3)]),
    BASKETMAKER: ("reed", [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2), (5, 3), (9, 3)]),
}


@pytest.mark.parametrize(
    ("craft", "good", "left", "bonus"),
    [(c, good, left, bonus) for c, (good, steps) in CRAFT_STEPS.items() for left, bonus in steps],
)
def test_each_craft_bonus_step(craft: int, good: str, left: int, bonus: int) -> None:
    with_craft = score_breakdown(ScoreInput(majors=(craft,), **{good: left}))
    assert with_craft["crafts"] == bonus
    # Without the craft, the same leftovers score nothing.
    assert score_breakdown(ScoreInput(**{good: left}))["crafts"] == 0


def test_a_craft_reads_only_its_own_good() -> None:
    plenty = {"wood": 9, "clay": 9, "reed": 9, "stone": 9}
    assert score_breakdown(ScoreInput(majors=(JOINERY,), **{**plenty, "wood": 0}))["crafts"] == 0
    assert score_breakdown(ScoreInput(majors=(POTTERY,), **{**plenty, "clay": 0}))["crafts"] == 0
    assert score_breakdown(ScoreInput(majors=(BASKETMAKER,), **{**plenty, "reed": 0}))[
        "crafts"] == 0
    # All three crafts, each at its top step: 3 + 3 + 3.
    assert score_breakdown(ScoreInput(majors=(JOINERY, POTTERY, BASKETMAKER), **plenty))[
        "crafts"] == 9


def test_the_breakdown_names_every_category_in_order_and_adds_up() -> None:
    s = ScoreInput(fields=3, pastures=2, grain=5, sheep=4, people=3, begging=1,
                   majors=(WELL, JOINERY), wood=5, unused_spaces=3)
    breakdown = score_breakdown(s)
    assert tuple(breakdown) == SCORE_KEYS
    assert sum(breakdown.values()) == score_total(s)


def test_worked_example_a_full_stone_farm() -> None:
    """Fields 5 -> 4, pastures 3 -> 3, grain 7 -> 3, vegetables 2 -> 2, sheep 5 -> 2,
    boar 4 -> 2, cattle 3 -> 2 (rows 18); no unused space 0; 3 fenced stables 3;
    4 stone rooms 8; 5 people 15; Cooking Hearth 1 + Stone Oven 3 + Joinery 2 = 6;
    6 wood left -> Joinery bonus 2. Total 18 + 3 + 8 + 15 + 6 + 2 = 52."""
    s = ScoreInput(fields=5, pastures=3, grain=7, vegetables=2, sheep=5, boar=4, cattle=3,
                   unused_spaces=0, fenced_stables=3, stone_rooms=4, people=5,
                   majors=(HEARTH_4, STONE_OVEN, JOINERY), wood=6, reed=1)
    breakdown = score_breakdown(s)
    assert [breakdown[r] for r in ROWS] == [4, 3, 3, 2, 2, 2, 2]
    assert breakdown["stone_rooms"] == 8
    assert breakdown["majors"] == 6
    assert breakdown["crafts"] == 2
    assert score_total(s) == 52


def test_worked_example_b_a_hungry_wooden_hut() -> None:
    """Fields 1 -> -1, no pasture -1, no grain -1, no vegetable -1, sheep 2 -> 1, no boar -1,
    no cattle -1 (rows -5); 10 unused spaces -10; wooden rooms 0; 2 people 6; 2 begging
    markers -6; Fireplace 1. Total -5 - 10 + 6 - 6 + 1 = -14."""
    s = ScoreInput(fields=1, sheep=2, unused_spaces=10, people=2, begging=2,
                   majors=(FIREPLACE_2,))
    assert score_total(s) == -14
    assert score_breakdown(s)["begging"] == -6


def test_worked_example_c_a_clay_house_with_three_crafts_and_the_well() -> None:
    """Fields 3 -> 2, pastures 1 -> 1, grain 4 -> 2, vegetables 1 -> 1, sheep 8 -> 4, no boar
    -1, cattle 1 -> 1 (rows 10); 4 unused -4; 1 fenced stable 1; 3 clay rooms 3; 4 people 12;
    Fireplace 1 + Basketmaker's 2 + Pottery 2 + Well 4 = 9; 4 reed -> basket bonus 2, 2 clay ->
    pottery bonus 0. Total 10 - 4 + 1 + 3 + 12 + 9 + 2 = 33."""
    s = ScoreInput(fields=3, pastures=1, grain=4, vegetables=1, sheep=8, cattle=1,
                   unused_spaces=4, fenced_stables=1, clay_rooms=3, people=4,
                   majors=(FIREPLACE_3, BASKETMAKER, POTTERY, WELL), reed=4, clay=2)
    breakdown = score_breakdown(s)
    assert sum(breakdown[r] for r in ROWS) == 10
    assert breakdown["crafts"] == 2
    assert score_total(s) == 33


@pytest.mark.parametrize(
    ("results", "ranks"),
    [
        ([(30, 5), (30, 2), (28, 9)], (1, 2, 3)),  # equal scores: more resources left wins
        ([(30, 5), (30, 5), (20, 0)], (1, 1, 3)),  # still equal: shared rank, the next skips
        ([(10, 0), (12, 0), (12, 0), (11, 3)], (4, 1, 1, 3)),
        ([(-4, 0), (-4, 1)], (2, 1)),
        ([(7, 0)], (1,)),
        ([(5, 9), (6, 0)], (2, 1)),  # resources never outweigh a point
    ],
)
def test_ranks_with_the_tie_break(results: list[tuple[int, int]], ranks: tuple[int, ...]) -> None:
    assert final_ranks(results) == ranks


def test_craft_bonuses_do_not_spend_the_resources_of_the_tie_break() -> None:
    # Joinery (2) + 7 wood (bonus 3) - 7 rows = -2, 7 resources left; both ovens (2 + 3)
    # - 7 rows = -2, 1 stone left. The Joinery's owner wins the tie on its 7 wood.
    joiner = ScoreInput(majors=(JOINERY,), wood=7)
    baker = ScoreInput(majors=(CLAY_OVEN, STONE_OVEN), stone=1)
    assert score_total(joiner) == score_total(baker) == -2
    assert joiner.building_resources == 7
    assert rank_players([baker, joiner]) == (2, 1)
    assert rank_players([baker, dataclasses.replace(joiner, wood=0, stone=1)]) == (1, 2)


@pytest.mark.parametrize(
    "bad",
    [{"fields": -1}, {"wood": -1}, {"begging": -2}, {"majors": (WELL, WELL)},
     {"majors": (10,)}, {"majors": (-1,)}, {"fields": 6, "unused_spaces": 10}],
)
def test_impossible_counts_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        ScoreInput(**bad)  # type: ignore[arg-type]


def test_score_input_is_immutable() -> None:
    s = ScoreInput(people=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.people = 3  # type: ignore[misc]
    assert len(MAJORS) == 10
