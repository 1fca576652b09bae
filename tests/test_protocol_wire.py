"""The referee's wire transport over real unix sockets: real ZeroMQ DEALER sockets (libzmq, as bots
use) talk to it, and raw sockets play the bots that break ZeroMQ's wire on purpose. Messages
arrive whole; a breach of the wire's rules is judged by a frame's header, before its body is
read; a door holds one connection and blames a bot that keeps opening more; what a connection
costs the referee is bounded."""

from __future__ import annotations

import os
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from arena.protocol import zmtp
from arena.protocol.messages import MAX_MESSAGE_BYTES
from arena.protocol.transport import Breach, Door, Lost, SendError
from arena.protocol.wire import DOOR_REFUSALS, OUTBOUND_BYTES, ZmtpTransport

Context = zmq.Context[zmq.Socket[bytes]]


@pytest.fixture
def ctx() -> Iterator[Context]:
    c: Context = zmq.Context()
    try:
        yield c
    finally:
        c.destroy(linger=0)


def dealer(ctx: Context, door: Door, kind: int = zmq.DEALER, **options: int) -> zmq.Socket[bytes]:
    sock = ctx.socket(kind)
    sock.setsockopt(zmq.LINGER, 0)
    for name, value in options.items():
        sock.setsockopt(getattr(zmq, name), value)
    sock.connect(door.address)
    return sock


def raw(door: Door, handshake: bool = True) -> socket.socket:
    """A connection to ``door`` that speaks ZMTP by hand (a DEALER's greeting and READY)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    sock.connect(door.address.removeprefix("ipc://"))
    if handshake:
        sock.sendall(zmtp.GREETING + zmtp.ready(zmtp.PEER_TYPE))
    return sock


def connected(transport: ZmtpTransport) -> tuple[Door, socket.socket, bytes]:
    """A door, a raw connection to it that has sent one message, and that connection's
    identity."""
    door = transport.open_door()
    bot = raw(door)
    bot.sendall(zmtp.frame(b"hello"))
    identity, _ = next_event(transport)  # type: ignore[misc]
    return door, bot, identity


def next_event(transport: ZmtpTransport, within_s: float = 5.0) -> list[bytes] | Lost | Breach:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        got = transport.receive(20)
        if got is not None:
            return got
    raise AssertionError("nothing arrived")


def delivered(transport: ZmtpTransport, bot: zmq.Socket[bytes]) -> bytes:
    """What ``bot`` receives next, the transport meanwhile sending what waits (a message larger
    than the socket's buffer goes out as the referee waits for answers, as in a game)."""
    deadline = time.monotonic() + 5
    while not bot.poll(1):
        assert time.monotonic() < deadline, "nothing was delivered"
        transport.receive(1)
    return bot.recv()


def quiet(transport: ZmtpTransport, for_s: float = 0.2) -> bool:
    """Whether nothing arrives for ``for_s`` seconds."""
    deadline = time.monotonic() + for_s
    while time.monotonic() < deadline:
        if transport.receive(20) is not None:
            return False
    return True


def descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_zeromq_dealer_talks_to_its_door_both_ways_in_short_and_long_frames(
    transport: ZmtpTransport, ctx: Context
) -> None:
    door = transport.open_door()
    bot = dealer(ctx, door)
    bot.send(b"hello")
    identity, frame = next_event(transport)  # type: ignore[misc]
    assert frame == b"hello" and transport.door_of(identity) == door.key
    for size in (0, 255, 256, 100_000, MAX_MESSAGE_BYTES):
        bot.send(bytes([size % 251]) * size)
        assert next_event(transport) == [identity, bytes([size % 251]) * size]
        transport.send(identity, b"x" * size)
        assert delivered(transport, bot) == b"x" * size


def test_a_dealer_that_sends_heartbeats_is_answered_and_kept(
    transport: ZmtpTransport, ctx: Context
) -> None:
    door = transport.open_door()
    bot = dealer(ctx, door, HEARTBEAT_IVL=20, HEARTBEAT_TIMEOUT=100, HEARTBEAT_TTL=1000)
    bot.send(b"first")
    identity, _ = next_event(transport)  # type: ignore[misc]
    assert quiet(transport, 0.5)  # pings come and are answered; nothing is lost
    bot.send(b"second")
    assert next_event(transport) == [identity, b"second"]


def test_a_message_of_more_than_one_frame_is_a_breach_before_its_second_frame_is_read(
    transport: ZmtpTransport,
) -> None:
    door, bot, identity = connected(transport)
    # An endless message: one frame marked "more", and only the header of the next.
    bot.sendall(zmtp.frame(b"a" * 1000, zmtp.MORE) + zmtp.header(MAX_MESSAGE_BYTES, zmtp.MORE))
    got = next_event(transport)
    assert isinstance(got, Breach) and got.fatal and got.identity == identity
    assert got.door == door.key
    assert got.detail == (f"a message of more than one frame: a message is one frame of at "
                          f"most {MAX_MESSAGE_BYTES} bytes")
    with pytest.raises(SendError):
        transport.send(identity, b"anyone there?")
    assert _closed(bot)


@pytest.mark.parametrize("size", [MAX_MESSAGE_BYTES + 1, 1 << 40])
def test_a_frame_over_the_limit_is_a_breach_as_soon_as_its_size_is_read(
    size: int, transport: ZmtpTransport
) -> None:
    _door, bot, identity = connected(transport)
    bot.sendall(zmtp.header(size))  # the body never comes
    got = next_event(transport)
    assert isinstance(got, Breach) and got.fatal and got.identity == identity
    assert got.detail == f"a message of {size} bytes, over the limit of {MAX_MESSAGE_BYTES} bytes"


def test_a_frame_of_exactly_the_limit_arrived_in_pieces_is_a_message(
    transport: ZmtpTransport,
) -> None:
    door = transport.open_door()
    bot = raw(door)
    body = os.urandom(MAX_MESSAGE_BYTES)
    data = zmtp.frame(body)
    got = None
    for at in range(0, len(data), 50_000):
        bot.sendall(data[at:at + 50_000])
        got = got or transport.receive(1)  # the referee reads as the pieces come
    got = got or next_event(transport)
    assert got[1] == body  # type: ignore[index]


@pytest.mark.parametrize(("opening", "detail"), [
    (b"GET / HTTP/1.1\r\n" + bytes(64), "not a ZeroMQ peer (no ZMTP signature)"),
    (zmtp.GREETING[:10] + b"\x02\x00" + zmtp.GREETING[12:], "ZMTP 2.0"),
    (zmtp.GREETING[:12] + b"PLAIN".ljust(20, b"\x00") + zmtp.GREETING[32:],
     "security mechanism 'PLAIN'"),
    (zmtp.GREETING + zmtp.ready(b"REQ"), "a socket of type 'REQ': a bot connects a DEALER"),
    (zmtp.GREETING + zmtp.frame(b"hello"), "a message before the ZeroMQ handshake ended"),
    (zmtp.GREETING + zmtp.ready(zmtp.PEER_TYPE) + bytes([0x08, 1, 0]),
     "a frame with unknown flags 0x08"),
])
def test_a_peer_that_does_not_speak_the_wire_is_refused_and_closed(
    opening: bytes, detail: str, transport: ZmtpTransport
) -> None:
    door = transport.open_door()
    bot = raw(door, handshake=False)
    bot.sendall(opening)
    got = next_event(transport)
    assert isinstance(got, Breach) and not got.fatal and got.door == door.key
    assert detail in got.detail
    assert _closed(bot)


def test_a_door_holds_one_connection_and_blames_a_bot_that_keeps_opening_more(
    transport: ZmtpTransport, ctx: Context
) -> None:
    door = transport.open_door()
    bot = dealer(ctx, door)
    bot.send(b"hello")
    identity, _ = next_event(transport)  # type: ignore[misc]
    before = descriptors()
    extra, got = [], []
    for _ in range(DOOR_REFUSALS):
        extra.append(raw(door, handshake=False))
        got.append(next_event(transport))
    assert all(isinstance(g, Breach) and g.door == door.key and g.identity == b"" for g in got)
    assert [g.fatal for g in got] == [False] * (DOOR_REFUSALS - 1) + [True]  # type: ignore[union-attr]
    assert f"{DOOR_REFUSALS} connections beyond its one were refused" in got[-1].detail  # type: ignore[union-attr]
    assert all(_closed(s) for s in extra)
    for s in extra:
        s.close()  # the test's own ends (the referee's closed as it refused them)
    # The door no longer listens: more connections are refused by the kernel and cost the
    # referee nothing.
    more = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(50)]
    for s in more:
        with pytest.raises(ConnectionRefusedError):
            s.connect(door.address.removeprefix("ipc://"))
        s.close()
    assert quiet(transport)
    assert descriptors() <= before
    # The bot's own connection is untouched: its blame is the referee's call.
    bot.send(b"still here")
    assert next_event(transport) == [identity, b"still here"]


def test_a_connection_that_closes_with_nothing_sent_is_neither_reported_nor_held(
    transport: ZmtpTransport, ctx: Context
) -> None:
    door = transport.open_door()
    probe = raw(door, handshake=False)
    probe.close()  # as a bot that looks at the socket's peer and goes
    bot = dealer(ctx, door)
    bot.send(b"hello")
    assert next_event(transport)[1] == b"hello"  # type: ignore[index]
    assert quiet(transport)


def test_a_lost_connection_is_reported_once_it_had_sent_a_message(
    transport: ZmtpTransport,
) -> None:
    _door, bot, identity = connected(transport)
    bot.close()
    assert next_event(transport) == Lost(identity)
    with pytest.raises(SendError, match="Host unreachable"):
        transport.send(identity, b"gone?")


def test_doors_are_apart_and_closing_one_closes_its_connections(
    transport: ZmtpTransport, ctx: Context
) -> None:
    first, second = transport.open_door(), transport.open_door()
    assert first.folder != second.folder and first.key != second.key
    a, b = dealer(ctx, first), dealer(ctx, second)
    a.send(b"a")
    b.send(b"b")
    got = {frame: identity for identity, frame in (next_event(transport),  # type: ignore[misc]
                                                   next_event(transport))}
    assert transport.door_of(got[b"a"]) == first.key
    assert transport.door_of(got[b"b"]) == second.key
    transport.close_door(first.key)
    assert not os.path.exists(first.folder)
    with pytest.raises(SendError):
        transport.send(got[b"a"], b"x")
    transport.send(got[b"b"], b"y")
    assert delivered(transport, b) == b"y"


def test_a_bot_that_reads_nothing_it_is_sent_has_a_bounded_queue(
    transport: ZmtpTransport,
) -> None:
    _door, _bot, identity = connected(transport)
    chunk = bytes(MAX_MESSAGE_BYTES)
    with pytest.raises(SendError, match="reads nothing it is sent"):
        for _ in range(OUTBOUND_BYTES // MAX_MESSAGE_BYTES + 64):
            transport.send(identity, chunk)
            transport.receive(0)


def _closed(sock: socket.socket, within_s: float = 5.0) -> bool:
    """Whether the referee closed ``sock``'s connection (what it sent first is read and
    dropped)."""
    sock.settimeout(within_s)
    try:
        while sock.recv(65536):
            pass
    except (ConnectionResetError, BrokenPipeError):
        pass
    return True


def test_a_long_temporary_folder_still_gives_a_socket_a_bot_can_connect_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ctx: Context,
) -> None:
    """A unix socket's path may have 107 bytes at most: with TMPDIR deeper than that leaves
    room for, the doors go under /tmp, and bots still connect (every start failed)."""
    deep = tmp_path / ("x" * 90)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    transport = ZmtpTransport()
    try:
        door = transport.open_door()
        assert len(door.address.removeprefix("ipc://").encode()) <= 107
        assert transport.folder is not None and os.stat(transport.folder).st_mode & 0o777 == 0o700
        bot = dealer(ctx, door)
        bot.send(b"hello")
        assert next_event(transport)[1] == b"hello"  # type: ignore[index]
    finally:
        transport.close()
    assert not os.path.exists(door.folder)


def test_a_sigterm_while_the_doors_folder_is_made_leaves_no_folder_behind(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    """A game worker's SIGTERM handler raises SystemExit. A SIGTERM landing right after the
    doors' private folder is made must not leave the folder to no one: the transport has it
    recorded by then, and close() removes it."""
    import signal

    made: list[str] = []
    real_mkdir = os.mkdir

    def mkdir_then_sigterm(path: str, mode: int = 0o777, **kw: object) -> None:
        real_mkdir(path, mode)
        if not made:
            made.append(os.fsdecode(path))
            os.kill(os.getpid(), signal.SIGTERM)  # lands as soon as the folder exists

    def on_sigterm(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    t = ZmtpTransport()
    old = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        monkeypatch.setattr(os, "mkdir", mkdir_then_sigterm)
        with pytest.raises(SystemExit):
            t.open_door()
        time.sleep(0.05)  # a handler not yet run would run here, still inside pytest.raises
    finally:
        monkeypatch.setattr(os, "mkdir", real_mkdir)
        signal.signal(signal.SIGTERM, old)
        t.close()
    assert made and "arena-endpoint-" in made[0]
    assert not os.path.exists(made[0])


def test_a_doors_folder_name_already_taken_is_drawn_again_and_left_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Someone else's folder under the name drawn is neither used nor removed."""
    import shutil

    from arena.protocol import wire

    base = Path(tempfile.mkdtemp(prefix="arena-test-", dir="/tmp"))  # short: a socket's path
    try:
        taken = base / "arena-endpoint-taken"
        taken.mkdir()
        (taken / "theirs").write_text("x")
        names = iter([str(taken), str(base / "arena-endpoint-free")])
        monkeypatch.setattr(wire, "_private_folder_path", lambda: next(names))
        t = ZmtpTransport()
        try:
            door = t.open_door()
            assert door.address.startswith(f"ipc://{base / 'arena-endpoint-free'}/")
        finally:
            t.close()
        assert (taken / "theirs").read_text() == "x"
        assert not (base / "arena-endpoint-free").exists()
    finally:
        shutil.rmtree(base)
