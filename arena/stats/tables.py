"""Tables of any size: how often each bot finished ahead of each other, and what each seat is
worth.

**Head to head.** For bots A and B, every game in which both sat counts once: A ahead (a
better rank), B ahead, or level (a shared rank). Level games are left out of the proportion
and of the test, as a sign test does, and reported beside them: the question is which of the
two finishes ahead when one does. The proportion of A ahead gets a Wilson 95% interval and
an exact two-sided sign test (H0: each is ahead half the time).

Both treat the games as independent trials. The games of one duplicate set are not: they
share their dice, and with seat rotation that makes the luck of a deal cancel within the set,
so counting its games as independent overstates the variance (the reason the two-player
figures count pairs) and the intervals and p-values here err on the cautious side. The
Plackett–Luce intervals resample whole sets instead.

**Seats.** For each table size, each seat's win rate (a first place, shared or not, without
a failure of its own, as the standings count wins) with a Wilson interval, and its mean score
and mean rank with normal 95% intervals (mean +- 1.96 s / sqrt(n)). With seat rotation every
bot sits in every seat equally often, so a seat's figures differ from the table's average
(win rate 1/k, mean rank (k + 1) / 2) only by the seat's advantage and chance.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.protocol.messages import Termination
from arena.results import GameOutcome
from arena.stats.common import Interval, mean_interval, sign_test, wilson


@dataclass(frozen=True)
class HeadToHead:
    """Bot ``a`` against bot ``b`` over every game in which both sat."""

    a: str
    b: str
    ahead: int
    behind: int
    level: int

    @property
    def games(self) -> int:
        return self.ahead + self.behind + self.level

    @property
    def decided(self) -> int:
        """The games in which one of the two finished ahead of the other."""
        return self.ahead + self.behind

    @property
    def share(self) -> float | None:
        """How often A finished ahead when one of the two did (None if never)."""
        return self.ahead / self.decided if self.decided else None

    def interval(self) -> Interval:
        """The Wilson 95% interval of :attr:`share`."""
        return wilson(self.ahead, self.decided)

    @property
    def p_value(self) -> float:
        """The exact two-sided sign test of ahead against behind."""
        return sign_test(self.ahead, self.behind)

    def flipped(self) -> HeadToHead:
        """The same record from B's side."""
        return HeadToHead(self.b, self.a, self.behind, self.ahead, self.level)

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "games": self.games, "ahead": self.ahead,
                "behind": self.behind, "level": self.level, "share": self.share,
                "interval": self.interval().to_list(), "p_value": self.p_value}


def head_to_head(outcomes: Iterable[GameOutcome], bots: Sequence[str]) -> list[HeadToHead]:
    """Every pair of ``bots`` that met, A before B in the order of ``bots`` (a bot not in it
    is ignored)."""
    order = {b: i for i, b in enumerate(bots)}
    counts: dict[tuple[int, int], list[int]] = {}
    # Games alike in seating and ranks counted at once: a large journal repeats them.
    for (table, ranks), times in Counter((o.bots, o.ranks) for o in outcomes).items():
        seated = [(order[b], r) for b, r in zip(table, ranks, strict=True) if b in order]
        seated.sort()
        for x in range(len(seated)):
            i, ri = seated[x]
            for y in range(x + 1, len(seated)):
                j, rj = seated[y]
                c = counts.get((i, j))
                if c is None:
                    c = counts[(i, j)] = [0, 0, 0]
                c[0 if ri < rj else 1 if ri > rj else 2] += times
    return [HeadToHead(bots[i], bots[j], *counts[(i, j)]) for i, j in sorted(counts)]


@dataclass(frozen=True)
class SeatFigures:
    """One seat at tables of ``players``: its games, wins, and score and rank sums."""

    players: int
    seat: int
    games: int
    wins: int
    score_sum: int
    score_squares: int
    rank_sum: int
    rank_squares: int

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None

    def win_interval(self) -> Interval:
        return wilson(self.wins, self.games)

    @property
    def mean_score(self) -> float | None:
        return mean_interval(self.games, self.score_sum, self.score_squares)[0]

    def score_interval(self) -> Interval | None:
        return mean_interval(self.games, self.score_sum, self.score_squares)[1]

    @property
    def mean_rank(self) -> float | None:
        return mean_interval(self.games, self.rank_sum, self.rank_squares)[0]

    def rank_interval(self) -> Interval | None:
        return mean_interval(self.games, self.rank_sum, self.rank_squares)[1]

    def to_dict(self) -> dict[str, Any]:
        si, ri = self.score_interval(), self.rank_interval()
        return {"players": self.players, "seat": self.seat, "games": self.games,
                "wins": self.wins, "win_rate": self.win_rate,
                "win_interval": self.win_interval().to_list(),
                "mean_score": self.mean_score,
                "score_interval": None if si is None else si.to_list(),
                "mean_rank": self.mean_rank,
                "rank_interval": None if ri is None else ri.to_list()}


def seats(outcomes: Iterable[GameOutcome]) -> list[SeatFigures]:
    """Every seat of every table size played, by table size, then seat."""
    sums: dict[tuple[int, int], list[int]] = {}
    for o in outcomes:
        k = len(o.bots)
        for s in range(k):
            c = sums.get((k, s))
            if c is None:
                c = sums[(k, s)] = [0] * 6
            rank, score = o.ranks[s], o.scores[s]
            c[0] += 1
            c[1] += rank == 1 and o.terminations[s] == Termination.OK
            c[2] += score
            c[3] += score * score
            c[4] += rank
            c[5] += rank * rank
    return [SeatFigures(k, s, *sums[(k, s)]) for k, s in sorted(sums)]
