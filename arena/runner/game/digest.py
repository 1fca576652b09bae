"""The content digest of a bot: what a tournament compares to know that a bot is the same program
when it resumes; and the key of its program laid out as it is, which names its built copy and
its package for a cluster.

A bot's program is its folder plus the folders its manifest ``needs``. The digest covers every
file in them (relative path, whether it is executable, and content; a symbolic link by where it
points), in a fixed order, and skips only Python's byte-code caches, which the interpreter
rewrites at will. Editing, adding or removing any other file changes it. The folders are the
entrant's, so they are read as hostile (:mod:`arena.runner.game.trees`): no link is followed, a FIFO
or device is refused rather than opened, and the walk is bounded.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from arena.runner.game.manifest import BotManifest
from arena.runner.game.sandbox import layout_of
from arena.runner.game.trees import DIR, FILE, LINK, SPECIAL, Entry, Folder, special_file, walk

#: Folders and files that do not belong to a bot's program.
SKIPPED_DIRS = frozenset({"__pycache__"})
SKIPPED_SUFFIXES = (".pyc",)
_CHUNK = 1 << 20


def bot_digest(manifest: BotManifest) -> str:
    """The SHA-256 of the bot's folder and the folders it needs, as hex. Raises
    :class:`~arena.runner.game.trees.TreeError` for what no bot's folder may hold."""
    h = hashlib.sha256()
    for folder in (manifest.folder, *manifest.needs):
        h.update(b"folder\0")
        _walk(Path(folder), h)
    return h.hexdigest()


def program_folders(root: Path) -> Iterator[tuple[Folder, list[Entry]]]:
    """Each folder of ``root`` (not byte-code caches), with what of it belongs to the program:
    its files and links, but byte-code files (a link to a folder is kept whatever its name).
    Raises :class:`~arena.runner.game.trees.TreeError` for a FIFO, socket or device."""
    for folder in walk(root, descend=lambda e: e.name not in SKIPPED_DIRS):
        kept = []
        for entry in folder.entries:
            if entry.kind == SPECIAL:
                raise special_file(folder.where(entry), entry.mode)
            if entry.kind == DIR or (entry.name.endswith(SKIPPED_SUFFIXES) and not (
                    entry.kind == LINK and folder.leads_to_folder(entry))):
                continue
            kept.append(entry)
        yield folder, kept


def _walk(root: Path, h: hashlib._Hash) -> None:
    for folder, entries in program_folders(root):
        # A linked folder counts by where it points, like a linked file, before the files.
        linked = [e for e in entries if e.kind == LINK and folder.leads_to_folder(e)]
        for entry in [*linked, *(e for e in entries if e not in linked)]:
            rel = os.fsencode(entry.path)
            if entry.kind == LINK:
                h.update(b"link\0" + rel + b"\0" + os.fsencode(entry.target) + b"\0")
                continue
            assert entry.kind == FILE
            executable = b"x" if entry.mode & 0o111 else b"-"
            h.update(b"file\0" + rel + b"\0" + executable + b"\0"
                     + str(entry.size).encode() + b"\0")
            with folder.open(entry) as f:
                while chunk := f.read(_CHUNK):
                    h.update(chunk)


def layout(manifest: BotManifest) -> tuple[Path, list[str]]:
    """The deepest folder holding the bot's folder and every folder it needs, and each of
    them relative to it (the bot's first)."""
    return layout_of([manifest.folder, *manifest.needs])


def package_key(manifest: BotManifest) -> str:
    """The key of the bot's package: its content digest and its layout, hashed."""
    _, places = layout(manifest)
    text = bot_digest(manifest) + "\n" + json.dumps(places)
    return hashlib.sha256(text.encode()).hexdigest()
