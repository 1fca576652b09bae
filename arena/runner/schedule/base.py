"""What a scheduler produces and consumes: pairings out, game outcomes in.

A scheduler is pure policy: from the tournament's bots, its master seed and the outcomes of the
games finished so far, it says which games to play next. It never runs anything and holds no
state that is not derived from its inputs, so a resumed tournament asks it the same question
and gets the same answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from arena.protocol.messages import Termination
from arena.seeds import derive_seed


@dataclass(frozen=True)
class Pairing:
    """One game to play.

    ``index`` orders all games of a tournament (ratings are applied in this order, whatever
    order games finish in). ``bots`` names the bot in each seat, seat 0 first. Rotations of one
    table share ``table`` and ``seed``: with event-keyed chance every seat then sees the same
    dice whoever sits there (duplicate play).
    """

    game_id: str
    index: int
    round: int
    table: int
    bots: tuple[str, ...]
    seed: int


@dataclass(frozen=True)
class GameOutcome:
    """The result of a finished game: what the journal keeps, and what schedulers, ratings and
    the live view read. Built from a game record by :meth:`GameRecord.outcome
    <arena.runner.record.GameRecord.outcome>`.

    ``ranks`` are final ranks (1 = best; ties share; a failed seat is ranked last).
    ``terminations[s]`` is how seat s's part ended and ``details[s]`` says why, in words
    (empty for a seat that played the whole game).
    """

    game_id: str
    index: int
    round: int
    table: int
    bots: tuple[str, ...]
    seed: int
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    terminations: tuple[Termination, ...]
    details: tuple[str, ...] = ()


__all__ = ["GameOutcome", "Pairing", "Scheduler", "derive_seed", "rotations"]


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


def rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    """The cyclic seat rotations of a table: each bot sits in each seat exactly once."""
    t = tuple(table)
    return [t[i:] + t[:i] for i in range(len(t))]
