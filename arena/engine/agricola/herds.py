"""Which herds a farm can keep: the counts of (sheep, boar, cattle) its pastures, unfenced
stables and house pet hold, as pure functions of the pastures (masks of spaces) and stables
(a mask), for :class:`~arena.engine.agricola.farm.Farm` (ruling P11 of ``RULES.md``)."""

from __future__ import annotations

#: Animal counts: (sheep, boar, cattle).
Herd = tuple[int, int, int]


def pasture_capacity(pasture: int, stables: int) -> int:
    """2 animals per space of ``pasture``, doubled for each stable in it."""
    return 2 * pasture.bit_count() << (pasture & stables).bit_count()


def pareto(points: set[Herd]) -> tuple[Herd, ...]:
    """The points no other point dominates (at least as large everywhere), sorted. A point
    that dominates another comes after it in sorted order, so walking from the largest down,
    each point is compared only with the undominated ones already found."""
    kept: list[Herd] = []
    for p in sorted(points, reverse=True):
        s, b, c = p
        for q in kept:
            if q[0] >= s and q[1] >= b and q[2] >= c:
                break
        else:
            kept.append(p)
    kept.reverse()
    return tuple(kept)


def capacity_frontier(pastures: tuple[int, ...], stables: int) -> tuple[Herd, ...]:
    """The Pareto-maximal herds the pastures can hold, over every way to give each pasture one
    type (flexible slots not included)."""
    points = {(0, 0, 0)}
    for p in pastures:
        cap = pasture_capacity(p, stables)
        points = set(pareto({
            q for s, b, c in points
            for q in ((s + cap, b, c), (s, b + cap, c), (s, b, c + cap))
        }))
    return pareto(points)


def fits(frontier: tuple[Herd, ...], flexible: int, sheep: int, boar: int, cattle: int) -> bool:
    """Whether the animals can all be kept: in the pastures as one point of ``frontier`` gives
    them, the rest one each in the ``flexible`` slots."""
    for s, b, c in frontier:
        if max(0, sheep - s) + max(0, boar - b) + max(0, cattle - c) <= flexible:
            return True
    return False


def keep_options(frontier: tuple[Herd, ...], flexible: int, sheep: int, boar: int,
                 cattle: int) -> list[Herd]:
    """The maximal herds at most the given counts that fit, sorted: the choices of what to
    keep when animals do not all fit (the rest is cooked or released by the caller). One
    option, the counts themselves, when they fit. Bounded: the frontier of pasture assignments
    times the ways to share at most 5 flexible slots over 3 types."""
    out: set[Herd] = set()
    for s, b, c in frontier:
        base = (min(sheep, s), min(boar, b), min(cattle, c))
        extra = (sheep - base[0], boar - base[1], cattle - base[2])
        free = min(flexible, sum(extra))
        for xs in range(min(free, extra[0]) + 1):
            for xb in range(min(free - xs, extra[1]) + 1):
                xc = free - xs - xb
                if xc <= extra[2]:
                    out.add((base[0] + xs, base[1] + xb, base[2] + xc))
    return list(pareto(out))
