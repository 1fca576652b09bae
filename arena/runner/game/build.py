"""The build step of a bot whose manifest has one (``build = ["make"]``): run once per content
of the bot's folder, before the bot plays and outside every clock, in a copy of the folder
that the bot then runs from.

A built copy lives in the build cache (``$XDG_CACHE_HOME/arena/builds``, else
``~/.cache/arena/builds``) under the bot's name and the key of its program: the content digest
of its folder and the folders it needs, and where they sit (:mod:`arena.runner.game.digest`). The
copy holds them all, laid out as they are, in ``<name>-<key>/files/``. So it is built once
however many games, tournaments and checks use it, and again when any file changes. The build
runs in the bot's sandbox like the bot (with its copy writable, the rest of the bot's view
read-only, no network), under its limits and a time limit, with its output in a log.

What a build leaves is the bot's, and hostile (:mod:`arena.runner.game.trees`). The runner's marker
that a copy is complete (:data:`DONE`) is beside ``files/``, where no build can write, never in
the copy; the copy is built in a temporary folder and renamed into place only once the build
succeeded and its copy passed what a submitted folder must (:func:`_check_copy`): no FIFO,
socket or device, no link out of the bot's folders, its manifest unchanged, the folders it needs
still folders. The runner then only reads the manifest of the copy, as it reads any manifest.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import shutil
import stat
import tempfile
import time
from pathlib import Path

from arena.runner.game.botlog import DEFAULT_LOG_CAP, BotLog, log_tail, size_text
from arena.runner.game.digest import layout, package_key, program_folders
from arena.runner.game.disk import BUILDS_CACHE, cache_folder, folder_in_place, mark, marked
from arena.runner.game.manifest import MANIFEST, MANIFEST_MAX_BYTES, BotManifest
from arena.runner.game.processes import BotProcess, BotStartError
from arena.runner.game.sandbox import Sandbox
from arena.runner.game.trees import LINK, TreeError, check_program, chown_tree, kind_of, read_small

#: The longest a build may take.
BUILD_TIMEOUT_S = 600.0
#: The most a build may add to the disk holding its copy (and never more than half the free
#: space it found there): its copy is the one place a bot may write to the host's disk.
#: Measured by the disk's free space every :data:`BUILD_POLL_S` (what else writes there
#: meanwhile counts too).
BUILD_DISK_BYTES = 4 << 30
BUILD_POLL_S = 0.02
#: The file that marks a finished copy, beside its folder ``files``.
DONE = ".arena-built"
FILES = "files"
#: How many hex digits of the program's key name a copy. (Copies of an earlier layout, with
#: the marker inside the copy where a build could forge it, had 24: none is taken for one.)
KEY_DIGITS = 32


class BuildError(RuntimeError):
    """A bot's build step failed; the message says how, with the end of its log."""


def cache_root() -> Path:
    return cache_folder(BUILDS_CACHE)


def built(manifest: BotManifest, sandbox: str, log_dir: Path | None = None,
          timeout_s: float = BUILD_TIMEOUT_S) -> BotManifest:
    """The manifest to play: ``manifest`` itself when it has no build step, else the same bot
    running from its built copy (built now if it is not yet). Raises :class:`BuildError`."""
    if not manifest.build:
        return manifest
    # The copy holds the bot's folder and the folders it needs, at the same places relative to
    # each other, so a bot that finds them beside its own (``../greedy-py``) still does.
    root, places = layout(manifest)
    try:
        target = cache_root() / f"{manifest.name}-{package_key(manifest)[:KEY_DIGITS]}"
    except TreeError as exc:
        raise BuildError(f"{manifest.name} cannot be built: {exc}") from None

    def at(base: Path) -> BotManifest:
        return dataclasses.replace(manifest, folder=base / places[0],
                                   needs=tuple(base / p for p in places[1:]))

    if not marked(target, DONE):
        with folder_in_place(target, DONE) as staged:
            files = staged / FILES
            try:
                _copy(root, places, files)
            except TreeError as exc:
                raise BuildError(f"{manifest.name} cannot be built: {exc}") from None
            _run(at(files), files, sandbox, log_dir, timeout_s)
            _check_copy(manifest, files, places)
            mark(staged, DONE, f"built from {manifest.folder}\n")
    return dataclasses.replace(at(target / FILES), build=())


def _copy(root: Path, places: list[str], dest: Path) -> None:
    """Copy the bot's program (what its digest covers) from ``root`` into the new folder
    ``dest``, laid out as there; permissions kept but set-id bits."""
    modes: list[tuple[Path, int]] = []
    dest.mkdir(parents=True, mode=0o755)
    for place in sorted(set(places), key=len):  # a folder before any inside it
        for folder, entries in program_folders(root / place):
            here = dest / posixpath.normpath(posixpath.join(place, folder.path))
            if not here.exists():
                here.mkdir(parents=True, mode=0o755)
                modes.append((here, stat.S_IMODE(os.fstat(folder.fd).st_mode) & 0o777))
            for entry in entries:
                path = here / entry.name
                if os.path.lexists(path):  # a needed folder inside the bot's own
                    continue
                if entry.kind == LINK:
                    os.symlink(entry.target, path)
                    continue
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                             | os.O_CLOEXEC, 0o600)
                with folder.open(entry) as src, os.fdopen(fd, "wb") as out:
                    shutil.copyfileobj(src, out)
                    os.fchmod(fd, stat.S_IMODE(entry.mode) & 0o777)
    for folder_path, mode in reversed(modes):
        folder_path.chmod(mode)


def _check_copy(manifest: BotManifest, files: Path, places: list[str]) -> None:
    """Refuse (:class:`BuildError`) a copy its build left with what no bot's folder may hold,
    with another manifest, or with a folder of the bot made something else."""
    name = manifest.name
    for place in places:
        here = files
        for part in Path(place).parts:
            here = here / part
            mode = os.lstat(here).st_mode
            if not stat.S_ISDIR(mode):
                raise BuildError(f"{name}'s build made {place}, a folder of the bot, "
                                 f"{kind_of(mode)}")
    try:
        check_program([Path(os.path.normpath(files / p)) for p in places])
        before = read_small(manifest.folder / MANIFEST, MANIFEST_MAX_BYTES)
        after = read_small(files / places[0] / MANIFEST, MANIFEST_MAX_BYTES)
    except TreeError as exc:
        raise _left(name, files, exc) from None
    except FileNotFoundError:
        raise BuildError(f"{name}'s build removed its {MANIFEST}") from None
    if after != before:
        raise BuildError(f"{name}'s build changed its {MANIFEST}: a build may not change "
                         "its manifest")


def _run(manifest: BotManifest, files: Path, sandbox: str, log_dir: Path | None,
         timeout_s: float) -> None:
    step = manifest.build_step()
    log_path = None
    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)
        log_path = log_dir / f"build-{manifest.name}.log"
    log = BotLog(log_path, DEFAULT_LOG_CAP)
    with tempfile.TemporaryDirectory(prefix="arena-build-") as endpoint:
        box = Sandbox(endpoint) if sandbox != "none" else None
        try:
            proc = BotProcess(step, {}, log, sandbox=box, writable=True)
        except BotStartError as exc:
            log.close()
            raise BuildError(f"{manifest.name}'s build cannot start: {exc}") from None
        owned = proc.uid is not None  # run as a user of its own: the copy is given back
        deadline = time.monotonic() + timeout_s
        free_before, overflow = shutil.disk_usage(files).free, ""
        try:
            while proc.alive() and time.monotonic() < deadline and not overflow:
                time.sleep(BUILD_POLL_S)
                overflow = _disk_overflow(free_before, shutil.disk_usage(files).free)
            timed_out = proc.alive() and not overflow
        finally:
            proc.kill()
            log.close()
            if owned:
                give_back(manifest, files)
    if overflow or timed_out or proc.returncode != 0:
        how = overflow or (f"took longer than {timeout_s:.0f} s" if timed_out
                           else proc.describe_exit())
        where = f"; its log, {log_path}" if log_path is not None else ""
        tail = log_tail(log_path, 5) if log_path is not None else []
        raise BuildError(f"{manifest.name}'s build ({' '.join(manifest.build)}) {how}{where}"
                         + "".join(f"\n  | {line}" for line in tail))


def _disk_overflow(free_before: int, free: int) -> str:
    """Why a build must stop for what it wrote (the disk's free space ``free`` now, and
    ``free_before`` as it began), or nothing."""
    allowed = min(BUILD_DISK_BYTES, free_before // 2)
    if free_before - free <= allowed:
        return ""
    return (f"wrote more than {size_text(allowed)} to disk (a build may write at most "
            f"{size_text(BUILD_DISK_BYTES)}, and half the free space it found), and was stopped")


def give_back(manifest: BotManifest, files: Path) -> None:
    """Give a built copy back to the runner's user once its build has ended, so that no bot
    can change it later (within bounds: a build that left too much fails)."""
    try:
        chown_tree(manifest.folder, os.geteuid(), os.getegid())
    except TreeError as exc:
        raise _left(manifest.name, files, exc) from None


def _left(name: str, files: Path, exc: TreeError) -> BuildError:
    """The error for a copy its build left with what no bot's folder may hold (``exc``), the
    path named within the copy (``files``)."""
    where = (f"{exc.path.relative_to(files)}" if exc.path.is_relative_to(files)
             and exc.path != files else "its copy")
    return BuildError(f"{name}'s build left what no bot's folder may hold: {where} {exc.why}")
