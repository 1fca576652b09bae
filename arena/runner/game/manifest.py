"""Bot manifests: a bot's folder, its ``bot.toml``, and the limits it asks for.

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
(:func:`limit_problems`): a child can lower a hard limit but never raise it. Starting and
stopping the bot's processes is :mod:`arena.runner.game.processes`.
"""

from __future__ import annotations

import dataclasses
import os
import re
import resource
import shutil
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.runner.game.needs import NeedsRule, folder_problem, need_problem
from arena.runner.game.trees import TreeError, check_program, read_small

MANIFEST = "bot.toml"
#: The largest manifest read: a manifest is a few lines.
MANIFEST_MAX_BYTES = 64 * 1024
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
    #: of the folder that the bot then runs from (:mod:`arena.runner.game.build`); () for none.
    build: tuple[str, ...] = ()

    @classmethod
    def load(cls, path: str | Path, entering: NeedsRule | None = None) -> BotManifest:
        """Load ``path`` (a bot folder, or its ``bot.toml``). With ``entering``, the bot is
        entering (check-bot, play, a tournament file, a league): its ``needs`` are held to
        that rule too, and its folders may hold only files, folders and links within them
        (:func:`arena.runner.game.trees.check_program`). Raises :class:`ManifestError`."""
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
        and its ``needs`` (held to ``rule`` too, if given: see :mod:`arena.runner.game.needs`;
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
    show the bot nothing guarded (:mod:`arena.runner.game.needs`), and, held to a ``rule``, stay
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


