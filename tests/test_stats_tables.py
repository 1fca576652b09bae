"""Head to head and seat figures (arena.stats.tables) on small journals worked by hand."""

from __future__ import annotations

import pytest

from arena.protocol.messages import Termination
from arena.results import GameOutcome
from arena.stats.tables import head_to_head, seats

OK, CRASH = Termination.OK, Termination.CRASH


def g(i: int, bots: tuple[str, ...], ranks: tuple[int, ...], scores: tuple[int, ...] = (),
      terms: tuple[Termination, ...] = ()) -> GameOutcome:
    k = len(bots)
    return GameOutcome(f"g{i}", i, 1, i, bots, i, scores or (0,) * k, ranks, terms or (OK,) * k)


GAMES = [
    g(0, ("a", "b", "c"), (1, 2, 3), (30, 20, 10)),
    g(1, ("b", "c", "a"), (1, 3, 2), (40, 0, 25)),
    g(2, ("c", "a", "b"), (1, 1, 3), (9, 9, 1)),
    g(3, ("a", "b"), (2, 1), (5, 6)),
    g(4, ("x", "a", "b"), (1, 2, 3)),  # x is not among the bots asked about
]


def test_head_to_head_counts_every_game_both_sat_in() -> None:
    """a-b: a ahead in 0, 2 and 4, behind in 1 and 3 -> 3 ahead, 2 behind.
    a-c: ahead in 0, 1; level in 2 -> 2, 0, 1. b-c: ahead in 0, 1; behind in 2 -> 2, 1, 0."""
    h = {(x.a, x.b): x for x in head_to_head(GAMES, ["a", "b", "c"])}
    assert set(h) == {("a", "b"), ("a", "c"), ("b", "c")}
    assert (h["a", "b"].ahead, h["a", "b"].behind, h["a", "b"].level) == (3, 2, 0)
    assert (h["a", "c"].ahead, h["a", "c"].behind, h["a", "c"].level) == (2, 0, 1)
    assert (h["b", "c"].ahead, h["b", "c"].behind, h["b", "c"].level) == (2, 1, 0)
    # Level games are left out of the share and of the sign test.
    ac = h["a", "c"]
    assert ac.games == 3 and ac.decided == 2 and ac.share == 1.0
    assert ac.p_value == pytest.approx(0.5)  # 2 P(X <= 0), X ~ B(2, 1/2)
    assert ac.interval().high == 1.0
    flipped = h["a", "b"].flipped()
    assert (flipped.a, flipped.ahead, flipped.behind) == ("b", 2, 3)
    # The order of the bots given decides which side a pair is seen from.
    assert [(x.a, x.b) for x in head_to_head(GAMES, ["c", "b", "a"])] == [
        ("c", "b"), ("c", "a"), ("b", "a")]


def test_head_to_head_to_dict() -> None:
    d = head_to_head(GAMES, ["a", "b"])[0].to_dict()
    assert d["games"] == 5 and d["share"] == pytest.approx(0.6)
    assert d["p_value"] == pytest.approx(1.0)  # 3 of 5: 2 P(X <= 2) = 2 * 16/32


def test_seats_per_table_size() -> None:
    """3-player seat 0: games 0, 1, 2, 4: ranks 1, 1, 1, 1 (all first, one shared) -> 4 wins,
    scores 30, 40, 9, 0. Seat 2: ranks 3, 2, 3, 3 -> mean 11/4."""
    fig = {(s.players, s.seat): s for s in seats(GAMES)}
    assert set(fig) == {(3, 0), (3, 1), (3, 2), (2, 0), (2, 1)}
    s0 = fig[3, 0]
    assert (s0.games, s0.wins, s0.win_rate) == (4, 4, 1.0)
    assert s0.mean_score == pytest.approx(79 / 4)
    assert fig[3, 2].mean_rank == pytest.approx(11 / 4)
    assert fig[2, 1].wins == 1 and fig[2, 0].wins == 0
    ci = fig[3, 2].rank_interval()
    assert ci is not None and ci.low < 11 / 4 < ci.high
    assert fig[2, 0].score_interval() is None  # one game: no spread yet
    assert s0.to_dict()["win_interval"][1] == 1.0


def test_a_failed_seat_does_not_win_even_when_first() -> None:
    crashed = [g(0, ("a", "b"), (1, 1), terms=(CRASH, CRASH))]
    assert [s.wins for s in seats(crashed)] == [0, 0]
