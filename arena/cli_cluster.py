"""``arena worker`` and what ``arena run`` needs to run on a Dask cluster (see
:mod:`arena.runner.cluster`)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli_common import err, fail
from arena.runner.config import scheduler_address


def executor_override(value: str) -> dict[str, Any]:
    """The ``[executor]`` table that ``--executor VALUE`` stands for."""
    if value == "local":
        return {"kind": "local"}
    try:
        scheduler_address(value)  # made tcp:// or tls:// with the file's [executor] security
    except ValueError as exc:
        fail(f"--executor must be local or dask://HOST:PORT: {exc}")
    return {"kind": "dask", "address": value}


def connect(config: Any, stopped: Callable[[], bool]) -> Any:
    """The Dask cluster the configuration names, connected and checked (one line and exit
    code 2 if it cannot be used), or None for a local run."""
    if config.executor.kind != "dask":
        return None
    from arena.runner.cluster import Cluster, ClusterError

    try:
        return Cluster.connect(config.executor, say=lambda text: err.print(text),
                               stopped=stopped)
    except ClusterError as exc:
        fail(str(exc))


def worker(
    address: Annotated[str, typer.Argument(
        help="The Dask scheduler: tcp://HOST:PORT (or dask://HOST:PORT).")],
    slots: Annotated[int, typer.Option(
        "--slots", "-n", help="Games at once (default: the number of cores).")] = 0,
    name: Annotated[str | None, typer.Option(
        "--name", help="This worker's name in messages (default: HOST-PID).")] = None,
    cache: Annotated[Path | None, typer.Option(
        "--cache", help="Where shipped bots are kept, unpacked (default: "
                        "$XDG_CACHE_HOME/arena/cluster-bots).")] = None,
) -> None:
    """Play tournament games for a Dask cluster: connect to its scheduler and serve games
    until Ctrl-C or SIGTERM (exit 0), or until the scheduler goes (exit 1). Bots run here,
    sandboxed as on the organiser's machine; they arrive from the organiser (unless its
    file says ship_bots = false). However this worker ends, its bots end with it."""
    import importlib.util
    import os

    try:
        target = scheduler_address(address)
    except ValueError as exc:
        fail(str(exc))
    if slots < 0:
        fail("--slots must be at least 1")
    slots = slots or len(os.sched_getaffinity(0))
    if importlib.util.find_spec("distributed") is None:
        fail("arena worker needs Dask, which is not installed: install arena[cluster] "
             "(pip install 'arena[cluster]')")
    from arena.runner.supervise import supervise

    def work() -> int:
        from arena.runner.cluster_worker import CONNECT_TIMEOUT_S, run_worker, unreachable

        try:
            stopped = run_worker(target, slots, name, cache, say=lambda text: err.print(text))
        except (OSError, TimeoutError):
            try:
                fail(unreachable(target, CONNECT_TIMEOUT_S))
            except typer.Exit as exc:
                return exc.exit_code
        return 0 if stopped else 1  # 1: the scheduler went away

    code = supervise(work)
    if code > 128:
        killed = signal.Signals(code - 128).name
        err.print(f"arena worker: its worker process was killed ({killed}); what it left "
                  "running was stopped")
    raise typer.Exit(code)
