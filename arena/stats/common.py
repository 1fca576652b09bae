"""What the statistics share: the normal law, the Wilson interval, the exact sign test, and the
grouping of a journal's games into duplicate sets.

A *duplicate set* is the games of one table in one repeat of a schedule: the same bots and
the same seed, one game per cyclic seat rotation (round-robin and gauntlet with seat rotation;
without rotation a set holds one game). The games of a set share their dice, so their results
are not independent of each other; the sets are. Whatever resamples or pairs games does it by
set.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.results import GameOutcome

#: The two-sided 95% quantile of the standard normal law, Phi^-1(0.975).
Z95 = 1.959963984540054


def normal_cdf(x: float) -> float:
    """Phi(x), the standard normal distribution function (exact limits at +-inf)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


#: Significant digits kept of every figure a file or ``--json`` is given. The last digits of a
#: fitted or bootstrapped figure depend on the CPU, the BLAS and the numpy version (the order of
#: a sum's terms, fused multiply-adds); six digits are more than any of these figures can mean
#: and far above that noise, so the same journal writes the same bytes on any machine.
FIGURE_DIGITS = 6


def rounded(value: Any, digits: int = FIGURE_DIGITS) -> Any:
    """``value`` (JSON-like data: dicts, lists, numbers, text) with every float rounded to
    ``digits`` significant digits; everything else as it is."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}") if math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v, digits) for v in value]
    return value


@dataclass(frozen=True)
class Interval:
    """A 95% interval [low, high] (either end may be infinite when the data cannot bound it)."""

    low: float
    high: float

    def excludes(self, value: float) -> bool:
        """Whether ``value`` lies outside the interval."""
        return value < self.low or value > self.high

    def to_list(self) -> list[float | None]:
        """``[low, high]`` as JSON allows: an infinite end becomes None."""
        return [finite_or_none(self.low), finite_or_none(self.high)]


def finite_or_none(x: float | None) -> float | None:
    """``x``, or None when it is None, infinite or NaN (JSON has no infinity)."""
    return x if x is not None and math.isfinite(x) else None


def wilson(successes: float, trials: float, z: float = Z95) -> Interval:
    """The Wilson score interval of a proportion (Wilson 1927): the p whose normal test
    ``|p_hat - p| <= z sqrt(p (1 - p) / n)`` accepts. Unlike p_hat +- z se it stays inside
    [0, 1] and is not empty at 0 or n successes. [0, 1] for no trials."""
    if trials <= 0:
        return Interval(0.0, 1.0)
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / trials + z2n / (4 * trials))
    # At 0 or n successes an end is 0 or 1 exactly (the formula gets there only to rounding).
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return Interval(low, high)


def sign_test(ahead: int, behind: int) -> float:
    """The exact two-sided sign test: the p-value of ``ahead`` against ``behind`` under
    Binomial(n, 1/2), n = ahead + behind, i.e. ``min(1, 2 P(X <= min(ahead, behind)))``
    (1 for n = 0). Ties are left out before calling, as the sign test does.

    The tail is summed from its largest term outwards with the ratio of neighbouring terms,
    P(X = i - 1) = P(X = i) i / (n - i + 1), starting from P(X = m) computed in logarithms,
    and stops once a term no longer changes the sum: exact to rounding, and about sqrt(n)
    terms for any n (a journal's pair may have met thousands of times)."""
    n = ahead + behind
    if n == 0:
        return 1.0
    m = min(ahead, behind)
    if 2 * m == n:
        return 1.0
    log_term = math.lgamma(n + 1) - math.lgamma(m + 1) - math.lgamma(n - m + 1) - n * math.log(2)
    term = math.exp(log_term)
    total = 0.0
    i = m
    while i >= 0:
        total += term
        if term <= total * 1e-17:
            break
        term *= i / (n - i + 1)
        i -= 1
    return min(1.0, 2.0 * total)


#: The error rate of a one-sided bound: "at least X at 95%".
ONE_SIDED = 0.05


def alike_interval(value: float, n: float, alpha: float = ONE_SIDED) -> Interval:
    """A 95% interval for the mean of values on [0, 1] when all ``n`` of them came out
    ``value``: the normal interval has no width then, but the data do not know the mean
    exactly.

    Whatever the law of a value with mean s > c, it can equal c at most with probability
    (1 - s) / (1 - c) (Markov's inequality on 1 - X), so n values all equal to c have
    probability at most that to the power n; below c, at most (s / c)^n. The means whose
    chance of so uniform a record is at least ``alpha / 2`` on each side make the interval
    [c q, 1 - (1 - c) q], q = (alpha / 2)^(1 / n). At c = 1 (or 0) the other end is the
    certain 1 (or 0), so the whole of ``alpha`` goes to the one bound: s >= alpha^(1 / n).
    It assumes nothing of how the values spread, only that they are independent."""
    if value >= 1:
        return Interval(alpha ** (1 / n), 1.0)
    if value <= 0:
        return Interval(0.0, 1 - alpha ** (1 / n))
    q = (alpha / 2) ** (1 / n)
    return Interval(value * q, 1 - (1 - value) * q)


def mean_interval(n: int, total: float, squares: float, z: float = Z95) -> tuple[
        float | None, Interval | None]:
    """The mean of n values from their sum and sum of squares, and its normal-approximation
    interval mean +- z s / sqrt(n) (s the sample standard deviation); None before the first
    value (the interval: before the second)."""
    if n == 0:
        return None, None
    mean = total / n
    if n < 2:
        return mean, None
    var = max(0.0, (squares - total * total / n) / (n - 1))
    half = z * math.sqrt(var / n)
    return mean, Interval(mean - half, mean + half)


def set_key(o: GameOutcome) -> tuple[int, int, int, frozenset[str]]:
    """The duplicate set a game belongs to: its round, table, seed and bots."""
    return (o.round, o.table, o.seed, frozenset(o.bots))


def duplicate_sets(outcomes: Iterable[GameOutcome]) -> list[list[GameOutcome]]:
    """The games grouped by duplicate set, each set's games and the sets in schedule order
    (of their first game)."""
    sets: dict[tuple[int, int, int, frozenset[str]], list[GameOutcome]] = {}
    for o in sorted(outcomes, key=lambda o: o.index):
        sets.setdefault(set_key(o), []).append(o)
    return list(sets.values())


def bots_of(outcomes: Sequence[GameOutcome], named: Sequence[str] = ()) -> list[str]:
    """``named`` first (a tournament's bots, in its order), then any other bot that sat in
    ``outcomes``, in order of first appearance."""
    seen = dict.fromkeys(named)
    for o in outcomes:
        for b in o.bots:
            seen.setdefault(b)
    return list(seen)
