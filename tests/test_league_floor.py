"""What `arena league run --until-sigma S` can reach: the floor TrueSkill's drift puts under a
sigma (arena.league.floor), judged on simulated leagues rated by the league's TrueSkill, and the
real league runner with real bots ending a run whose target is out of reach."""

from __future__ import annotations

import random
import re
from pathlib import Path

from test_league import Arena, add, arena, done_games, init  # noqa: F401 (a fixture)
from test_tournament_e2e import EXAMPLES, assert_nothing_left
from typer.testing import CliRunner

from arena.cli.main import app
from arena.league.config import load_league
from arena.league.floor import SETTLING, FloorWatch, table_floor
from arena.league.matchmaking import Entrant, choose_table
from arena.league.store import LeagueJournal
from arena.protocol.messages import Termination
from arena.results import GameOutcome, Pairing
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.trueskill_update import make_environment
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


def test_a_target_no_table_can_reach_is_refused_before_anything(tmp_path: Path) -> None:
    folder = tmp_path / "lg"
    r = CliRunner().invoke(app, ["league", "init", str(folder), "--game", "stoneage"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["league", "run", str(folder), "--until-sigma", "0.75"])
    assert r.exit_code == 2
    assert r.stderr.strip() == (
        "error: --until-sigma 0.75 cannot be reached: TrueSkill's drift keeps a σ above "
        f"{table_floor(2):.2f} at 2-player tables, even when every game is between equals "
        "(README: Running a league)")


def _history(folder: Path, tables: dict[tuple[str, str], int]) -> None:
    """Finished games in the league's journal: ``tables[(a, b)]`` duplicate sets of a and b,
    greedy-py winning every game it plays, the others even."""
    rng = random.Random(7)
    journal = LeagueJournal(load_league(folder))
    try:
        sets = [pair for pair, n in tables.items() for _ in range(n)]
        rng.shuffle(sets)
        for a, b in sets:
            table, index = journal.next_table()
            games = []
            for s, seats in enumerate(((a, b), (b, a))):
                winner = next((x for x in seats if x.startswith("greedy")), rng.choice(seats))
                games.append(GameOutcome(f"t{table:06d}-s{s}", index + s, table, table, seats,
                                         table, (0, 0),
                                         tuple(1 if x == winner else 2 for x in seats), OK2))
            journal.issue([Pairing(o.game_id, o.index, table, table, o.bots, o.seed)
                           for o in games])
            for o in games:
                journal.record_result(o, f"games/{o.game_id}.json", 0.1)
    finally:
        journal.close()


def test_a_run_whose_target_is_out_of_reach_ends_with_one_line_and_the_next_is_refused(
        tmp_path: Path, arena: Arena) -> None:  # noqa: F811 (the fixture)
    league = tmp_path / "lg"
    init(arena, league, "--players", "2", "-j", "2")
    greedy, rpy, rjs = (add(arena, league, EXAMPLES / b)
                        for b in ("greedy-py", "random-py", "random-js"))
    # random-js is two games short of what every bot plays before a floor is judged.
    _history(league, {(greedy, rpy): SETTLING // 2, (greedy, rjs): SETTLING // 2 - 1})
    before = len(done_games(league))

    run = arena.start("league", "run", str(league), "--plain", "--until-sigma", "1.5")
    assert run.wait(120) == 1, run.text
    played = len(done_games(league)) - before
    assert played >= 2
    line = run.stdout.strip().splitlines()[-1]
    assert line.startswith(f"lg: {played} games this run, {before + played} in all; every σ "
                           f"under 1.5 is out of reach: TrueSkill's drift holds {greedy}'s σ")
    floor = re.search(r"at ([\d.]+) or more against this field$", line)
    assert floor is not None and float(floor.group(1)) >= 1.5
    assert rpy not in line and rjs not in line
    assert_nothing_left(arena.tag, sessions=(run.pid,))

    again = arena.start("league", "run", str(league), "--plain", "--until-sigma", "1.5")
    assert again.wait(60) == 1, again.text
    assert "lg: 0 games this run" in again.stdout and "is out of reach" in again.stdout
    assert len(done_games(league)) == before + played


def test_the_nearest_spans_are_found_as_a_search_of_every_bot_finds_them() -> None:
    from arena.league.floor import _Field

    rng = random.Random(2)
    for _ in range(300):
        ratings = {f"b{i}": (rng.gauss(25, 8), rng.uniform(0.1, 6))
                   for i in range(rng.randint(2, 40))}
        name, at, count = rng.choice(list(ratings)), rng.gauss(25, 10), rng.randint(1, 5)
        every = sorted(abs(min(max(at, m - s), m + s) - at)
                       for b, (m, s) in ratings.items() if b != name)[:count]
        found = _Field(list(ratings), ratings.__getitem__).nearest(name, at, count)
        assert sorted(abs(x - at) for x in found) == every
