"""The build step of a bot whose manifest has one (``build = ["make"]``): run once per content
of the bot's folder, before the bot plays and outside every clock, in a copy of the folder
that the bot then runs from.

A built copy lives in the build cache (``$XDG_CACHE_HOME/arena/builds``, else
``~/.cache/arena/builds``) under the bot's name and the key of its program: the content digest
of its folder and the folders it needs, and where they sit (:mod:`arena.runner.shipping`). The
copy holds them all, laid out as they are. So it is built once however many games, tournaments
and checks use it, and again when any file changes. The build runs in the bot's sandbox like the bot
(with its copy writable, the rest of the bot's view read-only, no network), under its limits
and a time limit, with its output in a log. A copy is complete or absent: it is built in a
temporary folder and renamed into place only once the build succeeded.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import time
from pathlib import Path

from arena.runner.botlog import DEFAULT_LOG_CAP, BotLog, log_tail
from arena.runner.bots import BotManifest, BotProcess, BotStartError, give_back
from arena.runner.sandbox import Sandbox
from arena.runner.shipping import layout, package_key
from arena.runner.storage import folder_in_place

#: The longest a build may take.
BUILD_TIMEOUT_S = 600.0
#: The file that marks a finished copy.
DONE = ".arena-built"


class BuildError(RuntimeError):
    """A bot's build step failed; the message says how, with the end of its log."""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arena" / "builds"


def built(manifest: BotManifest, sandbox: str, log_dir: Path | None = None,
          timeout_s: float = BUILD_TIMEOUT_S) -> BotManifest:
    """The manifest to play: ``manifest`` itself when it has no build step, else the same bot
    running from its built copy (built now if it is not yet). Raises :class:`BuildError`."""
    if not manifest.build:
        return manifest
    # The copy holds the bot's folder and the folders it needs, at the same places relative to
    # each other, so a bot that finds them beside its own (``../greedy-py``) still does.
    root, places = layout(manifest)
    target = cache_root() / f"{manifest.name}-{package_key(manifest)[:24]}"

    def at(base: Path) -> BotManifest:
        return dataclasses.replace(manifest, folder=base / places[0],
                                   needs=tuple(base / p for p in places[1:]))

    if not (target / DONE).is_file():
        with folder_in_place(target, DONE) as copy:
            for place in sorted(set(places), key=len):  # a folder before any inside it
                shutil.copytree(root / place, copy / place, symlinks=True, dirs_exist_ok=True)
            _run(at(copy), sandbox, log_dir, timeout_s)
            (copy / DONE).write_text(f"built from {manifest.folder}\n", encoding="utf-8")
    return dataclasses.replace(at(target), build=())


def _run(manifest: BotManifest, sandbox: str, log_dir: Path | None, timeout_s: float) -> None:
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
        try:
            while proc.alive() and time.monotonic() < deadline:
                time.sleep(0.02)
            timed_out = proc.alive()
        finally:
            proc.kill()
            log.close()
            if owned:
                give_back(manifest.folder)
    if timed_out or proc.returncode != 0:
        how = (f"took longer than {timeout_s:.0f} s" if timed_out
               else proc.describe_exit())
        where = f"; its log, {log_path}" if log_path is not None else ""
        tail = log_tail(log_path, 5) if log_path is not None else []
        raise BuildError(f"{manifest.name}'s build ({' '.join(manifest.build)}) {how}{where}"
                         + "".join(f"\n  | {line}" for line in tail))
