"""Round-robin: every combination of bots at tables of a fixed size, in every seat rotation."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from arena.runner.play.schedule.fixed import FixedSchedule, spread

KIND = "round-robin"


class RoundRobin(FixedSchedule):
    """Every combination of ``players`` bots out of ``bots`` plays at one table.

    With ``rotate`` (the default) each table is played once per cyclic seat rotation, the
    rotations sharing the table's seed (duplicate dice), so every bot sits in every seat
    equally often; without it each table is played once, seats chosen to even out each bot's
    seat history. ``rounds`` repeats the whole schedule with fresh seeds. Tables are numbered
    from 1 in a seeded order.

    When the full schedule has more than ``max_games`` games, a balanced subset of whole tables
    is played instead: ``max_games // games per table`` tables, chosen deterministically from
    the seed so that every bot plays the same number of games (differing by at most one table's
    worth when the numbers do not divide) and pair meetings are as even as a local search finds.
    With ``rounds`` > 1, every table is played once before any is played again.

    The schedule is one round (round 1), fixed from the start: ``next_round`` gives it a
    repeat at a time, told how many games were issued, whatever has finished
    (``FixedSchedule``).

    The arguments are trusted: they are a ``ScheduleShape``'s (``schedule.shape``), which
    holds them to the rules (unique names, enough bots for a table, ``max_games`` at least
    one table's games, ...).
    """

    KIND = KIND

    def __init__(
        self,
        bots: Sequence[str],
        players: int,
        seed: int,
        rounds: int = 1,
        rotate: bool = True,
        max_games: int | None = None,
    ) -> None:
        self.bots = tuple(bots)
        self.players, self.seed, self.rounds, self.rotate = players, seed, rounds, rotate
        self.max_games = max_games
        universe = list(combinations(self.bots, self.players))
        self._plan(universe, dict.fromkeys(self.bots, 0))

    def describe(self) -> str:
        """E.g. "round-robin, 7 bots, 4-player tables, 35 tables x 4 rotations = 140 games";
        for a subset, how many tables of how many and the spread of games and meetings."""
        head = f"{KIND}, {len(self.bots)} bots, {self.players}-player tables"
        shape = self._shape()
        if not self.subset:
            return f"{head}, {shape}"
        per_bot, per_pair = self._counts()
        meetings = [per_pair.get(frozenset(p), 0) for p in combinations(self.bots, 2)]
        return (
            f"{head}, {shape}; "
            f"games per bot {spread(per_bot.get(b, 0) for b in self.bots)}; "
            f"meetings per pair {spread(meetings)}"
        )
