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
from arena.engine.stoneage.moves import KEY_FORMS, PLACE_KEYS, PLACE_RUNS
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
_TOOL_MAKER_KEY = PLACE_KEYS[TOOL_MAKER][1]
_HUT_KEY = PLACE_KEYS[HUT][2]
_FIELD_KEY = PLACE_KEYS[FIELD][1]


class PlacementRules(StoneAgeStateBase):
    """Whose turn it is to place, and where they may."""

    __slots__ = ()

    def _open_buy_places(self) -> tuple[Key, ...]:
        """The keys of placing one person on each card slot and building pile that has a
        card or a building and nobody on it, in place order (``_open_buys``)."""
        total = self._total
        display = self._display
        pile_pos = self._pile_pos
        return tuple(
            [PLACE_KEYS[CARD0 + i][1] for i in range(4)
             if display[i] >= 0 and not total[CARD0 + i]]
            + [PLACE_KEYS[PILE0 + j][1] for j in range(self._n)
               if pile_pos[j] < PILE_SIZE and not total[PILE0 + j]]
        )

    def _place(self, p: int, key: Key) -> None:
        """Seat ``p`` places people on a place by a placement's ``key``; the next seat's
        turn."""
        _, place, k = KEY_FORMS[key]
        self._placed[p * NUM_PLACES + place] = k
        self._where[p] |= 1 << place
        self._total[place] += k
        self._players_at[place] += 1
        self._avail[p] -= k
        if place >= CARD0:  # a card slot or a pile takes one person: it is no longer open
            # the place's only placement is of one person: this key
            self._open_buys = tuple([o for o in self._open_buys if o != key])
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
        """Legal placements for seat ``p`` (who has people left)."""
        a = self._avail[p]
        base = p * NUM_PLACES
        placed = self._placed
        total = self._total
        n = self._n
        moves: list[Key] = [] if placed[base] else list(PLACE_RUNS[HUNT][a])
        if n == 4:
            for place in (1, 2, 3, 4):
                if not placed[base + place]:
                    moves += RESOURCE_RUNS[place][total[place]][a]
        else:
            at = self._players_at
            for place in (1, 2, 3, 4):
                if not placed[base + place] and at[place] < n - 1:
                    moves += RESOURCE_RUNS[place][total[place]][a]
        if n == 4 or (total[TOOL_MAKER] > 0) + (total[HUT] > 0) + (total[FIELD] > 0) < 2:
            if not total[TOOL_MAKER] and self._step[p] < MAX_TOOL_STEP:
                moves.append(_TOOL_MAKER_KEY)
            if not total[HUT] and a >= 2 and self._people[p] < MAX_PEOPLE:
                moves.append(_HUT_KEY)
            if not total[FIELD] and self._agri[p] < MAX_AGRICULTURE:
                moves.append(_FIELD_KEY)
        moves += self._open_buys
        return moves

