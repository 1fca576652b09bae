"""Connecting to a Dask cluster for games (:class:`Cluster`): the scheduler's address, its
and every worker's versions against this machine's, the wait for a first worker, and the
workers' ``game`` slots read as a run goes, with one line for each problem the user can act
on. The executor that plays on it is :class:`arena.runner.cluster.DaskExecutor`."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from arena.runner.config import ExecutorSettings

#: How long connecting to the scheduler may take.
CONNECT_TIMEOUT_S = 8
#: How often the capacity is read from the scheduler, at most.
CAPACITY_EVERY_S = 0.5
#: How long closing a run on the workers may take.
CLOSE_TIMEOUT_S = 30
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
                           f"({first_line(info)}): {INSTALL}")
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

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close(timeout=CLOSE_TIMEOUT_S)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _major_minor(version: Any) -> str | None:
    return ".".join(str(version).split(".")[:2]) if version else None
