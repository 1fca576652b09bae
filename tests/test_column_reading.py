"""A journal's games read as columns a chunk at a time, each column of a chunk as one text
(:func:`arena.runner.play.columns.read_raw`), are the games the reference reading gives
(:func:`~arena.runner.play.columns.parse_rows`, every game's JSON parsed): for plain names and
for names the fast reading cannot take (quotes, backslashes, letters JSON escapes, commas and
brackets), across chunk boundaries, after a given result, with bots numbered ahead, from a
file (read a chunk ahead by a second connection) and from memory, and when that second
connection cannot read. The rating history is compared as one text likewise."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from arena.protocol.messages import Termination
from arena.results import GameOutcome, Pairing
from arena.runner.play import columns
from arena.runner.play.columns import ROWS, RawGames, parse_rows, read_raw
from arena.runner.play.journal import JOURNAL, Journal
from arena.stats.synthetic import synthetic_bots, synthetic_outcomes

#: Names the fast reading must leave to the reference: escaped in JSON, or holding what
#: stands between names.
AWKWARD = ['say "hi"', "back\\slash", "naïve", "a, b", "[x]", "tab\there"]


def _games(names: list[str], games: int, seed: int) -> list[GameOutcome]:
    """Synthetic 4-player games of ``names`` with 2- and 3-player tables among them,
    negative and large scores, and a seat that crashed."""
    theta = synthetic_bots(len(names), seed)
    rename = dict(zip(sorted(theta), names, strict=True))
    out = []
    for i, o in enumerate(synthetic_outcomes(theta, 4, games, seed)):
        keep = 2 + i % 3
        bots = tuple(rename[b] for b in o.bots[:keep])
        ranks = tuple(sorted(o.ranks[:keep]))
        scores = tuple(s - 50 if k % 2 else s * 10**12 for k, s in enumerate(o.scores[:keep]))
        terms = tuple(Termination.CRASH if i % 7 == 0 and k == 0 else t
                      for k, t in enumerate(o.terminations[:keep]))
        seed = o.seed % 2**63 - (2**62 if i % 2 else 0)
        out.append(dataclasses.replace(o, bots=bots, ranks=ranks, scores=scores,
                                       terminations=terms, seed=seed))
    return out


def _journal(path: Path, names: list[str], outcomes: list[GameOutcome]) -> None:
    journal = Journal(path)
    try:
        journal.bind({"name": "reading", "game": "synthetic", "players": 4, "kind": "league",
                      "bots": [{"name": b} for b in names]}, "synthetic games")
        journal.add_pairings([Pairing(o.game_id, o.index, o.round, o.table, o.bots, o.seed)
                              for o in outcomes])
        for o in outcomes[::-1]:  # finished in another order than issued
            journal.record_result(o, f"games/{o.game_id}.json", 0.0)
    finally:
        journal.close()


def _reference(db: sqlite3.Connection, after: int = 0, names: tuple[str, ...] = ()
               ) -> RawGames:
    cursor = db.cursor()
    cursor.row_factory = None
    return parse_rows(cursor.execute(ROWS + "WHERE r.rowid > ? ORDER BY r.rowid",
                                     (after,)).fetchall(), names)


def _same(a: RawGames, b: RawGames) -> None:
    for key in ("marks", "idx", "rounds", "tables", "seeds", "size", "seat", "ranks",
                "scores", "ok"):
        mine, theirs = getattr(a, key), getattr(b, key)
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs), key
    assert a.names == b.names
    assert a.game_ids == b.game_ids


@pytest.mark.parametrize("awkward", [False, True])
@pytest.mark.parametrize("chunk", [7, 60, 1000])
def test_chunks_read_as_texts_are_the_games_every_game_parsed_gives(
        tmp_path: Path, awkward: bool, chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    names = [f"bot-{i}@1" for i in range(9)]
    if awkward:
        names[2:2 + len(AWKWARD)] = AWKWARD
    _journal(tmp_path / JOURNAL, names, _games(names, 60, seed=3))
    db = sqlite3.connect(tmp_path / JOURNAL)
    referred = []

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        referred.append(1)
        return parse_rows(*args, **kwargs)

    monkeypatch.setattr(columns, "parse_rows", counted)
    try:
        for after, ahead in ((0, ()), (0, ("unseated", names[4])), (23, ())):
            _same(read_raw(db, after, ahead, chunk=chunk), _reference(db, after, ahead))
        assert read_raw(db, 60, chunk=chunk).games == 0
    finally:
        db.close()
    # Plain names are read from the texts alone; a chunk with an awkward one by the reference.
    assert bool(referred) == awkward


def test_a_journal_in_memory_is_read_in_turn(tmp_path: Path) -> None:
    names = [f"bot-{i}" for i in range(9)]
    _journal(tmp_path / JOURNAL, names, _games(names, 30, seed=5))
    db = sqlite3.connect(":memory:")
    try:
        sqlite3.connect(tmp_path / JOURNAL).backup(db)
        _same(read_raw(db, chunk=8), _reference(db))
    finally:
        db.close()


def test_where_the_second_connection_cannot_read_the_first_reads_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = [f"bot-{i}" for i in range(9)]
    _journal(tmp_path / JOURNAL, names, _games(names, 40, seed=7))
    db = sqlite3.connect(tmp_path / JOURNAL)
    real = sqlite3.connect

    class Unreadable(sqlite3.Connection):
        calls = 0

        def execute(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            Unreadable.calls += 1
            if Unreadable.calls > 2:  # two chunks, then the file cannot be read
                raise sqlite3.OperationalError("disk I/O error")
            return super().execute(*args, **kwargs)

    def connect(*args, **kwargs):  # type: ignore[no-untyped-def]
        if kwargs.get("uri"):  # the second connection
            return real(*args, factory=Unreadable, **kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(columns.sqlite3, "connect", connect)
    try:
        _same(read_raw(db, chunk=6), _reference(db))
        assert Unreadable.calls == 3
    finally:
        db.close()


@pytest.mark.parametrize("odd_id", [False, True])
def test_the_rating_history_is_compared_as_one_text(tmp_path: Path, odd_id: bool) -> None:
    names = [f"bot-{i}" for i in range(9)]
    outcomes = _games(names, 20, seed=9)
    if odd_id:  # joined, [..., "a\x1f", "b"] and [..., "a", "\x1fb"] are one text
        outcomes[-2] = dataclasses.replace(outcomes[-2], game_id=outcomes[-2].game_id + "\x1f")
    journal = Journal(tmp_path / JOURNAL)
    try:
        journal.bind({"name": "history", "game": "synthetic", "players": 4, "kind": "league",
                      "bots": [{"name": b} for b in names]}, "synthetic games")
        journal.add_pairings([Pairing(o.game_id, o.index, o.round, o.table, o.bots, o.seed)
                              for o in outcomes])
        for o in outcomes:
            journal.record_result(o, f"games/{o.game_id}.json", 0.0)
        ids = [o.game_id for o in journal.rated_outcomes()]
        assert journal.rating_history_ids(len(ids)) == ids  # the history the journal kept
        assert journal.rating_history_is(ids)
        assert not journal.rating_history_is(ids[:-1])
        assert not journal.rating_history_is([*ids, "t-extra"])
        assert not journal.rating_history_is([ids[1], ids[0], *ids[2:]])
        assert not journal.rating_history_is([*ids[:-1], ids[-1] + "x"])
        if odd_id:  # so such ids are compared id by id
            moved = [*ids[:-2], ids[-2][:-1], "\x1f" + ids[-1]]
            assert "\x1f".join(moved) == "\x1f".join(ids)
            assert not journal.rating_history_is(moved)
    finally:
        journal.close()
