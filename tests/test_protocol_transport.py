"""The ZeroMQ transport over real loopback sockets: whole messages in, and a connection that
ZeroMQ cuts for a message over the size limit reported as lost, for the right bot only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import zmq

from arena.protocol.messages import MAX_MESSAGE_BYTES
from arena.protocol.transport import Lost, ZmqTransport


@pytest.fixture
def transport() -> Iterator[ZmqTransport]:
    t = ZmqTransport()
    try:
        yield t
    finally:
        t.close()


@pytest.fixture
def ctx() -> Iterator[zmq.Context[zmq.Socket[bytes]]]:
    c: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:
        yield c
    finally:
        c.destroy(linger=0)


def dealer(ctx: zmq.Context[zmq.Socket[bytes]], transport: ZmqTransport) -> zmq.Socket[bytes]:
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(transport.address)
    return sock


def next_event(transport: ZmqTransport, within_s: float = 5.0) -> list[bytes] | Lost:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        got = transport.receive(20)
        if got is not None:
            return got
    raise AssertionError("nothing arrived")


def descriptor(fd: int) -> str | None:
    """What this process's file descriptor ``fd`` is open on (Linux), or None if it is closed."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except FileNotFoundError:
        return None


def test_messages_arrive_whole_with_the_senders_identity_and_every_frame(
    transport: ZmqTransport, ctx: zmq.Context[zmq.Socket[bytes]]
) -> None:
    bot = dealer(ctx, transport)
    bot.send(b"hello")
    identity, frame = next_event(transport)
    assert frame == b"hello"
    bot.send_multipart([b"one", b"two", b"three"])
    assert next_event(transport) == [identity, b"one", b"two", b"three"]
    transport.send(identity, b"welcome")
    assert bot.recv() == b"welcome"


@pytest.mark.parametrize("size", [MAX_MESSAGE_BYTES + 1, 100 * MAX_MESSAGE_BYTES])
def test_a_message_over_the_limit_loses_that_connection_only(
    size: int, transport: ZmqTransport, ctx: zmq.Context[zmq.Socket[bytes]]
) -> None:
    big, small = dealer(ctx, transport), dealer(ctx, transport)
    big.send(b"hello from big")
    small.send(b"hello from small")
    identities = {}
    for _ in range(2):
        identity, frame = next_event(transport)
        identities[frame] = identity
    big.send(bytes(size))
    assert next_event(transport) == Lost(identities[b"hello from big"])
    small.send(b"still here")
    assert next_event(transport) == [identities[b"hello from small"], b"still here"]
    # A message of exactly the limit is a message.
    small.send(bytes(MAX_MESSAGE_BYTES))
    assert next_event(transport)[1] == bytes(MAX_MESSAGE_BYTES)  # type: ignore[index]


#: Two bots one after the other, in a process of their own (so that the only descriptors the
#: test's process opens are the referee's): each step waits for a line on standard input.
SUCCESSIVE_BOTS = """
import sys, zmq
ctx = zmq.Context()
first = ctx.socket(zmq.DEALER); first.connect(sys.argv[1]); first.send(b"first")
sys.stdin.readline(); first.close(linger=0)
sys.stdin.readline()
second = ctx.socket(zmq.DEALER); second.connect(sys.argv[1]); second.send(b"second")
sys.stdin.readline(); second.send(bytes(int(sys.argv[2])))
sys.stdin.readline()
"""


def test_a_new_connection_on_a_reused_descriptor_is_not_blamed_for_the_old_ones_loss(
    transport: ZmqTransport,
) -> None:
    bots = subprocess.Popen(
        [sys.executable, "-c", SUCCESSIVE_BOTS, transport.address, str(MAX_MESSAGE_BYTES + 1)],
        stdin=subprocess.PIPE, text=True,
    )
    assert bots.stdin is not None

    def step() -> None:
        assert bots.stdin is not None
        bots.stdin.write("\n")
        bots.stdin.flush()

    try:
        old, _ = next_event(transport)
        old_fd = transport._fd_of[old]
        link = descriptor(old_fd)
        step()  # the first bot goes
        # Once ZeroMQ has closed its end, the next connection gets the same descriptor; the
        # old one's loss is then reported, but not yet read.
        deadline = time.monotonic() + 5
        while descriptor(old_fd) == link:
            assert time.monotonic() < deadline, "the closed connection's descriptor stayed open"
            time.sleep(0.001)
        step()  # the second bot comes
        got = [next_event(transport), next_event(transport)]
        assert Lost(old) in got
        ((new, frame),) = [g for g in got if not isinstance(g, Lost)]
        assert frame == b"second" and new != old
        assert transport._fd_of[new] == old_fd
        step()  # the second bot sends a message over the limit
        assert next_event(transport) == Lost(new)
        step()
        assert bots.wait(timeout=5) == 0
    finally:
        if bots.poll() is None:
            bots.kill()
            bots.wait()


def test_a_connection_that_never_sent_anything_is_not_reported(
    transport: ZmqTransport, ctx: zmq.Context[zmq.Socket[bytes]]
) -> None:
    silent = dealer(ctx, transport)
    time.sleep(0.05)
    silent.close(linger=0)
    time.sleep(0.05)
    assert transport.receive(50) is None
