"""Where games run. The tournament talks to an :class:`Executor`; the local one runs each game
in one of a fixed set of worker processes on this machine. A cluster executor can implement the
same four methods without the scheduler or the tournament loop changing.

A job (:mod:`arena.runner.play.job`) is plain data; a worker plays it and sends back a
:class:`~arena.runner.play.job.JobResult` with the game as it was played and the bots it now
keeps idle, and the executor files it on the organiser's side
(:func:`~arena.runner.play.job.file_result`), so records and the journal are written on one
machine by one process, and a worker never writes into the tournament's folder. Each game goes
to the free worker that keeps most of its bots (:mod:`arena.runner.play.affinity`). Workers
ignore SIGINT (the tournament decides what Ctrl-C means); SIGTERM makes a worker kill its
game's bots and exit, and so does the runner's death, however it dies (a lifeline pipe). Each
worker is a supervisor and a child that plays (:mod:`arena.runner.play.supervise`), so a worker
SIGKILLed, either process of it, leaves nothing it started running.

A worker that dies anyway (the out-of-memory killer, a crash in a native library) costs only
the game it was playing: the executor starts another in its place and plays that game again,
as a Dask scheduler does with a game lost with its worker, so an unattended tournament or
league goes on. A game that keeps losing its worker is void, and the caller's void policy
decides what follows.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing as mp
import multiprocessing.connection as mp_connection
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Protocol, runtime_checkable

from arena.protocol import scratch
from arena.protocol.wire import sweep_doors
from arena.runner.game.stable import Stable
from arena.runner.play.affinity import MIN_KEEP, WorkerView, choose_worker
from arena.runner.play.job import (
    GameJob,
    JobResult,
    JobStatus,
    check_job,
    file_result,
    referee_job,
)
from arena.runner.play.supervise import supervise

# The temporary folder is found here, in the fork server that preloads this module, so that
# every worker inherits it: Python finds it by writing a probe file and removing it at once,
# and a worker stopped between the two (Ctrl-C, SIGTERM) would leave that file behind.
tempfile.gettempdir()

#: The fewest idle bot processes a worker keeps for its next games (one per bot, oldest stopped
#: first) when it keeps any; a tournament sizes it to memory
#: (:func:`arena.runner.play.affinity.keep_for_memory`).
KEEP_BOTS_PER_WORKER = MIN_KEEP
#: How long a worker waits for its next job at a time. A SIGTERM the kernel hands to another of
#: the worker's threads is acted on (by the main thread) only when the main thread wakes: a
#: wait without end could miss it, and the runner then waits 15 s before it SIGKILLs.
JOB_WAIT_S = 0.2
#: How often a game is handed out again after losing its worker before it is void: as often
#: as a Dask scheduler does by default (its ``allowed-failures``), so a game that kills every
#: worker it reaches is void after the same number of losses on either executor.
LOST_RETRIES = 3
#: How many workers may die one after another, with no game finished meanwhile, before the
#: executor gives up: workers that cannot even start would otherwise be replaced for ever.
DEATHS_IN_A_ROW = 10


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
        """Games started again by the executor itself since the last call (a game lost with
        its worker is played again): each is one more attempt for the journal. None by
        default."""
        return []

    def notices(self) -> list[str]:
        """What the executor has to say about its workers since the last call (a worker
        replaced, a cluster's worker left out), a line each. Nothing by default."""
        return []

    def start_problems(self, checks: Sequence[GameJob]) -> list[str] | None:
        """Start each bot of ``checks`` (a job per bot, which seats it alone) once where the
        games will run, and return why each that could not start failed (empty: all did);
        None (the default): the organiser checks the bots itself, in its own process."""
        return None


@runtime_checkable
class Dispatching(Executor, Protocol):
    """An executor that also tells what its workers keep: the tournament then starts, among
    the first queued games, the one whose bots a free worker keeps most of
    (:func:`arena.runner.play.affinity.choose_game`), and ``submit`` sends it to that worker."""

    def worker_views(self) -> Mapping[int, WorkerView] | Mapping[str, WorkerView]:
        ...


def _on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _stop_again(unraisable: sys.UnraisableHookArgs) -> None:
    """A SIGTERM's SystemExit raised where Python cannot let an exception out (a weakref
    callback run by an import, a ``__del__``) is swallowed there, and the worker would play
    on. Raise it again 10 ms later, from a one-shot timer (SIGALRM), by when this hook and
    what called it are done, and print nothing of it. Any other such exception is printed as
    Python does."""
    if not isinstance(unraisable.exc_value, SystemExit):
        sys.__unraisablehook__(unraisable)
        return
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, 0.01)


def _on_alarm(signum: int, frame: object) -> None:
    _on_sigterm(signal.SIGTERM, frame)


def _watch_lifeline(lifeline: Connection) -> None:
    """Wait for the runner to die: only the runner holds the write end of the lifeline, so
    EOF means it is gone (even by SIGKILL). Then stop this worker like a SIGTERM would: the
    game in progress kills its bots on the way out."""
    with contextlib.suppress(EOFError, OSError):
        while True:
            lifeline.recv()
    os.kill(os.getpid(), signal.SIGTERM)


def _worker(jobs: Connection, results: Connection, lifeline: Connection, keep_bots: int) -> None:
    """A game worker: a supervisor (:func:`arena.runner.play.supervise.supervise`) whose child plays
    the games, so that nothing it starts outlives it, even when either is SIGKILLed (a sandbox
    caught being set up included). SIGTERM to the supervisor reaches the child."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)
    sys.unraisablehook = _stop_again
    code = supervise(lambda: _play_jobs(jobs, results, lifeline, keep_bots))
    if code:
        raise SystemExit(code)


def _play_jobs(jobs: Connection, results: Connection, lifeline: Connection,
               keep_bots: int) -> int:
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
                return 0
            stable = stables.get(job.sandbox)
            if stable is None:
                stable = stables[job.sandbox] = Stable(keep=keep_bots, sandbox=job.sandbox)
            result = check_job(job, stable) if job.check else referee_job(job, stable)
            results.send(dataclasses.replace(result, kept=tuple(stable.idle)))
    finally:
        # Not cut short by a second SIGTERM: the lifeline's watcher sends one when the runner
        # is gone, and a runner stopped with its process group dies beside this worker.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.setitimer(signal.ITIMER_REAL, 0)  # nor by a SIGTERM raised again (_stop_again)
        for stable in stables.values():
            stable.close()


def _next_job(jobs: Connection) -> GameJob | None:
    """The next job (None: stop, or the runner is gone), waking every :data:`JOB_WAIT_S` so
    that a signal reaches the main thread's handler however it was delivered."""
    try:
        while not jobs.poll(JOB_WAIT_S):
            pass
        job: GameJob | None = jobs.recv()
    except (EOFError, OSError):
        return None
    return job


#: The name of the private folder that holds Python's folder for its fork server's socket.
RUN_FOLDER_PREFIX = "arena-run-"


def _fork_server_folder() -> None:
    """Have Python's folder for this process's fork server socket (``pymp-…``, which only a
    normal exit removes) made inside a private folder of this process
    (:func:`arena.protocol.scratch.private_folder`): if the runner is killed outright, the
    next run sweeps both. The private folder itself goes after Python's, at exit. Once a
    process (Python keeps the folder it made), and not where the socket's path would be too
    long for the kernel."""
    import multiprocessing.util as mp_util

    global _fork_server_folder_made
    if _fork_server_folder_made:
        return
    _fork_server_folder_made = True
    ours = scratch.private_folder(RUN_FOLDER_PREFIX)
    made = ""
    if len(os.fsencode(ours)) <= _LONGEST_RUN_FOLDER:
        saved = tempfile.tempdir
        tempfile.tempdir = ours
        try:
            made = mp_util.get_temp_dir()  # Python's, made now unless it was before
        finally:
            tempfile.tempdir = saved
    if os.path.dirname(made) != ours:
        scratch.remove(ours)
        return
    # After Python's own removal of its folder (exit priority -100).
    mp_util.Finalize(None, scratch.remove, args=(ours,), exitpriority=-200)


_fork_server_folder_made = False
#: The longest path of that folder that leaves room for Python's folder and socket in it
#: (``/pymp-xxxxxxxx/listener-xxxxxxxx``) within a unix socket's 107 bytes.
_LONGEST_RUN_FOLDER = 107 - len("/pymp-xxxxxxxx/listener-xxxxxxxx")


def _how_it_ended(exitcode: int | None) -> str:
    """How a worker process ended, from its exit code: a signal that killed the supervisor,
    or one that killed the process playing under it (the supervisor exits with 128 + its
    number), or an exit code."""
    if exitcode is not None and exitcode < 0:
        return f"was killed by {_signal_name(-exitcode)}"
    if exitcode is not None and 128 < exitcode < 128 + signal.NSIG:
        return f"lost its playing process to {_signal_name(exitcode - 128)}"
    return f"ended with exit code {exitcode}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@dataclass
class _Worker:
    """One worker process as the runner holds it: the pipe it reads its jobs from, the pipe
    its results come back on (None once closed), and what it keeps, as it last said."""

    process: BaseProcess
    jobs: Connection
    results: Connection | None
    kept: frozenset[str] = frozenset()


class LocalExecutor(Executor):
    """``workers`` worker processes on this machine, each with a pipe of its own for its jobs
    and one for its results. Each keeps up to ``keep_bots`` bot processes between its games
    (0: a fresh process for every game), and each game goes to the free worker that keeps
    most of its bots, as the workers' results last reported
    (:func:`arena.runner.play.affinity.choose_worker`).

    A worker that dies (the out-of-memory killer, a crash in a native library) is replaced at
    once, and the games it held are handed out again, each counted as restarted
    (:meth:`restarted`); a game that loses its worker more than :data:`LOST_RETRIES` times is
    void, for the caller's void policy. Each replacement is said in :meth:`notices`.

    Only pipes pass between the runner and its workers, no queue: a shared queue's lock, held
    by a worker killed while it wrote, would stop every other worker's results, and a queue's
    named semaphores outlive a runner interrupted at the wrong moment (Python's resource
    tracker then warns of them, or, killed with the runner, leaves them in /dev/shm).
    """

    def __init__(self, workers: int, keep_bots: int = KEEP_BOTS_PER_WORKER) -> None:
        _fork_server_folder()
        self._ctx = mp.get_context("forkserver")
        self._ctx.set_forkserver_preload(
            ["arena.runner.game.referee", "arena.runner.play.executor"])
        self._keep_bots = keep_bots
        # The write end stays here alone; workers see EOF on the read end when we die.
        self._lifeline_r, self._lifeline = self._ctx.Pipe(duplex=False)
        self._closed = False
        self._given: dict[str, tuple[int, GameJob]] = {}  # game id: its worker, the job
        self._losses: dict[str, int] = {}  # game id: how often it lost its worker
        self._again: list[str] = []  # games handed out again since restarted() was called
        self._said: list[str] = []  # notices not yet taken
        self._deaths_in_a_row = 0  # workers lost since a game last finished
        self._workers = [self._start() for _ in range(workers)]

    def _start(self) -> _Worker:
        """Start a worker process. The runner keeps only its ends of the worker's pipes, so a
        dead worker's results pipe ends, and a job sent to it fails, rather than waiting."""
        jobs_r, jobs_w = self._ctx.Pipe(duplex=False)
        results_r, results_w = self._ctx.Pipe(duplex=False)
        process = self._ctx.Process(
            target=_worker, args=(jobs_r, results_w, self._lifeline_r, self._keep_bots),
            daemon=True)
        process.start()
        jobs_r.close()
        results_w.close()
        return _Worker(process, jobs_w, results_r)

    @property
    def capacity(self) -> int:
        return len(self._workers)

    def worker_views(self) -> dict[int, WorkerView]:
        """What each worker keeps idle (as its last result said) and plays now."""
        views = {}
        for w, worker in enumerate(self._workers):
            games = [job.pairing.bots for i, job in self._given.values() if i == w]
            views[w] = WorkerView(kept=worker.kept, busy=len(games),
                                  playing=frozenset(b for bots in games for b in bots))
        return views

    def submit(self, job: GameJob, worker: int | None = None) -> None:
        """Hand ``job`` to ``worker``, or to the worker that keeps most of its bots."""
        w = worker
        if w is None:
            views = self.worker_views()
            w = choose_worker(job.pairing.bots, views)
            if w is None:  # beyond capacity (the tournament never is): the least busy
                w = min(views, key=lambda i: (views[i].busy, i))
        self._given[job.pairing.game_id] = (w, job)
        # A worker that died since the last poll: its games are handed out again once the
        # poll sees it gone.
        with contextlib.suppress(OSError):
            self._workers[w].jobs.send(job)

    def poll(self, timeout_s: float) -> list[JobResult]:
        """Results that have arrived, waiting up to ``timeout_s`` for the first one; a worker
        found dead meanwhile is replaced. Raises RuntimeError when workers keep dying before
        any game finishes (:data:`DEATHS_IN_A_ROW`)."""
        return self._collect(timeout_s)

    def _collect(self, timeout_s: float) -> list[JobResult]:
        watched: list[Connection | int] = [w.process.sentinel for w in self._workers]
        watched += [w.results for w in self._workers if w.results is not None]
        mp_connection.wait(watched, timeout_s)
        out: list[JobResult] = []
        for w in range(len(self._workers)):
            out += self._read(w)
        for w, worker in enumerate(self._workers):
            if not worker.process.is_alive() and not self._closed:
                out += self._read(w)  # what it sent before it died
                out += self._replace(w)
        return out

    def _read(self, w: int) -> list[JobResult]:
        """The results worker ``w`` has sent; its pipe is closed once it ends."""
        worker, out = self._workers[w], []
        while worker.results is not None and worker.results.poll():
            try:
                r: JobResult = worker.results.recv()
            except (EOFError, OSError):  # gone (its process is replaced when it is seen dead)
                worker.results.close()
                worker.results = None
                break
            if self._given.get(r.game_id, (None,))[0] != w:
                continue  # not a game it holds (never so: a pipe is one worker's)
            _, job = self._given.pop(r.game_id)
            self._losses.pop(r.game_id, None)
            self._deaths_in_a_row = 0
            worker.kept = frozenset(r.kept)
            out.append(file_result(job, r))
        return out

    def _replace(self, w: int) -> list[JobResult]:
        """Worker ``w`` is dead: start another in its place, hand its games out again, and
        return those that lost their worker too often as void."""
        dead = self._workers[w]
        pid, ended = dead.process.pid, _how_it_ended(dead.process.exitcode)
        self._deaths_in_a_row += 1
        if self._deaths_in_a_row > DEATHS_IN_A_ROW:
            raise RuntimeError(f"{self._deaths_in_a_row} game workers died one after another "
                               f"without finishing a game; the last (pid {pid}) {ended}")
        for conn in (dead.jobs, dead.results):
            if conn is not None:
                conn.close()
        dead.process.join(timeout=0)
        with contextlib.suppress(ValueError):
            dead.process.close()
        self._workers[w] = self._start()
        sweep_doors()  # the dead worker's, once its playing process is gone too
        held = [job for i, job in self._given.values() if i == w]
        void: list[JobResult] = []
        told: list[str] = []
        for job in held:
            game_id = job.pairing.game_id
            del self._given[game_id]
            lost = self._losses[game_id] = self._losses.get(game_id, 0) + 1
            named = f"game {game_id} ({', '.join(job.pairing.bots)})"
            if lost > LOST_RETRIES:
                del self._losses[game_id]
                void.append(JobResult(game_id, JobStatus.VOID,
                                      f"lost its worker {lost} times; the last (pid {pid}) "
                                      f"{ended}"))
                told.append(f"{named} lost its worker {lost} times: void")
            else:
                self.submit(job)
                if not job.check:  # a start check is no game of the journal's
                    self._again.append(game_id)
                told.append(f"{named} is played again")
        self._said.append(f"a game worker (pid {pid}) {ended}: a new one took its place" +
                          "".join(f"; {t}" for t in told))
        return void

    def start_problems(self, checks: Sequence[GameJob]) -> list[str]:
        """Each bot's start check in a worker, the checks dealt to the workers in turn: a
        worker that keeps bots keeps the process it checked for its games, where a check here
        would start every bot once more. Why each bot that could not start failed."""
        for i, job in enumerate(checks):
            self.submit(dataclasses.replace(job, check=True), worker=i % len(self._workers))
        pending = {job.pairing.game_id for job in checks}
        problems: list[str] = []
        while pending:
            for result in self._collect(1.0):
                if result.game_id in pending:
                    pending.discard(result.game_id)
                    if result.status != JobStatus.DONE:
                        problems.append(result.reason)
        return problems

    def restarted(self) -> list[str]:
        """Games handed out again since the last call because their worker died."""
        again, self._again = self._again, []
        return again

    def notices(self) -> list[str]:
        """A line for each worker replaced since the last call, with what became of its
        games."""
        said, self._said = self._said, []
        return said

    def shutdown(self, abandon: bool) -> None:
        if self._closed:
            return
        self._closed = True
        processes = [w.process for w in self._workers]
        if abandon:
            for proc in processes:
                if proc.is_alive() and proc.pid is not None:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(proc.pid, signal.SIGTERM)
        else:
            for worker in self._workers:
                with contextlib.suppress(OSError):
                    worker.jobs.send(None)
        for proc in processes:
            proc.join(timeout=15)
            if proc.is_alive() and proc.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGKILL)
                proc.join(timeout=5)
        for worker in self._workers:
            for conn in (worker.jobs, worker.results):
                if conn is not None:
                    conn.close()
        self._lifeline.close()
        self._lifeline_r.close()
        sweep_doors()  # of workers killed (here or from outside) since they started
