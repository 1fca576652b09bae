"""Placement: the players put their people on the board, one place per turn.

See RULES.md for who may use which place and how often.
"""

from __future__ import annotations

from arena.engine.stoneage.components import (
    CARD0,
    FIELD,
    HUNT,
    HUT,
    MAX_AGRICULTURE,
    MAX_PEOPLE,
    MAX_TOOL_STEP,
    NUM_PLACES,
    PILE0,
    PILE_SIZE,
    RESOURCE_PLACE_CAPACITY,
    TOOL_MAKER,
)
from arena.engine.stoneage.moves import PLACE_KEYS, PLACE_RUNS
from arena.engine.stoneage.phases import RESOLUTION, Key
from arena.engine.stoneage.state_base import StoneAgeStateBase

#: RESOURCE_RUNS[place][total][people] is the keys for putting 1..m people on resource place
#: ``place`` (1..4) holding ``total`` people already, for a seat with ``people`` to place: m is
#: what is left of the place's room, or ``people`` if fewer.
RESOURCE_RUNS: tuple[tuple[tuple[tuple[Key, ...], ...], ...], ...] = tuple(
    tuple(
        tuple(runs[min(a, RESOURCE_PLACE_CAPACITY - t)] for a in range(len(runs)))
        for t in range(RESOURCE_PLACE_CAPACITY + 1)
    )
    for runs in PLACE_RUNS
)
_TOOL_MAKER_BIT = 1 << TOOL_MAKER
_HUT_BIT = 1 << HUT
_FIELD_BIT = 1 << FIELD
#: A mask of the tool maker, the hut, the field, the card slots and the building piles (bit q:
#: place q) -> the keys of placing on those places (see :func:`placement_tail`).
_TAILS: dict[int, tuple[Key, ...]] = {}


def placement_tail(mask: int) -> tuple[Key, ...]:
    """The keys of placing on the places of ``mask``, in place order: one person on the tool
    maker, two in the hut, one on the field, one on each card slot and building pile. The
    same tuple for every call with ``mask``."""
    got = _TAILS.get(mask)
    if got is None:
        got = _TAILS[mask] = tuple(PLACE_KEYS[q][2 if q == HUT else 1]
                                   for q in range(TOOL_MAKER, NUM_PLACES) if mask >> q & 1)
    return got


class PlacementRules(StoneAgeStateBase):
    """Whose turn it is to place, and where they may."""

    __slots__ = ()

    def _open_buy_places(self) -> int:
        """The card slots that hold a card and the building piles that hold a building, with
        nobody on them, as a mask of places (bit q: place q; ``_open_buys``)."""
        total = self._total
        display = self._display
        pile_pos = self._pile_pos
        mask = 0
        for i in range(4):
            if display[i] >= 0 and not total[CARD0 + i]:
                mask |= 1 << (CARD0 + i)
        for j in range(self._n):
            if pile_pos[j] < PILE_SIZE and not total[PILE0 + j]:
                mask |= 1 << (PILE0 + j)
        return mask

    def _place(self, p: int, key: Key) -> None:
        """Seat ``p`` places ``key[2]`` people on place ``key[1]``; the next seat's turn."""
        place = key[1]
        k = key[2]
        self._placed[p * NUM_PLACES + place] = k
        self._where[p] |= 1 << place
        self._total[place] += k
        self._players_at[place] += 1
        self._avail[p] -= k
        if place >= CARD0:  # a card slot or a pile takes one person: it is no longer open
            self._open_buys &= ~(1 << place)
        self._next_placer((p + 1) % self._n)

    def _next_placer(self, first: int) -> None:
        """Give the turn to the first player from ``first`` on who can still place."""
        n = self._n
        avail = self._avail
        for i in range(n):
            p = (first + i) % n
            if avail[p]:
                moves = self._placements(p)
                if moves:
                    self._cur = p
                    self._moves = moves
                    return
                avail[p] = 0  # no legal place is left for their people: they stay home
        self._phase = RESOLUTION
        self._turn = 0
        self._next_resolver()

    def _placements(self, p: int) -> list[Key]:
        """Legal placements for seat ``p`` (who has people left): the hunt (1 to all of their
        people), each resource place in place order (1 to as many as it takes), then the tool
        maker, the hut, the field and the open card slots and piles. The same keys in parts,
        each a tuple that recurs (the same object) in other decisions, are kept in ``_parts``
        for :meth:`legal_key_parts`."""
        a = self._avail[p]
        base = p * NUM_PLACES
        placed = self._placed
        total = self._total
        n = self._n
        hunt = () if placed[base] else PLACE_RUNS[HUNT][a]
        if n == 4:
            r1 = () if placed[base + 1] else RESOURCE_RUNS[1][total[1]][a]
            r2 = () if placed[base + 2] else RESOURCE_RUNS[2][total[2]][a]
            r3 = () if placed[base + 3] else RESOURCE_RUNS[3][total[3]][a]
            r4 = () if placed[base + 4] else RESOURCE_RUNS[4][total[4]][a]
        else:  # fewer seats: a resource place takes people of at most n - 1 of them
            at = self._players_at
            full = n - 1
            r1 = () if placed[base + 1] or at[1] >= full else RESOURCE_RUNS[1][total[1]][a]
            r2 = () if placed[base + 2] or at[2] >= full else RESOURCE_RUNS[2][total[2]][a]
            r3 = () if placed[base + 3] or at[3] >= full else RESOURCE_RUNS[3][total[3]][a]
            r4 = () if placed[base + 4] or at[4] >= full else RESOURCE_RUNS[4][total[4]][a]
        mask = self._open_buys
        if n == 4 or (total[TOOL_MAKER] > 0) + (total[HUT] > 0) + (total[FIELD] > 0) < 2:
            if not total[TOOL_MAKER] and self._step[p] < MAX_TOOL_STEP:
                mask |= _TOOL_MAKER_BIT
            if not total[HUT] and a >= 2 and self._people[p] < MAX_PEOPLE:
                mask |= _HUT_BIT
            if not total[FIELD] and self._agri[p] < MAX_AGRICULTURE:
                mask |= _FIELD_BIT
        rest = _TAILS.get(mask) or placement_tail(mask)
        self._parts = (hunt, r1, r2, r3, r4, rest)
        return [*hunt, *r1, *r2, *r3, *r4, *rest]
