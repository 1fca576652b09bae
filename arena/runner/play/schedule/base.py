"""What a scheduler produces and consumes: pairings out, game outcomes in.

A scheduler is pure policy: from the tournament's bots, its master seed and the outcomes of the
games finished so far, it says which games to play next. It never runs anything and holds no
state that is not derived from its inputs, so a resumed tournament asks it the same question
and gets the same answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from arena.results import GameOutcome, Pairing


class Scheduler(Protocol):
    """Yields the tournament's games round by round, or, for a schedule fixed from the start,
    part by part as the runner needs them."""

    @property
    def fixed_total(self) -> int | None:
        """The number of games, for a schedule fixed from the start whatever the outcomes
        (round-robin, gauntlet); None for one paired from the outcomes (Swiss). A fixed
        schedule is issued a part at a time, without waiting for earlier games to finish."""
        ...

    @property
    def planned_total(self) -> int:
        """The games of the whole schedule played to its end: ``fixed_total``, or for Swiss
        its rounds times a round's games (known from the start, though not which games)."""
        ...

    def next_round(self, finished: Sequence[GameOutcome], issued: int = 0) -> list[Pairing] | None:
        """The next games to play, or None when the tournament has no more.

        ``finished`` is every game finished so far and ``issued`` how many games were issued
        before (indices 0 .. issued - 1). A schedule paired from outcomes is asked once every
        issued game has finished and gives its next round; a fixed one reads only ``issued``
        and gives the next part of its one round (a repeat), whatever has finished.

        Deterministic: the same bots, master seed and outcomes (or ``issued``) give the same
        pairings.
        """
        ...

    def describe(self) -> str:
        """One line for the output: what this schedule is (and, for a subset, how balanced)."""
        ...
