"""Plackett–Luce strengths fitted to the finishing orders, with bootstrap intervals.

**Model.** Each bot i has a strength gamma_i = exp(theta_i). A table's finishing order is
drawn place by place: first place goes to bot i among those at the table with probability
gamma_i / (sum of their gammas), second place among the rest the same way, and so on. A game
of k players is thus k - 1 choices, each from a *choice set* (the bots not yet placed). At two
players it is Bradley–Terry, and for any table P(A finishes ahead of B) = gamma_A / (gamma_A +
gamma_B) = 1 / (1 + exp(theta_B - theta_A)), whoever else sits there (Luce's choice axiom).
Ratings are shown on the Elo scale, 400 log10(gamma) = 173.7 theta, centred on the bots'
mean, so that two bots' difference reads as a two-player Elo difference.

**Ties.** A shared rank is split without randomness: the game counts once for every order of
the tied bots, each with weight 1 / (number of orders), so tied bots are treated alike (the
same rule as the TrueSkill standings). A failed seat is ranked last by the referee already.

**Fit.** The maximum a posteriori theta under a weak prior: every bot is given one virtual win
and one virtual loss against a reference bot of theta = 0 (as BayesElo's prior). Without it
the maximum-likelihood strengths do not exist whenever some group of bots always finishes
ahead of the rest (in the committed search-4p, neither search bot ever finished behind a
random one), and a bot that never won would get strength 0. Its weight, two games, fades as
real games accumulate. The posterior is concave in theta, so Newton's method (with
step-halving) finds its unique maximum in a handful of steps; the data enter only through
each choice set's weighted count and each bot's weighted number of choices won, so the work
per step grows with the distinct choice sets, not the games.

Hunter's MM algorithm (2004) was tried first: on a 100,000-game, 32-bot journal it needed
tens of thousands of iterations (minutes in pure Python), since the likelihood is flat
along the overall scale the prior alone pins down; Newton needs under ten. ``choix`` (PyPI)
fits Plackett–Luce too, but without ties or weights (so no bootstrap by weights), it pulls
in SciPy, and its fastest ranking fit took 1.8 s per fit on that journal.

**Groups.** When some bots finished ahead of others every time they met (directly or through
other bots), the gap between them has no finite estimate, whatever the prior makes of it
(:mod:`arena.stats.groups`). The ratings are then given within each group, centred on it,
and P(A ahead of B) across groups is 1 in the fit's limit, with the one-sided bound that holds
for any law of the games (:func:`arena.stats.common.alike_interval` over the duplicate sets in
which both sat): at least 0.05^(1/n) after n sets, at 95%.

**Bootstrap intervals.** The games of one duplicate set (a table in one repeat, in all its
seat rotations) share their dice, so a replicate resamples whole sets, with replacement, as
many as there are, and refits (from the full fit's strengths, so a refit takes two or three
Newton steps). An interval is the 2.5% and 97.5% percentiles of the replicates (of a
rating, or of P(A ahead of B)). The resampling is seeded and deterministic: a
``random.Random(seed)`` draws each replicate's seed for NumPy's generator (never a global
generator), so the same journal and seed give the same intervals.

**Intervals from the curvature.** A replicate is a solve over every bot: at a thousand bots,
200 of them are minutes. For a large field (``curvature=True``) the intervals come from the
curvature of the log-posterior at the fit instead: its observed information matrix (the
Newton step's), inverted once, is theta's covariance under the normal approximation, and a
rating's interval is its centred value +- 1.96 standard errors (P(A ahead of B): the logistic
of theta_A - theta_B +- 1.96 of its standard error). It treats the games as independent, so
it does not widen for the dice a duplicate set shares, as the bootstrap does; on the
synthetic games of the tests the two agree to within a third of a width.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from arena.results import GameOutcome
from arena.stats.choices import (
    ChoiceData,
    FloatArray,
    IntArray,
    choice_data,
    large_choice_data,
    orders,
)
from arena.stats.common import Z95, Interval, alike_interval
from arena.stats.groups import Groups, groups_of_pairs

__all__ = ["ChoiceData", "choice_data", "orders"]  # the choices, kept where they were read

#: Elo points per unit of theta: 400 / ln 10.
ELO_PER_THETA = 400 / math.log(10)
#: Virtual games of the prior per bot (half won, half lost, against theta = 0).
PRIOR_GAMES = 2.0
#: Bootstrap replicates by default.
REPLICATES = 200



def _evaluate(data: ChoiceData, counts: FloatArray, wins: FloatArray, theta: FloatArray,
              prior: float) -> tuple[float, FloatArray]:
    """The log-posterior at theta, and each choice set's probabilities of its members (one
    row per place, as ``members``). Strengths are taken relative to the largest, which
    changes no probability and keeps exp() in range."""
    top = float(theta.max())
    gamma = np.append(np.exp(theta - top), 0.0)[data.members]
    z = gamma.sum(axis=0)
    log_z = np.log(z) + top
    prior_term = prior * float(np.sum(theta / 2 - np.logaddexp(0.0, theta)))
    return float(wins @ theta - counts @ log_z) + prior_term, gamma / z


class _Pairs:
    """The places (x, y) of every choice set whose members are both bots, not the padding,
    as the observed information sums them: place by place, then set by set (the order of
    ``pair_index``). A pair with the padding only adds to a row or column the information
    leaves out. Made once for the fits of one set of choices: its sum reuses one buffer."""

    def __init__(self, data: ChoiceData) -> None:
        n, members = data.n, data.members
        self.blocks: list[tuple[int, int, slice | IntArray, int, int]] = []
        bins: list[IntArray] = []
        start = 0
        for x in range(members.shape[0]):
            for y in range(members.shape[0]):
                both = (members[x] < n) & (members[y] < n)
                m = int(np.count_nonzero(both))
                # The sets sorted by members (a large field's) put the larger sets first.
                sel: slice | IntArray = slice(0, m) if bool(both[:m].all()) else (
                    np.flatnonzero(both))
                bins.append(data.pair_index[x, y][sel])
                self.blocks.append((x, y, sel, start, start + m))
                start += m
        self.bins = np.concatenate(bins) if bins else np.zeros(0, dtype=np.int64)
        self.products = np.empty(start)

    def summed(self, cp: FloatArray, p: FloatArray, bins: int) -> FloatArray:
        """For each pair of bots, the sum of ``cp[x, s] * p[y, s]`` over the places x, y of
        its members in each set s, in the order of ``pair_index`` (``bins``: (n + 1) ** 2)."""
        for x, y, sel, a, b in self.blocks:
            np.multiply(cp[x][sel], p[y][sel], out=self.products[a:b])
        return cast(FloatArray, np.bincount(self.bins, weights=self.products, minlength=bins))


def _information(data: ChoiceData, counts: FloatArray, p: FloatArray, theta: FloatArray,
                 prior: float, flat_members: IntArray, pairs: _Pairs
                 ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """At theta (its choice sets' probabilities ``p``): each bot's expected choices won, the
    prior's logistic of theta, and the observed information (minus the log-posterior's
    Hessian), an n x n matrix."""
    n = data.n
    cp = counts * p
    expected = cast(FloatArray, np.bincount(flat_members, weights=cp.ravel(),
                                            minlength=n + 1)[:n])
    sig = 1 / (1 + np.exp(-theta))
    info = -pairs.summed(cp, p, (n + 1) ** 2).astype(np.float64).reshape(n + 1, n + 1)[:n, :n]
    info[np.diag_indices(n)] += expected + prior * sig * (1 - sig)
    return expected, sig, info


def covariance(data: ChoiceData, counts: FloatArray, wins: FloatArray, theta: FloatArray,
               prior: float = PRIOR_GAMES, pairs: _Pairs | None = None) -> FloatArray:
    """The covariance of theta (not centred) from the curvature of the log-posterior at its
    maximum ``theta``: the observed information matrix, inverted (the normal, or Laplace,
    approximation of the posterior). One matrix inverse, where a bootstrap refits hundreds of
    times; the prior keeps the matrix invertible."""
    if data.n == 0:
        return np.zeros((0, 0))
    _, p = _evaluate(data, counts, wins, theta, prior)
    _, _, info = _information(data, counts, p, theta, prior, data.members.ravel(),
                              _Pairs(data) if pairs is None else pairs)
    return np.asarray(np.linalg.inv(info), dtype=np.float64)


def fit(data: ChoiceData, counts: FloatArray, wins: FloatArray, prior: float = PRIOR_GAMES,
        start: FloatArray | None = None, tolerance: float = 1e-7,
        pairs: _Pairs | None = None) -> FloatArray:
    """The maximum a posteriori theta (one per bot, not centred) for choice-set ``counts``
    and choices ``wins``, by Newton's method from ``start`` (or 0), halving a step that
    would lower the posterior. Stops after a step under ``tolerance`` in every theta: Newton
    converges quadratically, so theta is then good to about its square."""
    n = data.n
    theta = np.zeros(n) if start is None else start.astype(np.float64).copy()
    if n == 0 or data.members.shape[1] == 0:
        return theta
    flat_members = data.members.ravel()
    pairs = _Pairs(data) if pairs is None else pairs
    value, p = _evaluate(data, counts, wins, theta, prior)
    for _ in range(100):
        expected, sig, info = _information(data, counts, p, theta, prior, flat_members,
                                           pairs)
        grad = wins - expected + prior * (0.5 - sig)
        step = np.linalg.solve(info, grad)
        while True:
            new_value, new_p = _evaluate(data, counts, wins, theta + step, prior)
            if new_value >= value - 1e-12 * abs(value) or float(np.max(np.abs(step))) < 1e-12:
                break
            step /= 2
        theta, value, p = theta + step, new_value, new_p
        if float(np.max(np.abs(step))) < tolerance:
            break
    return theta


def _centred(theta: FloatArray) -> FloatArray:
    return theta - theta.mean(axis=-1, keepdims=True)


@dataclass(frozen=True)
class PlackettLuce:
    """Fitted strengths and their bootstrap replicates (both centred on the bots' mean).

    ``theta[i]`` is bot i's log-strength; ``samples[r, i]`` its value in replicate r. With
    ``covariance`` (theta's, from the curvature at the fit: :func:`covariance`) the intervals
    are normal ones from it instead, and there are no replicates."""

    bots: list[str]
    theta: FloatArray
    samples: FloatArray
    games: int
    duplicate_sets: int
    seed: int
    prior: float
    groups: Groups
    met_sets: dict[tuple[int, int], int] = field(default_factory=dict)
    covariance: FloatArray | None = None

    @property
    def replicates(self) -> int:
        return int(self.samples.shape[0])

    @property
    def from_curvature(self) -> bool:
        """Whether the intervals come from the curvature at the fit (not a bootstrap)."""
        return self.covariance is not None

    @functools.cached_property
    def _rating_sd(self) -> FloatArray:
        """Each bot's standard deviation of theta centred on its group (on all the bots with
        one group) under :attr:`covariance`: var(theta_i - mean of group g) = S_ii - 2 (mean
        of S_ij over j in g) + (mean of S_jk over j, k in g), figured for every bot at once
        (a quadratic form per bot would be a pass over the whole matrix for each)."""
        assert self.covariance is not None
        cov = self.covariance
        var = np.diag(cov).copy()
        members = self.groups.members if self.separated else [list(range(len(self.bots)))]
        for group in members:
            row_mean = cov[:, group].mean(axis=1)
            var[group] += row_mean[group].mean() - 2 * row_mean[group]
        return np.sqrt(np.maximum(var, 0.0))

    def _curvature_rating_interval(self, i: int) -> Interval | None:
        rating = self.shown_rating(i)
        if rating is None:
            return None
        half = Z95 * float(self._rating_sd[i]) * ELO_PER_THETA
        return Interval(rating - half, rating + half)

    @property
    def separated(self) -> bool:
        """Whether the bots fall into several groups: ratings are then only finite within a
        group (see the module docstring)."""
        return self.groups.separated

    def rating(self, i: int) -> float:
        """Bot i's fitted rating on the Elo scale (centred on all the bots; across groups the
        prior's figure, no estimate: see :meth:`shown_rating`)."""
        return float(self.theta[i] * ELO_PER_THETA)

    def _relative(self, values: FloatArray, i: int) -> FloatArray | None:
        """Bot i's column of ``values`` (theta, or the replicates) on the Elo scale, centred
        on its group when the bots are separated (None alone in its group: nothing to rate
        it against); as fitted, centred on all the bots, when there is one group."""
        if not self.separated:
            return values[..., i] * ELO_PER_THETA
        group = self.groups.members[self.groups.of[i]]
        if len(group) < 2:
            return None
        return (values[..., i] - values[..., group].mean(axis=-1)) * ELO_PER_THETA

    def shown_rating(self, i: int) -> float | None:
        """Bot i's rating as it is shown: :meth:`rating` with one group; with several,
        centred on its group, None alone in it."""
        rel = self._relative(self.theta, i)
        return None if rel is None else float(rel)

    def rating_interval(self, i: int) -> Interval | None:
        """The bootstrap interval of :meth:`shown_rating` (or, :attr:`from_curvature`, the
        normal interval of its standard error)."""
        if self.covariance is not None:
            return self._curvature_rating_interval(i)
        rel = self._relative(self.samples, i) if self.replicates else None
        if rel is None:
            return None
        lo, hi = np.percentile(rel, [2.5, 97.5])
        return Interval(float(lo), float(hi))

    def p_ahead(self, i: int, j: int) -> float | None:
        """P(bot i finishes ahead of bot j at a table) under the fitted model: 1 or 0 across
        groups (the fit's limit), None for groups that cannot be compared."""
        above = self.groups.above(i, j)
        if above is not None:
            return 1.0 if above else 0.0
        if self.groups.of[i] != self.groups.of[j]:
            return None
        return float(1 / (1 + np.exp(self.theta[j] - self.theta[i])))

    def p_ahead_interval(self, i: int, j: int) -> Interval | None:
        """The bootstrap interval of :meth:`p_ahead`, or across groups the one-sided bound of
        the duplicate sets in which both sat (None if they never sat together)."""
        above = self.groups.above(i, j)
        if above is not None:
            sets = self.met_sets.get((min(i, j), max(i, j)), 0)
            return None if not sets else alike_interval(1.0 if above else 0.0, sets)
        if self.groups.of[i] != self.groups.of[j]:
            return None
        if self.covariance is not None:
            cov = self.covariance
            gap = float(self.theta[i] - self.theta[j])
            half = Z95 * math.sqrt(max(0.0, float(cov[i, i] + cov[j, j] - 2 * cov[i, j])))
            return Interval(1 / (1 + math.exp(half - gap)), 1 / (1 + math.exp(-half - gap)))
        if not self.replicates:
            return None
        p = 1 / (1 + np.exp(self.samples[:, j] - self.samples[:, i]))
        lo, hi = np.percentile(p, [2.5, 97.5])
        return Interval(float(lo), float(hi))

    def order(self) -> list[int]:
        """The bots' indices, group by group, strongest first (then by name)."""
        return sorted(range(len(self.bots)),
                      key=lambda i: (self.groups.of[i], -self.theta[i], self.bots[i]))

    def to_dict(self) -> dict[str, Any]:
        """Plain data. Each bot's ``group`` (1 is the first); with several groups, ratings and
        their intervals are centred on the group (None for a bot alone in its group), and an
        interval of P(A ahead) across groups is one-sided."""
        def interval(ci: Interval | None) -> list[float | None] | None:
            return None if ci is None else ci.to_list()

        n = len(self.bots)
        return {
            "games": self.games, "duplicate_sets": self.duplicate_sets,
            "replicates": self.replicates, "seed": self.seed, "prior_games": self.prior,
            "groups": [[self.bots[i] for i in g] for g in self.groups.members],
            "bots": [{"name": self.bots[i], "group": self.groups.of[i] + 1,
                      "rating": self.shown_rating(i),
                      "interval": interval(self.rating_interval(i))} for i in self.order()],
            "p_ahead": {self.bots[i]: {self.bots[j]: {
                "p": self.p_ahead(i, j), "interval": interval(self.p_ahead_interval(i, j))}
                for j in range(n) if j != i} for i in range(n)},
        }


def plackett_luce(outcomes: Sequence[GameOutcome], bots: Sequence[str],
                  replicates: int = REPLICATES, seed: int = 0,
                  prior: float = PRIOR_GAMES, curvature: bool = False) -> PlackettLuce:
    """Fit the strengths of ``bots`` (those that played) to ``outcomes`` and bootstrap them
    over ``replicates`` resamplings of the duplicate sets, seeded by ``seed``; with
    ``curvature``, no bootstrap: the intervals come from the curvature at the fit
    (:func:`covariance`), one matrix inverse instead of ``replicates`` refits."""
    if replicates < 0:
        raise ValueError(f"replicates must be 0 or more, got {replicates}")
    played = {b for o in outcomes for b in o.bots}
    data = (large_choice_data if curvature else choice_data)(
        outcomes, [b for b in bots if b in played])
    return fitted(data, replicates, seed, prior, curvature)


def fitted(data: ChoiceData, replicates: int = REPLICATES, seed: int = 0,
           prior: float = PRIOR_GAMES, curvature: bool = False) -> PlackettLuce:
    """:func:`plackett_luce` of games already made into choices."""
    counts, wins = data.weights()
    pairs = _Pairs(data)
    theta = fit(data, counts, wins, prior, pairs=pairs)
    d = data.duplicate_sets
    cov = covariance(data, counts, wins, theta, prior, pairs) if curvature else None
    samples = np.empty((0 if curvature else replicates, data.n))
    rng = random.Random(seed)
    for r in range(samples.shape[0]):
        draw = np.random.default_rng(rng.getrandbits(64)).integers(0, d, size=d)
        mult = np.bincount(draw, minlength=d).astype(np.float64)
        samples[r] = fit(data, *data.weights(mult), prior, start=theta, pairs=pairs)
    centred = _centred(theta)
    found = groups_of_pairs(data.n, data.ahead_pairs, lambda i: float(centred[i]))
    return PlackettLuce(data.bots, centred, _centred(samples), data.games, d, seed, prior,
                        found, data.met_sets, cov)
