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
  (:func:`arena.runner.play.affinity.choose_worker` over one view per slot), restricted to that
  slot's worker but allowed elsewhere, so a worker lost does not strand it; the worker hands
  it to that slot. How many bots a slot keeps is the worker's to size, to its own memory.
- **Bots** are packed once per content (:mod:`arena.runner.cluster.shipping`), scattered into the
  cluster once per package and published as a dataset of the run; a worker fetches each once
  and keeps it unpacked on disk. A package lost with the worker that held it is scattered
  again. ``ship_bots = false`` uses the folders' paths as they are.
- **Results** come home in the task's result: the organiser writes the logs at the paths of a
  local run and files the game as it files a local worker's
  (:func:`arena.runner.play.job.file_result`: the record, then the outcome).
- **Faults**: Dask retries a game lost with its worker; each attempt announces itself, and
  :meth:`DaskExecutor.restarted` hands the retries to the journal. A game whose workers keep
  dying (Dask's ``KilledWorker``, after the scheduler's ``allowed-failures``) is void, and a
  result for a game already done is ignored. A game that reached a worker of other versions
  (Dask may place a game anywhere once its chosen worker is gone) is sent again elsewhere.
"""

from __future__ import annotations

import contextlib
import queue
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.runner.cluster.connect import (
    Cluster,
    ClusterError,
    first_line,
)
from arena.runner.cluster.shipping import Package, pack
from arena.runner.game.checkbot import Check
from arena.runner.game.digest import bot_digest
from arena.runner.game.disk import is_disk_full
from arena.runner.game.manifest import BotManifest
from arena.runner.play.affinity import WorkerView, choose_worker
from arena.runner.play.executor import Executor
from arena.runner.play.job import GameJob, JobResult, JobStatus, file_result

if TYPE_CHECKING:
    from arena.runner.cluster.jobs import ShippedBot

#: How often a game whose package was lost is sent again before it counts as void.
PACKAGE_RETRIES = 3
#: How long the bots' start checks on the cluster may take, all together.
CHECK_TIMEOUT_S = 300.0


def executor_factory(cluster: Cluster,
                     bots: Sequence[BotManifest] = ()) -> Callable[[int, int], Executor]:
    """A run's executor factory on a connected ``cluster``: games on it, with ``bots`` sent
    ahead (a tournament's as its file names them, before any local build; others as a job
    first needs them)."""
    shipped = list(bots)
    return lambda concurrency, keep: DaskExecutor(cluster, shipped, keep)


class DaskExecutor(Executor):
    """The tournament's executor on a Dask cluster (see the module's doc)."""

    def __init__(self, cluster: Cluster, bots: Sequence[BotManifest], keep: int) -> None:
        """``keep``: 0 for fresh bot processes every game; otherwise the workers keep bots,
        as many as each one's memory allows."""
        from arena.runner.cluster.jobs import versions

        self.cluster = cluster
        self.client = cluster.client
        self.reuse = keep > 0
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
                               f"{cluster.address}: {first_line(exc)}") from None

    def _ship(self, name: str, bot: BotManifest) -> str:
        """Make ready to send the bot that plays as ``name``: pack it (unless the workers use
        its folder where it is); returns the package's dataset name, or "" for none."""
        from arena.runner.cluster.jobs import ShippedBot

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
        from arena.runner.cluster.jobs import ClusterJob
        from arena.runner.cluster.worker import play_task

        self._log_dir = Path(job.log_dir)
        bots = job.pairing.bots
        # A bot first seen in a job (a league's, added while it runs) is sent now.
        new = [self._ship(n, job.bots[n]) for n in bots if n not in self.bots]
        if any(new):
            try:
                self._scatter([d for d in new if d])
            except Exception as exc:  # the scheduler is out of reach: the next poll says so
                self._lost = self._lost or f"{self._lost_message()} ({first_line(exc)})"
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
            self._lost = self._lost or f"{self._lost_message()} ({first_line(exc)})"
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
        from arena.runner.cluster.checks import check_task

        futures = [(job.pairing.bots[0], self._submit_check(check_task, job)) for job in checks]
        self._await_checks([f for _, f in futures])
        problems = []
        for bot, future in futures:
            result = self._check_result(bot, "start check", future)
            if isinstance(result, str):
                problems.append(result)
            elif result.status != JobStatus.DONE:
                problems.append(result.reason)
        return problems

    def validate(self, job: GameJob, seed: int, log_dir: Path) -> list[Check]:
        """``arena check-bot``'s checks of the bot ``job`` seats alone, its validation game
        on ``seed``, on a worker of the cluster (whichever Dask picks), as a league on the
        cluster enters a bot version: the checks, the first naming the worker, with their
        logs written under ``log_dir``; or one failed check saying why they could not run."""
        from arena.runner.cluster.checks import validate_task

        bot = job.pairing.bots[0]
        future = self._submit_check(validate_task, job, seed)
        self._await_checks([future])
        result = self._check_result(bot, "validation", future)
        if isinstance(result, str):
            return [Check("cluster", False, result)]
        if result.status != JobStatus.DONE:
            return [Check("cluster", False, result.reason)]
        self._write_logs(log_dir, result.logs)
        return [Check("cluster", True, f"checked on worker {result.worker}"), *(
            Check(name, passed, detail, None if log is None else log_dir / log)
            for name, passed, detail, log in result.checks)]

    def _submit_check(self, task: Callable[..., Any], job: GameJob, *args: Any) -> Any:
        """Submit a check ``task`` of the bot ``job`` seats alone; its future."""
        from arena.runner.cluster.jobs import ClusterJob

        bot = job.pairing.bots[0]
        key = f"arena-{task.__name__}-{bot}-{self.run}"
        cjob = ClusterJob(job, self.run, False, {bot: self.bots[bot]}, self.versions,
                          self.topic, key)
        return self.client.submit(task, cjob, *args, key=key, resources={"game": 1},
                                  pure=False, retries=1,
                                  workers=sorted(self.cluster.slots()) or None)

    def _await_checks(self, futures: list[Any]) -> None:
        """Wait until the check tasks end, or :data:`CHECK_TIMEOUT_S` has passed."""
        from distributed import wait

        try:
            with self.client.as_current():
                wait(futures, timeout=CHECK_TIMEOUT_S)
        except TimeoutError:
            pass

    @staticmethod
    def _check_result(bot: str, what: str, future: Any) -> Any:
        """A check task's :class:`WorkerResult`, or why there is none (a line naming
        ``bot`` and ``what`` it was)."""
        if not future.done():
            future.cancel()
            return f"{bot}: its {what} on the cluster did not end within {CHECK_TIMEOUT_S:.0f} s"
        try:
            return future.result()
        except Exception as exc:
            return (f"{bot}: its {what} on the cluster failed: {type(exc).__name__}: "
                    f"{first_line(exc)}")

    def poll(self, timeout_s: float) -> list[JobResult]:
        """Results that have arrived. Raises RuntimeError once the scheduler is lost for good
        (Dask tries to reconnect for a while first; meanwhile no result arrives)."""
        try:
            return self._poll(timeout_s)
        except Exception as exc:
            if self._lost or self.client.status not in ("running", "connecting"):
                raise RuntimeError(self._lost or self._lost_message()) from None
            raise RuntimeError(f"the Dask cluster failed: {type(exc).__name__}: "
                               f"{first_line(exc)}") from exc

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

        from arena.runner.cluster.jobs import LOST_PACKAGE, WRONG_VERSION

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
        try:
            self._write_logs(Path(job.log_dir), r.logs)
        except OSError as exc:
            if not is_disk_full(exc):
                raise
            return JobResult(game_id, JobStatus.DISK_FULL, f"writing the logs: {exc}")
        return file_result(job, JobResult(game_id, JobStatus(r.status), r.reason,
                                          duration_s=r.duration_s, kept=r.kept,
                                          played=r.played))

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
        from arena.runner.cluster.worker import abort_run, close_run

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
