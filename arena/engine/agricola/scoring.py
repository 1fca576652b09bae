"""Final scoring of Agricola (ref A8 "Scoring"): the breakdown by category from plain counts,
and the ranks with the tie-break (building resources left, then a shared rank).

The input is a :class:`ScoreInput` of counts, so scoring needs nothing from the farm model:
whoever holds the farm counts fields, pastures and so on and hands them over.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.engine.agricola.components import (
    BEGGING_POINTS,
    BOAR_ROW,
    CATTLE_ROW,
    CLAY_ROOM_POINTS,
    CRAFTS,
    FARM_SPACES,
    FENCED_STABLE_POINTS,
    FIELDS_ROW,
    GRAIN_ROW,
    MAJORS,
    MAX_PEOPLE,
    MAX_STABLES,
    PASTURES_ROW,
    PERSON_POINTS,
    SHEEP_ROW,
    STONE_ROOM_POINTS,
    UNUSED_SPACE_POINTS,
    VEGETABLES_ROW,
    craft_bonus,
    row_points,
)
from arena.engine.api import competition_ranks

#: The breakdown's categories, in the order of the scoring table; the bot docs name these.
SCORE_KEYS: tuple[str, ...] = (
    "fields", "pastures", "grain", "vegetables", "sheep", "boar", "cattle",
    "unused_spaces", "fenced_stables", "clay_rooms", "stone_rooms", "people",
    "begging", "majors", "crafts",
)


@dataclass(frozen=True, slots=True)
class ScoreInput:
    """One player's counts at the end of the game.

    ``grain`` and ``vegetables`` count the supply and the fields together; animals count
    wherever they stand (pastures, stables, the house). ``unused_spaces`` are farmyard spaces
    with no room, field or stable that no pasture encloses. ``majors`` are the ids
    (:data:`~arena.engine.agricola.components.MAJORS`) of the improvements owned.
    ``wood``..``stone`` are the building resources left in the supply, which the crafts'
    bonuses read without spending and the tie-break counts.
    """

    fields: int = 0
    pastures: int = 0
    grain: int = 0
    vegetables: int = 0
    sheep: int = 0
    boar: int = 0
    cattle: int = 0
    unused_spaces: int = 0
    fenced_stables: int = 0
    clay_rooms: int = 0
    stone_rooms: int = 0
    people: int = 0
    begging: int = 0
    majors: tuple[int, ...] = ()
    wood: int = 0
    clay: int = 0
    reed: int = 0
    stone: int = 0

    def __post_init__(self) -> None:
        for name in (
            "fields", "pastures", "grain", "vegetables", "sheep", "boar", "cattle",
            "unused_spaces", "fenced_stables", "clay_rooms", "stone_rooms", "people",
            "begging", "wood", "clay", "reed", "stone",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} is negative")
        if self.clay_rooms and self.stone_rooms:
            raise ValueError("a house is of one material: clay rooms and stone rooms")
        if self.fields + self.unused_spaces > FARM_SPACES:
            raise ValueError("more fields and unused spaces than the farmyard has")
        if self.fenced_stables > MAX_STABLES:
            raise ValueError(f"at most {MAX_STABLES} stables")
        if self.people > MAX_PEOPLE:
            raise ValueError(f"at most {MAX_PEOPLE} people")
        if len(set(self.majors)) != len(self.majors) or any(
            not 0 <= m < len(MAJORS) for m in self.majors
        ):
            raise ValueError(f"not a set of major ids: {self.majors}")

    @property
    def building_resources(self) -> int:
        """Wood, clay, reed and stone left: the tie-break."""
        return self.wood + self.clay + self.reed + self.stone


def _craft_left(s: ScoreInput, major: int) -> int:
    good = MAJORS[major].craft
    assert good is not None
    return (s.wood, s.clay, s.reed, s.stone)[good[0]]


def score_breakdown(s: ScoreInput) -> dict[str, int]:
    """The final score by category (keys :data:`SCORE_KEYS`, in that order)."""
    return {
        "fields": row_points(FIELDS_ROW, s.fields),
        "pastures": row_points(PASTURES_ROW, s.pastures),
        "grain": row_points(GRAIN_ROW, s.grain),
        "vegetables": row_points(VEGETABLES_ROW, s.vegetables),
        "sheep": row_points(SHEEP_ROW, s.sheep),
        "boar": row_points(BOAR_ROW, s.boar),
        "cattle": row_points(CATTLE_ROW, s.cattle),
        "unused_spaces": UNUSED_SPACE_POINTS * s.unused_spaces,
        "fenced_stables": FENCED_STABLE_POINTS * s.fenced_stables,
        "clay_rooms": CLAY_ROOM_POINTS * s.clay_rooms,
        "stone_rooms": STONE_ROOM_POINTS * s.stone_rooms,
        "people": PERSON_POINTS * s.people,
        "begging": BEGGING_POINTS * s.begging,
        "majors": sum(MAJORS[m].points for m in s.majors),
        "crafts": sum(craft_bonus(m, _craft_left(s, m)) for m in s.majors if m in CRAFTS),
    }


def score_total(s: ScoreInput) -> int:
    """The final score: the breakdown's sum."""
    return sum(score_breakdown(s).values())


def final_ranks(results: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """Ranks (1 = best) from each player's (total score, building resources left): the higher
    score first; equal scores by more building resources left; still equal, a shared rank, and
    the next rank skips (1, 1, 3)."""
    return competition_ranks(list(results))


def rank_players(inputs: Iterable[ScoreInput]) -> tuple[int, ...]:
    """:func:`final_ranks` of several players' final counts."""
    return final_ranks([(score_total(s), s.building_resources) for s in inputs])
