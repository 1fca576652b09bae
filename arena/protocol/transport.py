"""How the referee's frames travel: a transport seam, over ZeroMQ or in memory.

A transport moves whole messages between the referee and its bots, each message a list of
frames led by the sender's identity (a ZeroMQ ROUTER's framing). It knows nothing of what the
frames mean: :mod:`arena.protocol.server` decodes and judges them.

:class:`ZmqTransport` is the real one. :class:`MemoryTransport` keeps everything in this process,
so protocol tests need no socket and no bot process: a :class:`MemoryPeer` plays a bot's side
and can send any frames at all, well formed or not.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable
from typing import Any, Protocol

import zmq

from arena.protocol.messages import MAX_MESSAGE_BYTES, REFEREE_MESSAGES, decode, encode

#: How long one blocking receive waits at most, so a waiting referee notices a dead bot soon.
POLL_SLICE_MS = 20


class SendError(Exception):
    """A message could not be handed to a bot (it is gone, or its queue is full).

    ``str(error)`` is the transport's reason, e.g. ``Host unreachable``.
    """


class Transport(Protocol):
    """What the protocol layer needs of a transport."""

    @property
    def address(self) -> str:
        """Where bots connect (``ARENA_ENDPOINT``); empty when nothing is bound."""
        ...

    def send(self, identity: bytes, frame: bytes) -> None:
        """Queue ``frame`` for the bot ``identity`` without blocking. Raises :class:`SendError`."""
        ...

    def receive(self, wait_ms: int) -> list[bytes] | None:
        """The next message, as ``[identity, frame, ...]``, waiting up to ``wait_ms`` for one
        (0: only if one is there already); None if none came."""
        ...

    def close(self) -> None:
        """Release the transport; nothing can be sent or received afterwards."""
        ...


class ZmqTransport:
    """A ZeroMQ ROUTER socket on a random loopback port.

    Sending to a bot that has gone raises (ROUTER_MANDATORY) instead of dropping the message
    silently; messages are capped at 4 MiB by ZeroMQ itself, a hard memory guard beneath the
    protocol's 1 MiB rule; closing never lingers.
    """

    def __init__(self, bind: bool = True) -> None:
        """``bind``: listen on ``tcp://127.0.0.1:<random port>``. A game without bot processes
        needs no port."""
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self._sock = self._ctx.socket(zmq.ROUTER)
        self._sock.setsockopt(zmq.LINGER, 0)
        self._sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self._sock.setsockopt(zmq.MAXMSGSIZE, 4 * MAX_MESSAGE_BYTES)
        # Waiting is a blocking receive with a timeout: it wakes at once when a message comes,
        # which is cheaper than polling then receiving. The timeout is only set when it
        # changes, since setting a socket option costs about as much as a receive.
        self._sock.setsockopt(zmq.RCVTIMEO, POLL_SLICE_MS)
        self._rcvtimeo = POLL_SLICE_MS
        self._address = ""
        if bind:
            port = self._sock.bind_to_random_port("tcp://127.0.0.1")
            self._address = f"tcp://127.0.0.1:{port}"

    @property
    def address(self) -> str:
        return self._address

    def send(self, identity: bytes, frame: bytes) -> None:
        try:
            self._sock.send_multipart([identity, frame], zmq.NOBLOCK)
        except zmq.ZMQError as exc:
            raise SendError(exc.strerror) from None

    def receive(self, wait_ms: int) -> list[bytes] | None:
        try:
            if wait_ms <= 0:
                return self._sock.recv_multipart(zmq.NOBLOCK)
            if wait_ms != self._rcvtimeo:
                self._sock.setsockopt(zmq.RCVTIMEO, wait_ms)
                self._rcvtimeo = wait_ms
            return self._sock.recv_multipart()
        except zmq.Again:
            return None

    def close(self) -> None:
        self._sock.close(linger=0)
        self._ctx.term()


class MemoryPeer:
    """A bot's end of a :class:`MemoryTransport`: send any frames, read what the referee sent.

    ``respond``, if given, is called with this peer and each frame the referee sends to it,
    at once and in the referee's thread, so an in-process bot can answer (with :meth:`send`)
    before the referee next receives.
    """

    def __init__(
        self,
        transport: MemoryTransport,
        identity: bytes,
        respond: Callable[[MemoryPeer, bytes], None] | None = None,
    ) -> None:
        self.transport = transport
        self.identity = identity
        self.respond = respond
        self.received: list[bytes] = []
        self.connected = True

    def send(self, *frames: bytes) -> None:
        """Queue a message of these frames (normally one) for the referee."""
        self.transport.inbound.append([self.identity, *frames])

    def send_message(self, message: dict[str, Any]) -> None:
        """Encode ``message`` (the protocol version is added) and send it as one frame."""
        self.send(encode(message))

    def messages(self) -> list[dict[str, Any]]:
        """Everything the referee sent this peer so far, decoded, oldest first."""
        return [decode(frame, REFEREE_MESSAGES) for frame in self.received]

    def disconnect(self) -> None:
        """Go away: from now on the referee's sends to this peer fail, as to a vanished bot."""
        self.connected = False


class MemoryTransport:
    """A transport inside this process, for tests: bots are :class:`MemoryPeer` objects."""

    def __init__(self, address: str = "memory://arena") -> None:
        self._address = address
        self.inbound: collections.deque[list[bytes]] = collections.deque()
        self.peers: dict[bytes, MemoryPeer] = {}
        self.closed = False

    @property
    def address(self) -> str:
        return self._address

    def connect(
        self,
        identity: bytes | None = None,
        respond: Callable[[MemoryPeer, bytes], None] | None = None,
    ) -> MemoryPeer:
        """A new bot-side peer (with a fresh identity unless one is given)."""
        identity = identity if identity is not None else f"peer-{len(self.peers)}".encode()
        peer = MemoryPeer(self, identity, respond)
        self.peers[identity] = peer
        return peer

    def send(self, identity: bytes, frame: bytes) -> None:
        peer = self.peers.get(identity)
        if self.closed or peer is None or not peer.connected:
            raise SendError("Host unreachable")
        peer.received.append(frame)
        if peer.respond is not None:
            peer.respond(peer, frame)

    def receive(self, wait_ms: int) -> list[bytes] | None:
        if not self.inbound and wait_ms > 0:
            # Nothing can arrive while this thread sleeps, but a wait must take its time: the
            # referee's deadlines are measured on the real clock.
            time.sleep(wait_ms / 1000)
        return self.inbound.popleft() if self.inbound else None

    def close(self) -> None:
        self.closed = True
