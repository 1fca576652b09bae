"""Arena's TrueSkill update (arena.runner.play.trueskill_update) is the ``trueskill`` package's,
bit for bit: on seeded random tables (ties, draws, every seat tied, 1 to 4 seats), on tables
where the package takes a branch of its own or fails, and on every game of the committed
leaderboards, the ratings are equal (==) to the package's, not merely close."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trueskill

import arena.runner.play.trueskill_update as update
from arena.results import GameOutcome
from arena.runner.play.journal import Journal
from arena.runner.play.ratings import RatingTracker, tie_orders
from arena.runner.play.standings import TRUESKILL_MU, TRUESKILL_SIGMA

LEADERBOARDS = Path(__file__).resolve().parent.parent / "leaderboards"
COMMITTED = ["reference", "search-4p", "search-2p", "agricola-2p", "agricola-cards-2p"]

ENV = update.make_environment()


def _package(ratings: Sequence[trueskill.Rating], ranks: Sequence[int]) -> Any:
    """The package's new (mu, sigma) of each seat, or its error (type and message)."""
    try:
        rated = ENV.rate([(r,) for r in ratings], ranks=list(ranks))
    except Exception as exc:
        return type(exc), str(exc)
    return [(r.mu, r.sigma) for (r,) in rated]


def _fast(ratings: Sequence[trueskill.Rating], ranks: Sequence[int]) -> Any:
    try:
        return update.rate([(r.mu, r.sigma) for r in ratings], list(ranks))
    except Exception as exc:
        return type(exc), str(exc)


def _random_table(rng: random.Random) -> tuple[list[trueskill.Rating], list[int]]:
    n = rng.randint(1, 4)
    ratings = [ENV.create_rating(rng.uniform(0, 50), rng.uniform(0.5, 8.34)) for _ in range(n)]
    kind = rng.random()
    if kind < 0.1:
        ranks = [1] * n  # every seat tied (a 2-player draw at 2 seats)
    elif kind < 0.2:
        ranks = rng.sample(range(1, n + 1), n)  # a strict order, shuffled
    elif kind < 0.25:
        ranks = [rng.randint(0, 3) * 10 for _ in range(n)]  # ranks need not be 1..n
    else:
        ranks = [rng.randint(1, n) for _ in range(n)]
    return ratings, ranks


def _sweep(seed: int, tables: int) -> None:
    rng = random.Random(seed)
    seats: dict[int, int] = {}
    for _ in range(tables):
        ratings, ranks = _random_table(rng)
        assert _fast(ratings, ranks) == _package(ratings, ranks), (ratings, ranks)
        seats[len(ratings)] = seats.get(len(ratings), 0) + 1
    assert set(seats) == {1, 2, 3, 4}


def test_the_draw_margin_and_a_rating_read_back_are_the_packages() -> None:
    assert trueskill.calc_draw_margin(ENV.draw_probability, 2, ENV) == update.DRAW_MARGIN
    rng = random.Random(7)
    for _ in range(2000):
        mu, sigma = rng.uniform(-100, 100), rng.uniform(0.01, 50)
        r = ENV.create_rating(mu, sigma)
        assert update.readback(mu, sigma) == (r.mu, r.sigma)
    assert update.readback(TRUESKILL_MU, TRUESKILL_SIGMA) == tuple(ENV.create_rating())


def test_random_tables_rate_exactly_as_the_package_does() -> None:
    _sweep(seed=1, tables=400)


@pytest.mark.slow
def test_many_random_tables_rate_exactly_as_the_package_does() -> None:
    for seed in range(2, 7):
        _sweep(seed, tables=10_000)


def test_every_order_of_equals_and_ties_rates_as_the_package_does() -> None:
    """Equal ratings (a field's first games: differences of exactly zero), every rank
    pattern of 2 and 3 seats and every one in rank order of 4."""
    for n in (2, 3, 4):
        patterns = (itertools.product(range(1, n + 1), repeat=n) if n < 4 else
                    itertools.combinations_with_replacement(range(1, n + 1), n))
        for ranks in patterns:
            for sigma in (TRUESKILL_SIGMA, 1.0):
                ratings = [ENV.create_rating(TRUESKILL_MU, sigma) for _ in range(n)]
                assert _fast(ratings, ranks) == _package(ratings, ranks), (n, ranks, sigma)


def test_tables_the_package_treats_apart_give_its_answer_or_its_error() -> None:
    """Ratings far apart (a winner far below the loser: the package fails), tiny and huge
    sigmas, a lone seat and ranks of another length: the same answer or the same error."""
    rng = random.Random(3)
    errors = 0
    for _ in range(250):
        n = rng.randint(2, 4)
        ratings = [ENV.create_rating(rng.uniform(-300, 300),
                                     rng.choice([rng.uniform(0.001, 40), 1e-4, 1e3]))
                   for _ in range(n)]
        ranks = [rng.randint(1, n) for _ in range(n)]
        expected = _package(ratings, ranks)
        assert _fast(ratings, ranks) == expected, (ratings, ranks)
        errors += isinstance(expected, tuple)
    assert errors > 0  # some of them fail in the package (FloatingPointError)
    lone = [ENV.create_rating()]
    assert _fast(lone, [1]) == _package(lone, [1])
    two = [ENV.create_rating(), ENV.create_rating()]
    assert _fast(two, [1, 2, 3]) == _package(two, [1, 2, 3])


def _outcomes(name: str) -> list[GameOutcome]:
    journal = Journal(LEADERBOARDS / name / "journal.sqlite", readonly=True)
    try:
        return sorted(journal.outcomes(), key=lambda o: o.index)
    finally:
        journal.close()


def _package_replay(tracker: RatingTracker, outcomes: Sequence[GameOutcome]) -> int:
    """Rate ``outcomes`` with the package as the tracker rates them (every order of each
    tie, each seat's mu and sigma averaged) beside ``tracker``, and check that each
    package call and the tracker's ratings after each game are equal; the calls made."""
    ratings = {b: ENV.create_rating() for b in tracker.bots}
    calls = 0
    for o in outcomes:
        mus: list[list[float]] = [[] for _ in o.bots]
        sigmas: list[list[float]] = [[] for _ in o.bots]
        for seats in tie_orders(o):
            table = [ratings[o.bots[s]] for s in seats]
            ranks = [o.ranks[s] for s in seats]
            expected = _package(table, ranks)
            assert _fast(table, ranks) == expected, (o.game_id, seats)
            calls += 1
            for s, (mu, sigma) in zip(seats, expected, strict=True):
                mus[s].append(mu)
                sigmas[s].append(sigma)
        tracker.add(o)
        for s, bot in enumerate(o.bots):
            ratings[bot] = ENV.create_rating(math.fsum(mus[s]) / len(mus[s]),
                                             math.fsum(sigmas[s]) / len(mus[s]))
        for bot, r in ratings.items():
            assert tracker.rating(bot) == (r.mu, r.sigma), (o.game_id, bot)
    return calls


def _check_leaderboard(name: str) -> None:
    outcomes = _outcomes(name)
    bots = sorted({b for o in outcomes for b in o.bots})
    tracker = RatingTracker(bots)
    assert _package_replay(tracker, outcomes) >= len(outcomes) > 0
    standings = tracker.standings()
    assert [(b.mu, b.sigma) for b in standings.bots] == [
        tracker.rating(b.name) for b in standings.bots]


@pytest.mark.parametrize("name", COMMITTED)
def test_every_game_of_a_committed_leaderboard_rates_as_the_package_does(name: str) -> None:
    """Each package call the tracker's replay makes (every order of a tie), and the
    tracker's ratings after each game."""
    _check_leaderboard(name)
