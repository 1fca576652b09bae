"""Gauntlet: one or more candidate bots, each against every combination of a field."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from arena.runner.play.schedule.fixed import FixedSchedule, spread

KIND = "gauntlet"


class Gauntlet(FixedSchedule):
    """Every table holds exactly one candidate and ``players - 1`` bots of the field.

    For each candidate, every combination of ``players - 1`` field bots makes a table, so
    candidates never meet each other. With ``rotate`` (the default) each table is played once
    per cyclic seat rotation, the rotations sharing the table's seed; without it, once, seats
    chosen to even out seat histories. ``rounds`` repeats the schedule with fresh seeds; tables
    are numbered from 1 in a seeded order.

    Over ``max_games``, a balanced subset of whole tables is played, as for the round-robin:
    candidates play equally often, field bots play equally often (each within one table's
    worth), and candidate-field and field-field meetings are as even as a local search finds.

    The schedule is one round (round 1), fixed from the start: ``next_round`` gives it a
    repeat at a time, told how many games were issued (``FixedSchedule``).

    The arguments are trusted: they are a ``ScheduleShape``'s (``schedule.shape``), which
    holds them to the rules (a field that fills a table besides a candidate, ``max_games``
    at least one table's games, ...).
    """

    KIND = KIND

    def __init__(
        self,
        candidates: Sequence[str],
        field: Sequence[str],
        players: int,
        seed: int,
        rounds: int = 1,
        rotate: bool = True,
        max_games: int | None = None,
    ) -> None:
        self.candidates, self.field = tuple(candidates), tuple(field)
        self.players, self.seed, self.rounds, self.rotate = players, seed, rounds, rotate
        self.max_games = max_games
        universe = [
            (c, *others)
            for c in self.candidates
            for others in combinations(self.field, self.players - 1)
        ]
        classes = {**dict.fromkeys(self.candidates, 0), **dict.fromkeys(self.field, 1)}
        self._plan(universe, classes)

    def describe(self) -> str:
        """E.g. "gauntlet, 1 candidate vs 6 field bots, 3-player tables, 15 tables x 3
        rotations = 45 games"; for a subset, also the spread of games and meetings."""
        n_c = len(self.candidates)
        head = (
            f"{KIND}, {n_c} candidate{'' if n_c == 1 else 's'} vs {len(self.field)} field "
            f"bots, {self.players}-player tables"
        )
        shape = self._shape()
        if not self.subset:
            return f"{head}, {shape}"
        per_bot, per_pair = self._counts()
        versus = [per_pair.get(frozenset((c, f)), 0) for c in self.candidates for f in self.field]
        text = (
            f"{head}, {shape}; "
            f"games per candidate {spread(per_bot.get(c, 0) for c in self.candidates)}; "
            f"games per field bot {spread(per_bot.get(f, 0) for f in self.field)}; "
            f"meetings per candidate-field pair {spread(versus)}"
        )
        if self.players > 2:
            among = [per_pair.get(frozenset(p), 0) for p in combinations(self.field, 2)]
            text += f"; meetings per field pair {spread(among)}"
        return text
