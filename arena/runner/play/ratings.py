"""Ratings and statistics of a tournament: TrueSkill from finishing orders, plus plain counts.

Input is a stream of :class:`~arena.results.GameOutcome`; output is a
:class:`Standings` value (sorted bot standings, a crosstable and per-seat win rates) that the
live view and the output files render.

Order independence. Games finish in whatever order the workers happen to finish them, but a
TrueSkill update depends on the ratings before it, so :class:`RatingTracker` applies rating
updates strictly in increasing ``GameOutcome.index`` order: an outcome that arrives before an
earlier game has finished waits in a buffer until the gap is filled. The plain statistics
(games, wins, ranks, scores, failures, crosstable, seats) are order independent by nature and
count every added outcome at once. While games are still buffered the ratings therefore cover
only the contiguous prefix ``0..rated_games-1`` while the statistics cover ``games`` outcomes;
once every index is in, both cover the same games and the standings are exactly (bit for bit)
those of the games added in index order. The statistics are computed from integer sums, so
their floats do not depend on the order either.

TrueSkill environment (the ``trueskill`` package's update with these parameters, computed by
:mod:`arena.runner.play.trueskill_update` bit for bit as a private ``trueskill.TrueSkill``
instance computes it; the package's module-level global environment is never set, read or
used):

- ``mu = 25``, ``sigma = 25/3``, ``beta = sigma/2``, ``tau = sigma/100``: the published
  defaults. The conservative rating ``mu - 3 sigma`` of a new bot is therefore 0.
- ``draw_probability = 0.01`` instead of the default 0.10. Ties share a rank and are rated as
  draws, but in Stone Age they are rare: the final order uses the game's tie-break, and in 200
  four-player games between random players not one of the 600 neighbouring places was shared.
  The draw probability sets the draw margin, which also makes every win worth slightly less;
  a value near the observed tie rate keeps wins fully informative. It must stay above zero: with
  a zero draw margin TrueSkill cannot rate a tie at all (its draw update divides by zero), and
  ties do happen (an exact tie on score and tie-break, or two forfeits sharing last place).

Ties share ratings exactly: TrueSkill's chain of players makes tied players come out a hair
apart depending on their order, so a game with ties is rated for every order of the tied
players and the results averaged (see ``RatingTracker._rate``).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from arena.protocol.messages import FAILURES, Termination
from arena.results import GameOutcome
from arena.runner.play.meetings import Meetings, split_records
from arena.runner.play.standings import (
    TRUESKILL_MU,
    TRUESKILL_SIGMA,
    BotStanding,
    SeatStats,
    Standings,
)
from arena.runner.play.trueskill_update import rate, readback

#: Every termination reason (an outcome naming another is rejected).
_REASONS = frozenset(Termination)
#: A new bot's rating, as it reads.
_INITIAL = readback(TRUESKILL_MU, TRUESKILL_SIGMA)


def tie_orders(o: GameOutcome) -> Iterator[list[int]]:
    """The seats of ``o`` in rank order, once for every order of the seats within each tie
    (the first with each tie in seat order): the tables :class:`RatingTracker` rates a game
    as."""
    by_rank: dict[int, list[int]] = {}
    for seat in sorted(range(len(o.bots)), key=lambda s: (o.ranks[s], s)):
        by_rank.setdefault(o.ranks[seat], []).append(seat)
    for orders in itertools.product(*(itertools.permutations(g) for g in by_rank.values())):
        yield [s for group in orders for s in group]


@dataclass
class _Tally:
    """Order-independent counts of one bot (integer sums so means are exact)."""

    games: int = 0
    wins: int = 0
    rank_sum: int = 0
    rank_sq: int = 0
    score_sum: int = 0
    score_sq: int = 0
    failures: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAILURES, 0))


def _mean_and_se(n: int, total: int, squares: int) -> tuple[float | None, float | None]:
    """Mean and standard error of the mean from n, the sum and the sum of squares.

    Computed from exact integers (true division of ints is correctly rounded), so the result
    does not depend on the order the values were summed in.
    """
    if n == 0:
        return None, None
    mean = total / n
    if n < 2:
        return mean, None
    # sample variance / n = (n*sumsq - sum^2) / (n^2 (n-1)), numerator >= 0 exactly
    return mean, math.sqrt((n * squares - total * total) / (n * n * (n - 1)))


class RatingTracker:
    """Accumulates game outcomes into ratings and statistics.

    ``bots`` names every bot of the tournament (each gets a line in the standings, even
    before its first game). Ratings are updated in increasing ``index`` order from 0 with no
    gap (an outcome waits in a buffer until every earlier index has been added); statistics
    count each outcome as soon as it is added. See the module docstring.
    """

    def __init__(self, bots: Sequence[str]) -> None:
        names = list(bots)
        if len(set(names)) != len(names):
            raise ValueError(f"bot names must be unique, got {names}")
        self._bots = names
        # Each rating as it reads (mu, sigma): TrueSkill keeps a precision and a precision
        # times mean, so a rating made of a mu and sigma may read back a last bit apart.
        self._ratings: dict[str, tuple[float, float]] = dict.fromkeys(names, _INITIAL)
        # The mu and sigma each rating was made from: a checkpoint keeps these.
        self._made: dict[str, tuple[float, float]] = dict.fromkeys(
            names, (TRUESKILL_MU, TRUESKILL_SIGMA))
        self._rated_games: dict[str, int] = dict.fromkeys(names, 0)
        self._tally: dict[str, _Tally] = {b: _Tally() for b in names}
        self._h2h = Meetings()
        for b in names:
            self._h2h.add_bot(b)
        self._seats: list[list[int]] = []  # per seat: [games, wins]
        # Every index added is either rated (0.._next_index-1) or pending.
        self._pending: dict[int, GameOutcome] = {}
        self._next_index = 0
        #: If a list: each game rated is appended with its seats' new (mu, sigma) as made.
        self.log: list[tuple[GameOutcome, list[tuple[float, float]]]] | None = None

    def add_bot(self, name: str) -> None:
        """Give a bot that joins later (a league's) its line, with the initial rating; a bot
        already known is left as it is."""
        if name in self._tally:
            return
        self._bots.append(name)
        self._ratings[name] = _INITIAL
        self._made[name] = (TRUESKILL_MU, TRUESKILL_SIGMA)
        self._rated_games[name] = 0
        self._tally[name] = _Tally()
        self._h2h.add_bot(name)

    @property
    def bots(self) -> list[str]:
        """Its bots, in the order the crosstable lists them."""
        return list(self._bots)

    @property
    def games(self) -> int:
        """Outcomes added so far."""
        return self._next_index + len(self._pending)

    @property
    def rated_games(self) -> int:
        """Outcomes the ratings include: indices 0..rated_games-1."""
        return self._next_index

    @property
    def pending(self) -> list[int]:
        """Indices added but not yet rated (waiting for an earlier index), ascending."""
        return sorted(self._pending)

    def rating(self, bot: str) -> tuple[float, float]:
        """``bot``'s mu and sigma now: cheaper than :meth:`standings` when only the rating
        is wanted after every game."""
        return self._ratings[bot]

    def counts(self, bot: str) -> tuple[int, dict[str, int]]:
        """``bot``'s games counted and its failures by reason: cheaper than :meth:`standings`
        when only these are wanted."""
        t = self._tally[bot]
        return t.games, dict(t.failures)

    def add(self, outcome: GameOutcome) -> None:
        """Count one finished game.

        Raises ValueError, leaving the tracker unchanged, if the index was already added or
        is negative, a bot is unknown or sits twice, the per-seat tuples differ in length,
        there are fewer than two seats, or a termination reason is unknown.
        """
        self._validate(outcome)
        self._count(outcome)
        self._pending[outcome.index] = outcome
        while self._next_index in self._pending:
            self._rate(self._pending.pop(self._next_index))
            self._next_index += 1

    def add_all(self, outcomes: Iterable[GameOutcome]) -> None:
        """:meth:`add` each outcome in turn."""
        for o in outcomes:
            self.add(o)

    def _validate(self, o: GameOutcome) -> None:
        where = f"game {o.game_id!r} (index {o.index})"
        if o.index < 0:
            raise ValueError(f"{where}: a negative index")
        if o.index < self._next_index or o.index in self._pending:
            raise ValueError(f"{where}: index {o.index} was already added")
        n = len(o.bots)
        if n < 2:
            raise ValueError(f"{where}: a game needs at least two seats")
        if not len(o.scores) == len(o.ranks) == len(o.terminations) == n:
            raise ValueError(f"{where}: bots, scores, ranks and terminations differ in length")
        unknown = [b for b in o.bots if b not in self._tally]
        if unknown:
            raise ValueError(f"{where}: unknown bot(s) {unknown}")
        if len(set(o.bots)) != n:
            raise ValueError(f"{where}: a bot sits more than once ({list(o.bots)})")
        bad = [t for t in o.terminations if t not in _REASONS]
        if bad:
            raise ValueError(f"{where}: unknown termination reason(s) {bad}")

    def _count(self, o: GameOutcome) -> None:
        while len(self._seats) < len(o.bots):
            self._seats.append([0, 0])
        for s, bot in enumerate(o.bots):
            rank, score = o.ranks[s], o.scores[s]
            # A forfeited seat never wins, even when every seat failed and all share rank 1.
            won = rank == 1 and o.terminations[s] == Termination.OK
            t = self._tally[bot]
            t.games += 1
            t.wins += won
            t.rank_sum += rank
            t.rank_sq += rank * rank
            t.score_sum += score
            t.score_sq += score * score
            if o.terminations[s] != Termination.OK:
                t.failures[o.terminations[s]] += 1
            self._seats[s][0] += 1
            self._seats[s][1] += won
        self._h2h.count(o)

    def _rate(self, o: GameOutcome) -> None:
        # TrueSkill chains the players in rank order and a tie links two neighbours of that
        # chain, so tied players come out very slightly apart (~1e-5 in mu) depending on which
        # one is first. To make a shared rank give a shared update, a game with ties is rated
        # once for every order of the players within each tie, and each player's mu and sigma
        # are averaged over those orders (fsum: the result does not depend on the summation
        # order). Without ties this is exactly one plain TrueSkill update.
        mus: list[list[float]] = [[] for _ in o.bots]
        sigmas: list[list[float]] = [[] for _ in o.bots]
        for seats in tie_orders(o):
            rated = rate([self._ratings[o.bots[s]] for s in seats], [o.ranks[s] for s in seats])
            for s, (mu, sigma) in zip(seats, rated, strict=True):
                mus[s].append(mu)
                sigmas[s].append(sigma)
        self._apply(o, [(math.fsum(mus[s]) / len(mus[s]), math.fsum(sigmas[s]) / len(mus[s]))
                        for s in range(len(o.bots))])

    def _apply(self, o: GameOutcome, made: Sequence[tuple[float, float]]) -> None:
        """Give each seat of ``o`` its new rating, made of its (mu, sigma)."""
        for bot, (mu, sigma) in zip(o.bots, made, strict=True):
            self._ratings[bot] = readback(mu, sigma)
            self._made[bot] = (mu, sigma)
            self._rated_games[bot] += 1
        if self.log is not None:
            self.log.append((o, [self._made[b] for b in o.bots]))

    def add_rated(self, outcome: GameOutcome, made: Sequence[tuple[float, float]]) -> bool:
        """:meth:`add` the next game to rate (its index is :attr:`rated_games`, none
        pending) with its seats' new ratings as rating it made them (a rating history's),
        without rating it again: True. False, the tracker unchanged, for another game."""
        if outcome.index != self._next_index or self._pending or len(made) != len(outcome.bots):
            return False
        self._validate(outcome)
        self._count(outcome)
        self._apply(outcome, made)
        self._next_index += 1
        return True

    def standings(self) -> Standings:
        """The standings now (a fresh value; later adds do not change it)."""
        lines = []
        for name in self._bots:
            (mu, sigma), t = self._ratings[name], self._tally[name]
            mean_rank, rank_se = _mean_and_se(t.games, t.rank_sum, t.rank_sq)
            mean_score, score_se = _mean_and_se(t.games, t.score_sum, t.score_sq)
            lines.append(BotStanding(
                name=name,
                mu=mu,
                sigma=sigma,
                conservative=mu - 3 * sigma,
                games=t.games,
                rated_games=self._rated_games[name],
                wins=t.wins,
                win_rate=t.wins / t.games if t.games else None,
                mean_rank=mean_rank,
                mean_rank_se=rank_se,
                mean_score=mean_score,
                mean_score_se=score_se,
                failures=dict(t.failures),
            ))
        lines.sort(key=lambda b: (-b.conservative, -b.mu, b.name))
        crosstable = self._h2h.crosstable(self._bots)  # made when first read
        seats = [SeatStats(seat=s, games=g, wins=w) for s, (g, w) in enumerate(self._seats)]
        return Standings(bots=lines, crosstable=crosstable, seat_stats=seats,
                         games=self.games, rated_games=self.rated_games)


    # ------------------------------------------------------------------ checkpoints
    @property
    def size(self) -> int:
        """How many entries its state has (bots, met pairs, pending games)."""
        return len(self._bots) + self._h2h.pairs + len(self._pending)

    def state(self) -> str:
        """Everything the standings and later adds need, as compact JSON text (a journal's
        rating checkpoint): :meth:`from_state` makes the same tracker again, bit for bit."""
        at = {b: i for i, b in enumerate(self._bots)}
        t, h2h = self._tally, self._h2h.rows()
        return json.dumps({
            "version": STATE_VERSION, "bots": self._bots,
            "made": [self._made[b] for b in self._bots],
            "rated": [self._rated_games[b] for b in self._bots],
            "tally": [[t[b].games, t[b].wins, t[b].rank_sum, t[b].rank_sq, t[b].score_sum,
                       t[b].score_sq, [t[b].failures[k] for k in FAILURES]]
                      for b in self._bots],
            "h2h": [[at[a], at[b], *rec] for a in self._bots for b, rec in h2h[a].items()],
            "seats": self._seats,
            "next": self._next_index, "pending": [o.to_list() for o in self._pending.values()],
        }, separators=(",", ":"))

    @classmethod
    def from_state(cls, text: str, bots: Sequence[str] = ()) -> RatingTracker:
        """The tracker whose :meth:`state` is ``text`` (ValueError if it is none), its bots
        in the order of ``bots``, then the state's others. Its head-to-head records are
        parsed only when something reads them (see :mod:`arena.runner.play.meetings`)."""
        split = split_records(text)
        try:
            if split is None:
                raise KeyError("h2h")
            d = json.loads(split[0])
            if d.get("version") != STATE_VERSION:
                raise ValueError(f"not a rating state: version {d.get('version')!r}")
            names = list(d["bots"])
            tracker = cls([*dict.fromkeys([*bots, *names])])
            for i, b in enumerate(names):
                mu, sigma = (float(x) for x in d["made"][i])
                tracker._made[b] = (mu, sigma)
                tracker._ratings[b] = readback(mu, sigma)
                tracker._rated_games[b] = int(d["rated"][i])
                games, wins, rsum, rsq, ssum, ssq, failures = d["tally"][i]
                tracker._tally[b] = _Tally(games, wins, rsum, rsq, ssum, ssq,
                                           dict(zip(FAILURES, failures, strict=True)))
            tracker._h2h.load(split[1], names)
            tracker._seats = [[int(g), int(w)] for g, w in d["seats"]]
            tracker._next_index = int(d["next"])
            for p in d["pending"]:
                o = GameOutcome.from_list(p)
                tracker._pending[o.index] = o
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            raise ValueError(f"not a rating state: {exc!r}") from None
        return tracker


STATE_VERSION = 1  # the format of RatingTracker.state


def compute_standings(bots: Sequence[str], outcomes: Iterable[GameOutcome]) -> Standings:
    """The standings of ``bots`` after all ``outcomes`` (in any order; see RatingTracker)."""
    tracker = RatingTracker(bots)
    tracker.add_all(outcomes)
    return tracker.standings()


def numbered(outcomes: Iterable[GameOutcome], first: int = 0) -> list[GameOutcome]:
    """``outcomes`` numbered ``first``, ``first + 1``, ... in the order given: to rate games in
    an order of their own (a league's, as their results were committed) rather than by the
    indices they were issued with. Each is built field by field (a league's million games:
    ``dataclasses.replace`` looks the fields up again for each, four times the time)."""
    return [GameOutcome(o.game_id, n, o.round, o.table, o.bots, o.seed, o.scores, o.ranks,
                        o.terminations, o.details)
            for n, o in enumerate(outcomes, start=first)]
