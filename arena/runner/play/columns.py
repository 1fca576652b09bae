"""A journal's finished games read straight into columns of numbers
(:class:`~arena.stats.columns.GameColumns`), in the order the ratings take them, without a
Python object per game: what a large field's report reads instead of every game.

The games are read as the journal holds them (:class:`RawGames`, in the order their results
were committed), then put in the ratings' order with their bots numbered as asked
(:func:`columns_of_raw`): a reader that kept the games it read before
(:mod:`arena.runner.play.column_cache`) reads only the games committed since.
"""

from __future__ import annotations

import itertools
import json
import queue
import sqlite3
import threading
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from arena.protocol.messages import Termination
from arena.results import GameOutcome
from arena.runner.play.history import history_ids
from arena.runner.play.outcome_rows import outcomes_of
from arena.runner.play.ratings import RatingTracker, numbered
from arena.stats.choices import sorted_rows
from arena.stats.columns import BoolArray, GameColumns, IntArray

#: The columns of a finished game and its pairing that :func:`outcomes_of` reads.
_OUTCOMES = ("SELECT r.rowid, p.game_id, p.idx, p.round, p.tbl, p.bots, p.seed, r.scores, "
             "r.ranks, r.terminations, r.details")
#: A finished game as :func:`parse_rows` reads it, after its result's number.
ROWS = ("SELECT r.rowid, p.idx, p.game_id, p.round, p.tbl, p.seed, p.bots, r.scores, r.ranks, "
        "r.terminations FROM results r JOIN pairings p USING (game_id) ")


@dataclass(frozen=True)
class RawGames:
    """Finished games as the journal holds them, in the order their results were committed:
    each result's number (``marks``), its pairing's number, round, table and seed, and a row
    per game, a column per seat, of its bots (numbered in ``names``, -1 past its ``size``
    seats), ranks, scores and whether each seat's part ended normally (``ok``; ranks and
    scores are 0 and ``ok`` False past the seats)."""

    marks: IntArray
    idx: IntArray
    rounds: IntArray
    tables: IntArray
    seeds: IntArray
    size: IntArray
    seat: IntArray
    ranks: IntArray
    scores: IntArray
    ok: BoolArray
    names: list[str]
    game_ids: list[str]

    @property
    def games(self) -> int:
        return len(self.marks)


def _distinct(texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """The distinct texts in order of first appearance, and each row's number among them."""
    seen = {t: i for i, t in enumerate(dict.fromkeys(texts))}
    return list(seen), np.fromiter(map(seen.__getitem__, texts), dtype=np.int64,
                                   count=len(texts))


def _padded(rows: Sequence[Sequence[Any]], width: int, fill: Any, dtype: Any) -> np.ndarray:
    out = np.full((len(rows), width), fill, dtype=dtype)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


def no_games(names: Sequence[str] = ()) -> RawGames:
    empty = np.zeros(0, dtype=np.int64)
    table = np.zeros((0, 2), dtype=np.int64)
    return RawGames(empty, empty, empty, empty, empty, empty, table, table, table,
                    np.zeros((0, 2), dtype=np.bool_), list(names), [])


def parse_rows(rows: Sequence[tuple[Any, ...]], names: Sequence[str] = ()) -> RawGames:
    """The games of ``rows`` (of :data:`ROWS`), their bots numbered ``names`` first, then any
    other in order of first appearance. Raises ValueError for a termination reason this
    version does not know.

    The tables and the scores are parsed as one JSON array each (a league's tables are nearly
    all different). This is the reference reading: :func:`read_raw` reads the same columns
    faster, and falls back to this for any text it does not expect."""
    if not rows:
        return no_games(names)
    marks, idx, game_ids, rounds, tables, seeds, table_texts, scores, rank_texts, term_texts = (
        zip(*rows, strict=True))
    parsed = json.loads("[" + ",".join(table_texts) + "]")
    size = np.fromiter(map(len, parsed), dtype=np.int64, count=len(parsed))
    every = json.loads("[" + ",".join(scores) + "]")

    def ints(values: Sequence[int]) -> IntArray:
        return np.array(values, dtype=np.int64)

    return _assembled(ints(marks), ints(idx), ints(rounds), ints(tables), ints(seeds), size,
                      list(itertools.chain.from_iterable(parsed)),
                      ints([x for row in every for x in row]), rank_texts, term_texts,
                      list(game_ids), names)


def _assembled(marks: IntArray, idx: IntArray, rounds: IntArray, tables: IntArray,
               seeds: IntArray, size: IntArray, seated: list[str], scores: IntArray,
               rank_texts: Sequence[str], term_texts: Sequence[str], game_ids: list[str],
               names: Sequence[str]) -> RawGames:
    """The games whose columns are given, the bots of every seat (``seated``) and the scores
    flat, seat after seat and game after game, their bots numbered ``names`` first. A large
    journal repeats its ranks and terminations: each text is parsed once, and the games'
    columns are gathered from the parsed rows by their numbers."""
    width = int(size.max())
    number = {b: i for i, b in enumerate(dict.fromkeys(names))}
    try:  # nearly always every bot is one already numbered
        flat = list(map(number.__getitem__, seated))
    except KeyError:
        flat = [number.setdefault(b, len(number)) for b in seated]
    inside = np.arange(width)[None, :] < size[:, None]
    seat = np.full((len(size), width), -1, dtype=np.int64)
    seat[inside] = flat
    rank_list, rank_of = _distinct(rank_texts)
    ranks = _padded([json.loads(t) for t in rank_list], width, 0, np.int64)[rank_of]
    term_list, term_of = _distinct(term_texts)
    ok = _padded([[Termination(t) == Termination.OK for t in json.loads(text)]
                  for text in term_list], width, False, np.bool_)[term_of]
    score_cols = np.zeros((len(size), width), dtype=np.int64)
    score_cols[inside] = scores
    return RawGames(marks, idx, rounds, tables, seeds, size, seat, ranks, score_cols, ok,
                    list(number), game_ids)


#: Games read by one query of :func:`read_raw`: each column of them comes back as one text
#: (a hundred thousand 4-player games' tables are about 7 MB, far below SQLite's longest).
CHUNK = 100_000
#: What :data:`_CHUNK_ROWS` puts between two games' texts: a control character that JSON
#: never leaves unescaped and a game's id does not hold (a text that holds it is read by
#: :func:`parse_rows`).
_SEP = "\x1f"
#: The columns of :data:`ROWS` of at most ``CHUNK`` games committed after a result's number,
#: each as one text: the count and the last result's number, then the numbers joined by
#: commas, then the texts by :data:`_SEP` (SQLite's ``char(31)``).
_CHUNK_ROWS = (
    "SELECT count(*), max(mark), group_concat(mark), group_concat(idx), group_concat(round), "
    "group_concat(tbl), group_concat(seed), group_concat(game_id, char(31)), "
    "group_concat(bots, char(31)), group_concat(scores, char(31)), "
    "group_concat(ranks, char(31)), group_concat(terminations, char(31)) FROM ("
    "SELECT r.rowid AS mark, p.idx AS idx, p.game_id AS game_id, p.round AS round, "
    "p.tbl AS tbl, p.seed AS seed, p.bots AS bots, r.scores AS scores, r.ranks AS ranks, "
    "r.terminations AS terminations FROM results r JOIN pairings p USING (game_id) "
    "WHERE r.rowid > ? ORDER BY r.rowid LIMIT ?)")


def _numbers(text: str, count: int, sep: str = ",") -> IntArray | None:
    """The ``count`` integers of ``text`` between ``sep``: None unless it is exactly that."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy warns, and stops, at text it cannot read
        try:
            out = np.fromstring(text, dtype=np.int64, sep=sep)
        except (ValueError, DeprecationWarning):
            return None
    return out if len(out) == count and text.count(sep) == count - 1 else None


def _split(text: str, count: int) -> list[str] | None:
    parts = text.split(_SEP)
    return parts if len(parts) == count else None


def _chunk(texts: tuple[Any, ...], names: Sequence[str]) -> RawGames | None:
    """The games of one row of :data:`_CHUNK_ROWS` as :func:`parse_rows` reads them, without
    parsing each game's JSON: the tables are arrays of names with no escape in them, split at
    their quotes, and the scores arrays of integers. None for any text not of that form (or a
    row not in the results' order), which :func:`parse_rows` then reads."""
    count, _, *numbers, ids, tables, scores, ranks, terms = texts
    columns = [_numbers(text, count) for text in numbers]
    game_ids, table_rows, score_rows = (_split(t, count) for t in (ids, tables, scores))
    rank_texts, term_texts = _split(ranks, count), _split(terms, count)
    if (any(c is None for c in columns) or game_ids is None or table_rows is None
            or score_rows is None or rank_texts is None or term_texts is None
            or "\\" in tables):
        return None
    marks, idx, rounds, tbls, seeds = cast(list[IntArray], columns)
    if np.any(marks[1:] <= marks[:-1]):
        return None
    # Between a game's quotes are its names; outside them, a pair of brackets a game and commas.
    quoted = tables.split('"')
    outside = "".join(quoted[0::2])
    if outside.strip("[], \x1f") or not outside.count("[") == outside.count("]") == count:
        return None
    size = np.fromiter(map(str.count, table_rows, itertools.repeat('"', count)),
                       dtype=np.int64, count=count)
    if np.any(size % 2) or not np.all(size):
        return None
    size //= 2
    bare = scores.replace("[", "").replace("]", "").replace(_SEP, ",")
    flat_scores = _numbers(bare, int(size.sum()))
    per_game = np.fromiter(map(str.count, score_rows, itertools.repeat(",", count)),
                           dtype=np.int64, count=count) + 1
    if flat_scores is None or not np.array_equal(per_game, size):
        return None
    return _assembled(marks, idx, rounds, tbls, seeds, size, quoted[1::2], flat_scores,
                      rank_texts, term_texts, game_ids, names)


#: A row of :data:`_CHUNK_ROWS`, after the number of the result its games follow.
_Chunk = tuple[int, tuple[Any, ...]]


def _in_turn(db: sqlite3.Connection, after: int, chunk: int
             ) -> Iterator[_Chunk]:
    while (texts := db.execute(_CHUNK_ROWS, (after, chunk)).fetchone())[0]:
        yield after, texts
        after = texts[1]


def _chunk_texts(db: sqlite3.Connection, after: int, chunk: int
                 ) -> Iterator[_Chunk]:
    """The rows of :data:`_CHUNK_ROWS` of every ``chunk`` games committed after ``after``,
    each with the result's number it follows. A journal in a file is read by a second
    connection in a thread, a chunk ahead of its caller: SQLite lets go of the interpreter
    while it joins a chunk's texts, so the next chunk is read while this one is parsed. Where
    that connection cannot read, ``db`` reads the rest in turn."""
    path = next((row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"), "")
    if not path:
        yield from _in_turn(db, after, chunk)
        return
    ahead: queue.Queue[_Chunk | Exception | None] = queue.Queue(1)
    stop = threading.Event()

    def give(item: _Chunk | Exception | None) -> None:
        while not stop.is_set():
            try:
                ahead.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def read(after: int) -> None:
        try:
            reader = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True)
            try:
                for item in _in_turn(reader, after, chunk):
                    give(item)
                    if stop.is_set():
                        return
            finally:
                reader.close()
        except Exception as exc:  # handed over: the caller reads the rest itself
            give(exc)
            return
        give(None)

    thread = threading.Thread(target=read, args=(after,), name="journal-columns", daemon=True)
    thread.start()
    try:
        while (item := ahead.get()) is not None:
            if isinstance(item, Exception):
                yield from _in_turn(db, after, chunk)
                return
            yield item
            after = item[1][1]
    finally:
        stop.set()
        thread.join()


def read_raw(db: sqlite3.Connection, after: int = 0, names: Sequence[str] = (),
             chunk: int = CHUNK) -> RawGames:
    """The games whose results were committed after the one numbered ``after`` (0: every
    game), in that order, as :func:`parse_rows` numbers their bots: read ``chunk`` games at
    a time, each column of them as one text (SQLite joins them), without a Python object
    per game; a chunk of any other form is read by :func:`parse_rows`."""
    parts = [no_games(names)]
    for start, texts in _chunk_texts(db, after, chunk):
        part = _chunk(texts, parts[-1].names)
        if part is None:
            cursor = db.cursor()
            cursor.row_factory = None
            part = parse_rows(cursor.execute(ROWS + "WHERE r.rowid > ? ORDER BY r.rowid "
                                             "LIMIT ?", (start, chunk)).fetchall(),
                              parts[-1].names)
        parts.append(part)
    return joined(*parts[1:]) if len(parts) > 1 else parts[0]


def _widened(a: IntArray | BoolArray, width: int, fill: Any) -> Any:
    if a.shape[1] >= width:
        return a
    out = np.full((a.shape[0], width), fill, dtype=a.dtype)
    out[:, :a.shape[1]] = a
    return out


def joined(*parts: RawGames) -> RawGames:
    """The games of ``parts`` one after another (each part's bots numbered as the part's
    before it, then its own: :func:`read_raw` given the names read before)."""
    first, *rest = parts
    parts = (first, *(p for p in rest if p.games))
    if len(parts) == 1:
        return parts[0]
    width = max(p.seat.shape[1] for p in parts)

    def stacked(key: str, fill: Any) -> Any:
        return np.concatenate([_widened(getattr(p, key), width, fill) for p in parts])

    def flat(key: str) -> IntArray:
        return np.concatenate([getattr(p, key) for p in parts])

    return RawGames(flat("marks"), flat("idx"), flat("rounds"), flat("tables"), flat("seeds"),
                    flat("size"), stacked("seat", -1), stacked("ranks", 0),
                    stacked("scores", 0), stacked("ok", False), parts[-1].names,
                    list(itertools.chain.from_iterable(p.game_ids for p in parts)))


def columns_of_raw(raw: RawGames, league: bool, bots: Sequence[str]) -> GameColumns:
    """The games of ``raw`` as the ratings take them (a league's in the order their results
    were committed, a tournament's in the order the schedule issued them), the bots numbered
    ``bots`` first, then any other in order of first appearance."""
    if raw.games == 0:
        empty = np.zeros((0, 2), dtype=np.int64)
        return GameColumns(list(bots), [], empty, empty.copy(), empty.copy(),
                           np.zeros((0, 2), dtype=np.bool_), np.zeros(0, dtype=np.int64),
                           np.zeros(0, dtype=np.int64))
    order = None if league else np.argsort(raw.idx, kind="stable")

    def ordered(a: Any) -> Any:
        return a if order is None else a[order]

    seat = ordered(raw.seat)
    number = {b: i for i, b in enumerate(dict.fromkeys(bots))}
    for c in first_seen(seat.ravel(), len(raw.names)).tolist():
        number.setdefault(raw.names[c], len(number))
    renumber = np.array([number.get(b, -1) for b in raw.names] + [-1], dtype=np.int64)
    seat_bot = renumber[seat]
    size = ordered(raw.size)
    inside = np.arange(seat_bot.shape[1])[None, :] < size[:, None]
    dup = duplicate_sets(ordered(raw.rounds), ordered(raw.tables), ordered(raw.seeds),
                         seat_bot, inside)
    ids = raw.game_ids if order is None else [raw.game_ids[g] for g in order.tolist()]
    return GameColumns(list(number), ids, seat_bot, ordered(raw.ranks), ordered(raw.scores),
                       ordered(raw.ok), size, dup)


def duplicate_sets(rounds: IntArray, tables: IntArray, seeds: IntArray, seat_bot: IntArray,
                   inside: BoolArray) -> IntArray:
    """Each game's duplicate set: its round, table, seed and set of bots (a bot seated twice
    counted once), the sets numbered in the order of their first game."""
    members = sorted_rows(seat_bot)
    repeat = np.zeros_like(inside)
    repeat[:, 1:] = members[:, 1:] == members[:, :-1]
    members = sorted_rows(np.where(repeat, -1, members))
    keys = np.concatenate([rounds[:, None], tables[:, None], seeds[:, None], members], axis=1)
    # The rows are told apart by a hash of each, a sort of one number: a hash shared by rows
    # that differ (not seen in practice) takes the sort of the rows themselves.
    _, first, inverse = np.unique(_row_hash(keys), return_index=True, return_inverse=True)
    if not np.array_equal(keys, keys[first[inverse]]):
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    renumber = np.empty(len(first), dtype=np.int64)
    renumber[np.argsort(first, kind="stable")] = np.arange(len(first))
    return renumber[inverse.reshape(-1)]


def first_seen(values: IntArray, count: int) -> IntArray:
    """The values 0..``count`` - 1 found in ``values`` (-1: none), in the order of their first
    place there: looked for in a prefix four times longer each time until it holds every value
    found in the whole (a thousand bots all sit within the first few thousand seats)."""
    wanted = int(np.count_nonzero(np.bincount(values[values >= 0], minlength=count)))
    length = 1 << 16
    while True:
        head = values[:length]
        found, first = np.unique(head[head >= 0], return_index=True)
        if len(found) == wanted or length >= len(values):
            return found[np.argsort(first, kind="stable")].astype(np.int64)
        length *= 4


def _row_hash(keys: IntArray) -> npt.NDArray[np.uint64]:
    """A 64-bit hash of each row of ``keys`` (equal rows, equal hashes)."""
    h = np.zeros(len(keys), dtype=np.uint64)
    for c in range(keys.shape[1]):
        h ^= keys[:, c].astype(np.uint64)
        h *= np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    return h


def read_columns(db: sqlite3.Connection, league: bool, bots: Sequence[str]) -> GameColumns:
    """Every finished game of the journal open as ``db`` as columns: a league's in the order
    their results were committed, a tournament's in the order the schedule issued them (as
    :meth:`~arena.runner.play.journal.Journal.rated_outcomes` orders them), the bots numbered
    ``bots`` first, then any other in order of first appearance. Raises ValueError for a
    termination reason this version does not know."""
    return columns_of_raw(read_raw(db, 0, bots), league, bots)


def history_agrees(cols: GameColumns, history: Sequence[tuple[str, str]],
                   rated: RatingTracker) -> bool:
    """Whether the journal's rating ``history`` and its ratings ``rated`` are of the games of
    ``cols`` (its bots, every game, in that order)."""
    return (rated.bots == cols.bots and rated.games == len(history) == cols.games
            and history_ids(history) == cols.game_ids)


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

