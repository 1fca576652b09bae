"""Plackett–Luce strengths (arena.stats.plackett_luce): the fit against closed forms and the
likelihood equations checked game by game, the tie rule, recovery of known strengths, and a
bootstrap that resamples whole duplicate sets, deterministically."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.protocol.messages import Termination
from arena.results import GameOutcome
from arena.stats.plackett_luce import ELO_PER_THETA, orders, plackett_luce
from arena.stats.synthetic import synthetic_bots, synthetic_outcomes

OK = Termination.OK
TINY_PRIOR = 1e-9


def g(i: int, bots: tuple[str, ...], ranks: tuple[int, ...], table: int | None = None,
      seed: int | None = None) -> GameOutcome:
    k = len(bots)
    t = i if table is None else table
    return GameOutcome(f"g{i}", i, 1, t, bots, t if seed is None else seed, (0,) * k, ranks,
                       (OK,) * k)


def test_two_bots_without_prior_is_the_closed_form_bradley_terry() -> None:
    """A ahead in 30 of 40 games: the MLE has gamma_A / gamma_B = 30/10, so P(A ahead) = 3/4
    and the rating difference is 400 log10(3) = 190.85 Elo."""
    games = [g(i, ("a", "b") if i % 2 else ("b", "a"),
               ((1, 2) if i % 2 else (2, 1)) if i < 30 else ((2, 1) if i % 2 else (1, 2)))
             for i in range(40)]
    pl = plackett_luce(games, ["a", "b"], replicates=0, prior=TINY_PRIOR)
    assert pl.p_ahead(0, 1) == pytest.approx(0.75, abs=1e-7)
    assert pl.rating(0) - pl.rating(1) == pytest.approx(400 * math.log10(3), abs=1e-4)
    assert pl.rating(0) + pl.rating(1) == pytest.approx(0.0, abs=1e-9)  # centred


def test_the_fit_solves_the_likelihood_equations_game_by_game() -> None:
    """At the maximum the choices each bot won equal the choices it was expected to win,
    summed here over every game's every place, without the fit's aggregation into choice
    sets: W_i = sum over places of gamma_i / (sum of the gammas still unplaced)."""
    theta = synthetic_bots(5, 11)
    games = [o for o in synthetic_outcomes(theta, 3, 600, seed=12) if len(set(o.ranks)) == 3]
    pl = plackett_luce(games, sorted(theta), replicates=0, prior=TINY_PRIOR)
    gamma = {b: math.exp(pl.theta[i]) for i, b in enumerate(pl.bots)}
    won = dict.fromkeys(gamma, 0.0)
    expected = dict.fromkeys(gamma, 0.0)
    for o in games:
        placed = [o.bots[s] for s in sorted(range(3), key=lambda s: o.ranks[s])]
        for j in range(2):
            rest = placed[j:]
            total = sum(gamma[b] for b in rest)
            won[placed[j]] += 1
            for b in rest:
                expected[b] += gamma[b] / total
    for b in gamma:
        assert expected[b] == pytest.approx(won[b], rel=1e-6)


def test_known_strengths_are_recovered_within_their_intervals() -> None:
    theta = synthetic_bots(6, 1)
    games = synthetic_outcomes(theta, 4, 8000, seed=2)
    pl = plackett_luce(games, sorted(theta), replicates=100, seed=3)
    true = np.array([theta[b] for b in pl.bots])
    true -= true.mean()
    for i in range(len(pl.bots)):
        ci = pl.rating_interval(i)
        assert ci is not None
        assert ci.low <= true[i] * ELO_PER_THETA <= ci.high, (pl.bots[i], ci, true[i])
    assert np.max(np.abs(pl.theta - true)) < 0.1


def test_a_tie_counts_once_for_each_order_of_the_tied_bots() -> None:
    """A game with a and b sharing first place weighs the same as half a game a, b, c plus
    half a game b, a, c: two tied games fit exactly as one game of each order."""
    assert orders((1, 1, 3)) == [([0, 1, 2], 0.5), ([1, 0, 2], 0.5)]
    assert orders((2, 1, 3)) == [([1, 0, 2], 1.0)]
    base = [g(10, ("a", "c", "b"), (1, 2, 3)), g(11, ("c", "b", "a"), (1, 2, 3))]
    tied = [*base, g(0, ("a", "b", "c"), (1, 1, 3)), g(1, ("a", "b", "c"), (1, 1, 3))]
    split = [*base, g(0, ("a", "b", "c"), (1, 2, 3)), g(1, ("a", "b", "c"), (2, 1, 3))]
    fit_tied = plackett_luce(tied, ["a", "b", "c"], replicates=0)
    fit_split = plackett_luce(split, ["a", "b", "c"], replicates=0)
    assert np.allclose(fit_tied.theta, fit_split.theta, atol=1e-9)


def test_a_bot_that_never_loses_still_gets_a_finite_rating() -> None:
    games = [g(i, ("a", "b", "c") if i % 2 else ("c", "b", "a"),
               (1, 2, 3) if i % 2 else (3, 2, 1)) for i in range(20)]
    pl = plackett_luce(games, ["a", "b", "c"], replicates=20)
    assert all(math.isfinite(pl.rating(i)) for i in range(3))
    assert pl.rating(0) > pl.rating(1) > pl.rating(2)
    assert pl.p_ahead(0, 2) > 0.95


def test_the_bootstrap_resamples_whole_duplicate_sets() -> None:
    """Every duplicate set is a pair of games that a wins once and b wins once: whichever sets
    a replicate draws, a and b stay level, so P(a ahead of b) is 1/2 in every replicate. Had
    games been drawn one by one, replicates would spread around 1/2."""
    games = []
    for t in range(30):
        games += [g(2 * t, ("a", "b"), (1, 2), table=t), g(2 * t + 1, ("b", "a"), (1, 2), table=t)]
    pl = plackett_luce(games, ["a", "b"], replicates=50, seed=5)
    ci = pl.p_ahead_interval(0, 1)
    assert pl.duplicate_sets == 30 and pl.games == 60
    assert ci is not None and ci.low == pytest.approx(0.5) and ci.high == pytest.approx(0.5)


def test_the_bootstrap_is_deterministic_in_its_seed() -> None:
    theta = synthetic_bots(4, 7)
    games = synthetic_outcomes(theta, 3, 300, seed=8)
    a, b = (plackett_luce(games, sorted(theta), replicates=30, seed=s) for s in (1, 1))
    c = plackett_luce(games, sorted(theta), replicates=30, seed=2)
    assert np.array_equal(a.samples, b.samples)
    assert not np.array_equal(a.samples, c.samples)
    assert np.array_equal(a.theta, c.theta)  # the fit itself does not depend on the seed
    d = a.to_dict()
    assert d["replicates"] == 30 and len(d["bots"]) == 4
    first = d["bots"][0]["name"]
    assert d["p_ahead"][first][d["bots"][1]["name"]]["p"] > 0.5


def test_bots_that_did_not_play_are_left_out() -> None:
    pl = plackett_luce([g(0, ("a", "b"), (1, 2))], ["a", "b", "idle"], replicates=0)
    assert pl.bots == ["a", "b"]
    with pytest.raises(ValueError, match="replicates"):
        plackett_luce([], ["a"], replicates=-1)
