"""``arena bench cluster``: the Dask executor against the local one, on this machine (and the
local cluster that ``arena bench fields --cluster`` plays on).

A local Dask scheduler and ``arena worker`` processes of one slot each are started for the
benchmark (127.0.0.1, free ports) and stopped at its end. The same small round-robin of
random bots (:func:`arena.bench.tournament.random_field`, the same games in every run: one seed) is
played by the local executor with 1 and 2 worker processes, and on the cluster with 1 and
then 2 workers. The bots think a little before each answer, by default (see
:func:`bench_cluster`). Each run is timed from its executor being ready to the run's end, so the
bots' start check before the first game and the cluster's connection and bot packing, which
a run pays once, do not count: the figures are the pace of playing.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from arena.bench.tournament import random_field, random_field_rounds

#: How long the scheduler or a worker may take to come up.
UP_S = 60.0


class _Processes:
    """The benchmark's scheduler and workers, each the leader of its own session."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, argv: list[str]) -> None:
        with (self.folder / f"{name}.log").open("wb") as log:
            self.procs.append(subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                               stderr=log, start_new_session=True))

    def scheduler(self) -> str:
        file = self.folder / "scheduler.json"
        self.start("scheduler", [sys.executable, "-m", "distributed.cli.dask_scheduler",
                                 "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                 "--scheduler-file", str(file)])
        deadline = time.monotonic() + UP_S
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError, KeyError):
                return str(json.loads(file.read_text())["address"])
            time.sleep(0.1)
        raise RuntimeError(f"the Dask scheduler did not start; see {self.folder}/scheduler.log")

    def stop(self) -> None:
        for proc in reversed(self.procs):  # workers first
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


    def worker(self, address: str, name: str) -> None:
        """An ``arena worker`` of one slot, its cache in this folder."""
        self.start(name, [sys.executable, "-m", "arena", "worker", address, "--slots", "1",
                          "--name", name, "--cache", str(self.folder / f"cache-{name}")])


@contextlib.contextmanager
def _scheduler(folder: Path) -> Iterator[tuple[_Processes, str]]:
    processes = _Processes(folder)
    try:
        yield processes, processes.scheduler()
    finally:
        processes.stop()


@contextlib.contextmanager
def local_cluster(folder: Path, workers: int) -> Iterator[tuple[Any, int]]:
    """A Dask scheduler and ``workers`` one-slot ``arena worker`` processes on this machine,
    their files in ``folder``, connected: the :class:`~arena.runner.cluster.executor.Cluster`
    and how many bots each slot keeps (as the first worker said). All stopped at the end."""
    from arena.runner.cluster.executor import Cluster
    from arena.runner.play.config import ExecutorSettings

    folder.mkdir(parents=True, exist_ok=True)
    with _scheduler(folder) as (processes, address):
        for k in range(workers):
            processes.worker(address, f"bench-{k + 1}")
        cluster = Cluster.connect(ExecutorSettings("dask", address, wait_for_workers_s=int(UP_S)))
        try:
            _wait_for(lambda: cluster.capacity() >= workers, f"{workers} workers; see the logs "
                      f"in {folder}")
            log = folder / "bench-1.log"
            _wait_for(lambda: "keeping up to" in log.read_text(), f"a line in {log}")
            said = re.search(r"keeping up to (\d+) bots", log.read_text())
            yield cluster, int(said.group(1)) if said else 0
        finally:
            cluster.close()


def bench_cluster(games: int, seed: int, think_ms: int) -> dict[str, Any]:
    """Games per minute on the local executor with 1 and 2 worker processes and on a local
    Dask cluster with 1 and 2 workers; the cluster's 2 ÷ 1, and its overhead per game against
    the local executor at the same concurrency. The bots wait ``think_ms`` before each answer:
    on one machine, games of bots that never wait are bound by its cores, whoever runs them
    (the local executor's own 2 ÷ 1 shows that bound, in the same run)."""
    from arena.runner.cluster.executor import Cluster, executor_factory
    from arena.runner.play.config import ExecutorSettings
    from arena.runner.play.executor import Executor, LocalExecutor
    from arena.runner.play.ring import RunOptions
    from arena.runner.play.tournament import Tournament

    rounds = random_field_rounds(games)

    def timed(folder: Path, concurrency: int, cluster: Cluster | None) -> tuple[float, int]:
        config = random_field(folder, rounds, seed, concurrency, think_ms=think_ms)
        factory = executor_factory(cluster, config.bots) if cluster else LocalExecutor
        ready: list[float] = []

        def make(workers: int, keep: int) -> Executor:
            executor = factory(workers, keep)
            ready.append(time.perf_counter())
            return executor

        result = Tournament(config, RunOptions(make)).run()
        return time.perf_counter() - ready[0], result.games_done

    with tempfile.TemporaryDirectory(prefix="arena-bench-cluster-") as tmp:
        base = Path(tmp)
        local1, n = timed(base / "local-1", 1, None)
        local2, _ = timed(base / "local-2", 2, None)
        with _scheduler(base) as (processes, address):

            processes.worker(address, "bench-1")
            cluster = Cluster.connect(ExecutorSettings("dask", address,
                                                       wait_for_workers_s=int(UP_S)))
            try:
                one, _ = timed(base / "cluster-1", 1, cluster)
                processes.worker(address, "bench-2")
                _wait_for(lambda: cluster.capacity() >= 2,
                          f"the second worker; see {base}/bench-2.log")
                two, _ = timed(base / "cluster-2", 2, cluster)
            finally:
                cluster.close()

    def per_minute(seconds: float) -> float:
        return round(n / seconds * 60, 1)

    return {
        "games": n,
        "think_ms": think_ms,
        "local_1_games_per_minute": per_minute(local1),
        "local_2_games_per_minute": per_minute(local2),
        "cluster_1_games_per_minute": per_minute(one),
        "cluster_2_games_per_minute": per_minute(two),
        "cluster_2_to_1": round(one / two, 2),
        "local_2_to_1": round(local1 / local2, 2),
        "cluster_overhead_ms_per_game_1": round((one - local1) / n * 1000, 1),
        "cluster_overhead_ms_per_game_2": round((two - local2) / n * 1000, 1),
    }


def _wait_for(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + UP_S
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"not up within {UP_S:.0f} s: {what}")
        time.sleep(0.1)
