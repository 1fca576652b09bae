"""Writing the runner's files safely, and recognising a full disk among the errors of its writes.

Folders the runner fills with what it did not write itself (a bot's built copy, an unpacked
package) are made complete or not at all (:func:`folder_in_place`), and the runner's marker
that one is complete sits beside what the bot could write, never inside it (:func:`marked`).

A tournament writes its journal (SQLite), the game records (in the workers), the bots' log
folder and the standings files. On a full disk each fails in its own way: ``OSError`` with
``ENOSPC`` (or ``EDQUOT``, a full quota, the same thing to a user), or SQLite's
``database or disk is full``. The tournament turns all of them into one message that names the
folder, instead of a traceback from wherever the write happened to be.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import socket
import sqlite3
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from arena.runner.game.trees import remove_tree

_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
#: SQLite could not grow the WAL index (``-shm``): on a full disk, what opening a journal gets.
_SQLITE_IOERR_SHMSIZE = 4874
#: Below this much free space, an I/O error of SQLite's is taken for a full disk: SQLite
#: reports some writes that fail for want of space as a plain ``disk I/O error``.
LOW_SPACE_BYTES = 1 << 20


def is_disk_full(exc: BaseException, folder: Path | None = None) -> bool:
    """True if ``exc`` says that a write failed for want of space. ``folder``, where the write
    went, lets an ambiguous SQLite I/O error count as a full disk if that disk is nearly full."""
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if code in (sqlite3.SQLITE_FULL, _SQLITE_IOERR_SHMSIZE):
            return True
        if "database or disk is full" in str(exc):
            return True
        return (code is not None and code & 0xFF == sqlite3.SQLITE_IOERR and folder is not None
                and _free_bytes(folder) < LOW_SPACE_BYTES)
    if isinstance(exc, OSError):
        return exc.errno in _FULL_ERRNOS
    return False


def _free_bytes(folder: Path) -> int:
    """Free space on the disk of ``folder`` (or of its nearest existing parent)."""
    for place in (folder, *folder.parents):
        if place.exists():
            try:
                return shutil.disk_usage(place).free
            except OSError:
                break
    return LOW_SPACE_BYTES


def disk_full_message(folder: Path, detail: object) -> str:
    """The one message a tournament stopped by a full disk ends with."""
    return (f"the disk holding {folder} is full ({detail}); every finished game is kept in the "
            "journal: free some space and run the same command to resume")


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that the file is complete or absent (written aside and
    synced, then renamed into place); on failure, a full disk included, no stray file is left
    behind. The file gets the usual permissions of this user's files."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file private (0600); results are for everyone who may read the
        # folder, like any file this user creates.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


#: Arena's caches (:func:`cache_folder`) of bots' built copies (arena.runner.game.build) and of the
#: packages a cluster's worker unpacks (arena.runner.cluster.shipping).
BUILDS_CACHE = "builds"
PACKAGES_CACHE = "cluster-bots"


def cache_folder(name: str) -> Path:
    """One of Arena's caches: ``$XDG_CACHE_HOME/arena/<name>``, else ``~/.cache/arena/<name>``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arena" / name


def marked(folder: Path, marker: str) -> bool:
    """Whether the folder holds the runner's file ``marker``: a file of its own, never a link
    to one (the runner writes its markers only where no bot can)."""
    try:
        return stat.S_ISREG(os.lstat(folder / marker).st_mode)
    except OSError:
        return False


def mark(folder: Path, marker: str, text: str) -> None:
    """Write the runner's file ``marker`` in ``folder``, which must not exist yet."""
    fd = os.open(folder / marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                 | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


@contextlib.contextmanager
def folder_in_place(target: Path, marker: str) -> Iterator[Path]:
    """Make the folder ``target`` complete or not at all: the block fills the folder it is
    given (a path beside ``target``, not yet created), which then becomes ``target`` by one
    rename, unless another process has put a complete one (holding the file ``marker``) there
    first. The work folder is removed in every case, whatever a bot left in it; what the
    block raises goes on."""
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name[:24]}-", dir=target.parent))
    try:
        staged = work / "staged"
        yield staged
        try:
            staged.rename(target)
        except OSError:
            if not marked(target, marker):  # not another's copy: a real failure
                raise
    finally:
        remove_tree(work)


#: The lock file a running tournament holds in its output folder.
LOCK_FILE = ".arena-lock"


def lock_held(folder: Path) -> bool | None:
    """Whether a run holds ``folder``'s lock now, read without touching the lock (taking it,
    even shared, would turn a run starting at that moment away): from the kernel's table of
    locks, ``/proc/locks``, matched by the lock file's inode. None where that table cannot be
    read (not Linux)."""
    try:
        inode = (folder / LOCK_FILE).stat().st_ino
    except OSError:
        return False
    try:
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # A line: "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (device major:minor:inode).
    for line in table.splitlines():
        fields = line.split()
        if "FLOCK" in fields and any(f.count(":") == 2 and f.rsplit(":", 1)[1] == str(inode)
                                     for f in fields):
            return True
    return False


class FolderBusyError(RuntimeError):
    """Another run holds the output folder's lock; the message names it."""


#: The folders this process holds locked: folder -> [descriptor, holders].
_HELD: dict[Path, list[int]] = {}


class FolderLock:
    """An exclusive lock on a tournament's output folder, held by one run at a time.

    The kernel's ``flock`` on :data:`LOCK_FILE` is released when its holder exits however it
    ends (SIGKILL included), so a stale lock cannot outlive a crash. The file names its holder
    (process id, host, start time) for the message a second run gets. The file stays in the
    folder after the run: removing it would let two runs lock two different files.

    Within one process the lock is shared: a second holder of the same folder (a library user
    opening a tournament twice) counts up, and the lock goes when the last one releases.
    """

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / LOCK_FILE
        self._key = folder.resolve()
        self._released = False
        held = _HELD.get(self._key)
        if held is not None:
            held[1] += 1
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "unknown"
            os.close(fd)
            raise FolderBusyError(
                f"{folder} is in use by another arena run ({holder}); wait for it to end, "
                "or stop it first (Ctrl-C where it runs)"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}, since {started}\n"
                  .encode(), 0)
        _HELD[self._key] = [fd, 1]

    def release(self) -> None:
        """Give the lock up (idempotent)."""
        if self._released:
            return
        self._released = True
        held = _HELD[self._key]
        held[1] -= 1
        if held[1] == 0:
            del _HELD[self._key]
            os.close(held[0])
