"""A tournament run that played games brings the columns a large field's report keeps beside
the journal (:mod:`arena.runner.play.column_cache`) up to date at its end, as a league run does
when it stops: tested on three bots with the large-field threshold passed in low, the games
recorded by a stand-in for the ring's run instead of played."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_tournament_e2e import example, random_py_twin, schedule_of, write_tournament

from arena.results import GameOutcome
from arena.runner.play import column_cache
from arena.runner.play.column_cache import CACHE, agrees, load_cache
from arena.runner.play.config import load_config
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.tournament import Tournament


def _run(file: Path, games: int) -> None:
    """A run of ``file`` whose ring records the next ``games`` games of the schedule."""
    run = Tournament(load_config(file))

    def ring_run() -> None:
        done = run.journal.pairing_count("done")
        for p in schedule_of(file)[done:done + games]:
            run.journal.add_pairings([p])
            run.journal.record_result(
                GameOutcome(p.game_id, p.index, p.round, p.table, p.bots, p.seed, (9, 8),
                            (1, 2), ("ok", "ok")),  # type: ignore[arg-type]
                f"games/{p.game_id}.json", 0.1)

    run.ring.run = ring_run  # type: ignore[method-assign]
    run.ring.show = lambda: None  # type: ignore[method-assign]
    run.run()


def _kept(folder: Path) -> int | None:
    raw = load_cache(folder / CACHE) if (folder / CACHE).is_file() else None
    journal = Journal(folder / JOURNAL)
    try:
        return raw.games if raw is not None and agrees(journal.db, raw) else None
    finally:
        journal.close()


def test_a_tournament_run_that_played_keeps_its_games_as_columns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    file = write_tournament(tmp_path, "t.toml", name="t", output=out, sandbox="none", rounds=2,
                            bots=[example("greedy-py"), example("random-py"),
                                  random_py_twin(tmp_path)])
    monkeypatch.setattr(column_cache, "LARGE_FIELD", 3)  # three bots: not a large field
    _run(file, 2)
    assert not (out / CACHE).exists()
    monkeypatch.setattr(column_cache, "LARGE_FIELD", 2)
    _run(file, 0)
    assert not (out / CACHE).exists()  # nothing played: nothing to keep
    _run(file, 2)
    assert _kept(out) == 4
    _run(file, 2)
    assert _kept(out) == 6  # the games since added
