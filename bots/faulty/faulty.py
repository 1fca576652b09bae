"""faulty: one Arena bot that misbehaves on command, for testing the referee.

    python faulty.py MODE

It speaks the protocol (docs/protocol.md) with raw pyzmq and msgpack rather than the SDK, so it
can break the protocol at any level. Like any bot it reads ``ARENA_ENDPOINT`` and
``ARENA_TOKEN``; its randomness comes from a private ``random.Random`` seeded with
``ARENA_SEED``, never the global generator. ``FAULTY_PID_FILE``, if set, names a file where the
modes ``child-left-behind`` and ``slow`` write a pid; ``FAULTY_FLOOD_BYTES``, if set, is how much
``flood-output`` writes (default 1 GiB); ``FAULTY_SLOW_MS``, if set, is how long ``slow`` waits
before each answer (default 200). Everything it receives and does is logged to
standard error (which the referee sends to the game's log file).

Each mode is one function below; ``MODES`` maps the mode's name to it.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import msgpack
import zmq

PROTOCOL = 1
NAME = "faulty"
VERSION = "1.0"
FOREVER_S = 1000.0
#: The padding of the mode oversized's answer: 100 times the protocol's limit.
OVERSIZED_BYTES = 100 * 1024 * 1024

#: What a request handler returns: an action index to answer with, or None to send nothing.
Handler = Callable[[zmq.Socket, dict[str, Any]], "int | None"]


# ---------------------------------------------------------------- plumbing


def log(text: str) -> None:
    print(f"{NAME}[{MODE}]: {text}", file=sys.stderr, flush=True)


_RNG = random.Random(os.environ.get("ARENA_SEED", "0"))


def rng() -> random.Random:
    """This bot's private generator: seeded from ARENA_SEED at start, and reseeded from each
    game_start's bot_seed (a process may serve several games)."""
    return _RNG


def connect() -> tuple[zmq.Context, zmq.Socket]:
    """A DEALER socket connected to ARENA_ENDPOINT."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 1000)
    sock.connect(os.environ["ARENA_ENDPOINT"])
    return ctx, sock


def send(sock: zmq.Socket, message: dict[str, Any], protocol: int = PROTOCOL) -> None:
    sock.send(msgpack.packb({**message, "protocol": protocol}, use_bin_type=True))


def recv(sock: zmq.Socket) -> dict[str, Any]:
    msg = msgpack.unpackb(sock.recv(), raw=False)
    brief = {k: v for k, v in msg.items() if k not in ("observation", "legal_actions")}
    log(f"received {brief}")
    return msg


def hello(sock: zmq.Socket, token: str | None = None, protocol: int = PROTOCOL) -> None:
    send(sock, {"type": "hello", "token": os.environ["ARENA_TOKEN"] if token is None else token,
                "name": f"{NAME}-{MODE}", "version": VERSION}, protocol)


def wrong_token() -> str:
    """A token that is certainly not this seat's (nor, in practice, any seat's)."""
    return "bad-" + os.environ.get("ARENA_TOKEN", "")[::-1]


def action(sock: zmq.Socket, request_id: int, index: int) -> None:
    send(sock, {"type": "action", "request_id": request_id, "index": index})


def serve(sock: zmq.Socket, on_request: Handler,
          on_start: Callable[[dict[str, Any]], None] | None = None) -> None:
    """The protocol loop after hello: answer pings, hand each request to ``on_request`` (and
    send the index it returns, if any), hand each game_start to ``on_start`` (if given) after
    reseeding, exit with status 0 on shutdown."""
    while True:
        msg = recv(sock)
        mtype = msg.get("type")
        if mtype == "ping":
            send(sock, {"type": "pong", "nonce": msg["nonce"]})
        elif mtype == "request":
            index = on_request(sock, msg)
            if index is not None:
                action(sock, msg["request_id"], index)
        elif mtype == "game_start":
            _RNG.seed(msg["bot_seed"])
            if on_start is not None:
                on_start(msg)
        elif mtype == "shutdown":
            log("shutdown: exiting with status 0")
            sys.exit(0)


def random_index(r: random.Random) -> Handler:
    """A request handler playing uniformly random legal actions from ``r``."""
    return lambda _sock, msg: r.randrange(len(msg["legal_actions"]))


def sleep_forever() -> None:
    time.sleep(FOREVER_S)


# ---------------------------------------------------------------- the modes


def crash_start() -> None:
    """Exit with status 1 before saying hello (the game is void: the bot cannot start)."""
    log("exiting with status 1 before hello")
    sys.exit(1)


def crash_restart() -> None:
    """The first time it is started (no file FAULTY_STATE_FILE yet: it makes it), say hello
    and play correctly; every later start, exit with status 1 before hello. So it passes the
    start check a tournament runs before its games, and every game it is in is void."""
    state = os.environ.get("FAULTY_STATE_FILE")
    if not state:
        log("FAULTY_STATE_FILE is not set")
        sys.exit(2)
    try:
        fd = os.open(state, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        crash_start()
    os.close(fd)
    _ctx, sock = connect()
    hello(sock)
    serve(sock, random_index(rng()))


def hang_start() -> None:
    """Connect but never say hello; sleep (void after the handshake limit)."""
    _ctx, _sock = connect()
    log("connected; never saying hello")
    sleep_forever()


def wrong_token_mode() -> None:
    """Say hello with a wrong token, log the referee's answer, then wait (void after the
    handshake limit; the referee answers error bad_token)."""
    _ctx, sock = connect()
    hello(sock, token=wrong_token())
    recv(sock)
    sleep_forever()


def wrong_protocol() -> None:
    """Say hello speaking protocol 2, log the referee's answer, then wait (void after the
    handshake limit; the referee answers error protocol_mismatch)."""
    _ctx, sock = connect()
    hello(sock, protocol=2)
    recv(sock)
    sleep_forever()


def crash_mid_game() -> None:
    """Play randomly; answer 5 requests, then exit with status 3 when the 6th arrives (crash)."""
    r = rng()
    answered = 0

    def on_request(_sock: zmq.Socket, msg: dict[str, Any]) -> int:
        nonlocal answered
        if answered == 5:
            log(f"request {msg['request_id']}: exiting with status 3 after 5 answers")
            os._exit(3)
        answered += 1
        return r.randrange(len(msg["legal_actions"]))

    _ctx, sock = connect()
    hello(sock)
    serve(sock, on_request)


def never_reply() -> None:
    """Handshake and answer pings, but never answer a request (timeout)."""
    _ctx, sock = connect()
    hello(sock)
    serve(sock, lambda _sock, _msg: None)


def reply_late() -> None:
    """Answer each request correctly but only after sleeping decision_ms + 500 ms (timeout)."""
    r = rng()

    def on_request(_sock: zmq.Socket, msg: dict[str, Any]) -> int:
        time.sleep((msg["decision_ms"] + 500) / 1000)
        return r.randrange(len(msg["legal_actions"]))

    _ctx, sock = connect()
    hello(sock)
    serve(sock, on_request)


def illegal_index() -> None:
    """Answer with index = len(legal_actions), one past the last (illegal_action)."""
    _ctx, sock = connect()
    hello(sock)
    serve(sock, lambda _sock, msg: len(msg["legal_actions"]))


def garbage_bytes() -> None:
    """Answer a request with bytes that are not msgpack (protocol_error)."""

    def on_request(s: zmq.Socket, _msg: dict[str, Any]) -> None:
        s.send(b"\xc1\xc1 this is not msgpack \xc1")  # 0xc1 is never used by msgpack
        return None

    _ctx, sock = connect()
    hello(sock)
    serve(sock, on_request)


def wrong_request_id() -> None:
    """Answer every request with request_id + 1000, never the right one (timeout)."""
    r = rng()

    def on_request(s: zmq.Socket, msg: dict[str, Any]) -> None:
        action(s, msg["request_id"] + 1000, r.randrange(len(msg["legal_actions"])))
        return None

    _ctx, sock = connect()
    hello(sock)
    serve(sock, on_request)


def flood() -> None:
    """On the first request send 500 pongs with nonce 0 as fast as possible, then the right
    action; play randomly afterwards (protocol_error: more than 64 unanswered messages)."""
    r = rng()
    flooded = False

    def on_request(s: zmq.Socket, msg: dict[str, Any]) -> int:
        nonlocal flooded
        if not flooded:
            flooded = True
            for _ in range(500):
                send(s, {"type": "pong", "nonce": 0})
            log("sent 500 pongs")
        return r.randrange(len(msg["legal_actions"]))

    _ctx, sock = connect()
    hello(sock)
    serve(sock, on_request)


def oversized_frame(size: int) -> tuple[bytearray, int]:
    """An action of about ``size`` bytes (its padding is ``size`` zero bytes), and where its
    request_id's 8 bytes (a uint64, zero for now) are, to be written in for a request."""
    pack = msgpack.packb
    head = (b"\x85" + pack("type") + pack("action") + pack("protocol") + pack(PROTOCOL)
            + pack("index") + pack(0) + pack("request_id") + b"\xcf")
    request_id_at = len(head)
    head += bytes(8) + pack("padding") + b"\xc6" + size.to_bytes(4, "big")  # bin32
    frame = bytearray(len(head) + size)  # one allocation: no 100 MB copy
    frame[:len(head)] = head
    return frame, request_id_at


def oversized() -> None:
    """Answer the first request with a 100 MB action (an action with 100 MB of padding), then
    go on serving (protocol_error: a message over the 1 MiB limit; ZeroMQ cuts the connection
    as soon as it reads the size). The message is built before hello, so that the answer
    leaves at once however long building 100 MB takes."""
    frame, request_id_at = oversized_frame(OVERSIZED_BYTES)
    sent = False

    def on_request(s: zmq.Socket, msg: dict[str, Any]) -> None:
        nonlocal sent
        if not sent:
            sent = True
            frame[request_id_at:request_id_at + 8] = msg["request_id"].to_bytes(8, "big")
            # Said first: the referee may kill it as soon as the message's size arrives.
            log(f"sending a message of {len(frame)} bytes")
            s.send(frame, copy=False)
        return None

    _ctx, sock = connect()
    hello(sock)
    serve(sock, on_request)


def child_left_behind() -> None:
    """Start a child that sleeps 1000 s in this bot's process group, write its pid to
    FAULTY_PID_FILE (if set), then play randomly and correctly (ok; the referee must kill the
    child with the group)."""
    child = subprocess.Popen(
        [sys.executable, "-c", f"import time; time.sleep({FOREVER_S})"],
        stdin=subprocess.DEVNULL,
    )
    log(f"started child {child.pid}")
    pid_file = os.environ.get("FAULTY_PID_FILE")
    if pid_file:
        with open(pid_file, "w", encoding="utf-8") as f:
            f.write(f"{child.pid}\n")
    _ctx, sock = connect()
    hello(sock)
    serve(sock, random_index(rng()))


#: How many more connections the impostor opens.
IMPOSTORS = 8


def impostor() -> None:
    """Play randomly and correctly on the main socket. At game start, also open IMPOSTORS more
    DEALER sockets, each of which says hello with a wrong token and then sends actions (index
    0) for request ids 1..50; log to stderr whatever comes back on them. The referee must
    refuse them at the bot's door, never let them act for any seat, and blame the bot for
    them (protocol_error)."""
    ctx, sock = connect()
    seconds: list[zmq.Socket] = []

    def on_message(msg: dict[str, Any]) -> None:
        if msg.get("type") == "game_start":
            rng().seed(msg["bot_seed"])
        if msg.get("type") != "game_start" or seconds:
            return
        for _ in range(IMPOSTORS):
            second = ctx.socket(zmq.DEALER)
            second.setsockopt(zmq.LINGER, 0)
            second.connect(os.environ["ARENA_ENDPOINT"])
            hello(second, token=wrong_token())
            for request_id in range(1, 51):
                action(second, request_id, 0)
            poller.register(second, zmq.POLLIN)
            seconds.append(second)
        log(f"{IMPOSTORS} more sockets: hello with a wrong token and actions for requests "
            f"1..50 sent on each")

    hello(sock)
    # The loop of serve(), with a poller, so that the second socket (opened mid-game) is read
    # too.
    r = rng()
    poller = zmq.Poller()
    poller.register(sock, zmq.POLLIN)
    while True:
        ready = dict(poller.poll())
        for second in seconds:
            if second in ready:
                log(f"on another socket: {second.recv()!r}")
        if sock not in ready:
            continue
        msg = recv(sock)
        on_message(msg)
        mtype = msg.get("type")
        if mtype == "ping":
            send(sock, {"type": "pong", "nonce": msg["nonce"]})
        elif mtype == "request":
            action(sock, msg["request_id"], r.randrange(len(msg["legal_actions"])))
        elif mtype == "shutdown":
            log("shutdown: exiting with status 0")
            sys.exit(0)


def slow() -> None:
    """Play randomly and correctly, but sleep FAULTY_SLOW_MS (default 200) ms before each
    answer; at its first request write this process's pid to FAULTY_PID_FILE (if set): the pid
    of a bot that is playing a game, not of one only started (a tournament starts every bot
    once before its games). Used to interrupt a game that is in progress."""
    pid_file = os.environ.get("FAULTY_PID_FILE")
    pause_s = int(os.environ.get("FAULTY_SLOW_MS", "200")) / 1000
    r = rng()
    playing = False

    def on_request(_sock: zmq.Socket, msg: dict[str, Any]) -> int:
        nonlocal playing
        if pid_file and not playing:
            playing = True
            with open(pid_file, "w", encoding="utf-8") as f:
                f.write(f"{os.getpid()}\n")
        time.sleep(pause_s)
        return r.randrange(len(msg["legal_actions"]))

    _ctx, sock = connect()
    hello(sock)
    serve(sock, on_request)


def flood_output() -> None:
    """Play index 0 every time; at the first request of each game, start a second thread that
    writes FAULTY_FLOOD_BYTES (default 1 GiB) of text to stdout as fast as it can (ok: output
    breaks no protocol rule; the runner keeps the first part of it and drops the rest)."""
    total = int(os.environ.get("FAULTY_FLOOD_BYTES", str(1 << 30)))
    chunk = memoryview((b"x" * 1023 + b"\n") * 1024)  # 1 MiB of 1 KiB lines
    games: set[str] = set()

    def pour() -> None:
        left = total
        while left > 0:
            left -= os.write(1, chunk[: min(left, len(chunk))])
        log(f"wrote {total} bytes to stdout")

    def on_request(_sock: zmq.Socket, msg: dict[str, Any]) -> int:
        if msg["game_id"] not in games:
            games.add(msg["game_id"])
            # A daemon: it dies with the process when the bot is shut down.
            threading.Thread(target=pour, daemon=True).start()
        return 0

    _ctx, sock = connect()
    hello(sock)
    serve(sock, on_request)


def sandbox_probe() -> None:
    """Report what this bot can reach, then play randomly and correctly (ok). Arguments after
    the mode: ``--read PATH`` (try to read the file), ``--write PATH`` (try to create it),
    ``--tcp PORT`` (try to connect to 127.0.0.1:PORT), ``--orphan MARKER`` (before hello,
    leave a process that escaped by a double fork and setsid, sleeping with MARKER on its
    command line). Reports on standard error, one line each: ``probe: processes N: cmd; ...``
    (every process this bot can see in /proc), ``probe: capabilities HEX`` (its effective
    capabilities), ``probe: read PATH: ok|denied (...)``,
    ``probe: write PATH: ok|denied (...)``, ``probe: tcp PORT: connected|refused (...)``."""
    args = sys.argv[2:]
    wanted = [(args[i], args[i + 1]) for i in range(0, len(args) - 1, 2)]
    for what, value in wanted:
        if what == "--orphan":
            leave_orphan(value)
    seen = []
    for entry in sorted(os.listdir("/proc")):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    seen.append(f.read().replace(b"\0", b" ").decode(errors="replace").strip())
            except OSError:
                continue
    log(f"probe: processes {len(seen)}: {' | '.join(seen)}")
    with open("/proc/self/status", encoding="ascii") as f:
        caps = next(line.split()[1] for line in f if line.startswith("CapEff:"))
    log(f"probe: capabilities {caps}")
    for what, value in wanted:
        try:
            if what == "--read":
                with open(value, "rb") as f:
                    f.read(1)
                log(f"probe: read {value}: ok")
            elif what == "--write":
                with open(value, "w", encoding="utf-8") as f:
                    f.write("probe\n")
                log(f"probe: write {value}: ok")
            elif what == "--tcp":
                import socket

                with socket.create_connection(("127.0.0.1", int(value)), timeout=2):
                    log(f"probe: tcp {value}: connected")
        except OSError as exc:
            verb = {"--read": "read", "--write": "write", "--tcp": "tcp"}[what]
            outcome = "refused" if what == "--tcp" else "denied"
            log(f"probe: {verb} {value}: {outcome} ({exc.strerror or exc})")
    _ctx, sock = connect()
    hello(sock)
    serve(sock, random_index(rng()))


def leave_orphan(marker: str, code: str = f"import time; time.sleep({FOREVER_S})") -> None:
    """Fork twice, the middle process in a new session, so that the grandchild belongs to no
    process group of this bot and has no parent of it: it runs ``python -c code`` (by default,
    sleeps) with ``marker`` on its command line (where a test outside can find it)."""
    # Closed on exec (not inheritable): EOF here means the grandchild runs its command.
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", code, marker])
        os._exit(0)
    os.close(ready_w)
    os.waitpid(pid, 0)
    os.read(ready_r, 1)
    os.close(ready_r)
    log(f"left an orphan in its own session ({marker})")


MODES: dict[str, Callable[[], None]] = {
    "crash-start": crash_start,
    "crash-restart": crash_restart,
    "hang-start": hang_start,
    "wrong-token": wrong_token_mode,
    "wrong-protocol": wrong_protocol,
    "crash-mid-game": crash_mid_game,
    "never-reply": never_reply,
    "reply-late": reply_late,
    "illegal-index": illegal_index,
    "garbage-bytes": garbage_bytes,
    "wrong-request-id": wrong_request_id,
    "flood": flood,
    "oversized": oversized,
    "child-left-behind": child_left_behind,
    "impostor": impostor,
    "slow": slow,
    "flood-output": flood_output,
    "sandbox-probe": sandbox_probe,
}

MODE = sys.argv[1] if len(sys.argv) > 1 else ""

if __name__ == "__main__":
    if MODE not in MODES:
        print(f"usage: faulty.py MODE, where MODE is one of: {', '.join(MODES)}", file=sys.stderr)
        sys.exit(2)
    MODES[MODE]()
