"""The finishing orders of a journal's games as the weighted choices that the Plackett–Luce fit
(:mod:`arena.stats.plackett_luce`) takes: each game of k players is k - 1 choices, each of a
winner from a *choice set* (the bots not yet placed), and a shared rank counts every order of
the tied bots, each with its share of the game.

:func:`choice_data` numbers the choice sets as the games first show them, game by game, which
the bootstrap and every page made so far rely on. :func:`large_choice_data` gives the same
choices, their sets numbered in another order, from array operations over every game at once:
a large field's pass (a million games of a thousand bots), where a Python loop over the games
and their sets took most of the fit's time.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from arena.results import GameOutcome
from arena.stats.common import duplicate_sets, set_key

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
#: A choice set's key and its duplicate set are counted as one number when they fit this many
#: bits together (a thousand bots at tables of four and a million duplicate sets do).
PACKED_BITS = 62


def orders(ranks: Sequence[int]) -> list[tuple[list[int], float]]:
    """The finishing orders of a game's seats (best first) with their weights: one order of
    weight 1 without ties, else every order of the tied seats, each of equal weight."""
    by_rank: dict[int, list[int]] = {}
    for seat in sorted(range(len(ranks)), key=lambda s: (ranks[s], s)):
        by_rank.setdefault(ranks[seat], []).append(seat)
    groups = list(by_rank.values())
    if all(len(g) == 1 for g in groups):
        return [([g[0] for g in groups], 1.0)]
    all_orders = [[s for group in combo for s in group]
                  for combo in itertools.product(*(itertools.permutations(g) for g in groups))]
    return [(o, 1 / len(all_orders)) for o in all_orders]


@dataclass(frozen=True)
class ChoiceData:
    """The finishing orders as weighted choices, ready to fit and to resample.

    ``members[:, s]`` lists the bots of choice set s (padded with ``n``, a bot that is never
    there): one row per place in the set, so that sums over a set run along contiguous rows.
    Each *entry* says how much weight one duplicate set gives a choice set (``set_*``) or a
    bot's choices won (``win_*``); a replicate reweights the entries by how often it drew
    their duplicate set.
    """

    bots: list[str]
    members: IntArray
    pair_index: IntArray
    set_entry_set: IntArray
    set_entry_dup: IntArray
    set_entry_weight: FloatArray
    win_entry_bot: IntArray
    win_entry_dup: IntArray
    win_entry_weight: FloatArray
    duplicate_sets: int
    games: int
    #: Rows (a, b), ascending: bot a finished just ahead of, or level with, bot b in some
    #: game (the rest of "ahead" follows along these).
    ahead_pairs: IntArray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    #: (a, b), a < b: the duplicate sets in which both sat.
    met_sets: dict[tuple[int, int], int] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.bots)

    @property
    def ahead(self) -> frozenset[tuple[int, int]]:
        """The pairs of :attr:`ahead_pairs`."""
        return frozenset((a, b) for a, b in self.ahead_pairs.tolist())

    def weights(self, mult: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
        """Each choice set's count and each bot's choices won, with duplicate set d counted
        ``mult[d]`` times (once each without ``mult``)."""
        sw, ww = self.set_entry_weight, self.win_entry_weight
        if mult is not None:
            sw = sw * mult[self.set_entry_dup]
            ww = ww * mult[self.win_entry_dup]
        counts = np.bincount(self.set_entry_set, weights=sw, minlength=self.members.shape[1])
        wins = np.bincount(self.win_entry_bot, weights=ww, minlength=self.n)
        return counts.astype(np.float64), wins.astype(np.float64)


def _choices(o: GameOutcome, index: dict[str, int], set_ids: dict[tuple[int, ...], int],
             finishes: set[tuple[int, ...]]) -> list[tuple[int, int, float]] | None:
    """Game ``o``'s choices among the bots of ``index``, as (choice set, its winner, weight),
    numbering the choice sets not seen before in ``set_ids`` and adding its finishing orders
    to ``finishes``; None if it seats fewer than two of them."""
    seated = [s for s, b in enumerate(o.bots) if b in index]
    if len(seated) < 2:
        return None
    ids = [index[o.bots[s]] for s in seated]
    choices = []
    for order, weight in orders([o.ranks[s] for s in seated]):
        placed = [ids[s] for s in order]
        finishes.add(tuple(placed))
        for j in range(len(placed) - 1):
            key = tuple(sorted(placed[j:]))
            choices.append((set_ids.setdefault(key, len(set_ids)), placed[j], weight))
    return choices


def choice_data(outcomes: Sequence[GameOutcome], bots: Sequence[str]) -> ChoiceData:
    """The choices of every game in ``outcomes`` among ``bots`` (a game's other bots, if any,
    are left out of its order, as if they had not sat)."""
    index = {b: i for i, b in enumerate(bots)}
    n = len(bots)
    set_ids: dict[tuple[int, ...], int] = {}
    set_entries: dict[tuple[int, int], float] = {}
    win_entries: dict[tuple[int, int], float] = {}
    games = 0
    finishes: set[tuple[int, ...]] = set()  # each finishing order seen, best first
    met_sets: dict[tuple[int, int], int] = {}
    dup_sets = duplicate_sets(outcomes)
    # A game's choices as (choice set, its winner, weight), by its table and ranks (None: it
    # seats fewer than two of ``bots``): figured the first time they are seen (in the same
    # order as game by game, so the choice sets are numbered alike), then only counted.
    seen: dict[tuple[tuple[str, ...], tuple[int, ...]], list[tuple[int, int, float]] | None] = {}
    for d, group in enumerate(dup_sets):
        sat = sorted({index[b] for b in group[0].bots if b in index})
        for x, a in enumerate(sat):
            for b in sat[x + 1:]:
                met_sets[(a, b)] = met_sets.get((a, b), 0) + 1
        for o in group:
            try:
                choices = seen[(o.bots, o.ranks)]
            except KeyError:
                choices = seen[(o.bots, o.ranks)] = _choices(o, index, set_ids, finishes)
            if choices is None:
                continue
            games += 1
            for sid, winner, weight in choices:
                set_entries[(sid, d)] = set_entries.get((sid, d), 0.0) + weight
                win_entries[(winner, d)] = win_entries.get((winner, d), 0.0) + weight
    # Each bot ahead of (or level with) the next in some order: whoever a bot finished ahead
    # of is reached along these, which is all the groups need.
    ahead = {(f[j], f[j + 1]) for f in finishes for j in range(len(f) - 1)}
    width = max((len(k) for k in set_ids), default=2)
    members = np.full((width, len(set_ids)), n, dtype=np.int64)
    for key, sid in set_ids.items():
        members[:len(key), sid] = key
    pair_index = members[:, None, :] * (n + 1) + members[None, :, :]

    def columns(entries: dict[tuple[int, int], float]) -> tuple[IntArray, IntArray, FloatArray]:
        keys = np.array(list(entries), dtype=np.int64).reshape(-1, 2)
        return keys[:, 0], keys[:, 1], np.array(list(entries.values()), dtype=np.float64)

    ss, sd, sw = columns(set_entries)
    wb, wd, ww = columns(win_entries)
    return ChoiceData(list(bots), members, pair_index, ss, sd, sw, wb, wd, ww,
                      duplicate_sets=len(dup_sets), games=games,
                      ahead_pairs=np.array(sorted(ahead), dtype=np.int64).reshape(-1, 2),
                      met_sets=met_sets)



def _digits(keys: IntArray, base: int, width: int) -> IntArray:
    """The members of each choice set from its key (one row per place, as ``members``)."""
    powers = base ** np.arange(width, dtype=np.int64)
    return (keys[None, :] // powers[:, None]) % base


def large_choice_data(outcomes: Sequence[GameOutcome], bots: Sequence[str]) -> ChoiceData:
    """:func:`choice_data`'s choices, from array operations: the same choice sets, counts,
    wins, duplicate sets, "ahead" pairs and pairs met, the sets numbered by their members
    instead of as the games first show them (so sums run in another order, to the last bit).
    The games as a table of numbers (:func:`choices_from_tables` does the rest)."""
    ordered = sorted(outcomes, key=lambda o: o.index)
    index = {b: i for i, b in enumerate(bots)}
    width = max((len(o.bots) for o in ordered), default=2)
    seated = np.full((len(ordered), width), -1, dtype=np.int64)
    ranks = np.zeros((len(ordered), width), dtype=np.int64)
    size = np.zeros(len(ordered), dtype=np.int64)
    dup = np.zeros(len(ordered), dtype=np.int64)
    dup_ids: dict[tuple[int, int, int, frozenset[str]], int] = {}
    met: list[list[int]] = []  # each duplicate set's bots, from its first game
    for g, o in enumerate(ordered):
        d = dup[g] = dup_ids.setdefault(set_key(o), len(dup_ids))
        if d == len(met):
            met.append(sorted({index[b] for b in o.bots if b in index}))
        k = size[g] = len(o.bots)
        seated[g, :k] = [index.get(b, -1) for b in o.bots]
        ranks[g, :k] = o.ranks
    met_table = np.full((len(met), width), -1, dtype=np.int64)
    for d, sat in enumerate(met):
        met_table[d, :len(sat)] = sat
    return choices_from_tables(bots, seated, ranks, size, dup, met_table, ordered.__getitem__)


def choices_from_tables(bots: Sequence[str], seated: IntArray, ranks: IntArray,
                        size: IntArray, dup: IntArray, met: IntArray,
                        outcome: Callable[[int], GameOutcome]) -> ChoiceData:
    """:func:`large_choice_data` of games given as arrays, in index order: ``seated[g, s]``
    the number in ``bots`` of game g's seat s (-1 for a bot not among them, and past its
    ``size[g]`` seats), ``ranks`` its seats' ranks, ``dup[g]`` its duplicate set (numbered in
    the order of their first game), ``met[d]`` the bots of set d (each once, -1 in the other
    places), and ``outcome(g)``
    game g itself (only its bots and ranks are read), for the few games taken one by one.

    A choice set is keyed by its members, sorted and padded with ``n``, as the digits of one
    integer in base n + 1; every game of k players without a shared rank (nearly all of a large
    journal) gives its k - 1 keys in one array operation per table size. The games with shared
    ranks, a bot seated twice or a bot not among ``bots`` take :func:`_choices`' way, game by
    game. A field too large for its keys to fit 63 bits takes :func:`choice_data`."""
    n = len(bots)
    base = n + 1
    games_in = len(size)
    width = int(seated.shape[1]) if games_in else 2
    if base ** width >= 2 ** 62:
        return choice_data([outcome(g) for g in range(games_in)], bots)
    powers = base ** np.arange(width, dtype=np.int64)
    index = {b: i for i, b in enumerate(bots)}
    slow_sets: dict[tuple[int, ...], int] = {}
    # (slow set, winner, weight, duplicate set, game)
    slow: list[tuple[int, int, float, int, int]] = []
    finishes: set[tuple[int, ...]] = set()
    games = 0
    # A game is taken one by one when a seat holds a bot not among ``bots`` or two seats one
    # bot; a game of two seats of one rank (every order of the tied, each its share) by
    # :func:`_tied_choices`.
    seat = np.arange(width)[None, :]
    inside = seat < size[:, None]
    big = np.iinfo(np.int64).max
    one_by_one = (((seated < 0) & inside).any(axis=1)
                  | _repeats(np.where(inside, seated, big - seat)))
    tied = _repeats(np.where(inside, ranks, big - seat)) & ~one_by_one
    for g in np.flatnonzero(one_by_one).tolist():
        choices = _choices(outcome(g), index, slow_sets, finishes)
        if choices is not None:
            games += 1
            slow += [(sid, winner, weight, int(dup[g]), g) for sid, winner, weight in choices]
    shared = _tied_choices(seated, ranks, size, np.flatnonzero(tied), powers, n)
    games += int(np.count_nonzero(tied))
    fast = np.flatnonzero(~(one_by_one | tied))
    # Table sizes in the order their first game shows them, as the sums have always run.
    sizes, first = np.unique(size[fast], return_index=True)
    tables = {int(k): fast[size[fast] == k] for k in sizes[np.argsort(first)]}
    keys: list[IntArray] = []
    winners: list[IntArray] = []
    dups: list[IntArray] = []
    ahead_keys: list[IntArray] = []
    for k, rows in tables.items():
        table = seated[rows, :k]
        placed = np.take_along_axis(table, np.argsort(ranks[rows, :k], axis=1, kind="stable"),
                                    axis=1)
        games += len(placed)
        at = dup[rows]
        padded = np.full((len(placed), width), n, dtype=np.int64)
        for j in range(k - 1):
            padded[:, :k - j] = sorted_rows(placed[:, j:])
            padded[:, k - j:] = n
            keys.append(padded @ powers)
            winners.append(placed[:, j])
            dups.append(at)
            ahead_keys.append(placed[:, j] * base + placed[:, j + 1])
    slow_keys = np.zeros(len(slow_sets), dtype=np.int64)
    for placed_set, sid in slow_sets.items():
        slow_keys[sid] = sum(m * int(powers[j]) for j, m in enumerate(placed_set)) + sum(
            n * int(powers[j]) for j in range(len(placed_set), width))
    sids = np.array([c[0] for c in slow], dtype=np.int64)
    # The choices of weights other than 1 in the order of their games, as one by one: those
    # taken one by one, then those of shared ranks, sorted (stably) by game.
    by_game = np.argsort(np.concatenate([np.array([c[4] for c in slow], dtype=np.int64),
                                         shared.games]), kind="stable")
    slow_set_keys = np.concatenate([slow_keys[sids], shared.keys])[by_game]
    won = np.concatenate([np.array([c[1] for c in slow], dtype=np.int64),
                          shared.winners])[by_game]
    weight = np.concatenate([np.array([c[2] for c in slow], dtype=np.float64),
                             shared.weights])[by_game]
    slow_dups = np.concatenate([np.array([c[3] for c in slow], dtype=np.int64),
                                dup[shared.games]])[by_game]
    ahead_keys += shared.ahead
    for f in finishes:
        ahead_keys.append(np.array([f[j] * base + f[j + 1] for j in range(len(f) - 1)],
                                   dtype=np.int64))
    n_dups = len(met)
    fast_dups = _joined(dups)
    fast_keys = _joined(keys)
    # Each choice's set as a number that sorts as its key: the key itself when a key and a
    # duplicate set fit 62 bits together, else its place among the keys.
    codes, slow_codes, every_key = fast_keys, slow_set_keys, None
    if base ** width * max(1, n_dups) >= 2 ** PACKED_BITS:
        every_key, rank = np.unique(np.concatenate([fast_keys, slow_set_keys]),
                                    return_inverse=True)
        codes, slow_codes = rank[:len(fast_keys)], rank[len(fast_keys):]
    code, sd, sw = _entries(codes, fast_dups, slow_codes, slow_dups, weight, n_dups)
    new_set = np.diff(code, prepend=-1) != 0
    ss = np.cumsum(new_set) - 1
    members = _digits(code[new_set] if every_key is None else every_key, base, width)
    wb, wd, ww = _entries(_joined(winners), fast_dups, won, slow_dups, weight, n_dups)
    pairs = _distinct_pairs(ahead_keys, base)[0]
    ahead = np.stack([pairs // base, pairs % base], axis=1)
    met_keys = [np.zeros(0, dtype=np.int64)]
    for x in range(met.shape[1]):
        for y in range(x + 1, met.shape[1]):
            a, b = met[:, x], met[:, y]
            both = (a >= 0) & (b >= 0) & (a != b)
            met_keys.append(np.minimum(a, b)[both] * base + np.maximum(a, b)[both])
    met_pairs, met_counts = _distinct_pairs(met_keys, base)
    met_sets = dict(zip(zip((met_pairs // base).tolist(), (met_pairs % base).tolist(),
                            strict=True), met_counts.tolist(), strict=True))
    pair_index = members[:, None, :] * (n + 1) + members[None, :, :]
    return ChoiceData(list(bots), members, pair_index, ss, sd, sw, wb, wd, ww,
                      duplicate_sets=n_dups, games=games, ahead_pairs=ahead,
                      met_sets=met_sets)


@dataclass(frozen=True)
class _Shared:
    """The choices of games with shared ranks, each game's in the order :func:`_choices`
    gives them (its orders, then the places of each), and the pairs of bots next to each
    other in some order, as keys (``a * base + b``)."""

    keys: IntArray
    winners: IntArray
    weights: FloatArray
    games: IntArray
    ahead: list[IntArray]


def _tied_choices(seated: IntArray, ranks: IntArray, size: IntArray, rows: IntArray,
                  powers: IntArray, n: int) -> _Shared:
    """The choices of games ``rows`` (each of bots among the rated, none seated twice, some
    ranks shared), as :func:`_choices` makes them: the games of one table size and one
    pattern of shared ranks (which places tie with the next) share their orders, taken from
    :func:`orders` once for all of them."""
    width, base = len(powers), n + 1
    parts: list[tuple[IntArray, IntArray, FloatArray, IntArray]] = []
    ahead: list[IntArray] = []
    for k in np.unique(size[rows]).tolist():
        at = rows[size[rows] == k]
        by_rank = np.argsort(ranks[at, :k], axis=1, kind="stable")  # by rank, then seat
        placed = np.take_along_axis(seated[at, :k], by_rank, axis=1)
        ordered = np.take_along_axis(ranks[at, :k], by_rank, axis=1)
        pattern = (ordered[:, 1:] == ordered[:, :-1]) @ (1 << np.arange(k - 1))
        for code in np.unique(pattern).tolist():
            these = pattern == code
            games, table = at[these], placed[these]
            shape = orders([0, *np.cumsum([(code >> j) & 1 == 0 for j in range(k - 1)])])
            padded = np.full((len(games), len(shape), k - 1, width), n, dtype=np.int64)
            winners = np.empty((len(games), len(shape), k - 1), dtype=np.int64)
            for o, (order, _) in enumerate(shape):
                finish = table[:, order]
                for j in range(k - 1):
                    padded[:, o, j, :k - j] = sorted_rows(finish[:, j:])
                    winners[:, o, j] = finish[:, j]
                    ahead.append(finish[:, j] * base + finish[:, j + 1])
            weight = np.full(winners.shape, shape[0][1])
            parts.append((padded.reshape(-1, width) @ powers, winners.ravel(), weight.ravel(),
                          np.repeat(games, len(shape) * (k - 1))))
    if not parts:
        none = np.zeros(0, dtype=np.int64)
        return _Shared(none, none, np.zeros(0), none, ahead)
    keys, winners, weights, games = (np.concatenate(c) for c in zip(*parts, strict=True))
    return _Shared(keys, winners, weights, games, ahead)


def _repeats(table: IntArray) -> npt.NDArray[np.bool_]:
    """Whether each row of ``table`` holds a value twice (one comparison a pair of columns:
    a sort along rows of a few columns is slower)."""
    twice = np.zeros(len(table), dtype=np.bool_)
    for x in range(table.shape[1]):
        for y in range(x + 1, table.shape[1]):
            twice |= table[:, x] == table[:, y]
    return twice


def sorted_rows(table: IntArray) -> IntArray:
    """``np.sort(table, axis=1)`` for a table of a few columns: odd-even transposition, a
    pass of minima and maxima over whole columns per column."""
    cols = [table[:, c].copy() for c in range(table.shape[1])]
    for step in range(len(cols)):
        for c in range(step % 2, len(cols) - 1, 2):
            cols[c], cols[c + 1] = np.minimum(cols[c], cols[c + 1]), np.maximum(cols[c],
                                                                             cols[c + 1])
    return np.stack(cols, axis=1) if cols else table.copy()


def _joined(parts: Sequence[IntArray]) -> IntArray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _entries(codes: IntArray, dups: IntArray, slow_codes: IntArray, slow_dups: IntArray,
             slow_weights: FloatArray, n_dups: int) -> tuple[IntArray, IntArray, FloatArray]:
    """The distinct pairs (code, duplicate set) of the choices, ascending, and the weight of
    each, summed as ``np.bincount`` sums the choices in their order: those of weight 1
    (``codes``, ``dups``) first, then the others (``slow_*``). The pairs of weight 1 are
    counted by a sort of their values, not of their places (which a sum in order would need):
    a count of ones is the same whatever the order, and the others are added after it in
    theirs."""
    nd = max(1, n_dups)
    found, counts = np.unique(codes * nd + dups, return_counts=True)
    sums = counts.astype(np.float64)
    if len(slow_codes):
        extra, slot = np.unique(slow_codes * nd + slow_dups, return_inverse=True)
        both = np.concatenate([found, extra])
        order = np.argsort(both, kind="stable")  # two sorted runs, merged
        ordered = both[order]
        new = np.diff(ordered, prepend=-1) != 0
        place = np.empty(len(both), dtype=np.int64)
        place[order] = np.cumsum(new) - 1
        found = ordered[new]
        sums = np.zeros(len(found))
        sums[place[:len(counts)]] = counts
        np.add.at(sums, place[len(counts):][slot.reshape(-1)], slow_weights)
    return (found // nd).astype(np.int64), (found % nd).astype(np.int64), sums


def _distinct_pairs(keys: Sequence[IntArray], base: int) -> tuple[IntArray, IntArray]:
    """The distinct pair keys (``a * base + b``, each under ``base ** 2``) of ``keys``,
    ascending, and how often each occurs: ``np.unique``'s, counted in one pass over a table of
    every key instead of a sort (a million games give millions of keys among a million
    possible pairs)."""
    every = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    if base * base > 1 << 26:  # a table too large for the field: sort
        found, counts = np.unique(every, return_counts=True)
        return found.astype(np.int64), counts.astype(np.int64)
    counts = np.bincount(every, minlength=base * base)
    found = np.flatnonzero(counts)
    return found.astype(np.int64), counts[found].astype(np.int64)
