"""A tournament's standings as values: each bot's line, the head-to-head records, the seats'
win rates and the TrueSkill parameters they were rated with (:mod:`arena.runner.play.ratings`
computes them; the outputs, the live view and the report render them)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.protocol.messages import FAILURES

#: The TrueSkill parameters in use (:mod:`arena.runner.play.ratings` says why).
TRUESKILL_MU = 25.0
TRUESKILL_SIGMA = TRUESKILL_MU / 3
TRUESKILL_BETA = TRUESKILL_SIGMA / 2
TRUESKILL_TAU = TRUESKILL_SIGMA / 100
TRUESKILL_DRAW_PROBABILITY = 0.01


def rating_parameters() -> dict[str, float]:
    """The TrueSkill parameters as plain data (written into the outputs)."""
    return {
        "mu": TRUESKILL_MU,
        "sigma": TRUESKILL_SIGMA,
        "beta": TRUESKILL_BETA,
        "tau": TRUESKILL_TAU,
        "draw_probability": TRUESKILL_DRAW_PROBABILITY,
    }


@dataclass(frozen=True)
class BotStanding:
    """One bot's line in the standings.

    ``mu``/``sigma`` are its TrueSkill rating over the ``rated_games`` it played among the
    contiguous prefix of game indices; ``conservative`` is ``mu - 3 * sigma``. The other
    numbers count every added game (``games``). ``wins`` counts games it finished first in,
    a shared first place included, without a failure of its own. ``mean_rank`` (1 = best) and
    ``mean_score`` are None before its first game; their standard errors (sample standard
    deviation / sqrt(games)) are None before its second. ``failures`` maps every
    failure reason (:data:`~arena.protocol.messages.FAILURES`) to the number of games in which
    this bot's seat ended with it.
    """

    name: str
    mu: float
    sigma: float
    conservative: float
    games: int
    rated_games: int
    wins: int
    win_rate: float | None
    mean_rank: float | None
    mean_rank_se: float | None
    mean_score: float | None
    mean_score_se: float | None
    failures: dict[str, int]

    @property
    def failure_total(self) -> int:
        """All failures of this bot, every kind together."""
        return sum(self.failures.values())

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-safe data."""
        d = asdict(self)
        d["failures"] = dict(self.failures)
        return d


@dataclass(frozen=True)
class HeadToHead:
    """The record of bot a against bot b over every game in which both sat.

    a beats b in a game when a's rank is better (smaller) than b's; equal ranks are a draw.
    """

    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def to_dict(self) -> dict[str, int]:
        return {"wins": self.wins, "losses": self.losses, "draws": self.draws}


class Crosstable(Mapping[str, dict[str, HeadToHead]]):
    """The head-to-head records of :class:`Standings`, made by ``make`` only when first read:
    a league of a thousand bots has about a million pairs that met, and the standings table,
    the live view and the league's table show none of them.

    ``make`` is called at most once (also by several threads: the first caller makes the
    records, the others wait for them). Whoever hands out a Crosstable keeps what ``make``
    reads unchanged until :meth:`rows` was called (a :class:`~arena.runner.play.ratings.
    RatingTracker` calls it before counting its next game). Compares equal to the plain dict
    of its records and pickles as that dict."""

    def __init__(self, make: Callable[[], dict[str, dict[str, HeadToHead]]]) -> None:
        self._make: Callable[[], dict[str, dict[str, HeadToHead]]] | None = make
        self._rows: dict[str, dict[str, HeadToHead]] = {}
        self._lock = threading.Lock()

    def rows(self) -> dict[str, dict[str, HeadToHead]]:
        """The records as a plain dict (made now if they were not yet)."""
        with self._lock:
            if self._make is not None:
                self._rows, self._make = self._make(), None
            return self._rows

    def __getitem__(self, bot: str) -> dict[str, HeadToHead]:
        return self.rows()[bot]

    def __iter__(self) -> Iterator[str]:
        return iter(self.rows())

    def __len__(self) -> int:
        return len(self.rows())

    def __contains__(self, bot: object) -> bool:
        return bot in self.rows()

    def __repr__(self) -> str:
        return f"Crosstable({self.rows()!r})"

    def __reduce__(self) -> tuple[type[dict[str, dict[str, HeadToHead]]],
                                  tuple[dict[str, dict[str, HeadToHead]]]]:
        return dict, (self.rows(),)


@dataclass(frozen=True)
class SeatStats:
    """How the bot in one seat fared: ``wins`` of ``games`` (a shared first place counts)."""

    seat: int
    games: int
    wins: int

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "games": self.games, "wins": self.wins,
                "win_rate": self.win_rate}


@dataclass
class Standings:
    """The tournament's standings at one moment.

    ``bots`` is sorted by conservative rating (best first), then mu, then name.
    ``crosstable[a][b]`` is a's record against b, present exactly for the ordered pairs that
    met at least once (so ``crosstable[b][a]`` mirrors it); a plain dict or a
    :class:`Crosstable`, which makes the records when first read. ``seat_stats[s]`` describes seat s
    (seat 0 first) over every game that had that seat. ``games`` counts every added outcome,
    ``rated_games`` those the ratings include (the contiguous prefix of indices).
    """

    bots: list[BotStanding]
    crosstable: Mapping[str, Mapping[str, HeadToHead]]
    seat_stats: list[SeatStats]
    games: int
    rated_games: int
    rating: dict[str, float] = field(default_factory=rating_parameters)

    def bot(self, name: str) -> BotStanding:
        """The standing of the bot called ``name``; KeyError if there is none."""
        for b in self.bots:
            if b.name == name:
                return b
        raise KeyError(name)

    def head_to_head(self, a: str, b: str) -> HeadToHead:
        """a's record against b (all zero if they never met)."""
        return self.crosstable.get(a, {}).get(b, HeadToHead())

    def failure_totals(self) -> dict[str, int]:
        """Failures of all bots together, per kind (every kind present)."""
        return {k: sum(b.failures[k] for b in self.bots) for k in FAILURES}

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-safe data: lists, dicts with string keys, numbers, strings, None."""
        return {
            "games": self.games,
            "rated_games": self.rated_games,
            "rating": dict(self.rating),
            "bots": [b.to_dict() for b in self.bots],
            "crosstable": {
                a: {b: h.to_dict() for b, h in row.items()} for a, row in self.crosstable.items()
            },
            "seats": [s.to_dict() for s in self.seat_stats],
        }
