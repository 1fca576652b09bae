"""Farmyard geometry: the 15 spaces, the 38 fence edges, enclosure, and the pasture shape table.

Spaces are numbered row by row, ``cell = 5 * row + column`` (row 0 at the top, column 0 at the
left); a set of spaces is a 15-bit mask. Fence edges are bits of a 38-bit mask: the horizontal
edge above row ``r`` (``r`` = 0..3, row 3 meaning below the last row) at column ``c`` is bit
``5 * r + c``; the vertical edge left of column ``c`` (``c`` = 0..5) in row ``r`` is bit
``20 + 6 * r + c``. The board's outer border is not a fence (seed 002: the board edge and fields
do not stand in for fences), so a pasture on the border needs fences there too.

A space is *enclosed* when it cannot reach the outside of the board without crossing a fence;
pastures are the connected groups of enclosed spaces (:func:`pastures_of`). Fences only ever go
round a whole pasture, so every fence separates two different regions and the pastures can be
recomputed from the fences alone.

:data:`SHAPES` is the precomputed table of every connected set of spaces that may be a single
pasture: at most 15 perimeter fences (a player's whole supply) and never a starting room space.
Its size is asserted by the tests (762, the figure the reference gives for the Family game).
:func:`pasture_moves` walks that table once per call, so a Fencing turn is a series of small
"build this one pasture" decisions, each at most ``len(SHAPES)`` long.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Final

from arena.engine.agricola.components import FARM_COLS, FARM_ROWS, MAX_FENCES
from arena.engine.agricola.components import START_ROOMS as START_ROOM_CELLS

ROWS: Final = FARM_ROWS
COLS: Final = FARM_COLS
CELLS: Final = ROWS * COLS
ALL_CELLS: Final = (1 << CELLS) - 1
NUM_EDGES: Final = ROWS * (COLS + 1) + COLS * (ROWS + 1)
#: The two printed wooden rooms, as a mask of spaces (components.START_ROOMS gives them as
#: (row, column)).
START_ROOMS: Final = sum(1 << (COLS * r + c) for r, c in START_ROOM_CELLS)


def h_edge(row: int, col: int) -> int:
    """Bit index of the horizontal edge above ``row`` (0..3) at ``col``."""
    return 5 * row + col


def v_edge(row: int, col: int) -> int:
    """Bit index of the vertical edge left of ``col`` (0..5) in ``row``."""
    return 20 + 6 * row + col


def _cell_edges(cell: int) -> int:
    r, c = divmod(cell, COLS)
    return (
        (1 << h_edge(r, c)) | (1 << h_edge(r + 1, c))
        | (1 << v_edge(r, c)) | (1 << v_edge(r, c + 1))
    )


def _border_edges(cell: int) -> int:
    r, c = divmod(cell, COLS)
    out = 0
    if r == 0:
        out |= 1 << h_edge(0, c)
    if r == ROWS - 1:
        out |= 1 << h_edge(ROWS, c)
    if c == 0:
        out |= 1 << v_edge(r, 0)
    if c == COLS - 1:
        out |= 1 << v_edge(r, COLS)
    return out


def _links(cell: int) -> tuple[tuple[int, int], ...]:
    """(neighbour, bit of the edge between them) for each orthogonal neighbour."""
    r, c = divmod(cell, COLS)
    out = []
    if r > 0:
        out.append((cell - COLS, 1 << h_edge(r, c)))
    if r < ROWS - 1:
        out.append((cell + COLS, 1 << h_edge(r + 1, c)))
    if c > 0:
        out.append((cell - 1, 1 << v_edge(r, c)))
    if c < COLS - 1:
        out.append((cell + 1, 1 << v_edge(r, c + 1)))
    return tuple(out)


_FIRST_COLUMN: Final = sum(1 << (COLS * r) for r in range(ROWS))
_LAST_COLUMN: Final = sum(1 << (COLS * r + COLS - 1) for r in range(ROWS))
#: The four edges of each space.
CELL_EDGES: Final = tuple(_cell_edges(c) for c in range(CELLS))
#: The edges of each space that lie on the board's border.
BORDER_EDGES: Final = tuple(_border_edges(c) for c in range(CELLS))
#: ``LINKS[c]``: (neighbour, edge bit) pairs.
LINKS: Final = tuple(_links(c) for c in range(CELLS))
#: ``NEIGHBOURS[c]``: mask of the orthogonal neighbours of ``c``.
NEIGHBOURS: Final = tuple(sum(1 << n for n, _ in LINKS[c]) for c in range(CELLS))
_BORDER_CELLS: Final = sum(1 << c for c in range(CELLS) if BORDER_EDGES[c])


def cells_of(mask: int) -> list[int]:
    """The spaces of a mask, in increasing order (for a mask of the farm's spaces, a byte at a
    time from tables: farms ask this for their spots at every turn)."""
    if 0 <= mask <= ALL_CELLS:
        return [*_LOW_CELLS[mask & 0xFF], *_HIGH_CELLS[mask >> 8]]
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


#: The spaces of each value of a mask's low byte, and of its high bits (spaces 8 and on).
_LOW_CELLS: Final = tuple(tuple(c for c in range(8) if b >> c & 1) for b in range(256))
_HIGH_CELLS: Final = tuple(tuple(8 + c for c in range(CELLS - 8) if b >> c & 1)
                           for b in range(1 << (CELLS - 8)))


def boundary(mask: int) -> int:
    """The fence edges round a set of spaces (edges inside it cancel out)."""
    out = 0
    for c in cells_of(mask):
        out ^= CELL_EDGES[c]
    return out


def neighbours(mask: int) -> int:
    """The spaces orthogonally next to a set of spaces, outside it (by shifting the whole
    mask a row up and down and a column left and right)."""
    out = (mask << COLS) | (mask >> COLS) | ((mask & ~_LAST_COLUMN) << 1) \
        | ((mask & ~_FIRST_COLUMN) >> 1)
    return out & ALL_CELLS & ~mask


def _spread(seed: int, within: int, fences: int) -> int:
    """Every space of ``within`` reachable from ``seed`` without crossing a fence."""
    reached = seed
    todo = cells_of(seed)
    while todo:
        c = todo.pop()
        for n, e in LINKS[c]:
            if not fences & e and within >> n & 1 and not reached >> n & 1:
                reached |= 1 << n
                todo.append(n)
    return reached


def enclosed(fences: int) -> int:
    """The spaces fenced in: those that cannot reach the outside without crossing a fence."""
    open_border = 0
    for c in cells_of(_BORDER_CELLS):
        if BORDER_EDGES[c] & ~fences:
            open_border |= 1 << c
    return ALL_CELLS & ~_spread(open_border, ALL_CELLS, fences)


@lru_cache(maxsize=1 << 12)
def pastures_of(fences: int) -> tuple[int, ...]:
    """The pastures a fence layout makes: its enclosed regions, as masks, in increasing order.
    Answers are kept: building a pasture asks this, and so does the next search for moves."""
    rest = enclosed(fences)
    out = []
    while rest:
        region = _spread(rest & -rest, rest, fences)
        out.append(region)
        rest &= ~region
    return tuple(sorted(out))


def is_connected(mask: int) -> bool:
    """Whether a non-empty set of spaces is orthogonally connected."""
    return mask != 0 and _spread(mask & -mask, mask, 0) == mask


def draw(fences: int, label: Callable[[int], str]) -> str:
    """A text picture of the farmyard: ``|`` and ``--`` for ``fences``, each space shown by
    ``label(cell)`` (two characters)."""
    lines = []
    for r in range(ROWS + 1):
        lines.append("+" + "+".join(
            "--" if fences >> h_edge(r, c) & 1 else "  " for c in range(COLS)) + "+")
        if r == ROWS:
            break
        row = ""
        for c in range(COLS + 1):
            row += "|" if fences >> v_edge(r, c) & 1 else " "
            if c < COLS:
                row += label(COLS * r + c)
        lines.append(row)
    return "\n".join(lines)


def _shape_table() -> tuple[tuple[int, int, int], ...]:
    """(mask, boundary edges, neighbour mask) of every connected set of spaces outside the
    starting rooms whose perimeter is at most 15 fences. Grown from single spaces by adding one
    neighbour at a time; a connected set of spaces that fits within the perimeter cap can always
    be grown from one of its spaces through connected subsets, so nothing is missed as long as
    the growth itself is not capped (only the final filter uses the perimeter)."""
    free = ALL_CELLS & ~START_ROOMS
    seen: set[int] = set()
    layer = {1 << c for c in cells_of(free)}
    while layer:
        seen |= layer
        nxt: set[int] = set()
        for m in layer:
            grow = neighbours(m) & free
            for c in cells_of(grow):
                m2 = m | (1 << c)
                if m2 not in seen:
                    nxt.add(m2)
        layer = nxt
    table = []
    for m in sorted(seen, key=lambda m: (m.bit_count(), m)):
        b = boundary(m)
        if b.bit_count() <= MAX_FENCES:
            table.append((m, b, neighbours(m)))
    return tuple(table)


#: Every single-pasture shape: (cell mask, boundary edge mask, neighbour mask), smallest first.
SHAPES: Final = _shape_table()
#: The boundary edges of each shape, by mask.
SHAPE_BOUNDARY: Final = {m: b for m, b, _ in SHAPES}

#: The regions that fences could close off without their being built as a pasture: connected
#: sets of inner spaces (row 1, columns 1..3), with their neighbours. A region that touches the
#: border always reaches outside, and one next to a room is never closed (rooms carry no fences).
_HOLES: Final = tuple(
    (m, neighbours(m))
    for m in (1 << 6, 1 << 7, 1 << 8, 0b11 << 6, 0b11 << 7, 0b111 << 6)
)
#: By shape index: the inner spaces the shape closes in by itself (a hole all of whose
#: neighbours it holds), which must hold no room or field.
_CLOSES: Final = tuple(
    sum(hole for hole, around in _HOLES if not hole & m and not around & ~m)
    for m, _, _ in SHAPES
)
#: Every shape index, as a set of bits, and the bytes such a set takes.
_ALL_SHAPES: Final = (1 << len(SHAPES)) - 1
_SHAPE_BYTES: Final = (len(SHAPES) + 7) // 8
#: The set bits of each byte value.
_BYTE_BITS: Final = tuple(tuple(i for i in range(8) if b >> i & 1) for b in range(256))
#: By fence count n: the set of shapes whose whole border is at most n fences.
_PERIMETER_AT_MOST: Final = tuple(
    sum(1 << i for i, (_, b, _) in enumerate(SHAPES) if b.bit_count() <= n)
    for n in range(MAX_FENCES + 1)
)
#: By space: the set of shape indices whose shape holds that space.
_CONTAINING: Final = tuple(
    sum(1 << i for i, (m, _, _) in enumerate(SHAPES) if m >> c & 1) for c in range(CELLS)
)
#: By space: the set of shape indices whose first space (in reading order) it is.
_STARTING_AT: Final = tuple(
    sum(1 << i for i, (m, _, _) in enumerate(SHAPES) if m & -m == 1 << c) for c in range(CELLS)
)
#: By space: the set of shape indices that close it in by themselves (:data:`_CLOSES`).
_CLOSING: Final = tuple(
    sum(1 << i for i, closes in enumerate(_CLOSES) if closes >> c & 1) for c in range(CELLS)
)


def pasture_cost(
    mask: int, fences: int, pastures: tuple[int, ...], blocked: int, budget: int
) -> int:
    """The new fences that building ``mask`` as one pasture costs, or -1 if it is not a legal
    move. ``blocked``: the spaces that may never be fenced in (rooms and fields); ``budget``:
    the most fences the player can place (fences left in supply, capped by wood)."""
    bnd = SHAPE_BOUNDARY.get(mask)
    if bnd is None or mask & blocked:
        return -1
    pastured = 0
    for p in pastures:
        pastured |= p
    return _cost(mask, bnd, neighbours(mask), fences, pastures, pastured, blocked, budget)


def _cost(
    mask: int, bnd: int, nbr: int, fences: int, pastures: tuple[int, ...], pastured: int,
    blocked: int, budget: int,
) -> int:
    if mask & pastured:
        # Subdivision: a proper part of exactly one existing pasture.
        if not any(mask & p == mask and mask != p for p in pastures):
            return -1
    elif pastured and not nbr & pastured:
        return -1  # a new pasture must touch an existing one
    cost = (bnd & ~fences).bit_count()
    if cost > budget:
        return -1
    after = pastured | mask
    for hole, around in _HOLES:
        if not hole & after and not around & ~after and hole & blocked:
            return -1  # the fences would close a field (or room) in
    return cost


def pasture_moves(fences: int, blocked: int, budget: int) -> list[tuple[int, int]]:
    """Every legal "build one pasture" move with these fences (the pastures follow from them),
    as (cell mask, new fences it costs), in table order: see :func:`_move_set`."""
    return moves_of(pasture_move_set(fences, blocked, budget), fences)


def pasture_move_set(fences: int, blocked: int, budget: int) -> int:
    """:func:`pasture_moves` as a set of shape indices (bit i: ``SHAPES[i]``). Answers are kept
    (the same farms recur within a game and across the games of a search)."""
    return _remembered_set(fences, blocked, min(budget, MAX_FENCES))


def moves_of(moves: int, fences: int) -> list[tuple[int, int]]:
    """The (cell mask, new fences it costs) of each shape in the set ``moves``, in table
    order, for a farm with ``fences``."""
    return [(SHAPES[i][0], (SHAPES[i][1] & ~fences).bit_count()) for i in _indices(moves)]


def move_starts(moves: int) -> list[int]:
    """The first spaces (in reading order) of the shapes in the set ``moves``, ascending, each
    once: the first step of a fencing move."""
    return [c for c in range(CELLS) if moves & _STARTING_AT[c]]


def moves_from(moves: int, cell: int) -> list[int]:
    """The masks of the shapes in the set ``moves`` whose first space is ``cell``, in table
    order: the second step of a fencing move."""
    return [SHAPES[i][0] for i in _indices(moves & _STARTING_AT[cell])]


@lru_cache(maxsize=1 << 14)
def _remembered_set(fences: int, blocked: int, budget: int) -> int:
    return _move_set(fences, pastures_of(fences), blocked, budget)


def _move_set(fences: int, pastures: tuple[int, ...], blocked: int, budget: int) -> int:
    """Every legal "build one pasture" move, as a set of shape indices.

    A move is a shape of :data:`SHAPES` that contains no room or field and is either a new
    pasture (next to an existing one, if the player has any) or a proper part of one existing
    pasture (a subdivision: its border becomes fences, and what is left of the old pasture
    becomes one or more pastures). It costs the edges round it not already fenced, which must be
    at most ``budget``. There are never more than the shape table's 762, and in practice far
    fewer once a farm has rooms, fields and pastures; there is no further cap, so no legal
    pasture is ever hidden."""
    if budget <= 0:
        return 0
    pastured = 0
    for p in pastures:
        pastured |= p
    candidates = _candidates(pastured, blocked)
    if not pastured:
        # No fence yet: a shape costs its whole border, and can only close in a space that it
        # surrounds on its own (found with sets of shapes, without testing them one by one).
        return (candidates & _PERIMETER_AT_MOST[min(budget, MAX_FENCES)]
                & ~_any_of(_CLOSING, blocked))
    out = 0
    for i in _indices(candidates):
        mask, bnd, nbr = SHAPES[i]
        if (bnd & ~fences).bit_count() <= budget \
                and _cost(mask, bnd, nbr, fences, pastures, pastured, blocked, budget) > 0:
            out |= 1 << i
    return out


def _candidates(pastured: int, blocked: int) -> int:
    """The set of shape indices (bit i: ``SHAPES[i]``) that could be a move, narrowed down
    before shapes are tested one by one: no room or field; and with pastures, inside them (a
    subdivision) or outside them but touching one."""
    candidates = _ALL_SHAPES & ~_containing_any(blocked)
    if pastured:
        inside = _ALL_SHAPES & ~_containing_any(ALL_CELLS & ~pastured)
        touching = _containing_any(neighbours(pastured)) & ~_containing_any(pastured)
        candidates &= inside | touching
    return candidates


def _indices(shapes: int) -> list[int]:
    """The shape indices in a set of them, in increasing order (table order)."""
    out: list[int] = []
    for k, byte in enumerate(shapes.to_bytes(_SHAPE_BYTES, "little")):
        if byte:
            base = 8 * k
            out.extend(base + i for i in _BYTE_BITS[byte])
    return out


def _containing_any(cells: int) -> int:
    """The set of shape indices (bit i: ``SHAPES[i]``) whose shape holds any of ``cells``."""
    return _any_of(_CONTAINING, cells)


def _any_of(by_cell: tuple[int, ...], cells: int) -> int:
    """The union of ``by_cell[c]`` (sets of shape indices) over the spaces ``c`` of ``cells``."""
    out = 0
    while cells:
        low = cells & -cells
        cells ^= low
        out |= by_cell[low.bit_length() - 1]
    return out


def any_pasture_move(fences: int, pastures: tuple[int, ...], blocked: int, budget: int) -> bool:
    """Whether :func:`pasture_moves` would offer anything, stopping at the first move found
    among the narrowed-down candidates, in table order (when there is none, this tests a few
    shapes instead of the whole table). Without pastures the answer has a closed form: no
    fence exists yet, so every shape costs its whole perimeter, the cheapest being a single
    space (4 fences)."""
    if budget <= 0:
        return False
    if not pastures:
        return budget >= 4 and bool(ALL_CELLS & ~START_ROOMS & ~blocked)
    pastured = 0
    for p in pastures:
        pastured |= p
    candidates = _candidates(pastured, blocked)
    while candidates:
        low = candidates & -candidates
        candidates ^= low
        mask, bnd, nbr = SHAPES[low.bit_length() - 1]
        if (bnd & ~fences).bit_count() <= budget \
                and _cost(mask, bnd, nbr, fences, pastures, pastured, blocked, budget) > 0:
            return True
    return False
