"""The columns a large field's report keeps beside the journal
(:mod:`arena.runner.play.column_cache`) and the rating history it reads in part
(:mod:`arena.runner.play.history`): the report read with them, cold or warm, is the report read
from every game, and a file that does not agree with the journal (stale, damaged, tampered or
of another journal) is not used but made again. Small real journals, the large-field
threshold passed in low."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from arena.report.charts import CURVE_POINTS
from arena.report.html import build_report
from arena.results import GameOutcome, Pairing
from arena.runner.play.column_cache import CACHE, load_cache, write_cache
from arena.runner.play.columns import read_columns
from arena.runner.play.history import RatingHistory, sample_points
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.reading import read_progress, read_report
from arena.stats.columns import GameColumns
from arena.stats.synthetic import synthetic_bots, synthetic_outcomes

BOTS = 8


def _games(count: int, seed: int) -> tuple[list[str], list[GameOutcome]]:
    theta = synthetic_bots(BOTS, seed)
    outcomes = synthetic_outcomes(theta, 4, count, seed, seat_advantage=0.2, luck=0.5)
    o = outcomes[3]  # a shared rank
    outcomes[3] = dataclasses.replace(o, ranks=(1, 1, *o.ranks[2:]))
    return sorted(theta), outcomes


def _write(folder: Path, names: list[str], outcomes: list[GameOutcome], league: bool,
           new: bool = True) -> None:
    """Record ``outcomes`` in the journal in ``folder`` (made if ``new``), its rating
    checkpoint and history brought up to date, as a run keeps them."""
    journal = Journal(folder / JOURNAL)
    try:
        if new:
            journal.bind({"name": "cache", "game": "synthetic", "players": 4,
                          **({"kind": "league"} if league else {}),
                          "bots": [{"name": b} for b in names]}, "synthetic games")
        journal.keep_ratings = False
        journal.add_pairings([Pairing(o.game_id, o.index, o.round, o.table, o.bots, o.seed)
                              for o in outcomes])
        for o in (outcomes[::-1] if league else outcomes):
            journal.record_result(o, f"games/{o.game_id}.json", 0.0)
        tracker = RatingTracker(names)
        tracker.log = []
        tracker.add_all(journal.rated_outcomes())
        journal.write_checkpoint(tracker)
    finally:
        journal.close()


def _same(a: GameColumns, b: GameColumns) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert (np.array_equal(x, y) and x.dtype == y.dtype if isinstance(x, np.ndarray)
                else x == y), f.name


def _page(folder: Path, **read: object) -> str:
    progress, cols = read_report(folder, large_field=5, listed=20, curves=(4, CURVE_POINTS), **read)
    assert cols is not None
    return build_report(progress, folder, folder / "report.html", True, seed=1,
                        games_listed=20, large_field=5, shown=4, columns=cols)


def _whole(folder: Path) -> tuple[GameColumns, str]:
    """The columns and the page read from every game, no file kept or used."""
    full = read_progress(folder, records=True, ratings=True)
    journal = Journal(folder / JOURNAL, readonly=True)
    try:
        cols = read_columns(journal.db, full.identity.get("kind") == "league", full.bots)
    finally:
        journal.close()
    page = build_report(full, folder, folder / "report.html", True, seed=1, games_listed=20,
                        large_field=5, shown=4)
    return cols, page


@pytest.mark.parametrize("league", [False, True])
def test_the_report_cold_warm_and_grown_is_the_report_of_every_game(tmp_path: Path,
                                                                    league: bool) -> None:
    names, outcomes = _games(80, 4)
    _write(tmp_path, names, outcomes[:60], league)
    cols, page = _whole(tmp_path)
    assert not (tmp_path / CACHE).exists()
    assert _page(tmp_path) == page  # cold: every game read, the file written
    assert (tmp_path / CACHE).is_file()
    assert _page(tmp_path) == page  # warm
    progress, warm = read_report(tmp_path, large_field=5, listed=20, curves=(4, CURVE_POINTS))
    _same(warm, cols)
    # The rating history holds every game's id and the ratings of only the games sampled.
    assert isinstance(progress.history, RatingHistory)
    full = read_progress(tmp_path, ratings=True).history
    assert full is not None and progress.history.ids == [g for g, _ in full]
    assert 0 < len(progress.history.made) <= len(full)
    assert all(progress.history[g] == full[g] for g in progress.history.made)
    # Games committed since: read from the journal and added to the file.
    _write(tmp_path, names, outcomes[60:], league, new=False)
    cols, page = _whole(tmp_path)
    assert _page(tmp_path) == page
    kept = load_cache(tmp_path / CACHE)
    assert kept is not None and kept.games == 80


def _tampered(path: Path, change: str) -> None:
    """The file at ``path`` with one of its games changed: its digest kept (a damaged file)
    or made again to match (a file written to agree with itself)."""
    kept = load_cache(path)
    assert kept is not None
    seat = kept.seat.copy()
    seat[7, [0, 1]] = seat[7, [1, 0]]
    write_cache(path, dataclasses.replace(kept, seat=seat))
    if change == "damaged":
        other = load_cache(path)
        assert other is not None
        write_cache(path, kept)
        good = path.read_bytes()
        write_cache(path, other)
        bad = path.read_bytes()
        # The changed file with the digest of the true one.
        start = good.index(b'"digest": "') + 11
        digest = good[start:start + 64]
        at = bad.index(b'"digest": "') + 11
        path.write_bytes(bad[:at] + digest + bad[at + 64:])
        assert load_cache(path) is None


@pytest.mark.parametrize("change", ["damaged", "rewritten", "garbage", "stale", "other"])
def test_a_file_that_disagrees_with_the_journal_is_not_used(tmp_path: Path,
                                                           change: str) -> None:
    names, outcomes = _games(60, 6)
    _write(tmp_path, names, outcomes, league=True)
    cols, page = _whole(tmp_path)
    path = tmp_path / CACHE
    read_report(tmp_path, large_field=5, listed=20)
    if change in ("damaged", "rewritten"):
        _tampered(path, change)
    elif change == "garbage":
        path.write_bytes(b"PK\x03\x04 not a file this version wrote")
    elif change == "stale":  # a result withdrawn since the file was written
        journal = Journal(tmp_path / JOURNAL)
        try:
            journal.db.execute("DELETE FROM results WHERE rowid = 30")
            tracker = RatingTracker(names)
            tracker.log = []
            tracker.add_all(journal.rated_outcomes())
            journal.write_checkpoint(tracker)
        finally:
            journal.close()
        cols, page = _whole(tmp_path)
    else:  # the file of another journal whose games have the same ids
        other = tmp_path / "other"
        other.mkdir()
        _write(other, names, _games(60, 7)[1], league=True)
        read_report(other, large_field=5, listed=20)
        shutil.copyfile(other / CACHE, path)
    if change == "rewritten":
        # Game 7 is one of those read again: the file is found out and not used.
        assert load_cache(path) is not None
    _, read = read_report(tmp_path, large_field=5, listed=20, keep=False)
    assert read is not None
    _same(read, cols)
    assert _page(tmp_path) == page
    kept = load_cache(path)  # made again from every game
    assert kept is not None and kept.game_ids == cols.game_ids


def test_a_folder_that_cannot_be_written_is_read_whole(tmp_path: Path) -> None:
    names, outcomes = _games(40, 8)
    _write(tmp_path, names, outcomes, league=True)
    page = _whole(tmp_path)[1]
    os.chmod(tmp_path, 0o555)
    try:
        if os.access(tmp_path, os.W_OK):
            pytest.skip("running as a user who may write anywhere")
        assert _page(tmp_path) == page
        assert not (tmp_path / CACHE).exists()
    finally:
        os.chmod(tmp_path, 0o755)


def test_the_file_holds_only_plain_arrays(tmp_path: Path) -> None:
    names, outcomes = _games(40, 9)
    _write(tmp_path, names, outcomes, league=True)
    read_report(tmp_path, large_field=5, listed=20)
    with np.load(tmp_path / CACHE, allow_pickle=False) as archive:
        head = json.loads(archive["head"].tobytes())
        assert all(archive[k].dtype != object for k in archive.files)
    assert head["games"] == 40 and head["version"] == 1


def test_the_curves_sample_every_step_and_the_last_game() -> None:
    for n in range(0, 300):
        for points in range(0, 30):
            step = max(1, -(-n // max(1, points - 1)))
            assert sample_points(n, points) == [k for k in range(1, n + 1)
                                                if k % step == 0 or k == n]
    assert len(sample_points(1_000_000, 500)) <= 500


def test_a_file_whose_game_ids_are_not_all_text_is_not_used(tmp_path: Path) -> None:
    names, outcomes = _games(30, 9)
    _write(tmp_path, names, outcomes, league=True)
    read_report(tmp_path, large_field=5, listed=20)
    path = tmp_path / CACHE
    kept = load_cache(path)
    assert kept is not None
    write_cache(path, dataclasses.replace(kept, game_ids=[*kept.game_ids[:-1], 7]))  # type: ignore[list-item]
    assert load_cache(path) is None
    write_cache(path, kept)
    assert load_cache(path) is not None
