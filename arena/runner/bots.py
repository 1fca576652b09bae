"""Bot manifests, and bot processes: launch, supervision, and killing the whole group.

A bot is a folder with a ``bot.toml`` manifest::

    name = "random-py"
    version = "1.0"
    language = "python"
    command = ["{python}", "bot.py"]     # run in the bot's folder; {python} is this Python
    needs = ["../greedy-py"]             # optional: other folders it reads (relative to its own)

    [limits]                             # optional; these are the defaults
    memory_mb = 2048                     # address space
    cpu_seconds = 600                    # CPU time per process
    open_files = 256

The limits are checked when the manifest is loaded against what this host lets the runner set
(:func:`limit_problems`): a child can lower a hard limit but never raise it.

Each bot process is the leader of a new process group (session), with the limits applied, its
stdout and stderr drained through a pipe into a capped log (:class:`~arena.runner.botlog.BotLog`).
:meth:`BotProcess.kill` kills the whole group, so children the bot started die with it.
Processes are only ever stopped by their own process group id.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from arena.runner.botlog import BotLog
from arena.runner.needs import NeedsRule, folder_problem, need_problem
from arena.runner.sandbox import (
    Sandbox,
    SandboxError,
    claim_bot_uid,
    release_bot_uid,
    runs_as_root,
    with_fds,
)
from arena.runner.sandboxed import process_tree, sandbox_processes, still_running
from arena.runner.trees import TreeError, check_program, chown_tree, read_small

MANIFEST = "bot.toml"
#: The largest manifest read: a manifest is a few lines.
MANIFEST_MAX_BYTES = 64 * 1024
#: How long kill() waits for the processes of a killed group to be gone.
KILL_WAIT_S = 2.0
#: Names of bots and tournaments: 1-64 letters, digits, '.', '_' or '-', not starting with a mark.
NAME_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def read_toml(file: Path, error: type[ValueError]) -> dict[str, Any]:
    """A TOML file's table; ``error`` (naming the file) if it is not valid TOML."""
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise error(f"{file}: not valid TOML: {exc}") from None


class ManifestError(ValueError):
    """A bot manifest that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to a bot process."""

    memory_mb: int = 2048
    cpu_seconds: int = 600
    open_files: int = 256
    #: Processes and threads at once; sandboxed bots only (unsandboxed, the kernel's count
    #: would hold every process of the runner's user).
    processes: int = 64


#: The fewest open files a bot may ask for: standard streams, the socket, the interpreter's own.
MIN_OPEN_FILES = 32
#: Sane maxima, whatever the host allows: 1 TiB of address space, a week of CPU, and Linux's
#: default ceiling on open files (fs.nr_open).
MAX_MEMORY_MB = 1 << 20
MAX_CPU_SECONDS = 7 * 24 * 3600
MAX_OPEN_FILES = 1 << 20
#: The fewest processes and threads a bot may ask for (a runtime has a few threads of its own),
#: and the most.
MIN_PROCESSES = 8
MAX_PROCESSES = 4096
#: The bot's hard CPU limit is this much above its soft limit (SIGXCPU first, then SIGKILL).
CPU_HARD_EXTRA_S = 5
_MIB = 1024 * 1024


@dataclass(frozen=True)
class HostLimits:
    """The hard resource limits of the runner, which a bot's limits must fit under (a bot
    inherits them and may only lower them). None means no cap (RLIM_INFINITY)."""

    memory_bytes: int | None
    cpu_seconds: int | None
    open_files: int | None

    @classmethod
    def current(cls) -> HostLimits:
        """This process's hard limits on address space, CPU time and open files."""

        def hard(which: int) -> int | None:
            value = resource.getrlimit(which)[1]
            return None if value == resource.RLIM_INFINITY else value

        return cls(hard(resource.RLIMIT_AS), hard(resource.RLIMIT_CPU),
                   hard(resource.RLIMIT_NOFILE))


def limit_problems(limits: Limits, host: HostLimits) -> list[tuple[str, str]]:
    """What is wrong with ``limits`` on a host with the hard limits ``host``.

    Args:
        limits: a bot's limits (each a positive whole number).
        host: the hard limits the bot's would be set under, usually :meth:`HostLimits.current`.

    Returns:
        (field, problem) for each limit that setrlimit could not set or that is outside the
        sane range, the problem naming the value and what is allowed; empty if all are fine.
    """
    problems: list[tuple[str, str]] = []

    def check(name: str, value: int, low: int, high: int, cap: int | None, what: str) -> None:
        if value < low:
            problems.append((name, f"{value} is too low: a bot needs at least {low}"))
        elif value > high:
            problems.append((name, f"{value} is over the maximum of {high}"))
        elif cap is not None and value > cap:
            problems.append((name, f"{value} is more than this host allows: at most {cap} "
                                   f"({what})"))

    mem_cap = None if host.memory_bytes is None else host.memory_bytes // _MIB
    check("memory_mb", limits.memory_mb, 1, MAX_MEMORY_MB, mem_cap,
          f"the runner's hard RLIMIT_AS is {host.memory_bytes} bytes")
    cpu_cap = (None if host.cpu_seconds is None
               else max(0, host.cpu_seconds - CPU_HARD_EXTRA_S))
    check("cpu_seconds", limits.cpu_seconds, 1, MAX_CPU_SECONDS, cpu_cap,
          f"the runner's hard RLIMIT_CPU is {host.cpu_seconds} s and a bot's hard limit is "
          f"{CPU_HARD_EXTRA_S} s above its cpu_seconds")
    check("open_files", limits.open_files, MIN_OPEN_FILES, MAX_OPEN_FILES, host.open_files,
          f"the runner's hard RLIMIT_NOFILE is {host.open_files}")
    check("processes", limits.processes, MIN_PROCESSES, MAX_PROCESSES, None, "")
    return problems


@dataclass(frozen=True)
class BotManifest:
    """A bot's manifest, validated. ``folder`` is where the bot runs."""

    folder: Path
    name: str
    version: str
    language: str
    command: tuple[str, ...]
    limits: Limits = field(default_factory=Limits)
    #: Folders outside its own that the bot reads (absolute): the sandbox shows them to it,
    #: read-only, at the same paths; it shows nothing else of the file system's bot folders.
    needs: tuple[Path, ...] = ()
    #: A command run once per content of the folder before the bot plays (``make``), in a copy
    #: of the folder that the bot then runs from (:mod:`arena.runner.build`); () for none.
    build: tuple[str, ...] = ()

    @classmethod
    def load(cls, path: str | Path, entering: NeedsRule | None = None) -> BotManifest:
        """Load ``path`` (a bot folder, or its ``bot.toml``). With ``entering``, the bot is
        entering (check-bot, play, a tournament file, a league): its ``needs`` are held to
        that rule too, and its folders may hold only files, folders and links within them
        (:func:`arena.runner.trees.check_program`). Raises :class:`ManifestError`."""
        p = Path(path)
        file = p if p.suffix == ".toml" else p / MANIFEST
        folder = file.parent.resolve()
        try:  # the entrant's file: never through a link, never a FIFO, and small
            text = read_small(folder / file.name, MANIFEST_MAX_BYTES).decode("utf-8")
            data = tomllib.loads(text)
        except FileNotFoundError:
            raise ManifestError(f"{file}: no bot manifest here (a bot is a folder with "
                                f"{MANIFEST})") from None
        except TreeError as exc:
            raise ManifestError(f"{file}: {exc.why} (a bot's manifest must be a file of its "
                                f"own folder, at most {MANIFEST_MAX_BYTES} bytes)") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ManifestError(f"{file}: not valid TOML: {exc}") from None
        manifest = cls.from_dict(data, folder, str(file), entering)
        if entering is not None:
            try:
                check_program([manifest.folder, *manifest.needs])
            except TreeError as exc:
                raise ManifestError(f"{file}: {exc}") from None
        return manifest

    @classmethod
    def from_dict(cls, data: dict[str, Any], folder: Path, where: str,
                  rule: NeedsRule | None = None) -> BotManifest:
        """Validate a parsed manifest, including its limits against this host's hard limits
        and its ``needs`` (held to ``rule`` too, if given: see :mod:`arena.runner.needs`;
        ``where`` names it in messages). Raises :class:`ManifestError`."""

        def text(key: str) -> str:
            value = data.get(key)
            if not isinstance(value, str) or not value.strip():
                raise ManifestError(f"{where}: '{key}' must be a non-empty string")
            return value

        name = text("name")
        if not NAME_RULE.match(name):
            raise ManifestError(
                f"{where}: 'name' {name!r} must be 1-64 letters, digits, '.', '_' or '-'"
            )
        version = text("version")
        language = text("language")
        command = data.get("command")
        if (
            not isinstance(command, list)
            or not command
            or not all(isinstance(c, str) and c for c in command)
        ):
            raise ManifestError(f"{where}: 'command' must be a non-empty list of strings")
        build = data.get("build", [])
        if not isinstance(build, list) or not all(isinstance(c, str) and c for c in build):
            raise ManifestError(f"{where}: 'build' must be a list of strings (a command)")
        raw_limits = data.get("limits", {})
        if not isinstance(raw_limits, dict):
            raise ManifestError(f"{where}: [limits] must be a table")
        known = {f.name for f in dataclasses.fields(Limits)}
        unknown = sorted(set(raw_limits) - known)
        if unknown:
            raise ManifestError(f"{where}: unknown [limits] field(s): {', '.join(unknown)}")
        for key, value in raw_limits.items():
            if type(value) is not int or value <= 0:
                raise ManifestError(f"{where}: limits.{key} must be a positive whole number")
        unknown_top = sorted(set(data) - {"name", "version", "language", "command", "limits",
                                          "description", "needs", "build"})
        if unknown_top:
            raise ManifestError(f"{where}: unknown field(s): {', '.join(unknown_top)}")
        needs = _needs(data.get("needs", []), folder, where, rule)
        limits = Limits(**raw_limits)
        # Checked here, so that check-bot, play and a tournament file all refuse the bot before
        # any start, rather than every start failing inside the child.
        problems = limit_problems(limits, HostLimits.current())
        if problems:
            key, problem = problems[0]
            default = "" if key in raw_limits else " (the default)"
            raise ManifestError(f"{where}: limits.{key} = {problem}{default}")
        return cls(folder, name, version, language, tuple(command), limits, needs,
                   tuple(build))

    def argv(self) -> list[str]:
        """The command with ``{python}`` (this interpreter) and ``{node}`` filled in."""
        node = shutil.which("node") or "node"
        return [c.replace("{python}", sys.executable).replace("{node}", node)
                for c in self.command]

    def build_step(self) -> BotManifest:
        """This manifest with its build command as the command to run (in its own folder)."""
        return dataclasses.replace(self, command=self.build, build=())


def _needs(raw: Any, folder: Path, where: str, rule: NeedsRule | None) -> tuple[Path, ...]:
    """The manifest's ``needs``: existing folders, given relative to the bot's folder, that
    show the bot nothing guarded (:mod:`arena.runner.needs`), and, held to a ``rule``, stay
    within its bound. Refuses also a bot's own folder that would show it a guarded path."""
    problem = folder_problem(folder, rule)
    if problem is not None:
        raise ManifestError(f"{where}: {problem}")
    if not isinstance(raw, list) or not all(isinstance(n, str) and n for n in raw):
        raise ManifestError(f"{where}: 'needs' must be a list of folder paths")
    needs: list[Path] = []
    for entry in raw:
        if os.path.isabs(entry):
            raise ManifestError(f"{where}: needs {entry!r}: must be a path relative to the "
                                "bot's folder")
        path = (folder / entry).resolve()
        if not path.is_dir():
            raise ManifestError(f"{where}: needs {entry!r}: {path} is not a folder")
        problem = need_problem(path, folder, rule)
        if problem is not None:
            raise ManifestError(f"{where}: needs {entry!r}: {problem}")
        needs.append(path)
    return tuple(needs)


#: One limit for the child: its manifest field, say "memory_mb = 2048"; the resource; (soft, hard).
_RLimit = tuple[str, int, tuple[int, int]]


def _rlimits(limits: Limits, own_user: bool = False) -> list[_RLimit]:
    """The limits to set, computed before the fork so that the child does nothing but the
    system calls. ``own_user``: the bot will run as a user of its own (sandboxed by root,
    :func:`arena.runner.sandbox.inner_command`), so the process limit is set here too."""
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
        basics (:mod:`arena.runner.sandbox`); its group is then the bwrap process's, and
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
