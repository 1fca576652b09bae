"""The static tables that Agricola observations refer to by id: goods, action spaces, stage
cards, major improvements, the farmyard's geometry and the scoring table, as plain data (sent to
bots once per game by the runner)."""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from arena.engine.agricola.components import (
    BEGGING_POINTS,
    BOAR_ROW,
    BUILDING_RESOURCES,
    CATTLE_ROW,
    CLAY_ROOM_POINTS,
    FENCED_STABLE_POINTS,
    FIELDS_ROW,
    GOODS,
    GRAIN_ROW,
    HARVEST_ROUNDS,
    MAJORS,
    PASTURES_ROW,
    PERSON_POINTS,
    ROW_MISSING_POINTS,
    SHEEP_ROW,
    SPACES,
    STAGE_CARDS,
    STAGE_ROUNDS,
    STONE_ROOM_POINTS,
    UNUSED_SPACE_POINTS,
    VEGETABLES_ROW,
    Cost,
    Space,
    spaces_for,
)
from arena.engine.agricola.pastures import COLS, NUM_EDGES, ROWS


def _cost(cost: Cost) -> dict[str, int]:
    return {GOODS[g]: n for g, n in zip(BUILDING_RESOURCES, cost, strict=True) if n}


def _goods(pairs: tuple[tuple[int, int], ...]) -> dict[str, int]:
    return {GOODS[g]: n for g, n in pairs}


def space_info(space: int, spaces: tuple[Space, ...] = SPACES) -> dict[str, Any]:
    """An action space of ``spaces`` (the Family game's by default) as plain data: id, key,
    name, stage (0: printed on a board), its parts in the order of the card, how they combine,
    what accumulates on it, and whether it is dead (a Lessons space of the card game, never
    usable in the Family game)."""
    s = spaces[space]
    parts = []
    for part in s.parts:
        entry: dict[str, Any] = {"kind": part.kind}
        if part.goods:
            entry["goods"] = _goods(part.goods)
        if any(part.cost):
            entry["cost"] = _cost(part.cost)
        if part.limit:
            entry["limit"] = part.limit
        parts.append(entry)
    info: dict[str, Any] = {
        "id": space, "key": s.key, "name": s.name, "stage": s.stage, "combine": s.combine,
        "parts": parts, "accumulates": _goods(s.accumulates), "dead": s.dead,
    }
    if s.accumulates_solo is not None:
        info["accumulates_solo"] = _goods(s.accumulates_solo)
    return info


def major_info(major: int) -> dict[str, Any]:
    """A major improvement as plain data: cost, points, and what it does."""
    m = MAJORS[major]
    info: dict[str, Any] = {"id": major, "key": m.key, "name": m.name, "cost": _cost(m.cost),
                            "points": m.points}
    if m.or_return_fireplace:
        info["or_return_fireplace"] = True
    if m.cook:
        info["cook"] = _goods(m.cook)
    if m.bake_food:
        info["bake"] = {"food_per_grain": m.bake_food, "max_grain": m.bake_limit or None}
    if m.free_bake:
        info["free_bake"] = True
    if m.craft is not None:
        info["craft"] = {"good": GOODS[m.craft[0]], "food": m.craft[1]}
        info["bonus"] = [list(b) for b in m.bonus]
    if m.well_food:
        info["well_food_rounds"] = m.well_food
    return info


@lru_cache(maxsize=1)
def family_components() -> dict[str, Any]:
    """The Family game's tables, made once: callers copy before changing them."""
    return {
        "goods": list(GOODS),
        "spaces": [space_info(i) for i in range(len(SPACES))],
        "board_spaces": {str(n): list(spaces_for(n)[: len(spaces_for(n)) - 14])
                         for n in range(1, 5)},
        "stages": [{"stage": k + 1, "rounds": list(r), "cards": list(c)}
                   for k, (r, c) in enumerate(zip(STAGE_ROUNDS, STAGE_CARDS, strict=True))],
        "harvest_rounds": list(HARVEST_ROUNDS),
        "majors": [major_info(i) for i in range(len(MAJORS))],
        "farmyard": {"rows": ROWS, "columns": COLS, "fence_edges": NUM_EDGES},
        "scoring": {
            "rows": {"fields": list(FIELDS_ROW), "pastures": list(PASTURES_ROW),
                     "grain": list(GRAIN_ROW), "vegetables": list(VEGETABLES_ROW),
                     "sheep": list(SHEEP_ROW), "boar": list(BOAR_ROW),
                     "cattle": list(CATTLE_ROW)},
            "row_missing": ROW_MISSING_POINTS, "unused_space": UNUSED_SPACE_POINTS,
            "fenced_stable": FENCED_STABLE_POINTS, "clay_room": CLAY_ROOM_POINTS,
            "stone_room": STONE_ROOM_POINTS, "person": PERSON_POINTS,
            "begging": BEGGING_POINTS,
        },
    }


def components() -> dict[str, Any]:
    """The static tables (a fresh copy each call: callers may change it)."""
    return copy.deepcopy(family_components())
