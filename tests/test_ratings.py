"""Ratings and statistics: TrueSkill from finishing orders, counts, crosstable, seat win rates."""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest
import trueskill

from arena.protocol.messages import FAILURES
from arena.results import GameOutcome
from arena.runner.play.ratings import RatingTracker, compute_standings
from arena.runner.play.standings import TRUESKILL_MU, TRUESKILL_SIGMA, HeadToHead


def game(index: int, bots: tuple[str, ...], ranks: tuple[int, ...],
         scores: tuple[int, ...] | None = None,
         terminations: tuple[str, ...] | None = None) -> GameOutcome:
    n = len(bots)
    return GameOutcome(
        game_id=f"g{index}", index=index, round=0, table=index, bots=bots, seed=index,
        scores=scores if scores is not None else tuple(10 * (n - r) for r in ranks),
        ranks=ranks, terminations=terminations if terminations is not None else ("ok",) * n,
    )


def mixed_games() -> list[GameOutcome]:
    """Twelve games of four bots at 2-, 3- and 4-seat tables, with ties and failures."""
    return [
        game(0, ("a", "b", "c"), (1, 2, 3)),
        game(1, ("b", "c", "d"), (1, 1, 3)),
        game(2, ("c", "d", "a", "b"), (2, 4, 1, 3)),
        game(3, ("d", "a"), (1, 2)),
        game(4, ("a", "b", "c", "d"), (1, 2, 2, 4), terminations=("ok", "ok", "ok", "crash")),
        game(5, ("b", "d"), (1, 1)),
        game(6, ("c", "a", "b"), (3, 1, 2), terminations=("timeout", "ok", "ok")),
        game(7, ("d", "c", "b", "a"), (1, 2, 3, 4)),
        game(8, ("a", "c"), (2, 1)),
        game(9, ("b", "a", "d"), (2, 3, 1)),
        game(10, ("c", "b", "a", "d"), (1, 3, 3, 2),
             terminations=("ok", "illegal_action", "protocol_error", "ok")),
        game(11, ("a", "d", "c"), (1, 3, 2)),
    ]


BOTS = ("a", "b", "c", "d")


def test_two_bots_tied_in_every_game_end_with_identical_mu_and_sigma() -> None:
    games = [
        game(0, ("x", "y", "z"), (1, 1, 3)),
        game(1, ("z", "x", "y"), (1, 2, 2)),
        game(2, ("y", "z", "x"), (1, 3, 1)),
        game(3, ("x", "y"), (1, 1)),
        game(4, ("z", "y", "x"), (3, 1, 1)),
    ]
    s = compute_standings(["x", "y", "z"], games)
    x, y, z = s.bot("x"), s.bot("y"), s.bot("z")
    assert x.mu == pytest.approx(y.mu, rel=1e-9, abs=1e-9)
    assert x.sigma == pytest.approx(y.sigma, rel=1e-9, abs=1e-9)
    assert x.conservative == pytest.approx(y.conservative, rel=1e-9, abs=1e-9)
    # the tie is not a no-op: both moved, and away from the third bot
    assert x.mu > TRUESKILL_MU > z.mu
    assert x.sigma < TRUESKILL_SIGMA


def test_a_two_player_draw_between_equals_keeps_their_mu_and_shrinks_sigma() -> None:
    s = compute_standings(["x", "y"], [game(0, ("x", "y"), (1, 1))])
    for b in s.bots:
        assert b.mu == pytest.approx(TRUESKILL_MU)
        assert b.sigma < TRUESKILL_SIGMA
    assert s.bots[0].wins == s.bots[1].wins == 1  # a shared first place is a win for both


def test_the_winners_mu_rises_and_sigma_falls() -> None:
    s = compute_standings(["w", "l"], [game(0, ("l", "w"), (2, 1))])
    w, loser = s.bot("w"), s.bot("l")
    assert w.mu > TRUESKILL_MU
    assert w.sigma < TRUESKILL_SIGMA
    assert loser.mu < TRUESKILL_MU
    assert [b.name for b in s.bots] == ["w", "l"]


def test_in_a_four_player_game_mu_falls_with_each_place() -> None:
    s = compute_standings(["p1", "p2", "p3", "p4"],
                          [game(0, ("p3", "p1", "p4", "p2"), (3, 1, 4, 2))])
    mus = [s.bot(n).mu for n in ("p1", "p2", "p3", "p4")]
    assert mus == sorted(mus, reverse=True)
    assert len(set(mus)) == 4
    assert [b.name for b in s.bots] == ["p1", "p2", "p3", "p4"]


def test_results_added_in_any_order_give_exactly_the_same_standings() -> None:
    games = mixed_games()
    reference = compute_standings(BOTS, games)
    for perm in itertools.permutations(games[:5]):
        assert compute_standings(BOTS, perm) == compute_standings(BOTS, games[:5])
    rng = random.Random(7)
    for _ in range(60):
        shuffled = games[:]
        rng.shuffle(shuffled)
        got = compute_standings(BOTS, shuffled)
        assert got == reference  # exact float equality, not approx
        assert got.to_dict() == reference.to_dict()


def test_ratings_wait_for_a_missing_earlier_game_while_statistics_count_at_once() -> None:
    games = mixed_games()
    tracker = RatingTracker(BOTS)
    tracker.add(games[1])
    tracker.add(games[2])
    s = tracker.standings()
    assert (s.games, s.rated_games) == (2, 0)
    assert tracker.pending == [1, 2]
    assert all(b.mu == TRUESKILL_MU and b.sigma == TRUESKILL_SIGMA for b in s.bots)
    assert s.bot("c").games == 2 and s.bot("c").rated_games == 0
    tracker.add(games[0])
    s = tracker.standings()
    assert (s.games, s.rated_games) == (3, 3)
    assert tracker.pending == []
    assert s == compute_standings(BOTS, games[:3])


def test_one_bots_rating_is_the_one_in_the_standings() -> None:
    tracker = RatingTracker(BOTS)
    tracker.add_all(mixed_games())
    s = tracker.standings()
    for name in BOTS:
        assert tracker.rating(name) == (s.bot(name).mu, s.bot(name).sigma)
    assert tracker.rating("a") != tracker.rating("b")
    with pytest.raises(KeyError):
        tracker.rating("nobody")


def test_failures_are_counted_per_kind_with_every_kind_present() -> None:
    s = compute_standings(BOTS, mixed_games())
    zero = dict.fromkeys(FAILURES, 0)
    assert s.bot("a").failures == {**zero, "protocol_error": 1}
    assert s.bot("b").failures == {**zero, "illegal_action": 1}
    assert s.bot("c").failures == {**zero, "timeout": 1}
    assert s.bot("d").failures == {**zero, "crash": 1}
    assert s.bot("d").failure_total == 1
    assert s.failure_totals() == dict.fromkeys(FAILURES, 1)


def test_mean_rank_and_mean_score_with_standard_errors_by_value() -> None:
    games = [
        game(0, ("a", "b", "c"), (1, 2, 3), scores=(10, 5, 0)),
        game(1, ("b", "a", "c"), (1, 2, 3), scores=(30, 20, 0)),
        game(2, ("c", "b", "a"), (2, 3, 1), scores=(7, 1, 30)),
        game(3, ("a", "c"), (2, 1), scores=(40, 41)),
    ]
    s = compute_standings(["a", "b", "c", "d"], games)
    a = s.bot("a")
    # ranks 1, 2, 1, 2 -> mean 1.5, sample variance 1/3, se = sqrt(1/3 / 4)
    assert a.mean_rank == pytest.approx(1.5)
    assert a.mean_rank_se == pytest.approx(math.sqrt(1 / 12))
    # scores 10, 20, 30, 40 -> mean 25, sample variance 500/3, se = sqrt(500/3 / 4)
    assert a.mean_score == pytest.approx(25.0)
    assert a.mean_score_se == pytest.approx(math.sqrt(125 / 3))
    assert (a.games, a.wins, a.win_rate) == (4, 2, 0.5)
    b = s.bot("b")  # ranks 2, 1, 3; scores 5, 30, 1
    assert b.mean_rank == pytest.approx(2.0)
    assert b.mean_rank_se == pytest.approx(math.sqrt(1.0 / 3))
    assert b.mean_score == pytest.approx(12.0)
    assert b.mean_score_se == pytest.approx(math.sqrt(247.0 / 3))
    d = s.bot("d")  # never played
    assert (d.games, d.wins, d.win_rate, d.mean_rank, d.mean_rank_se) == (0, 0, None, None, None)
    one = compute_standings(["a", "b"], [game(0, ("a", "b"), (1, 2), scores=(3, 1))])
    assert one.bot("a").mean_score == 3.0
    assert one.bot("a").mean_score_se is None  # one game: no spread to estimate


def test_crosstable_and_seat_win_rates_by_value() -> None:
    games = [
        game(0, ("a", "b", "c"), (1, 2, 3)),
        game(1, ("b", "c", "a"), (1, 1, 3)),
        game(2, ("a", "b"), (2, 1)),
    ]
    s = compute_standings(["a", "b", "c", "d"], games)
    assert s.crosstable == {
        "a": {"b": HeadToHead(1, 2, 0), "c": HeadToHead(1, 1, 0)},
        "b": {"a": HeadToHead(2, 1, 0), "c": HeadToHead(1, 0, 1)},
        "c": {"a": HeadToHead(1, 1, 0), "b": HeadToHead(0, 1, 1)},
    }
    assert "d" not in s.crosstable  # d met nobody
    assert s.head_to_head("a", "d") == HeadToHead(0, 0, 0)
    assert s.head_to_head("b", "c").games == 2
    seats = [(x.seat, x.games, x.wins, x.win_rate) for x in s.seat_stats]
    assert seats == [(0, 3, 2, pytest.approx(2 / 3)), (1, 3, 2, pytest.approx(2 / 3)),
                     (2, 2, 0, 0.0)]
    assert [s.bot(n).wins for n in "abcd"] == [1, 2, 1, 0]  # c's shared first place counts


def test_a_duplicate_index_is_rejected_and_leaves_the_tracker_unchanged() -> None:
    games = mixed_games()
    tracker = RatingTracker(BOTS)
    tracker.add(games[0])
    before = tracker.standings()
    with pytest.raises(ValueError, match="already added"):
        tracker.add(games[0])
    tracker.add(games[3])  # pending, waiting for 1 and 2
    with pytest.raises(ValueError, match="already added"):
        tracker.add(game(3, ("a", "b"), (1, 2)))
    assert tracker.games == 2
    assert tracker.standings().bot("a").games == before.bot("a").games + 1


@pytest.mark.parametrize(
    ("outcome", "message"),
    [
        (game(0, ("a", "zz"), (1, 2)), "unknown bot"),
        (game(0, ("a", "a"), (1, 2)), "more than once"),
        (game(0, ("a", "b"), (1, 2), terminations=("ok", "exploded")), "termination"),
        (game(-1, ("a", "b"), (1, 2)), "negative"),
        (game(0, ("a",), (1,)), "two seats"),
    ],
)
def test_malformed_outcomes_are_rejected_with_a_clear_error(outcome: GameOutcome,
                                                            message: str) -> None:
    tracker = RatingTracker(BOTS)
    with pytest.raises(ValueError, match=message):
        tracker.add(outcome)
    assert tracker.games == 0


def test_the_conservative_rating_is_mu_minus_three_sigma_and_orders_the_table() -> None:
    s = compute_standings(BOTS, mixed_games())
    for b in s.bots:
        assert b.conservative == pytest.approx(b.mu - 3 * b.sigma)
    cons = [b.conservative for b in s.bots]
    assert cons == sorted(cons, reverse=True)
    fresh = compute_standings(["zeta", "alpha", "mid"], [])
    assert [b.name for b in fresh.bots] == ["alpha", "mid", "zeta"]  # equal ratings: by name
    assert fresh.bots[0].conservative == pytest.approx(0.0)


def test_the_global_trueskill_environment_is_untouched() -> None:
    had = hasattr(trueskill.global_env, "__trueskill__")
    previous = getattr(trueskill.global_env, "__trueskill__", None)
    reference = compute_standings(BOTS, mixed_games())
    assert hasattr(trueskill.global_env, "__trueskill__") == had
    assert getattr(trueskill.global_env, "__trueskill__", None) is previous
    try:
        # a strange global environment must not leak into our ratings
        trueskill.setup(mu=1000.0, sigma=1.0, beta=50.0, tau=3.0, draw_probability=0.5)
        odd = trueskill.global_env()
        assert compute_standings(BOTS, mixed_games()) == reference
        assert trueskill.global_env() is odd and odd.mu == 1000.0
    finally:
        if had:
            trueskill.global_env.__trueskill__ = previous
        else:
            del trueskill.global_env.__trueskill__


def test_standings_to_dict_is_plain_json_data() -> None:
    s = compute_standings(BOTS, mixed_games())
    d = s.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert [b["name"] for b in d["bots"]] == [b.name for b in s.bots]
    assert d["crosstable"]["b"]["d"] == s.head_to_head("b", "d").to_dict()
    assert d["seats"][0]["games"] == 12
    assert (d["games"], d["rated_games"]) == (12, 12)
    assert d["rating"]["draw_probability"] > 0


def test_a_game_without_ties_is_one_plain_trueskill_update() -> None:
    s = compute_standings(["a", "b", "c"], [game(0, ("b", "c", "a"), (2, 3, 1))])
    env = trueskill.TrueSkill(mu=25.0, sigma=25 / 3, beta=25 / 6, tau=25 / 300,
                              draw_probability=s.rating["draw_probability"])
    r = env.create_rating()
    (b,), (c,), (a,) = env.rate([(r,), (r,), (r,)], ranks=[2, 3, 1])
    assert [(x.mu, x.sigma) for x in (a, b, c)] == [
        (s.bot(n).mu, s.bot(n).sigma) for n in ("a", "b", "c")
    ]
