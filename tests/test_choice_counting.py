"""The array steps of a large field's choices and groups (:mod:`arena.stats.choices`,
:mod:`arena.stats.groups`) against the plain operations they stand for: the same values,
bit for bit, in the same order."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from arena.protocol.messages import Termination
from arena.results import GameOutcome
from arena.stats import choices, groups, plackett_luce
from arena.stats.choices import (
    _entries,
    _repeats,
    choice_data,
    large_choice_data,
    sorted_rows,
)
from arena.stats.synthetic import synthetic_bots, synthetic_outcomes


@pytest.mark.parametrize("width", [1, 2, 3, 4, 5])
def test_rows_are_sorted_and_repeats_found_as_by_a_sort(width: int) -> None:
    table = np.random.default_rng(width).integers(0, 6, size=(400, width))
    assert np.array_equal(sorted_rows(table), np.sort(table, axis=1))
    by_sort = (np.diff(np.sort(table, axis=1), axis=1) == 0).any(axis=1)
    assert np.array_equal(_repeats(table), by_sort) and by_sort.any() != (width == 1)


def test_entries_sum_each_choice_in_order_as_bincount_does() -> None:
    """Choices of weight 1, then others of weights whose sum depends on its order (thirds,
    sixths, tenths), some of the same (code, duplicate set) as choices of weight 1."""
    rng = np.random.default_rng(4)
    codes, dups = rng.integers(0, 50, 3000), rng.integers(0, 7, 3000)
    slow_codes, slow_dups = rng.integers(0, 60, 900), rng.integers(0, 7, 900)
    slow_weights = rng.choice([1 / 3, 1 / 6, 0.1, 0.5], 900)
    found, at, summed = _entries(codes, dups, slow_codes, slow_dups, slow_weights, 7)
    every, where = np.unique(np.concatenate([codes, slow_codes]) * 7
                             + np.concatenate([dups, slow_dups]), return_inverse=True)
    expected = np.bincount(where, weights=np.concatenate([np.ones(3000), slow_weights]))
    assert np.array_equal(found, every // 7) and np.array_equal(at, every % 7)
    assert np.array_equal(summed, expected)  # bit for bit
    assert not np.array_equal(summed, np.round(summed))  # the weights did not all sum whole
    alone = _entries(codes, dups, slow_codes[:0], slow_dups[:0], slow_weights[:0], 7)
    assert np.array_equal(alone[2], np.bincount(np.unique(codes * 7 + dups,
                                                          return_inverse=True)[1]))


def test_choice_sets_keyed_by_their_place_give_the_same_choices(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A field whose set keys and duplicate sets do not fit one number together numbers the
    sets by their place among the keys: the same choices, bit for bit."""
    theta = synthetic_bots(9, 2)
    outcomes = synthetic_outcomes(theta, 4, 300, 2)
    outcomes[3] = dataclasses.replace(outcomes[3], ranks=(1, 1, 3, 3))
    outcomes[8] = dataclasses.replace(outcomes[8], ranks=(2, 1, 2, 2))
    names = sorted(theta)
    packed = large_choice_data(outcomes, names)
    monkeypatch.setattr(choices, "PACKED_BITS", 1)
    ranked = large_choice_data(outcomes, names)
    for f in dataclasses.fields(packed):
        a, b = getattr(packed, f.name), getattr(ranked, f.name)
        assert (np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b), f.name
    assert not np.array_equal(packed.set_entry_weight, np.round(packed.set_entry_weight))


def _pairs(found: set[tuple[int, int]]) -> np.ndarray:
    return np.array(sorted(found), dtype=np.int64).reshape(-1, 2)


def test_one_group_is_found_at_once_and_others_as_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(9)
    n = 40
    ring = {(i, (i + 1) % n) for i in range(n)} | {
        (int(a), int(b)) for a, b in rng.integers(0, n, size=(120, 2))}
    strength = np.round(rng.normal(size=n), 1)  # ties among strengths: broken by number

    def by(i: int) -> float:
        return float(strength[i])

    whole = groups.groups(n, ring, by)
    assert len(whole.members) == 1
    one_way = {(a, b) for a, b in ring if a < b}  # bot 0 still reaches every bot
    split = groups.groups(n, one_way, by)
    assert len(split.members) > 1

    def refused(*_: object) -> groups.Groups:
        raise AssertionError("the one group is given without the general search")

    alone = groups.groups(1, [], by)
    with monkeypatch.context() as m:
        m.setattr(groups, "groups", refused)
        assert groups.groups_of_pairs(n, _pairs(ring), by) == whole
        assert groups.groups_of_pairs(1, _pairs({(0, 0)}), by) == alone
    assert groups.groups_of_pairs(n, _pairs(one_way), by) == split
    assert groups.groups_of_pairs(0, _pairs(set()), by) == groups.groups(0, [], by)
    monkeypatch.setattr(groups, "TABLE_BOTS", n - 1)  # too many bots for the table
    assert groups.groups_of_pairs(n, _pairs(ring), by) == whole


def test_games_of_shared_ranks_give_the_choices_one_by_one_gives_in_order() -> None:
    """Every pattern of shared ranks at tables of four and three: the same choices (set,
    winner, weight), game by game and in each game's order, and the same pairs ahead."""
    rng = np.random.default_rng(3)
    patterns = [(1, 1, 3, 4), (1, 2, 2, 4), (1, 2, 3, 3), (1, 1, 3, 3), (1, 1, 1, 4),
                (1, 2, 2, 2), (1, 1, 1, 1), (2, 2, 1, 2), (1, 1, 3), (1, 2, 2), (1, 1, 1)]
    n, width = 9, 4
    seated = np.full((len(patterns), width), -1, dtype=np.int64)
    ranks = np.zeros((len(patterns), width), dtype=np.int64)
    size = np.array([len(p) for p in patterns], dtype=np.int64)
    for g, p in enumerate(patterns):
        order = rng.permutation(len(p))
        seated[g, :len(p)] = rng.choice(n, size=len(p), replace=False)
        ranks[g, :len(p)] = np.array(p)[order]
    powers = (n + 1) ** np.arange(width, dtype=np.int64)
    shared = choices._tied_choices(seated, ranks, size, np.arange(len(patterns)), powers, n)
    bots = [f"b{i}" for i in range(n)]
    index = {b: i for i, b in enumerate(bots)}
    sets: dict[tuple[int, ...], int] = {}
    finishes: set[tuple[int, ...]] = set()
    expected = []
    for g in range(len(patterns)):
        k = int(size[g])
        game = GameOutcome(f"g{g}", g, g, 0, tuple(bots[b] for b in seated[g, :k]), 0,
                           (0,) * k, tuple(ranks[g, :k].tolist()), (Termination.OK,) * k)
        found = choices._choices(game, index, sets, finishes)
        assert found is not None
        expected += [(g, sid, winner, weight) for sid, winner, weight in found]
    key_of = {sid: sum(int(m) * int(powers[j]) for j, m in enumerate(
        [*members, *[n] * (width - len(members))])) for members, sid in sets.items()}
    by_game = np.argsort(shared.games, kind="stable")  # each game's own order kept
    assert list(zip(*(a[by_game].tolist() for a in (shared.games, shared.keys, shared.winners,
                                                    shared.weights)), strict=True)) == [
        (g, key_of[sid], winner, weight) for g, sid, winner, weight in expected]
    ahead = {(f[j], f[j + 1]) for f in finishes for j in range(len(f) - 1)}
    found_ahead = np.concatenate(shared.ahead)
    assert set(zip((found_ahead // (n + 1)).tolist(), (found_ahead % (n + 1)).tolist(),
                   strict=True)) == ahead


@pytest.mark.parametrize("large", [True, False])
def test_the_information_sums_the_pairs_of_bots_as_every_pair_of_places(large: bool) -> None:
    """Sets sorted by members (a large field's: the larger first) or as the games show them,
    of four, three and two bots: the pairs with the padding left out, every other sum the
    same to the last bit."""
    theta = synthetic_bots(9, 5)
    outcomes = synthetic_outcomes(theta, 4, 200, 5)
    for g in range(0, 200, 7):
        o = outcomes[g]
        outcomes[g] = dataclasses.replace(o, bots=o.bots[:2 + g % 2], ranks=(1, 2, 3)[:2 + g % 2],
                                          scores=o.scores[:2 + g % 2],
                                          terminations=o.terminations[:2 + g % 2])
    names = sorted(theta)
    data = (large_choice_data if large else choice_data)(outcomes, names)
    p = np.random.default_rng(1).random(data.members.shape) * (data.members < data.n)
    cp = data.weights()[0] * p
    n = data.n
    expected = np.bincount(data.pair_index.ravel(), weights=(cp[:, None, :] * p[None, :, :]
                                                             ).ravel(), minlength=(n + 1) ** 2)
    found = plackett_luce._Pairs(data).summed(cp, p, (n + 1) ** 2)
    inside = np.arange((n + 1) ** 2).reshape(n + 1, n + 1)[:n, :n].ravel()
    assert np.array_equal(found[inside], expected[inside])
    assert len(plackett_luce._Pairs(data).bins) < data.pair_index.size
