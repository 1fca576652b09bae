"""Which action spaces a player could use (ruling P1 of ``RULES.md``), asked for every free
space at every placement, so answered from tables built once: the parts that decide each space,
one check per distinct part specialised by its kind, and masks of spaces read a byte at a time.
The answers are those of :func:`~arena.engine.agricola.parts.can_use` part by part."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from arena.engine.agricola import farm as farm_mod
from arena.engine.agricola.board import Board
from arena.engine.agricola.components import (
    ALL,
    AND_OR,
    AND_THEN,
    BAKE,
    BAKERS,
    BUILD_FENCES,
    BUILD_MAJOR,
    BUILD_ROOMS,
    BUILD_STABLES,
    FAMILY_GROWTH,
    FAMILY_GROWTH_WITHOUT_ROOM,
    GRAIN,
    MAX_PEOPLE,
    ONE,
    PLOUGH,
    RENOVATE,
    SOW,
    SPACES,
    VEGETABLE,
    WOOD,
    Part,
)
from arena.engine.agricola.parts import (
    ALWAYS_POSSIBLE,
    Holding,
    affordable,
    can_build_major,
    can_renovate,
    can_use,
)

T = TypeVar("T")


def _always_usable(space: int) -> bool:
    return any(p.kind in ALWAYS_POSSIBLE for p in DECIDING_PARTS[space])


def _deciding_parts(space: int) -> tuple[Part, ...]:
    s = SPACES[space]
    if s.dead:
        return ()
    if s.combine == AND_THEN:
        return s.parts[:1]
    if s.combine in (ONE, ALL, AND_OR):
        return s.parts
    raise ValueError(f"unknown combine mode {s.combine!r}")  # pragma: no cover


#: By space id: the parts of which one must be possible for the space to be usable (ruling P1).
DECIDING_PARTS: Final = tuple(_deciding_parts(i) for i in range(len(SPACES)))
#: The spaces a player can always use (ruling P1), by id.
ALWAYS_USABLE: Final = frozenset(i for i in range(len(SPACES)) if _always_usable(i))


def _fast_kinds() -> dict[Part, int]:
    """A bit for each part that decides whether a space is usable and is not always possible."""
    parts: dict[Part, int] = {}
    for deciding in DECIDING_PARTS:
        for part in deciding:
            if part.kind not in ALWAYS_POSSIBLE and part not in parts:
                parts[part] = len(parts)
    return parts


_PART_BIT: Final = _fast_kinds()
_BAKERS: Final = frozenset(BAKERS)


def _check_of(part: Part) -> Callable[[Holding, Board], bool]:
    """:func:`can_use` of ``part`` before any of its sub-actions, as a function of the player
    and the board, specialised by kind (placement asks these for every free space). The farm's
    side is read from :meth:`Farm.openings`, kept by the farm until it changes."""
    kind = part.kind
    if kind == BUILD_ROOMS:
        return lambda h, board: (bool(h.farm.openings() & farm_mod.ROOM_SPOT)
                                 and affordable(h.goods, h.farm.room_cost()))
    if kind == BUILD_STABLES:
        cost = part.cost
        return lambda h, board: (bool(h.farm.openings() & farm_mod.STABLE_SPOT)
                                 and affordable(h.goods, cost))
    if kind == PLOUGH:
        return lambda h, board: bool(h.farm.openings() & farm_mod.PLOUGH_SPOT)
    if kind == SOW:
        return lambda h, board: ((h.goods[GRAIN] > 0 or h.goods[VEGETABLE] > 0)
                                 and bool(h.farm.openings() & farm_mod.EMPTY_FIELD))
    if kind == BUILD_FENCES:
        return lambda h, board: h.farm.can_fence(h.goods[WOOD])
    if kind == BAKE:
        return lambda h, board: h.goods[GRAIN] > 0 and not _BAKERS.isdisjoint(h.majors)
    if kind == BUILD_MAJOR:
        return can_build_major
    if kind == RENOVATE:
        return can_renovate
    if kind == FAMILY_GROWTH:
        return lambda h, board: h.farm.homes() > h.people and h.people < MAX_PEOPLE
    if kind == FAMILY_GROWTH_WITHOUT_ROOM:
        return lambda h, board: h.people < MAX_PEOPLE
    return lambda h, board: can_use(part, h, board, -1)  # pragma: no cover - every kind above



def usable_spaces(free: int, h: Holding, board: Board) -> list[int]:
    """The spaces of the mask ``free`` (bit s: space s) that ``h`` could use, by id: the same
    as filtering with :func:`space_usable`."""
    return _ids(usable_mask(free, h, board))


def usable_mask(free: int, h: Holding, board: Board) -> int:
    """:func:`usable_spaces` as a mask: each deciding part is asked only while a space it
    decides is free and still unknown, the parts of one kind at once, inline (this runs at
    every placement). The same as asking :func:`_check_of` of every part."""
    usable = free & _ALWAYS_MASK
    todo = free & ~_ALWAYS_MASK
    if not todo:
        return usable
    goods, farm, majors, people = h
    if todo & _OPENING_MASK:
        opening = farm.openings()
        if todo & _ROOMS and opening & farm_mod.ROOM_SPOT \
                and affordable(goods, farm.room_cost()):
            usable |= todo & _ROOMS
            todo &= ~_ROOMS
        if opening & farm_mod.STABLE_SPOT:
            for spaces, cost in _STABLES:
                if todo & spaces and affordable(goods, cost):
                    usable |= todo & spaces
                    todo &= ~spaces
        if todo & _PLOUGH and opening & farm_mod.PLOUGH_SPOT:
            usable |= todo & _PLOUGH
            todo &= ~_PLOUGH
        if todo & _SOW and opening & farm_mod.EMPTY_FIELD \
                and (goods[GRAIN] > 0 or goods[VEGETABLE] > 0):
            usable |= todo & _SOW
            todo &= ~_SOW
    if todo & _FENCES and farm.can_fence(goods[WOOD]):
        usable |= todo & _FENCES
        todo &= ~_FENCES
    if todo & _BAKE and goods[GRAIN] > 0 and not _BAKERS.isdisjoint(majors):
        usable |= todo & _BAKE
        todo &= ~_BAKE
    if todo & _MAJOR and can_build_major(h, board):
        usable |= todo & _MAJOR
        todo &= ~_MAJOR
    if todo & _RENOVATE and can_renovate(h, board):
        usable |= todo & _RENOVATE
        todo &= ~_RENOVATE
    if todo & _GROWTH and people < MAX_PEOPLE and farm.homes() > people:
        usable |= todo & _GROWTH
        todo &= ~_GROWTH
    if todo & _GROWTH_WITHOUT_ROOM and people < MAX_PEOPLE:
        usable |= todo & _GROWTH_WITHOUT_ROOM
        todo &= ~_GROWTH_WITHOUT_ROOM
    for spaces, check in _OTHER_CHECKS:
        if spaces & todo and check(h, board):
            usable |= spaces & todo
            todo &= ~spaces
    return usable


def byte_table(items: Sequence[T]) -> tuple[tuple[tuple[T, ...], ...], ...]:
    """``table[k][b]``: the items whose indices are the set bits of byte ``b`` at byte position
    ``k``, in order, so that the items of a mask are gathered a byte at a time."""
    return tuple(
        tuple(tuple(items[8 * k + i] for i in range(8) if b >> i & 1 and 8 * k + i < len(items))
              for b in range(256))
        for k in range((len(items) + 7) // 8)
    )


def _ids(mask: int) -> list[int]:
    """The set bits of ``mask`` in increasing order, a byte at a time from a table."""
    out: list[int] = []
    base = 0
    while mask:
        out.extend(_BYTE_IDS[base][mask & 0xFF])
        mask >>= 8
        base += 1
    return out


#: ``_BYTE_IDS[k][b]``: the ids of the set bits of byte ``b`` at byte position ``k``.
_BYTE_IDS: Final = byte_table(range(len(SPACES)))
#: The spaces that are always usable, as a mask of ids.
_ALWAYS_MASK: Final = sum(1 << i for i in ALWAYS_USABLE)
#: (spaces, check) for each distinct deciding part: the mask of the spaces it makes usable
#: and :func:`can_use` of it as a function of the player and the board.
_PART_CHECKS: Final = tuple(
    (sum(1 << i for i in range(len(SPACES)) if part in DECIDING_PARTS[i]), _check_of(part))
    for part in _PART_BIT
)

#: The kinds :func:`usable_mask` checks inline: the mask of the spaces each decides (build
#: stables per cost, as (mask, cost) pairs), and the checks of any other kind.
_INLINE: Final = (BUILD_ROOMS, BUILD_STABLES, PLOUGH, SOW, BUILD_FENCES, BAKE, BUILD_MAJOR,
                  RENOVATE, FAMILY_GROWTH, FAMILY_GROWTH_WITHOUT_ROOM)


def _kind_mask(kind: str) -> int:
    return sum(spaces for (spaces, _), part in zip(_PART_CHECKS, _PART_BIT, strict=True)
               if part.kind == kind)


_ROOMS: Final = _kind_mask(BUILD_ROOMS)
_STABLES: Final = tuple((spaces, part.cost)
                        for (spaces, _), part in zip(_PART_CHECKS, _PART_BIT, strict=True)
                        if part.kind == BUILD_STABLES)
_PLOUGH: Final = _kind_mask(PLOUGH)
_SOW: Final = _kind_mask(SOW)
_FENCES: Final = _kind_mask(BUILD_FENCES)
_BAKE: Final = _kind_mask(BAKE)
_MAJOR: Final = _kind_mask(BUILD_MAJOR)
_RENOVATE: Final = _kind_mask(RENOVATE)
_GROWTH: Final = _kind_mask(FAMILY_GROWTH)
_GROWTH_WITHOUT_ROOM: Final = _kind_mask(FAMILY_GROWTH_WITHOUT_ROOM)
#: The spaces decided by what the farm has room for (:meth:`Farm.openings`).
_OPENING_MASK: Final = _ROOMS | _PLOUGH | _SOW | sum(spaces for spaces, _ in _STABLES)
_OTHER_CHECKS: Final = tuple(
    (spaces, check) for (spaces, check), part in zip(_PART_CHECKS, _PART_BIT, strict=True)
    if part.kind not in _INLINE)


def space_usable(space: int, h: Holding, board: Board) -> bool:
    """Whether a person placed on ``space`` could carry out at least one of its parts (ruling
    P1): "one", "all" and "and_or" spaces need any part, "and_then" spaces their first part.
    Dead spaces never; whether the space is free is the board's question."""
    if space in ALWAYS_USABLE:
        return True
    for part in DECIDING_PARTS[space]:  # noqa: SIM110 - a loop is faster than any() here
        if can_use(part, h, board, space):
            return True
    return False
