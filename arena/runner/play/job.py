"""A game job: what the organiser hands an executor (:class:`GameJob`), how a worker plays
it (:func:`referee_job`: the game as :class:`Played`), and how the organiser files the result
(:func:`file_result`: the record written and the outcome built on the organiser's side, for
every executor), with where a game's record lives (:func:`record_file`)."""

from __future__ import annotations

import dataclasses
import time
import traceback
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from arena.engine import Game
from arena.results import GameOutcome, Pairing, SeatResult
from arena.runner.game.disk import is_disk_full
from arena.runner.game.manifest import BotManifest
from arena.runner.game.record import save_record
from arena.runner.game.sandbox import DEFAULT_MODE
from arena.runner.game.stable import Stable
from arena.runner.play.journal import RECORDS


@dataclass(frozen=True)
class GameJob:
    """One game to play. ``game`` is the game itself (it pickles by reference to its class),
    so a worker needs no registry: a game registered only by the organiser's code plays too.
    ``bots`` holds each bot's manifest by the name it plays under, as the organiser read it
    when the run started: a worker never reads a ``bot.toml`` again, which a bot could have
    rewritten in its folder since."""

    pairing: Pairing
    game: Game
    bots: dict[str, BotManifest]
    time_control: dict[str, int]
    record_path: str
    log_dir: str
    seed_key: bytes  #: the tournament's key of bots' seeds (arena.seeds.bot_seed)
    log_cap: int | None = None  # bytes of each bot's output kept per game; None: the default
    sandbox: str = DEFAULT_MODE  #: how the bots run: "none" or "bwrap" (arena.runner.game.sandbox)
    #: the game's options, complete (Game.validate_options), which the worker plays it with
    options: dict[str, str] = field(default_factory=dict)
    #: not a game but the start check of the one bot the pairing seats (:func:`check_job`)
    check: bool = False


class JobStatus(StrEnum):
    """How a job ended."""

    DONE = "done"  #: the game was played; the result has its outcome
    VOID = "void"  #: the game could not be played, nobody's loss (a bot could not start)
    ERROR = "error"  #: the runner's own failure (the reason has the traceback)
    #: the game record or the bots' log folder could not be written for want of space: the
    #: game is not done, and the run must stop (the reason says which write failed)
    DISK_FULL = "disk_full"


@dataclass(frozen=True)
class Played:
    """A game a worker played, on its way to the organiser: its record as the record's file
    holds it (JSON), and each seat's result as the referee judged it, seat 0 first."""

    record: str
    seats: tuple[SeatResult, ...]


@dataclass(frozen=True)
class JobResult:
    """How a job ended: ``outcome`` for a DONE job once filed, ``reason`` for the others;
    ``kept``, the bots the worker keeps idle after the job (in its stable for the job's
    sandbox setting), for the choice of the worker for later games.

    A worker's DONE result carries the game in ``played`` instead of an outcome, until the
    organiser's executor files it (:func:`file_result`); the executors' ``poll`` returns only
    filed results."""

    game_id: str
    status: JobStatus
    reason: str = ""
    outcome: GameOutcome | None = None
    duration_s: float = 0.0
    kept: tuple[str, ...] = ()
    played: Played | None = None


def play_job(job: GameJob, stable: Stable | None = None) -> JobResult:
    """Play one job in this process and file its result here, the worker and the organiser in
    one (an executor that plays games in its own process). ``stable`` as for
    :func:`referee_job`."""
    return file_result(job, referee_job(job, stable))


def referee_job(job: GameJob, stable: Stable | None = None) -> JobResult:
    """Play one job in this process (what a worker does): DONE with the game
    :class:`Played`, or why not. With a ``stable`` (whose sandbox setting must be the job's),
    bot processes are kept between the jobs of this process."""
    from arena.runner.game.clock import TimeControl
    from arena.runner.game.referee import VoidGame, play_game

    t0 = time.monotonic()
    p = job.pairing
    try:
        # A bot plays under the name its pairing gives it: a tournament's is its manifest's,
        # a league's is the bot's name and version (two versions of one bot may meet).
        bots = [_named(job.bots[name], name) for name in p.bots]
        record = play_game(job.game, p.seed, bots,
                           TimeControl.from_dict(job.time_control), job.log_dir, p.game_id,
                           stable, log_cap=job.log_cap, seed_key=job.seed_key,
                           sandbox=job.sandbox, options=job.options)
    except VoidGame as exc:
        return JobResult(p.game_id, JobStatus.VOID, str(exc), duration_s=time.monotonic() - t0)
    except Exception as exc:
        if is_disk_full(exc):  # creating the bots' log folder or files
            return JobResult(p.game_id, JobStatus.DISK_FULL, str(exc),
                             duration_s=time.monotonic() - t0)
        return JobResult(p.game_id, JobStatus.ERROR, traceback.format_exc(),
                         duration_s=time.monotonic() - t0)
    return JobResult(p.game_id, JobStatus.DONE, duration_s=time.monotonic() - t0,
                     played=Played(record.to_json(), record.seat_results))


def check_job(job: GameJob, stable: Stable) -> JobResult:
    """The start check of the one bot ``job`` seats, in this worker: the bot started once and
    its hello awaited, as a game would (:func:`arena.runner.game.checkbot.start_problem`).
    DONE, the process then left waiting in ``stable`` for this worker's games when it keeps
    any (its log goes with the games' logs); or VOID with why, its log apart, under
    ``start-check``."""
    from arena.runner.game.botlog import DEFAULT_LOG_CAP
    from arena.runner.game.checkbot import start_problem
    from arena.runner.game.clock import TimeControl

    t0 = time.monotonic()
    name = job.pairing.bots[0]
    logs = Path(job.log_dir) if stable.keep > 0 else Path(job.log_dir) / "start-check"
    try:
        why = start_problem(_named(job.bots[name], name), job.game,
                            TimeControl.from_dict(job.time_control), logs,
                            DEFAULT_LOG_CAP if job.log_cap is None else job.log_cap,
                            job.sandbox, job.seed_key, stable)
    except Exception as exc:
        if is_disk_full(exc):
            return JobResult(job.pairing.game_id, JobStatus.DISK_FULL, str(exc))
        return JobResult(job.pairing.game_id, JobStatus.ERROR, traceback.format_exc())
    return JobResult(job.pairing.game_id, JobStatus.DONE if why is None else JobStatus.VOID,
                     why or "", duration_s=time.monotonic() - t0)


def file_result(job: GameJob, result: JobResult) -> JobResult:
    """File a worker's ``result`` of ``job`` on the organiser's side: a game played has its
    record written at the job's ``record_path`` (atomically) and its outcome built from the
    seats' results and the job's pairing; any other result is returned as it is. DISK_FULL
    if the record cannot be written for want of space (no half record is left under its
    name); ValueError if the seats' results are not the pairing's game."""
    if result.played is None:
        return result
    outcome = GameOutcome.of(job.pairing, result.played.seats)
    try:
        save_record(job.record_path, result.played.record)
    except OSError as exc:
        if not is_disk_full(exc):
            raise
        return dataclasses.replace(result, status=JobStatus.DISK_FULL, played=None,
                                   reason=f"writing {job.record_path}: {exc}")
    return dataclasses.replace(result, outcome=outcome, played=None)


def _named(manifest: BotManifest, name: str) -> BotManifest:
    return manifest if manifest.name == name else dataclasses.replace(manifest, name=name)


def record_file(folder: Path, game_id: str) -> Path:
    """Where a game's record is written: ``<output>/games/<game_id>.json``."""
    return folder / RECORDS / f"{game_id}.json"
