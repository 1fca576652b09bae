"""A game's result on its way from the referee to the journal: each seat's result, the outcome
built from them where the record is written, and the record written there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.engine import get_game
from arena.protocol.messages import Termination
from arena.results import GameOutcome, Pairing, SeatResult
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.record import GameRecord
from arena.runner.play.job import GameJob, JobResult, JobStatus, Played, file_result, play_job

ROOT = Path(__file__).resolve().parent.parent

PAIRING = Pairing("r001-t0001-s0", 4, 1, 1, ("alpha", "beta"), 99)
SEATS = (SeatResult("alpha", 31, 2, Termination.CRASH, "exited with status 3"),
         SeatResult("beta", 12, 1, Termination.OK))


def job(record_path: Path) -> GameJob:
    return GameJob(PAIRING, get_game("stoneage"), {}, {}, str(record_path), "", b"k" * 32)


def test_an_outcome_is_its_pairing_with_each_seats_result_in_columns() -> None:
    assert GameOutcome.of(PAIRING, SEATS) == GameOutcome(
        "r001-t0001-s0", 4, 1, 1, ("alpha", "beta"), 99, (31, 12), (2, 1),
        (Termination.CRASH, Termination.OK), ("exited with status 3", ""))


@pytest.mark.parametrize("seats", [SEATS[::-1], SEATS[:1], ()])
def test_seats_results_of_another_game_make_no_outcome(seats: tuple[SeatResult, ...]) -> None:
    with pytest.raises(ValueError, match="game r001-t0001-s0 seats alpha, beta, but its "
                                         "result is for"):
        GameOutcome.of(PAIRING, seats)


def test_filing_a_game_played_writes_its_record_and_gives_its_outcome(tmp_path: Path) -> None:
    path = tmp_path / "games" / "r001-t0001-s0.json"
    played = JobResult(PAIRING.game_id, JobStatus.DONE, duration_s=1.5, kept=("beta",),
                       played=Played('{"format":"arena-game-record"}', SEATS))
    filed = file_result(job(path), played)
    assert path.read_text() == '{"format":"arena-game-record"}'
    assert filed == JobResult(PAIRING.game_id, JobStatus.DONE, outcome=GameOutcome.of(
        PAIRING, SEATS), duration_s=1.5, kept=("beta",))


def test_a_result_without_a_game_is_filed_as_it_is_and_writes_nothing(tmp_path: Path) -> None:
    void = JobResult(PAIRING.game_id, JobStatus.VOID, "no hello from seat 1")
    assert file_result(job(tmp_path / "g.json"), void) is void
    assert not (tmp_path / "g.json").exists()


def test_a_job_plays_from_the_manifest_it_carries_not_the_bot_toml_on_disk_now(
        tmp_path: Path) -> None:
    # The organiser read the manifest when the run started; the bot's folder is rewritten
    # since (a bot may write there), and the game is played as the organiser read it.
    folder = tmp_path / "random-py"
    shutil.copytree(ROOT / "bots" / "examples" / "random-py", folder)
    manifest = BotManifest.load(folder)
    (folder / "bot.toml").write_text('name = "random-py"\ncommand = ["false"]\nneeds = ["/"]\n')
    pairing = Pairing("g1", 0, 1, 0, ("random-py", "second"), 5)
    played = play_job(GameJob(
        pairing, get_game("stoneage"), {"random-py": manifest, "second": manifest},
        TimeControl(handshake_ms=10_000, decision_ms=2_000).to_dict(),
        str(tmp_path / "games" / "g1.json"), str(tmp_path / "logs"), b"k" * 32,
        sandbox="none"))
    assert played.status is JobStatus.DONE, played.reason
    assert played.outcome is not None
    assert played.outcome.terminations[0] == Termination.OK
    assert GameRecord.load(tmp_path / "games" / "g1.json").seat_results == (
        SeatResult("random-py", played.outcome.scores[0], played.outcome.ranks[0],
                   Termination.OK),
        SeatResult("second", played.outcome.scores[1], played.outcome.ranks[1],
                   Termination.OK))
