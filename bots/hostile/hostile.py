"""hostile: Arena bots that attack the runner, the other bots and the organiser, to show that the
sandbox leaves each attack nothing to gain (``tests/test_hostile.py``).

    python hostile.py ATTACK [ARGS]

Each attack is one function below (``ATTACKS`` maps its name to it); each folder here is one
attack's ``bot.toml``, which names this folder in ``needs`` (its own parent: as far as a bot may
reach unless the organiser says otherwise). Apart from its attack a hostile bot plays correctly
(a random legal index), so that the game goes on: through the Python SDK, and, where an attack
speaks for itself on a connection of its own, with the protocol's own messages. It logs every
attempt and what came of it to standard error (its log), one line each::

    hostile[ATTACK]: WHAT VALUE...

for example ``hostile[thief]: found-tokens 0`` or ``hostile[snoop]: denied /etc/shadow
(ENOENT No such file or directory)``, for the tests to read. Run them only sandboxed: see the
README here.
"""

from __future__ import annotations

import errno
import functools
import itertools
import os
import random
import secrets
import signal
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import zmq

from arena.protocol import client, zmtp
from arena.protocol.messages import REFEREE_MESSAGES, decode, encode

ATTACK = sys.argv[1] if len(sys.argv) > 1 else ""
#: Its hello's name: hostile-ATTACK.
NAME = f"hostile-{ATTACK}"
#: How long an escaped process sleeps: longer than any game.
FOREVER_S = 1000.0
#: How long an attack waits for the referee to answer a hello it sends on a second connection.
ANSWER_WAIT_MS = 2000


def log(text: str) -> None:
    print(f"hostile[{ATTACK}]: {text}", file=sys.stderr, flush=True)


def report(what: str, *values: object) -> None:
    """One parseable line of the log: ``hostile[ATTACK]: WHAT VALUE...``."""
    log(" ".join([what, *map(str, values)]))


def why(exc: OSError) -> str:
    """An OSError in a word or two: ``(EACCES Permission denied)``."""
    code = errno.errorcode.get(exc.errno or 0, "?")
    return f"({code} {exc.strerror or exc})"


class RandomPlayer(client.Bot):
    """Plays a random legal index from a generator seeded by each game's ``bot_seed``, and
    hands each game_start to ``on_start``."""

    version = "1.0"

    def __init__(self, on_start: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.name = NAME
        self.rng = random.Random(os.environ.get("ARENA_SEED", "0"))
        self.on_start = on_start

    def on_game_start(self, info: dict[str, Any]) -> None:
        self.rng.seed(info["bot_seed"])
        if self.on_start is not None:
            self.on_start(info)

    def choose(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]],
               time_left_ms: int) -> int:
        return self.rng.randrange(len(legal_actions))


def play(on_start: Callable[[dict[str, Any]], None] | None = None) -> None:
    """Say hello and play random legal actions until shutdown, then exit with status 0;
    ``on_start`` gets each game_start."""
    client.serve(RandomPlayer(on_start), os.environ["ARENA_ENDPOINT"], os.environ["ARENA_TOKEN"])
    log("shutdown: exiting with status 0")
    sys.exit(0)


def pids() -> list[int]:
    """Every process this bot can see in /proc."""
    return sorted(int(e) for e in os.listdir("/proc") if e.isdigit())


def read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


# ---------------------------------------------------------------- thief


def tokens_in(data: bytes) -> set[str]:
    """The ARENA_TOKEN values in a NUL-separated environment or command line: as
    ``ARENA_TOKEN=value``, or as the word after ``ARENA_TOKEN`` (``--setenv ARENA_TOKEN v``)."""
    words = data.split(b"\0")
    found = {w.split(b"=", 1)[1] for w in words if w.startswith(b"ARENA_TOKEN=")}
    found |= {after for w, after in itertools.pairwise(words) if w == b"ARENA_TOKEN"}
    return {t.decode(errors="replace") for t in found if t}


def scan_tokens(quiet: bool = False) -> set[str]:
    """Every other seat's token this bot can read in /proc/*/environ and /proc/*/cmdline;
    unless ``quiet``, logged as ``scan processes=N environs-readable=N own-token-seen=yes|no``
    (its own token seen shows it can read an environment) and ``found-tokens N``."""
    own = os.environ["ARENA_TOKEN"]
    seen = pids()
    found: set[str] = set()
    environs = 0
    for pid in seen:
        for part in ("environ", "cmdline"):
            try:
                data = read(f"/proc/{pid}/{part}")
            except OSError:
                continue
            environs += part == "environ"
            found |= tokens_in(data)
    if not quiet:
        report("scan", f"processes={len(seen)}", f"environs-readable={environs}",
               f"own-token-seen={'yes' if own in found else 'no'}")
        report("found-tokens", len(found - {own}))
    return found - {own}


def second_hello(token: str, what: str) -> Any | None:
    """Say hello with ``token`` on a new connection and log the referee's answer as ``WHAT
    welcome``, ``WHAT refused CODE`` or ``WHAT no-answer``. The socket if welcomed."""
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RECONNECT_IVL, -1)  # one try: a refused connection is not repeated
    sock.connect(os.environ["ARENA_ENDPOINT"])
    sock.send(encode({"type": "hello", "token": token, "name": NAME, "version": "1.0"}))
    if not sock.poll(ANSWER_WAIT_MS):
        report(what, "no-answer")
        return None
    answer = decode(sock.recv(), REFEREE_MESSAGES)
    if answer["type"] == "welcome":
        report(what, "welcome")
        return sock
    report(what, "refused", answer.get("code"))
    return None


def door_probe(what: str) -> None:
    """Open one more connection to the endpoint, as a second ZeroMQ socket would, and log what
    became of it: ``WHAT closed`` (the referee closed it unread), ``WHAT greeted`` (it sent
    its ZeroMQ greeting: the connection was taken), ``WHAT unanswered`` or ``WHAT failed
    (WHY)``."""
    path = os.environ["ARENA_ENDPOINT"].removeprefix("ipc://")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(ANSWER_WAIT_MS / 1000)
        try:
            s.connect(path)
            data = s.recv(64)
        except TimeoutError:
            report(what, "unanswered")
            return
        except OSError as exc:
            report(what, "failed", why(exc))
            return
    report(what, "greeted" if data else "closed")


def play_seat(sock: Any, token: str) -> None:
    """Play a seat whose hello was welcomed on ``sock``: random legal actions, until shutdown."""
    rng = random.Random(token)
    while True:
        msg = decode(sock.recv(), REFEREE_MESSAGES)
        if msg["type"] == "request":
            sock.send(encode({"type": "action", "request_id": msg["request_id"],
                              "index": rng.randrange(len(msg["legal_actions"]))}))
        elif msg["type"] == "ping":
            sock.send(encode({"type": "pong", "nonce": msg["nonce"]}))
        elif msg["type"] == "shutdown":
            return


#: How often the thief looks again, all the time it lives (idle between games too).
WATCH_S = 0.01


def thief() -> None:
    """Look for other seats' tokens in every process's environment and command line: before
    hello (a victim may not have said hello yet), at each game start, and every 10 ms on a
    thread of its own all the time it lives (a kept process waiting between games too, as
    other games' bots start). Say hello with each token found on a connection of its own
    and play that seat. At the first game start, also open two more connections (both must
    be refused: :func:`door_probe`). At each game start it logs its watch so far as ``watch
    scans=N found-tokens=N``."""
    lock = threading.Lock()
    tried: set[str] = set()
    scans = 0
    guessed = False

    def steal(quiet: bool = False) -> None:
        nonlocal scans
        with lock:
            scans += 1
            for token in scan_tokens(quiet) - tried:
                tried.add(token)
                hijacked = second_hello(token, "hijack")
                if hijacked is not None:
                    threading.Thread(target=play_seat, args=(hijacked, token),
                                     daemon=True).start()

    def watch() -> None:
        while True:
            steal(quiet=True)
            time.sleep(WATCH_S)

    def on_start(_msg: dict[str, Any]) -> None:
        nonlocal guessed
        steal()
        report("watch", f"scans={scans}", f"found-tokens={len(tried)}")
        if not guessed:
            guessed = True
            door_probe("second-connection")
            door_probe("third-connection")

    steal()
    threading.Thread(target=watch, daemon=True).start()
    play(on_start)


# ---------------------------------------------------------------- killer


def in_own_sandbox() -> bool:
    """True only inside a PID namespace of its own under bwrap: a small pid and bwrap as pid
    1. Outside one, the killer would signal every process of the user running it."""
    try:
        init = read("/proc/1/comm").decode().strip()
    except OSError:
        return False
    return os.getpid() < 100 and init == "bwrap"


@functools.cache
def referee_pid() -> int | None:
    """The pid of the process at the other end of the endpoint's unix socket, as this bot's
    PID namespace sees it (SO_PEERCRED: 0 if it is outside the namespace); None if the
    endpoint is not a unix socket. Asked once, before the bot's own connection: a connection
    more than its one would be refused, and the bot blamed for it."""
    endpoint = os.environ["ARENA_ENDPOINT"]
    if not endpoint.startswith("ipc://"):
        return None
    fmt = "3i"  # struct ucred: pid, uid, gid
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            s.connect(endpoint[len("ipc://"):])
        except OSError as exc:
            report("referee-pid", "unknown", why(exc))
            return None
        pid, _uid, _gid = struct.unpack(fmt, s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                          struct.calcsize(fmt)))
    return int(pid)


def signal_everyone() -> None:
    """SIGSTOP, then SIGKILL, every process it can see but itself, the referee if its pid is
    known, and everything it may signal at all (pid -1); log each outcome."""
    me = os.getpid()
    targets = [p for p in pids() if p != me]
    report("visible-pids", *targets or ["none"])
    peer = referee_pid()
    if peer is not None:
        report("referee-pid", peer)
        if peer not in (0, me):
            targets.append(peer)
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        for pid in [*targets, -1]:
            try:
                os.kill(pid, sig)
                outcome = "sent"
            except OSError as exc:
                outcome = f"failed {why(exc)}"
            report("signal", sig.name, pid, outcome)
    report("alive-after-attack", "yes")


def killer() -> None:
    """Signal every process it can see, before hello and at each game start, then play on.
    Refuses (and just plays) unless it is inside a sandbox of its own: see in_own_sandbox."""
    if not in_own_sandbox():
        log("refusing: not in a sandbox")
        play()
        return
    signal_everyone()
    play(lambda _msg: signal_everyone())


# ---------------------------------------------------------------- escaper

#: The escaped process: deaf to the signals a runner would end it with, asleep.
DEAF_SLEEPER = ("import signal, time\n"
                "for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):\n"
                "    signal.signal(s, signal.SIG_IGN)\n"
                f"time.sleep({FOREVER_S})\n")
#: The same as pid 1 of a user and PID namespace of its own, nested in the sandbox's, whose
#: parent has gone: unshare(CLONE_NEWUSER | CLONE_NEWPID), fork, and the parent exits.
NESTED_SLEEPER = ("import ctypes, os, sys\n"
                  "if ctypes.CDLL(None, use_errno=True).unshare(0x10000000 | 0x20000000):\n"
                  "    sys.exit(f'unshare: {os.strerror(ctypes.get_errno())}')\n"
                  "if os.fork() == 0:\n"
                  f"    os.execv(sys.executable, [sys.executable, '-c', {DEAF_SLEEPER!r},"
                  " sys.argv[1]])\n"
                  "os._exit(0)\n")
#: The ways the escaper leaves a process behind: a name for its log, the code it runs.
ESCAPES = {"orphan": DEAF_SLEEPER, "nested-orphan": NESTED_SLEEPER}


def leave_orphan(marker: str, code: str) -> None:
    """Leave a process that belongs to no process group of this bot and has no parent of it:
    a child in a session of its own starts ``python -c code MARKER`` (the marker is the last
    word of its command line, where a test outside can find it) and exits at once."""
    child = os.fork()
    if child == 0:
        os.setsid()
        os.posix_spawn(sys.executable, [sys.executable, "-c", code, marker], dict(os.environ))
        os._exit(0)
    os.waitpid(child, 0)
    log(f"left an orphan in its own session ({marker})")


def escaped(marker: str, seconds: float = 2.0) -> list[int]:
    """The pids (as this bot sees them) of the sleepers with ``marker`` on their command line,
    once no other process has it (the one that started a nested sleeper has exited), waiting
    up to ``seconds`` for that."""
    deadline = time.monotonic() + seconds
    while True:
        sleepers, others = [], []
        for pid in pids():
            try:
                argv = read(f"/proc/{pid}/cmdline").rstrip(b"\0").split(b"\0")
            except OSError:
                continue
            if argv[-1] == marker.encode():
                (sleepers if argv[1:3] == [b"-c", DEAF_SLEEPER.encode()] else others).append(pid)
        if (sleepers and not others) or time.monotonic() > deadline:
            return sleepers
        time.sleep(0.02)


def escaper() -> None:
    """Before hello, leave processes that try to outlive the game (``--only WAY`` leaves only
    one of :data:`ESCAPES`): by a double fork and setsid, deaf to SIGHUP, SIGINT and SIGTERM;
    and the same as the first process of a user and PID namespace of its own, nested in the
    sandbox's, its parent gone. Log each one's marker (the last word of its command line,
    unique to this run) and pids as ``WAY MARKER pids P...`` (pids as this bot sees them;
    none if it did not start). Then play correctly."""
    args = sys.argv[2:]
    ways = [args[args.index("--only") + 1]] if "--only" in args else list(ESCAPES)
    for way in ways:
        marker = f"hostile-escaper-{way}-{secrets.token_hex(8)}"
        leave_orphan(marker, ESCAPES[way])
        report(way, marker, "pids", *escaped(marker) or ["none"])
    play()


# ---------------------------------------------------------------- snoop

#: What a snoop tries besides the paths it is told (the organiser's layout, in the worst case
#: known to the attacker): its folder's parents are added at run time.
GUESSES = ("/", "/root", "/home", "/work", "/etc/shadow", "/etc/ssh", "/var/log",
           "/proc/1/root", "/proc/1/environ", "/proc/1/cwd", "/run/arena")
#: What the walk of everything visible does not go into: the kernel's and devices' views, and
#: the system and interpreter trees (read-only system files, named by root only).
WALK_SKIPS = ("/proc", "/sys", "/dev", "/usr")


def probe(path: str) -> None:
    """Log ``readable PATH`` (a file: its first byte read; a folder: listed, also logged as
    ``listing PATH: NAME...``) or ``denied PATH (ERRNO why)``."""
    try:
        if os.path.isdir(path):
            names = sorted(os.listdir(path))
            report("readable", path)
            report("listing", f"{path}:", *names)
        else:
            with open(path, "rb") as f:
                f.read(1)
            report("readable", path)
    except OSError as exc:
        report("denied", path, why(exc))


def visible_files() -> Iterator[str]:
    """Every regular file it can read, walking from / (not into :data:`WALK_SKIPS`, its
    interpreter's own folders or symbolic links)."""
    skips = {*WALK_SKIPS, os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}
    for top, folders, files in os.walk("/", onerror=lambda e: report("unlistable",
                                                                       e.filename, why(e))):
        folders[:] = sorted(f for f in folders if os.path.join(top, f) not in skips)
        for name in sorted(files):
            path = os.path.join(top, name)
            if os.path.isfile(path) and not os.path.islink(path) and os.access(path, os.R_OK):
                yield path


def snoop() -> None:
    """Before hello, try to read each path listed in ``targets.txt`` in its folder (if there is
    one), its folder's parents and :data:`GUESSES`; then log every file it can read anywhere
    as ``visible PATH`` and their number as ``visible-files N``. Then play correctly."""
    own = Path.cwd()
    targets_file = own / "targets.txt"
    targets = targets_file.read_text().split() if targets_file.is_file() else []
    report("targets", len(targets))
    for path in dict.fromkeys([*targets, *map(str, own.parents), *GUESSES]):
        probe(path)
    count = 0
    for count, path in enumerate(visible_files(), 1):  # noqa: B007
        report("visible", path)
    report("visible-files", count)
    play()


# ---------------------------------------------------------------- flooder

#: Lines that look like the runner's own, written first: a log's reader must not be fooled.
FORGED = (b"[arena: output capped at 10 MiB; 0 more bytes dropped]\n"
          b"[arena: game forged-by-hostile-flooder]\n")
#: 1 MiB of every byte but the newline: the flood is one line, however long.
JUNK = memoryview(bytes(b for b in range(256) if b != 10) * 4112)[: 1 << 20]


#: How much of its flood the flooder writes before it says hello: the cap is passed before its
#: game begins, however short the game.
FLOOD_BEFORE_HELLO = 64 << 20


def pour(fd: int, total: int, poured: list[int]) -> None:
    """Write ``total`` bytes of junk to ``fd``, counting them in ``poured[fd]``."""
    while poured[fd] < total:
        poured[fd] += os.write(fd, JUNK[: min(total - poured[fd], len(JUNK))])


def flooder() -> None:
    """Write ``--bytes N`` (default 1 GiB) of junk without a newline, half to standard output
    and half to standard error, each from a thread of its own, as fast as it can: from before
    hello (which waits for the first 64 MiB of it, or all of a smaller flood), and again at
    the start of each later game of a kept process; each flood begins with lines forged to
    look like the runner's. Plays correctly meanwhile."""
    args = sys.argv[2:]
    total = int(args[args.index("--bytes") + 1]) if "--bytes" in args else 1 << 30
    first = True

    def flood() -> list[int]:
        report("flooding", total, "bytes to stdout and stderr")
        os.write(1, FORGED)
        poured = [0, 0, 0]  # by file descriptor
        for fd in (1, 2):
            # Daemons: they die with the process when it is shut down.
            threading.Thread(target=pour, args=(fd, total // 2, poured), daemon=True).start()
        return poured

    def on_start(_msg: dict[str, Any]) -> None:
        nonlocal first
        if not first:  # the first game's flood began before hello
            flood()
        first = False

    poured = flood()
    while sum(poured) < min(FLOOD_BEFORE_HELLO, total // 2 * 2):
        time.sleep(0.001)
    play(on_start)


# ---------------------------------------------------------------- connection flood

#: How many children the connection flood forks, and how many connections each opens: 64
#: connections, with processes to spare under the default limit of 64 processes and threads.
FLOOD_CHILDREN = 8
FLOOD_CONNECTIONS = 8


def flood_connections(child: int) -> None:
    """In a forked child: open :data:`FLOOD_CONNECTIONS` connections to the endpoint, one after
    another, and hold every one open, silent; log ``child N connected=A held=B closed=C
    reset=D refused=E busy=F`` (of those connected: still open after half a second, closed by
    the referee, reset as the door closed with them queued; of the others: refused, nobody
    listening any more, or the kernel's queue full) at its first refusal and at the end, then
    sleep until the sandbox ends. The first line is written at once: the sandbox may end
    before a child has made all its attempts, on a busy machine."""
    path = os.environ["ARENA_ENDPOINT"].removeprefix("ipc://")
    held = []
    counts = dict.fromkeys(("connected", "held", "closed", "reset", "refused", "busy"), 0)

    def say() -> None:
        report("child", child, *(f"{k}={v}" for k, v in counts.items()))

    for _ in range(FLOOD_CONNECTIONS):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(0.5)
        try:
            s.connect(path)
        except OSError as exc:
            # Refused: nobody listens there any more; else the kernel's queue for it is full.
            counts["refused" if isinstance(exc, ConnectionRefusedError) else "busy"] += 1
            s.close()
            if counts["refused"] + counts["busy"] == 1:
                say()
            continue
        counts["connected"] += 1
        try:
            counts["closed" if s.recv(1) == b"" else "held"] += 1
        except ConnectionResetError:
            counts["reset"] += 1
        except OSError:
            counts["held"] += 1  # open and silent
        held.append(s)
    say()
    time.sleep(FOREVER_S)


def connection_flood() -> None:
    """After its hello, at each game start, fork :data:`FLOOD_CHILDREN` children that each open
    :data:`FLOOD_CONNECTIONS` connections to the referee and hold them, silent, as a ZeroMQ
    library would hold its own: through a ZeroMQ socket, the referee would spend a file
    descriptor on each, without end. Then play on."""

    def on_start(_msg: dict[str, Any]) -> None:
        report("forking", FLOOD_CHILDREN, "children")
        for child in range(FLOOD_CHILDREN):
            if os.fork() == 0:
                try:
                    flood_connections(child)
                finally:
                    os._exit(0)

    play(on_start)


# ---------------------------------------------------------------- endless message

#: How long the endless message goes on at most, and the size of each of its frames.
ENDLESS_S = 10.0
FRAME_BYTES = 1 << 20


def read_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        more = sock.recv(size - len(data))
        if not more:
            raise ConnectionResetError("the referee closed the connection")
        data += more
    return data


def read_message(sock: socket.socket) -> dict[str, Any]:
    """The next message the referee sends on a ZMTP connection spoken by hand (commands are
    passed over)."""
    while True:
        flags = read_exactly(sock, 1)[0]
        size = int.from_bytes(read_exactly(sock, 8 if flags & zmtp.LONG else 1), "big")
        body = read_exactly(sock, size)
        if not flags & zmtp.COMMAND:
            return decode(body, REFEREE_MESSAGES)


def endless_message() -> None:
    """Speak ZeroMQ's wire by hand (as the protocol allows: any ZMTP 3 DEALER will do), say
    hello and answer the handshake's ping, then answer the first request with a message that
    never ends: frames of 1 MiB, each marked "more", sent as fast as the connection takes them
    for up to :data:`ENDLESS_S` seconds. A ZeroMQ socket hands a message over only once its
    last frame has come, holding all the others meanwhile. Log ``sending ...`` as it starts, and
    ``bytes-sent N frames-begun=N ended HOW`` if it lives to see the sending end."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(os.environ["ARENA_ENDPOINT"].removeprefix("ipc://"))
    hello = encode({"type": "hello", "token": os.environ["ARENA_TOKEN"], "name": NAME,
                    "version": "1.0"})
    sock.sendall(zmtp.GREETING + zmtp.ready(b"DEALER") + zmtp.frame(hello))
    read_exactly(sock, zmtp.GREETING_SIZE)
    while True:
        msg = read_message(sock)
        if msg["type"] == "ping":
            sock.sendall(zmtp.frame(encode({"type": "pong", "nonce": msg["nonce"]})))
        elif msg["type"] == "request":
            break
    frame = memoryview(zmtp.frame(bytes(FRAME_BYTES), zmtp.MORE))
    sent, until, ended = 0, time.monotonic() + ENDLESS_S, "time-up"
    report("sending", f"frames of {FRAME_BYTES} bytes marked more")
    try:
        while time.monotonic() < until:
            sent += sock.send(frame[sent % len(frame):])
    except OSError as exc:
        ended = f"connection-closed {why(exc)}"
    # (The referee may kill it before it says this: what it says first is the attack.)
    report("bytes-sent", sent, f"frames-begun={sent // len(frame) + 1}", "ended", ended)
    time.sleep(FOREVER_S)


ATTACKS: dict[str, Callable[[], None]] = {
    "thief": thief,
    "killer": killer,
    "escaper": escaper,
    "snoop": snoop,
    "flooder": flooder,
    "connection-flood": connection_flood,
    "endless-message": endless_message,
}

if __name__ == "__main__":
    if ATTACK not in ATTACKS:
        print(f"usage: hostile.py ATTACK, where ATTACK is one of: {', '.join(ATTACKS)}",
              file=sys.stderr)
        sys.exit(2)
    ATTACKS[ATTACK]()
