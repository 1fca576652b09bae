"""A league run that played games brings the columns a large field's report keeps beside the
journal (:mod:`arena.runner.play.column_cache`) up to date when it stops, so that the report
after it reads only the file: tested on a small synthetic league, the large-field threshold
passed in low, the games themselves not played (the ring's run stands in for them)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.bench.leaguescale import write_journal
from arena.league.config import load_league
from arena.league.runner import League
from arena.league.store import LeagueJournal
from arena.runner.play import column_cache
from arena.runner.play.column_cache import CACHE, agrees, keep_columns, load_cache


@pytest.fixture
def league(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "league"
    write_journal(folder, bots=6, players=4, games=48, seed=0)
    monkeypatch.setattr(column_cache, "LARGE_FIELD", 5)
    return folder


def _run(folder: Path, played: int, stop_level: int = 0) -> None:
    """A league run over ``folder`` that played ``played`` games (none really: the ring's
    run only says so) and was stopped at ``stop_level``."""
    run = League(load_league(folder))

    def ring_run() -> None:
        run.played = played
        run.ring.stop.level = stop_level

    run.ring.run = ring_run  # type: ignore[method-assign]
    run.ring.show = lambda: None  # type: ignore[method-assign]
    run.run()


def _kept(folder: Path) -> int | None:
    """How many games the file beside the journal holds, checked against it (None: no file
    that agrees)."""
    raw = load_cache(folder / CACHE)
    journal = LeagueJournal(load_league(folder), readonly=True)
    try:
        return raw.games if raw is not None and agrees(journal.db, raw) else None
    finally:
        journal.close()


def test_a_run_that_played_keeps_every_game_as_columns(league: Path) -> None:
    _run(league, played=0)
    assert not (league / CACHE).exists()  # nothing played: nothing to keep
    _run(league, played=4, stop_level=2)
    assert not (league / CACHE).exists()  # asked to stop at once
    _run(league, played=4, stop_level=1)
    assert _kept(league) == 48


def test_the_columns_are_kept_only_for_a_large_field_in_a_folder_that_can_be_written(
        league: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = LeagueJournal(load_league(league))
    try:
        monkeypatch.setattr(column_cache, "LARGE_FIELD", 6)  # six bots: not a large field
        assert not keep_columns(journal, league) and not (league / CACHE).exists()
        monkeypatch.setattr(column_cache, "LARGE_FIELD", 5)
        if os.geteuid() != 0:  # root writes anywhere
            league.chmod(0o555)
            try:
                assert not keep_columns(journal, league)
            finally:
                league.chmod(0o755)
            assert not (league / CACHE).exists()
        (league / CACHE).write_bytes(b"not an archive")  # made again from every game
        assert keep_columns(journal, league)
    finally:
        journal.close()
    assert _kept(league) == 48


def test_the_benchmarks_league_journal_is_left_as_a_run_leaves_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(column_cache, "LARGE_FIELD", 5)
    written = write_journal(tmp_path / "bench", bots=6, players=4, games=24, seed=1)
    assert _kept(tmp_path / "bench") == written["games"] == 24
    assert written["columns_cpu_seconds"] >= 0
