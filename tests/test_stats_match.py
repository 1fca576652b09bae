"""Two-player statistics (arena.stats.match) against numbers worked out independently: by
hand from the published formulas (exact fractions where they are rational), from fastchess's
published output, and, for the SPRT, from the exact generalized likelihood ratio computed here
by another route (the maximum-likelihood distributions of van den Bergh's Proposition 1.1)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from arena.protocol.messages import Termination
from arena.results import GameOutcome
from arena.stats.match import (
    Match,
    llr_logistic_approx,
    llr_normalized_approx,
    match,
    sprt,
    sprt_bounds,
)

OK = Termination.OK


def penta(counts: tuple[int, int, int, int, int]) -> Match:
    return Match("a", "b", wins=0, draws=0, losses=0, pentanomial=counts, unpaired=0)


def test_elo_los_and_interval_of_a_worked_pentanomial() -> None:
    """[LL, LD, WL+DD, WD, WW] = [1, 4, 10, 8, 2]: 25 pairs scoring 0, 1/4, 1/2, 3/4, 1.

    s = (0 + 4/4 + 10/2 + 8*3/4 + 2) / 25 = 14/25 = 0.56
    E[x^2] = (4/16 + 10/4 + 8*9/16 + 2) / 25 = 37/100, v = 37/100 - (14/25)^2 = 141/2500
    se = sqrt(v / 25) = sqrt(141) / 250 = 0.0474974
    Elo = -400 log10(25/14 - 1) = -400 log10(11/14) = 41.8941
    score interval 0.56 -+ 1.959964 * 0.0474974 = [0.466906, 0.653094]
      -> Elo [-400 log10(1/0.466906 - 1), -400 log10(1/0.653094 - 1)] = [-23.0291, 109.9049]
    LOS = Phi(0.06 / 0.0474974) = Phi(1.263226) = 0.896746
    nElo = 0.06 / sqrt(2 v) * 800 / ln 10 = 0.06 / 0.335857 * 347.43559 = 62.0685
    """
    s = Fraction(14, 25)
    v = Fraction(37, 100) - s * s
    assert v == Fraction(141, 2500)
    m = penta((1, 4, 10, 8, 2))
    assert m.pairs == 25 and m.model == "pentanomial"
    assert m.score == pytest.approx(float(s), abs=1e-15)
    assert m.moments.var == pytest.approx(float(v), rel=1e-12)
    assert m.elo == pytest.approx(41.8941, abs=1e-4)
    ei = m.elo_interval()
    assert ei is not None
    assert (ei.low, ei.high) == (pytest.approx(-23.0291, abs=1e-4),
                                 pytest.approx(109.9049, abs=1e-4))
    assert m.elo_error == pytest.approx((109.9049 + 23.0291) / 2, abs=1e-4)
    assert m.los == pytest.approx(0.896746, abs=1e-6)
    assert m.nelo == pytest.approx(62.0685, abs=1e-4)
    assert m.pair_draw_ratio == pytest.approx(10 / 25)


def test_matches_fastchess_published_output() -> None:
    """fastchess printed, for Ptnml(0-2) [0, 0, 2, 0, 37] (78 games, 76 wins, 2 losses):
    "Elo: 631.91 +/- nan, nElo: 1056.68 +/- 77.10, LOS: 100.00 %, DrawRatio: 5.13 %".
    By hand: s = (2/2 + 37) / 39 = 38/39, Elo = -400 log10(1/38) = 631.913; the upper end of
    the score interval is past 1, which fastchess shows as nan and this as an unbounded
    interval; v = 2/39 (1/2 - 38/39)^2 + 37/39 (1/39)^2 = 37/2964 (exact), nElo = (38/39 -
    1/2) / sqrt(2 v) * 800 / ln 10 = 1056.684; pair draw ratio 2/39 = 5.13%."""
    m = penta((0, 0, 2, 0, 37))
    assert m.moments.var == pytest.approx(float(Fraction(37, 2964) * 0 + (
        Fraction(2, 39) * (Fraction(1, 2) - Fraction(38, 39)) ** 2
        + Fraction(37, 39) * (1 - Fraction(38, 39)) ** 2)), rel=1e-12)
    assert m.elo == pytest.approx(631.91, abs=0.005)
    ei = m.elo_interval()
    assert ei is not None and ei.high == math.inf and ei.low < 631.91
    assert m.elo_error == math.inf
    assert m.nelo == pytest.approx(1056.68, abs=0.005)
    ni = m.nelo_interval()
    assert ni is not None and (ni.high - ni.low) / 2 == pytest.approx(77.10, abs=0.005)
    assert m.los == pytest.approx(1.0, abs=5e-5)
    assert m.pair_draw_ratio == pytest.approx(0.0513, abs=5e-5)
    assert m.to_dict()["elo_interval"][1] is None  # JSON has no infinity


def exact_llr(counts: list[float], elo0: float, elo1: float) -> float:
    """The exact generalized LLR of logistic elo1 against elo0, written here again from the
    paper rather than imported: for each hypothesis the maximum-likelihood distribution with
    mean s, p_i = phat_i / (1 + x (a_i - s)), x the root of sum phat_i (a_i - s) /
    (1 + x (a_i - s)) = 0 (here by 200 plain halvings);
    LLR = N sum phat_i ln(p1_i / p0_i)."""
    counts = [c if c > 0 else 1e-3 for c in counts]
    n = sum(counts)
    a = [i / (len(counts) - 1) for i in range(len(counts))]
    phat = [c / n for c in counts]

    def mle(s: float) -> list[float]:
        lo, hi = -1 / (a[-1] - s) + 1e-12, -1 / (a[0] - s) - 1e-12
        for _ in range(200):
            mid = (lo + hi) / 2
            if sum(p * (ai - s) / (1 + mid * (ai - s)) for ai, p in zip(a, phat, strict=True)) > 0:
                lo = mid
            else:
                hi = mid
        x = (lo + hi) / 2
        return [p / (1 + x * (ai - s)) for ai, p in zip(a, phat, strict=True)]

    def score(elo: float) -> float:
        return 1 / (1 + 10 ** (-elo / 400))

    p0, p1 = mle(score(elo0)), mle(score(elo1))
    return n * sum(p * math.log(q1 / q0) for p, q0, q1 in zip(phat, p0, p1, strict=True))


def test_logistic_llr_approximation_is_the_worked_formula() -> None:
    """[1, 4, 10, 8, 2] with elo0 0, elo1 10: s0 = 1/2, s1 = 1 / (1 + 10^(-1/40)) = 0.514387,
    LLR ~ 25 (s1 - s0)(2 * 0.56 - s0 - s1) / (2 * 141/2500) = 0.336762."""
    s1 = 1 / (1 + 10 ** (-10 / 400))
    approx = llr_logistic_approx([1, 4, 10, 8, 2], 0, 10)
    assert approx == pytest.approx(25 * (s1 - 0.5) * (1.12 - 0.5 - s1) / (2 * 141 / 2500),
                                   rel=1e-12)
    assert approx == pytest.approx(0.336762, abs=1e-6)


@pytest.mark.parametrize(("counts", "elo0", "elo1", "tolerance"), [
    # Fishtest's own example (stat_util's self-test): near its hypotheses the exact LLR and
    # the approximation agree to 1e-4 ...
    ([10789, 19328, 33806, 19402, 10543], -3, 1, 1e-4),
    ([39, 2226, 31451, 2412, 40], 0.2, 0.9, 1e-3),
    # ... and on a small match with a wide window to 10%.
    ([1, 4, 10, 8, 2], 0, 10, 0.1),
])
def test_logistic_llr_is_the_exact_gllr_and_near_the_approximation(
        counts: list[float], elo0: float, elo1: float, tolerance: float) -> None:
    r = sprt(counts, elo0, elo1)
    assert r.model == "logistic"
    assert r.llr == pytest.approx(exact_llr(counts, elo0, elo1), rel=1e-9)
    assert r.llr == pytest.approx(llr_logistic_approx(counts, elo0, elo1), rel=tolerance)


def test_normalized_llr_matches_fastchess_and_the_worked_approximation() -> None:
    """fastchess printed "LLR: 2.96 (-2.94, 2.94) [0.00, 20.00]" for Ptnml [0, 0, 2, 0, 37]
    with its default normalised model.

    The approximation for [1, 4, 10, 8, 2], nElo 0 against 20: sigma = sqrt(2 * 141/2500) =
    0.335857, t = 0.06 / sigma = 0.178647, t0 = 0, t1 = 20 / 347.43559 = 0.057565;
    LLR ~ (50 / 2) ln((1 + t^2) / (1 + (t - t1)^2)) = 25 ln(1.031915 / 1.014661) = 0.421540,
    and the exact LLR is within 5% of it."""
    r = sprt([0, 0, 2, 0, 37], 0, 20, model="normalized")
    assert r.llr == pytest.approx(2.96, abs=0.005)
    assert (round(r.lower, 2), round(r.upper, 2), r.verdict) == (-2.94, 2.94, "H1")
    approx = llr_normalized_approx([1, 4, 10, 8, 2], 0, 20)
    assert approx == pytest.approx(0.421540, abs=1e-6)
    assert sprt([1, 4, 10, 8, 2], 0, 20, model="normalized").llr == pytest.approx(approx,
                                                                                  rel=0.05)
    # The approximation fades to 0 as a match gets one-sided; the exact LLR decides it.
    assert llr_normalized_approx([0, 0, 0, 0, 40], 0, 20) < 0.1
    assert sprt([0, 0, 0, 0, 40], 0, 20, model="normalized").verdict == "H1"
    assert sprt([40, 0, 0, 0, 0], 0, 20, model="normalized").verdict == "H0"


def test_sprt_bounds_and_verdicts() -> None:
    """Wald's bounds for alpha = beta = 0.05: ln(0.05 / 0.95) = -2.944439 and its negative;
    for alpha 0.1, beta 0.2: ln(0.2/0.9) = -1.504077, ln(0.8/0.1) = 2.079442."""
    assert sprt_bounds(0.05, 0.05) == (pytest.approx(-2.944439, abs=1e-6),
                                      pytest.approx(2.944439, abs=1e-6))
    assert sprt_bounds(0.1, 0.2) == (pytest.approx(-1.504077, abs=1e-6),
                                    pytest.approx(2.079442, abs=1e-6))
    assert sprt([0, 5, 40, 60, 40], 0, 10).verdict == "H1"
    assert sprt([40, 60, 40, 5, 0], 0, 10).verdict == "H0"
    assert sprt([0, 0, 0, 0, 0], 0, 10).llr == pytest.approx(0.0, abs=1e-4)
    with pytest.raises(ValueError, match="elo0 must be below elo1"):
        sprt([1, 1, 1, 1, 1], 5, 5)
    with pytest.raises(ValueError, match="alpha"):
        sprt([1, 1, 1, 1, 1], 0, 5, alpha=0.6, beta=0.5)


def game(index: int, table: int, bots: tuple[str, str], ranks: tuple[int, int],
         seed: int | None = None, round_: int = 1) -> GameOutcome:
    return GameOutcome(f"g{index}", index, round_, table, bots,
                       seed if seed is not None else 100 + table, (0, 0), ranks, (OK, OK))


def test_pairs_the_rotations_of_a_set_and_leaves_a_lone_game_out() -> None:
    outcomes = [
        game(0, 1, ("a", "b"), (1, 2)), game(1, 1, ("b", "a"), (2, 1)),  # WW
        game(2, 2, ("a", "b"), (1, 2)), game(3, 2, ("b", "a"), (1, 2)),  # WL
        game(4, 3, ("a", "b"), (1, 1)), game(5, 3, ("b", "a"), (1, 2)),  # DL
        game(6, 4, ("a", "b"), (2, 1)), game(7, 4, ("b", "a"), (1, 2)),  # LL
        game(8, 5, ("b", "a"), (1, 1)),                                  # unpaired draw
        game(9, 6, ("a", "c"), (1, 2)), game(10, 6, ("c", "a"), (2, 1)),  # another match
        GameOutcome("g11", 11, 1, 7, ("a", "b", "c"), 7, (0, 0, 0), (1, 2, 3), (OK,) * 3),
    ]
    m = match(outcomes, "a", "b")
    assert m.pentanomial == (1, 1, 1, 0, 1)
    assert (m.wins, m.draws, m.losses, m.unpaired) == (3, 2, 4, 1)
    assert m.games == 9 and m.pairs == 4
    assert m.draw_ratio == pytest.approx(2 / 9)
    # B's view is the mirror image.
    assert match(outcomes, "b", "a").pentanomial == (1, 0, 1, 1, 1)
    # Games of one table in another repeat (another round and seed) are another set.
    again = [game(0, 1, ("a", "b"), (1, 2)), game(1, 1, ("b", "a"), (1, 2), seed=9, round_=2)]
    assert match(again, "a", "b").pentanomial == (0, 0, 0, 0, 0)
    assert match(again, "a", "b").unpaired == 2


def test_without_pairs_the_trinomial_model_of_the_games_is_used() -> None:
    """Three singles, W W L: s = 2/3, v = 2/9, Elo = -400 log10(1/2) = 120.41."""
    outcomes = [game(i, i, ("a", "b"), r) for i, r in enumerate([(1, 2), (1, 2), (2, 1)])]
    m = match(outcomes, "a", "b")
    assert m.model == "trinomial" and m.counts == (1, 0, 2)
    assert m.elo == pytest.approx(120.412, abs=1e-3)
    assert m.moments.var == pytest.approx(2 / 9)


def test_no_games_gives_no_figures() -> None:
    m = match([], "a", "b")
    assert m.games == 0 and m.elo is None and m.los is None and m.elo_interval() is None
    with pytest.raises(ValueError, match="itself"):
        match([], "a", "a")
