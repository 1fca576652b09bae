"""What a schedule is before any scheduler is built: its format, bots and table settings,
held to every rule a schedule has, and how many games it holds.

Each rule of a schedule is checked here and nowhere else. The tournament file's parser (and
with it the command line's overrides, which go through the parser) and ``make_scheduler``
build a :class:`ScheduleShape`; the schedulers are built from one and trust their arguments.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

FORMATS = ("round-robin", "swiss", "gauntlet")
MIN_PLAYERS = 2
MAX_PLAYERS = 4
#: The most games one schedule may have: beyond this, a typo (rounds = 1e9) more likely than
#: a plan, and the schedule would not fit in memory.
MAX_SCHEDULE_GAMES = 1_000_000


class ScheduleError(ValueError):
    """A schedule that cannot be made: ``field`` names the setting at fault as a tournament
    file spells it, ``problem`` says why. The message is ``'field' problem``."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"'{field}' {problem}")
        self.field = field
        self.problem = problem


def schedule_size(fmt: str, bots: int, candidates: int, players: int, rounds: int,
                  rotation: bool | None) -> int:
    """How many games a schedule of this shape has before ``max_games``: ``bots`` counts
    every bot, candidates included; ``rotation`` None is the format's default."""
    rotate = rotation if rotation is not None else fmt != "swiss"
    per_table = players if rotate else 1
    if fmt == "swiss":
        return rounds * -(-bots // players) * per_table
    if fmt == "gauntlet":
        tables = candidates * math.comb(bots - candidates, players - 1)
    else:
        tables = math.comb(bots, players)
    return rounds * tables * per_table


@dataclass(frozen=True)
class ScheduleShape:
    """A schedule's settings, valid by construction: building one raises
    :class:`ScheduleError` for the first rule they break.

    ``format`` is one of :data:`FORMATS`. ``bots`` names every bot, candidates included (a
    gauntlet's field is ``bots`` minus ``candidates``, in order); names are unique. Tables
    seat ``players`` (2..4), and the bots fill one (a gauntlet's field fills one besides its
    candidate). ``rounds`` >= 1 repeats a round-robin or gauntlet, or counts a Swiss
    tournament's rounds. ``seat_rotation`` None is the format's default (see :attr:`rotate`).
    ``max_games`` (not for Swiss) caps the schedule at a balanced subset, at least one
    table's games. Only a gauntlet has ``candidates``, and it needs them. The schedule holds
    at most :data:`MAX_SCHEDULE_GAMES` games.
    """

    format: str
    bots: tuple[str, ...]
    players: int
    rounds: int = 1
    seat_rotation: bool | None = None
    max_games: int | None = None
    candidates: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Lists are accepted and kept as tuples, so that a shape is hashable and frozen.
        object.__setattr__(self, "bots", _names("bots", self.bots))
        object.__setattr__(self, "candidates", _names("candidates", self.candidates))
        if self.format not in FORMATS:
            raise ScheduleError("format", f"must be one of {', '.join(FORMATS)}, "
                                          f"got {self.format!r}")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ScheduleError("players", f"must be {MIN_PLAYERS}..{MAX_PLAYERS}, "
                                           f"got {self.players}")
        if self.rounds < 1:
            raise ScheduleError("rounds", f"must be >= 1, got {self.rounds}")
        self._check_tables()
        self._check_size()

    def _check_tables(self) -> None:
        """The bots fill the tables: a gauntlet's candidates among them with a field to play,
        any other format's without candidates."""
        if self.format != "gauntlet":
            if self.candidates:
                raise ScheduleError("candidates", f"only a gauntlet has candidates, "
                                                  f"not a {self.format}")
            if len(self.bots) < self.players:
                raise ScheduleError("bots", f"{len(self.bots)} bots cannot fill a table of "
                                            f"{self.players}")
            return
        if not self.candidates:
            raise ScheduleError("candidates", "are required for a gauntlet: the bots the "
                                              "field plays")
        missing = [c for c in self.candidates if c not in self.bots]
        if missing:
            raise ScheduleError("candidates", f"{', '.join(missing)} not among the bots "
                                              f"({', '.join(self.bots)})")
        if len(self.field) < self.players - 1:
            raise ScheduleError("players", f"{self.players} needs a field of at least "
                                           f"{self.players - 1} bots besides the candidates; "
                                           f"there are {len(self.field)}")

    def _check_size(self) -> None:
        """``max_games`` applies and holds a table's games; the schedule is not too large."""
        if self.max_games is not None:
            if self.format == "swiss":
                raise ScheduleError("max_games", "does not apply to a swiss tournament: its "
                                                 "size is 'rounds'")
            if self.max_games < self.games_per_table:
                raise ScheduleError("max_games", f"must be at least {self.games_per_table} "
                                                 f"(one table's games), got {self.max_games}")
        if self.size > MAX_SCHEDULE_GAMES:
            raise ScheduleError("rounds", f"this schedule would have {self.size:,} games, more "
                                          f"than the {MAX_SCHEDULE_GAMES:,} a tournament may "
                                          "have; lower 'rounds' or set 'max_games'")

    @property
    def rotate(self) -> bool:
        """Whether each table is played in every seat rotation: ``seat_rotation``, or by
        default yes, except for Swiss (one game a table, seats balanced over the rounds)."""
        return self.seat_rotation if self.seat_rotation is not None else self.format != "swiss"

    @property
    def field(self) -> tuple[str, ...]:
        """The bots that are not candidates, in the order given."""
        return tuple(b for b in self.bots if b not in self.candidates)

    @property
    def games_per_table(self) -> int:
        return self.players if self.rotate else 1

    @property
    def size(self) -> int:
        """The schedule's games when played to its end (``max_games`` at most)."""
        full = schedule_size(self.format, len(self.bots), len(self.candidates), self.players,
                             self.rounds, self.seat_rotation)
        return full if self.max_games is None else min(full, self.max_games)


def _names(field: str, names: Any) -> tuple[str, ...]:
    """``names`` as a tuple of distinct, non-empty strings."""
    if isinstance(names, str):
        raise ScheduleError(field, f"must be a list of bot names, not the string {names!r}")
    if not isinstance(names, Sequence) or not all(isinstance(n, str) and n for n in names):
        raise ScheduleError(field, "must be a list of bot names")
    twice = sorted(n for n, k in Counter(names).items() if k > 1)
    if twice:
        raise ScheduleError(field, f"names must be unique; twice: {', '.join(twice)}")
    return tuple(names)
