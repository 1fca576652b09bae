"""Results committed many to a transaction (:meth:`Journal.record_results`, as the long-journal
benchmark writes them) leave the journal one result a transaction leaves: the same results,
pairings, rating history and checkpoint, the checkpoints skipped in a transaction being only
those written over before its end."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena.bench import leaguescale
from arena.runner.play import checkpoint
from arena.runner.play.checkpoint import CHECKPOINT_RATIO, due_again
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.ratings import RatingTracker, numbered


def _tables(folder: Path) -> dict[str, list[Any]]:
    db = sqlite3.connect(folder / JOURNAL)
    try:
        return {
            "results": db.execute("SELECT rowid, game_id, idx, scores, ranks, terminations, "
                                  "details, record, duration_s FROM results").fetchall(),
            "pairings": db.execute("SELECT * FROM pairings ORDER BY idx").fetchall(),
            "history": db.execute("SELECT * FROM rating_history ORDER BY k").fetchall(),
            "checkpoint": db.execute("SELECT * FROM checkpoint").fetchall(),
        }
    finally:
        db.close()


_RECORD_RESULTS = Journal.record_results


def _one_at_a_time(self: Journal, results: Any) -> None:
    for outcome, record, duration_s in results:
        _RECORD_RESULTS(self, [(outcome, record, duration_s)])


@pytest.mark.parametrize("players", [2, 4])
def test_a_journal_written_in_batches_is_one_written_game_by_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, players: int) -> None:
    states: list[int] = []
    state = RatingTracker.state

    def counted(tracker: RatingTracker) -> str:
        states.append(1)
        return state(tracker)

    monkeypatch.setattr(RatingTracker, "state", counted)
    monkeypatch.setattr(leaguescale, "JOURNAL_BATCH", 150)
    leaguescale.write_journal(tmp_path / "batches", 60, players, 610, seed=1)
    in_batches = len(states)
    monkeypatch.setattr(Journal, "record_results", _one_at_a_time)
    leaguescale.write_journal(tmp_path / "single", 60, players, 610, seed=1)
    assert 0 < in_batches < len(states) - in_batches  # fewer states made, as many kept
    batches, single = _tables(tmp_path / "batches"), _tables(tmp_path / "single")
    assert len(single["results"]) == len(single["history"]) == 610 // players * players
    assert single["checkpoint"][0][1] < len(single["results"])  # not at the last game
    assert batches == single


def test_a_checkpoint_is_skipped_only_when_certainly_due_again() -> None:
    growth = 4 * 4 + 1
    size = 10_000
    needed = -(-size // (CHECKPOINT_RATIO - growth))
    assert due_again(size, needed, 4) and not due_again(size, needed - 1, 4)
    assert not due_again(size, 0, 4) and not due_again(10, 5, 16)


def test_a_reader_takes_the_games_after_the_checkpoint_from_the_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The games after a league's checkpoint are not rated again by a reader: their history
    rows give their ratings, the standings those of a full replay; a row that names another
    game is not used, and that game and the rest are rated."""
    folder = tmp_path / "league"
    monkeypatch.setattr(checkpoint, "CHECKPOINT_RATIO", 8)  # a checkpoint every ~150 games
    leaguescale.write_journal(folder, 60, 4, 400, seed=2)
    rated: list[int] = []
    rate = RatingTracker._rate

    def counted(tracker: RatingTracker, o: Any) -> None:
        rated.append(1)
        rate(tracker, o)

    monkeypatch.setattr(RatingTracker, "_rate", counted)
    journal = Journal(folder / JOURNAL, readonly=True)
    kept = journal.ratings().standings().to_dict()
    mark = journal.db.execute("SELECT mark FROM checkpoint").fetchone()[0]
    assert rated == [] and 0 < mark < 390
    whole = RatingTracker(journal._rating_bots())
    whole.add_all(numbered(journal.outcomes(as_finished=True)))
    journal.close()
    assert json.dumps(kept) == json.dumps(whole.standings().to_dict())
    db = sqlite3.connect(folder / JOURNAL)
    db.execute("UPDATE rating_history SET game_id = 'elsewhere' WHERE k = ?", (mark + 3,))
    db.commit()
    db.close()
    rated.clear()
    journal = Journal(folder / JOURNAL, readonly=True)
    again = journal.ratings().standings().to_dict()
    journal.close()
    assert len(rated) == 400 - mark - 2 and json.dumps(again) == json.dumps(kept)


def test_a_writer_that_starts_again_takes_the_games_after_the_checkpoint_from_the_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new writer of a journal (a league run started again) takes the ratings of the games
    after the checkpoint from the rating history instead of rating them again: every game is
    rated once, and the results, the history and the ratings are those one writer leaves."""
    monkeypatch.setattr(checkpoint, "CHECKPOINT_RATIO", 8)  # a checkpoint every ~150 games
    monkeypatch.setattr(leaguescale, "JOURNAL_BATCH", 40)
    leaguescale.write_journal(tmp_path / "one", 60, 4, 400, seed=3)
    rated: list[int] = []
    rate = RatingTracker._rate

    def counted(tracker: RatingTracker, o: Any) -> None:
        rated.append(1)
        rate(tracker, o)

    def a_new_writer_each_batch(self: Journal, results: Any) -> None:
        self._keeper = None  # as the first result of a run that started again
        _RECORD_RESULTS(self, results)

    monkeypatch.setattr(RatingTracker, "_rate", counted)
    monkeypatch.setattr(Journal, "record_results", a_new_writer_each_batch)
    leaguescale.write_journal(tmp_path / "again", 60, 4, 400, seed=3)
    assert len(rated) == 400
    one, again = _tables(tmp_path / "one"), _tables(tmp_path / "again")
    assert again["results"] == one["results"] and again["history"] == one["history"]
    readers = [Journal(tmp_path / name / JOURNAL, readonly=True) for name in ("one", "again")]
    try:
        kept = [json.dumps(j.ratings().standings().to_dict()) for j in readers]
    finally:
        for j in readers:
            j.close()
    assert kept[0] == kept[1]
