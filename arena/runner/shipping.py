"""Bots shipped to the workers of a cluster: packed once on the organiser's machine, unpacked
once on each worker.

A bot's program is its folder plus the folders its manifest ``needs``
(:mod:`arena.runner.digest`). A package is one gzipped tar archive of them, laid out at the
same paths relative to the deepest folder that holds them all, so that ``needs =
["../greedy-py"]`` still finds its folder beside the bot's. The archive keeps file modes (an
executable stays executable) and symbolic links, and skips Python's byte-code caches, as the
digest does.

A package is named by its key: the SHA-256 of the bot's content digest and of the layout
(where the bot's folder and each needed folder sit in the archive), so a changed file, or the
same files laid out otherwise, gets a new key. A worker unpacks a key once, into
``<cache>/<key>/files/``: into a temporary folder first, renamed into place whole, so the
folder is complete or absent, and workers or slots that unpack the same key at once agree.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from dataclasses import dataclass
from pathlib import Path

from arena.runner.bots import BotManifest
from arena.runner.digest import SKIPPED_DIRS, SKIPPED_SUFFIXES, bot_digest
from arena.runner.sandbox import layout_of
from arena.runner.storage import folder_in_place

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
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arena" / "cluster-bots"


def layout(manifest: BotManifest) -> tuple[Path, list[str]]:
    """The deepest folder holding the bot's folder and every folder it needs, and each of
    them relative to it (the bot's first)."""
    return layout_of([manifest.folder, *manifest.needs])


def package_key(manifest: BotManifest) -> str:
    """The key of the bot's package: its content digest and its layout, hashed."""
    _, places = layout(manifest)
    text = bot_digest(manifest) + "\n" + json.dumps(places)
    return hashlib.sha256(text.encode()).hexdigest()


def pack(manifest: BotManifest) -> Package:
    """The bot's program as a package."""
    root, places = layout(manifest)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=COMPRESS_LEVEL,
                      format=tarfile.PAX_FORMAT) as tar:
        added: set[str] = set()
        for place in places:
            for path in _files(root / place):
                name = path.relative_to(root).as_posix()
                if name in added:  # a needed folder inside the bot's own
                    continue
                added.add(name)
                info = tar.gettarinfo(str(path), arcname=name)
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                if info.isreg():
                    with path.open("rb") as f:
                        tar.addfile(info, f)
                else:
                    tar.addfile(info)
    return Package(manifest.name, package_key(manifest), places[0], buffer.getvalue())


def _files(folder: Path) -> list[Path]:
    """The folder's folders, files and links (a linked folder as a link), in a fixed order,
    without byte-code caches."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        here = Path(dirpath)
        links = [d for d in dirnames if (here / d).is_symlink()]
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and d not in links)
        if here != folder:
            out.append(here)
        out += [here / n for n in sorted(filenames + links) if not n.endswith(SKIPPED_SUFFIXES)]
    return out


def unpacked(cache: Path, key: str) -> Path | None:
    """The folder holding package ``key``'s files if it was unpacked in ``cache``."""
    target = cache / key
    return target / "files" if (target / UNPACKED).is_file() else None


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
                # "data": nothing outside the folder, no device files, no set-id bits; file
                # modes are kept otherwise.
                tar.extractall(staged / "files", filter="data")
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise ShippingError(f"cannot unpack bot package {key[:16]}: {exc}") from None
        (staged / UNPACKED).write_text("complete\n", encoding="utf-8")
    return cache / key / "files"
