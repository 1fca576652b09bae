"""A player's farmyard: 3 rows × 5 columns of rooms, fields, pastures and stables.

:class:`Farm` is small and cheap to copy (a handful of ints and two shared tuples): rooms,
fields and stables are 15-bit masks of spaces, fences a 38-bit mask of edges (geometry in
:mod:`arena.engine.agricola.pastures`), the pastures a tuple of masks recomputed only when fences
change, and the sown crops a tuple of 15 small ints. Animals are not kept here: the player's
animal counts live in the game state, and the farm answers whether they fit
(:meth:`Farm.fits`) and, when they do not, which maximal sets can be kept
(:meth:`Farm.keep_options`). Rulings are in ``RULES.md`` beside this file.

Every mutating method checks its move and raises :class:`ValueError` without changing anything
if it is illegal; the ``*_spots`` and ``pasture_moves`` methods list exactly the legal ones.
"""

from __future__ import annotations

from typing import Any, Final, Self

from arena.engine.agricola.components import (
    HOUSE_CLAY,
    HOUSE_MATERIALS,
    HOUSE_PETS,
    HOUSE_STONE,
    HOUSE_WOOD,
    MAX_STABLES,
    SOWN_GRAIN,
    SOWN_VEGETABLE,
    Cost,
    renovation_cost,
    room_cost,
)
from arena.engine.agricola.herds import (
    Herd,
    capacity_frontier,
    fits,
    keep_options,
    pasture_capacity,
)
from arena.engine.agricola.pastures import (
    ALL_CELLS,
    CELLS,
    MAX_FENCES,
    NUM_EDGES,
    START_ROOMS,
    any_pasture_move,
    cells_of,
    draw,
    is_connected,
    move_starts,
    moves_from,
    moves_of,
    neighbours,
    pasture_cost,
    pasture_move_set,
    pastures_of,
)
from arena.engine.agricola.pastures import boundary as shape_boundary

#: What a field holds, in this module's own numbering (not the goods' numbering of
#: :mod:`~arena.engine.agricola.components`): nothing, grain or vegetables.
GRAIN, VEGETABLE = 1, 2
CROPS: Final = ("", "grain", "vegetable")
#: Crops a sown field holds: the one taken from supply plus the ones added (3 grain, 2 vegetables).
SOWN: Final = (0, SOWN_GRAIN, SOWN_VEGETABLE)
#: The bits of :meth:`Farm.openings`: a room, a stable or a field could go somewhere; a field
#: is empty.
ROOM_SPOT, STABLE_SPOT, PLOUGH_SPOT, EMPTY_FIELD = 1, 2, 4, 8


class Farm:
    """One player's farmyard. See the module docstring for the representation."""

    __slots__ = ("_cap", "_fence_ok", "_fences", "_fields", "_material", "_moves", "_open",
                 "_pastured", "_pastures", "_rooms", "_sown", "_stables")

    _rooms: int
    _fields: int
    _stables: int
    _fences: int
    _pastures: tuple[int, ...]
    _pastured: int
    _sown: tuple[int, ...]
    _material: int
    _cap: tuple[Herd, ...] | None
    _fence_ok: tuple[int, int] | None
    _moves: tuple[int, int] | None
    _open: int | None

    def __init__(self) -> None:
        """The starting farm: two wooden rooms, nothing else."""
        self._rooms = START_ROOMS
        self._fields = 0
        self._stables = 0
        self._fences = 0
        self._pastures = ()
        self._pastured = 0
        self._sown = (0,) * CELLS
        self._material = HOUSE_WOOD
        self._cap = None
        self._fence_ok = None
        self._moves = None
        self._open = None

    def copy(self) -> Farm:
        """An independent copy (tuples are immutable, so they are shared)."""
        f = Farm.__new__(Farm)
        f._rooms = self._rooms
        f._fields = self._fields
        f._stables = self._stables
        f._fences = self._fences
        f._pastures = self._pastures
        f._pastured = self._pastured
        f._sown = self._sown
        f._material = self._material
        f._cap = self._cap
        f._fence_ok = self._fence_ok
        f._moves = self._moves
        f._open = self._open
        return f

    def _key(self) -> tuple[Any, ...]:
        return (self._rooms, self._fields, self._stables, self._fences, self._sown,
                self._material)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Farm) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    # --- what the farm holds (the scorer's accessors) -----------------------------------------

    @property
    def material(self) -> int:
        """The house material: :data:`HOUSE_WOOD`, :data:`HOUSE_CLAY` or :data:`HOUSE_STONE`."""
        return self._material

    @property
    def rooms(self) -> int:
        """Mask of the room spaces."""
        return self._rooms

    @property
    def fields(self) -> int:
        """Mask of the field spaces."""
        return self._fields

    @property
    def stables(self) -> int:
        """Mask of the spaces with a stable."""
        return self._stables

    @property
    def fences(self) -> int:
        """Mask of the fenced edges."""
        return self._fences

    @property
    def pastures(self) -> tuple[int, ...]:
        """The pastures, each a mask of spaces, in increasing order."""
        return self._pastures

    def pastured(self) -> int:
        """Mask of every space inside a pasture."""
        return self._pastured

    def num_rooms(self) -> int:
        return self._rooms.bit_count()
    homes = num_rooms  # the people the house holds (card mode's CardFarm may add places)

    def clay_rooms(self) -> int:
        return self.num_rooms() if self._material == HOUSE_CLAY else 0

    def stone_rooms(self) -> int:
        return self.num_rooms() if self._material == HOUSE_STONE else 0

    def num_fields(self) -> int:
        return self._fields.bit_count()

    def num_pastures(self) -> int:
        return len(self._pastures)

    def num_stables(self) -> int:
        return self._stables.bit_count()

    def stables_left(self) -> int:
        return MAX_STABLES - self.num_stables()

    def fenced_stables(self) -> int:
        """Stables inside pastures (1 bonus point each at the end)."""
        return (self._stables & self.pastured()).bit_count()

    def unfenced_stables(self) -> int:
        return (self._stables & ~self.pastured()).bit_count()

    def fences_built(self) -> int:
        return self._fences.bit_count()

    def fences_left(self) -> int:
        return MAX_FENCES - self.fences_built()

    def used(self) -> int:
        """Mask of the used spaces: room, field, stable or fenced."""
        return self._rooms | self._fields | self._stables | self.pastured()

    def unused_spaces(self) -> int:
        """Spaces with no room, field, stable or fence round them (−1 point each)."""
        return CELLS - self.used().bit_count()

    def empty(self) -> int:
        """Mask of the empty spaces: nothing on them and not fenced in."""
        return ALL_CELLS & ~self.used()

    def crop(self, cell: int) -> tuple[int, int]:
        """(crop, count) on a space: (:data:`GRAIN` or :data:`VEGETABLE`, n), or (0, 0)."""
        v = self._sown[cell]
        return (GRAIN, v) if v > 0 else (VEGETABLE, -v) if v < 0 else (0, 0)

    def grain_in_fields(self) -> int:
        return sum(v for v in self._sown if v > 0)

    def vegetables_in_fields(self) -> int:
        return -sum(v for v in self._sown if v < 0)

    def empty_fields(self) -> list[int]:
        """Fields with nothing sown on them, which a Sow action may fill."""
        return [c for c in cells_of(self._fields) if not self._sown[c]]

    # --- rooms and renovation -----------------------------------------------------------------

    def room_spots(self) -> list[int]:
        """Empty spaces orthogonally next to the house, where a room may go."""
        return cells_of(self.room_mask())

    def room_mask(self) -> int:
        """:meth:`room_spots` as a mask."""
        return neighbours(self._rooms) & self.empty()

    def room_cost(self) -> Cost:
        """What one more room costs, as (wood, clay, reed, stone): 5 of the house's material
        and 2 reed."""
        return room_cost(self._material)

    def build_room(self, cell: int) -> None:
        if cell not in self.room_spots():
            raise ValueError(f"no room may go on space {cell}")
        self._rooms |= 1 << cell
        self._fence_ok = self._moves = self._open = None

    def can_renovate(self) -> bool:
        return self._material < HOUSE_STONE

    def renovation_cost(self) -> Cost:
        """What renovating the whole house one step costs, as (wood, clay, reed, stone): 1 of
        the new material per room and 1 reed."""
        if not self.can_renovate():
            raise ValueError("a stone house cannot be renovated")
        return renovation_cost(self._material, self.num_rooms())

    def renovate(self) -> None:
        if not self.can_renovate():
            raise ValueError("a stone house cannot be renovated")
        self._material += 1

    # --- fields -------------------------------------------------------------------------------

    def plough_spots(self) -> list[int]:
        """The first field anywhere empty; later ones on an empty space next to a field."""
        return cells_of(self.plough_mask())

    def plough_mask(self) -> int:
        """:meth:`plough_spots` as a mask."""
        if not self._fields:
            return self.empty()
        return neighbours(self._fields) & self.empty()

    def has_empty_field(self) -> bool:
        """Whether some field has nothing sown on it."""
        sown = self._sown
        return any(not sown[c] for c in cells_of(self._fields))

    def openings(self) -> int:
        """Which of :meth:`room_mask`, :meth:`stable_mask` and :meth:`plough_mask` are not
        empty, and whether :meth:`has_empty_field`, as :data:`ROOM_SPOT` | ... bits. Kept until
        rooms, fields, crops, stables or fences change (a copy shares it): placement asks it
        for several spaces at every turn."""
        o = self._open
        if o is None:
            o = ((ROOM_SPOT if self.room_mask() else 0) | (STABLE_SPOT if self.stable_mask() else 0)
                 | (PLOUGH_SPOT if self.plough_mask() else 0)
                 | (EMPTY_FIELD if self.has_empty_field() else 0))
            self._open = o
        return o

    def plough(self, cell: int) -> None:
        if cell not in self.plough_spots():
            raise ValueError(f"space {cell} cannot be ploughed")
        self._fields |= 1 << cell
        self._fence_ok = self._moves = self._open = None

    def sow(self, cell: int, crop: int) -> None:
        """Sow one grain or vegetable from supply on an empty field (the caller pays it)."""
        if cell not in self.empty_fields() or crop not in (GRAIN, VEGETABLE):
            raise ValueError(f"cannot sow {crop} on space {cell}")
        sown = list(self._sown)
        sown[cell] = SOWN[crop] if crop == GRAIN else -SOWN[crop]
        self._sown = tuple(sown)
        self._open = None

    def harvest(self) -> tuple[int, int]:
        """The harvest's field phase: one crop from every sown field; returns (grain, veg)."""
        grain = sum(1 for v in self._sown if v > 0)
        veg = sum(1 for v in self._sown if v < 0)
        if grain or veg:
            self._sown = tuple(v - 1 if v > 0 else v + 1 if v < 0 else 0 for v in self._sown)
            self._open = None
        return grain, veg

    # --- stables ------------------------------------------------------------------------------

    def stable_spots(self) -> list[int]:
        """Spaces a stable may go on: empty or in a pasture, without a stable (none if all four
        are built)."""
        return cells_of(self.stable_mask())

    def stable_mask(self) -> int:
        """:meth:`stable_spots` as a mask."""
        if self.num_stables() >= MAX_STABLES:
            return 0
        return (self.empty() | self.pastured()) & ~self._stables

    def build_stable(self, cell: int) -> None:
        if cell not in self.stable_spots():
            raise ValueError(f"no stable may go on space {cell}")
        self._stables |= 1 << cell
        self._cap = self._open = None

    # --- fences and pastures ------------------------------------------------------------------

    def pasture_moves(self, wood: int) -> list[tuple[int, int]]:
        """Every legal "build one pasture" move, as (cell mask, fences it costs), for a player
        with ``wood`` wood (1 per fence) and this farm's fences left. See
        :func:`arena.engine.agricola.pastures.pasture_moves`."""
        return moves_of(self._move_set(wood), self._fences)

    def pasture_starts(self, wood: int) -> list[int]:
        """The first spaces (in reading order) of the :meth:`pasture_moves`, ascending, each
        once."""
        return move_starts(self._move_set(wood))

    def pastures_from(self, cell: int, wood: int) -> list[int]:
        """The masks of the :meth:`pasture_moves` whose first space is ``cell``, in the same
        order."""
        return moves_from(self._move_set(wood), cell)

    def _move_set(self, wood: int) -> int:
        """The legal pasture moves as a set of shape indices. The last answer is kept until
        rooms, fields or fences change (a copy shares it): the steps of a fencing move ask it
        again and again."""
        budget = min(wood, self.fences_left())
        if self._moves is None or self._moves[0] != budget:
            self._moves = (budget, pasture_move_set(self._fences, self._rooms | self._fields,
                                                    budget))
        return self._moves[1]

    def can_fence(self, wood: int) -> bool:
        """Whether a player with ``wood`` wood could build at least one pasture now. A larger
        budget only allows more, so the farm keeps the largest budget known to allow nothing
        and the smallest known to allow a pasture, until rooms, fields or fences change (a copy
        shares them): cheap enough to ask for every placement."""
        budget = min(wood, self.fences_left())
        none_up_to, some_from = self._fence_ok or (0, MAX_FENCES + 1)
        if budget <= none_up_to:
            return False
        if budget >= some_from:
            return True
        ok = any_pasture_move(self._fences, self._pastures, self._rooms | self._fields, budget)
        self._fence_ok = (none_up_to, budget) if ok else (budget, some_from)
        return ok

    def pasture_cost(self, mask: int, wood: int) -> int:
        """The fences (and wood) building ``mask`` as one pasture costs, or -1 if illegal."""
        budget = min(wood, self.fences_left())
        return pasture_cost(mask, self._fences, self._pastures, self._rooms | self._fields, budget)

    def build_pasture(self, mask: int, wood: int = MAX_FENCES) -> int:
        """Fence ``mask`` in as one pasture; returns the fences used (the wood to pay)."""
        cost = self.pasture_cost(mask, wood)
        if cost <= 0:
            raise ValueError(f"spaces {cells_of(mask)} cannot be built as a pasture")
        self._fences |= shape_boundary(mask)
        self._pastures = pastures_of(self._fences)
        self._pastured = sum(self._pastures)  # disjoint masks: their sum is their union
        self._cap = self._open = None
        self._fence_ok = self._moves = None
        return cost

    # --- animals ------------------------------------------------------------------------------

    def pasture_capacity(self, pasture: int) -> int:
        """2 animals per space, doubled for each stable in the pasture."""
        return pasture_capacity(pasture, self._stables)

    def flexible_slots(self) -> int:
        """Places holding one animal of any type: each unfenced stable, and the pet in the house."""
        return self.unfenced_stables() + HOUSE_PETS

    def capacity_frontier(self) -> tuple[Herd, ...]:
        """:func:`~arena.engine.agricola.herds.capacity_frontier` of the pastures. Cached until
        pastures or stables change; a copy shares the cache."""
        if self._cap is None:
            self._cap = capacity_frontier(self._pastures, self._stables)
        return self._cap

    def fits(self, sheep: int, boar: int, cattle: int) -> bool:
        """Whether these animals can all be kept (pastures, unfenced stables, the pet)."""
        return fits(self.capacity_frontier(), self.flexible_slots(), sheep, boar, cattle)

    def keep_options(self, sheep: int, boar: int, cattle: int) -> list[Herd]:
        """:func:`~arena.engine.agricola.herds.keep_options` of this farm: what to keep when
        the animals do not all fit."""
        return keep_options(self.capacity_frontier(), self.flexible_slots(), sheep, boar, cattle)

    # --- plain data and pictures --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-friendly data; pastures are derived from the fences and not stored. A
        field is [space, crop, count], the crop None on an empty field."""
        return {
            "house": HOUSE_MATERIALS[self._material],
            "rooms": cells_of(self._rooms),
            "fields": [[c, CROPS[k] or None, n] for c in cells_of(self._fields)
                       for k, n in (self.crop(c),)],
            "stables": cells_of(self._stables),
            "fences": [e for e in range(NUM_EDGES) if self._fences >> e & 1],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Self:
        """The farm :meth:`to_dict` described; raises ValueError on an impossible farm."""
        f = cls()
        f._material = HOUSE_MATERIALS.index(d["house"])
        f._rooms = sum(1 << c for c in d["rooms"])
        sown = [0] * CELLS
        fields = 0
        for c, crop, n in d["fields"]:
            crop = crop or ""  # an empty field is saved with no crop (None)
            if crop not in CROPS or not 0 <= n <= SOWN[CROPS.index(crop)] or (not crop and n):
                raise ValueError(f"impossible crop {crop!r} × {n} on space {c}")
            fields |= 1 << c
            sown[c] = n if crop == "grain" else -n
        f._fields = fields
        f._sown = tuple(sown)
        f._stables = sum(1 << c for c in d["stables"])
        f._fences = sum(1 << e for e in d["fences"])
        f._pastures = pastures_of(f._fences)
        f._pastured = sum(f._pastures)
        f._check()
        return f

    def _check(self) -> None:
        """Raise ValueError unless the farm is one the rules can reach."""
        pastured = self.pastured()
        enclosing = 0  # the fences round each pasture: any other encloses nothing
        for p in self._pastures:
            enclosing |= shape_boundary(p)
        problems = [
            (self._rooms & START_ROOMS != START_ROOMS, "a starting room is missing"),
            (bool(self._rooms & self._fields), "a room on a field"),
            (bool((self._rooms | self._fields) & self._stables), "a stable on a room or field"),
            (bool((self._rooms | self._fields) & pastured), "a room or field fenced in"),
            (self.num_stables() > MAX_STABLES, "more than 4 stables"),
            (self.fences_built() > MAX_FENCES, "more than 15 fences"),
            (self._fences != enclosing, "a fence that encloses nothing"),
            # with the starting rooms there (checked first), joined rooms join the house
            (not is_connected(self._rooms), "rooms not joined to the house"),
            (bool(self._fields) and not is_connected(self._fields), "fields not joined together"),
            (bool(pastured) and not is_connected(pastured), "pastures not joined together"),
        ]
        for bad, why in problems:
            if bad:
                raise ValueError(f"impossible farm: {why}")

    def picture(self) -> str:
        """A text picture: ``|`` and ``--`` fences; ``Rw``/``Rc``/``Rs`` rooms by material,
        ``G3``/``V2``/``F.`` fields (grain, vegetables, bare), ``St`` stables, ``..`` the rest."""
        return draw(self._fences, self._label)

    def _label(self, cell: int) -> str:
        bit = 1 << cell
        if self._rooms & bit:
            return "R" + HOUSE_MATERIALS[self._material][0]
        if self._fields & bit:
            kind, n = self.crop(cell)
            return f"{CROPS[kind][0].upper()}{n}" if kind else "F."
        return "St" if self._stables & bit else ".."

    def __repr__(self) -> str:
        return f"Farm(\n{self.picture()}\n)"

