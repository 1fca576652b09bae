"""Two players: bot A against bot B in the two-player games they played, as the chess engine
testers (Fishtest, fastchess, cutechess) measure a match.

**Pairs.** The two games of a duplicate set (one table, one seed, seats swapped) are a *game
pair*: luck that favours a seat or a deal is played from both sides, so a pair's result varies
much less than two independent games' and the pentanomial model, which counts pairs, gives
narrower and honest intervals where the trinomial one (games counted alone) overstates them.
A pair scores 0, 0.5, 1, 1.5 or 2 points from A's side (a game: win 1, draw 0.5, loss 0; a
draw is an equal rank, a failed seat is ranked last and so loses); the five counts are the
pentanomial ``[LL, LD, WL+DD, WD, WW]`` in Fishtest's order.

**Unpaired games are left out** of the pentanomial figures and counted (``unpaired``): a game
whose rotation is missing (a run stopped between the two) is not a pair, and mixing it in as a
single would give a distribution of two kinds of unit with one variance. Only a match with no
pair at all (a schedule without seat rotation) falls back to the trinomial model of its games,
the same formulas with a game, not a pair, as the unit.

**Formulas** (Fishtest ``stat_util.get_elo`` and ``LLRcalc``; fastchess ``EloPentanomial``),
with the unit's score x on [0, 1] (a pair: points / 2; a game: its points), N units, the
empirical mean s and variance v of x:

- Elo = -400 log10(1/s - 1); its 95% interval maps s +- 1.96 sqrt(v / N) through the same
  function (an end outside (0, 1) is infinite: the data cannot bound it there). Reported as
  the interval and as fastchess's symmetric "+-", half its width.
- **Every unit alike** (v = 0: every pair won, lost or split, say): the normal interval has no
  width, yet the data do not know s. The interval is then the one that holds for any law of
  the unit's score (:func:`arena.stats.common.alike_interval`): every pair split gives a
  finite interval about 0; every pair won gives Elo +inf, which is no estimate, and the
  one-sided bound "at least X at 95%" (at least 137 Elo after 8 won pairs), and every pair
  lost the mirror image. nElo, a score over its spread, is undefined there (None).
- LOS = Phi((s - 1/2) / sqrt(v / N)).
- nElo (normalised Elo) = (s - 1/2) / sigma * 800 / ln 10, sigma the per-game standard
  deviation: sqrt(2 v) for pairs, sqrt(v) for games; its interval maps the same score interval.
- Draw ratio: drawn games / games (cutechess), and drawn pairs (WL + DD) / pairs (fastchess's
  pentanomial "DrawRatio").
- SPRT (:func:`sprt`): the generalized SPRT's log-likelihood ratio as Fishtest
  (``LLRcalc.LLR_logistic``, ``LLR_normalized``) and fastchess compute it: N sum_i
  p_i ln(p1_i / p0_i), p the empirical distribution of the unit's score and p0, p1 the
  distributions nearest to it (maximum likelihood) whose expected score is that of logistic
  elo0, elo1 (s = 1 / (1 + 10^(-elo/400))), or whose t-value (s - 1/2) / sd is that of
  normalised nelo0, nelo1 (t = nelo / (800 / ln 10), times sqrt 2 for a pair's sd): van den
  Bergh, "Comments on normalized Elo", Proposition 1.1 and section 4.1. Counts of zero are
  replaced by 1e-3 first, as both tools do, so a one-sided match still has a variance.
  Bounds ln(beta / (1 - alpha)) and ln((1 - beta) / alpha) (Wald). Near the hypotheses, where
  an SPRT decides, this equals Fishtest's Brownian approximations (:func:`llr_logistic_approx`:
  N (s1 - s0)(2 s - s0 - s1) / (2 v); :func:`llr_normalized_approx`:
  (games / 2) ln((1 + (t - t0)^2) / (1 + (t - t1)^2))); far beyond both they understate it
  (the normalised one goes to 0 as a match gets one-sided), which is why the exact form is
  the one used.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from arena.results import GameOutcome
from arena.stats.common import (
    Z95,
    Interval,
    alike_interval,
    finite_or_none,
    normal_cdf,
    set_key,
)

#: 800 / ln 10: normalised Elo per unit of t-value (Fishtest's ``nelo_divided_by_nt``).
NELO_PER_T = 800 / math.log(10)
#: What a count of zero becomes in the SPRT (Fishtest's and fastchess's regularisation).
REGULARIZE = 1e-3

Model = Literal["logistic", "normalized"]


def elo_from_score(s: float) -> float:
    """Logistic Elo difference of an expected score: -400 log10(1/s - 1), +-inf at 1 and 0
    and beyond (an interval's end past the possible scores is unbounded)."""
    if s >= 1:
        return math.inf
    if s <= 0:
        return -math.inf
    return -400 * math.log10(1 / s - 1)


def score_from_elo(elo: float) -> float:
    """The expected score of a logistic Elo difference."""
    return 1 / (1 + 10 ** (-elo / 400))


def game_points(rank_a: int, rank_b: int) -> float:
    """A's points in one game against B: 1 ahead, 1/2 level, 0 behind."""
    return 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0


@dataclass(frozen=True)
class Moments:
    """The mean and variance of a unit's score on [0, 1] over ``counts`` (units scoring
    0, 1/(k-1), ..., 1 for k counts), with N units and games per unit."""

    n: float
    mean: float
    var: float
    games_per_unit: int

    @classmethod
    def of(cls, counts: Sequence[float]) -> Moments:
        k = len(counts)
        n = math.fsum(counts)
        if n <= 0:
            return cls(0.0, 0.5, 0.0, (k - 1) // 2)
        values = [i / (k - 1) for i in range(k)]
        mean = math.fsum(c * x for c, x in zip(counts, values, strict=True)) / n
        var = math.fsum(c * (x - mean) ** 2 for c, x in zip(counts, values, strict=True)) / n
        return cls(n, mean, var, (k - 1) // 2)

    @property
    def sigma_per_game(self) -> float:
        """The per-game standard deviation: sqrt(2 v) for pairs, sqrt(v) for games."""
        return math.sqrt(self.games_per_unit * self.var)

    @property
    def se(self) -> float:
        """The standard error of the mean score, sqrt(v / N)."""
        return math.sqrt(self.var / self.n) if self.n else math.inf


def nelo_from_score(s: float, sigma: float) -> float:
    """Normalised Elo of score s at per-game standard deviation sigma."""
    if sigma == 0:
        return 0.0 if s == 0.5 else math.copysign(math.inf, s - 0.5)
    return (s - 0.5) / sigma * NELO_PER_T


@dataclass(frozen=True)
class Sprt:
    """An SPRT's state: the log-likelihood ratio, Wald's bounds and the verdict."""

    model: Model
    elo0: float
    elo1: float
    alpha: float
    beta: float
    llr: float
    lower: float
    upper: float

    @property
    def verdict(self) -> str:
        """"H1" (elo1 accepted: A is better by elo1), "H0" (elo0 accepted) or "continue"."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return "continue"

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha,
                "beta": self.beta, "llr": self.llr, "lower": self.lower, "upper": self.upper,
                "verdict": self.verdict}


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the LLR: ln(beta / (1 - alpha)) and ln((1 - beta) / alpha)."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError(f"alpha and beta must be in (0, 1) with alpha + beta < 1, got "
                         f"alpha {alpha}, beta {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _root(f: Callable[[float], float], lo: float, hi: float) -> float:
    """The root of a decreasing function on (lo, hi) that runs from +inf to -inf, by
    bisection to the last bit."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _pdf(counts: Sequence[float]) -> tuple[float, list[float], list[float]]:
    """N, the unit scores a_i and the empirical probabilities of regularised counts."""
    reg = [c if c > 0 else REGULARIZE for c in counts]
    n = math.fsum(reg)
    return n, [i / (len(reg) - 1) for i in range(len(reg))], [c / n for c in reg]


def _mle_mean(a: list[float], phat: list[float], s: float) -> list[float]:
    """The distribution on the scores a nearest to phat (maximum likelihood) with mean s:
    p_i = phat_i / (1 + x (a_i - s)), x the root of sum phat_i (a_i - s) / (1 + x (a_i - s))
    (Proposition 1.1)."""
    b = [ai - s for ai in a]
    return _mle_secular(phat, b)


def _mle_secular(phat: list[float], b: list[float]) -> list[float]:
    """p_i = phat_i / (1 + x b_i) with x the root of sum phat_i b_i / (1 + x b_i) = 0.
    Raises ValueError when there is none: b of one sign, a constraint no distribution on
    these scores meets."""
    if not min(b) < 0 < max(b):
        raise ValueError("no distribution on the scores meets the hypothesis")
    eps = 1e-12
    x = _root(lambda x: math.fsum(p * bi / (1 + x * bi) for p, bi in zip(phat, b, strict=True)),
              -1 / max(b) + eps, -1 / min(b) - eps)
    return [p / (1 + x * bi) for p, bi in zip(phat, b, strict=True)]


def _mle_t(a: list[float], phat: list[float], t: float) -> list[float]:
    """The distribution on the scores a nearest to phat with t-value (mean - 1/2) / sd = t,
    by the fixed-point iteration of section 4.1 from the uniform distribution."""
    p = [1 / len(a)] * len(a)
    for _ in range(100):
        mu = math.fsum(pi * ai for pi, ai in zip(p, a, strict=True))
        sd = math.sqrt(math.fsum(pi * (ai - mu) ** 2 for pi, ai in zip(p, a, strict=True)))
        phi = [ai - 0.5 - t * sd * (1 + ((mu - ai) / sd) ** 2) / 2 for ai in a]
        new = _mle_secular(phat, phi)
        done = max(abs(x - y) for x, y in zip(new, p, strict=True)) < 1e-12
        p = new
        if done:
            break
    return p


def _llr(n: float, phat: list[float], p0: list[float], p1: list[float]) -> float:
    return n * math.fsum(p * (math.log(q1) - math.log(q0))
                         for p, q0, q1 in zip(phat, p0, p1, strict=True))


def llr_logistic(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalized LLR of logistic elo1 against elo0 for pentanomial (5) or trinomial (3)
    counts (zeros regularised)."""
    n, a, phat = _pdf(counts)
    p0, p1 = (_mle_mean(a, phat, score_from_elo(e)) for e in (elo0, elo1))
    return _llr(n, phat, p0, p1)


def llr_normalized(counts: Sequence[float], nelo0: float, nelo1: float) -> float:
    """The generalized LLR of normalised nelo1 against nelo0 for pentanomial (5) or trinomial
    (3) counts (zeros regularised)."""
    n, a, phat = _pdf(counts)
    per_unit = math.sqrt((len(counts) - 1) // 2)  # a pair's t-value is sqrt(2) a game's
    try:
        p0, p1 = (_mle_t(a, phat, nelo / NELO_PER_T * per_unit) for nelo in (nelo0, nelo1))
    except ValueError:
        raise ValueError(f"the normalised SPRT cannot test nElo {nelo0:g} against "
                         f"{nelo1:g}: bounds that far from 0 fit no distribution of results; "
                         "use bounds nearer 0") from None
    return _llr(n, phat, p0, p1)


def llr_logistic_approx(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """Fishtest's Brownian approximation of :func:`llr_logistic`:
    N (s1 - s0)(2 s - s0 - s1) / (2 v)."""
    m = Moments.of([c if c > 0 else REGULARIZE for c in counts])
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return m.n * (s1 - s0) * (2 * m.mean - s0 - s1) / (2 * m.var)


def llr_normalized_approx(counts: Sequence[float], nelo0: float, nelo1: float) -> float:
    """Fishtest's approximation of :func:`llr_normalized`:
    (games / 2) ln((1 + (t - t0)^2) / (1 + (t - t1)^2)), t the per-game t-value."""
    m = Moments.of([c if c > 0 else REGULARIZE for c in counts])
    t = (m.mean - 0.5) / m.sigma_per_game
    t0, t1 = nelo0 / NELO_PER_T, nelo1 / NELO_PER_T
    games = m.n * m.games_per_unit
    return games / 2 * math.log((1 + (t - t0) ** 2) / (1 + (t - t1) ** 2))


def sprt(counts: Sequence[float], elo0: float, elo1: float, alpha: float = 0.05,
         beta: float = 0.05, model: Model = "logistic") -> Sprt:
    """The SPRT of H1 (A is better by elo1) against H0 (by elo0) on pentanomial or trinomial
    counts; ``model`` says whether elo0 and elo1 are logistic or normalised Elo."""
    if not elo0 < elo1:
        raise ValueError(f"elo0 must be below elo1, got {elo0} and {elo1}")
    lower, upper = sprt_bounds(alpha, beta)
    if model == "logistic":
        llr = llr_logistic(counts, elo0, elo1)
    elif model == "normalized":
        llr = llr_normalized(counts, elo0, elo1)
    else:
        raise ValueError(f"model must be logistic or normalized, got {model!r}")
    return Sprt(model, elo0, elo1, alpha, beta, llr, lower, upper)


@dataclass(frozen=True)
class Match:
    """Bot ``a`` against bot ``b`` over their two-player games (see the module docstring).

    ``wins``/``draws``/``losses`` count every game from A's side, paired or not;
    ``pentanomial`` the pairs ``[LL, LD, WL+DD, WD, WW]``; ``unpaired`` the games left out of
    it. ``model`` is "pentanomial", or "trinomial" when there is no pair (then the figures
    come from ``trinomial``, ``[L, D, W]`` over every game).
    """

    a: str
    b: str
    wins: int
    draws: int
    losses: int
    pentanomial: tuple[int, int, int, int, int]
    unpaired: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)

    @property
    def trinomial(self) -> tuple[int, int, int]:
        return (self.losses, self.draws, self.wins)

    @property
    def model(self) -> str:
        return "pentanomial" if self.pairs else "trinomial"

    @property
    def counts(self) -> tuple[int, ...]:
        """The counts the figures come from: the pentanomial, or without pairs the trinomial."""
        return self.pentanomial if self.pairs else self.trinomial

    @property
    def moments(self) -> Moments:
        return Moments.of(self.counts)

    @property
    def score(self) -> float | None:
        """A's mean score per game in the model's units (None without games)."""
        m = self.moments
        return m.mean if m.n else None

    @property
    def alike(self) -> bool:
        """Whether every unit (pair, or game without pairs) scored the same: the figures'
        spread is then unknown, not zero."""
        m = self.moments
        return bool(m.n) and m.var == 0

    @property
    def unit(self) -> str:
        """What the figures count: "pair", or "game" when there is no pair."""
        return "pair" if self.pairs else "game"

    def score_interval(self, clamped: bool = True) -> Interval | None:
        """mean +- 1.96 sqrt(v / N), clamped to the possible scores [0, 1] unless not
        ``clamped`` (an end past them maps to an unbounded Elo either way; nElo, linear in
        the score, maps the unclamped interval, as fastchess does). When every unit scored
        alike, the interval that holds for any spread (see the module docstring)."""
        m = self.moments
        if not m.n:
            return None
        if m.var == 0:
            return alike_interval(m.mean, m.n)
        low, high = m.mean - Z95 * m.se, m.mean + Z95 * m.se
        return Interval(max(0.0, low), min(1.0, high)) if clamped else Interval(low, high)

    @property
    def elo(self) -> float | None:
        return None if self.score is None else elo_from_score(self.score)

    def elo_interval(self) -> Interval | None:
        si = self.score_interval()
        return None if si is None else Interval(elo_from_score(si.low), elo_from_score(si.high))

    @property
    def elo_error(self) -> float | None:
        """fastchess's "+-": half the width of the Elo interval (inf if it is unbounded)."""
        ei = self.elo_interval()
        return None if ei is None else (ei.high - ei.low) / 2

    @property
    def los(self) -> float | None:
        """The likelihood of superiority, P(A is stronger than B)."""
        m = self.moments
        if not m.n:
            return None
        if m.var == 0:
            return 0.5 if m.mean == 0.5 else float(m.mean > 0.5)
        return normal_cdf((m.mean - 0.5) / m.se)

    @property
    def nelo(self) -> float | None:
        """Normalised Elo; None without games, or when every unit scored alike (no spread to
        normalise by)."""
        m = self.moments
        return nelo_from_score(m.mean, m.sigma_per_game) if m.n and m.var else None

    def nelo_interval(self) -> Interval | None:
        m, si = self.moments, self.score_interval(clamped=False)
        if si is None or not m.var:
            return None
        return Interval(nelo_from_score(si.low, m.sigma_per_game),
                        nelo_from_score(si.high, m.sigma_per_game))

    @property
    def draw_ratio(self) -> float | None:
        """Drawn games / games."""
        return self.draws / self.games if self.games else None

    @property
    def pair_draw_ratio(self) -> float | None:
        """Drawn pairs (WL + DD, one point of two) / pairs."""
        return self.pentanomial[2] / self.pairs if self.pairs else None

    def sprt(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
             model: Model = "logistic") -> Sprt:
        return sprt(self.counts, elo0, elo1, alpha, beta, model)

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-safe data (an unbounded or undefined figure is None)."""
        ei, ni, si = self.elo_interval(), self.nelo_interval(), self.score_interval()
        return {
            "a": self.a, "b": self.b, "games": self.games, "wins": self.wins,
            "draws": self.draws, "losses": self.losses, "pairs": self.pairs,
            "pentanomial": list(self.pentanomial), "unpaired": self.unpaired,
            "model": self.model, "score": self.score,
            "score_interval": None if si is None else si.to_list(),
            "elo": finite_or_none(self.elo),
            "elo_interval": None if ei is None else ei.to_list(),
            "elo_error": finite_or_none(self.elo_error),
            "los": self.los, "nelo": finite_or_none(self.nelo),
            "nelo_interval": None if ni is None else ni.to_list(),
            "draw_ratio": self.draw_ratio, "pair_draw_ratio": self.pair_draw_ratio,
        }


def match(outcomes: Iterable[GameOutcome], a: str, b: str) -> Match:
    """A against B over their two-player games in ``outcomes`` (other games are ignored).

    Within a duplicate set, the games with A in seat 0 are paired in schedule order with the
    games with A in seat 1; a game left over has no pair (``unpaired``)."""
    if a == b:
        raise ValueError(f"a bot cannot be compared with itself ({a})")
    points = {0.0: 0, 0.5: 0, 1.0: 0}
    by_set: dict[tuple[int, int, int, frozenset[str]], tuple[list[float], list[float]]] = {}
    for o in sorted(outcomes, key=lambda o: o.index):
        if len(o.bots) != 2 or set(o.bots) != {a, b}:
            continue
        seat_a = o.bots.index(a)
        p = game_points(o.ranks[seat_a], o.ranks[1 - seat_a])
        points[p] += 1
        by_set.setdefault(set_key(o), ([], []))[seat_a].append(p)
    penta = [0] * 5
    unpaired = 0
    for first, second in by_set.values():
        for x, y in zip(first, second, strict=False):
            penta[round(2 * (x + y))] += 1
        unpaired += abs(len(first) - len(second))
    return Match(a, b, wins=points[1.0], draws=points[0.5], losses=points[0.0],
                 pentanomial=(penta[0], penta[1], penta[2], penta[3], penta[4]),
                 unpaired=unpaired)
