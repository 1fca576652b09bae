"""A bot's checks on a worker of the cluster, so that the organiser needs neither the bots'
runtimes nor the sandbox: the start check before a run's first game (:func:`check_task`) and
``arena check-bot``'s checks with its validation game, as a league on the cluster enters a
bot version (:func:`validate_task`). Each is a Dask task that seats the bot alone: its package
is fetched and unpacked as for a game, and the checks run in the worker's scratch folder."""

from __future__ import annotations

import shutil

from arena.runner.cluster.jobs import ClusterJob, WorkerResult
from arena.runner.cluster.shipping import ShippingError
from arena.runner.cluster.slots import LostPackage, SlotPool
from arena.runner.cluster.worker import refusal, worker_pool
from arena.runner.game.botlog import DEFAULT_LOG_CAP
from arena.runner.game.build import BuildError
from arena.runner.game.checkbot import check_bot, start_problem
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import ManifestError
from arena.runner.game.sandbox import SandboxError
from arena.runner.play.job import JobStatus

#: What can stop a bot's package from being had or its checks from being run on a worker.
_CANNOT = (LostPackage, ShippingError, BuildError, ManifestError, SandboxError, OSError)


def _taken(cjob: ClusterJob) -> tuple[SlotPool | None, WorkerResult | None]:
    """This worker's slots, or why it does not take the task (not an ``arena worker``, or
    other versions)."""
    from distributed import get_worker

    pool = worker_pool()
    address = get_worker().address
    refused = refusal(pool, cjob, cjob.job.pairing.bots[0], address)
    if refused is None and pool is None:
        refused = WorkerResult(cjob.job.pairing.bots[0], JobStatus.ERROR, address)
    return pool, refused


def check_task(cjob: ClusterJob) -> WorkerResult:
    """The start check of one bot (the job seats it alone), on a worker: its package
    unpacked and built, then the bot started once in its sandbox and its hello awaited, as
    a game would. DONE, or VOID with why (naming the worker) and the end of its log."""
    pool, refused = _taken(cjob)
    if refused is not None or pool is None:
        return refused or WorkerResult("", JobStatus.ERROR, "")
    bot = cjob.job.pairing.bots[0]
    job = cjob.job
    try:
        why = start_problem(pool.bot_manifests(cjob)[bot], job.game,
                            TimeControl.from_dict(job.time_control),
                            pool.scratch / "start-check" / cjob.run,
                            DEFAULT_LOG_CAP if job.log_cap is None else job.log_cap,
                            job.sandbox, job.seed_key)
    except _CANNOT as exc:
        why = f"{bot} cannot start: {exc}"
    if why is None:
        return WorkerResult(bot, JobStatus.DONE, pool.label)
    return WorkerResult(bot, JobStatus.VOID, pool.label, f"on worker {pool.label}: {why}")


def validate_task(cjob: ClusterJob, seed: int) -> WorkerResult:
    """``arena check-bot``'s checks of one bot (the job seats it alone) on a worker, its
    validation game played on ``seed``: DONE with the checks (``checks``) and their logs'
    bytes (``logs``, by path), or VOID with why the checks could not run there."""
    pool, refused = _taken(cjob)
    if refused is not None or pool is None:
        return refused or WorkerResult("", JobStatus.ERROR, "")
    bot = cjob.job.pairing.bots[0]
    job = cjob.job
    cap = DEFAULT_LOG_CAP if job.log_cap is None else job.log_cap
    logs = pool.scratch / "validation" / cjob.run
    try:
        folder = pool.bot_manifests(cjob)[bot].folder
        checks = check_bot(folder, job.game, seed, TimeControl.from_dict(job.time_control),
                           logs, cap, job.sandbox, job.seed_key)
        sent = {p.relative_to(logs).as_posix(): p.read_bytes()[-cap:]
                for p in logs.rglob("*") if p.is_file()}
    except _CANNOT as exc:
        return WorkerResult(bot, JobStatus.VOID, pool.label,
                            f"on worker {pool.label}: {bot} cannot be checked: {exc}")
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    return WorkerResult(bot, JobStatus.DONE, pool.label, logs=sent, checks=tuple(
        (c.name, c.passed, c.detail,
         None if c.log is None else c.log.relative_to(logs).as_posix()) for c in checks))
