"""A journal's finished games read straight into columns of numbers
(:class:`~arena.stats.columns.GameColumns`), in the order the ratings take them, without a
Python object per game: what a large field's report reads instead of every game.

A large journal repeats its tables, ranks and terminations: each text is parsed once, and the
games' columns are gathered from the parsed rows by their numbers; the scores are parsed as
one JSON array of every game's.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.protocol.messages import Termination
from arena.results import GameOutcome
from arena.runner.play.outcome_rows import outcomes_of
from arena.runner.play.ratings import RatingTracker, numbered
from arena.stats.columns import GameColumns

#: The columns of a finished game and its pairing that :func:`outcomes_of` reads.
_OUTCOMES = ("SELECT r.rowid, p.game_id, p.idx, p.round, p.tbl, p.bots, p.seed, r.scores, "
             "r.ranks, r.terminations, r.details")
_QUERY = ("SELECT p.game_id, p.round, p.tbl, p.seed, p.bots, r.scores, r.ranks, "
          "r.terminations FROM results r JOIN pairings p USING (game_id) ORDER BY ")


def _distinct(texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """The distinct texts in order of first appearance, and each row's number among them."""
    seen: dict[str, int] = {}
    at = [seen.setdefault(t, len(seen)) for t in texts]
    return list(seen), np.array(at, dtype=np.int64)


def _padded(rows: Sequence[Sequence[Any]], width: int, fill: Any, dtype: Any) -> np.ndarray:
    out = np.full((len(rows), width), fill, dtype=dtype)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


def read_columns(db: sqlite3.Connection, league: bool, bots: Sequence[str]) -> GameColumns:
    """Every finished game of the journal open as ``db`` as columns: a league's in the order
    their results were committed, a tournament's in the order the schedule issued them (as
    :meth:`~arena.runner.play.journal.Journal.rated_outcomes` orders them), the bots numbered
    ``bots`` first, then any other in order of first appearance. Raises ValueError for a
    termination reason this version does not know."""
    cursor = db.cursor()
    cursor.row_factory = None
    rows = cursor.execute(_QUERY + ("r.rowid" if league else "p.idx")).fetchall()
    if not rows:
        empty = np.zeros((0, 2), dtype=np.int64)
        return GameColumns(list(bots), [], empty, empty.copy(), empty.copy(),
                           np.zeros((0, 2), dtype=np.bool_), np.zeros(0, dtype=np.int64),
                           np.zeros(0, dtype=np.int64))
    game_ids, rounds, tables, seeds, table_texts, scores, rank_texts, term_texts = zip(
        *rows, strict=True)
    del rows
    # A league's tables are nearly all different: parsed as one JSON array, not one by one.
    parsed = json.loads("[" + ",".join(table_texts) + "]")
    size = np.fromiter(map(len, parsed), dtype=np.int64, count=len(parsed))
    width = int(size.max())
    number = {b: i for i, b in enumerate(dict.fromkeys(bots))}
    seated = list(itertools.chain.from_iterable(parsed))
    try:  # nearly always every bot is one the journal names
        flat = list(map(number.__getitem__, seated))
    except KeyError:
        flat = [number.setdefault(b, len(number)) for b in seated]
    names = dict.fromkeys(number)
    seat = np.arange(width)[None, :]
    inside = seat < size[:, None]
    seat_bot = np.full((len(parsed), width), -1, dtype=np.int64)
    seat_bot[inside] = flat
    rank_list, rank_of = _distinct(rank_texts)
    ranks = _padded([json.loads(t) for t in rank_list], width, 0, np.int64)[rank_of]
    term_list, term_of = _distinct(term_texts)
    ok = _padded([[Termination(t) == Termination.OK for t in json.loads(text)]
                  for text in term_list], width, False, np.bool_)[term_of]
    every = json.loads("[" + ",".join(scores) + "]")
    score_cols = np.zeros((len(every), width), dtype=np.int64)
    score_cols[inside] = [x for row in every for x in row]
    # A duplicate set is a game's round, table, seed and set of bots (a bot seated twice
    # counted once): numbered in the order of its first game.
    members = np.sort(seat_bot, axis=1)
    repeat = np.zeros_like(inside)
    repeat[:, 1:] = members[:, 1:] == members[:, :-1]
    members = np.sort(np.where(repeat, -1, members), axis=1)
    keys = np.concatenate([np.array(rounds, dtype=np.int64)[:, None],
                           np.array(tables, dtype=np.int64)[:, None],
                           np.array(seeds, dtype=np.int64)[:, None], members], axis=1)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    renumber = np.empty(len(first), dtype=np.int64)
    renumber[np.argsort(first, kind="stable")] = np.arange(len(first))
    dup = renumber[inverse.reshape(-1)]
    return GameColumns(list(names), list(game_ids), seat_bot, ranks, score_cols, ok, size, dup)


def history_agrees(cols: GameColumns, history: Sequence[tuple[str, str]],
                   rated: RatingTracker) -> bool:
    """Whether the journal's rating ``history`` and its ratings ``rated`` are of the games of
    ``cols`` (its bots, every game, in that order)."""
    return (rated.bots == cols.bots and rated.games == len(history) == cols.games
            and all(g == h for (g, _), h in zip(history, cols.game_ids, strict=True)))


def last_outcomes(db: sqlite3.Connection, league: bool, games: int, count: int
                  ) -> tuple[list[GameOutcome], dict[str, str]]:
    """The last ``count`` of the journal's ``games`` finished games in the order the ratings
    take them, numbered as :meth:`~arena.runner.play.journal.Journal.rated_outcomes` numbers
    them, and their records' paths by game id, in the order the games finished."""
    cursor = db.cursor()
    cursor.row_factory = None
    order = "r.rowid" if league else "p.idx"
    rows = cursor.execute(f"{_OUTCOMES}, r.record FROM results r JOIN pairings p "
                          f"USING (game_id) ORDER BY {order} DESC LIMIT ?", (count,)).fetchall()
    rows.reverse()
    records = {r[1]: r[-1] for r in sorted(rows)}  # the result's number first: as finished
    tail = outcomes_of(rows)
    return (numbered(tail, first=games - len(tail)) if league else tail), records

