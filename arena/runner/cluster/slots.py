"""The slots of an ``arena worker``: threads that live as long as the process and play one
game at a time each, keeping each run's bot processes between its games, with the bots' files
ready on the worker (see :mod:`arena.runner.cluster.worker`)."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import queue
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena.protocol import scratch
from arena.runner.cluster.jobs import ClusterJob, ShippedBot, WorkerResult
from arena.runner.cluster.shipping import unpack, unpacked
from arena.runner.game.build import built
from arena.runner.game.manifest import BotManifest
from arena.runner.game.processes import RunningBot
from arena.runner.game.sandbox import SandboxError
from arena.runner.game.stable import Stable
from arena.runner.play.affinity import WorkerView, available_memory, choose_worker, keep_for_memory
from arena.runner.play.job import JobStatus, referee_job

#: A slot closes a run's kept bots after this long without a game of it (its organiser gone).
STALE_S = 120.0
#: How long a worker waits for a bot's package from the cluster.
FETCH_TIMEOUT_S = 300.0


class LostPackage(Exception):
    """A bot's package could not be had from the cluster."""


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


#: The name of every worker's scratch folder begins with this.
WORKER_PREFIX = "arena-worker-"


class SlotPool:
    """The slots of one worker process, and the bots' files it has ready."""

    def __init__(self, slots: int, name: str, cache: Path) -> None:
        self.name = self.label = name
        self.address = ""  #: this worker's, once it has connected
        self.cache = cache
        self.scratch = Path(scratch.private_folder(WORKER_PREFIX))
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
        scratch.remove(str(self.scratch))


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
