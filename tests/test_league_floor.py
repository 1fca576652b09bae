"""What `arena league run --until-sigma S` can reach: the floor TrueSkill's drift puts under a
sigma (arena.league.floor), judged on simulated leagues rated by the league's TrueSkill, and the
real league runner with real bots ending a run whose target is out of reach."""

from __future__ import annotations

import random

from arena.league.floor import SETTLING, FloorWatch, table_floor
from arena.league.matchmaking import Entrant, choose_table
from arena.protocol.messages import Termination
from arena.runner.ratings import RatingTracker, make_environment
from arena.runner.schedule.base import GameOutcome
from arena.stats.synthetic import play_table, synthetic_bots

OK2 = (Termination.OK,) * 2


def test_the_floor_at_the_best_tables_is_where_trueskill_s_own_update_settles() -> None:
    env = make_environment()
    a, b = env.create_rating(), env.create_rating()
    for n in range(3000):  # two equals, the result alternating: every game tells most
        (a,), (b,) = env.rate([(a,), (b,)], ranks=[n % 2, 1 - n % 2])
    assert abs(a.sigma - table_floor(2)) < 2e-3
    assert 0.77 < table_floor(2) < 0.8
    assert table_floor(2) > table_floor(3) > table_floor(4) > table_floor(5) > 0.6


def _one_wins_everything(target: float, games: int) -> tuple[int | None, list[str], float]:
    """The issue's league: greedy beats both random bots every time, they are even. When
    the watch first judged ``target`` out of reach, whom it named, and greedy's lowest
    sigma over ``games``."""
    bots = ["greedy", "random-a", "random-b"]
    rng = random.Random(1)
    tracker, watch = RatingTracker(bots), FloorWatch(2)
    judged: tuple[int | None, list[str]] = (None, [])
    low = 99.0
    for i in range(games):
        seats = tuple(rng.sample(bots, 2))
        winner = "greedy" if "greedy" in seats else rng.choice(seats)
        o = GameOutcome(f"g{i}", i, 1, i, seats, 0, (0, 0),
                        tuple(1 if b == winner else 2 for b in seats), OK2)
        tracker.add(o)
        watch.add(o, tracker)
        low = min(low, tracker.rating("greedy")[1])
        if judged[0] is None and (floors := watch.out_of_reach(bots, target, tracker.rating)):
            judged = (i + 1, [f.bot for f in floors])
            assert all(f.floor >= target for f in floors)
    return judged[0], judged[1], low


def test_a_bot_that_wins_every_game_is_judged_unable_to_reach_the_target() -> None:
    at, named, low = _one_wins_everything(2.5, 4000)
    assert low > 2.5  # never reached in 4,000 games
    assert at is not None and at < 2000 and named == ["greedy"]
    at, named, _ = _one_wins_everything(1.5, 400)
    assert at is not None and at <= 3 * SETTLING and named == ["greedy"]


def _near_equals(target: float, seed: int, players: int) -> tuple[int, int | None]:
    """A league of 8 near equals whose tables the league's matchmaking chooses: the games
    until every sigma was under ``target``, and until the watch judged it out of reach."""
    theta = synthetic_bots(8, seed)
    names = sorted(theta)
    rng, pick = random.Random(seed), random.Random(-seed)
    tracker, watch = RatingTracker(names), FloorWatch(players)
    games = {b: 0 for b in names}
    judged = None
    while True:
        table = choose_table([Entrant(b, *tracker.rating(b), games[b]) for b in names],
                             players, pick, target=target).bots
        for o in play_table(theta, table, rng, tracker.rated_games, tracker.rated_games):
            tracker.add(o)
            watch.add(o, tracker)
            for b in o.bots:
                games[b] += 1
        if all(tracker.rating(b)[1] < target for b in names):
            return tracker.rated_games, judged
        if judged is None and watch.out_of_reach(names, target, tracker.rating):
            judged = tracker.rated_games


def test_a_field_of_near_equals_reaches_a_target_above_the_floor_without_being_stopped() -> None:
    for seed, players in ((0, 2), (1, 2), (0, 4), (1, 4)):
        reached, judged = _near_equals(1.0, seed, players)
        assert judged is None, (seed, players, reached, judged)
