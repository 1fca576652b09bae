"""Bot processes: launch, supervision, and killing the whole group.

Each bot process is the leader of a new process group (session), with its manifest's limits
(:mod:`arena.runner.game.manifest`) applied, its stdout and stderr drained through a pipe into a
capped log (:class:`~arena.runner.game.botlog.BotLog`). :meth:`BotProcess.kill` kills the whole
group, so children the bot started die with it. Processes are only ever stopped by their own
process group id.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from arena.runner.game.botlog import BotLog
from arena.runner.game.manifest import CPU_HARD_EXTRA_S, BotManifest, Limits
from arena.runner.game.sandbox import (
    Sandbox,
    SandboxError,
    claim_bot_uid,
    release_bot_uid,
    runs_as_root,
    with_fds,
)
from arena.runner.game.sandboxed import process_tree, sandbox_processes, still_running
from arena.runner.game.trees import TreeError, chown_tree

#: How long kill() waits for the processes of a killed group to be gone.
KILL_WAIT_S = 2.0
_MIB = 1024 * 1024

#: One limit for the child: its manifest field, say "memory_mb = 2048"; the resource; (soft, hard).
_RLimit = tuple[str, int, tuple[int, int]]


def _rlimits(limits: Limits, own_user: bool = False) -> list[_RLimit]:
    """The limits to set, computed before the fork so that the child does nothing but the
    system calls. ``own_user``: the bot will run as a user of its own (sandboxed by root,
    :func:`arena.runner.game.sandbox.inner_command`), so the process limit is set here too."""
    mem = limits.memory_mb * _MIB
    nproc = [(f"processes = {limits.processes}", resource.RLIMIT_NPROC,
              (limits.processes, limits.processes))] if own_user else []
    return [*nproc,
        (f"memory_mb = {limits.memory_mb}", resource.RLIMIT_AS, (mem, mem)),
        (f"cpu_seconds = {limits.cpu_seconds}", resource.RLIMIT_CPU,
         (limits.cpu_seconds, limits.cpu_seconds + CPU_HARD_EXTRA_S)),
        (f"open_files = {limits.open_files}", resource.RLIMIT_NOFILE,
         (limits.open_files, limits.open_files)),
    ]


_prctl: Any = None


def _resolve_prctl() -> Any:
    """libc's prctl, looked up once in the parent: dlopen in a forked child of a threaded
    process could block on a lock another thread held at the fork."""
    global _prctl
    if _prctl is None:
        try:
            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl = False
    return _prctl


def _limit_self(rlimits: list[_RLimit], prctl: Any, report_fd: int) -> None:
    """Runs in the child between fork and exec: apply the resource limits, and (Linux) ask for
    SIGKILL if the process that started the bot dies without killing it first.

    subprocess only tells the parent "Exception occurred in preexec_fn", so a limit that
    cannot be set is first named on ``report_fd`` (closed by the exec if all goes well)."""
    if prctl:
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    for field_, which, values in rlimits:
        try:
            resource.setrlimit(which, values)
        except (ValueError, OSError, OverflowError) as exc:
            with contextlib.suppress(OSError):
                os.write(report_fd, f"limits.{field_}: {exc}".encode())
            raise


def setup_hint(manifest: BotManifest) -> str | None:
    """What a bot that cannot start probably lacks, as an instruction, when its folder shows
    it: a Node.js bot whose packages were never installed."""
    folder = manifest.folder
    if (folder / "package.json").is_file() and not (folder / "node_modules").is_dir():
        return (f"{manifest.name}'s packages are not installed: run "
                f"npm ci --prefix {folder}")
    return None


class BotStartError(RuntimeError):
    """The bot process could not be started at all (missing program, bad folder, a resource
    limit it could not be given)."""


class BotProcess:
    """One running bot: a process group, supervised and killed as a whole."""

    def __init__(
        self, manifest: BotManifest, env: dict[str, str], log: BotLog,
        sandbox: Sandbox | None = None, writable: bool = False,
    ) -> None:
        """Start the bot: ``env`` added to this process's environment less the runner's own
        ``ARENA_*`` settings (such as where the seed key lives), its output drained into
        ``log`` (which owns the pipe from then on). With a ``sandbox``, the process started
        is bwrap running the bot inside it, with only ``env``'s ``ARENA_*`` variables and the
        basics (:mod:`arena.runner.game.sandbox`); its group is then the bwrap process's, and
        killing it ends the sandbox and everything in it. Raises :class:`BotStartError`."""
        self.manifest = manifest
        self.sandboxed = sandbox is not None
        argv = manifest.argv()
        # Run by root, a sandboxed bot is a user of its own, held until its processes are gone.
        self.uid = claim_bot_uid() if sandbox is not None and runs_as_root() else None
        if sandbox is not None:
            first = manifest.command[0]
            if writable and self.uid is not None:  # a build: its copy becomes the bot's own
                try:
                    chown_tree(manifest.folder, self.uid, self.uid)
                except TreeError as exc:
                    release_bot_uid(self.uid)
                    raise BotStartError(f"{manifest.name}: its copy cannot be given to its "
                                        f"build: {exc}") from None
            argv, full_env = sandbox.wrap(argv, env, manifest.folder, manifest.needs,
                                          python="{python}" in manifest.command,
                                          runtime=first == "{node}" or "/" not in first,
                                          processes=manifest.limits.processes, uid=self.uid,
                                          writable=writable)
        else:
            inherited = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
            full_env = {**inherited, **env}
        fds: tuple[int, ...] = ()
        if sandbox is not None:
            try:
                argv, fds = with_fds(argv)
            except SandboxError as exc:
                if self.uid is not None:
                    release_bot_uid(self.uid)
                raise BotStartError(f"{manifest.name}: cannot be sandboxed: {exc}") from None
        rlimits = _rlimits(manifest.limits, own_user=self.uid is not None)
        prctl = _resolve_prctl()
        # Non-inheritable: the child keeps it only until its exec.
        report_r, report_w = os.pipe()
        out_r, out_w = os.pipe()
        started = False
        try:
            self.popen = subprocess.Popen(
                argv,
                cwd=manifest.folder,
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=out_w,
                stderr=out_w,
                start_new_session=True,  # its own process group: killed as one
                preexec_fn=lambda: _limit_self(rlimits, prctl, report_w),
                close_fds=True,
                pass_fds=fds,
            )
            started = True
        except OSError as exc:
            raise BotStartError(
                f"{manifest.name}: cannot start {manifest.argv()!r}: {exc.strerror or exc}"
            ) from None
        except subprocess.SubprocessError:
            os.close(report_w)
            report_w = -1
            detail = os.read(report_r, 4096).decode(errors="replace") or "unknown cause"
            raise BotStartError(
                f"{manifest.name}: cannot apply its [limits] ({detail})"
            ) from None
        finally:
            if report_w >= 0:
                os.close(report_w)
            os.close(report_r)
            os.close(out_w)  # the bot's copies are its own: EOF when its last one closes
            for fd in fds:
                os.close(fd)
            if not started:
                os.close(out_r)
                if self.uid is not None:
                    release_bot_uid(self.uid)
        log.drain(out_r)
        self.pgid = self.popen.pid  # leader of its own session, so pgid == pid
        self.started = time.monotonic()

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        """True while the bot's main process has not exited."""
        return self.popen.poll() is None

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    def describe_exit(self) -> str:
        """A human description of how the process ended (or that it is still running)."""
        code = self.popen.poll()
        if code is None:
            return "still running"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            return f"killed by signal {name}"
        return f"exited with status {code}"

    def cpu_seconds(self) -> float | None:
        """CPU time used so far by the bot's main process (Linux /proc), or None. Sandboxed,
        the most any one process of the sandbox used (the bwrap process itself uses next to
        nothing; the limit is per process)."""
        if not self.sandboxed:
            return _cpu_of(self.popen.pid)
        used = [t for t in map(_cpu_of, process_tree(self.popen.pid)) if t is not None]
        return max(used) if used else None

    def kill(self) -> None:
        """Kill the bot's whole process group (SIGKILL), reap the main process, and wait
        (bounded) until no process of the group is still running. Sandboxed, first kill the
        sandbox's init, which ends every process in the sandbox, and wait for them too."""
        inside: list[int] = []
        # Only while the bwrap process is unreaped (poll() reaps it): its pid, and so its
        # children, are then surely ours. Once it has exited, so has its init.
        if self.sandboxed and self.popen.poll() is None:
            # bwrap's init runs in a session of its own, out of the group's reach; killed
            # from outside its namespace, it dies, and the kernel kills all that is inside
            # (nested namespaces too), without relying on bwrap's parent-death signal.
            inside = sandbox_processes(self.popen.pid)
            if inside:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(inside[0], signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5)
        deadline = time.monotonic() + KILL_WAIT_S
        while group_alive(self.pgid) and time.monotonic() < deadline:
            time.sleep(0.005)
        while still_running(inside) and time.monotonic() < deadline:
            time.sleep(0.005)
        if self.uid is not None and not still_running(inside) and self.popen.poll() is not None:
            release_bot_uid(self.uid)
            self.uid = None

    def stop(self, grace_s: float) -> None:
        """Wait up to ``grace_s`` for the bot to exit by itself, then kill the whole group."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=grace_s)
        self.kill()


def _cpu_of(pid: int) -> float | None:
    """User plus system CPU time of the process ``pid`` so far, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class RunningBot(Protocol):
    """What the runner needs of a started bot: a :class:`BotProcess`, or a stand-in that plays
    in this process (tests do, over an in-memory transport)."""

    pgid: int

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    def alive(self) -> bool: ...

    def describe_exit(self) -> str: ...

    def cpu_seconds(self) -> float | None: ...

    def kill(self) -> None: ...

    def stop(self, grace_s: float) -> None: ...


#: Starts a bot: (manifest, environment for it, its log) -> the running bot. Raises
#: :class:`BotStartError` if it cannot start at all.
Launcher = Callable[[BotManifest, dict[str, str], BotLog], RunningBot]


def group_alive(pgid: int) -> bool:
    """True if any process of the process group ``pgid`` is still running.

    A process that has died but not yet been reaped (a zombie, whose parent may be init after
    its real parent died) runs nothing and does not count. Reads ``/proc`` where it exists;
    elsewhere falls back to ``killpg(pgid, 0)``, which also counts zombies.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # the process ended while we looked
        # Fields after the parenthesised command name: state, ppid, pgrp, ...
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            return True
    return False
