"""``arena worker`` and what ``arena run`` needs to run on a Dask cluster (see
:mod:`arena.runner.cluster.executor`)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.common import err, fail

if TYPE_CHECKING:
    from arena.runner.play.config import TLSFiles

#: ``arena worker``'s option for each of the TLS files.
TLS_OPTIONS = {"ca": "--tls-ca-file", "cert": "--tls-cert", "key": "--tls-key"}


def executor_option(value: str | None) -> str | None:
    """``--executor VALUE`` checked: ``local``, or a scheduler's address (made tcp:// or
    tls:// with the file's ``[executor] security`` when the file is read); None if not given."""
    if value is None or value == "local":
        return value
    from arena.runner.play.config import scheduler_address

    try:
        scheduler_address(value)
    except ValueError as exc:
        fail(f"--executor must be local or dask://HOST:PORT: {exc}")
    return value


def connect(config: Any, stopped: Callable[[], bool]) -> Any:
    """The Dask cluster the configuration names, connected and checked (one line and exit
    code 2 if it cannot be used), or None for a local run."""
    if config.executor.kind != "dask":
        return None
    from arena.runner.cluster.executor import Cluster, ClusterError

    try:
        return Cluster.connect(config.executor, say=lambda text: err.print(text),
                               stopped=stopped)
    except ClusterError as exc:
        fail(str(exc))


def worker(
    address: Annotated[str, typer.Argument(
        help="The Dask scheduler: tcp://HOST:PORT or tls://HOST:PORT (or dask://HOST:PORT: "
             "tls:// with the --tls-* options).")],
    slots: Annotated[int, typer.Option(
        "--slots", "-n", help="Games at once (default: the number of cores).")] = 0,
    name: Annotated[str | None, typer.Option(
        "--name", help="This worker's name in messages (default: HOST-PID).")] = None,
    cache: Annotated[Path | None, typer.Option(
        "--cache", help="Where shipped bots are kept, unpacked (default: "
                        "$XDG_CACHE_HOME/arena/cluster-bots).")] = None,
    tls_ca_file: Annotated[Path | None, typer.Option(
        "--tls-ca-file", help="The cluster's CA certificate (PEM): with --tls-cert and "
                              "--tls-key, mutual TLS with the scheduler (default: Dask's "
                              "configuration).")] = None,
    tls_cert: Annotated[Path | None, typer.Option(
        "--tls-cert", help="This worker's certificate, signed by that CA (PEM).")] = None,
    tls_key: Annotated[Path | None, typer.Option(
        "--tls-key", help="This worker's private key (PEM, without a passphrase).")] = None,
) -> None:
    """Play tournament games for a Dask cluster: connect to its scheduler and serve games
    until Ctrl-C or SIGTERM (exit 0), or until the scheduler goes (exit 1). Bots run here,
    sandboxed as on the organiser's machine; they arrive from the organiser (unless its
    file says ship_bots = false). However this worker ends, its bots end with it."""
    import importlib.util
    import os

    from arena.runner.play.config import scheduler_address

    files = _tls_files(tls_ca_file, tls_cert, tls_key)
    try:
        target = scheduler_address(address, tls=files is not None)
    except ValueError as exc:
        fail(str(exc))
    if slots < 0:
        fail("--slots must be at least 1")
    slots = slots or len(os.sched_getaffinity(0))
    if importlib.util.find_spec("distributed") is None:
        fail("arena worker needs Dask, which is not installed: install arena[cluster] "
             "(pip install 'arena[cluster]')")
    from arena.runner.cluster.connect import ClusterError, cannot_connect, dask_security
    from arena.runner.play.supervise import supervise

    try:
        security = dask_security(target, files, ", ".join(TLS_OPTIONS.values()))
    except ClusterError as exc:
        fail(str(exc))

    def work() -> int:
        from arena.runner.cluster.worker import CONNECT_TIMEOUT_S, run_worker

        try:
            stopped = run_worker(target, slots, name, cache, say=lambda text: err.print(text),
                                 security=security)
        except (OSError, TimeoutError) as exc:
            try:
                fail(cannot_connect(target, exc, CONNECT_TIMEOUT_S))
            except typer.Exit as exit:
                return exit.exit_code
        return 0 if stopped else 1  # 1: the scheduler went away

    code = supervise(work)
    if code > 128:
        killed = signal.Signals(code - 128).name
        err.print(f"arena worker: its worker process was killed ({killed}); what it left "
                  "running was stopped")
    raise typer.Exit(code)


def _tls_files(ca: Path | None, cert: Path | None, key: Path | None) -> TLSFiles | None:
    """The worker's TLS files from its options (all three or none), checked."""
    from arena.runner.play.config import TLSFiles, tls_problem

    given = {"ca": ca, "cert": cert, "key": key}
    if not any(given.values()):
        return None
    missing = [TLS_OPTIONS[k] for k, v in given.items() if v is None]
    if missing:
        fail(f"{', '.join(TLS_OPTIONS.values())} go together: {', '.join(missing)} missing")
    files = TLSFiles(**{k: str(Path(v).expanduser().resolve()) for k, v in given.items() if v})
    problem = tls_problem(files)
    if problem is not None:
        fail(f"{TLS_OPTIONS[problem[0]]}: {problem[1]}")
    return files
