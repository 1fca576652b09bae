"""The parts of an action space as pure functions: what a player may do in each part, whether
it can be carried out at all, and carrying out one sub-action (decision model item 2 and 3 of
``RULES.md``; rulings P1-P12 there). Whether a whole space can be used is
:mod:`~arena.engine.agricola.usable`'s question.

A player is seen through :class:`Holding`: goods (a 10-tuple in the numbering of
:mod:`~arena.engine.agricola.components`), the :class:`~arena.engine.agricola.farm.Farm`, the
majors owned and the family size. A part is a :class:`~arena.engine.agricola.components.Part`
of a space, and ``done`` counts the sub-actions of that part already carried out in the current
action (stables built, fields ploughed, pastures fenced...), for the parts' limits.

:func:`options` and :func:`can_use` read only; :func:`apply` changes the farm and the board in
place (the caller copies them first) and returns the rest as a new :class:`Applied`. Option
lists are deterministic in content and order.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Final, NamedTuple

from arena.engine.agricola import farm as farm_mod
from arena.engine.agricola.board import Board
from arena.engine.agricola.components import (
    ANIMALS,
    BAKE,
    BAKERS,
    BUILD_FENCES,
    BUILD_MAJOR,
    BUILD_ROOMS,
    BUILD_STABLES,
    FAMILY_GROWTH,
    FAMILY_GROWTH_WITHOUT_ROOM,
    FIREPLACES,
    FOOD,
    GAIN,
    GAIN_ONE_OF,
    GOODS,
    GRAIN,
    HOUSE_CLAY,
    HOUSE_WOOD,
    MAJOR_OR_MINOR,
    MAJORS,
    MAX_PEOPLE,
    PLOUGH,
    RENOVATE,
    SOW,
    STARTING_PLAYER,
    TAKE_ALL,
    VEGETABLE,
    WOOD,
    Cost,
    Part,
    renovation_cost,
)
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.food import bake, bake_options, food_values
from arena.engine.agricola.pastures import CELLS, SHAPE_BOUNDARY, cells_of

Goods = tuple[int, ...]

#: Parts carried out at most once per action whatever their ``limit`` says (ruling P3).
SINGLE: Final = frozenset({
    TAKE_ALL, GAIN, GAIN_ONE_OF, STARTING_PLAYER, BAKE, RENOVATE, FAMILY_GROWTH,
    FAMILY_GROWTH_WITHOUT_ROOM,
})
#: Part kinds that can always be carried out: goods, the token (and releasing any animals that
#: do not fit), whatever the player holds.
ALWAYS_POSSIBLE: Final = frozenset({TAKE_ALL, GAIN, GAIN_ONE_OF, STARTING_PLAYER})
#: Crop names of a ``sow`` action, with the goods index paid and the farm's crop code.
SOW_CROPS: Final = (("grain", GRAIN, farm_mod.GRAIN), ("vegetable", VEGETABLE, farm_mod.VEGETABLE))
#: Ways to pay for a major: its goods, or (Cooking Hearths) a Fireplace given back.
PAY_GOODS, PAY_FIREPLACE = "goods", "fireplace"
#: The Fireplace given back for a Cooking Hearth when the player has both: the dearer first
#: (ruling P6).
FIREPLACE_RETURN_ORDER: Final = tuple(sorted(FIREPLACES, key=lambda m: -MAJORS[m].cost[1]))


class Holding(NamedTuple):
    """What the parts read of one player: ``goods`` (10 counts), ``farm``, ``majors`` owned
    (ids) and ``people``, the family size: adults and newborns, at home or on spaces."""

    goods: Goods
    farm: Farm
    majors: Collection[int]
    people: int


class Applied(NamedTuple):
    """What :func:`apply` leaves besides the farm and board it changes in place: the new
    ``goods`` and ``majors`` (sorted ids), ``born`` people to add as newborns (0 or 1), and
    ``free_bake``: an oven was built, so a Bake Bread decision follows at once (ruling D13)."""

    goods: Goods
    majors: tuple[int, ...]
    born: int = 0
    free_bake: bool = False


# --- small helpers ------------------------------------------------------------------------------


def affordable(goods: Goods, cost: Cost) -> bool:
    """Whether ``goods`` hold at least ``cost`` (wood, clay, reed, stone)."""
    return (goods[0] >= cost[0] and goods[1] >= cost[1] and goods[2] >= cost[2]
            and goods[3] >= cost[3])


def pay(goods: Goods, cost: Cost) -> Goods:
    """``goods`` less ``cost``; ValueError if they do not cover it."""
    if not affordable(goods, cost):
        raise ValueError(f"cannot pay {cost} out of {goods[:4]}")
    return tuple(n - cost[i] if i < len(cost) else n for i, n in enumerate(goods))


def _gain(goods: Goods, pairs: Collection[tuple[int, int]]) -> Goods:
    if len(pairs) == 1:  # the usual case: one good from one space
        ((good, amount),) = pairs
        return (*goods[:good], goods[good] + amount, *goods[good + 1:])
    out = list(goods)
    for good, amount in pairs:
        out[good] += amount
    return tuple(out)


def _exhausted(part: Part, done: int) -> bool:
    """Whether the part's limit (or its single use, ruling P3) is reached."""
    if part.kind in SINGLE:
        return done >= 1
    return bool(part.limit) and done >= part.limit


def _fireplace_owned(majors: Collection[int]) -> int | None:
    """The Fireplace a Cooking Hearth would take back (ruling P6), or None."""
    return next((m for m in FIREPLACE_RETURN_ORDER if m in majors), None)


# --- the options of one part --------------------------------------------------------------------


def options(part: Part, h: Holding, board: Board, space: int, done: int = 0
            ) -> list[dict[str, Any]]:
    """The legal sub-actions of ``part`` (of ``space``) now, as plain dicts, in a fixed order:
    cells ascending, then crop (grain, vegetable), majors by id and "goods" before
    "fireplace", baking by grain. Empty when nothing can be done (the part's limit reached
    included). For fences this is the first step (``pasture_from``); the second step is
    :func:`pasture_options`."""
    if _exhausted(part, done):
        return []
    kind, goods, farm = part.kind, h.goods, h.farm
    if kind == TAKE_ALL:
        return [{"type": "take"}]
    if kind == GAIN:
        return [{"type": "gain"}]
    if kind == GAIN_ONE_OF:
        return [{"type": "gain", "good": GOODS[g]} for g, _ in part.goods]
    if kind == STARTING_PLAYER:
        return [{"type": "starting_player"}]
    if kind == BUILD_ROOMS:
        if not affordable(goods, farm.room_cost()):
            return []
        return [{"type": "build_room", "cell": c} for c in farm.room_spots()]
    if kind == BUILD_STABLES:
        if not affordable(goods, part.cost):
            return []
        return [{"type": "build_stable", "cell": c} for c in farm.stable_spots()]
    if kind == PLOUGH:
        return [{"type": "plough", "cell": c} for c in farm.plough_spots()]
    if kind == SOW:
        crops = [name for name, good, _ in SOW_CROPS if goods[good] >= 1]
        return [{"type": "sow", "cell": c, "crop": name}
                for c in farm.empty_fields() for name in crops]
    if kind == BAKE:
        return [o.action() for o in bake_options(goods[GRAIN], h.majors)]
    if kind == BUILD_FENCES:
        return [{"type": "pasture_from", "cell": c} for c in farm.pasture_starts(goods[WOOD])]
    if kind == BUILD_MAJOR:
        return _major_options(h, board)
    if kind == RENOVATE:
        ok = farm.can_renovate() and affordable(goods, farm.renovation_cost())
        return [{"type": "renovate"}] if ok else []
    if kind == FAMILY_GROWTH:
        ok = farm.homes() > h.people and h.people < MAX_PEOPLE
        return [{"type": "family_growth"}] if ok else []
    if kind == FAMILY_GROWTH_WITHOUT_ROOM:
        return [{"type": "family_growth"}] if h.people < MAX_PEOPLE else []
    raise ValueError(f"unknown part kind {kind!r} on space {space}")


def _major_options(h: Holding, board: Board) -> list[dict[str, Any]]:
    fireplace = _fireplace_owned(h.majors)
    out = []
    for m in board.majors():
        if m in h.majors:  # pragma: no cover - a major on the board is owned by nobody
            continue
        if affordable(h.goods, MAJORS[m].cost):
            out.append({"type": "build_major", "major": m, "pay": PAY_GOODS})
        if MAJORS[m].or_return_fireplace and fireplace is not None:
            out.append({"type": "build_major", "major": m, "pay": PAY_FIREPLACE})
    return out


def pasture_options(h: Holding, cell: int) -> list[dict[str, Any]]:
    """The second step of a fencing move: every legal pasture whose first space in reading
    order is ``cell``, as ``{"type": "pasture", "shape": [spaces]}`` in the shape table's order
    (smallest first). Paid 1 wood per new fence."""
    return [{"type": "pasture", "shape": cells_of(mask)} for mask in pasture_masks(h, cell)]


def pasture_masks(h: Holding, cell: int) -> list[int]:
    """:func:`pasture_options` as masks of spaces, in the same order."""
    return h.farm.pastures_from(cell, h.goods[WOOD])


def can_use(part: Part, h: Holding, board: Board, space: int, done: int = 0) -> bool:
    """Whether at least one sub-action of ``part`` is legal now: ``bool(options(...))``,
    answered without building the options (it is asked for every free space at every
    placement)."""
    if _exhausted(part, done):
        return False
    kind, goods, farm = part.kind, h.goods, h.farm
    if kind in ALWAYS_POSSIBLE:
        return True
    if kind == BUILD_ROOMS:
        return affordable(goods, farm.room_cost()) and bool(farm.room_mask())
    if kind == BUILD_STABLES:
        return affordable(goods, part.cost) and bool(farm.stable_mask())
    if kind == PLOUGH:
        return bool(farm.plough_mask())
    if kind == SOW:
        return (goods[GRAIN] > 0 or goods[VEGETABLE] > 0) and farm.has_empty_field()
    if kind == BAKE:
        return goods[GRAIN] > 0 and any(m in BAKERS for m in h.majors)
    if kind == BUILD_FENCES:
        return farm.can_fence(goods[WOOD])
    if kind == BUILD_MAJOR:
        return can_build_major(h, board)
    if kind == RENOVATE:
        return can_renovate(h, board)
    return bool(options(part, h, board, space, done))


def can_build_major(h: Holding, board: Board) -> bool:
    """:func:`can_use` of Build Major: some major on the board is affordable, or a Cooking
    Hearth is there for a Fireplace owned. Only the cheapest costs of the majors on the board
    are tried (a dearer one is affordable only when a cheaper one is)."""
    on_board = board.major_mask()
    if _HEARTH_MASK & on_board and not _FIREPLACES.isdisjoint(h.majors):
        return True
    goods = h.goods
    least = _LEAST_MAJOR_COSTS.get(on_board)
    if least is None:
        least = _LEAST_MAJOR_COSTS[on_board] = _least_costs(on_board)
    for cost in least:  # noqa: SIM110 - a loop is faster than any()
        if affordable(goods, cost):
            return True
    return False


def can_renovate(h: Holding, board: Board) -> bool:
    """:func:`can_use` of Renovate: a wooden or clay house, and its renovation affordable."""
    farm = h.farm
    costs = _RENOVATION_COSTS.get(farm.material)
    return costs is not None and affordable(h.goods, costs[farm.num_rooms()])


def _least_costs(majors: int) -> tuple[Cost, ...]:
    """The costs of the majors in the mask ``majors`` that no other of them undercuts (one at
    most as large in every good), each once."""
    costs = {MAJORS[m].cost for m in range(len(MAJORS)) if majors >> m & 1}
    return tuple(sorted(c for c in costs if not any(
        d != c and all(x <= y for x, y in zip(d, c, strict=True)) for d in costs)))


#: By mask of majors on the board: their least costs (:func:`_least_costs`), each worked out
#: when a game first meets its mask (a game meets a few dozen of the 1,024 masks, and the whole
#: table cost every process that imports the game a tenth of a second).
_LEAST_MAJOR_COSTS: Final[dict[int, tuple[Cost, ...]]] = {}
#: The majors that may be paid by giving a Fireplace back (the Cooking Hearths), as a mask.
_HEARTH_MASK: Final = sum(1 << m for m in range(len(MAJORS)) if MAJORS[m].or_return_fireplace)
_FIREPLACES: Final = frozenset(FIREPLACES)
#: By house material that can still be renovated, then by number of rooms: what renovating
#: costs.
_RENOVATION_COSTS: Final = {
    material: tuple(renovation_cost(material, rooms) for rooms in range(CELLS + 1))
    for material in (HOUSE_WOOD, HOUSE_CLAY)
}


# --- carrying out one sub-action ---------------------------------------------------------------


def apply(action: dict[str, Any], part: Part, h: Holding, board: Board, space: int, seat: int,
          done: int = 0, start: int | None = None, trusted: bool = False) -> Applied:
    """Pay for and carry out one sub-action of ``part``; ValueError (nothing changed) unless it
    is legal. ``h.farm`` is changed in place by rooms, stables, ploughing, sowing, pastures and
    renovation; ``board`` by taking goods (the pile is emptied), the starting player (set to
    ``seat``), and majors (taken off the board, a Fireplace given back, the Well's food
    promised). The caller copies both first if it needs the old ones. ``start`` is the space a
    ``pasture`` must start from (the ``pasture_from`` chosen), when the caller checks it.
    ``trusted``: the action was taken from :func:`options` of this very position, so the check
    is skipped (the game state's path; pastures are always checked)."""
    kind, goods, farm = part.kind, h.goods, h.farm
    majors = tuple(sorted(h.majors))
    typ = action.get("type")
    if typ == "pasture" and kind == BUILD_FENCES:
        return Applied(_build_pasture(action, h, start), majors)
    if not trusted and action not in options(part, h, board, space, done):
        raise ValueError(f"illegal {kind} action {action} on space {space}")
    if kind in FIXED:
        return Applied(fixed_part(part, goods, board, space, seat), majors)
    if kind == GAIN_ONE_OF:
        return Applied(_gain(goods, [p for p in part.goods if GOODS[p[0]] == action["good"]]),
                       majors)
    if kind == BUILD_ROOMS:
        after = pay(goods, farm.room_cost())
        farm.build_room(action["cell"])
        return Applied(after, majors)
    if kind == BUILD_STABLES:
        after = pay(goods, part.cost)
        farm.build_stable(action["cell"])
        return Applied(after, majors)
    if kind == PLOUGH:
        farm.plough(action["cell"])
        return Applied(goods, majors)
    if kind == SOW:
        _, good, code = next(c for c in SOW_CROPS if c[0] == action["crop"])
        farm.sow(action["cell"], code)
        return Applied(_gain(goods, [(good, -1)]), majors)
    if kind == BAKE:
        option = next(o for o in bake_options(goods[GRAIN], majors) if o.action() == action)
        return Applied(bake(goods, option), majors)
    if kind == BUILD_FENCES:  # the first step chooses a space and changes nothing
        return Applied(goods, majors)
    if kind in _MAJOR_KINDS:  # card mode's "major or minor"
        return _build_major(action["major"], action["pay"], h, board, seat)
    if kind == RENOVATE:
        after = pay(goods, farm.renovation_cost())
        farm.renovate()
        return Applied(after, majors)
    # FAMILY_GROWTH, FAMILY_GROWTH_WITHOUT_ROOM: the caller adds the newborn.
    return Applied(goods, majors, born=1)


#: Build Major and card mode's "major or minor", whose major half is the same sub-action.
_MAJOR_KINDS: Final = frozenset({BUILD_MAJOR, MAJOR_OR_MINOR})
#: Part kinds with one fixed sub-action and nothing to pay: goods and the token.
FIXED: Final = frozenset({TAKE_ALL, GAIN, STARTING_PLAYER})


def fixed_part(part: Part, goods: Goods, board: Board, space: int, seat: int) -> Goods:
    """Carry out a part of a :data:`FIXED` kind (always legal): take the pile of ``space``, gain
    the part's goods, or take the starting-player token. Returns the new goods; the board
    changes in place."""
    kind = part.kind
    if kind == TAKE_ALL:
        return _gain(goods, board.take_accumulated(space))
    if kind == GAIN:
        return _gain(goods, part.goods)
    board.start_player = seat
    return goods


def _build_pasture(action: dict[str, Any], h: Holding, start: int | None) -> Goods:
    cells = action.get("shape")
    if not isinstance(cells, list) or not cells or cells != sorted(set(cells)) \
            or not all(isinstance(c, int) and 0 <= c < 15 for c in cells):
        raise ValueError(f"not a pasture shape: {cells!r}")
    if start is not None and cells[0] != start:
        raise ValueError(f"the pasture {cells} does not start on space {start}")
    mask = sum(1 << c for c in cells)
    if mask not in SHAPE_BOUNDARY:
        raise ValueError(f"not a pasture shape: {cells}")
    wood = h.goods[WOOD]
    if h.farm.pasture_cost(mask, wood) <= 0:
        raise ValueError(f"spaces {cells} cannot be fenced as a pasture with {wood} wood")
    fences = h.farm.build_pasture(mask, wood)
    return _gain(h.goods, [(WOOD, -fences)])


def _build_major(major: int, how: str, h: Holding, board: Board, seat: int) -> Applied:
    owned = set(h.majors)
    goods = h.goods
    fireplace = _fireplace_owned(owned) if how == PAY_FIREPLACE else None
    if fireplace is None:
        goods = pay(goods, MAJORS[major].cost)
    board.take_major(major)
    if fireplace is not None:
        owned.discard(fireplace)
        board.return_fireplace(fireplace)
    owned.add(major)
    if MAJORS[major].well_food:
        board.promise(seat)
    return Applied(goods, tuple(sorted(owned)), free_bake=MAJORS[major].free_bake)


# --- animals that do not fit (decision model item 3) ---------------------------------------


def animal_options(goods: Goods, majors: Collection[int], farm: Farm) -> list[dict[str, Any]]:
    """What to keep after gaining animals: one ``{"type": "keep", "sheep", "boar", "cattle"}``
    per maximal herd the farm can hold (:meth:`Farm.keep_options`, ruling P11); a single option,
    the herd itself, when everything fits. The rest is cooked or released by
    :func:`keep_animals`."""
    return [{"type": "keep", "sheep": s, "boar": b, "cattle": c}
            for s, b, c in farm.keep_options(*(goods[t] for t in ANIMALS))]


def keep_animals(goods: Goods, majors: Collection[int], farm: Farm,
                 action: dict[str, Any]) -> Goods:
    """The goods after keeping ``action``'s herd: every animal not kept is cooked at the best
    rate the majors give (a Fireplace or Cooking Hearth), else released. ValueError unless the
    action is one of :func:`animal_options`."""
    if action not in animal_options(goods, majors, farm):
        raise ValueError(f"not a legal herd to keep: {action}")
    values = food_values(majors)
    out = list(goods)
    for t, name in zip(ANIMALS, ("sheep", "boar", "cattle"), strict=True):
        gone = goods[t] - action[name]
        out[t] = action[name]
        out[FOOD] += gone * values[t]
    return tuple(out)


__all__ = [
    "FIXED", "PAY_FIREPLACE", "PAY_GOODS", "SINGLE", "SOW_CROPS", "Applied", "Holding",
    "affordable", "animal_options", "apply", "can_build_major", "can_renovate", "can_use",
    "fixed_part", "keep_animals", "options", "pasture_masks", "pasture_options", "pay",
]
