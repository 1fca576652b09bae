"""How far TrueSkill's drift lets a rating's sigma fall: what ``arena league run --until-sigma
S`` can reach, so that a target the field cannot reach ends the run instead of spending games
for ever.

Before every game TrueSkill widens each rating by its drift (the variance grows by tau²), and
the game's result then narrows it by what the result told; where the two balance, a sigma
stops falling. A result tells most when it was in doubt, so where that floor lies depends on
the field:

- At best, every game against equals, a sigma settles at :func:`table_floor` (0.79 at
  2-player tables, 0.71 at 3, 0.68 at 4): a target at or under it can never be reached, and is
  refused before any game.
- A bot's floor against the field is where its games against the bots nearest it in rating
  would take off as much variance as the drift adds (:func:`field_floor`). A bot far ahead of
  the field wins foregone games that tell almost nothing: its floor is high, and since every
  win lifts its mu further from the field, it keeps rising (the sigma of a bot that wins every
  game grows without end, slowly). The floor is taken on the side of hope, so as not to stop
  a run that would have got there: each opponent's rating as sure as can be, a table of more
  than two counted as a two-player game against each opponent at it (more than TrueSkill's
  chain of players takes from it), and every mu, the bot's and its opponents', anywhere within
  a sigma of where it is.
- A floor so taken can be under the target when the bot's real games will never be close
  enough to get there, so a bot whose sigma has stayed above the target and made no new low
  in its last :data:`PATIENCE` games is taken to be at its floor too.

Both are judged only once every active bot version has played :data:`SETTLING` games: before
that the field is still finding its ratings, and a newcomer may yet become the opponent that
tells a settled bot most.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from arena.league.matchmaking import Entrant, expected_shrink
from arena.results import GameOutcome
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.standings import TRUESKILL_MU, TRUESKILL_SIGMA, TRUESKILL_TAU
from arena.runner.play.trueskill_update import rate, readback

#: The games every active bot version must have played before any floor is judged.
SETTLING = 50
#: A bot above the target whose sigma has made no new low in this many of its games is at its
#: floor.
PATIENCE = 400
#: The highest floor searched for: a sigma that cannot settle under this is reported at it.
CEILING = 2 * TRUESKILL_SIGMA

_DRIFT = TRUESKILL_TAU * TRUESKILL_TAU

Rating = Callable[[str], tuple[float, float]]


def table_floor(players: int) -> float:
    """The sigma TrueSkill's drift lets a rating settle at when every game tells most: at
    tables of ``players`` equals, every rating as sure as the others (the real update, each
    seat's variance averaged)."""
    def net_gain(sigma: float) -> float:
        rated = rate([readback(TRUESKILL_MU, sigma)] * players, list(range(players)))
        return math.fsum(s ** 2 for _, s in rated) / players - sigma * sigma

    return _root(net_gain)


def field_floor(mu: float, opponents: Sequence[float]) -> float:
    """The sigma a rating at ``mu`` settles at in games against all of ``opponents`` (their
    mu) at once, each counted as a two-player game whose result is in the doubt the ratings
    give it, the opponents' ratings sure (at most :data:`CEILING`)."""
    return _root(lambda sigma: _net_gain(mu, sigma, opponents))


def _net_gain(mu: float, sigma: float, opponents: Sequence[float]) -> float:
    """What such a game adds to the variance of a rating (mu, sigma), less what it takes off
    (:func:`field_floor`)."""
    bot = Entrant("", mu, sigma, 0)
    return _DRIFT - math.fsum(expected_shrink(bot, Entrant("", o, 0.0, 0)) for o in opponents)


def _root(net_gain: Callable[[float], float]) -> float:
    """The sigma in [0, CEILING] where ``net_gain`` (what a game adds to the variance, less
    what it takes off) turns from positive to not (bisection); CEILING if it never does."""
    if net_gain(CEILING) > 0:
        return CEILING
    low, high = 0.0, CEILING
    for _ in range(30):
        mid = (low + high) / 2
        if net_gain(mid) > 0:
            low = mid
        else:
            high = mid
    return high


@dataclass(frozen=True)
class Floor:
    """A bot whose sigma cannot get under the target: its sigma now and its floor
    (``stalled``: the lowest sigma of its last PATIENCE games, where it has stayed)."""

    bot: str
    sigma: float
    floor: float
    stalled: bool = False

    def describe(self) -> str:
        if self.stalled:
            return (f"{self.bot}'s σ (now {self.sigma:.2f}) has gone no lower than "
                    f"{self.floor:.2f} in its last {PATIENCE} games")
        return (f"TrueSkill's drift holds {self.bot}'s σ (now {self.sigma:.2f}) at "
                f"{self.floor:.2f} or more against this field")


def out_of_reach_line(target: float, floors: Sequence[Floor]) -> str:
    """The line that ends a run whose target is out of reach."""
    return (f"every σ under {target:g} is out of reach: "
            + "; ".join(f.describe() for f in floors))


@dataclass
class _Bot:
    games: int = 0
    sigmas: deque[float] = field(default_factory=lambda: deque(maxlen=PATIENCE))
    low: float = math.inf
    since: int = 0  # its games since its lowest sigma


class FloorWatch:
    """Each bot's games and recent sigmas, fed every game as it is rated, to tell which
    bots' sigmas cannot get under a target (see the module's doc)."""

    def __init__(self, players: int) -> None:
        self.players = players
        self._bots: dict[str, _Bot] = {}

    def add(self, o: GameOutcome, tracker: RatingTracker) -> None:
        """Take ``o``, which ``tracker`` has just rated."""
        for name in o.bots:
            bot = self._bots.setdefault(name, _Bot())
            sigma = tracker.rating(name)[1]
            bot.games += 1
            bot.sigmas.append(sigma)
            bot.low, bot.since = (sigma, 0) if sigma < bot.low else (bot.low, bot.since + 1)

    def restore(self, name: str, games: int, sigmas: Sequence[float], low: float,
                since: int) -> None:
        """Take a bot's games as :meth:`add` would have taken them, one by one: how many,
        the sigmas of its last (at most PATIENCE), the lowest of all and its games since."""
        self._bots[name] = _Bot(games, deque(sigmas, maxlen=PATIENCE), low, since)

    def out_of_reach(self, active: Sequence[str], target: float,
                     rating: Rating) -> list[Floor]:
        """The ``active`` bots whose sigma cannot get under ``target`` (none while one of them
        has played fewer than SETTLING games), in the order given."""
        seen = [self._bots.get(b) for b in active]
        if not all(b is not None and b.games >= SETTLING for b in seen):
            return []
        now = _Field(active, rating)
        found = []
        for name, bot in zip(active, seen, strict=True):
            assert bot is not None
            sigma = rating(name)[1]
            if sigma < target:
                continue
            spots = self._spots(name, now)
            if all(_net_gain(at, target, nearest) > 0 for at, nearest in spots):
                # Even at its closest games it would not get under the target.
                found.append(Floor(name, sigma, min(field_floor(*spot) for spot in spots)))
            elif bot.since >= PATIENCE and min(bot.sigmas) >= target:
                found.append(Floor(name, sigma, min(bot.sigmas), stalled=True))
        return found

    def _spots(self, name: str, now: _Field) -> list[tuple[float, list[float]]]:
        """Where ``name``'s games could be most in doubt, each mu (its own and its opponents')
        anywhere within a sigma of where it is: each point of its span worth trying (its ends
        and middle, and the points nearest the spans of the others nearest it), with the
        nearest point of the span of each of the others nearest that point."""
        mu, sigma = now.ratings[name]
        seats = self.players - 1
        spots = {mu - sigma, mu, mu + sigma}
        spots.update(min(max(m, mu - sigma), mu + sigma)
                     for m in now.nearest(name, mu, 2 * seats))
        return [(at, now.nearest(name, at, seats)) for at in sorted(spots)]


class _Field:
    """The active bots' ratings, sorted by mu to find the nearest ones fast."""

    def __init__(self, active: Sequence[str], rating: Rating) -> None:
        self.ratings = {b: rating(b) for b in active}
        self._sorted = sorted((mu, sigma, b) for b, (mu, sigma) in self.ratings.items())
        self._mus = [mu for mu, _, _ in self._sorted]
        self._widest = max((sigma for _, sigma, _ in self._sorted), default=0.0)

    def nearest(self, name: str, at: float, count: int) -> list[float]:
        """The points nearest ``at`` of the spans (mu ± sigma) of the ``count`` bots other
        than ``name`` whose spans come nearest it."""
        # The count nearest by mu bound how far the nearest spans can be; only bots whose mu
        # is within that bound and the widest sigma can hold one of them.
        by_mu = heapq.nsmallest(count + 1, self._window(at, 0.0, count + 1),
                                key=lambda r: abs(r[0] - at))
        reach = max((abs(m - at) for m, _, b in by_mu if b != name), default=0.0)
        near = (min(max(at, m - s), m + s)
                for m, s, b in self._window(at, reach + self._widest) if b != name)
        return heapq.nsmallest(count, near, key=lambda m: abs(m - at))

    def _window(self, at: float, width: float,
                least: int = 0) -> list[tuple[float, float, str]]:
        """The bots whose mu is within ``width`` of ``at``, widened to at least ``least`` on
        each side."""
        low = min(bisect.bisect_left(self._mus, at - width),
                  max(0, bisect.bisect_left(self._mus, at) - least))
        high = max(bisect.bisect_right(self._mus, at + width),
                   bisect.bisect_right(self._mus, at) + least)
        return self._sorted[low:high]
