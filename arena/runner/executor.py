"""Where games run. The tournament talks to an :class:`Executor`; the local one runs each game
in one of a fixed set of worker processes on this machine. A cluster executor can implement the
same four methods without the scheduler or the tournament loop changing.

A job is plain data (the pairing, the bots' folders, the time control, where to write the
record, the tournament's secret seed key, which workers are trusted to hold and bots never
see); a worker plays it with :func:`arena.runner.referee.play_game`, writes the game record
atomically, and sends back a small :class:`JobResult` carrying the game's
:class:`~arena.runner.schedule.base.GameOutcome` and the bots it now keeps idle. Each game goes
to the free worker that keeps most of its bots (:mod:`arena.runner.affinity`). Workers ignore
SIGINT (the tournament decides what Ctrl-C means); SIGTERM makes a worker kill its game's bots
and exit, and so does the runner's death, however it dies (a lifeline pipe). Each worker is a
supervisor and a child that plays (:mod:`arena.runner.supervise`), so a worker SIGKILLed, either
process of it, leaves nothing it started running.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing as mp
import os
import queue
import signal
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Protocol, runtime_checkable

from arena.engine import Game
from arena.runner.affinity import MIN_KEEP, WorkerView, choose_worker
from arena.runner.bots import BotManifest
from arena.runner.sandbox import DEFAULT_MODE
from arena.runner.schedule.base import GameOutcome, Pairing
from arena.runner.stable import Stable
from arena.runner.storage import is_disk_full
from arena.runner.store import RECORDS
from arena.runner.supervise import supervise

#: The fewest idle bot processes a worker keeps for its next games (one per bot, oldest stopped
#: first) when it keeps any; a tournament sizes it to memory
#: (:func:`arena.runner.affinity.keep_for_memory`).
KEEP_BOTS_PER_WORKER = MIN_KEEP
#: How long a worker waits for its next job at a time. A SIGTERM the kernel hands to another of
#: the worker's threads is acted on (by the main thread) only when the main thread wakes: a
#: wait without end could miss it, and the runner then waits 15 s before it SIGKILLs.
JOB_WAIT_S = 0.2


@dataclass(frozen=True)
class GameJob:
    """One game to play. ``game`` is the game itself (it pickles by reference to its class),
    so a worker needs no registry: a game registered only by the organiser's code plays too."""

    pairing: Pairing
    game: Game
    bot_folders: dict[str, str]
    time_control: dict[str, int]
    record_path: str
    log_dir: str
    seed_key: bytes  #: the tournament's key of bots' seeds (arena.seeds.bot_seed)
    log_cap: int | None = None  # bytes of each bot's output kept per game; None: the default
    sandbox: str = DEFAULT_MODE  #: how the bots run: "none" or "bwrap" (arena.runner.sandbox)


class JobStatus(StrEnum):
    """How a job ended."""

    DONE = "done"  #: the game was played; the result has its outcome
    VOID = "void"  #: the game could not be played, nobody's loss (a bot could not start)
    ERROR = "error"  #: the runner's own failure (the reason has the traceback)
    #: the game record or the bots' log folder could not be written for want of space: the
    #: game is not done, and the run must stop (the reason says which write failed)
    DISK_FULL = "disk_full"


@dataclass(frozen=True)
class JobResult:
    """What a worker sends back: ``outcome`` for a DONE job, ``reason`` for the others;
    ``kept``, the bots the worker keeps idle after the job (in its stable for the job's
    sandbox setting), for the choice of the worker for later games."""

    game_id: str
    status: JobStatus
    reason: str = ""
    outcome: GameOutcome | None = None
    duration_s: float = 0.0
    kept: tuple[str, ...] = ()


class Executor(Protocol):
    def submit(self, job: GameJob) -> None:
        """Start a game (the caller keeps at most ``capacity`` in flight)."""
        ...

    def poll(self, timeout_s: float) -> list[JobResult]:
        """Results that have arrived, waiting up to ``timeout_s`` for the first one."""
        ...

    @property
    def capacity(self) -> int:
        ...

    def shutdown(self, abandon: bool) -> None:
        """Stop. ``abandon`` stops games in progress (their bots are killed) instead of
        letting them finish. Safe to call twice."""
        ...

    def restarted(self) -> list[str]:
        """Games started again by the executor itself since the last call (a cluster retries a
        game lost with its worker): each is one more attempt for the journal. None by
        default."""
        return []

    def notices(self) -> list[str]:
        """What the executor has to say about its workers since the last call (a cluster's
        worker left out), a line each. Nothing by default."""
        return []

    def start_problems(self, checks: Sequence[GameJob]) -> list[str] | None:
        """Start each bot of ``checks`` (a job per bot, which seats it alone) once where the
        games will run, and return why each that could not start failed (empty: all did);
        None (the default) when the games run on this machine, which then checks the bots
        itself."""
        return None


@runtime_checkable
class Dispatching(Executor, Protocol):
    """An executor that also tells what its workers keep: the tournament then starts, among
    the first queued games, the one whose bots a free worker keeps most of
    (:func:`arena.runner.affinity.choose_game`), and ``submit`` sends it to that worker."""

    def worker_views(self) -> Mapping[int, WorkerView] | Mapping[str, WorkerView]:
        ...


def play_job(job: GameJob, stable: Stable | None = None) -> JobResult:
    """Play one job in this process (what a worker does). With a ``stable`` (whose sandbox
    setting must be the job's), bot processes are kept between the jobs of this process."""
    from arena.runner.clock import TimeControl
    from arena.runner.referee import VoidGame, play_game

    t0 = time.monotonic()
    p = job.pairing
    try:
        # A bot plays under the name its pairing gives it: a tournament's is its manifest's,
        # a league's is the bot's name and version (two versions of one bot may meet).
        bots = [_named(BotManifest.load(job.bot_folders[name]), name) for name in p.bots]
        record = play_game(job.game, p.seed, bots,
                           TimeControl.from_dict(job.time_control), job.log_dir, p.game_id,
                           stable, log_cap=job.log_cap, seed_key=job.seed_key,
                           sandbox=job.sandbox)
    except VoidGame as exc:
        return JobResult(p.game_id, JobStatus.VOID, str(exc), duration_s=time.monotonic() - t0)
    except Exception as exc:
        if is_disk_full(exc):  # creating the bots' log folder or files
            return JobResult(p.game_id, JobStatus.DISK_FULL, str(exc),
                             duration_s=time.monotonic() - t0)
        return JobResult(p.game_id, JobStatus.ERROR, traceback.format_exc(),
                         duration_s=time.monotonic() - t0)
    try:
        record.save(job.record_path)
    except OSError as exc:
        if not is_disk_full(exc):
            raise
        # The record is written aside and renamed, so no half record is left under its name.
        return JobResult(p.game_id, JobStatus.DISK_FULL, f"writing {job.record_path}: {exc}",
                         duration_s=time.monotonic() - t0)
    return JobResult(p.game_id, JobStatus.DONE, outcome=record.outcome(p),
                     duration_s=time.monotonic() - t0)


def _named(manifest: BotManifest, name: str) -> BotManifest:
    return manifest if manifest.name == name else dataclasses.replace(manifest, name=name)


def _on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _watch_lifeline(lifeline: Connection) -> None:
    """Wait for the runner to die: only the runner holds the write end of the lifeline, so
    EOF means it is gone (even by SIGKILL). Then stop this worker like a SIGTERM would: the
    game in progress kills its bots on the way out."""
    with contextlib.suppress(EOFError, OSError):
        while True:
            lifeline.recv()
    os.kill(os.getpid(), signal.SIGTERM)


def _worker(
    jobs: mp.Queue[GameJob | None],
    results: mp.Queue[JobResult],
    lifeline: Connection,
    keep_bots: int,
) -> None:
    """A game worker: a supervisor (:func:`arena.runner.supervise.supervise`) whose child plays
    the games, so that nothing it starts outlives it, even when either is SIGKILLed (a sandbox
    caught being set up included). SIGTERM to the supervisor reaches the child."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)
    code = supervise(lambda: _play_jobs(jobs, results, lifeline, keep_bots))
    if code:
        raise SystemExit(code)


def _play_jobs(
    jobs: mp.Queue[GameJob | None],
    results: mp.Queue[JobResult],
    lifeline: Connection,
    keep_bots: int,
) -> int:
    """The games of one worker, in the supervisor's child (which keeps the supervisor's
    SIGINT and SIGTERM settings across the fork)."""
    threading.Thread(target=_watch_lifeline, args=(lifeline,), daemon=True).start()
    # Bot processes wait here between this worker's games (start-up and handshake are most of
    # a short game's cost); they are stopped when the worker stops, however it stops.
    # One stable per sandbox setting, made at the first job that asks for it (the tournament
    # has checked that the sandbox works before handing out jobs).
    stables: dict[str, Stable] = {}
    try:
        while True:
            job = _next_job(jobs)
            if job is None:
                # The child ends with os._exit: first let the queue's feeder thread hand
                # over the last results.
                results.close()
                results.join_thread()
                return 0
            stable = stables.get(job.sandbox)
            if stable is None:
                stable = stables[job.sandbox] = Stable(keep=keep_bots, sandbox=job.sandbox)
            result = play_job(job, stable)
            results.put(dataclasses.replace(result, kept=tuple(stable.idle)))
    finally:
        for stable in stables.values():
            stable.close()


def _next_job(jobs: mp.Queue[GameJob | None]) -> GameJob | None:
    """The next job (None: stop), waking every :data:`JOB_WAIT_S` so that a signal reaches the
    main thread's handler however it was delivered."""
    while True:
        with contextlib.suppress(queue.Empty):
            return jobs.get(timeout=JOB_WAIT_S)


class LocalExecutor(Executor):
    """``workers`` worker processes on this machine, each fed through a queue of its own. Each
    keeps up to ``keep_bots`` bot processes between its games (0: a fresh process for every
    game), and each game goes to the free worker that keeps most of its bots, as the workers'
    results last reported (:func:`arena.runner.affinity.choose_worker`)."""

    def __init__(self, workers: int, keep_bots: int = KEEP_BOTS_PER_WORKER) -> None:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["arena.runner.referee", "arena.runner.executor"])
        self._jobs: list[mp.Queue[GameJob | None]] = [ctx.Queue() for _ in range(workers)]
        self._results: mp.Queue[JobResult] = ctx.Queue()
        # The write end stays here alone; workers see EOF on the read end when we die.
        lifeline, self._lifeline = ctx.Pipe(duplex=False)
        self._procs = [
            ctx.Process(target=_worker, args=(jobs, self._results, lifeline, keep_bots),
                        daemon=True)
            for jobs in self._jobs
        ]
        for proc in self._procs:
            proc.start()
        self._closed = False
        self._kept: list[frozenset[str]] = [frozenset()] * workers  # as last reported
        self._given: dict[str, tuple[int, tuple[str, ...]]] = {}  # game id: worker, bots

    @property
    def capacity(self) -> int:
        return len(self._procs)

    def worker_views(self) -> dict[int, WorkerView]:
        """What each worker keeps idle (as its last result said) and plays now."""
        views = {}
        for w, kept in enumerate(self._kept):
            games = [bots for worker, bots in self._given.values() if worker == w]
            views[w] = WorkerView(kept=kept, busy=len(games),
                                  playing=frozenset(b for bots in games for b in bots))
        return views

    def submit(self, job: GameJob) -> None:
        bots = job.pairing.bots
        views = self.worker_views()
        worker = choose_worker(bots, views)
        if worker is None:  # beyond capacity (the tournament never is): the least busy
            worker = min(views, key=lambda w: (views[w].busy, w))
        self._given[job.pairing.game_id] = (worker, bots)
        self._jobs[worker].put(job)

    def poll(self, timeout_s: float) -> list[JobResult]:
        out: list[JobResult] = []
        try:
            out.append(self._results.get(timeout=timeout_s))
            while True:
                out.append(self._results.get_nowait())
        except queue.Empty:
            pass
        for r in out:
            given = self._given.pop(r.game_id, None)
            if given is not None:
                self._kept[given[0]] = frozenset(r.kept)
        dead = [p for p in self._procs if not p.is_alive()]
        if dead and not self._closed:
            raise RuntimeError(
                f"a game worker (pid {dead[0].pid}) died with exit code {dead[0].exitcode}"
            )
        return out

    def shutdown(self, abandon: bool) -> None:
        if self._closed:
            return
        self._closed = True
        if abandon:
            for proc in self._procs:
                if proc.is_alive() and proc.pid is not None:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(proc.pid, signal.SIGTERM)
        else:
            for jobs in self._jobs:
                jobs.put(None)
        for proc in self._procs:
            proc.join(timeout=15)
            if proc.is_alive() and proc.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGKILL)
                proc.join(timeout=5)
        for jobs in self._jobs:
            jobs.cancel_join_thread()
        self._results.cancel_join_thread()


def record_file(folder: Path, game_id: str) -> Path:
    """Where a game's record is written: ``<output>/games/<game_id>.json``."""
    return folder / RECORDS / f"{game_id}.json"
