"""Results committed many to a transaction (:meth:`Journal.record_results`, as the long-journal
benchmark writes them) leave the journal one result a transaction leaves: the same results,
pairings, rating history and checkpoint, the checkpoints skipped in a transaction being only
those written over before its end."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena.bench import leaguescale
from arena.runner.play.checkpoint import CHECKPOINT_RATIO, due_again
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.ratings import RatingTracker


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
