"""The TrueSkill update of one table, bit for bit what the ``trueskill`` package's
``TrueSkill.rate`` gives for Arena's tables, in a fraction of its time.

Arena rates every game as a free-for-all of one-player teams (2 to 4 seats, ranks that may
tie) in one environment (:mod:`arena.runner.play.ratings` gives its parameters), with the
package's default ``min_delta`` and its own schedule of messages. :func:`rate` computes that
case alone: the same factor graph (a prior, a performance, a team performance per seat; a
difference and a truncation per pair of neighbours in rank order), its Gaussians in the same
precision and precision-times-mean form, every message sent in the same order, with the same
floating-point operations in the same order, the package's own erfc, cdf, pdf and ppf (its
default backend's) and its v and w functions, the same convergence test. Only the objects are
gone: the variables and messages are floats in lists.

Where the package takes a branch for a degenerate value (a precision of zero, a denominator
of zero, a w outside (0, 1), an overflow), this module gives up on the table and lets the
package rate it (:func:`_package_rate`): its answer, or its error, is then the package's own.
So are the checks of the arguments (fewer than two seats, ranks of another length).

A rating here is a (mu, sigma) pair as a ``trueskill.Rating`` reads it: the package keeps a
precision and a precision-adjusted mean, so a rating made of (mu, sigma) may read back a last
bit apart; :func:`readback` gives what it reads back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from arena.runner.play.standings import (
    TRUESKILL_BETA,
    TRUESKILL_DRAW_PROBABILITY,
    TRUESKILL_MU,
    TRUESKILL_SIGMA,
    TRUESKILL_TAU,
)

if TYPE_CHECKING:
    import trueskill

#: The package's default ``min_delta``: the schedule of a table of more than two stops when
#: no truncation moves its variable by more than this.
MIN_DELTA = 0.0001
#: The most passes the schedule makes.
PASSES = 10

_INF = math.inf
_SQRT2 = math.sqrt(2)
_PDF_SCALE = 1 / math.sqrt(2 * math.pi)  # the pdf of N(0, 1) before its exponential
_BETA2 = TRUESKILL_BETA ** 2  # a performance's variance about the skill
_TAU2 = TRUESKILL_TAU ** 2  # the drift added to a skill's variance before each game

Rating = tuple[float, float]


def readback(mu: float, sigma: float) -> Rating:
    """The (mu, sigma) a rating made of ``mu`` and ``sigma`` reads back."""
    if sigma == 0:
        raise ValueError("sigma**2 should be greater than 0")
    pi = sigma ** -2
    tau = pi * mu
    return (tau / pi if pi else pi), (math.sqrt(1 / pi) if pi else _INF)


def _erfc(x: float) -> float:
    """The complementary error function, by the package's approximation (Numerical
    Recipes' Chebyshev fit), evaluated in the same order."""
    z = abs(x)
    t = 1. / (1. + z / 2.)
    p = -0.82215223 + t * 0.17087277
    p = 1.48851587 + t * p
    p = -1.13520398 + t * p
    p = 0.27886807 + t * p
    p = -0.18628806 + t * p
    p = 0.09678418 + t * p
    p = 0.37409196 + t * p
    p = 1.00002368 + t * p
    r = t * math.exp(-z * z - 1.26551223 + t * p)
    return 2. - r if x < 0 else r


def _cdf(x: float) -> float:
    return 0.5 * _erfc(-x / _SQRT2)


def _pdf(x: float) -> float:
    return _PDF_SCALE * math.exp(-(x ** 2 / 2))


def _erfcinv(y: float) -> float:
    """The inverse of :func:`_erfc`: the package's first guess and two Newton steps."""
    if y >= 2:
        return -100.
    if y <= 0:
        return 100.
    low = y < 1
    if not low:
        y = 2 - y
    t = math.sqrt(-2 * math.log(y / 2.))
    x = -0.70711 * ((2.30753 + t * 0.27061) / (1. + t * (0.99229 + t * 0.04481)) - t)
    for _ in range(2):
        err = _erfc(x) - y
        x += err / (1.12837916709551257 * math.exp(-(x ** 2)) - x * err)
    return x if low else -x


def _ppf(q: float) -> float:
    return 0 - 1 * math.sqrt(2) * _erfcinv(2 * q)


#: The draw margin between two neighbours (two players: the package's ``calc_draw_margin``
#: with size 2).
DRAW_MARGIN = _ppf((TRUESKILL_DRAW_PROBABILITY + 1) / 2.) * math.sqrt(2) * TRUESKILL_BETA


class _Degenerate(ArithmeticError):
    """A value the package treats by a branch of its own: the table is left to it."""


def _truncate(pi: float, tau: float, tie: bool) -> tuple[float, float]:
    """The truncation factor's new value of a difference whose other messages make
    (``pi``, ``tau``): the package's v and w of a win, or of a draw if ``tie``."""
    sqrt_pi = math.sqrt(pi)
    diff = tau / sqrt_pi
    margin = DRAW_MARGIN * sqrt_pi
    if tie:
        abs_diff = abs(diff)
        a, b = margin - abs_diff, -margin - abs_diff
        denom = _cdf(a) - _cdf(b)
        if not denom:
            raise _Degenerate
        pdf_a, pdf_b = _pdf(a), _pdf(b)
        v_abs = (pdf_b - pdf_a) / denom
        v = -v_abs if diff < 0 else v_abs
        w = v_abs ** 2 + (a * pdf_a - b * pdf_b) / denom
    else:
        x = diff - margin
        denom = _cdf(x)
        if not denom:
            raise _Degenerate
        v = _pdf(x) / denom
        w = v * (v + x)
        if not 0 < w < 1:
            raise _Degenerate
    rest = 1. - w
    return pi / rest, (tau + sqrt_pi * v) / rest


def rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The new ratings of the seats of one table, each a one-player team, in the order
    given: ``trueskill.TrueSkill.rate([(r,) for r in ratings], ranks=ranks)`` of this
    module's environment, each new rating as it reads, bit for bit."""
    n = len(ratings)
    if n < 2 or len(ranks) != n:
        return _package_rate(ratings, ranks)
    order = sorted(range(n), key=ranks.__getitem__)
    ties = [ranks[order[k]] == ranks[order[k + 1]] for k in range(n - 1)]
    try:
        made = _update([ratings[s] for s in order], ties)
    except (ArithmeticError, ValueError):
        return _package_rate(ratings, ranks)
    out: list[Rating] = [(0.0, 0.0)] * n
    for k, s in enumerate(order):
        out[s] = made[k]
    return out


def _update(ratings: list[Rating], ties: list[bool]) -> list[Rating]:
    """:func:`rate` of seats in rank order, ``ties[k]`` if seats k and k + 1 share a rank.

    Per seat: the skill's prior (r), the performance's message from the likelihood (l) and
    its value (v), the team performance's value (t), its message from the team sum (s), and
    from the differences on its left (dl: the difference with the seat after it) and on its
    right (dr: with the seat before it). Per neighbours: the difference's value (d), its
    message from the difference sum (dd) and from the truncation (tr). Each is a precision
    (``_p``) and a precision-adjusted mean (``_t``); a message not yet sent is zero."""
    n = len(ratings)
    r_p, r_t, l_p, l_t, v_p, v_t, s_p, s_t = ([0.0] * n for _ in range(8))
    t_p, t_t, dl_p, dl_t, dr_p, dr_t = ([0.0] * n for _ in range(6))
    d_p, d_t, dd_p, dd_t, tr_p, tr_t = ([0.0] * (n - 1) for _ in range(6))
    for i, (mu, sigma) in enumerate(ratings):
        # Down the prior (the skill widened by the drift), the likelihood, the team sum.
        pi = math.sqrt(sigma ** 2 + _TAU2) ** -2
        r_p[i], r_t[i] = pi, pi * mu
        a = 1. / (1. + _BETA2 * pi)
        l_p[i], l_t[i] = a * pi, a * r_t[i]
        v_p[i], v_t[i] = 0.0 + l_p[i], 0.0 + l_t[i]
        mean = 0.0 + v_t[i] / v_p[i]
        pi = 1. / (0.0 + 1. / v_p[i])
        s_p[i], s_t[i] = pi, pi * mean
        t_p[i], t_t[i] = 0.0 + pi, 0.0 + s_t[i]

    def down(j: int) -> None:
        """The difference sum to the difference j: team j less team j + 1."""
        ap, at = t_p[j] - dl_p[j], t_t[j] - dl_t[j]
        bp, bt = t_p[j + 1] - dr_p[j + 1], t_t[j + 1] - dr_t[j + 1]
        mean = (0.0 + at / ap) - bt / bp
        inv = 0.0 + 1. / ap
        if inv != _INF:
            inv += 1. / bp
        pi = 1. / inv
        tau = pi * mean
        d_p[j] = (d_p[j] - dd_p[j]) + pi
        d_t[j] = (d_t[j] - dd_t[j]) + tau
        dd_p[j], dd_t[j] = pi, tau

    def truncate(j: int) -> float:
        """The truncation to the difference j; how far it moved the difference."""
        old_p, old_t = d_p[j], d_t[j]
        pi, tau = _truncate(old_p - tr_p[j], old_t - tr_t[j], ties[j])
        tr_p[j] = (pi + tr_p[j]) - old_p
        tr_t[j] = (tau + tr_t[j]) - old_t
        d_p[j], d_t[j] = pi, tau
        moved = abs(old_p - pi)
        if moved == _INF:
            return 0.
        by_tau, by_pi = abs(old_t - tau), math.sqrt(moved)
        return by_pi if by_pi > by_tau else by_tau

    def up_right(j: int) -> None:
        """The difference sum j to team j + 1 (team j less the difference)."""
        ap, at = t_p[j] - dl_p[j], t_t[j] - dl_t[j]
        bp, bt = d_p[j] - dd_p[j], d_t[j] - dd_t[j]
        mean = (0.0 + at / ap) - bt / bp
        inv = 0.0 + 1. / ap
        if inv != _INF:
            inv += 1. / bp
        pi = 1. / inv
        tau = pi * mean
        k = j + 1
        t_p[k] = (t_p[k] - dr_p[k]) + pi
        t_t[k] = (t_t[k] - dr_t[k]) + tau
        dr_p[k], dr_t[k] = pi, tau

    def up_left(j: int) -> None:
        """The difference sum j to team j (the difference plus team j + 1)."""
        ap, at = d_p[j] - dd_p[j], d_t[j] - dd_t[j]
        bp, bt = t_p[j + 1] - dr_p[j + 1], t_t[j + 1] - dr_t[j + 1]
        mean = (0.0 + at / ap) + bt / bp
        inv = 0.0 + 1. / ap
        if inv != _INF:
            inv += 1. / bp
        pi = 1. / inv
        tau = pi * mean
        t_p[j] = (t_p[j] - dl_p[j]) + pi
        t_t[j] = (t_t[j] - dl_t[j]) + tau
        dl_p[j], dl_t[j] = pi, tau

    last = n - 2
    for _ in range(PASSES):
        if last == 0:
            down(0)
            delta = truncate(0)
        else:
            delta = 0.0
            for j in range(last):
                down(j)
                moved = truncate(j)
                if moved > delta:
                    delta = moved
                up_right(j)
            for j in range(last, 0, -1):
                down(j)
                moved = truncate(j)
                if moved > delta:
                    delta = moved
                up_left(j)
        if delta <= MIN_DELTA:
            break
    up_left(0)
    up_right(last)

    made: list[Rating] = []
    for i in range(n):
        # Up the team sum, the likelihood; the skill's new value, as a rating reads it.
        ap, at = t_p[i] - s_p[i], t_t[i] - s_t[i]
        mean = 0.0 + at / ap
        pi = 1. / (0.0 + 1. / ap)
        mp, mt = (v_p[i] + pi) - l_p[i], (v_t[i] + pi * mean) - l_t[i]
        a = 1. / (1. + _BETA2 * mp)
        pi, tau = r_p[i] + a * mp, r_t[i] + a * mt
        made.append(readback(tau / pi, math.sqrt(1 / pi)))
    return made


def make_environment() -> trueskill.TrueSkill:
    """A fresh, private ``trueskill.TrueSkill`` environment with these parameters (the
    package is imported only when one is made)."""
    import trueskill

    return trueskill.TrueSkill(
        mu=TRUESKILL_MU,
        sigma=TRUESKILL_SIGMA,
        beta=TRUESKILL_BETA,
        tau=TRUESKILL_TAU,
        draw_probability=TRUESKILL_DRAW_PROBABILITY,
    )


def _package_rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """:func:`rate` by the package itself (its answer, or its error)."""
    from types import SimpleNamespace

    # The prior reads a rating's mu and sigma alone: these are given as they read.
    rated = make_environment().rate(
        [(SimpleNamespace(mu=mu, sigma=sigma),) for mu, sigma in ratings], ranks=ranks)
    return [(r.mu, r.sigma) for (r,) in rated]
