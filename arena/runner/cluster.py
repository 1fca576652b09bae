"""Games on a Dask cluster: the organiser's side of ``[executor] kind = "dask"``.

The journal, the ratings, the live view and every file of the tournament stay on the
organiser's machine; the games run on the workers (``arena worker``, :mod:`.cluster_worker`)
of a Dask scheduler. :class:`Cluster` connects and checks, with one line for each thing the
user can act on (a wrong address, a scheduler out of reach, versions that differ, no worker
after a wait); :class:`DaskExecutor` is the tournament's executor there:

- **Capacity** is the ``game`` resources of the workers connected now, read as the run goes:
  workers joining or leaving change it; with none, the tournament waits. A worker that joins
  during the run is checked first (its versions, as every worker's are before the run), and
  one that differs is given no game: it is said once (:meth:`DaskExecutor.notices`), and no
  game is voided for it.
- **Dispatch**: each slot of a worker keeps its own bots (they are its thread's children),
  and reports them with each result; a game goes to the free slot that keeps most of its bots
  (:func:`arena.runner.affinity.choose_worker` over one view per slot), restricted to that
  slot's worker but allowed elsewhere, so a worker lost does not strand it; the worker hands
  it to that slot. How many bots a slot keeps is the worker's to size, to its own memory.
- **Bots** are packed once per content (:mod:`arena.runner.shipping`), scattered into the
  cluster once per package and published as a dataset of the run; a worker fetches each once
  and keeps it unpacked on disk. A package lost with the worker that held it is scattered
  again. ``ship_bots = false`` uses the folders' paths as they are.
- **Results** come home in the task's result: the organiser writes the record (atomically)
  and the logs at the paths of a local run, so standings, replay and resume do not change.
- **Faults**: Dask retries a game lost with its worker; each attempt announces itself, and
  :meth:`DaskExecutor.restarted` hands the retries to the journal. A game whose workers keep
  dying (Dask's ``KilledWorker``, after the scheduler's ``allowed-failures``) is void, and a
  result for a game already done is ignored. A game that reached a worker of other versions
  (Dask may place a game anywhere once its chosen worker is gone) is sent again elsewhere.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.runner.affinity import WorkerView, choose_worker
from arena.runner.bots import BotManifest
from arena.runner.config import ExecutorSettings, TournamentConfig
from arena.runner.digest import bot_digest
from arena.runner.executor import Executor, GameJob, JobResult, JobStatus
from arena.runner.shipping import Package, pack
from arena.runner.storage import is_disk_full, write_atomic

if TYPE_CHECKING:
    from arena.runner.cluster_worker import ShippedBot

#: How long connecting to the scheduler may take.
CONNECT_TIMEOUT_S = 8
#: How often the capacity is read from the scheduler, at most.
CAPACITY_EVERY_S = 0.5
#: How long closing a run on the workers may take.
CLOSE_TIMEOUT_S = 30
#: How often a game whose package was lost is sent again before it counts as void.
PACKAGE_RETRIES = 3
#: How long the bots' start checks on the cluster may take, all together.
CHECK_TIMEOUT_S = 300.0
#: What to install for the dask executor.
INSTALL = "install arena[cluster] (pip install 'arena[cluster]') on this machine and the workers"


class ClusterError(RuntimeError):
    """The cluster cannot be used; the message is one line saying why and what to do."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"the dask executor needs Dask, which is not installed: "
                           f"{INSTALL}") from None
    return distributed


class Cluster:
    """A connection to a Dask scheduler whose workers play games."""

    def __init__(self, client: Any, settings: ExecutorSettings) -> None:
        self.client = client
        self.settings = settings
        self.address = settings.address
        #: the game workers checked and found alike, by address: their slots
        self._listing: tuple[float, dict[str, int]] = (-CAPACITY_EVERY_S, {})
        self.good: set[str] = set()  #: game workers checked and found alike, connected now
        #: game workers left out, connected now: why, in one line
        self.excluded: dict[str, str] = {}
        self._notices: list[str] = []

    @classmethod
    def connect(cls, settings: ExecutorSettings,
                say: Callable[[str], None] = lambda text: None,
                stopped: Callable[[], bool] = lambda: False) -> Cluster:
        """Connect, check the versions of the scheduler and of every worker against this
        machine's, and wait (up to the settings' ``wait_for_workers_s``, ``say``-ing so, or
        until ``stopped()``) for a worker. Raises :class:`ClusterError`."""
        from arena.runner.cluster_worker import unreachable, versions

        distributed = _distributed()
        # Dask logs each failed connection attempt, and a lost scheduler with a traceback;
        # the organiser says each once, in a line of its own (the workers log Dask's).
        for name in ["distributed", *logging.root.manager.loggerDict]:
            if name.split(".")[0] == "distributed":
                logging.getLogger(name).setLevel(logging.CRITICAL)
        try:
            client = distributed.Client(settings.address, timeout=f"{CONNECT_TIMEOUT_S}s",
                                        set_as_default=False)
        except (OSError, TimeoutError):
            raise ClusterError(unreachable(settings.address, CONNECT_TIMEOUT_S)) from None
        cluster = cls(client, settings)
        try:
            mine = versions()
            scheduler = client.get_versions(check=False)["scheduler"]["packages"]
            theirs = {k: _major_minor(scheduler.get(k)) if k == "python" else scheduler.get(k)
                      for k in ("python", "dask", "distributed")}
            problem = cluster._differ(f"the scheduler at {settings.address}", theirs, mine)
            if problem:
                raise ClusterError(problem)
            cluster._wait_for_workers(say, stopped)
            cluster.check_workers()
        except BaseException:
            client.close()
            raise
        return cluster

    @staticmethod
    def _differ(who: str, theirs: dict[str, Any], mine: dict[str, str]) -> str:
        """The one line saying how ``theirs`` differ from this machine's versions, or ""."""
        differ = [f"{k} {theirs.get(k)}, this machine {v}" for k, v in mine.items()
                  if k in theirs and theirs.get(k) != v]
        if not differ:
            return ""
        return (f"{who} has {'; '.join(differ)}: install the same versions on every machine "
                "of the cluster")

    def _wait_for_workers(self, say: Callable[[str], None], stopped: Callable[[], bool]) -> None:
        wait_s = self.settings.wait_for_workers_s
        deadline = time.monotonic() + wait_s
        said = False
        while not self._any_game_worker():
            if stopped():
                raise ClusterError(f"stopped while waiting for workers at {self.address}; "
                                   "no game was played")
            if time.monotonic() >= deadline:
                raise ClusterError(
                    f"no worker connected to the Dask scheduler at {self.address} within "
                    f"{wait_s} s: start one with `arena worker {self.address}`")
            if not said:
                say(f"waiting up to {wait_s} s for workers at {self.address} (start one with"
                    f" `arena worker {self.address}`)")
                said = True
            time.sleep(0.25)

    def workers(self) -> dict[str, dict[str, Any]]:
        """The workers connected now, by address, as the scheduler describes them."""
        workers: dict[str, dict[str, Any]] = self.client.scheduler_info(n_workers=-1).get(
            "workers", {})  # none while the connection is lost
        return workers

    def _game_workers(self) -> dict[str, int]:
        """The workers connected now that play games, by address: their slots."""
        return {a: int(n) for a, w in self.workers().items()
                if (n := w.get("resources", {}).get("game", 0)) >= 1}

    def _any_game_worker(self) -> bool:
        try:
            return bool(self._game_workers())
        except Exception:
            return False  # the scheduler is out of reach for now

    def slots(self) -> dict[str, int]:
        """The workers that may be given games, by address: their slots. Read at most every
        :data:`CAPACITY_EVERY_S`; each worker seen for the first time is checked first (see
        :meth:`_check`): one that differs is left out, and said once."""
        at, value = self._listing
        now = time.monotonic()
        if now - at >= CAPACITY_EVERY_S:
            try:
                value = self._read()
            except Exception:
                value = {}  # the scheduler is out of reach: no worker can take a game
            self._listing = (now, value)
        return value

    def _read(self) -> dict[str, int]:
        workers = self._game_workers()
        self.good &= set(workers)  # a worker back at the same address is checked again
        self.excluded = {a: why for a, why in self.excluded.items() if a in workers}
        new = [a for a in workers if a not in self.good and a not in self.excluded]
        if new:
            self._check(new, strict=False)
        return {a: n for a, n in workers.items() if a in self.good}

    def capacity(self) -> int:
        """How many games the workers that may be given games can play at once."""
        return sum(self.slots().values())

    def check_workers(self) -> None:
        """Every game worker connected now has this machine's versions. Raises
        :class:`ClusterError`."""
        self._check(list(self._game_workers()), strict=True)
        self._listing = (-CAPACITY_EVERY_S, {})

    def _check(self, addresses: list[str], strict: bool) -> None:
        """Ask the workers at ``addresses`` what they are. One that has this machine's
        versions joins :attr:`good`; one that cannot say (gone, or not answering) is asked
        again at the next reading; one that differs, or cannot run Arena's games, raises
        :class:`ClusterError` if ``strict``, else is left out (:attr:`excluded`) and said
        once."""
        from distributed.comm.core import CommClosedError

        from arena.runner.cluster_worker import describe_worker, versions

        found = self.client.run(describe_worker, workers=addresses, on_error="return")
        for address in addresses:
            info = found.get(address)
            if info is None or isinstance(info, (OSError, TimeoutError, CommClosedError)):
                continue
            if isinstance(info, BaseException):
                problem = (f"worker {address} cannot run Arena's games "
                           f"({_first_line(info)}): {INSTALL}")
            elif not info.get("arena"):
                problem = (f"worker {address} has game slots but is not an `arena worker`: "
                           f"start it with `arena worker {self.address}`")
            else:
                problem = self._differ(f"worker {info['name'] or address}", info["versions"],
                                       versions())
            if not problem:
                self.good.add(address)
            elif strict:
                raise ClusterError(problem)
            else:
                self.exclude(address, problem)

    def exclude(self, address: str, problem: str) -> None:
        """Give the worker at ``address`` no more games (``problem`` says why, in one line
        that is said once)."""
        self.good.discard(address)
        if address not in self.excluded:
            self.excluded[address] = problem
            self._notices.append(f"{problem}; until then it is given no game")
        self._listing = (self._listing[0], {a: n for a, n in self._listing[1].items()
                                            if a != address})

    def notices(self) -> list[str]:
        """What was said about the workers since the last call, a line each."""
        out, self._notices = self._notices, []
        return out

    def executor_factory(self, config: TournamentConfig) -> Callable[[int, int], Executor]:
        """The tournament's executor factory: games on this cluster, with the bots of
        ``config`` as the file names them (before any local build)."""
        bots = list(config.bots)
        return lambda concurrency, keep: DaskExecutor(self, bots, keep)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close(timeout=CLOSE_TIMEOUT_S)


def connected_factory(config: TournamentConfig) -> Callable[[int, int], Executor]:
    """An executor factory that connects when the run starts (and disconnects at its end)."""
    bots = list(config.bots)

    def make(concurrency: int, keep: int) -> Executor:
        return DaskExecutor(Cluster.connect(config.executor), bots, keep, owns_cluster=True)

    return make


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _major_minor(version: Any) -> str | None:
    return ".".join(str(version).split(".")[:2]) if version else None


class DaskExecutor(Executor):
    """The tournament's executor on a Dask cluster (see the module's doc)."""

    def __init__(self, cluster: Cluster, bots: Sequence[BotManifest], keep: int,
                 owns_cluster: bool = False) -> None:
        """``keep``: 0 for fresh bot processes every game; otherwise the workers keep bots,
        as many as each one's memory allows."""
        from arena.runner.cluster_worker import versions

        self.cluster = cluster
        self.client = cluster.client
        self.reuse = keep > 0
        self.owns_cluster = owns_cluster
        self.run = uuid.uuid4().hex
        self.topic = f"arena-attempts-{self.run}"
        self.versions = versions()
        self._attempts: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._tokens: dict[str, set[str]] = {}  # task key -> its attempts
        self._games: dict[str, str] = {}  # task key -> game id
        self._in_flight: dict[str, tuple[GameJob, Any, int]] = {}  # task key -> job, future
        #: task key -> the slot it was sent to (None: no choice), the bots it seats
        self._given: dict[str, tuple[tuple[str, int] | None, tuple[str, ...]]] = {}
        #: the bots each slot keeps idle, by (worker address, slot), as its last result said
        self._kept: dict[tuple[str, int], frozenset[str]] = {}
        self._parked: list[tuple[GameJob, int]] = []  # games for which no worker may be used
        self._finished: set[str] = set()
        self._submissions = 0
        self._log_dir: Path | None = None
        self._closed = False
        self._lost = ""  # why the cluster cannot be used any more
        self._packages: dict[str, Package] = {}  # by dataset name
        self._scattered: dict[str, Any] = {}  # dataset name -> future
        self.bots: dict[str, ShippedBot] = {}
        for bot in bots:
            self._ship(bot.name, bot)
        try:
            self.client.subscribe_topic(self.topic, self._attempts.put)
            self._scatter(list(self._packages))
        except Exception as exc:
            self.shutdown(abandon=True)
            raise ClusterError(f"could not send the bots to the Dask cluster at "
                               f"{cluster.address}: {_first_line(exc)}") from None

    def _ship(self, name: str, bot: BotManifest) -> str:
        """Make ready to send the bot that plays as ``name``: pack it (unless the workers use
        its folder where it is); returns the package's dataset name, or "" for none."""
        from arena.runner.cluster_worker import ShippedBot

        if not self.cluster.settings.ship_bots:
            self.bots[name] = ShippedBot(bot_digest(bot), str(bot.folder))
            return ""
        package = pack(bot)
        dataset = f"arena-bot-{package.key}-{self.run}"
        self._packages[dataset] = package
        self.bots[name] = ShippedBot(package.key, package.folder, dataset)
        return dataset

    def _scatter(self, datasets: list[str]) -> None:
        """Send packages into the cluster (each to one worker; the others fetch it from
        there) and publish them under the run's dataset names."""
        if not datasets:
            return
        futures = self.client.scatter(
            {f"arena-bot-{self._packages[d].key}": self._packages[d].data for d in datasets},
            hash=False)
        for dataset in datasets:
            future = futures[f"arena-bot-{self._packages[dataset].key}"]
            self._scattered[dataset] = future
            self.client.publish_dataset(**{dataset: future}, override=True)

    def _rescatter_lost(self) -> None:
        lost = [d for d, f in self._scattered.items() if f.status != "finished"]
        self._scatter(lost)

    # ------------------------------------------------------------------ the executor
    @property
    def capacity(self) -> int:
        return self.cluster.capacity()

    def worker_views(self) -> dict[str, WorkerView]:
        """One view per slot of each worker that may be given games (``ADDRESS#SLOT``): the
        bots it keeps idle as its last result said, and the games sent to it and not yet
        back. Slots, not workers: a slot can seat only the bots it keeps itself."""
        slots = self.cluster.slots()
        self._kept = {s: kept for s, kept in self._kept.items() if s[0] in slots}
        games: dict[tuple[str, int], list[tuple[str, ...]]] = {}
        for place, bots in self._given.values():
            if place is not None:
                games.setdefault(place, []).append(bots)
        views = {}
        for address, n in slots.items():
            for slot in range(n):
                given = games.get((address, slot), [])
                views[f"{address}#{slot}"] = WorkerView(
                    kept=self._kept.get((address, slot), frozenset()), busy=len(given),
                    playing=frozenset(b for bots in given for b in bots))
        return views

    def submit(self, job: GameJob, tries: int = 0) -> None:
        from arena.runner.cluster_worker import ClusterJob, play_task

        self._log_dir = Path(job.log_dir)
        bots = job.pairing.bots
        # A bot first seen in a job (a league's, added while it runs) is sent now.
        new = [self._ship(n, BotManifest.load(Path(job.bot_folders[n])))
               for n in bots if n not in self.bots]
        if any(new):
            try:
                self._scatter([d for d in new if d])
            except Exception as exc:  # the scheduler is out of reach: the next poll says so
                self._lost = self._lost or f"{self._lost_message()} ({_first_line(exc)})"
                return
        # To the free slot that keeps most of the game's bots, on its worker unless that one
        # is gone; with no free slot known (the views lag the cluster), wherever Dask likes
        # among the workers that may be given games.
        chosen = choose_worker(bots, self.worker_views())
        place: tuple[str, int] | None = None
        workers: list[str] | None = None
        if chosen is not None:
            address, _, slot = chosen.rpartition("#")
            place, workers = (address, int(slot)), [address]
        elif self.cluster.excluded:
            workers = sorted(self.cluster.slots())
            if not workers:
                self._parked.append((job, tries))  # sent when one comes
                return
        self._submissions += 1
        key = f"arena-game-{job.pairing.game_id}-{self._submissions}-{self.run}"
        cjob = ClusterJob(job, self.run, self.reuse, {n: self.bots[n] for n in bots},
                          self.versions, self.topic, key, place)
        try:
            self._rescatter_lost()
            future = self.client.submit(play_task, cjob, key=key, resources={"game": 1},
                                        pure=False, retries=0, workers=workers,
                                        allow_other_workers=place is not None)
        except Exception as exc:  # the scheduler is out of reach: the next poll says so
            self._lost = self._lost or f"{self._lost_message()} ({_first_line(exc)})"
            return
        self._in_flight[key] = (job, future, tries)
        self._given[key] = (place, bots)
        self._games[key] = job.pairing.game_id

    def notices(self) -> list[str]:
        """What the run should say about the cluster since the last call (a worker left out),
        a line each."""
        return self.cluster.notices()

    def start_problems(self, checks: Sequence[GameJob]) -> list[str]:
        """Each bot's start check on a worker of the cluster (whichever Dask picks), so that
        the organiser needs neither the bots' runtimes nor the sandbox: why each bot that
        could not start failed, naming the worker."""
        from distributed import wait

        from arena.runner.cluster_worker import ClusterJob, check_task

        futures = []
        for job in checks:
            bot = job.pairing.bots[0]
            key = f"arena-check-{bot}-{self.run}"
            cjob = ClusterJob(job, self.run, False, {bot: self.bots[bot]}, self.versions,
                              self.topic, key)
            futures.append((bot, self.client.submit(
                check_task, cjob, key=key, resources={"game": 1}, pure=False, retries=1,
                workers=sorted(self.cluster.slots()) or None)))
        try:
            with self.client.as_current():
                wait([f for _, f in futures], timeout=CHECK_TIMEOUT_S)
        except TimeoutError:
            pass
        problems = []
        for bot, future in futures:
            if not future.done():
                future.cancel()
                problems.append(f"{bot}: its start check on the cluster did not end within "
                                f"{CHECK_TIMEOUT_S:.0f} s")
                continue
            try:
                result = future.result()
            except Exception as exc:
                problems.append(f"{bot}: its start check on the cluster failed: "
                                f"{type(exc).__name__}: {_first_line(exc)}")
                continue
            if result.status != JobStatus.DONE:
                problems.append(result.reason)
        return problems

    def poll(self, timeout_s: float) -> list[JobResult]:
        """Results that have arrived. Raises RuntimeError once the scheduler is lost for good
        (Dask tries to reconnect for a while first; meanwhile no result arrives)."""
        try:
            return self._poll(timeout_s)
        except Exception as exc:
            if self._lost or self.client.status not in ("running", "connecting"):
                raise RuntimeError(self._lost or self._lost_message()) from None
            raise RuntimeError(f"the Dask cluster failed: {type(exc).__name__}: "
                               f"{_first_line(exc)}") from exc

    def _lost_message(self) -> str:
        return f"lost the connection to the Dask scheduler at {self.cluster.address}"

    def _poll(self, timeout_s: float) -> list[JobResult]:
        from distributed import wait
        from distributed.client import FuturesCancelledError

        if self._lost or self.client.status not in ("running", "connecting"):
            raise ConnectionError(self._lost)
        if self.client.status != "running":  # reconnecting: what became of the games is
            time.sleep(timeout_s)  # not known yet
            return []
        if self.capacity > 0:
            self._rescatter_lost()
        parked, self._parked = self._parked, []
        for job, tries in parked:
            self.submit(job, tries)
        pending = [future for _, future, _ in self._in_flight.values()]
        if not pending:
            time.sleep(timeout_s)
        with contextlib.suppress(TimeoutError, FuturesCancelledError), self.client.as_current():
            wait(pending, timeout=timeout_s, return_when="FIRST_COMPLETED")
        if self.client.status != "running":
            return []  # futures cancelled by a lost connection: see at the next poll
        out: list[JobResult] = []
        for future in [f for f in pending if f.done()]:
            entry = self._in_flight.pop(future.key, None)
            self._given.pop(future.key, None)
            if entry is None:
                continue  # abandoned
            job, _, tries = entry
            result = self._result(job, future, tries)
            if result is None:
                continue  # sent again
            if result.game_id in self._finished:
                continue  # a game is recorded once
            if result.status is JobStatus.DONE:
                self._finished.add(result.game_id)
            out.append(result)
        return out

    def _result(self, job: GameJob, future: Any, tries: int) -> JobResult | None:
        from distributed import KilledWorker

        from arena.runner.cluster_worker import LOST_PACKAGE, WRONG_VERSION

        game_id = job.pairing.game_id
        if future.status == "cancelled":
            return JobResult(game_id, JobStatus.VOID, "the cluster cancelled the game (its "
                             "scheduler restarted or lost it)")
        error = future.exception()
        if isinstance(error, KilledWorker):
            return JobResult(game_id, JobStatus.VOID,
                             f"lost its worker {error.allowed_failures + 1} times (the Dask "
                             f"scheduler's allowed-failures is {error.allowed_failures}); "
                             f"the last was {error.last_worker.name} "
                             f"({error.last_worker.address})")
        if error is not None:
            return JobResult(game_id, JobStatus.ERROR,
                             f"on the cluster: {type(error).__name__}: {error}")
        r = future.result()
        if r.address and r.slot >= 0:
            self._kept[r.address, r.slot] = frozenset(r.kept)
        if r.status == WRONG_VERSION:  # not played: never there again, and elsewhere now
            self.cluster.exclude(r.address, r.reason)
            self.submit(job, tries)
            return None
        if r.status == LOST_PACKAGE:
            if tries < PACKAGE_RETRIES:
                self.submit(job, tries + 1)
                return None
            return JobResult(game_id, JobStatus.VOID, f"on worker {r.worker}: {r.reason}")
        status = JobStatus(r.status)
        try:
            self._write_logs(Path(job.log_dir), r.logs)
            if status is JobStatus.DONE:
                assert r.record is not None
                path = Path(job.record_path)
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, r.record.decode("utf-8"))
        except OSError as exc:
            if not is_disk_full(exc):
                raise
            return JobResult(game_id, JobStatus.DISK_FULL, f"writing {job.record_path}: {exc}")
        return JobResult(game_id, status, r.reason, r.outcome, r.duration_s, r.kept)

    @staticmethod
    def _write_logs(folder: Path, logs: dict[str, bytes]) -> None:
        """Append each log's new bytes to its file under ``folder``."""
        for rel, data in logs.items():
            path = folder / rel
            if folder.resolve() not in path.resolve().parents:
                continue  # not a path a worker of ours sends
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("ab") as f:
                f.write(data)

    def restarted(self) -> list[str]:
        """Games that Dask started again since the last call (their worker was lost): each is
        one more attempt for the journal."""
        again: list[str] = []
        with contextlib.suppress(queue.Empty):
            while True:
                _, event = self._attempts.get_nowait()
                tokens = self._tokens.setdefault(event["key"], set())
                if tokens and event["attempt"] not in tokens and event["key"] in self._games:
                    again.append(self._games[event["key"]])
                tokens.add(event["attempt"])
        return again

    def shutdown(self, abandon: bool) -> None:
        if self._closed:
            return
        self._closed = True
        from arena.runner.cluster_worker import abort_run, close_run

        try:
            futures = [f for _, f, _ in self._in_flight.values()]
            self._in_flight.clear()
            self._given.clear()
            self._parked.clear()
            if futures:
                self.client.cancel(futures, force=True)
            if abandon:
                self.client.run(abort_run, self.run, on_error="return")
            logs = self.client.run(close_run, self.run, on_error="return")
            if self._log_dir is not None:
                for part in logs.values():
                    if isinstance(part, dict):
                        with contextlib.suppress(OSError):
                            self._write_logs(self._log_dir, part)
            self.client.unsubscribe_topic(self.topic)
            for dataset in self._scattered:
                with contextlib.suppress(Exception):
                    self.client.unpublish_dataset(dataset)
            self._scattered.clear()
        except Exception:  # the scheduler is gone: there is nothing left to stop through it
            pass
        finally:
            if self.owns_cluster:
                self.cluster.close()
