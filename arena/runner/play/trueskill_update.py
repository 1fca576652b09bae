"""The TrueSkill update of one table, bit for bit what the ``trueskill`` package's
``TrueSkill.rate`` gives for Arena's tables, in a fraction of its time.

Arena rates every game as a free-for-all of one-player teams (2 to 4 seats, ranks that may
tie) in one environment (:mod:`arena.runner.play.ratings`), with the package's default
``min_delta`` and schedule. :func:`rate` computes that case alone: the same factor graph (per
seat a prior, a performance and a team performance; per neighbours in rank order a difference
and its truncation), the same Gaussians as precision and precision-adjusted mean, the same
messages in the same order, the same floating-point operations in the same order (the
package's own erfc, cdf, pdf and ppf, v and w, and convergence test). Only the objects are
gone: variables and messages are floats.

Where the package takes a branch of its own for a degenerate value (a zero precision or
denominator, a w outside (0, 1), an overflow), the table is left to the package
(:func:`_package_rate`): its answer, or its error, is the package's own; so is the check of
the arguments (fewer than two seats, ranks of another length).

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

MIN_DELTA = 0.0001  # the package's default: the passes stop when no truncation moves more
PASSES = 10  # the most passes its schedule makes

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
    p = 0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))
    p = 1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * p)))
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


#: The draw margin between two neighbours: the package's ``calc_draw_margin`` of two players
#: (its ppf of N(0, 1) written out: 0 - 1 * sqrt(2) * erfcinv(2q)).
DRAW_MARGIN = ((0 - 1 * math.sqrt(2) * _erfcinv(2 * ((TRUESKILL_DRAW_PROBABILITY + 1) / 2.)))
               * math.sqrt(2) * TRUESKILL_BETA)


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
    try:
        if n == 2:
            first, second = ranks
            if second < first:  # the package's stable sort by rank
                low, high = _two(ratings[1], ratings[0], False)
                return [high, low]
            return list(_two(ratings[0], ratings[1], first == second))
        order = sorted(range(n), key=ranks.__getitem__)
        made = _many([ratings[s] for s in order],
                     [ranks[order[k]] == ranks[order[k + 1]] for k in range(n - 1)])
    except (ArithmeticError, ValueError):
        return _package_rate(ratings, ranks)
    return [made[k] for k in sorted(range(n), key=order.__getitem__)]


#: One seat's state: the skill's prior (r), the performance's message from the likelihood (l)
#: and its value (v), the team performance's message from the team sum (s), each a precision
#: and a precision-adjusted mean (the team performance's value is kept apart).
_Seat = tuple[float, float, float, float, float, float, float, float]


def _seat_down(mu: float, sigma: float) -> tuple[_Seat, float, float]:
    """Down one seat's prior (the skill widened by the drift), likelihood and team sum:
    its state and the team performance's value."""
    r_p = math.sqrt(sigma ** 2 + _TAU2) ** -2
    r_t = r_p * mu
    a = 1. / (1. + _BETA2 * r_p)
    l_p, l_t = a * r_p, a * r_t
    v_p, v_t = 0.0 + l_p, 0.0 + l_t
    mean = 0.0 + v_t / v_p
    s_p = 1. / (0.0 + 1. / v_p)
    s_t = s_p * mean
    return (r_p, r_t, l_p, l_t, v_p, v_t, s_p, s_t), 0.0 + s_p, 0.0 + s_t


def _seat_up(seat: _Seat, t_p: float, t_t: float) -> Rating:
    """Up one seat's team sum and likelihood, from its team performance's last value: the
    skill's new value, as a rating made of it reads."""
    r_p, r_t, l_p, l_t, v_p, v_t, s_p, s_t = seat
    ap, at = t_p - s_p, t_t - s_t
    mean = 0.0 + at / ap
    pi = 1. / (0.0 + 1. / ap)
    mp, mt = (v_p + pi) - l_p, (v_t + pi * mean) - l_t
    a = 1. / (1. + _BETA2 * mp)
    pi, tau = r_p + a * mp, r_t + a * mt
    return readback(tau / pi, math.sqrt(1 / pi))


def _sum(ap: float, at: float, bp: float, bt: float) -> tuple[float, float]:
    """A sum factor's message to a variable, its other two making (ap, at) and (bp, bt),
    coefficients 1 (-1: ``bt`` negated, the same floats as x + -y is x - y)."""
    mean = (0.0 + at / ap) + bt / bp
    inv = 0.0 + 1. / ap
    if inv != _INF:
        inv += 1. / bp
    pi = 1. / inv
    return pi, pi * mean


def _moved(old_p: float, old_t: float, pi: float, tau: float) -> float:
    """How far a variable moved from (old_p, old_t) to (pi, tau), by the package's measure."""
    by_p = abs(old_p - pi)
    if by_p == _INF:
        return 0.
    by_t, by_p = abs(old_t - tau), math.sqrt(by_p)
    return by_p if by_p > by_t else by_t


def _two(first: Rating, second: Rating, tie: bool) -> tuple[Rating, Rating]:
    """:func:`rate` of two seats in rank order: one difference, truncated until it moves by
    at most MIN_DELTA, then sent up both sides (as :func:`_many` does, unrolled)."""
    seat0, t0_p, t0_t = _seat_down(*first)
    seat1, t1_p, t1_t = _seat_down(*second)
    # The difference sum's message down is the same each pass: no message has come back
    # up to the teams yet (their messages from the difference are zero: x - 0.0 is x).
    pi, tau = _sum(t0_p, t0_t, t1_p, -t1_t)
    d_p = d_t = dd_p = dd_t = tr_p = tr_t = 0.0
    for _ in range(PASSES):
        d_p, d_t = (d_p - dd_p) + pi, (d_t - dd_t) + tau
        dd_p, dd_t = pi, tau
        new_p, new_t = _truncate(d_p - tr_p, d_t - tr_t, tie)
        tr_p, tr_t = (new_p + tr_p) - d_p, (new_t + tr_t) - d_t
        moved = _moved(d_p, d_t, new_p, new_t)
        d_p, d_t = new_p, new_t
        if moved <= MIN_DELTA:
            break
    # Up to the first team (the difference plus the second), then to the second (the first
    # less the difference).
    dl_p, dl_t = _sum(d_p - dd_p, d_t - dd_t, t1_p, t1_t)
    t0_p, t0_t = t0_p + dl_p, t0_t + dl_t
    dr_p, dr_t = _sum(t0_p - dl_p, t0_t - dl_t, d_p - dd_p, -(d_t - dd_t))
    return _seat_up(seat0, t0_p, t0_t), _seat_up(seat1, t1_p + dr_p, t1_t + dr_t)


def _many(ratings: list[Rating], ties: list[bool]) -> list[Rating]:
    """:func:`rate` of three seats or more in rank order, ``ties[k]`` if seats k and k + 1
    share a rank.

    Per seat, besides its state: the team performance's value (t) and its messages from the
    differences on its left (dl: the difference with the seat after it) and on its right
    (dr: with the seat before it). Per neighbours: the difference's value (d), its message
    from the difference sum (dd) and from the truncation (tr). Each is a precision (``_p``)
    and a precision-adjusted mean (``_t``); a message not yet sent is zero."""
    n = len(ratings)
    seats, t_ps, t_ts = zip(*(_seat_down(mu, sigma) for mu, sigma in ratings), strict=True)
    t_p, t_t = list(t_ps), list(t_ts)
    dl_p, dl_t, dr_p, dr_t = ([0.0] * n for _ in range(4))
    d_p, d_t, dd_p, dd_t, tr_p, tr_t = ([0.0] * (n - 1) for _ in range(6))

    def truncated(j: int) -> float:  # down to difference j, and its truncation's move
        k = j + 1
        pi, tau = _sum(t_p[j] - dl_p[j], t_t[j] - dl_t[j], t_p[k] - dr_p[k],
                       -(t_t[k] - dr_t[k]))
        old_p, old_t = (d_p[j] - dd_p[j]) + pi, (d_t[j] - dd_t[j]) + tau
        dd_p[j], dd_t[j] = pi, tau
        pi, tau = _truncate(old_p - tr_p[j], old_t - tr_t[j], ties[j])
        tr_p[j], tr_t[j] = (pi + tr_p[j]) - old_p, (tau + tr_t[j]) - old_t
        d_p[j], d_t[j] = pi, tau
        return _moved(old_p, old_t, pi, tau)

    def to_right(j: int) -> None:  # up to team j + 1: team j less the difference
        k = j + 1
        pi, tau = _sum(t_p[j] - dl_p[j], t_t[j] - dl_t[j], d_p[j] - dd_p[j],
                       -(d_t[j] - dd_t[j]))
        t_p[k], t_t[k] = (t_p[k] - dr_p[k]) + pi, (t_t[k] - dr_t[k]) + tau
        dr_p[k], dr_t[k] = pi, tau

    def to_left(j: int) -> None:  # up to team j: the difference plus team j + 1
        k = j + 1
        pi, tau = _sum(d_p[j] - dd_p[j], d_t[j] - dd_t[j], t_p[k] - dr_p[k],
                       t_t[k] - dr_t[k])
        t_p[j], t_t[j] = (t_p[j] - dl_p[j]) + pi, (t_t[j] - dl_t[j]) + tau
        dl_p[j], dl_t[j] = pi, tau

    last = n - 2
    for _ in range(PASSES):
        # Down the chain, each difference sent on to the team after it; then back up the
        # chain, each sent on to the team before it.
        delta = 0.0
        for j in range(last):
            moved = truncated(j)
            if moved > delta:
                delta = moved
            to_right(j)
        for j in range(last, 0, -1):
            moved = truncated(j)
            if moved > delta:
                delta = moved
            to_left(j)
        if delta <= MIN_DELTA:
            break
    to_left(0)
    to_right(last)
    return [_seat_up(seat, t_p[i], t_t[i]) for i, seat in enumerate(seats)]


def make_environment() -> trueskill.TrueSkill:
    """A fresh, private ``trueskill.TrueSkill`` environment with these parameters (the
    package is imported only when one is made)."""
    import trueskill

    return trueskill.TrueSkill(mu=TRUESKILL_MU, sigma=TRUESKILL_SIGMA, beta=TRUESKILL_BETA,
                               tau=TRUESKILL_TAU, draw_probability=TRUESKILL_DRAW_PROBABILITY)


def _package_rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """:func:`rate` by the package itself (its answer, or its error)."""
    from types import SimpleNamespace

    # The prior reads a rating's mu and sigma alone: these are given as they read.
    rated = make_environment().rate(
        [(SimpleNamespace(mu=mu, sigma=sigma),) for mu, sigma in ratings], ranks=ranks)
    return [(r.mu, r.sigma) for (r,) in rated]
