"""Bots shipped to the workers of a cluster: packed once on the organiser's machine, unpacked
once on each worker.

A bot's program is its folder plus the folders its manifest ``needs``
(:mod:`arena.runner.game.digest`). A package is one gzipped tar archive of them, laid out at the
same paths relative to the deepest folder that holds them all, so that ``needs =
["../greedy-py"]`` still finds its folder beside the bot's. The archive holds what the digest
covers, read as the digest reads it (never through a link, never a FIFO or device): it keeps
file permissions (an executable stays executable; set-id bits go) and symbolic links, and skips
Python's byte-code caches.

A package is named by its key: the SHA-256 of the bot's content digest and of the layout
(where the bot's folder and each needed folder sit in the archive), so a changed file, or the
same files laid out otherwise, gets a new key. A worker unpacks a key once, into
``<cache>/<key>/files/``: into a temporary folder first, renamed into place whole, so the
folder is complete or absent, and workers or slots that unpack the same key at once agree. An
archive is unpacked as hostile: nothing outside its folder, no device files or set-id bits, no
link to an absolute path or out of the folder, and nothing written through a link it holds.
"""

from __future__ import annotations

import io
import os
import posixpath
import stat
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.runner.game.digest import layout, package_key, program_folders
from arena.runner.game.disk import PACKAGES_CACHE, cache_folder, folder_in_place, mark, marked
from arena.runner.game.manifest import BotManifest
from arena.runner.game.trees import LINK, Entry, Folder

#: The file that marks a complete unpacked package, beside its ``files`` folder.
UNPACKED = ".arena-unpacked"
#: gzip's fastest level: bots are mostly small text, or packages that compress little.
COMPRESS_LEVEL = 1


class ShippingError(RuntimeError):
    """A package that cannot be unpacked (a damaged archive, a link out of its folder)."""


@dataclass(frozen=True)
class Package:
    """One bot's program as an archive. ``folder`` is the bot's folder inside it."""

    name: str
    key: str
    folder: str
    data: bytes


def cache_root() -> Path:
    """Where a worker keeps unpacked packages: ``$XDG_CACHE_HOME/arena/cluster-bots``, else
    ``~/.cache/arena/cluster-bots``."""
    return cache_folder(PACKAGES_CACHE)


def pack(manifest: BotManifest) -> Package:
    """The bot's program as a package. Raises :class:`~arena.runner.game.trees.TreeError` for what
    no bot's folder may hold."""
    root, places = layout(manifest)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=COMPRESS_LEVEL,
                      format=tarfile.PAX_FORMAT) as tar:
        added: set[str] = set()
        for place in places:
            for folder, entries in program_folders(root / place):
                for entry, info in _members(place, folder, entries):
                    if info.name in added:  # a needed folder inside the bot's own
                        continue
                    added.add(info.name)
                    if entry is not None and info.isreg():
                        with folder.open(entry) as f:
                            tar.addfile(info, f)
                    else:
                        tar.addfile(info)
    return Package(manifest.name, package_key(manifest), places[0], buffer.getvalue())


def _members(place: str, folder: Folder,
             entries: list[Entry]) -> Iterator[tuple[Entry | None, tarfile.TarInfo]]:
    """The archive's members for one folder of the program: the folder itself (but the
    archive's top), then its files and links."""
    here = posixpath.normpath(posixpath.join(place, folder.path))
    if here != ".":
        info = tarfile.TarInfo(here)
        info.type, info.mode = tarfile.DIRTYPE, stat.S_IMODE(os.fstat(folder.fd).st_mode) & 0o777
        yield None, info
    for entry in entries:
        info = tarfile.TarInfo(posixpath.normpath(posixpath.join(here, entry.name)))
        info.mode, info.mtime = stat.S_IMODE(entry.mode) & 0o777, int(entry.mtime)
        if entry.kind == LINK:
            info.type, info.linkname = tarfile.SYMTYPE, entry.target
        else:
            info.size = entry.size
        yield entry, info


def unpacked(cache: Path, key: str) -> Path | None:
    """The folder holding package ``key``'s files if it was unpacked in ``cache``."""
    target = cache / key
    return target / "files" if marked(target, UNPACKED) else None


def unpack(cache: Path, key: str, data: bytes) -> Path:
    """The folder holding package ``key``'s files, unpacked from ``data`` unless it already
    is. Raises :class:`ShippingError`."""
    files = unpacked(cache, key)
    if files is not None:
        return files
    with folder_in_place(cache / key, UNPACKED) as staged:
        (staged / "files").mkdir(parents=True)
        for folder in (staged, staged / "files"):
            folder.chmod(0o755)  # the sandboxed bot, a user of its own as root's, reads it
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                members = _checked(tar.getmembers(), key)
                # "data": nothing outside the folder, no device files, no set-id bits; file
                # modes are kept otherwise.
                tar.extractall(staged / "files", members=members, filter="data")
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise ShippingError(f"cannot unpack bot package {key[:16]}: {exc}") from None
        mark(staged, UNPACKED, "complete\n")
    return cache / key / "files"


def _checked(members: list[tarfile.TarInfo], key: str) -> list[tarfile.TarInfo]:
    """The archive's members, refused (:class:`ShippingError`) if one would be written through
    a link the archive holds, whatever tarfile's own filter makes of it."""
    links = {posixpath.normpath(m.name) for m in members if m.issym() or m.islnk()}
    for member in members:
        parts = posixpath.normpath(member.name).split("/")
        for end in range(1, len(parts)):
            if "/".join(parts[:end]) in links:
                raise ShippingError(f"cannot unpack bot package {key[:16]}: {member.name!r} "
                                    f"lies behind the link {'/'.join(parts[:end])!r}")
    return members
