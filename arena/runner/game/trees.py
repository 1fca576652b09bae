"""Folders the runner did not write itself: a bot's folder as its entrant submitted it, and the
built copy a bot's build step wrote. Both are hostile.

Whatever such a folder holds was chosen by someone the organiser does not trust, and the runner
works on them with its own rights (root's, often). So in them the runner never follows a path:
every folder is opened relative to its parent's descriptor with ``O_NOFOLLOW`` and checked to be
the folder that was listed, and every file likewise, ``O_NONBLOCK`` too (a FIFO opened for
reading waits for a writer for ever, a device may do anything), after which its type is checked
on the descriptor. A symbolic link is only ever read as a link, never followed; a FIFO, socket or
device is never opened. A walk is bounded, in entries, in depth and in time
(:class:`WalkLimits`), so that a tree built to be large or deep costs the runner a bounded
amount and ends in one line naming it (:class:`TreeError`), never a hang or a traceback.

What a bot's folder may hold (:func:`check_program`): files, folders, and symbolic links whose
target is relative and stays within the bot's folders (its own and those it needs). A FIFO,
socket or device is refused: no program needs one in its folder, and reading one would hang or
harm the runner. A link out is refused: it would make the bot read, where it was checked, what
its snapshot, its built copy and its package on a cluster do not hold, and an archive cannot
carry it.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

#: What an entry of a folder is.
DIR, FILE, LINK, SPECIAL = "folder", "file", "link", "special"


class TreeError(ValueError):
    """A hostile tree the runner will not work on; one line naming the path and why."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why


@dataclass(frozen=True)
class WalkLimits:
    """How much of a tree a walk takes on before it gives up (:class:`TreeError`)."""

    entries: int = 200_000
    depth: int = 64
    seconds: float = 60.0


def kind_of(mode: int) -> str:
    """A file's type, in a word or two, for messages."""
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "a file" if stat.S_ISREG(mode) else "of an unknown type"


@dataclass(frozen=True)
class Entry:
    """One entry of a folder, as listed (``lstat``: a link is a link)."""

    name: str
    path: str  #: relative to the walk's root, with ``/``
    kind: str  #: DIR, FILE, LINK or SPECIAL
    mode: int
    size: int
    mtime: float
    device: int
    inode: int
    target: str = ""  #: a link's target


@dataclass
class Folder:
    """One folder of a walk: its entries, sorted by name, and its descriptor, open until the
    walk moves past what is below it."""

    root: Path
    path: str  #: relative to the walk's root ("" for the root)
    fd: int
    entries: list[Entry] = field(default_factory=list)

    def where(self, entry: Entry | None = None) -> Path:
        """The path of the folder, or of one of its entries, for messages."""
        rel = self.path if entry is None else entry.path
        return self.root / rel if rel else self.root

    def open(self, entry: Entry) -> BinaryIO:
        """A file of this folder, opened for reading: never through a link, never a FIFO or
        device, and the very file listed (else :class:`TreeError`)."""
        try:
            fd = os.open(entry.name, _FILE_FLAGS, dir_fd=self.fd)
        except OSError as exc:
            raise TreeError(self.where(entry), f"cannot be read: {exc.strerror}") from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) != (entry.device,
                                                                             entry.inode):
            os.close(fd)
            raise TreeError(self.where(entry), "changed while it was read")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")

    def leads_to_folder(self, entry: Entry) -> bool:
        """Whether a link of this folder leads to a folder (looked at, not opened)."""
        try:
            return stat.S_ISDIR(os.stat(entry.name, dir_fd=self.fd).st_mode)
        except OSError:
            return False


def open_folder(path: Path) -> int:
    """A descriptor of the folder ``path``, itself not a link (its parents may be: they are
    the runner's own)."""
    try:
        return os.open(path, _DIR_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise TreeError(path, "is a symbolic link, not a folder") from None
        raise TreeError(path, f"cannot be opened as a folder: {exc.strerror}") from None


class _Budget:
    """What a walk has left to spend."""

    def __init__(self, root: Path, limits: WalkLimits) -> None:
        self.root = root
        self.limits = limits
        self.entries = 0
        self.deadline = time.monotonic() + limits.seconds

    def spend(self, depth: int, entries: int) -> None:
        self.entries += entries
        if self.entries > self.limits.entries:
            raise TreeError(self.root, f"holds more than {self.limits.entries} entries")
        if depth > self.limits.depth:
            raise TreeError(self.root, f"holds folders nested more than {self.limits.depth} "
                                       "deep")
        if time.monotonic() > self.deadline:
            raise TreeError(self.root, f"took more than {self.limits.seconds:.0f} s to go "
                            "through")


def _entry(fd: int, name: str, rel: str) -> Entry:
    info = os.stat(name, dir_fd=fd, follow_symlinks=False)
    mode = info.st_mode
    kind = (DIR if stat.S_ISDIR(mode) else FILE if stat.S_ISREG(mode)
            else LINK if stat.S_ISLNK(mode) else SPECIAL)
    target = os.readlink(name, dir_fd=fd) if kind == LINK else ""
    return Entry(name, rel, kind, mode, info.st_size, info.st_mtime, info.st_dev, info.st_ino,
                 target)


def _listing(root: Path, fd: int, rel: str, depth: int, budget: _Budget) -> Folder:
    folder = Folder(root, rel, fd)
    try:
        names = sorted(os.listdir(fd))
        budget.spend(depth, len(names))
        folder.entries = [_entry(fd, name, posixpath.join(rel, name) if rel else name)
                          for name in names]
    except OSError as exc:  # unreadable, or changed while it was read
        raise TreeError(folder.where(), f"cannot be read: {exc.strerror}") from None
    return folder


def walk(root: Path, limits: WalkLimits = WalkLimits(),
         descend: Callable[[Entry], bool] = lambda _entry: True) -> Iterator[Folder]:
    """Every folder of the tree ``root``, itself first, each before the folders in it (those
    ``descend`` accepts, in name order), without ever following a link. A folder's
    descriptor is valid while it is the last one yielded. Raises :class:`TreeError`."""
    budget = _Budget(root, limits)

    def below(folder: Folder) -> Iterator[Entry]:
        return iter([e for e in folder.entries if e.kind == DIR and descend(e)])

    # The folders open now, from the root down, each with those below it still to walk.
    stack: list[tuple[Folder, Iterator[Entry]]] = []
    try:
        fd = open_folder(root)
        stack.append((Folder(root, "", fd), iter(())))
        top = _listing(root, fd, "", 0, budget)
        stack[0] = (top, iter(()))
        yield top
        stack[0] = (top, below(top))
        while stack:
            parent, rest = stack[-1]
            entry = next(rest, None)
            if entry is None:
                stack.pop()
                os.close(parent.fd)
                continue
            fd = _open_below(parent, entry)
            stack.append((Folder(root, entry.path, fd), iter(())))
            folder = _listing(root, fd, entry.path, len(stack) - 1, budget)
            stack[-1] = (folder, iter(()))
            yield folder
            stack[-1] = (folder, below(folder))
    finally:
        for folder, _ in stack:
            os.close(folder.fd)


def _open_below(parent: Folder, entry: Entry) -> int:
    """The descriptor of a folder listed in ``parent``: not through a link, and the very
    folder listed."""
    try:
        fd = os.open(entry.name, _DIR_FLAGS, dir_fd=parent.fd)
    except OSError as exc:
        raise TreeError(parent.where(entry), f"cannot be opened: {exc.strerror}") from None
    info = os.fstat(fd)
    if (info.st_dev, info.st_ino) != (entry.device, entry.inode):
        os.close(fd)
        raise TreeError(parent.where(entry), "changed while it was read")
    return fd


def read_small(path: Path, limit: int) -> bytes:
    """The bytes of the file ``path`` (a file of a hostile tree, found by its path from a
    folder of the runner's), at most ``limit`` of them: not through a link at its end, never
    a FIFO or device. Raises FileNotFoundError if there is none, :class:`TreeError` if it is
    something else or larger."""
    try:
        fd = os.open(path, _FILE_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise TreeError(path, "is a symbolic link, not a file of its own") from None
        raise TreeError(path, f"cannot be read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TreeError(path, f"is {kind_of(info.st_mode)}, not a file")
        if info.st_size > limit:
            raise TreeError(path, f"is {info.st_size} bytes, more than the {limit} allowed")
        os.set_blocking(fd, True)
        return f.read(limit + 1)[:limit]


def chown_tree(root: Path, uid: int, gid: int, limits: WalkLimits = WalkLimits()) -> None:
    """Give ``root`` and everything below it (links themselves, never their targets) to
    ``uid``:``gid``. Raises :class:`TreeError` past ``limits``."""
    for folder in walk(root, limits):
        if not folder.path:
            os.fchown(folder.fd, uid, gid)
        for entry in folder.entries:
            os.chown(entry.name, uid, gid, dir_fd=folder.fd, follow_symlinks=False)


def special_file(path: Path, mode: int) -> TreeError:
    """The error for a FIFO, socket or device found in a bot's folder."""
    return TreeError(path, f"is {kind_of(mode)}: a bot's folder may hold only files, folders "
                           "and links within it")


def _link_problem(link: Path, target: str, folders: Sequence[Path]) -> str | None:
    """Why the link ``link`` (to ``target``) may not be in a bot's folders, or None: it must
    be relative and lead, as the kernel follows it here, into one of ``folders``."""
    if os.path.isabs(target):
        return f"a symbolic link to the absolute path {target}"
    real = Path(os.path.realpath(link))
    if not any(real.is_relative_to(f) for f in folders):
        return f"a symbolic link to {target}, which leads out of the bot's folders (to {real})"
    try:
        followed = os.stat(link)
    except FileNotFoundError:
        return None  # it leads nowhere, within the folders
    except OSError as exc:
        return f"a symbolic link to {target}, which cannot be followed ({exc.strerror})"
    try:
        same = os.stat(real)
    except OSError:
        same = None
    if same is None or (same.st_dev, same.st_ino) != (followed.st_dev, followed.st_ino):
        return f"a symbolic link to {target}, which the kernel follows elsewhere than it reads"
    return None


def check_program(folders: Sequence[Path], limits: WalkLimits = WalkLimits()) -> None:
    """Refuse (:class:`TreeError`, naming the entry) a bot's folders if one holds a FIFO,
    socket or device, or a link that is absolute or leads out of all of them; or if one is
    beyond ``limits``."""
    real = [Path(os.path.realpath(f)) for f in folders]
    for root in folders:
        for folder in walk(root, limits):
            for entry in folder.entries:
                where = folder.where(entry)
                if entry.kind == SPECIAL:
                    raise special_file(where, entry.mode)
                if entry.kind == LINK:
                    problem = _link_problem(where, entry.target, real)
                    if problem is not None:
                        raise TreeError(where, f"is {problem}: a bot's links must stay "
                                               "within its folders")


def remove_tree(path: Path, seconds: float = 60.0) -> None:
    """Remove the folder ``path`` and everything in it, however deep, without following a
    link; what is left after ``seconds`` (or cannot be removed) stays. Never raises."""
    deadline = time.monotonic() + seconds
    try:
        fd = open_folder(path)
    except TreeError:
        return
    top = os.fstat(fd)
    # Folder names from the top down, each with its identity and the folders left in it: only
    # one descriptor is open at a time (a deep tree would use up the runner's), and the way
    # back up ("..") is checked to be the folder that was come from.
    stack: list[tuple[str, tuple[int, int], list[str]]] = []
    here = (top.st_dev, top.st_ino)
    try:
        pending = _clear_files(fd)
        while time.monotonic() < deadline:
            if pending:
                name = pending.pop()
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = child
                stack.append((name, here, pending))
                info = os.fstat(fd)
                here, pending = (info.st_dev, info.st_ino), _clear_files(fd)
                continue
            if not stack:
                os.close(fd)
                fd = -1
                os.rmdir(path)
                return
            name, here, pending = stack.pop()
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            info = os.fstat(fd)
            if (info.st_dev, info.st_ino) != here:
                return  # moved meanwhile: remove nothing more
            os.rmdir(name, dir_fd=fd)
    except OSError:
        return
    finally:
        if fd >= 0:
            os.close(fd)


def _clear_files(fd: int) -> list[str]:
    """Remove everything but folders from the folder ``fd``; the names of its folders."""
    folders = []
    for name in os.listdir(fd):
        if stat.S_ISDIR(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
            folders.append(name)
        else:
            os.unlink(name, dir_fd=fd)
    return folders
