"""Private folders under the temporary folder that a killed process does not leave for good.

A process killed outright (SIGKILL, the out-of-memory killer) runs no clean-up, so a folder it
made under ``/tmp`` would stay there. Each folder made here holds a lock file, ``.owner``,
locked (``flock``) by the process that made it for as long as the folder is in use; the kernel
drops the lock when that process ends, however it ends. The first time a process makes a folder
with a given prefix it sweeps the folders of that prefix whose lock is free: whoever made them
is gone.

The lock file is made under another name, locked, then renamed into place, so a ``.owner`` is
never seen unlocked while its maker lives. A folder without one (its maker killed between
making the folder and locking it, or a folder made by a version without locks, which may still
be in use: a game worker keeps its doors' folder for its whole life) is swept once it has not
changed for :data:`GRACE_S`. Only directories of this user are looked at, never through a link.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import stat
import tempfile
import time

#: The lock file in each folder.
LOCK_NAME = ".owner"
#: A folder without a lock file that changed more recently than this is never swept.
GRACE_S = 3600.0

#: The lock of each folder this process holds, by path.
_held: dict[str, int] = {}
#: The (parent, prefix) pairs this process has swept.
_swept: set[tuple[str, str]] = set()


def private_folder(prefix: str, parent: str | None = None) -> str:
    """Make a folder named ``prefix`` and a random part in ``parent`` (the temporary folder
    by default), as :func:`make` does, sweeping that prefix there first (once a process)."""
    parent = parent or tempfile.gettempdir()
    sweep_once(parent, prefix)
    for _ in range(100):
        path = os.path.join(parent, prefix + secrets.token_hex(8))
        try:
            make(path)
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free name for a folder {prefix}… in {parent}")


def make(path: str) -> None:
    """Make the folder ``path`` (mode 0700) and hold its lock until :func:`remove`. Raises
    FileExistsError if the path is taken (by anyone: nothing there is touched), and OSError
    if the folder cannot be made."""
    os.mkdir(path, 0o700)
    new = os.path.join(path, LOCK_NAME + ".new")
    fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW,
                 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.rename(new, os.path.join(path, LOCK_NAME))
    except BaseException:
        os.close(fd)
        raise
    _held[path] = fd


def remove(path: str) -> None:
    """Remove a folder made by :func:`make` and everything in it, then let go of its lock."""
    shutil.rmtree(path, ignore_errors=True)
    fd = _held.pop(path, None)
    if fd is not None:
        os.close(fd)


def sweep_once(parent: str, prefix: str) -> None:
    """:func:`sweep` ``parent`` for ``prefix``, the first time this process asks."""
    if (parent, prefix) not in _swept:
        _swept.add((parent, prefix))
        sweep(parent, prefix)


def sweep(parent: str, prefix: str) -> list[str]:
    """Remove the folders named ``prefix…`` in ``parent`` that no living process holds; the
    paths removed. Never raises: a folder that cannot be looked at is left alone."""
    removed: list[str] = []
    uid, now = os.getuid(), time.time()
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(prefix) or entry.path in _held:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid:
                continue
            if _abandoned(entry.path, now - info.st_mtime):
                removed.append(entry.path)
        except OSError:
            continue
    return removed


def _abandoned(path: str, age_s: float) -> bool:
    """Whether ``path``'s maker is gone; if so, the folder has been removed (under its lock,
    so that two sweepers do not both remove it)."""
    try:
        fd = os.open(os.path.join(path, LOCK_NAME),
                     os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        if age_s < GRACE_S:
            return False
        shutil.rmtree(path, ignore_errors=True)
        return True
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # its maker lives
        shutil.rmtree(path, ignore_errors=True)
        return True
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
