"""Schedules fixed from the start whatever the outcomes (round-robin, gauntlet): the tables of
a universe played in repeats, or a balanced subset of them, issued a repeat at a time."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Sequence
from itertools import combinations

from arena.results import GameOutcome, Pairing
from arena.runner.play.schedule.seats import SeatBalancer, issue
from arena.runner.play.schedule.subset import balanced_subset
from arena.seeds import derive_seed


def spread(values: Iterable[int]) -> str:
    vals = list(values)
    return f"{min(vals)}-{max(vals)}" if vals else "0-0"


def bot_and_pair_counts(
    tables: Iterable[tuple[Sequence[str], int]],
) -> tuple[dict[str, int], dict[frozenset[str], int]]:
    """Games per bot and games per pair of bots that shared a table, from ``(bots, games)``:
    each table's bots and how many games it is played."""
    games: dict[str, int] = {}
    meets: dict[frozenset[str], int] = {}
    for bots, n in tables:
        for b in bots:
            games[b] = games.get(b, 0) + n
        for a, b in combinations(bots, 2):
            key = frozenset((a, b))
            meets[key] = meets.get(key, 0) + n
    return games, meets


def shape_text(tables: str, players: int, rotate: bool, games: int) -> str:
    """E.g. "35 tables x 4 rotations = 140 games" for ``tables`` "35 tables"."""
    if rotate:
        return f"{tables} x {players} rotations = {games} games"
    return f"{tables} x 1 game (seats balanced) = {games} games"


class FixedSchedule:
    """A schedule fixed from the start, whatever the outcomes: the tables of ``universe``
    played ``rounds`` times (repeats), or a balanced subset of that when it has more than
    ``max_games`` games.

    Only the tables of one repeat are held (and the subset's, computed once); the pairings of a
    repeat are derived when asked for, so memory does not grow with ``rounds``. All pairings
    are of round 1 (the schedule is one round however it is issued): table numbers, indices and
    seeds run on through the repeats, and the ids name the repeat and the table in it:
    r002-t0003-s1 is repeat 2's third table, tables put in a seeded order per repeat.

    The subset is ``max_games // games per table`` whole tables: as many full repeats of the
    universe as fit, then one ``balanced_subset`` (see there for ``classes``) as the last.
    """

    KIND: str
    players: int
    seed: int
    rounds: int
    rotate: bool
    max_games: int | None
    #: Whether a subset of the full schedule is played (``max_games``).
    subset: bool
    #: Tables in one repeat of the universe.
    tables_total: int
    #: Repeats played (the last one partial for a subset), and their tables in all.
    repeats: int
    tables: int
    #: The schedule's games (the protocol's: this schedule is fixed from the start).
    fixed_total: int

    @property
    def planned_total(self) -> int:
        """The protocol's: the schedule's games, all known from the start."""
        return self.fixed_total

    def _plan(self, universe: Sequence[tuple[str, ...]], classes: dict[str, int]) -> None:
        """Choose the repeats' tables: whole repeats of ``universe``, and for a subset a last,
        partial one."""
        self._universe = list(universe)
        self.tables_total = len(self._universe)
        self._per_table = self.players if self.rotate else 1
        full = self.rounds * self.tables_total * self._per_table
        self.subset = self.max_games is not None and full > self.max_games
        self._last: list[tuple[str, ...]] = []
        if self.max_games is not None and self.subset:
            self._whole, part = divmod(self.max_games // self._per_table, self.tables_total)
            if part:
                rng = random.Random(derive_seed(self.seed, self.KIND, "subset"))
                self._last = balanced_subset(self._universe, part, classes, rng)
        else:
            self._whole = self.rounds
        self.repeats = self._whole + (1 if self._last else 0)
        self.tables = self._whole * self.tables_total + len(self._last)
        self.fixed_total = self.tables * self._per_table
        # Seats without rotation depend on every earlier seating: the balancer as it stands
        # after the first ``_seated`` repeats.
        self._balancer = SeatBalancer()
        self._seated = 0

    def _issue_repeat(self, rep: int) -> list[Pairing]:
        """Repeat ``rep``'s pairings (1 = the first), with the balancer (without rotation) as
        it stands after the repeats before it; updates it."""
        order = list(self._universe if rep <= self._whole else self._last)
        random.Random(derive_seed(self.seed, self.KIND, "order", rep)).shuffle(order)
        before = (rep - 1) * self.tables_total  # tables of earlier repeats (all full ones)
        pairings = issue(
            ((1, before + k, t) for k, t in enumerate(order, start=1)),
            rotate=self.rotate,
            seed=self.seed,
            kind=self.KIND,
            first_index=before * self._per_table,
            balancer=self._balancer,
        )
        return [
            dataclasses.replace(
                p, game_id=f"r{rep:03d}-t{p.table - before:04d}-s{p.game_id.rsplit('-s', 1)[1]}"
            )
            for p in pairings
        ]

    def repeat(self, rep: int) -> list[Pairing]:
        """The pairings of repeat ``rep`` (1 = the first, up to ``repeats``). In order the
        repeats cost one repeat's work each; out of order, without rotation, the seatings of
        the repeats before are derived again."""
        if not 1 <= rep <= self.repeats:
            raise ValueError(f"no repeat {rep}: the schedule has {self.repeats}")
        if self.rotate:
            return self._issue_repeat(rep)
        if self._seated >= rep:
            self._balancer, self._seated = SeatBalancer(), 0
        while True:
            pairings = self._issue_repeat(self._seated + 1)
            self._seated += 1
            if self._seated == rep:
                return pairings

    def _shape(self) -> str:
        """How many tables, rotations and games; for a subset, of how many tables."""
        if self.subset:
            label = (f"balanced subset: {self.tables} of {self.rounds * self.tables_total} "
                     f"tables (max_games {self.max_games})")
        elif self.rounds > 1:
            label = f"{self.rounds} rounds x {self.tables_total} tables"
        else:
            label = f"{self.tables} tables"
        return shape_text(label, self.players, self.rotate, self.fixed_total)

    def _counts(self) -> tuple[dict[str, int], dict[frozenset[str], int]]:
        """Games per bot and per pair of bots over the whole schedule."""
        return bot_and_pair_counts(
            [(t, self._whole * self._per_table) for t in self._universe]
            + [(t, self._per_table) for t in self._last]
        )

    def pairings(self) -> list[Pairing]:
        """The whole schedule, every repeat in order (for small schedules: it is all held)."""
        return [p for rep in range(1, self.repeats + 1) for p in self.repeat(rep)]

    def next_round(self, finished: Sequence[GameOutcome], issued: int = 0) -> list[Pairing] | None:
        """The games from index ``issued`` to the end of its repeat, or None when ``issued``
        covers the schedule. ``finished`` is not read: the schedule is fixed."""
        if issued >= self.fixed_total:
            return None
        rep = issued // (self.tables_total * self._per_table) + 1
        return [p for p in self.repeat(rep) if p.index >= issued]
