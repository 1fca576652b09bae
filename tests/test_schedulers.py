"""arena.runner.play.schedule: round-robin, Swiss and gauntlet pairings, from synthetic outcomes."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations

import pytest

from arena.results import GameOutcome, Pairing
from arena.runner.play.schedule import (
    Gauntlet,
    RoundRobin,
    Scheduler,
    Swiss,
    make_scheduler,
    placement_points2,
    table_sizes,
)

Ranker = Callable[[Pairing], Sequence[int]]


def names(n: int, prefix: str = "bot") -> list[str]:
    return [f"{prefix}{i:02d}" for i in range(n)]


def outcome(p: Pairing, ranks: Sequence[int]) -> GameOutcome:
    return GameOutcome(
        game_id=p.game_id, index=p.index, round=p.round, table=p.table, bots=p.bots,
        seed=p.seed, scores=tuple(0 for _ in ranks), ranks=tuple(ranks),
        terminations=tuple("ok" for _ in ranks),
    )


def seat_order_wins(p: Pairing) -> Sequence[int]:
    return list(range(1, len(p.bots) + 1))


def random_ranks(seed: int) -> Ranker:
    rng = random.Random(seed)

    def ranks(p: Pairing) -> Sequence[int]:
        r = list(range(1, len(p.bots) + 1))
        rng.shuffle(r)
        return r

    return ranks


def play(scheduler: Scheduler, ranker: Ranker) -> list[list[Pairing]]:
    """Runs the scheduler to the end, ranking each game with ``ranker``; the rounds issued."""
    finished: list[GameOutcome] = []
    issued: list[list[Pairing]] = []
    while (batch := scheduler.next_round(finished, len(finished))) is not None:
        assert batch, "a round with no games"
        issued.append(batch)
        finished += [outcome(p, ranker(p)) for p in batch]
    return issued


def tables_of(batch: Sequence[Pairing]) -> dict[int, frozenset[str]]:
    out: dict[int, set[str]] = {}
    for p in batch:
        out.setdefault(p.table, set()).update(p.bots)
    return {t: frozenset(b) for t, b in out.items()}


def repeat_pairs(rounds: Sequence[Sequence[Pairing]]) -> list[int]:
    """For each round, how many pairs at its tables had already met in an earlier round."""
    met: set[frozenset[str]] = set()
    out = []
    for batch in rounds:
        pairs = [frozenset(pr) for t in tables_of(batch).values() for pr in combinations(t, 2)]
        out.append(sum(1 for pr in pairs if pr in met))
        met.update(pairs)
    return out


def seat_counts(pairings: Sequence[Pairing], seats: int) -> dict[str, list[int]]:
    counts: dict[str, list[int]] = {}
    for p in pairings:
        for s, b in enumerate(p.bots):
            counts.setdefault(b, [0] * seats)[s] += 1
    return counts


def games_and_meetings(pairings: Sequence[Pairing]) -> tuple[Counter[str], Counter[frozenset[str]]]:
    games: Counter[str] = Counter()
    meetings: Counter[frozenset[str]] = Counter()
    for p in pairings:
        games.update(p.bots)
        meetings.update(frozenset(pr) for pr in combinations(p.bots, 2))
    return games, meetings


def spread(values: Sequence[int]) -> int:
    return max(values) - min(values)


# --- round-robin -----------------------------------------------------------------------------


def test_every_combination_of_bots_is_a_table_once() -> None:
    bots = names(7)
    pairings = RoundRobin(bots, 4, seed=1).pairings()
    tables = tables_of(pairings)
    assert len(tables) == 35
    assert set(tables.values()) == {frozenset(c) for c in combinations(bots, 4)}
    assert len(pairings) == 140


@pytest.mark.parametrize(("n", "players", "rounds"), [(7, 4, 1), (6, 3, 2), (5, 2, 1), (4, 4, 3)])
def test_with_rotation_every_bot_sits_in_every_seat_equally_often(
    n: int, players: int, rounds: int
) -> None:
    pairings = RoundRobin(names(n), players, seed=5, rounds=rounds).pairings()
    counts = seat_counts(pairings, players)
    assert len(counts) == n
    expected = counts["bot00"][0]
    assert expected > 0
    assert all(c == [expected] * players for c in counts.values())


def test_the_rotations_of_a_table_share_its_seed_and_other_tables_have_other_seeds() -> None:
    pairings = RoundRobin(names(6), 3, seed=9).pairings()
    seeds: dict[int, set[int]] = {}
    for p in pairings:
        seeds.setdefault(p.table, set()).add(p.seed)
    assert all(len(s) == 1 for s in seeds.values())
    table_seeds = [next(iter(s)) for s in seeds.values()]
    assert len(set(table_seeds)) == len(table_seeds) == 20


def test_the_rotations_of_a_table_are_its_cyclic_seat_shifts() -> None:
    pairings = RoundRobin(names(5), 3, seed=2).pairings()
    by_table: dict[int, list[tuple[str, ...]]] = {}
    for p in pairings:
        by_table.setdefault(p.table, []).append(p.bots)
    for games in by_table.values():
        first = games[0]
        assert games == [first[i:] + first[:i] for i in range(3)]


def test_game_ids_are_unique_and_indices_count_from_zero_without_gaps() -> None:
    pairings = RoundRobin(names(6), 4, seed=3, rounds=2).pairings()
    assert len({p.game_id for p in pairings}) == len(pairings)
    assert [p.index for p in pairings] == list(range(len(pairings)))
    assert pairings[0].game_id == "r001-t0001-s0"


def test_rounds_repeat_every_table_with_fresh_seeds() -> None:
    bots = names(5)
    pairings = RoundRobin(bots, 3, seed=4, rounds=3).pairings()
    tables = tables_of(pairings)
    assert Counter(tables.values()) == {frozenset(c): 3 for c in combinations(bots, 3)}
    assert len({p.seed for p in pairings}) == 30


def test_a_one_round_round_robin_is_issued_whole_as_round_one_and_then_nothing() -> None:
    rr = RoundRobin(names(5), 2, seed=1)
    first = rr.next_round([])
    assert first is not None
    assert first == rr.pairings()
    assert {p.round for p in first} == {1}
    assert rr.fixed_total == len(first)
    assert rr.next_round([outcome(p, seat_order_wins(p)) for p in first], len(first)) is None


def test_without_rotation_each_table_is_played_once_with_seats_evened_out() -> None:
    pairings = RoundRobin(names(7), 4, seed=8, rotate=False).pairings()
    assert len(pairings) == 35
    assert len(tables_of(pairings)) == 35
    for counts in seat_counts(pairings, 4).values():
        assert spread(counts) <= 1


def test_the_same_inputs_give_identical_round_robin_pairings() -> None:
    full = RoundRobin(names(6), 3, seed=11).pairings()
    assert full == RoundRobin(names(6), 3, seed=11).pairings()
    small = RoundRobin(names(10), 4, seed=11, max_games=120).pairings()
    assert small == RoundRobin(names(10), 4, seed=11, max_games=120).pairings()


def test_a_different_seed_changes_the_game_seeds_and_the_table_order() -> None:
    a = RoundRobin(names(6), 3, seed=1).pairings()
    b = RoundRobin(names(6), 3, seed=2).pairings()
    assert not {p.seed for p in a} & {p.seed for p in b}
    assert [p.bots for p in a] != [p.bots for p in b]
    assert set(tables_of(a).values()) == set(tables_of(b).values())


@pytest.mark.parametrize(
    ("n", "players", "max_games"),
    [(10, 4, 120), (10, 4, 400), (12, 3, 300), (9, 3, 45), (16, 4, 400), (8, 2, 40)],
)
def test_over_max_games_every_bot_plays_equally_often_and_meetings_stay_even(
    n: int, players: int, max_games: int
) -> None:
    rr = RoundRobin(names(n), players, seed=7, max_games=max_games)
    pairings = rr.pairings()
    assert len(pairings) == max_games
    tables = tables_of(pairings)
    assert len(set(tables.values())) == len(tables) == max_games // players
    assert all(len(t) == players for t in tables.values())
    games, meetings = games_and_meetings(pairings)
    assert set(games) == set(names(n))
    assert spread(list(games.values())) == 0
    all_pairs = [meetings[frozenset(pr)] for pr in combinations(names(n), 2)]
    # Within two tables' worth of each other (every rotation of a table is a meeting).
    assert spread(all_pairs) <= 2 * players


def test_when_the_numbers_do_not_divide_games_per_bot_differ_by_at_most_one_table() -> None:
    pairings = RoundRobin(names(8), 4, seed=3, max_games=100).pairings()
    games, _ = games_and_meetings(pairings)
    assert sum(games.values()) == 400
    assert spread(list(games.values())) == 4


def test_a_subset_plays_whole_tables_in_all_their_rotations() -> None:
    pairings = RoundRobin(names(9), 3, seed=3, max_games=62).pairings()
    assert len(pairings) == 60
    assert Counter(p.table for p in pairings) == {t: 3 for t in range(1, 21)}


def test_the_subset_is_deterministic_and_chosen_from_the_seed() -> None:
    def subset(seed: int) -> set[frozenset[str]]:
        rr = RoundRobin(names(10), 4, seed=seed, max_games=120)
        return set(tables_of(rr.pairings()).values())

    assert subset(1) == subset(1)
    assert subset(1) != subset(2)


def test_past_one_copy_every_table_is_played_before_any_is_played_again() -> None:
    bots = names(6)
    pairings = RoundRobin(bots, 3, seed=2, rounds=3, max_games=3 * (20 + 20 + 10)).pairings()
    counts = Counter(tables_of(pairings).values())
    assert set(counts) == {frozenset(c) for c in combinations(bots, 3)}
    assert sorted(Counter(counts.values()).items()) == [(2, 10), (3, 10)]
    games, _ = games_and_meetings(pairings)
    assert spread(list(games.values())) == 0


def test_max_games_at_least_the_full_schedule_changes_nothing() -> None:
    full = RoundRobin(names(6), 3, seed=4)
    assert RoundRobin(names(6), 3, seed=4, max_games=60).pairings() == full.pairings()
    assert RoundRobin(names(6), 3, seed=4, max_games=1000).pairings() == full.pairings()
    assert "subset" not in full.describe()


def test_describe_counts_tables_rotations_and_games() -> None:
    text = RoundRobin(names(7), 4, seed=1).describe()
    assert "round-robin" in text
    assert "4-player tables" in text
    assert "35 tables x 4 rotations = 140 games" in text


def test_describe_states_the_balanced_subset_and_its_spread() -> None:
    text = RoundRobin(names(10), 4, seed=1, max_games=120).describe()
    assert "balanced subset: 30 of 210 tables" in text
    assert "games per bot 48-48" in text
    assert "meetings per pair " in text


# --- Swiss -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bots", "players", "sizes"),
    [
        (10, 4, [4, 4, 2]), (11, 4, [4, 4, 3]), (12, 4, [4, 4, 4]), (9, 4, [4, 3, 2]),
        (5, 4, [3, 2]), (4, 4, [4]), (7, 3, [3, 2, 2]), (4, 3, [2, 2]), (8, 3, [3, 3, 2]),
        (8, 2, [2, 2, 2, 2]), (9, 2, [2, 2, 2, 2]),
    ],
)
def test_tables_are_as_many_full_tables_as_possible_with_smaller_ones_at_the_bottom(
    bots: int, players: int, sizes: list[int]
) -> None:
    assert table_sizes(bots, players) == sizes


def test_a_swiss_round_seats_its_tables_top_down_in_those_sizes() -> None:
    sw = Swiss(names(10), 4, seed=1, rounds=2)
    for batch in play(sw, random_ranks(1)):
        sizes = [len(p.bots) for p in sorted(batch, key=lambda p: p.table)]
        assert sizes == [4, 4, 2]


@pytest.mark.parametrize(
    ("ranks", "points2"),
    [
        ((1, 2, 3, 4), [6, 4, 2, 0]),
        ((4, 3, 2, 1), [0, 2, 4, 6]),
        ((1, 1, 3, 4), [5, 5, 2, 0]),
        ((1, 1, 2, 3), [5, 5, 2, 0]),
        ((1, 2, 2, 2), [6, 2, 2, 2]),
        ((1, 1, 1), [2, 2, 2]),
        ((2, 1), [0, 2]),
        ((1, 1), [1, 1]),
    ],
)
def test_placement_points_are_k_minus_rank_and_ties_share_the_average(
    ranks: tuple[int, ...], points2: list[int]
) -> None:
    assert placement_points2(ranks) == points2


def test_round_one_is_a_seeded_shuffle() -> None:
    def first(seed: int) -> list[tuple[str, ...]]:
        batch = Swiss(names(12), 4, seed=seed, rounds=3).next_round([])
        assert batch is not None
        return [p.bots for p in batch]

    assert first(1) == first(1)
    assert first(1) != first(2)
    assert first(1) != [tuple(names(12)[i : i + 4]) for i in (0, 4, 8)]


def test_the_top_scorers_are_seated_together_in_the_next_round() -> None:
    sw = Swiss(names(16), 4, seed=3, rounds=2)
    first = sw.next_round([])
    assert first is not None
    done = [outcome(p, seat_order_wins(p)) for p in first]
    second = sw.next_round(done)
    assert second is not None
    tables = tables_of(second)
    winners = frozenset(p.bots[0] for p in first)
    seconds = frozenset(p.bots[1] for p in first)
    losers = frozenset(p.bots[3] for p in first)
    assert tables[1] == winners
    assert tables[2] == seconds
    assert tables[4] == losers


def test_round_two_avoids_every_round_one_pair_even_when_score_order_would_repeat() -> None:
    sw = Swiss(names(16), 4, seed=5, rounds=2, rotate=True)
    first = sw.next_round([])
    assert first is not None
    # Tables 1 and 3 rank their bots the same in every rotation (12, 8, 4, 0 points); tables 2
    # and 4 tie every game (6 points each). Filling by score alone would seat two bots of
    # table 1 and two of table 3 together at the top.
    done = []
    for p in first:
        if p.table in (1, 3):
            order = sorted(p.bots)
            done.append(outcome(p, [order.index(b) + 1 for b in p.bots]))
        else:
            done.append(outcome(p, [1, 1, 1, 1]))
    points: Counter[str] = Counter()
    for o in done:
        points.update(dict(zip(o.bots, placement_points2(o.ranks), strict=True)))
    by_score = sorted(points, key=lambda b: -points[b])
    groups = {b: p.table for p in first for b in p.bots}
    assert len({groups[b] for b in by_score[:4]}) < 4
    second = sw.next_round(done)
    assert second is not None
    assert repeat_pairs([first, second]) == [0, 0]
    top = tables_of(second)[1]
    assert {b for b in by_score[:2]} <= top


@pytest.mark.parametrize(("n", "players", "rounds"), [(16, 4, 3), (9, 3, 4), (8, 2, 4), (12, 3, 2)])
def test_swiss_never_repeats_a_meeting_while_a_repeat_free_round_exists(
    n: int, players: int, rounds: int
) -> None:
    # In these cases any repeat-free history leaves a repeat-free round possible: k groups of
    # k bots always have a next orthogonal partition for k = 3 and for the first three rounds
    # of k = 4 (Latin squares); 12 bots in four triples can always be regrouped one from
    # each of three triples; at 2-player tables the unmet pairs of 8 bots after at most three
    # rounds form a graph of degree at least 4 = 8/2, which has a perfect matching (Dirac).
    for seed in range(8):
        issued = play(Swiss(names(n), players, seed=seed, rounds=rounds), random_ranks(seed))
        assert len(issued) == rounds
        assert repeat_pairs(issued) == [0] * rounds


def test_when_repeats_are_unavoidable_round_two_keeps_them_to_the_minimum() -> None:
    # 8 bots at two 4-player tables: every round-2 table holds at least two bots from one
    # round-1 table; the best is two from each (two repeat pairs per table).
    for seed in range(5):
        issued = play(Swiss(names(8), 4, seed=seed, rounds=2), random_ranks(seed))
        assert repeat_pairs(issued) == [0, 4]


def test_without_rotation_seats_even_out_over_rounds() -> None:
    for players in (2, 3, 4):
        issued = play(Swiss(names(players), players, seed=1, rounds=players), random_ranks(1))
        counts = seat_counts([p for batch in issued for p in batch], players)
        assert all(c == [1] * players for c in counts.values())


def test_seat_history_counts_across_tables_of_the_whole_field() -> None:
    issued = play(Swiss(names(8), 4, seed=2, rounds=8), random_ranks(2))
    counts = seat_counts([p for batch in issued for p in batch], 4)
    assert all(len(batch) == 2 for batch in issued)
    for c in counts.values():
        assert spread(c) <= 2
        assert min(c) >= 1


def test_with_rotation_swiss_plays_every_table_in_all_rotations_with_one_seed() -> None:
    sw = Swiss(names(7), 3, seed=4, rounds=2, rotate=True)
    for batch in play(sw, random_ranks(4)):
        assert len(batch) == 3 + 2 + 2
        for games in _by_table(batch).values():
            k = len(games[0].bots)
            assert len(games) == k
            assert len({g.seed for g in games}) == 1
            first = games[0].bots
            assert [g.bots for g in games] == [first[i:] + first[:i] for i in range(k)]


def _by_table(batch: Sequence[Pairing]) -> dict[int, list[Pairing]]:
    out: dict[int, list[Pairing]] = {}
    for p in batch:
        out.setdefault(p.table, []).append(p)
    return out


def test_swiss_indices_continue_across_rounds_and_game_ids_are_unique() -> None:
    issued = play(Swiss(names(10), 4, seed=6, rounds=4, rotate=True), random_ranks(6))
    flat = [p for batch in issued for p in batch]
    assert [p.index for p in flat] == list(range(len(flat)))
    assert len({p.game_id for p in flat}) == len(flat)
    assert [batch[0].index for batch in issued] == [0, 10, 20, 30]
    assert [{p.round for p in batch} for batch in issued] == [{1}, {2}, {3}, {4}]
    assert issued[1][0].game_id == "r002-t0001-s0"


def test_swiss_returns_none_after_the_last_round() -> None:
    sw = Swiss(names(6), 3, seed=1, rounds=2)
    issued = play(sw, random_ranks(1))
    assert len(issued) == 2
    finished = [outcome(p, seat_order_wins(p)) for batch in issued for p in batch]
    assert sw.next_round(finished) is None


def test_the_same_outcomes_give_the_same_round_in_any_order_and_from_a_fresh_scheduler() -> None:
    bots = names(12)
    finished: list[GameOutcome] = []
    ranker = random_ranks(3)
    for _ in range(2):
        batch = Swiss(bots, 3, seed=8, rounds=4).next_round(finished)
        assert batch is not None
        finished += [outcome(p, ranker(p)) for p in batch]
    expected = Swiss(bots, 3, seed=8, rounds=4).next_round(finished)
    shuffled = list(finished)
    random.Random(0).shuffle(shuffled)
    assert Swiss(bots, 3, seed=8, rounds=4).next_round(shuffled) == expected
    other = Swiss(bots, 3, seed=9, rounds=4).next_round(finished)
    assert other is not None and expected is not None
    assert {p.seed for p in other}.isdisjoint({p.seed for p in expected})


def test_with_two_player_tables_and_an_odd_field_each_bot_sits_out_once_before_any_twice() -> None:
    bots = names(5)
    issued = play(Swiss(bots, 2, seed=3, rounds=5), random_ranks(3))
    sat_out = []
    for batch in issued:
        assert [len(p.bots) for p in batch] == [2, 2]
        playing = {b for p in batch for b in p.bots}
        (bye,) = set(bots) - playing
        sat_out.append(bye)
    assert sorted(sat_out) == sorted(bots)


def test_an_outcome_naming_an_unknown_bot_is_an_error() -> None:
    sw = Swiss(names(4), 2, seed=1, rounds=2)
    stranger = Pairing("r001-t0001-s0", 0, 1, 1, ("bot00", "intruder"), 5)
    with pytest.raises(ValueError, match="intruder"):
        sw.next_round([outcome(stranger, [1, 2])])


def test_swiss_describe_names_the_table_sizes_and_game_count() -> None:
    assert Swiss(names(10), 4, seed=1, rounds=5).describe() == (
        "swiss, 10 bots, 4-player tables (4+4+2), 5 rounds x 3 games = 15 games"
    )


# --- gauntlet --------------------------------------------------------------------------------


def test_every_gauntlet_table_holds_exactly_one_candidate() -> None:
    candidates, field = ["new1", "new2"], names(5)
    pairings = Gauntlet(candidates, field, 3, seed=1).pairings()
    for table in tables_of(pairings).values():
        assert len(table & set(candidates)) == 1
        assert len(table) == 3


def test_each_candidate_meets_every_combination_of_the_field_in_all_rotations() -> None:
    candidates, field = ["new1", "new2"], names(5)
    pairings = Gauntlet(candidates, field, 3, seed=1).pairings()
    assert len(pairings) == 2 * 10 * 3
    tables = set(tables_of(pairings).values())
    assert tables == {frozenset((c, *f)) for c in candidates for f in combinations(field, 2)}
    counts = seat_counts(pairings, 3)
    assert counts["new1"] == counts["new2"] == [10, 10, 10]
    assert all(counts[b] == [8, 8, 8] for b in field)
    seeds = {t: {p.seed for p in games} for t, games in _by_table(pairings).items()}
    assert all(len(s) == 1 for s in seeds.values())


def test_a_gauntlet_subset_keeps_a_candidate_at_every_table_and_play_even() -> None:
    candidates, field = ["new1", "new2", "new3"], names(7)
    g = Gauntlet(candidates, field, 4, seed=2, max_games=120)
    pairings = g.pairings()
    assert len(pairings) == 120
    games, meetings = games_and_meetings(pairings)
    for table in tables_of(pairings).values():
        assert len(table & set(candidates)) == 1
    assert spread([games[c] for c in candidates]) == 0
    assert spread([games[f] for f in field]) <= 4
    assert spread([meetings[frozenset((c, f))] for c in candidates for f in field]) <= 8
    assert "balanced subset: 30 of 105 tables" in g.describe()
    assert Gauntlet(candidates, field, 4, seed=2, max_games=120).pairings() == pairings


def test_gauntlet_rounds_repeat_with_fresh_seeds() -> None:
    pairings = Gauntlet(["c"], names(3), 2, seed=1, rounds=2).pairings()
    assert Counter(tables_of(pairings).values()) == {frozenset(("c", b)): 2 for b in names(3)}
    assert len({p.seed for p in pairings}) == 6


# --- make_scheduler --------------------------------------------------------------------------


def test_make_scheduler_builds_each_format_with_its_default_seating() -> None:
    rr = make_scheduler("round-robin", names(5), 3, seed=1)
    assert isinstance(rr, RoundRobin)
    assert len(rr.pairings()) == 30
    sw = make_scheduler("swiss", names(6), 3, seed=1, rounds=3)
    assert isinstance(sw, Swiss)
    first = sw.next_round([])
    assert first is not None and len(first) == 2
    g = make_scheduler("gauntlet", ["a", "b", "c", "new"], 2, seed=1, candidates=["new"])
    assert isinstance(g, Gauntlet)
    assert g.field == ("a", "b", "c")
    assert len(g.pairings()) == 6


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fmt": "knockout"},
         "'format' must be one of round-robin, swiss, gauntlet, got 'knockout'"),
        ({"bots": ["a", "b"], "players": 3}, "'bots' 2 bots cannot fill a table of 3"),
        ({"players": 1}, "'players' must be 2..4, got 1"),
        ({"players": 5}, "'players' must be 2..4, got 5"),
        ({"rounds": 0}, "'rounds' must be >= 1, got 0"),
        ({"fmt": "swiss", "rounds": 0}, "'rounds' must be >= 1, got 0"),
        ({"fmt": "swiss", "bots": ["a", "b"], "players": 3}, "cannot fill a table of 3"),
        ({"fmt": "gauntlet"}, "'candidates' are required for a gauntlet"),
        ({"fmt": "gauntlet", "candidates": ["zed"]}, "'candidates' zed not among the bots"),
        ({"fmt": "gauntlet", "candidates": ["a", "b", "c"]},
         "field of at least 2 bots besides the candidates; there are 1"),
        ({"bots": ["a", "b", "a"]}, "'bots' names must be unique; twice: a"),
        ({"fmt": "swiss", "max_games": 10}, "'max_games' does not apply to a swiss"),
        ({"candidates": ["a"]}, "only a gauntlet has candidates"),
        ({"max_games": 2}, "'max_games' must be at least 3"),
        ({"bots": "abcd"}, "list of bot names"),
    ],
)
def test_impossible_setups_are_refused_with_a_clear_message(
    kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {
        "fmt": "round-robin", "bots": ["a", "b", "c", "d"], "players": 3, "seed": 1,
        "rounds": 1,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        make_scheduler(**args)  # type: ignore[arg-type]


def test_game_ids_name_the_repeat_and_the_table_within_it() -> None:
    pairings = RoundRobin(names(3), 2, seed=1, rounds=2).pairings()
    ids = [p.game_id for p in pairings]
    assert ids[:2] == ["r001-t0001-s0", "r001-t0001-s1"]
    assert ids[6:8] == ["r002-t0001-s0", "r002-t0001-s1"] and ids[-1] == "r002-t0003-s1"
    assert len(set(ids)) == len(ids)
