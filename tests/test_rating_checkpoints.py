"""The rating checkpoints a journal (a real SQLite file) keeps with its results: the standings
read from them are byte for byte those of a full TrueSkill replay, on the committed
leaderboards (which have none, and are never written to) and on a synthetic journal; a
checkpoint that is missing, stale or damaged is not trusted but rebuilt from the games."""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.results import Pairing
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.ratings import RatingTracker, compute_standings
from arena.runner.play.reading import read_progress, read_standings
from arena.stats.synthetic import synthetic_bots, synthetic_outcomes

LEADERBOARDS = Path(__file__).resolve().parent.parent / "leaderboards"
#: The synthetic journal's games (TrueSkill's own replay of them is the test's cost).
GAMES = 400
COMMITTED = sorted(p.name for p in LEADERBOARDS.iterdir() if (p / JOURNAL).is_file())


def _replayed(folder: Path) -> str:
    progress = read_progress(folder)
    return json.dumps(compute_standings(progress.bots, progress.outcomes).to_dict())


def _read(folder: Path) -> str:
    return json.dumps(read_standings(folder)[1].to_dict())


def _write(folder: Path, games: int, shuffle: bool = False, bots: int = 8) -> list[str]:
    """A synthetic 4-player tournament journal of ``games`` games (``shuffle``: results
    committed out of the issued order, as several workers finish them); its bots."""
    theta = synthetic_bots(bots, 7)
    outcomes = synthetic_outcomes(theta, 4, games, 7, seat_advantage=0.2, luck=0.5)
    journal = Journal(folder / JOURNAL)
    try:
        journal.bind({"name": "synthetic", "bots": [{"name": b} for b in theta]}, "synthetic")
        journal.db.execute("PRAGMA synchronous=OFF")
        journal.add_pairings([Pairing(o.game_id, o.index, o.round, o.table, o.bots, o.seed)
                              for o in outcomes])
        if shuffle:  # each run of 8 games finishes in its own order
            rng = random.Random(3)
            outcomes = [o for k in range(0, len(outcomes), 8)
                        for o in rng.sample(outcomes[k:k + 8], len(outcomes[k:k + 8]))]
        for o in outcomes:
            journal.record_result(o, f"games/{o.game_id}.json", 0.0)
    finally:
        journal.close()
    return list(theta)


@pytest.mark.parametrize("name", COMMITTED)
def test_committed_leaderboards_read_as_replayed_and_are_not_written(name: str) -> None:
    before = (LEADERBOARDS / name / JOURNAL).read_bytes()
    assert _read(LEADERBOARDS / name) == _replayed(LEADERBOARDS / name)
    assert (LEADERBOARDS / name / JOURNAL).read_bytes() == before


@pytest.mark.parametrize("name", COMMITTED)
def test_the_standings_command_prints_the_committed_numbers(name: str) -> None:
    r = CliRunner().invoke(app, ["standings", "--json", str(LEADERBOARDS / name)])
    assert r.exit_code == 0, r.output
    printed = json.loads(r.output)
    committed = json.loads((LEADERBOARDS / name / "standings.json").read_text())["standings"]
    assert [(b["name"], b["conservative"]) for b in printed["bots"]] == [
        (b["name"], b["conservative"]) for b in committed["bots"]]
    assert printed["crosstable"] == committed["crosstable"]


@pytest.mark.parametrize("games", [GAMES, pytest.param(2000, marks=pytest.mark.slow)])
def test_a_synthetic_journal_keeps_checkpoints_that_give_the_replay_exactly(
        tmp_path: Path, games: int) -> None:
    _write(tmp_path, games, shuffle=True)
    journal = Journal(tmp_path / JOURNAL, readonly=True)
    try:
        row = journal.db.execute("SELECT mark, results FROM checkpoint").fetchone()
        found = journal._checkpoint(journal._rating_bots())
    finally:
        journal.close()
    assert tuple(row) == (games, games)
    assert found is not None  # the checkpoint agrees with the games, and is what is read
    assert json.dumps(found[0].standings().to_dict()) == _replayed(tmp_path)
    assert _read(tmp_path) == _replayed(tmp_path)


def test_a_checkpoint_that_disagrees_is_not_used(tmp_path: Path) -> None:
    _write(tmp_path, 200)
    want = _replayed(tmp_path)
    db = Journal(tmp_path / JOURNAL).db
    # A damaged state (its digest no longer matches): rebuilt from the games.
    db.execute("UPDATE checkpoint SET state = replace(state, '\"next\":200', '\"next\":199')")
    assert _read(tmp_path) == want
    # A result deleted behind the checkpoint's back: the results it covers are not there.
    last = db.execute("SELECT MAX(rowid) FROM results").fetchone()[0]
    db.execute("DELETE FROM results WHERE rowid = 1")
    progress = read_progress(tmp_path)
    assert _read(tmp_path) == json.dumps(
        compute_standings(progress.bots, progress.outcomes).to_dict()) != want
    assert db.execute("SELECT mark FROM checkpoint").fetchone()[0] == last
    db.close()


def test_games_recorded_after_the_checkpoint_are_rated_by_the_reader(tmp_path: Path) -> None:
    _write(tmp_path, 200)
    journal = Journal(tmp_path / JOURNAL)
    # As if a version without checkpoints had recorded the games after the 150th.
    state = RatingTracker.from_state(
        journal.db.execute("SELECT state FROM checkpoint").fetchone()[0])
    assert state.games == 200
    journal.db.execute("DELETE FROM checkpoint")
    progress = read_progress(tmp_path)
    first = RatingTracker(progress.bots)
    first.add_all(o for o in progress.outcomes if o.index < 150)
    journal.write_checkpoint(first)  # claims to cover all 200: its 150 games say it does not
    assert _read(tmp_path) == _replayed(tmp_path)
    journal.db.execute("UPDATE checkpoint SET mark = 150, results = 150, "
                       "last_game = (SELECT game_id FROM results WHERE rowid = 150)")
    tracker, mark, results, _ = journal.rated()
    assert (mark, results) == (200, 200)
    assert json.dumps(tracker.standings().to_dict()) == _replayed(tmp_path)
    journal.close()


def test_a_journal_without_checkpoints_gets_one_with_its_next_game(tmp_path: Path) -> None:
    bots = _write(tmp_path, 100)
    db = Journal(tmp_path / JOURNAL).db
    db.execute("DROP TABLE checkpoint")  # a journal written before checkpoints
    assert _read(tmp_path) == _replayed(tmp_path)  # read-only: rated in memory, nothing kept
    assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'checkpoint'"
                      ).fetchone()[0] == 0
    journal = Journal(tmp_path / JOURNAL)
    extra = Pairing("extra", 10_000, 99, 99, tuple(bots[:4]), 1)
    journal.add_pairings([extra])
    from arena.protocol.messages import Termination
    from arena.results import GameOutcome

    journal.record_result(GameOutcome(*dataclasses.astuple(extra), (3, 2, 1, 0), (1, 2, 3, 4),
                                      (Termination.OK,) * 4), "games/extra.json", 0.0)
    journal.close()
    assert db.execute("SELECT results FROM checkpoint").fetchone()[0] == 101
    assert _read(tmp_path) == _replayed(tmp_path)
    db.close()


def test_a_state_makes_the_same_tracker_again_bit_for_bit() -> None:
    theta = synthetic_bots(6, 2)
    outcomes = synthetic_outcomes(theta, 3, 300, 2)
    whole = RatingTracker(list(theta))
    whole.add_all(outcomes)
    half = RatingTracker(list(theta))
    # Every other game of the first half, so some wait for an earlier index.
    half.add_all(o for o in outcomes[:150] if o.index % 7)
    again = RatingTracker.from_state(half.state(), list(theta))
    assert again.state() == half.state() and again.pending == half.pending
    again.add_all(o for o in outcomes if o.index >= 150 or not o.index % 7)
    assert json.dumps(again.standings().to_dict()) == json.dumps(whole.standings().to_dict())
    with pytest.raises(ValueError, match="not a rating state"):
        RatingTracker.from_state('{"version": 1}')


def test_a_read_only_folder_is_read_from_a_copy(tmp_path: Path) -> None:
    shutil.copytree(LEADERBOARDS / COMMITTED[0], tmp_path / "t")
    (tmp_path / "t").chmod(0o555)
    try:
        assert _read(tmp_path / "t") == _replayed(LEADERBOARDS / COMMITTED[0])
    finally:
        (tmp_path / "t").chmod(0o755)


def test_a_league_reads_its_checkpoint_as_its_runner_rates(tmp_path: Path) -> None:
    """A league rates its games in the order they finished; a removed bot version's games
    leave the checkpoint behind (the results it covers are gone) and the rest are rated
    again."""
    from test_league_ratings import _league, _play, _same

    from arena.league.state import LeagueRatings

    journal = _league(tmp_path)
    rng = random.Random(5)
    _play(journal, rng, 30, last_first=True)
    assert journal._checkpoint(journal._rating_bots()) is not None
    fresh = LeagueRatings()
    fresh.refresh(journal)
    assert _same(fresh, journal)
    journal.remove_entrant("b@1")
    assert journal._checkpoint(journal._rating_bots()) is None
    _play(journal, rng, 5, bots=("a@1", "c@1", "d@1"))
    assert journal._checkpoint(journal._rating_bots()) is not None
    again = LeagueRatings()
    again.refresh(journal)
    left = journal.db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert _same(again, journal) and again.games == left < fresh.games + 10
    journal.close()


def test_bench_ratings_prints_both_ways_and_they_agree() -> None:
    r = CliRunner().invoke(app, ["bench", "ratings", "--games", "40", "--json"])
    assert r.exit_code == 0, r.output
    f = json.loads(r.output)
    assert f["games"] == 40 and f["identical"] is True and f["report_identical"] is True
    assert f["report_cold_identical"] is True
    assert f["replay_seconds"] > 0 and f["checkpoint_seconds"] > 0
    assert f["standings_command_seconds"] > 0 and f["report_command_cpu_seconds"] > 0


def test_bench_ratings_keeps_its_journal_and_reuses_it_for_the_same_arguments(
        tmp_path: Path) -> None:
    def bench(*extra: str) -> dict[str, Any]:
        r = CliRunner().invoke(app, ["bench", "ratings", "--keep", str(tmp_path), "--json",
                                     "--no-replay", "--bootstrap", "5", *extra])
        assert r.exit_code == 0, r.output
        return dict(json.loads(r.output))

    first = bench("--games", "40")
    again = bench("--games", "40")
    assert first["journal_reused"] is False and again["journal_reused"] is True
    assert again["identical"] is True and again["write_seconds"] == first["write_seconds"]
    assert "report_identical" not in again  # --no-replay: no replay to compare with
    # Other arguments: the kept journal is not theirs, and is written anew.
    other = bench("--games", "48", "--no-report")
    assert other["journal_reused"] is False and other["games"] == 48
    r = CliRunner().invoke(app, ["bench", "ratings", "--games", "40", "--league", str(tmp_path)])
    assert r.exit_code != 0 and "no league.toml" in r.output


def _page(folder: Path, ratings: bool) -> str:
    from arena.report.html import build_report

    progress = read_progress(folder, records=True, ratings=ratings)
    return build_report(progress, folder, folder / "report.html", True, replicates=5, seed=1)


def test_the_report_reads_its_curves_from_the_history_as_replayed(tmp_path: Path) -> None:
    """Games finishing out of order (rated later than recorded), all in the history: the
    page is the full replay's byte for byte, and no TrueSkill runs while it is made."""
    from unittest import mock

    _write(tmp_path, 160, shuffle=True)
    progress = read_progress(tmp_path, ratings=True)
    assert progress.history is not None and len(progress.history) == 160
    replayed = _page(tmp_path, ratings=False)
    with mock.patch.object(RatingTracker, "_rate", side_effect=AssertionError("replayed")):
        assert _page(tmp_path, ratings=True) == replayed
    # A history that disagrees with the games (another game in its place) is not used.
    db = Journal(tmp_path / JOURNAL).db
    db.execute("UPDATE rating_history SET game_id = 'x' WHERE k = 7")
    assert _page(tmp_path, ratings=True) == replayed
    db.close()


@pytest.mark.parametrize("name", COMMITTED)
def test_the_report_of_a_committed_leaderboard_is_the_replay(name: str, tmp_path: Path) -> None:
    """The committed journals have no checkpoint: the report replays as before; a copy given
    a checkpoint and a history by write_checkpoint reports the same page without TrueSkill."""
    from unittest import mock

    folder = tmp_path / name
    shutil.copytree(LEADERBOARDS / name, folder)
    replayed = _page(folder, ratings=False)
    assert _page(folder, ratings=True) == replayed
    journal = Journal(folder / JOURNAL)
    journal.write_checkpoint()
    journal.close()
    history = read_progress(folder, ratings=True).history
    assert history is not None and len(history) == len(read_progress(folder).outcomes)
    standings = _replayed(folder)
    with mock.patch.object(RatingTracker, "_rate", side_effect=AssertionError("replayed")):
        assert _page(folder, ratings=True) == replayed
        assert _read(folder) == standings
