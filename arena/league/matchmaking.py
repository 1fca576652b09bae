"""Matchmaking: which table a league plays next, chosen for what it tells about the ratings.

The rule (in plain words):

1. With probability ``explore`` (:data:`EXPLORE` by default) the table is a uniformly random
   choice of ``players`` bots. These tables keep the field connected: without them a cluster
   of bots that only ever meet one another could drift apart from the rest unnoticed.
2. Otherwise the table is built for the bots whose ratings most *need* games. A bot's need is
   the variance (sigma²) its rating is expected to have once the games already issued to it
   have finished. A TrueSkill rating's precision (1 / sigma²) grows about linearly with the
   games played, each game adding a similar amount, and the starting rating is worth about
   one game (:data:`PRIOR_GAMES`); so a bot with ``games`` finished and ``pending`` issued
   games is expected to reach ``(games + 1 + pending) / (games + 1)`` times its present
   precision, and its need is ``sigma² * (games + 1) / (games + 1 + pending)``. A new bot
   (widest sigma, no games) therefore comes first, and a bot whose games are still running
   stops being picked for every table meanwhile.
3. One candidate table is built around each of the :data:`CANDIDATES` bots of highest need
   (equal needs: fewer games first, then name order). Around its focal bot, the other seats
   are filled one at a time, each with the bot that adds most to the table's *worth*; the
   candidate worth most is played (equal worth: the needier focal bot; equal sums while
   filling: the seeded generator). The league names the table's neediest bot as its focus.
4. A table's worth is how much it is expected to shrink the ratings' variances, each bot's
   share weighted by its need relative to the highest need, to the power
   :data:`NEED_POWER`: the sum, over every bot at the table, of its weight times the
   variance its rating is expected to lose in a game there (:func:`expected_shrink` against
   each other bot at the table, less the drift ``tau²`` TrueSkill adds to every rating before
   each game).

   The pairwise term is TrueSkill's own update, averaged over the two results the ratings
   expect: a game between ``a`` and ``b`` multiplies ``a``'s variance sigma² by
   ``1 - sigma² / c² * w(t)``, where ``c² = 2 beta² + sigma_a² + sigma_b²``,
   ``t = (mu_a - mu_b) / c`` and ``w`` (from 0 to 1) is largest when the result was in doubt
   or a surprise. So it is largest for bots near in rating (a close game moves ratings most;
   the favourite's expected win says almost nothing) and for an opponent whose own rating is
   sure (a small ``c²``). Like TrueSkill's two-player match quality (the draw probability),
   to which it is close, it is taken pair by pair and never for the whole table: a 4-player
   table's quality is small whoever sits at it and says little about which opponents inform
   a rating. The need weight spends seats on ratings that are still wide, not on settled
   ones, so that games are spread evenly.

   Several candidates, and the drift, matter once ratings settle. TrueSkill's drift keeps
   every sigma above a floor that depends on how close a bot's games can be: a bot far
   stronger than the rest of the field has no close games but against the next strongest,
   and its sigma can stay the widest for good. Built around it alone, every table would seat
   the same two bots (measured in a settled league of 16 bots at 2-player tables: the two
   took 88% of the seats of the next 4,000 games); weighing the candidates' worth, the
   tables go where ratings can still move (22%, against an even share of 12.5%).

5. With a ``target`` sigma (``arena league run --until-sigma S``) the league's goal is every
   sigma under S, whatever it costs: a bot already under it has a weight of 0 (it still
   sits at tables as a sure opponent where it informs the others most), and the drift is
   not counted, so a bot whose floor is near S keeps getting the games it needs (until
   :mod:`arena.league.floor` finds that it cannot get there).

   :data:`NEED_POWER` and :data:`CANDIDATES` were chosen with ``arena bench league``, which
   plays with a target: need powers 0, 2, 4 and 8 measured within a few per cent of one
   another. Against the rule this replaced (one focal bot, opponents drawn at random in
   proportion to pairwise quality² × need ratio⁸), it needs fewer games to settle every
   rating in all 8 settings the benchmark measures (from 2% to 15% fewer).

The table is given in a canonical order (names sorted); the league plays every cyclic seat
rotation of it on one seed (a duplicate set). Everything is drawn from the caller's
``random.Random`` and entrants are read in name order, so the same entrants and generator
state give the same table. How many games the rule saves against random tables, and what a
choice costs, are measured by ``arena bench league`` (:mod:`arena.bench.league`).

Choosing fast among many entrants: rule 3 needs the worth every other entrant would add to
every candidate table, seat after seat, O(n * players * CANDIDATES) evaluations of
:func:`expected_shrink` (about 110 ms for 1,000 entrants at 4-player tables, one at a time in
Python). They are screened instead: the expected shrink is a function of one variable, the
rating gap in units of c, so every entrant's gain is first estimated at once (numpy, the
function read from a table, :data:`SCREEN_ERROR` its largest error) with a bound on how far
the estimate can be from the exact gain; only the entrants whose bound reaches the best
estimate's are then computed exactly, as the rule computes them, in the same order of
operations. The exact best and its exact ties are among them, so the table, its worth and
the generator's draws are those of the full computation (``exhaustive=True``, which the tests
compare it with), bit for bit.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from arena.runner.play.standings import TRUESKILL_BETA, TRUESKILL_TAU
from arena.stats.common import normal_cdf

#: Share of tables drawn uniformly at random (rule 1).
EXPLORE = 0.1
#: The power of a bot's need, relative to the highest need, in its share of a table's worth
#: (rule 4).
NEED_POWER = 4.0
#: How many of the neediest bots a candidate table is built around (rule 3).
CANDIDATES = 4
#: The variance TrueSkill adds to every rating before each game (tau², rule 4).
DRIFT = TRUESKILL_TAU * TRUESKILL_TAU
#: What the starting rating is worth, in games (rule 2).
PRIOR_GAMES = 1.0
#: The screening's table of the expected shrink's factor (:func:`_expected`): its step and
#: its end, past which the factor is taken as 0 (it is under 1e-30 there), and the most its
#: linear interpolation can be off (measured at under 1.5e-5 over [0, 40]; the tests hold it
#: to a quarter of this bound).
SCREEN_STEP = 1 / 64
SCREEN_END = 12.0
SCREEN_ERROR = 1e-4


@dataclass(frozen=True)
class Entrant:
    """What matchmaking knows of one bot version.

    ``games`` counts its finished games; ``pending`` its games issued and not finished yet
    (counted as if played, so one bot is not picked for every table while its games run).
    """

    name: str
    mu: float
    sigma: float
    games: int
    pending: int = 0


@dataclass(frozen=True)
class Choice:
    """A table to play, and why.

    ``bots`` are distinct names in canonical (sorted) order; ``reason`` is ``"focus"`` (built
    for ``focus``, its bot of highest need) or ``"explore"`` (a uniformly random table,
    ``focus`` None).
    """

    bots: tuple[str, ...]
    reason: str
    focus: str | None = None

    def describe(self) -> str:
        """The reason in words, as the league shows it."""
        if self.focus is None:
            return "explore: a random table"
        return f"focus: for {self.focus}, among the bots that need games most"


def need(entrant: Entrant) -> float:
    """The variance the entrant's rating is expected to have once its pending games are in
    (rule 2 of the module docstring)."""
    worth = entrant.games + PRIOR_GAMES
    return entrant.sigma * entrant.sigma * worth / (worth + entrant.pending)


def choose_table(entrants: Sequence[Entrant], players: int, rng: random.Random,
                 explore: float = EXPLORE, target: float | None = None,
                 exhaustive: bool = False) -> Choice:
    """The next table of ``players`` bots among ``entrants`` (the rule of the module
    docstring).

    ``target``: the sigma every bot should get under, if the league has one (rule 5).
    ``exhaustive``: compute every entrant's gain exactly instead of screening them first
    (the same choice, slower: what the screening is checked and timed against).
    Raises ValueError for fewer entrants than ``players``, fewer than two players, an
    ``explore`` outside [0, 1] or a name given twice.
    """
    if players < 2:
        raise ValueError(f"a table needs at least two players, not {players}")
    if not 0.0 <= explore <= 1.0:
        raise ValueError(f"explore must be from 0 to 1, not {explore}")
    if len(entrants) < players:
        raise ValueError(f"a table of {players} needs at least {players} entrants, "
                         f"and the league has {len(entrants)}")
    field = sorted(entrants, key=attrgetter("name"))
    for a, b in itertools.pairwise(field):
        if a.name == b.name:
            raise ValueError(f"entrant {a.name!r} is given twice")
    if rng.random() < explore:
        return Choice(tuple(sorted(rng.sample([e.name for e in field], players))), "explore")
    needs = {e.name: e.sigma * e.sigma * (worth := e.games + PRIOR_GAMES)  # need(e), inline
             / (worth + e.pending) for e in field}
    top = max(needs.values())
    weight = {e.name: 0.0 if target is not None and e.sigma < target
              else (needs[e.name] / top if top > 0 else 1.0) ** NEED_POWER for e in field}
    drift = 0.0 if target is not None else DRIFT
    def rank(e: Entrant) -> tuple[float, int, str]:
        return -needs[e.name], e.games, e.name

    best: tuple[float, list[Entrant]] | None = None
    build = _build_table if exhaustive else _Screen(field, weight).build
    # The neediest first (equal needs: fewer games, then name: the field's order).
    ranked = heapq.nsmallest(CANDIDATES, zip([-needs[e.name] for e in field],
                                             [e.games for e in field], range(len(field)),
                                             strict=True))
    for *_, i in ranked:
        focal = field[i]
        worth, table = build(focal, field, players, weight, drift, rng)
        if best is None or worth > best[0]:
            best = (worth, table)
    assert best is not None
    return Choice(tuple(sorted(e.name for e in best[1])), "focus", min(best[1], key=rank).name)


def expected_shrink(a: Entrant, b: Entrant) -> float:
    """How much ``a``'s rating variance is expected to shrink in one game against ``b``
    (rule 4 of the module docstring): TrueSkill's two-player update of sigma² (after the
    drift tau² it adds first), averaged over a win and a loss with the probabilities the two
    ratings give them (draws and the draw margin, small in the league's environment, left
    out)."""
    va = a.sigma * a.sigma + DRIFT
    c2 = 2 * TRUESKILL_BETA * TRUESKILL_BETA + va + b.sigma * b.sigma + DRIFT
    t = abs(a.mu - b.mu) / math.sqrt(c2)
    return va * va * _expected(t) / c2


def _expected(t: float) -> float:
    """The factor of :func:`expected_shrink` for ratings ``t`` units of c apart: TrueSkill's
    variance factor averaged over the win and the loss (0.64 at 0, falling to 0)."""
    return normal_cdf(t) * _w(t) + normal_cdf(-t) * _w(-t)


def _w(x: float) -> float:
    """TrueSkill's variance factor for a win by a margin of ``x`` (in units of c): v(x) *
    (v(x) + x) with v the normal density over the distribution function; it falls from 1 for
    a great surprise (x far below 0) to 0 for a foregone result."""
    cdf = normal_cdf(x)
    if cdf < 1e-300:
        return 1.0
    v = math.exp(-x * x / 2) / math.sqrt(2 * math.pi) / cdf
    return min(max(v * (v + x), 0.0), 1.0)


def _build_table(focal: Entrant, field: list[Entrant], players: int, weight: dict[str, float],
                 drift: float, rng: random.Random) -> tuple[float, list[Entrant]]:
    """The table built around ``focal`` (rule 3 of the module docstring): the other seats
    filled one at a time with the bot that adds most to its worth; and that worth (rule 4, less
    ``drift`` for each bot's weight)."""
    left = [e for e in field if e.name != focal.name]
    gains = [-weight[e.name] * drift for e in left]
    worth = -weight[focal.name] * drift
    table = [focal]
    for _ in range(players - 1):
        newest = table[-1]
        gains = [g + weight[e.name] * expected_shrink(e, newest)
                 + weight[newest.name] * expected_shrink(newest, e)
                 for g, e in zip(gains, left, strict=True)]
        most = max(gains)
        tied = [i for i, g in enumerate(gains) if g == most]
        pick = tied[0] if len(tied) == 1 else rng.choice(tied)
        worth += gains.pop(pick)
        table.append(left.pop(pick))
    return worth, table


class _Screen:
    """Rule 3's tables built with every entrant's gain screened (the module's doc): for one
    call of :func:`choose_table`, the field's ratings and weights as arrays."""

    _grid: tuple[Any, Any] | None = None  # the factor's table, made on first use

    def __init__(self, field: list[Entrant], weight: dict[str, float]) -> None:
        import numpy as np

        self.np = np
        if _Screen._grid is None:
            steps = np.arange(0.0, SCREEN_END + SCREEN_STEP / 2, SCREEN_STEP)
            _Screen._grid = steps, np.array([_expected(float(t)) for t in steps])
        self.index = {e.name: i for i, e in enumerate(field)}
        self.mu = np.array([e.mu for e in field])
        sigma = np.array([e.sigma for e in field])
        self.s2 = sigma * sigma
        self.va = self.s2 + DRIFT
        self.weight = np.array([weight[e.name] for e in field])
        self.sigma = sigma
        # What the gains share whoever is seated: c² less the seated one's sigma², and the
        # weighted square of the variance before the game.
        self.c2_base = 2 * TRUESKILL_BETA * TRUESKILL_BETA + self.va + DRIFT
        self.wva2 = self.weight * self.va * self.va

    def _gains(self, n: int) -> tuple[Any, Any]:
        """Every entrant's estimated gain from sitting with entrant ``n``, and the most the
        estimate can be off."""
        np = self.np
        assert self._grid is not None
        steps, values = self._grid
        gap = np.abs(self.mu - self.mu[n])
        c2_in = self.c2_base + self.s2[n]  # each entrant's own shrink
        c2_out = self.s2 + self.c2_base[n]  # and entrant n's
        scale_in = self.wva2 / c2_in
        scale_out = self.wva2[n] / c2_out
        gain = (scale_in * np.interp(gap / np.sqrt(c2_in), steps, values, right=0.0)
                + scale_out * np.interp(gap / np.sqrt(c2_out), steps, values, right=0.0))
        return gain, SCREEN_ERROR * (scale_in + scale_out)

    def build(self, focal: Entrant, field: list[Entrant], players: int,
              weight: dict[str, float], drift: float,
              rng: random.Random) -> tuple[float, list[Entrant]]:
        """What :func:`_build_table` gives, computing exactly only the entrants whose gain
        the screening cannot rule out."""
        np = self.np
        open_ = np.ones(len(field), dtype=bool)
        open_[self.index[focal.name]] = False
        estimate = -self.weight * drift
        slack = np.zeros(len(field))
        exact: dict[tuple[float, float, float], list[float]] = {}  # by mu, sigma, weight
        worth = -weight[focal.name] * drift
        table = [focal]
        for _ in range(players - 1):
            gain, error = self._gains(self.index[table[-1].name])
            estimate = estimate + gain
            # the estimate's own rounding, far above it
            slack = slack + error + 1e-12 * (np.abs(estimate) + gain)
            floor = np.max(np.where(open_, estimate - slack, -np.inf))
            reach = np.flatnonzero(open_ & (estimate + slack >= floor))
            # Entrants alike (the same rating and weight: new ones, say) have the same gain:
            # each kind is computed once.
            kinds: dict[tuple[float, float, float], list[int]] = {}
            columns = (self.mu[reach].tolist(), self.sigma[reach].tolist(),
                       self.weight[reach].tolist())
            for kind, i in zip(zip(*columns, strict=True), reach.tolist(), strict=True):
                kinds.setdefault(kind, []).append(i)
            gains = {kind: self._exact(field[alike[0]], table, weight, drift, exact)
                     for kind, alike in kinds.items()}
            most = max(gains.values())
            tied = sorted(i for kind, alike in kinds.items() if gains[kind] == most
                          for i in alike)
            pick = tied[0] if len(tied) == 1 else rng.choice(tied)
            worth += most
            open_[pick] = False
            table.append(field[pick])
        return worth, table

    @staticmethod
    def _exact(e: Entrant, table: list[Entrant], weight: dict[str, float], drift: float,
               known: dict[tuple[float, float, float], list[float]]) -> float:
        """``e``'s gain at ``table`` as :func:`_build_table` sums it, seat by seat (kept by
        rating and weight: entrants alike, such as new ones, are computed once)."""
        sums = known.setdefault((e.mu, e.sigma, weight[e.name]), [-weight[e.name] * drift])
        for seated in table[len(sums) - 1:]:
            sums.append(sums[-1] + weight[e.name] * expected_shrink(e, seated)
                        + weight[seated.name] * expected_shrink(seated, e))
        return sums[len(table)]
