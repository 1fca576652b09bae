"""arena.league.matchmaking: which table a league plays next; and its benchmark against random
tables (arena.bench.league, ``arena bench league``)."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from statistics import NormalDist

import pytest
from typer.testing import CliRunner

from arena.bench.league import bench_setting, clear_pairs, order_figures
from arena.cli.main import app
from arena.league.matchmaking import (
    CANDIDATES,
    SCREEN_END,
    SCREEN_ERROR,
    SCREEN_STEP,
    Entrant,
    _expected,
    choose_table,
    expected_shrink,
    need,
)
from arena.runner.play.trueskill_update import make_environment

runner = CliRunner()


def _field(n: int, seed: int) -> list[Entrant]:
    """n entrants of assorted ratings, games and pending games, seeded."""
    rng = random.Random(seed)
    return [Entrant(f"bot-{i:02d}", rng.gauss(25.0, 4.0), rng.uniform(0.8, 8.0),
                    rng.randrange(50), rng.randrange(3)) for i in range(n)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_table_has_the_right_number_of_distinct_entrants_in_sorted_order(
        players: int) -> None:
    field = _field(9, players)
    names = {e.name for e in field}
    rng = random.Random(1)
    reasons: Counter[str] = Counter()
    for _ in range(300):
        choice = choose_table(field, players, rng)
        reasons[choice.reason] += 1
        assert len(choice.bots) == players
        assert len(set(choice.bots)) == players
        assert set(choice.bots) <= names
        assert list(choice.bots) == sorted(choice.bots)
        assert (choice.focus is None) == (choice.reason == "explore")
        assert choice.focus is None or choice.focus in choice.bots
    assert reasons["focus"] > 200 and reasons["explore"] > 10  # the default share is 0.1


def test_the_same_entrants_and_seed_give_the_same_tables() -> None:
    field = _field(12, 3)
    first = [choose_table(field, 4, rng) for rng in [random.Random(5)] for _ in range(50)]
    again = [choose_table(field, 4, rng) for rng in [random.Random(5)] for _ in range(50)]
    shuffled = list(reversed(field))
    reordered = [choose_table(shuffled, 4, rng) for rng in [random.Random(5)] for _ in range(50)]
    other = [choose_table(field, 4, rng) for rng in [random.Random(6)] for _ in range(50)]
    assert first == again == reordered
    assert first != other


def test_the_bot_with_the_widest_sigma_sits_at_every_table() -> None:
    field = _field(10, 4)
    widest = Entrant("wide", 25.0, 9.0, games=40)
    neediest = sorted([*field, widest], key=lambda e: -need(e))[:CANDIDATES]
    for seed in range(20):
        choice = choose_table([*field, widest], 3, random.Random(seed), explore=0.0)
        assert choice.reason == "focus" and "wide" in choice.bots
        assert choice.focus in {e.name for e in neediest}
        assert choice.describe() == (f"focus: for {choice.focus}, among the bots "
                                     "that need games most")


def test_equal_needs_go_to_the_bot_with_fewer_games() -> None:
    field = [Entrant("a", 25.0, 4.0, games=3), Entrant("b", 25.0, 4.0, games=1),
             Entrant("c", 25.0, 1.0, games=9)]
    assert need(field[0]) == need(field[1])
    assert {choose_table(field, 2, random.Random(s), 0.0).focus for s in range(10)} == {"b"}


def test_pending_games_lower_a_bots_need() -> None:
    idle = Entrant("idle", 25.0, 5.0, games=4)
    busy = Entrant("busy", 25.0, 5.0, games=4, pending=4)
    assert need(busy) < need(idle) == 25.0
    # 4 pending games on top of 4 + 1 worth: 5/9 of the variance is left
    assert need(busy) == pytest.approx(25.0 * 5 / 9)
    wider_but_busy = Entrant("wider", 25.0, 5.5, games=4, pending=4)
    choice = choose_table([wider_but_busy, idle, Entrant("x", 25.0, 1.0, 60)], 2,
                          random.Random(0), explore=0.0)
    assert choice.focus == "idle"


def test_expected_shrink_is_trueskills_update_averaged_over_the_two_results() -> None:
    env = make_environment()
    pairs = [(Entrant("a", 25.0, 3.0, 5), Entrant("b", 27.0, 1.0, 50)),
             (Entrant("a", 25.0, 6.0, 0), Entrant("b", 35.0, 2.0, 50)),
             (Entrant("a", 30.0, 1.0, 80), Entrant("b", 22.0, 8.0, 0)),
             (Entrant("a", 25.0, 1.0, 5), Entrant("b", 25.0, 1.0, 50))]
    for a, b in pairs:
        ra, rb = env.create_rating(a.mu, a.sigma), env.create_rating(b.mu, b.sigma)
        c = math.sqrt(2 * env.beta ** 2 + a.sigma ** 2 + b.sigma ** 2 + 2 * env.tau ** 2)
        win = NormalDist().cdf((a.mu - b.mu) / c)
        (won,), _ = env.rate([(ra,), (rb,)], ranks=[0, 1])
        (lost,), _ = env.rate([(ra,), (rb,)], ranks=[1, 0])
        after = win * won.sigma ** 2 + (1 - win) * lost.sigma ** 2
        # the library adds the drift tau² before the update; only the draw margin is left out
        assert expected_shrink(a, b) == pytest.approx(a.sigma ** 2 + env.tau ** 2 - after,
                                                      rel=0.02)


def test_a_near_opponent_informs_more_than_a_far_one_and_a_sure_one_more_than_a_wide_one(
        ) -> None:
    focal = Entrant("focal", 25.0, 3.0, games=10)
    near, mid, far = (Entrant(n, mu, 1.0, games=50)
                      for n, mu in (("near", 26.0), ("mid", 31.0), ("far", 37.0)))
    assert expected_shrink(focal, near) > expected_shrink(focal, mid) > expected_shrink(
        focal, far)
    assert expected_shrink(focal, near) > expected_shrink(focal, Entrant("wide", 26.0, 2.5, 10))
    for seed in range(10):
        choice = choose_table([focal, near, far, mid], 2, random.Random(seed), explore=0.0)
        assert choice.bots == ("focal", "near") and choice.focus == "focal"
    # at a 4-player table the seats go to the nearest first
    assert choose_table([focal, near, far, mid, Entrant("x", 49.0, 1.0, 50)], 4,
                        random.Random(0), explore=0.0).bots == ("far", "focal", "mid", "near")


def test_a_bot_whose_sigma_is_at_its_floor_does_not_take_every_table() -> None:
    # TrueSkill's drift keeps the sigma of a bot far ahead of the field from shrinking: built
    # around the widest sigma alone, every table would seat it and the next strongest
    field = [Entrant("top", 45.0, 1.05, 300), Entrant("next", 35.0, 0.8, 300),
             *(Entrant(f"b{i}", 20.0 + i, 0.85 + 0.01 * i, 300) for i in range(8))]
    assert max(field, key=need).name == "top"
    rng = random.Random(3)
    tables = Counter(choose_table(field, 2, rng).bots for _ in range(300))
    assert tables[("next", "top")] < 30
    assert sum(n for bots, n in tables.items() if "top" not in bots) > 240
    # with a target (--until-sigma) under it, its sigma must get there whatever it costs:
    # the others are under the target, and every table built for a bot is built for it
    targeted = [choose_table(field, 2, rng, target=1.0) for _ in range(300)]
    assert all("top" in c.bots and c.focus == "top" for c in targeted if c.reason == "focus")
    assert sum(c.reason == "focus" for c in targeted) > 240


def test_explore_one_gives_uniform_random_tables() -> None:
    field = _field(6, 8)
    rng = random.Random(12)
    draws = 3000
    tables: Counter[tuple[str, ...]] = Counter()
    for _ in range(draws):
        choice = choose_table(field, 2, rng, explore=1.0)
        assert choice.reason == "explore" and choice.focus is None
        tables[choice.bots] += 1
    assert len(tables) == 15  # every pair of 6
    expected = draws / 15
    chi2 = sum((n - expected) ** 2 / expected for n in tables.values())
    assert chi2 < 36.1  # the 0.999 quantile of chi-square with 14 degrees of freedom


def _fields(kind: str, n: int, seed: int) -> list[Entrant]:
    """Fields the screening must choose in as the full computation does: assorted ratings,
    a league's first tables (every bot new, some with games pending) and ratings rounded so
    that many entrants are alike and gains tie exactly."""
    rng = random.Random(seed)
    if kind == "new":
        return [Entrant(f"b{i:04d}", 25.0, 25 / 3, 0, rng.randrange(2)) for i in range(n)]
    if kind == "alike":
        return [Entrant(f"b{i:04d}", round(rng.gauss(25.0, 3.0)), round(rng.uniform(0.8, 1.6), 1),
                        50, 0) for i in range(n)]
    return [Entrant(f"b{i:04d}", rng.gauss(25.0, 5.0), rng.uniform(0.9, 8.3),
                    rng.randrange(400), rng.randrange(3)) for i in range(n)]


@pytest.mark.parametrize("kind", ["assorted", "new", "alike"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_screened_choice_is_the_full_computations(kind: str, players: int) -> None:
    """Same table, same focus, and the generator left in the same state (the same draws
    among ties), with and without a target, from 5 entrants to 200."""
    for n in (5, 40, 200):
        field = _fields(kind, n, n * players)
        for seed in range(3):
            for target in (None, 2.0):
                fast, full = random.Random(seed), random.Random(seed)
                assert choose_table(field, players, fast, 0.0, target) == choose_table(
                    field, players, full, 0.0, target, exhaustive=True), (n, seed, target)
                assert fast.random() == full.random()


def test_the_screenings_table_of_the_expected_shrink_is_within_its_error_bound() -> None:
    """Linear interpolation in the table (and 0 past its end) stays within a quarter of
    SCREEN_ERROR over [0, 40], so the bound the screening relies on holds with room."""
    steps = [i * SCREEN_STEP for i in range(int(SCREEN_END / SCREEN_STEP) + 1)]
    values = [_expected(t) for t in steps]
    worst = 0.0
    for k in range(40_001):
        t = k / 1000
        i = int(t / SCREEN_STEP)
        if i + 1 < len(steps):
            share = (t - steps[i]) / SCREEN_STEP
            estimate = values[i] + share * (values[i + 1] - values[i])
        else:
            estimate = 0.0
        worst = max(worst, abs(estimate - _expected(t)))
    assert 0 < worst < SCREEN_ERROR / 4


def test_bad_requests_are_refused_with_a_clear_message() -> None:
    field = _field(3, 9)
    with pytest.raises(ValueError, match="a table of 4 needs at least 4 entrants"):
        choose_table(field, 4, random.Random(0))
    with pytest.raises(ValueError, match="given twice"):
        choose_table([*field, field[0]], 2, random.Random(0))
    with pytest.raises(ValueError, match="at least two players"):
        choose_table(field, 1, random.Random(0))
    with pytest.raises(ValueError, match="explore"):
        choose_table(field, 2, random.Random(0), explore=1.5)


def test_order_figures() -> None:
    theta = {"a": 0.0, "b": 1.0, "c": 2.0, "d": 3.0}
    assert order_figures({"a": 1, "b": 2, "c": 3, "d": 4}, theta) == {
        "kendall_tau": 1.0, "adjacent_right": 1.0, "exact_order": 1.0}
    swapped = order_figures({"a": 1, "b": 3, "c": 2, "d": 4}, theta)
    assert swapped == {"kendall_tau": pytest.approx(4 / 6), "adjacent_right": pytest.approx(2 / 3),
                       "exact_order": 0.0}
    assert order_figures({"a": 4, "b": 3, "c": 2, "d": 1}, theta)["kendall_tau"] == -1.0


def test_clear_pairs_are_those_far_enough_apart_weaker_first() -> None:
    theta = {"a": 0.0, "b": 0.3, "c": 0.6, "d": 2.0}
    assert clear_pairs(theta) == [("a", "c"), ("a", "d"), ("b", "d"), ("c", "d")]


def test_informative_matchmaking_needs_fewer_games_than_random_tables() -> None:
    f = bench_setting(bots=8, players=2, scenario="join", sigma=1.5, replicates=1, seed=0)
    info, rand = f["informative"], f["random"]
    assert info["all_reached"] and rand["all_reached"]
    assert info["games_to_sigma"] * 1.3 < rand["games_to_sigma"]
    assert f["ratio"] == rand["games_to_sigma"] / info["games_to_sigma"]
    assert -1.0 <= info["kendall_tau"] <= 1.0 and 0.0 <= rand["adjacent_right"] <= 1.0


def test_bench_league_prints_json_with_its_figures() -> None:
    r = runner.invoke(app, ["bench", "league", "--bots", "4", "--players", "2", "--sigma", "3",
                            "--replicates", "1", "--in-flight", "2", "--spread", "1",
                            "--spread", "2", "--json"])
    assert r.exit_code == 0, r.output
    f = json.loads(r.output)
    assert {"bots", "sigma", "settings", "seconds", "games_played", "rate_milliseconds",
            "min_ratio", "goal_met"} <= set(f)
    assert f["games_played"] == sum(s["games_played"] for s in f["settings"]) > 0
    assert f["in_flight"] == 2
    assert f["spreads"] == [1.0, 2.0]
    assert [(s["spread"], s["scenario"], s["players"]) for s in f["settings"]] == [
        (1.0, "start", 2), (1.0, "join", 2), (2.0, "start", 2), (2.0, "join", 2)]
    for s in f["settings"]:
        for policy in ("informative", "random"):
            assert {"games_to_sigma", "games_to_order", "kendall_tau", "adjacent_right",
                    "exact_order"} <= set(s[policy])
            assert s[policy]["games_to_sigma"] > 0
        assert s["ratio"] > 0
    assert runner.invoke(app, ["bench", "league", "--bots", "3", "--players", "2"]).exit_code != 0
