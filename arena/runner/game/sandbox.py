"""The bubblewrap sandbox around a bot process (opt-in: ``sandbox = "bwrap"``).

A sandboxed bot runs under ``bwrap`` with every namespace of its own (``--unshare-all``):

- **processes**: its own PID namespace, so it sees and can signal only its own processes; the
  namespace's first process is bwrap's init, and when it dies the kernel kills everything left
  in the namespace, however it was forked (double fork, setsid). The bwrap process outside is
  what :class:`~arena.runner.game.processes.BotProcess` starts in its own process group; bwrap
  puts its init in a session of its own, so killing that group is not enough: BotProcess kills the
  init first (:func:`sandbox_init`). ``--die-with-parent`` ends the sandbox if the bwrap
  process dies first (the runner's death kills it: a parent-death signal).
- **network**: its own network namespace (only a loopback of its own): no TCP to anything
  outside it. It reaches the referee through an ``ipc://`` socket in the endpoint folder,
  mounted at :data:`INSIDE_ENDPOINT_DIR` (a path-based unix socket works across network
  namespaces).
- **files**: a fresh root holding read-only ``/usr`` (and the ``/bin``, ``/lib`` links or
  folders); an ``/etc`` of its own: ``passwd``, ``group``, ``hosts`` and ``nsswitch.conf``
  written for it (root, the bot's user and nobody; localhost), and the few host files that the
  dynamic linker and runtimes read (:data:`ETC_FILES`, ``/etc/alternatives`` among them: ``cc``
  is a link through it); the bot's folder and the folders its manifest ``needs``, read-only (in
  a build step its folder writable) under :data:`INSIDE_BOT`, laid out as they are on the host
  relative to each other (:func:`layout_of`), its folder its working directory; the runtime the
  command needs read-only (for ``{python}``: its virtual environment's packages, the
  installation it was made from and the ``arena`` package, under ``/arena``:
  :mod:`arena.runner.game.sandbox_python`; for a program named without a path, such as ``node``,
  its installation at its own path if outside ``/usr``); a private writable ``/tmp`` (tmpfs,
  gone with the sandbox), the endpoint folder (read-only: enough to connect), ``/proc`` of its
  own PID namespace and a minimal ``/dev``. Nothing else: not the tournament file, journal, game
  records, logs, seed key, other bots' folders or the runner's tree. The bot's command line,
  working directory and ``/`` name no host folder of the runner's; only ``/proc/self/mountinfo``
  does, where the kernel names each bound folder's source.
- **host name**: a UTS namespace of its own, named :data:`HOSTNAME`.
- **environment**: only ``ARENA_*``, ``PATH``, ``HOME=/tmp``, ``TMPDIR=/tmp``, ``LANG`` and
  ``PYTHONDONTWRITEBYTECODE=1`` (the bot's folder is read-only), and for ``{python}`` the
  ``PYTHONPATH`` and ``LD_LIBRARY_PATH`` its neutral paths need (:func:`python_view`), handed
  to bwrap as its own environment rather than on its command line, where any local user could
  read the token.
- **privileges**: no capabilities. Run by root, bwrap sets the sandbox up with root's rights
  and the bot runs as a user of its own, a high user id no account has (:func:`claim_bot_uid`), so
  that it cannot read what only root may, and the process limit counts its processes alone.
  Run by anyone else, the sandbox has a user namespace of its own, mapping the bot to the
  runner's user.
- **process count**: at most ``limits.processes`` processes and threads (RLIMIT_NPROC, set
  where the kernel counts only the sandbox's processes: :func:`inner_command`); a fork bomb
  stops there.

The other resource limits are applied to the bwrap process before its exec and are inherited
by everything inside; they are per process, so a bot's memory is at most ``processes`` x
``memory_mb`` plus its ``/tmp`` (:data:`TMP_BYTES`).
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from arena.protocol.wire import SOCKET_NAME
from arena.runner.game.sandbox_python import PythonView, python_view
from arena.runner.game.seccomp import SeccompError, filter_fd

#: The sandbox modes a tournament file, ``play`` and ``check-bot`` accept.
MODES = ("none", "bwrap")
#: Bots are sandboxed unless the user opts out (``--no-sandbox``, ``sandbox = "none"``).
DEFAULT_MODE = "bwrap"
#: Where the endpoint folder appears inside the sandbox.
INSIDE_ENDPOINT_DIR = "/run/arena"
#: Files of the host's /etc a bot may need (names, or patterns of them): the dynamic linker's
#: cache and configuration (libraries in multiarch folders are found through it), the time
#: zone, the links through which the system names its chosen programs (``/usr/bin/cc`` is a
#: link to ``/etc/alternatives/cc``), and the configuration a packaged Java links to from
#: ``/usr`` (``java-17-openjdk``). No secrets: no shadow, no ssl keys, no resolver (there is no
#: network to resolve on).
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives", "java-*")
#: Files of /etc written for each sandbox (:func:`etc_files`), so that runtimes asking "who am
#: I" (getpwuid) or "where is localhost" get an answer, and the host's accounts stay unseen.
ETC_WRITTEN = ("passwd", "group", "hosts", "nsswitch.conf")
#: The sandbox's host name (its own UTS namespace), and its user's name in its /etc/passwd.
HOSTNAME = "sandbox"
BOT_USER = "bot"
#: The user and group ids of ``nobody``, which the kernel also shows for ids unmapped in a
#: user namespace.
NOBODY = 65534
#: Where the bot's folder and the folders it needs appear: each at its place in
#: :func:`layout_of` under this folder.
INSIDE_BOT = "/bot"
#: The size of the private /tmp (a tmpfs lives in memory, outside the address-space limit).
TMP_BYTES = 256 * 1024 * 1024
#: The PATH inside: the system's folders, then the command's own (added when it has one).
INSIDE_PATH = "/usr/local/bin:/usr/bin:/bin"
#: How long the detection's trivial sandbox may take to start and exit.
PROBE_TIMEOUT_S = 10.0
#: The util-linux programs that hand the bot over inside the sandbox (:func:`inner_command`).
SETPRIV = "/usr/bin/setpriv"
PRLIMIT = "/usr/bin/prlimit"
#: The process limit of the detection's trivial sandbox.
PROBE_PROCESSES = 8


class SandboxError(RuntimeError):
    """The sandbox was asked for and cannot work here; the message is one line saying why."""


def runs_as_root() -> bool:
    """True if the runner is root: bwrap then sets the sandbox up with root's rights and the
    bot is handed to an unprivileged user of its own (:func:`claim_bot_uid`) by ``setpriv``."""
    return os.geteuid() == 0


#: The first of the user ids a root runner gives its bots (far above any real account).
BOT_UID_BASE = 0x60000000
#: How many bots one runner process may have sandboxed at once, as root (each its own uid).
UIDS_PER_PROCESS = 256
_launches = itertools.count()
_uids_held: set[int] = set()


def claim_bot_uid() -> int:
    """A user id for a bot this process starts as root, held until :func:`release_bot_uid`:
    one of :data:`UIDS_PER_PROCESS` of this process (the block of its pid, so no two runner
    processes share one), not one a live bot of this process holds, so that no two bots
    share a process limit. Only if all are held does a new bot share one (it then shares
    that bot's process limit, and nothing else: neither sees the other)."""
    base = BOT_UID_BASE + ((os.getpid() & 0xFFFFF) * UIDS_PER_PROCESS)
    for _ in range(UIDS_PER_PROCESS):
        uid = base + next(_launches) % UIDS_PER_PROCESS
        if uid not in _uids_held:
            break
    _uids_held.add(uid)
    return uid


def release_bot_uid(uid: int) -> None:
    """Give back a user id of :func:`claim_bot_uid` once its bot's processes are all gone."""
    _uids_held.discard(uid)


class Written(str):
    """The text of a file that bwrap writes inside the sandbox (``--file FD DEST``): it stands
    for the descriptor in :meth:`Sandbox.wrap`'s command line until :func:`with_fds` puts it in
    a pipe of its own. A written file is part of the sandbox's own root, not a mount, so
    ``/proc/self/mountinfo`` names no host file for it."""


def _written(text: str, path: str) -> list[str]:
    """bwrap arguments writing ``text`` to ``path`` inside, readable by all."""
    return ["--perms", "0644", "--file", Written(text), path]


def etc_files(uid: int) -> dict[str, str]:
    """The sandbox's own /etc files (:data:`ETC_WRITTEN`) for a bot running as ``uid``: root,
    the bot's user (its group of the same number as root gives it; the runner's group
    otherwise) and nobody, and only local names."""
    gid = uid if runs_as_root() else os.getgid()
    users = {0: ("root", 0, "/root")}  # by user id: a number held already keeps its name
    users.setdefault(uid, (BOT_USER, gid, "/tmp"))
    users.setdefault(NOBODY, ("nobody", NOBODY, "/nonexistent"))
    groups = {0: "root"}
    groups.setdefault(gid, BOT_USER)
    groups.setdefault(NOBODY, "nogroup")
    return {
        "passwd": "".join(f"{name}:x:{u}:{g}:{name}:{home}:/usr/sbin/nologin\n"
                          for u, (name, g, home) in users.items()),
        "group": "".join(f"{name}:x:{g}:\n" for g, name in groups.items()),
        "hosts": f"127.0.0.1\tlocalhost {HOSTNAME}\n::1\tlocalhost ip6-localhost\n",
        "nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files\n",
    }


@functools.cache
def etc_shown() -> tuple[str, ...]:
    """The host's files of :data:`ETC_FILES` there are, looked for once per process."""
    return tuple(str(path) for name in ETC_FILES for path in sorted(Path("/etc").glob(name)))


def _base_args(uid: int) -> list[str]:
    """The namespaces and the system part of the root, common to every sandbox, for a bot
    running as ``uid`` (as it sees itself)."""
    if runs_as_root():
        # Every namespace but the user one: a user namespace of root's would map the bot to
        # root outside, which the kernel exempts from the process limit. The bot gets a user
        # of its own instead (setpriv, :func:`inner_command`), which needs these three
        # capabilities until then, and no others.
        args = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--cap-drop", "ALL"]
        args += [a for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")
                 for a in ("--cap-add", cap)]
    else:
        args = ["--unshare-all", "--unshare-user", "--cap-drop", "ALL"]
    args += ["--hostname", HOSTNAME, "--die-with-parent", "--new-session",
             "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64"):
        top = Path("/") / name
        if top.is_symlink():
            # A merged-/usr system: keep the link, so paths like /lib64/ld-linux... resolve.
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    args += ["--perms", "0755", "--dir", "/etc"]
    for path in etc_shown():
        args += ["--ro-bind", path, path]
    for name, text in etc_files(uid).items():
        args += _written(text, f"/etc/{name}")
    args += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    return args


#: The trees the system part of the root binds whole, and the folders it makes.
_SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64")
_SYSTEM_FOLDERS = ("/etc", "/proc", "/dev", "/tmp")


def _open_parents(paths: Sequence[str]) -> list[str]:
    """bwrap arguments making the folders above ``paths`` (bound next) open to all: bwrap
    would make them readable by root alone, and a root runner's bot is not root. Folders the
    root holds already (the system's, or one of ``paths``) are left as they are."""
    held = [*_SYSTEM_TREES, *paths]
    parents = {str(parent) for path in paths for parent in Path(path).parents
               if str(parent) not in ("/", *_SYSTEM_FOLDERS)
               and not any(parent.is_relative_to(h) for h in held)}
    return [a for parent in sorted(parents, key=lambda d: (d.count("/"), d))
            for a in ("--perms", "0755", "--dir", parent)]


def inner_command(processes: int, uid: int | None) -> list[str]:
    """What runs the bot's command inside the sandbox, limiting it to ``processes`` processes
    and threads (RLIMIT_NPROC counts both).

    The kernel counts a user's processes per user namespace. As root: ``setpriv`` makes the
    bot the user ``uid`` (:func:`claim_bot_uid`), whose count holds only its processes, with the
    limit set before bwrap started. Otherwise: the sandbox has a user namespace of its own,
    where the count holds only the sandbox's processes, and ``prlimit`` sets the limit there
    (set outside, it would count every process of the user)."""
    if runs_as_root():
        if uid is None:
            raise ValueError("a sandbox run by root needs a user id for the bot")
        return [SETPRIV, "--reuid", str(uid), "--regid", str(uid), "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--"]
    return [PRLIMIT, f"--nproc={processes}:{processes}", "--"]


@functools.cache
def sandbox_problem() -> str | None:
    """Why the sandbox cannot work here (one line), or None if it does: bwrap must be on
    PATH and start a trivial sandbox. Looked at once per process."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return ("bubblewrap is not installed: no 'bwrap' on PATH "
                "(Debian/Ubuntu: apt-get install bubblewrap)")
    helper = SETPRIV if runs_as_root() else PRLIMIT
    if not os.access(helper, os.X_OK):
        return (f"{helper} is missing (Debian/Ubuntu: apt-get install util-linux); it hands "
                f"the bot over inside the sandbox")
    true = shutil.which("true") or "/usr/bin/true"
    uid = claim_bot_uid() if runs_as_root() else None
    fds: tuple[int, ...] = ()
    try:
        argv, fds = with_fds([bwrap, *_base_args(_seen_uid(uid)), "--",
                              *inner_command(PROBE_PROCESSES, uid), true])
        done = subprocess.run(argv, capture_output=True, timeout=PROBE_TIMEOUT_S,
                              stdin=subprocess.DEVNULL, pass_fds=fds)
    except SandboxError as exc:
        return str(exc)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot start a sandbox here: {exc}"
    finally:
        for fd in fds:
            os.close(fd)
        if uid is not None:
            release_bot_uid(uid)
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().splitlines()
        return (f"bwrap cannot start a sandbox here (exit status {done.returncode}): "
                f"{why[-1] if why else 'no message'}")
    return None


def require_sandbox(mode: str) -> None:
    """Raise :class:`SandboxError` if ``mode`` is "bwrap" and the sandbox cannot work here, or
    ``mode`` is not a known mode. Never falls back to running unsandboxed."""
    if mode not in MODES:
        raise SandboxError(f"unknown sandbox {mode!r}: one of {', '.join(MODES)}")
    if mode == "bwrap":
        problem = sandbox_problem()
        if problem is not None:
            raise SandboxError(
                f"bots run in a bubblewrap sandbox, which cannot work here: {problem}; run "
                f"`arena doctor` for more, or opt out with --no-sandbox (sandbox = \"none\" in "
                f"a tournament file) for bots you trust")


def inside_endpoint() -> str:
    """ARENA_ENDPOINT as a sandboxed bot sees it."""
    return f"ipc://{INSIDE_ENDPOINT_DIR}/{SOCKET_NAME}"


def _seen_uid(uid: int | None) -> int:
    """The bot's user id as it sees itself: ``uid`` (a root runner's, :func:`claim_bot_uid`),
    else the runner's own, which the sandbox's user namespace maps to itself."""
    return os.getuid() if uid is None else uid


def layout_of(folders: Sequence[Path]) -> tuple[Path, list[str]]:
    """The deepest folder holding all of ``folders`` (absolute), and each of them relative to
    it, in order."""
    root = Path(os.path.commonpath([str(f) for f in folders]))
    return root, [f.relative_to(root).as_posix() for f in folders]


def _own_folders(root: Path, places: list[str], writable: bool) -> dict[str, tuple[str, bool]]:
    """{where it appears: (host folder, writable)} of the bot's folder (``places[0]``) and the
    folders it needs, at their places under ``root`` (:func:`layout_of`), each folder before
    any inside it: mounted in this order, a build's writable folder is not covered by a folder
    it needs above it (``..``). Only a build's own folder is ``writable``."""
    return {str(Path(INSIDE_BOT, place)): (str(root / place), writable and place == places[0])
            for place in sorted(set(places), key=lambda p: len(Path(p).parts))}


def _program(argv0: str, folder: Path) -> str:
    """The absolute path of the command's program, found the way the bot's folder would."""
    if "/" in argv0:
        return str((folder / argv0).resolve()) if not os.path.isabs(argv0) else argv0
    return shutil.which(argv0) or argv0


def _program_binds(program: str) -> Iterator[str]:
    """A program outside /usr comes with its installation: the folder above its ``bin``
    (a runtime's libraries live beside it), else its own folder."""
    real = Path(os.path.realpath(program))
    for path in {Path(program), real}:
        if path.is_relative_to("/usr") or not path.is_absolute():
            continue
        folder = path.parent
        yield str(folder.parent if folder.name == "bin" else folder)


class Sandbox:
    """Wraps bot commands in bwrap, with ``endpoint_dir`` (the folder of the referee's ipc
    socket) mounted at :data:`INSIDE_ENDPOINT_DIR`."""

    def __init__(self, endpoint_dir: str | Path) -> None:
        self.endpoint_dir = str(endpoint_dir)
        self.bwrap = shutil.which("bwrap") or "bwrap"

    def wrap(
        self, argv: list[str], env: dict[str, str], folder: Path,
        needs: Sequence[Path] = (), python: bool = False, runtime: bool = False,
        processes: int = 64, uid: int | None = None, writable: bool = False,
    ) -> tuple[list[str], dict[str, str]]:
        """The bwrap command line running a bot's command, and the whole environment to start
        it with: only ``env``'s ``ARENA_*`` variables and the basics. The environment goes
        through bwrap's own (not --setenv), so that the seat's token is never on a command
        line, which any local user can read.

        Args:
            argv: the command to run inside, as it would run outside (filled in): its program,
                and any argument that is an absolute path into the bot's folders, are given
                as the sandbox shows them.
            env: the variables meant for the bot; only ``ARENA_*`` ones pass.
            folder: the bot's folder (absolute): read-only, its working directory.
            needs: other folders (absolute) it reads, read-only.
            python: the command runs ``{python}``, this interpreter: its installation is
                mounted too (:func:`python_view`).
            runtime: the program was named without a path (found on the runner's PATH, as
                ``node`` is) or is ``{node}``: its installation is mounted too if it is
                outside /usr. A program given by its path is not: it must be in what the
                sandbox shows already (else a manifest could have any folder holding an
                executable mounted for it).
            processes: how many processes and threads the bot may have at once
                (:func:`inner_command`).
            uid: the bot's user id when the runner is root (:func:`claim_bot_uid`).
            writable: ``folder`` is mounted writable (a build step, in a copy of the bot's
                folder that the runner made for it); never for a game.
        """
        root, places = layout_of([folder, *needs])
        view = python_view() if python else PythonView("")

        def inside(arg: str) -> str:
            if python and arg == sys.executable:
                return view.program
            path = Path(os.path.normpath(arg))
            if path.is_absolute() and any(path.is_relative_to(root / p) for p in places):
                return str(Path(INSIDE_BOT, path.relative_to(root)))
            return arg

        program = _program(argv[0], folder)
        runtime = runtime and not (python and argv[0] == sys.executable)  # shown as below
        binds = [(path, path) for path in dict.fromkeys(_program_binds(program))] \
            if runtime else []
        binds += view.binds
        own = _own_folders(root, places, writable)
        made = [*(path for path, _ in view.files), *(path for _, path in view.links)]
        args = [self.bwrap, *_base_args(_seen_uid(uid)),
                *_open_parents([*(b for _, b in binds), *own, *made, INSIDE_ENDPOINT_DIR])]
        for source, path in binds:
            args += ["--ro-bind", source, path]
        for path, text in view.files:
            args += _written(text, path)
        for target, path in view.links:
            args += ["--symlink", target, path]
        for path, (source, rw) in own.items():
            args += ["--bind" if rw else "--ro-bind", source, path]
        # Read-only: connecting to a unix socket needs no write access to its folder, and so
        # no bot can remove the socket or plant another beside it for the bots after it.
        args += ["--ro-bind", self.endpoint_dir, INSIDE_ENDPOINT_DIR,
                 "--chdir", inside(str(folder))]
        # The command's own folder first on PATH: a runtime's, or {python}'s virtual environment.
        lead = program if runtime else view.program if python else "/usr/"
        path_var = INSIDE_PATH if lead.startswith("/usr/") else f"{Path(lead).parent}:{INSIDE_PATH}"
        inside_env = {k: v for k, v in env.items() if k.startswith("ARENA_")}
        inside_env.update(PATH=path_var, HOME="/tmp", TMPDIR="/tmp",
                          LANG=os.environ.get("LANG", "C.UTF-8"), PYTHONDONTWRITEBYTECODE="1")
        inside_env.update(view.env)
        command = [inside(program), *map(inside, argv[1:])]
        return [*args, "--", *inner_command(processes, uid), *command], inside_env


#: The most a pipe surely holds before a reader takes any.
PIPE_BYTES = 60_000


def _pipe_holding(data: bytes, what: str) -> int:
    """The read end of a pipe holding ``data`` (its write end closed)."""
    if len(data) > PIPE_BYTES:
        raise SandboxError(f"{what} is too long ({len(data)} bytes)")
    read, write = os.pipe()
    try:
        os.write(write, data)
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    return read


def with_fds(argv: list[str]) -> tuple[list[str], tuple[int, ...]]:
    """The bwrap command line ``argv`` (of :meth:`Sandbox.wrap`) as it is started: with the
    system-call filter (:mod:`arena.runner.game.seccomp`, ``--seccomp FD``), each file it writes
    (:class:`Written`) in a pipe of its own, and its options in a pipe (``bwrap --args FD --
    COMMAND``), so that the command line of the sandbox's init, which the bot can read, shows
    none of the host's folders that it binds, only the bot's own command. Returns the command
    line and the pipes' read ends: pass them to the child and close them after the start.
    Raises :class:`SandboxError` if the filter cannot be built or the options are too long."""
    try:
        seccomp = filter_fd()
    except SeccompError as exc:
        raise SandboxError(str(exc)) from None
    fds = [seccomp]
    try:
        split = argv.index("--")
        options = ["--seccomp", str(seccomp)]
        for arg in argv[1:split]:
            if isinstance(arg, Written):
                fds.append(_pipe_holding(arg.encode(), "a file of the sandbox"))
                arg = str(fds[-1])
            options.append(arg)
        data = b"".join(os.fsencode(a) + b"\0" for a in options)
        fds.insert(0, _pipe_holding(data, "the sandbox's command line"))
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return [argv[0], "--args", str(fds[0]), *argv[split:]], tuple(fds)
