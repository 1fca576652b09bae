"""The bot SDK's own DEALER (arena.protocol.dealer) speaks ZeroMQ's wire: to the referee's
transport, to a ROUTER of libzmq itself over ipc:// and tcp://, and to a peer playing the ROUTER
by hand that pings, closes, refuses or speaks something else. A Python bot's start imports no
pyzmq."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import zmq

from arena.protocol import dealer as dealer_module
from arena.protocol import zmtp
from arena.protocol.client import Bot, run
from arena.protocol.dealer import ConnectionLost, Dealer
from arena.protocol.transport import Lost
from arena.protocol.wire import ZmtpTransport

LONG_BODY = bytes(range(256)) * 40  # over 255 bytes: a frame with an 8-byte size


def receive(transport: ZmtpTransport) -> object:
    for _ in range(250):
        got = transport.receive(20)
        if got is not None:
            return got
    raise AssertionError("nothing arrived")


def test_messages_short_and_long_pass_both_ways_through_the_referees_transport(
    transport: ZmtpTransport,
) -> None:
    """The referee's transport works only while it is polled, so the bot runs in a thread."""
    door = transport.open_door()
    got: list[bytes] = []

    def bot_side() -> None:
        bot = Dealer(door.address)
        bot.send(b"hello")
        bot.send(LONG_BODY)
        got.extend([bot.recv(), bot.recv()])
        bot.close()

    bot = threading.Thread(target=bot_side, daemon=True)
    bot.start()
    identity, body = receive(transport)  # type: ignore[misc]
    assert body == b"hello"
    assert receive(transport) == [identity, LONG_BODY]
    transport.send(identity, b"welcome")
    transport.send(identity, LONG_BODY)
    assert receive(transport) == Lost(identity)
    bot.join(5)
    assert got == [b"welcome", LONG_BODY]


@pytest.mark.parametrize("over", ["ipc", "tcp"])
def test_a_libzmq_router_and_the_sdks_dealer_understand_each_other(
    tmp_path: Path, over: str,
) -> None:
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.setsockopt(zmq.RCVTIMEO, 5000)
    if over == "ipc":
        endpoint = f"ipc://{tmp_path / 'referee.sock'}"
        router.bind(endpoint)
    else:
        endpoint = f"tcp://127.0.0.1:{router.bind_to_random_port('tcp://127.0.0.1')}"
    try:
        bot = Dealer(endpoint)
        bot.send(b"hello")
        identity, body = router.recv_multipart()
        assert body == b"hello"
        router.send_multipart([identity, LONG_BODY])
        router.send_multipart([identity, b"short"])
        assert bot.recv() == LONG_BODY
        assert bot.recv() == b"short"
        bot.send(LONG_BODY)
        assert router.recv_multipart() == [identity, LONG_BODY]
        bot.close()
    finally:
        ctx.destroy(linger=0)


def by_hand(tmp_path: Path, script: Callable[[socket.socket], None]) -> str:
    """An endpoint whose one connection is served by ``script`` in a thread, after a ROUTER's
    greeting and READY have been exchanged (unless the script's name starts with ``raw``)."""
    path = str(tmp_path / "by-hand.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        conn.settimeout(5)
        with conn, listener:
            if not script.__name__.startswith("raw"):
                conn.sendall(zmtp.GREETING)
                assert exactly(conn, zmtp.GREETING_SIZE)[:11] == zmtp.GREETING[:11]
                conn.sendall(zmtp.ready(zmtp.OWN_TYPE))
                ready = exactly(conn, 2)
                assert zmtp.split_command(exactly(conn, ready[1]))[0] == b"READY"
            script(conn)

    threading.Thread(target=serve, daemon=True).start()
    return f"ipc://{path}"


def exactly(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        assert chunk, "the dealer closed the connection"
        data += chunk
    return data


def test_the_referees_ping_is_answered_and_the_next_message_returned(tmp_path: Path) -> None:
    pongs: list[bytes] = []

    def pinging(conn: socket.socket) -> None:
        conn.sendall(zmtp.command(b"PING", b"\x00\x0acontext"))
        pong = exactly(conn, 2)
        pongs.append(exactly(conn, pong[1]))
        conn.sendall(zmtp.frame(b"request"))

    bot = Dealer(by_hand(tmp_path, pinging))
    assert bot.recv() == b"request"
    assert pongs == [b"\x04PONGcontext"]
    bot.close()


def test_an_error_command_or_a_closed_connection_is_a_lost_connection(tmp_path: Path) -> None:
    def erring(conn: socket.socket) -> None:
        conn.sendall(zmtp.error("too many doors"))

    (tmp_path / "e").mkdir()
    bot = Dealer(by_hand(tmp_path / "e", erring))
    with pytest.raises(ConnectionLost, match="too many doors"):
        bot.recv()
    bot.close()

    def cut_short(conn: socket.socket) -> None:
        conn.sendall(zmtp.header(1000) + b"only part of it")

    bot = Dealer(by_hand(tmp_path, cut_short))
    with pytest.raises(ConnectionLost, match="closed the connection"):
        bot.recv()
    bot.close()


def test_a_peer_that_is_not_a_zeromq_router_is_refused_in_the_handshake(tmp_path: Path) -> None:
    # Each peer reads what the dealer sends before it closes, so that the dealer's own
    # writes never meet a closed connection first.
    def raw_http(conn: socket.socket) -> None:
        exactly(conn, zmtp.GREETING_SIZE)
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n".ljust(64, b" "))

    with pytest.raises(ConnectionLost, match="no ZMTP signature"):
        Dealer(by_hand(tmp_path, raw_http))

    def dealer_too(conn: socket.socket) -> None:
        conn.sendall(zmtp.GREETING)
        exactly(conn, zmtp.GREETING_SIZE)
        conn.sendall(zmtp.ready(zmtp.PEER_TYPE))
        ready = exactly(conn, 2)
        exactly(conn, ready[1])

    dealer_too.__name__ = "raw_dealer"
    (tmp_path / "d").mkdir()
    with pytest.raises(ConnectionLost, match="not a ROUTER"):
        Dealer(by_hand(tmp_path / "d", dealer_too))


def test_a_socket_that_appears_late_is_waited_for_and_one_that_never_does_is_an_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "late.sock"
    timer = threading.Timer(0.2, lambda: by_hand_at(path))
    timer.start()
    bot = Dealer(f"ipc://{path}", connect_timeout_s=5)
    bot.send(b"hello")
    bot.close()
    timer.join()
    with pytest.raises(FileNotFoundError):
        Dealer(f"ipc://{tmp_path / 'never.sock'}", connect_timeout_s=0.1)
    with pytest.raises(ValueError, match="only ipc:// and tcp://"):
        Dealer("inproc://referee")


def by_hand_at(path: Path) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        with conn, listener:
            conn.sendall(zmtp.GREETING + zmtp.ready(zmtp.OWN_TYPE))
            conn.settimeout(5)
            while conn.recv(4096):
                pass

    threading.Thread(target=serve, daemon=True).start()


def test_a_bot_with_no_referee_at_its_endpoint_exits_5_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(dealer_module, "CONNECT_TIMEOUT_S", 0.1)
    monkeypatch.setenv("ARENA_ENDPOINT", f"ipc://{tmp_path / 'nobody.sock'}")
    monkeypatch.setenv("ARENA_TOKEN", "t")
    with pytest.raises(SystemExit) as exit_:
        run(Bot())
    assert exit_.value.code == 5
    assert "no connection to the referee at ipc://" in capsys.readouterr().err


def test_the_python_sdk_starts_without_importing_pyzmq() -> None:
    probe = ("import sys, arena.protocol.client, arena.protocol.reference_bot\n"
             "print(sorted(m for m in sys.modules if m == 'zmq' or m.startswith('zmq.')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**os.environ}, check=True)
    assert done.stdout.strip() == "[]"
