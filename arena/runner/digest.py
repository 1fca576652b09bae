"""The content digest of a bot: what a tournament compares to know that a bot is the same program
when it resumes.

A bot's program is its folder plus the folders its manifest ``needs``. The digest covers every
file in them (relative path, whether it is executable, and content; a symbolic link by where it
points), in a fixed order, and skips only Python's byte-code caches, which the interpreter
rewrites at will. Editing, adding or removing any other file changes it.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from arena.runner.bots import BotManifest

#: Folders and files that do not belong to a bot's program.
SKIPPED_DIRS = frozenset({"__pycache__"})
SKIPPED_SUFFIXES = (".pyc",)
_CHUNK = 1 << 20


def bot_digest(manifest: BotManifest) -> str:
    """The SHA-256 of the bot's folder and the folders it needs, as hex."""
    h = hashlib.sha256()
    for folder in (manifest.folder, *manifest.needs):
        h.update(b"folder\0")
        _walk(Path(folder), h)
    return h.hexdigest()


def _walk(root: Path, h: hashlib._Hash) -> None:
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        links = sorted(d for d in dirnames if (here / d).is_symlink())
        for name in links:  # a linked folder counts by where it points, like a linked file
            rel = (here / name).relative_to(root).as_posix().encode()
            h.update(b"link\0" + rel + b"\0" + os.readlink(here / name).encode() + b"\0")
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and d not in links)
        for name in sorted(filenames):
            if name.endswith(SKIPPED_SUFFIXES):
                continue
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix().encode()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                h.update(b"link\0" + rel + b"\0" + os.readlink(path).encode() + b"\0")
                continue
            executable = b"x" if info.st_mode & 0o111 else b"-"
            h.update(b"file\0" + rel + b"\0" + executable + b"\0"
                     + str(info.st_size).encode() + b"\0")
            with path.open("rb") as f:
                while chunk := f.read(_CHUNK):
                    h.update(chunk)
