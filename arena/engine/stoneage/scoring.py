"""Scoring: the final score by source, the tie-break, the result, and read-only figures for
search code that evaluates positions without building observations."""

from __future__ import annotations

from arena.engine.api import GameResult, competition_ranks
from arena.engine.stoneage.components import (
    CARDS,
    FARMER,
    FEEDING_PENALTY,
    HUT_BUILDER,
    SHAMAN,
    SYMBOLS,
    TOOL_MAKER_FIG,
    TOOL_VALUES,
)
from arena.engine.stoneage.phases import OVER
from arena.engine.stoneage.state_base import StoneAgeStateBase


class Scoring(StoneAgeStateBase):
    """Scores, tie-break and the game's result."""

    __slots__ = ()

    def _breakdown(self, p: int) -> dict[str, int]:
        """Seat ``p``'s score by source; at the end of the game, its final score."""
        symbols = [0] * len(SYMBOLS)
        figures = [0, 0, 0, 0]
        for cid in self._cards[p] + self._hidden[p]:
            card = CARDS[cid]
            if card.symbol >= 0:
                symbols[card.symbol] += 1
            else:
                figures[card.figure] += card.figures
        first = sum(1 for c in symbols if c >= 1)
        second = sum(1 for c in symbols if c >= 2)
        b = p * 5
        g = self._goods
        return {
            "buildings": self._build_pts[p],
            "card_points": self._top_pts[p],
            "feeding_penalty": -FEEDING_PENALTY * self._penalties[p],
            "civilization_green": first * first + second * second,
            "farmers": figures[FARMER] * self._agri[p],
            "tool_makers": figures[TOOL_MAKER_FIG] * sum(TOOL_VALUES[self._step[p]]),
            "hut_builders": figures[HUT_BUILDER] * self._nbuild[p],
            "shamans": figures[SHAMAN] * self._people[p],
            "resources": g[b + 1] + g[b + 2] + g[b + 3] + g[b + 4] + 2 * self._any2[p],
        }

    # ------------------------------------------------------------------ read-only accessors
    # For search code that evaluates positions without building observations.
    def goods(self, p: int) -> tuple[int, int, int, int, int]:
        """Seat ``p``'s food, wood, clay, stone and gold."""
        b = p * 5
        g = self._goods
        return (g[b], g[b + 1], g[b + 2], g[b + 3], g[b + 4])

    def people(self, p: int) -> int:
        return self._people[p]

    def agriculture(self, p: int) -> int:
        return self._agri[p]

    def running_score(self, p: int) -> int:
        """The score track during play: buildings, card points and feeding penalties."""
        return self._build_pts[p] + self._top_pts[p] - FEEDING_PENALTY * self._penalties[p]

    def scores_so_far(self) -> tuple[int, ...]:
        """The score track of every seat (final scoring adds the cards' bottoms and goods)."""
        return tuple(self.running_score(p) for p in range(self._n))

    def breakdown_so_far(self) -> tuple[dict[str, int], ...]:
        """Every seat's score by source if the game ended now: the score track's parts and
        what final scoring would add (the cards' bottoms, the goods)."""
        return tuple(self._breakdown(p) for p in range(self._n))

    def tiebreak(self, p: int) -> int:
        """Agriculture + permanent tool values + people (ruling 11)."""
        return self._agri[p] + sum(TOOL_VALUES[self._step[p]]) + self._people[p]

    def result(self) -> GameResult:
        if self._phase != OVER:
            raise RuntimeError("the game is not over yet")
        breakdown = tuple(self._breakdown(p) for p in range(self._n))
        scores = tuple(sum(b.values()) for b in breakdown)
        tiebreak = tuple(self.tiebreak(p) for p in range(self._n))
        ranks = competition_ranks(list(zip(scores, tiebreak, strict=True)))
        return GameResult(scores, ranks, breakdown, tiebreak)
