"""The shared pieces of arena.stats: Wilson intervals, the exact sign test, mean intervals and
duplicate sets, against numbers worked out here by other routes."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from arena.protocol.messages import Termination
from arena.results import GameOutcome
from arena.stats.common import duplicate_sets, mean_interval, normal_cdf, sign_test, wilson


def wilson_by_quadratic(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson interval as the roots in p of (p_hat - p)^2 = z^2 p (1 - p) / n, i.e.
    (1 + z^2/n) p^2 - (2 p_hat + z^2/n) p + p_hat^2 = 0."""
    ph = k / n
    a, b, c = 1 + z * z / n, -(2 * ph + z * z / n), ph * ph
    d = math.sqrt(b * b - 4 * a * c)
    return (-b - d) / (2 * a), (-b + d) / (2 * a)


@pytest.mark.parametrize(("k", "n"), [(7, 10), (0, 10), (10, 10), (1, 3), (480, 1000)])
def test_wilson_is_the_root_of_the_score_test(k: int, n: int) -> None:
    w = wilson(k, n)
    lo, hi = wilson_by_quadratic(k, n)
    assert (w.low, w.high) == (pytest.approx(max(0.0, lo), abs=1e-12),
                               pytest.approx(min(1.0, hi), abs=1e-12))


def test_wilson_published_value_and_edges() -> None:
    """7 of 10: the textbook Wilson 95% interval is [0.3968, 0.8922]."""
    w = wilson(7, 10)
    assert (round(w.low, 4), round(w.high, 4)) == (0.3968, 0.8922)
    assert wilson(0, 10).low == 0.0 and wilson(10, 10).high == 1.0
    assert (wilson(0, 0).low, wilson(0, 0).high) == (0.0, 1.0)


def exact_sign_test(k: int, n: int) -> float:
    """2 P(X <= min(k, n - k)) for X ~ Binomial(n, 1/2), in exact fractions."""
    m = min(k, n - k)
    tail = Fraction(sum(math.comb(n, i) for i in range(m + 1)), 2 ** n)
    return float(min(Fraction(1), 2 * tail))


@pytest.mark.parametrize(("k", "n"), [(9, 10), (1, 10), (0, 5), (5, 10), (4, 9), (60, 100),
                                      (520, 1000), (200, 200), (1300, 2600), (1200, 2500)])
def test_sign_test_is_the_exact_binomial_tail(k: int, n: int) -> None:
    """9 of 10: 2 (1 + 10) / 1024 = 0.021484375."""
    assert sign_test(k, n - k) == pytest.approx(exact_sign_test(k, n), rel=1e-12, abs=1e-300)


def test_sign_test_small_cases_by_hand() -> None:
    assert sign_test(9, 1) == pytest.approx(22 / 1024, rel=1e-14)
    assert sign_test(0, 0) == 1.0 and sign_test(3, 3) == 1.0
    assert sign_test(5, 0) == pytest.approx(2 / 32, rel=1e-14)


def test_mean_interval_and_normal_cdf() -> None:
    """Values 1, 2, 3, 4: mean 2.5, s^2 = 5/3, half width 1.959964 sqrt(5/12) = 1.265130."""
    mean, ci = mean_interval(4, 10, 30)
    assert mean == 2.5 and ci is not None
    assert ci.high - 2.5 == pytest.approx(1.959963984540054 * math.sqrt(5 / 12), rel=1e-12)
    assert mean_interval(0, 0, 0) == (None, None)
    assert mean_interval(1, 7, 49) == (7, None)
    assert normal_cdf(1.959963984540054) == pytest.approx(0.975, abs=1e-12)
    assert normal_cdf(math.inf) == 1.0 and normal_cdf(-math.inf) == 0.0


def test_duplicate_sets_group_one_table_of_one_repeat() -> None:
    ok = (Termination.OK,) * 2

    def g(i: int, rnd: int, table: int, seed: int, bots: tuple[str, str]) -> GameOutcome:
        return GameOutcome(f"g{i}", i, rnd, table, bots, seed, (0, 0), (1, 2), ok)

    games = [g(3, 1, 2, 8, ("b", "a")), g(0, 1, 1, 7, ("a", "b")), g(1, 1, 1, 7, ("b", "a")),
             g(2, 1, 2, 8, ("a", "b")), g(4, 2, 1, 9, ("a", "b"))]
    sets = duplicate_sets(games)
    assert [[o.index for o in s] for s in sets] == [[0, 1], [2, 3], [4]]
