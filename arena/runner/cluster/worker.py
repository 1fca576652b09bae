"""The worker side of a tournament on a Dask cluster: ``arena worker``.

A worker is a ``distributed.Worker`` in this process with ``slots`` threads and as many
``game`` resources; each game task asks for one, so a worker plays at most ``slots`` games at
once. Bot processes are started with a parent-death signal (:mod:`arena.runner.game.processes`),
which fires when the *thread* that started them ends, so games are not played on Dask's task
threads: the worker owns ``slots`` slot threads that live as long as the process, each with
its bot processes kept between games (a :class:`~arena.runner.game.stable.Stable` per run, as a
local worker process keeps its own, as many as :func:`~arena.runner.play.affinity.keep_for_memory`
gives this machine's available memory shared among the slots). A task hands its game to the
free slot the organiser chose for it, or else to the free slot that keeps most of its bots,
and waits; the result says which bots that slot keeps now, for the organiser's next choices
(:mod:`arena.runner.play.affinity`). However
the worker process ends, SIGKILL included, its bots die with it: the parent-death signal
kills each bot, or its sandbox's bwrap, whose init then takes everything inside along.

A game task (:func:`play_task`) first announces its attempt to the organiser (an event on the
run's topic: Dask retries a task lost with a worker without telling anyone, and the journal
counts every attempt); then it finds each bot's files, fetching and unpacking a shipped
package once per worker (:mod:`arena.runner.cluster.shipping`) and running its build step once;
then a slot plays the game with :func:`arena.runner.play.executor.referee_job`, writing the
bots' logs into a scratch folder of the run. The result carries the game as it was played
(its record and its seats' results) and the logs' new bytes home, where the organiser files
it as it files a local worker's; the worker writes nothing into the organiser's folder.

The organiser ends a run on the workers with :func:`close_run` (stop its kept bots, send the
rest of their logs) and abandons it with :func:`abort_run` (kill the bots of its games in
progress). A run whose organiser vanished is closed by the slots after :data:`STALE_S`
without a game.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import os
import queue
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import arena
from arena.runner.cluster.shipping import ShippingError, cache_root, unpack, unpacked
from arena.runner.game.build import BuildError, built
from arena.runner.game.manifest import BotManifest, ManifestError
from arena.runner.game.processes import RunningBot
from arena.runner.game.sandbox import SandboxError
from arena.runner.game.stable import Stable
from arena.runner.play.affinity import WorkerView, available_memory, choose_worker, keep_for_memory
from arena.runner.play.executor import GameJob, JobStatus, Played, referee_job

#: A slot closes a run's kept bots after this long without a game of it (its organiser gone).
STALE_S = 120.0
#: How long a worker waits for a bot's package from the cluster.
FETCH_TIMEOUT_S = 300.0
#: How long ``arena worker`` tries to reach its scheduler.
CONNECT_TIMEOUT_S = 10.0
#: A game that found its bot's package lost with a worker (the organiser sends it again).
LOST_PACKAGE = "lost_package"
#: A game that reached a worker whose versions differ from the organiser's, not played (the
#: organiser leaves that worker out and sends the game to another).
WRONG_VERSION = "wrong_version"


def unreachable(address: str, seconds: float) -> str:
    """The one line for a scheduler that does not answer."""
    return (f"cannot reach the Dask scheduler at {address} within {seconds:.0f} s: start one "
            "there (dask scheduler), or check the address and that its port is open to this "
            "machine")


def versions() -> dict[str, str]:
    """What the organiser, the scheduler and every worker must have alike."""
    import dask
    import distributed

    return {"arena": arena.__version__, "python": "{}.{}".format(*sys.version_info[:2]),
            "dask": dask.__version__, "distributed": distributed.__version__}


@dataclass(frozen=True)
class ShippedBot:
    """Where a worker finds one bot: ``folder`` inside the package ``key`` (its archive in
    the cluster's dataset ``dataset``), or, with no dataset, ``folder`` as it is (a file
    system the workers share; ``key`` is then the bot's content digest)."""

    key: str
    folder: str
    dataset: str = ""


@dataclass(frozen=True)
class ClusterJob:
    """A game for a worker: the job as the organiser made it (its paths are the
    organiser's), the run it belongs to, and where the bots come from."""

    job: GameJob
    run: str
    #: whether slots keep bot processes between the run's games (how many is the worker's
    #: to say: sized to its memory)
    reuse: bool
    bots: dict[str, ShippedBot]
    versions: dict[str, str]
    topic: str  #: where the task announces each attempt
    key: str  #: the task's key, named in the announcements
    #: where the organiser meant the game to be played: a worker's address and its slot (a
    #: game Dask placed elsewhere, or one sent with no choice, goes to the best free slot)
    slot: tuple[str, int] | None = None


@dataclass(frozen=True)
class WorkerResult:
    """What a game task returns: a :class:`~arena.runner.play.executor.JobStatus` value (or
    :data:`LOST_PACKAGE`, :data:`WRONG_VERSION`), the game :class:`Played` if it was, and
    each bot log's new bytes by its path under the run's ``logs`` folder; and where it was
    played (the worker's address and slot, -1 for none) and which of the run's bots that slot
    keeps idle now."""

    game_id: str
    status: str
    worker: str
    reason: str = ""
    played: Played | None = None
    duration_s: float = 0.0
    logs: dict[str, bytes] = field(default_factory=dict)
    address: str = ""
    slot: int = -1
    kept: tuple[str, ...] = ()
    #: a bot's checks (:mod:`arena.runner.cluster.checks`): name, passed, detail and its log's
    #: path among ``logs`` (or None)
    checks: tuple[tuple[str, bool, str, str | None], ...] = ()


class LostPackage(Exception):
    """A bot's package could not be had from the cluster."""


#: The slots of the ``arena worker`` running in this process.
_POOL: SlotPool | None = None


def worker_pool() -> SlotPool | None:
    """The slots of the ``arena worker`` running in this process (None in any other)."""
    return _POOL


def refusal(pool: SlotPool | None, cjob: ClusterJob, what: str,
             address: str) -> WorkerResult | None:
    """Why this worker takes no task of ``cjob`` (``what``: its game id or bot): it is not an
    ``arena worker``, or its versions differ from the organiser's; None if it takes it."""
    if pool is None:
        return WorkerResult(what, JobStatus.ERROR, address,
                            "this Dask worker was not started by `arena worker`",
                            address=address)
    mine = versions()
    differ = [f"{k} {mine.get(k)} (the organiser has {v})" for k, v in cjob.versions.items()
              if mine.get(k) != v]
    if differ:
        return WorkerResult(what, WRONG_VERSION, pool.label,
                            f"worker {pool.label} has {', '.join(differ)}: install the same "
                            "versions on every machine", address=address)
    return None


def play_task(cjob: ClusterJob) -> WorkerResult:
    """The game task, run by Dask on one of the worker's task threads."""
    from distributed import get_worker

    game_id = cjob.job.pairing.game_id
    pool = _POOL
    address = get_worker().address
    if pool is not None:
        get_worker().log_event(cjob.topic, {"key": cjob.key, "attempt": uuid.uuid4().hex})
    refused = refusal(pool, cjob, game_id, address)
    if refused is not None or pool is None:
        return refused or WorkerResult(game_id, JobStatus.ERROR, address)
    try:
        manifests = pool.bot_manifests(cjob)
    except LostPackage as exc:
        return WorkerResult(game_id, LOST_PACKAGE, pool.label, str(exc), address=address)
    except (ShippingError, BuildError, ManifestError, OSError) as exc:
        return WorkerResult(game_id, JobStatus.VOID, pool.label,
                            f"on worker {pool.label}: {exc}", address=address)
    return dataclasses.replace(pool.play(cjob, manifests), address=address)


async def close_run(run: str) -> dict[str, bytes]:
    """Run by the organiser on every worker when a run ends: stop the run's kept bots and
    return the rest of their logs."""
    pool = _POOL
    return {} if pool is None else await asyncio.to_thread(pool.close_run, run)


async def abort_run(run: str) -> None:
    """Run by the organiser on every worker when a run is abandoned: kill the bots of the
    run's games in progress (those games end at once; their results are discarded)."""
    if _POOL is not None:
        await asyncio.to_thread(_POOL.abort, run)


def describe_worker() -> dict[str, Any]:
    """Run by the organiser on every worker before a run: its versions and name."""
    return {"versions": versions(), "arena": _POOL is not None,
            "name": _POOL.label if _POOL is not None else ""}


# ------------------------------------------------------------------------------ the slots


@dataclass
class _Place:
    """One run's things in one slot: its kept bots, its scratch folder (records and logs),
    how much of each log was sent home, the bot processes it started."""

    stable: Stable
    folder: Path
    keep: int
    sent: dict[str, int] = field(default_factory=dict)
    bots: list[RunningBot] = field(default_factory=list)
    used: float = field(default_factory=time.monotonic)


@dataclass
class _Play:
    cjob: ClusterJob
    manifests: dict[str, BotManifest]
    reply: concurrent.futures.Future[WorkerResult]


@dataclass
class _Close:
    run: str
    reply: concurrent.futures.Future[dict[str, bytes]]


_STOP = None


class _Slot:
    """A thread that plays one game at a time, for as long as the process lives."""

    def __init__(self, pool: SlotPool, index: int) -> None:
        self.pool = pool
        self.index = index
        self.tag = re.sub(r"[^A-Za-z0-9._-]", "_", f"{pool.name}.{index}")
        self.inbox: queue.Queue[_Play | _Close | None] = queue.Queue()
        self.places: dict[str, _Place] = {}  # by run
        #: the bots each run keeps idle here, as of this slot's last game of it (read by the
        #: pool's threads, written by this slot's)
        self.kept: dict[str, frozenset[str]] = {}
        self.free = True  #: no game handed to it (the pool's to change, under its lock)
        self.playing: str | None = None  # the run whose game is in progress
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._serve, name=f"arena-slot-{index}",
                                       daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            while True:
                try:
                    work = self.inbox.get(timeout=STALE_S / 4)
                except queue.Empty:
                    self._sweep()
                    continue
                if work is _STOP:
                    return
                try:
                    if isinstance(work, _Play):
                        work.reply.set_result(self._play(work))
                    else:
                        work.reply.set_result(self._close(work.run))
                except BaseException as exc:
                    work.reply.set_exception(exc)
                self._sweep()
        finally:
            for run in list(self.places):
                self._close(run)

    def _place(self, cjob: ClusterJob) -> _Place:
        place = self.places.get(cjob.run)
        if place is None:
            keep = self.pool.keep() if cjob.reuse else 0
            started: list[RunningBot] = []
            stable = Stable(keep=keep, sandbox=cjob.job.sandbox, on_start=started.append)
            folder = Path(tempfile.mkdtemp(prefix=f"run-{cjob.run[:12]}-", dir=self.pool.scratch))
            place = self.places[cjob.run] = _Place(stable, folder, keep, bots=started)
        place.used = time.monotonic()
        return place

    def _play(self, work: _Play) -> WorkerResult:
        job, label = work.cjob.job, self.pool.label
        game_id = job.pairing.game_id
        try:
            place = self._place(work.cjob)
        except SandboxError as exc:
            return WorkerResult(game_id, JobStatus.VOID, label,
                                f"worker {label} cannot sandbox bots: {exc}")
        here = dataclasses.replace(job, bots=work.manifests,
                                   log_dir=str(place.folder / "logs"))
        with self.lock:
            self.playing = work.cjob.run
        try:
            result = referee_job(here, place.stable)
        finally:
            with self.lock:
                self.playing = None
            place.bots[:] = [b for b in place.bots if b.alive()]
            kept = tuple(place.stable.idle)
            self.kept[work.cjob.run] = frozenset(kept)
        status, reason = result.status, result.reason
        if status is JobStatus.DISK_FULL:  # the worker's disk, not the organiser's
            status, reason = JobStatus.VOID, f"on worker {label}: its disk is full: {reason}"
        elif status is not JobStatus.DONE:
            reason = f"on worker {label}: {reason}"
        return WorkerResult(game_id, status, label, reason, result.played, result.duration_s,
                            self._logs(place), slot=self.index, kept=kept)

    def _logs(self, place: _Place) -> dict[str, bytes]:
        """The bytes each of the run's logs gained since they were last sent, by their path
        under the organiser's ``logs`` folder: a game's own log (no kept processes) at the
        same place as a local run's; a kept process's log, which goes on across games, in a
        folder of this slot's (local runs name theirs by the worker's pid)."""
        out: dict[str, bytes] = {}
        folder = place.folder / "logs"
        if not folder.is_dir():
            return out
        for path in sorted(folder.iterdir()):
            new = path.name not in place.sent  # sent even if empty: the file is there
            start = place.sent.get(path.name, 0)
            with path.open("rb") as f:
                f.seek(start)
                data = f.read()
            if place.keep <= 0:
                path.unlink()  # complete: its process has stopped
                rel = path.name
            else:
                place.sent[path.name] = start + len(data)
                rel = f"{self.tag}/{path.name}"
            if data or new:
                out[rel] = data
        return out

    def _close(self, run: str) -> dict[str, bytes]:
        self.kept.pop(run, None)
        place = self.places.pop(run, None)
        if place is None:
            return {}
        try:
            place.stable.close()
            return self._logs(place)
        finally:
            shutil.rmtree(place.folder, ignore_errors=True)

    def _sweep(self) -> None:
        now = time.monotonic()
        for run, place in list(self.places.items()):
            if now - place.used > STALE_S:
                self._close(run)

    def abort(self, run: str | None) -> None:
        """Kill the bots of this slot's game if it is one of ``run``'s (None: whichever it
        is), from any thread."""
        with self.lock:
            playing = self.playing
            place = self.places.get(playing) if playing and run in (None, playing) else None
        for bot in list(place.bots) if place is not None else ():
            bot.kill()

    def ask(self, work: _Play | _Close) -> None:
        self.inbox.put(work)


class SlotPool:
    """The slots of one worker process, and the bots' files it has ready."""

    def __init__(self, slots: int, name: str, cache: Path) -> None:
        self.name = self.label = name
        self.address = ""  #: this worker's, once it has connected
        self.cache = cache
        self.scratch = Path(tempfile.mkdtemp(prefix="arena-worker-"))
        self.slots = [_Slot(self, i) for i in range(slots)]
        self._turn = threading.Condition()  # guards the slots' ``free``
        #: (package key, sandbox) -> the manifest of its files ready to play
        self._ready: dict[tuple[str, str], BotManifest] = {}
        self._preparing = threading.Lock()

    def bot_manifests(self, cjob: ClusterJob) -> dict[str, BotManifest]:
        """Each bot's manifest on this worker, by the name it plays under: its package
        unpacked, its build step run and its manifest read once per package and sandbox mode,
        then kept for the games that follow (a bot may rewrite its own folder while it
        plays)."""
        sandbox = cjob.job.sandbox
        manifests: dict[str, BotManifest] = {}
        for name, shipped in cjob.bots.items():
            ready = self._ready.get((shipped.key, sandbox))
            if ready is None:
                with self._preparing:
                    ready = self._ready.get((shipped.key, sandbox))
                    if ready is None:
                        ready = self._ready[shipped.key, sandbox] = self._prepare(shipped,
                                                                                  sandbox)
            manifests[name] = ready
        return manifests

    def _prepare(self, shipped: ShippedBot, sandbox: str) -> BotManifest:
        folder = Path(shipped.folder)
        if shipped.dataset:
            files = unpacked(self.cache, shipped.key) or unpack(self.cache, shipped.key,
                                                               _fetch(shipped.dataset))
            folder = files / shipped.folder
        return built(BotManifest.load(folder), sandbox, self.scratch / "build")

    def keep(self) -> int:
        """How many idle bot processes a slot keeps for a run starting now: a share of the
        memory available now, the same for each slot (:func:`keep_for_memory`)."""
        return keep_for_memory(available_memory(), len(self.slots))

    def _choose(self, cjob: ClusterJob) -> _Slot:
        """The free slot for a game (one is free): the one the organiser chose, if it is free
        and on this worker; else the one that keeps most of its bots (the lowest among
        equals)."""
        if cjob.slot is not None:
            address, index = cjob.slot
            if address == self.address and 0 <= index < len(self.slots) and self.slots[index].free:
                return self.slots[index]
        views = {slot.index: WorkerView(kept=slot.kept.get(cjob.run, frozenset()),
                                        busy=0 if slot.free else 1)
                 for slot in self.slots}
        chosen = choose_worker(cjob.job.pairing.bots, views)
        assert chosen is not None
        return self.slots[chosen]

    def play(self, cjob: ClusterJob, manifests: dict[str, BotManifest]) -> WorkerResult:
        # Dask runs at most as many games at once as there are slots (the worker's ``game``
        # resources), so a slot is free at once, but for a moment after another game's end.
        with self._turn:
            self._turn.wait_for(lambda: any(slot.free for slot in self.slots))
            slot = self._choose(cjob)
            slot.free = False
        try:
            reply: concurrent.futures.Future[WorkerResult] = concurrent.futures.Future()
            slot.ask(_Play(cjob, manifests, reply))
            return reply.result()
        finally:
            with self._turn:
                slot.free = True
                self._turn.notify()

    def close_run(self, run: str) -> dict[str, bytes]:
        replies = []
        for slot in self.slots:
            reply: concurrent.futures.Future[dict[str, bytes]] = concurrent.futures.Future()
            slot.ask(_Close(run, reply))
            replies.append(reply)
        logs: dict[str, bytes] = {}
        for reply in replies:
            logs.update(reply.result())
        return logs

    def abort(self, run: str | None) -> None:
        """Kill the bots of the games of ``run`` in progress (None: of every run)."""
        for slot in self.slots:
            slot.abort(run)

    def close(self) -> None:
        """Stop every slot: the games in progress end at once (their results could not be
        delivered any more), and the kept bots are stopped."""
        self.abort(None)
        for slot in self.slots:
            slot.inbox.put(_STOP)
        for slot in self.slots:
            slot.thread.join(timeout=15)
        shutil.rmtree(self.scratch, ignore_errors=True)


def _fetch(dataset: str) -> bytes:
    """A package's archive, from the dataset the organiser published it in."""
    from distributed import get_client

    try:
        client = get_client()
        future = client.get_dataset(dataset)
        if not client.who_has([future]).get(future.key):
            raise LookupError("no worker holds it")  # lost with its worker: the organiser
        data = future.result(timeout=FETCH_TIMEOUT_S)  # sends it again
    except Exception as exc:  # gone with a worker, or the organiser's run ended
        raise LostPackage(f"bot package {dataset} could not be fetched: "
                           f"{type(exc).__name__}: {exc}") from None
    if not isinstance(data, bytes):
        raise LostPackage(f"bot package {dataset} is not an archive")
    return data


# ------------------------------------------------------------------------------ arena worker


async def _probe(address: str, security: Any) -> None:
    """Connect to the scheduler once, as the worker will. Raises ``OSError`` at once for a
    failed TLS handshake, which the worker itself would retry, silent, until it gave up."""
    from distributed.comm import connect
    from distributed.security import Security

    args = (security or Security()).get_connection_args("worker")
    comm = await connect(address, timeout=f"{CONNECT_TIMEOUT_S}s", **args)
    await comm.close()


def run_worker(address: str, slots: int, name: str | None, cache: Path | None,
               say: Callable[[str], None], security: Any = None) -> bool:
    """``arena worker``: serve games from the scheduler at ``address`` until SIGINT or
    SIGTERM (returns True), or until the scheduler goes (returns False). Raises ``OSError``
    if the scheduler cannot be reached. ``security``: Dask's, for TLS (None: Dask's
    configuration)."""
    from distributed import Worker

    global _POOL
    name = name or f"{socket.gethostname()}-{os.getpid()}"
    pool = _POOL = SlotPool(slots, name, cache or cache_root())
    signalled: list[int] = []

    async def serve() -> None:
        await _probe(address, security)
        worker = Worker(address, nthreads=slots, resources={"game": slots}, name=name,
                        death_timeout=CONNECT_TIMEOUT_S, security=security)
        closing: list[asyncio.Future[Any]] = []

        def stop(sig: int) -> None:
            signalled.append(sig)
            closing.append(asyncio.ensure_future(worker.close()))

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop, sig)
        await worker
        pool.address = worker.address
        pool.label = f"{name} ({worker.address})"
        say(f"arena worker {pool.label}: {slots} slot{'s' if slots > 1 else ''} keeping up "
            f"to {pool.keep()} bots{' each' if slots > 1 else ''}, serving {address}")
        await worker.finished()

    try:
        asyncio.run(serve())
    finally:
        with contextlib.suppress(Exception):
            pool.close()
        _POOL = None
    say(f"arena worker {pool.label}: stopped" if signalled else
        f"arena worker {pool.label}: the scheduler at {address} is gone; stopped")
    return bool(signalled)
