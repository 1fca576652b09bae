"""Connecting to a Dask cluster for games (:class:`Cluster`): the scheduler's address, its
and every worker's versions against this machine's, the wait for a first worker, and the
workers' ``game`` slots read as a run goes, with one line for each problem the user can act
on. The executor that plays on it is :class:`arena.runner.cluster.executor.DaskExecutor`.

A scheduler at a ``tls://`` address is reached with mutual TLS (:func:`dask_security`): the
organiser and the workers each show a certificate signed by the cluster's CA and check the
scheduler's against it, so that only the holders of such a certificate can give the workers
code to run or read what the games carry (the tournament's seed key among it). Dask's own
messages for a failed handshake name neither side; :func:`cannot_connect` says which check
failed and what to give."""

from __future__ import annotations

import contextlib
import logging
import re
import ssl
import time
from collections.abc import Callable
from typing import Any

from arena.runner.play.config import ExecutorSettings, TLSFiles

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
        from arena.runner.cluster.jobs import versions

        distributed = _distributed()
        # Dask logs each failed connection attempt, and a lost scheduler with a traceback;
        # the organiser says each once, in a line of its own (the workers log Dask's).
        for name in ["distributed", *logging.root.manager.loggerDict]:
            if name.split(".")[0] == "distributed":
                logging.getLogger(name).setLevel(logging.CRITICAL)
        security = dask_security(settings.address, settings.security,
                                 "[executor] security = { ca = ..., cert = ..., key = ... }")
        try:
            client = distributed.Client(settings.address, timeout=f"{CONNECT_TIMEOUT_S}s",
                                        set_as_default=False, security=security)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(cannot_connect(settings.address, exc,
                                              CONNECT_TIMEOUT_S)) from None
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
                    f"{wait_s} s: start one with {self.worker_command}")
            if not said:
                say(f"waiting up to {wait_s} s for workers at {self.address} (start one with"
                    f" {self.worker_command})")
                said = True
            time.sleep(0.25)

    @property
    def worker_command(self) -> str:
        """How to start a worker for this scheduler, as a message says it."""
        tls = " --tls-ca-file CA --tls-cert CERT --tls-key KEY" \
            if self.address.startswith("tls://") else ""
        return f"`arena worker {self.address}{tls}`"

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

        from arena.runner.cluster.jobs import versions
        from arena.runner.cluster.worker import describe_worker

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
                           f"start it with {self.worker_command}")
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


def dask_security(address: str, files: TLSFiles | None, give: str) -> Any:
    """The ``distributed.security.Security`` that reaches ``address``: with ``files``, this
    machine's certificate for its connections both as a client and as a worker (a worker's
    tasks fetch bots as a client), and nothing unencrypted; without, None (Dask's
    configuration, ``distributed.comm.tls``, decides). Raises :class:`ClusterError` for a
    ``tls://`` address with a certificate from neither (``give`` says how to give one)."""
    from distributed.security import Security

    if files is not None:
        return Security(tls_ca_file=files.ca, tls_client_cert=files.cert,
                        tls_client_key=files.key, tls_worker_cert=files.cert,
                        tls_worker_key=files.key, require_encryption=True)
    configured = Security()
    if address.startswith("tls://") and not all(
            getattr(configured, f"tls_{name}", None) for name in ("ca_file", "client_cert")):
        raise ClusterError(f"the Dask scheduler at {address} speaks TLS, and this machine has "
                           f"no certificate for it: give {give}, or set Dask's configuration "
                           "(distributed.comm.tls)")
    return None


def cannot_connect(address: str, exc: BaseException, seconds: float) -> str:
    """The one line for a scheduler that could not be connected to (``exc``, Dask's error):
    a TLS handshake that failed, a scheduler that closed the connection at once (one that
    speaks TLS does so to ``tcp://``), or one out of reach."""
    from arena.runner.cluster.worker import unreachable

    why = _tls_failure(exc)
    if why is not None:
        return (f"cannot connect to the Dask scheduler at {address}: the TLS handshake failed "
                f"({why}): the scheduler's certificate must be signed by the CA given here, "
                "and this machine's by the CA the scheduler was given")
    text = re.sub(r"^in <[^>]*>: ", "", first_line(exc))  # Dask's description of the comm
    if isinstance(exc, TimeoutError) or "Timed out" in text:
        return unreachable(address, seconds)
    return (f"cannot connect to the Dask scheduler at {address}: it closed the connection "
            f"({text}); a scheduler started with TLS takes tls://HOST:PORT and a certificate")


def _tls_failure(exc: BaseException) -> str | None:
    """Why a TLS handshake failed, if that is what ``exc`` (or its cause) says: Dask keeps
    OpenSSL's reason in its own error's text, or chains it."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ssl.SSLCertVerificationError) and cause.verify_message:
            return str(cause.verify_message)
        found = re.search(r"SSL\w*Error: (?:\[SSL: \w+\] )?(.+?)(?: \(_ssl\.c:\d+\))?$",
                          f"{type(cause).__name__}: {first_line(cause)}")
        if found:
            return found.group(1)
        cause = cause.__cause__ or cause.__context__
    return None


def first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _major_minor(version: Any) -> str | None:
    return ".".join(str(version).split(".")[:2]) if version else None
