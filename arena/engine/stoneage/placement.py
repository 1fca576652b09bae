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


class PlacementRules(StoneAgeStateBase):
    """Whose turn it is to place, and where they may."""

    __slots__ = ()

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
        for place in (1, 2, 3, 4):
            t = total[place]
            if placed[base + place] or t >= RESOURCE_PLACE_CAPACITY:
                continue
            if n < 4 and self._players_at[place] >= n - 1:
                continue
            room = RESOURCE_PLACE_CAPACITY - t
            moves += PLACE_RUNS[place][a if a < room else room]
        if n == 4 or (total[TOOL_MAKER] > 0) + (total[HUT] > 0) + (total[FIELD] > 0) < 2:
            if not total[TOOL_MAKER] and self._step[p] < MAX_TOOL_STEP:
                moves.append(PLACE_KEYS[TOOL_MAKER][1])
            if not total[HUT] and a >= 2 and self._people[p] < MAX_PEOPLE:
                moves.append(PLACE_KEYS[HUT][2])
            if not total[FIELD] and self._agri[p] < MAX_AGRICULTURE:
                moves.append(PLACE_KEYS[FIELD][1])
        display = self._display
        for i in range(4):
            if display[i] >= 0 and not total[CARD0 + i]:
                moves.append(PLACE_KEYS[CARD0 + i][1])
        pile_pos = self._pile_pos
        for j in range(n):
            if pile_pos[j] < PILE_SIZE and not total[PILE0 + j]:
                moves.append(PLACE_KEYS[PILE0 + j][1])
        return moves
