"""A journal's games as columns of numbers, and the per-game figures of a large field's report
from them with array operations: the seats' figures, the head to head of a set of bots, the
Plackett–Luce choices, and the two-player games of a set of bots.

A league of a thousand bots and a million games made into a Python object per game, and
grouped, counted and paired game by game, took most of its report's time; as columns the same
figures take a few array passes. Each function here gives exactly what its game-by-game
counterpart gives (:func:`~arena.stats.tables.seats`,
:func:`~arena.stats.tables.head_to_head`, :func:`~arena.stats.choices.large_choice_data`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from arena.protocol.messages import Termination
from arena.results import GameOutcome
from arena.stats.choices import ChoiceData, choices_from_tables
from arena.stats.common import set_key
from arena.stats.tables import HeadToHead, SeatFigures

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class GameColumns:
    """Games in the order the ratings take them, a row each, a column per seat.

    ``seat_bot[g, s]`` is the number (in ``bots``) of the bot in game g's seat s, -1 past its
    seats (a game of fewer players than the widest); ``ranks`` and ``scores`` are 0 there and
    ``ok`` False (``ok``: the seat's part ended normally). ``dup[g]`` numbers game g's
    duplicate set, the sets in the order of their first game."""

    bots: list[str]
    game_ids: list[str]
    seat_bot: IntArray
    ranks: IntArray
    scores: IntArray
    ok: BoolArray
    size: IntArray
    dup: IntArray

    @property
    def games(self) -> int:
        return len(self.size)

    @property
    def width(self) -> int:
        return int(self.seat_bot.shape[1])

    def table(self, g: int) -> tuple[str, ...]:
        """The bots of game g, seat 0 first."""
        return tuple(self.bots[int(b)] for b in self.seat_bot[g, :int(self.size[g])])


def columns_of(outcomes: Sequence[GameOutcome], bots: Sequence[str] = ()) -> GameColumns:
    """The columns of ``outcomes`` (in their order, which must be their indices' order), their
    bots numbered ``bots`` first, then any other in order of first appearance."""
    names = dict.fromkeys(bots)
    for o in outcomes:
        names.update(dict.fromkeys(o.bots))
    index = {b: i for i, b in enumerate(names)}
    width = max((len(o.bots) for o in outcomes), default=2)
    g = len(outcomes)
    seat_bot = np.full((g, width), -1, dtype=np.int64)
    ranks = np.zeros((g, width), dtype=np.int64)
    scores = np.zeros((g, width), dtype=np.int64)
    ok = np.zeros((g, width), dtype=np.bool_)
    dups: dict[tuple[int, int, int, frozenset[str]], int] = {}
    dup = np.zeros(g, dtype=np.int64)
    for row, o in enumerate(outcomes):
        k = len(o.bots)
        seat_bot[row, :k] = [index[b] for b in o.bots]
        ranks[row, :k] = o.ranks
        scores[row, :k] = o.scores
        ok[row, :k] = [t == Termination.OK for t in o.terminations]
        dup[row] = dups.setdefault(set_key(o), len(dups))
    size = (seat_bot >= 0).sum(axis=1).astype(np.int64)
    return GameColumns(list(names), [o.game_id for o in outcomes], seat_bot, ranks, scores,
                       ok, size, dup)


def column_seats(cols: GameColumns) -> list[SeatFigures]:
    """:func:`~arena.stats.tables.seats` of the games: each seat of each table size."""
    out = []
    for k in np.unique(cols.size).tolist():
        rows = cols.size == k
        for s in range(k):
            r, sc = cols.ranks[rows, s], cols.scores[rows, s]
            wins = int(np.count_nonzero((r == 1) & cols.ok[rows, s]))
            out.append(SeatFigures(k, s, len(r), wins, int(sc.sum()), int((sc * sc).sum()),
                                   int(r.sum()), int((r * r).sum())))
    return out


def column_head_to_head(cols: GameColumns, order: Sequence[str]) -> list[HeadToHead]:
    """:func:`~arena.stats.tables.head_to_head` of the games among the bots of ``order``
    (A before B in its order; a bot seated twice meets itself, as there)."""
    where = {b: i for i, b in enumerate(order)}
    n = len(order)
    # Each bot's place in ``order``, n for one not in it.
    place = np.array([where.get(b, n) for b in cols.bots] + [n], dtype=np.int64)
    at = place[cols.seat_bot]  # -1 past the seats reads the n at the end
    counts = np.zeros((n + 1) * (n + 1) * 3, dtype=np.int64)
    for x in range(cols.width):
        for y in range(x + 1, cols.width):
            i, j, ri, rj = at[:, x], at[:, y], cols.ranks[:, x], cols.ranks[:, y]
            both = (i < n) & (j < n)
            i, j, ri, rj = i[both], j[both], ri[both], rj[both]
            # Seen from the one first in ``order`` (by rank for a bot seated twice).
            swap = (j < i) | ((j == i) & (rj < ri))
            a, b = np.where(swap, j, i), np.where(swap, i, j)
            ra, rb = np.where(swap, rj, ri), np.where(swap, ri, rj)
            what = np.where(ra < rb, 0, np.where(ra > rb, 1, 2))
            counts += np.bincount((a * (n + 1) + b) * 3 + what, minlength=len(counts))
    table = counts.reshape(-1, 3)
    met = np.flatnonzero(table.sum(axis=1))
    return [HeadToHead(order[p // (n + 1)], order[p % (n + 1)], *map(int, table[p]))
            for p in met.tolist()]


def column_choice_data(cols: GameColumns, bots: Sequence[str]) -> ChoiceData:
    """:func:`~arena.stats.choices.large_choice_data` of the games among ``bots``."""
    where = {b: i for i, b in enumerate(bots)}
    number = np.array([where.get(b, -1) for b in cols.bots] + [-1], dtype=np.int64)
    seated = number[cols.seat_bot]
    # The first game of each duplicate set (the sets are numbered in their first game's order).
    first = first_games(cols.dup)
    met = np.sort(seated[first], axis=1)  # past its seats a game reads -1
    met[:, 1:][met[:, 1:] == met[:, :-1]] = -1  # a bot seated twice is met once
    return choices_from_tables(bots, seated, cols.ranks, cols.size, cols.dup, met,
                               lambda g: _outcome(cols, g))


def _outcome(cols: GameColumns, g: int) -> GameOutcome:
    """Game g as an outcome, as the per-game figures need it: its bots, scores and ranks, its
    index g, and its duplicate set as its round (the set of a game is its round, table, seed
    and bots: the same grouping). The columns keep only whether a seat ended normally: any
    other ending reads as a crash."""
    k = int(cols.size[g])
    return GameOutcome(cols.game_ids[g], g, int(cols.dup[g]), 0, cols.table(g), 0,
                       tuple(cols.scores[g, :k].tolist()), tuple(cols.ranks[g, :k].tolist()),
                       tuple(Termination.OK if ok else Termination.CRASH
                             for ok in cols.ok[g, :k].tolist()))


def first_games(dup: IntArray) -> IntArray:
    """``np.unique(dup, return_index=True)[1]``: the first game of each duplicate set, found
    where the sets' running maximum grows when they are numbered in their first game's order
    (as :class:`GameColumns` numbers them), without a sort."""
    if len(dup) and int(dup[0]) == 0:
        grows = np.diff(np.maximum.accumulate(dup), prepend=-1)
        first = np.flatnonzero(grows)
        if int(grows.max()) == 1 and len(first) == int(dup.max()) + 1:
            return first.astype(np.int64)
    return np.unique(dup, return_index=True)[1].astype(np.int64)


def two_player_games(cols: GameColumns, among: Sequence[str]) -> list[GameOutcome]:
    """The two-player games both of whose seats are bots of ``among``, as outcomes whose
    pairing, ranks and duplicate sets are theirs (what :func:`~arena.stats.match.match`
    reads)."""
    wanted = set(among)
    inside = np.array([b in wanted for b in cols.bots] + [False])
    rows = np.flatnonzero((cols.size == 2) & inside[cols.seat_bot[:, 0]]
                          & inside[cols.seat_bot[:, 1]])
    return [_outcome(cols, g) for g in rows.tolist()]


def column_scores(cols: GameColumns, order: Sequence[str]) -> dict[str, list[int]]:
    """Each bot of ``order``'s final scores, in the games' order (seat by seat within one)."""
    where = {b: i for i, b in enumerate(cols.bots)}
    out: dict[str, list[int]] = {}
    flat_bots, flat_scores = cols.seat_bot.ravel(), cols.scores.ravel()
    for b in order:
        i = where.get(b)
        out[b] = [] if i is None else flat_scores[flat_bots == i].tolist()
    return out
