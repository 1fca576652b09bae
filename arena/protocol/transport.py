"""How the referee's frames travel: the transport seam, and a transport in memory for tests.

A transport moves whole messages between the referee and its bots, each message a list of
frames led by the sender's identity (a ZeroMQ ROUTER's framing). It knows nothing of what the
frames mean: :mod:`arena.protocol.server` decodes and judges them. It also reports a bot's
connection closed under it (:class:`Lost`) and what a connection did against the wire's rules
(:class:`Breach`).

:class:`~arena.protocol.wire.ZmtpTransport` is the real one, a door per bot process.
:class:`MemoryTransport` keeps everything in this process, so protocol tests need no socket and
no bot process: a :class:`MemoryPeer` plays a bot's side and can send any frames at all, well
formed or not.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from arena.protocol.messages import REFEREE_MESSAGES, decode, encode

#: How long one blocking receive waits at most, so a waiting referee notices a dead bot soon.
POLL_SLICE_MS = 20


class SendError(Exception):
    """A message could not be handed to a bot (it is gone, or it reads nothing it is sent).

    ``str(error)`` is the transport's reason, e.g. ``Host unreachable``.
    """


@dataclass(frozen=True, slots=True)
class Lost:
    """The connection of the bot ``identity`` is closed: the bot closed it (as a bot process
    does when it exits). Reported only for a connection that delivered a message."""

    identity: bytes


@dataclass(frozen=True, slots=True)
class Breach:
    """A connection broke the wire's rules, and the transport closed it.

    ``identity`` is the connection's (empty for one closed as it was accepted, beyond what its
    door allows), ``door`` the door it came through (None without doors). ``fatal``: the bot
    behind it must be failed (its connection had delivered messages, or its door refused
    too many); otherwise the connection was only refused."""

    identity: bytes
    door: int | None
    detail: str
    fatal: bool


#: What a transport's receive gives besides a message.
Event = Lost | Breach


@dataclass(frozen=True, slots=True)
class Door:
    """Where one bot process connects: ``folder`` holds the socket (the sandbox mounts it),
    ``address`` is ``ARENA_ENDPOINT`` outside a sandbox."""

    key: int
    folder: str
    address: str


class Transport(Protocol):
    """What the protocol layer needs of a transport."""

    @property
    def address(self) -> str:
        """Where bots connect (``ARENA_ENDPOINT``) when the transport has no doors."""
        ...

    def open_door(self) -> Door | None:
        """A door for one bot process, or None if this transport has none (every bot then
        connects to :attr:`address`)."""
        ...

    def close_door(self, key: int) -> None:
        """Close a door and every connection through it (its bot process is gone)."""
        ...

    def door_of(self, identity: bytes) -> int | None:
        """The door the connection ``identity`` came through (None without doors)."""
        ...

    def send(self, identity: bytes, frame: bytes) -> None:
        """Queue ``frame`` for the bot ``identity`` without blocking. Raises :class:`SendError`."""
        ...

    def receive(self, wait_ms: int) -> list[bytes] | Event | None:
        """The next message, as ``[identity, frame]``, or the next :class:`Lost` or
        :class:`Breach`, waiting up to ``wait_ms`` for one (0: only if one is there already);
        None if none came (a wait may end early)."""
        ...

    def drop(self, identity: bytes) -> None:
        """Close the connection ``identity`` (after a last try to send what waits for it)."""
        ...

    def close(self) -> None:
        """Release the transport; nothing can be sent or received afterwards."""
        ...


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
        """Close this peer's connection, as a bot does when it exits or closes its socket: the
        referee receives :class:`Lost`, and its sends fail."""
        self.transport.inbound.append(Lost(self.identity))
        self.disconnect()

    def breach(self, detail: str) -> None:
        """Have the transport close this peer's connection for breaking the wire's rules (a
        message of several frames, or over the size limit), as :class:`ZmtpTransport` does:
        the referee receives a fatal :class:`Breach`, and its sends fail."""
        self.transport.inbound.append(Breach(self.identity, None, detail, True))
        self.disconnect()


class MemoryTransport:
    """A transport inside this process, for tests: bots are :class:`MemoryPeer` objects."""

    def __init__(self, address: str = "memory://arena") -> None:
        self._address = address
        self.inbound: collections.deque[list[bytes] | Event] = collections.deque()
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

    def open_door(self) -> None:
        return None

    def close_door(self, key: int) -> None:
        pass

    def door_of(self, identity: bytes) -> None:
        return None

    def drop(self, identity: bytes) -> None:
        peer = self.peers.get(identity)
        if peer is not None:
            peer.disconnect()

    def send(self, identity: bytes, frame: bytes) -> None:
        peer = self.peers.get(identity)
        if self.closed or peer is None or not peer.connected:
            raise SendError("Host unreachable")
        peer.received.append(frame)
        if peer.respond is not None:
            peer.respond(peer, frame)

    def receive(self, wait_ms: int) -> list[bytes] | Event | None:
        if not self.inbound and wait_ms > 0:
            # Nothing can arrive while this thread sleeps, but a wait must take its time: the
            # referee's deadlines are measured on the real clock.
            time.sleep(wait_ms / 1000)
        return self.inbound.popleft() if self.inbound else None

    def close(self) -> None:
        self.closed = True
