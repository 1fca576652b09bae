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
then a slot plays the game with :func:`arena.runner.play.job.referee_job`, writing the
bots' logs into a scratch folder of the run. The result carries the game as it was played
(its record and its seats' results) and the logs' new bytes home, where the organiser files
it as it files a local worker's; the worker writes nothing into the organiser's folder.

The organiser ends a run on the workers with :func:`close_run` (stop its kept bots, send the
rest of their logs) and abandons it with :func:`abort_run` (kill the bots of its games in
progress). A run whose organiser vanished is closed by the slots after
:data:`~arena.runner.cluster.slots.STALE_S` without a game (:mod:`arena.runner.cluster.slots`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import socket
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.runner.cluster.jobs import (
    LOST_PACKAGE,
    WRONG_VERSION,
    ClusterJob,
    WorkerResult,
    versions,
)
from arena.runner.cluster.shipping import ShippingError, cache_root
from arena.runner.cluster.slots import LostPackage, SlotPool
from arena.runner.game.build import BuildError
from arena.runner.game.manifest import ManifestError
from arena.runner.play.job import JobStatus

#: How long ``arena worker`` tries to reach its scheduler.
CONNECT_TIMEOUT_S = 10.0


def unreachable(address: str, seconds: float) -> str:
    """The one line for a scheduler that does not answer."""
    return (f"cannot reach the Dask scheduler at {address} within {seconds:.0f} s: start one "
            "there (dask scheduler), or check the address and that its port is open to this "
            "machine")


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
