"""How the referee's frames travel: a transport seam, over ZeroMQ or in memory.

A transport moves whole messages between the referee and its bots, each message a list of
frames led by the sender's identity (a ZeroMQ ROUTER's framing). It knows nothing of what the
frames mean: :mod:`arena.protocol.server` decodes and judges them. It also reports a bot's
connection closed under it (:class:`Lost`): ZeroMQ closes a connection as soon as it announces a
message over MAX_MESSAGE_BYTES, so such a message is never buffered, but it never arrives either.

:class:`ZmqTransport` is the real one. :class:`MemoryTransport` keeps everything in this process,
so protocol tests need no socket and no bot process: a :class:`MemoryPeer` plays a bot's side
and can send any frames at all, well formed or not.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import zmq
from zmq.utils.monitor import recv_monitor_message

from arena.protocol.messages import MAX_MESSAGE_BYTES, REFEREE_MESSAGES, decode, encode

#: How long one blocking receive waits at most, so a waiting referee notices a dead bot soon.
POLL_SLICE_MS = 20


class SendError(Exception):
    """A message could not be handed to a bot (it is gone, or its queue is full).

    ``str(error)`` is the transport's reason, e.g. ``Host unreachable``.
    """


@dataclass(frozen=True, slots=True)
class Lost:
    """The connection of the bot ``identity`` is closed: it sent a message over
    MAX_MESSAGE_BYTES (cut off as soon as its size was read), or it closed the connection
    itself (as a bot process does when it exits)."""

    identity: bytes


class Transport(Protocol):
    """What the protocol layer needs of a transport."""

    @property
    def address(self) -> str:
        """Where bots connect (``ARENA_ENDPOINT``); empty when nothing is bound."""
        ...

    def send(self, identity: bytes, frame: bytes) -> None:
        """Queue ``frame`` for the bot ``identity`` without blocking. Raises :class:`SendError`."""
        ...

    def receive(self, wait_ms: int) -> list[bytes] | Lost | None:
        """The next message, as ``[identity, frame, ...]``, or the next connection lost,
        waiting up to ``wait_ms`` for one (0: only if one is there already); None if none
        came."""
        ...

    def close(self) -> None:
        """Release the transport; nothing can be sent or received afterwards."""
        ...


#: How many messages the ZeroMQ transport receives between looks for lost connections when
#: messages never stop coming (it looks whenever a wait for one ends empty).
LOST_CHECK_EVERY = 64


class ZmqTransport:
    """A ZeroMQ ROUTER socket on a random loopback port, or on a given endpoint.

    Sending to a bot that has gone raises (ROUTER_MANDATORY) instead of dropping the message
    silently; closing never lingers. A message over MAX_MESSAGE_BYTES makes ZeroMQ close that
    connection as soon as it reads the size (MAXMSGSIZE), so no such message is ever held in
    memory; the socket's monitor reports the connection's file descriptor closed, and the
    transport tells whose it was (:class:`Lost`), since it notes the descriptor each identity's
    first message came through.
    """

    def __init__(self, bind: bool = True, endpoint: str | None = None) -> None:
        """``bind``: listen on ``endpoint`` if given (such as ``ipc:///some/dir/arena.sock``,
        for bots that have no network), else on ``tcp://127.0.0.1:<random port>``. A game
        without bot processes needs no port."""
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self._sock = self._ctx.socket(zmq.ROUTER)
        self._sock.setsockopt(zmq.LINGER, 0)
        self._sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self._sock.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        # Waiting is a blocking receive with a timeout: it wakes at once when a message comes,
        # which is cheaper than polling then receiving. The timeout is only set when it
        # changes, since setting a socket option costs about as much as a receive.
        self._sock.setsockopt(zmq.RCVTIMEO, POLL_SLICE_MS)
        self._rcvtimeo = POLL_SLICE_MS
        self._monitor = self._sock.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        # Whose connection each file descriptor is, and back: an entry is made at an identity's
        # first message and dropped when that connection closes (the descriptor is then free
        # for another connection).
        self._identity_of: dict[int, bytes] = {}
        self._fd_of: dict[bytes, int] = {}
        self._lost: collections.deque[Lost] = collections.deque()
        self._unwatched = 0
        self._address = ""
        if bind and endpoint is not None:
            self._sock.bind(endpoint)
            self._address = endpoint
        elif bind:
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

    def receive(self, wait_ms: int) -> list[bytes] | Lost | None:
        if self._lost:
            return self._lost.popleft()
        sock = self._sock
        try:
            if wait_ms <= 0:
                identity = sock.recv(zmq.NOBLOCK)
            else:
                if wait_ms != self._rcvtimeo:
                    sock.setsockopt(zmq.RCVTIMEO, wait_ms)
                    self._rcvtimeo = wait_ms
                identity = sock.recv()
        except zmq.Again:
            self._watch()
            return self._lost.popleft() if self._lost else None
        # The frames of a message arrive together, so the rest is there already. Plain
        # receives cost less than recv_multipart, and a frame's own "more" flag less than
        # asking the socket (RCVMORE).
        data = sock.recv(copy=False)
        if identity not in self._fd_of:
            # The closing of this descriptor's previous connection was reported before the
            # descriptor could be reused: hear it first, so it is not blamed on this one.
            self._watch()
            # The descriptor the frame was read through (TCP or ipc: both are stream sockets);
            # libzmq warns it may be closed, even reused, by now: then this connection is gone
            # already and its sends will fail.
            fd = data.get(zmq.SRCFD)
            stale = self._identity_of.get(fd)
            if stale is not None:
                # Still noted as this descriptor's: its closing was read before its first
                # message was, so it was never reported. It is gone all the same.
                del self._fd_of[stale]
                self._lost.append(Lost(stale))
            self._identity_of[fd] = identity
            self._fd_of[identity] = fd
        else:
            self._unwatched += 1
            if self._unwatched >= LOST_CHECK_EVERY:
                self._watch()
        frames = [identity, data.bytes]
        while data.more:
            data = sock.recv(copy=False)
            frames.append(data.bytes)
        return frames

    def _watch(self) -> None:
        """Read the monitor's reports of closed connections; queue a :class:`Lost` for each
        that had sent a message."""
        self._unwatched = 0
        while True:
            try:
                event = recv_monitor_message(self._monitor, zmq.NOBLOCK)
            except zmq.Again:
                return
            identity = self._identity_of.pop(event["value"], None)
            if identity is not None:
                del self._fd_of[identity]
                self._lost.append(Lost(identity))

    def close(self) -> None:
        self._sock.disable_monitor()
        self._monitor.close(linger=0)
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

    def lose(self) -> None:
        """Have the transport close this peer's connection, as ZeroMQ does when a bot sends a
        message over the size limit: the referee receives :class:`Lost`, and its sends fail."""
        self.transport.inbound.append(Lost(self.identity))
        self.disconnect()


class MemoryTransport:
    """A transport inside this process, for tests: bots are :class:`MemoryPeer` objects."""

    def __init__(self, address: str = "memory://arena") -> None:
        self._address = address
        self.inbound: collections.deque[list[bytes] | Lost] = collections.deque()
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

    def receive(self, wait_ms: int) -> list[bytes] | Lost | None:
        if not self.inbound and wait_ms > 0:
            # Nothing can arrive while this thread sleeps, but a wait must take its time: the
            # referee's deadlines are measured on the real clock.
            time.sleep(wait_ms / 1000)
        return self.inbound.popleft() if self.inbound else None

    def close(self) -> None:
        self.closed = True
