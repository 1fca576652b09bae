"""The bot SDK's end of the wire: a ZeroMQ DEALER connection to the referee, spoken over a plain
socket (``ipc://`` or ``tcp://``) in ZMTP 3.1 with the NULL mechanism (:mod:`arena.protocol.zmtp`).

A bot has one peer and one message in flight at a time, and needs nothing a ZeroMQ library adds
for many (queues, reconnection, an I/O thread). Without one, a Python bot starts without
importing pyzmq, the larger part of its start-up. Bots in other languages connect with their own
ZeroMQ library, a DEALER socket, as docs/protocol.md says.
"""

from __future__ import annotations

import socket
import time

from arena.protocol import zmtp

#: How long a connection is tried for while the referee's socket refuses it (ZeroMQ retries
#: for ever; a bot is only started once its door is open, so this is seldom more than once).
CONNECT_TIMEOUT_S = 10.0
#: The wait between two tries.
RETRY_S = 0.02


class ConnectionLost(ConnectionError):
    """The referee closed the connection, or spoke something that is not ZMTP."""


class Dealer:
    """A DEALER's connection to the ROUTER at ``endpoint``: whole messages of one frame each,
    sent and received; the referee's PINGs answered as they come."""

    def __init__(self, endpoint: str, connect_timeout_s: float | None = None) -> None:
        self._sock = _connect(endpoint, CONNECT_TIMEOUT_S if connect_timeout_s is None
                              else connect_timeout_s)
        self._buffer = bytearray()
        try:
            self._handshake()
        except BaseException:
            self._sock.close()
            raise

    def send(self, body: bytes) -> None:
        """Send one message of one frame."""
        self._sock.sendall(zmtp.header(len(body)) + body)

    def recv(self) -> bytes:
        """The next message's body. Raises :class:`ConnectionLost`."""
        while True:
            flags, body = self._frame()
            if flags & zmtp.COMMAND:
                self._command(body)
            elif flags & zmtp.MORE:
                raise ConnectionLost("the referee sent a message of several frames")
            else:
                return body

    def close(self) -> None:
        self._sock.close()

    def _handshake(self) -> None:
        self._sock.sendall(zmtp.GREETING)
        problem = zmtp.greeting_problem(self._exactly(zmtp.GREETING_SIZE))
        if problem:
            raise ConnectionLost(f"the referee's greeting: {problem}")
        self._sock.sendall(zmtp.ready(zmtp.PEER_TYPE))
        flags, body = self._frame()
        name, data = zmtp.split_command(body) if flags & zmtp.COMMAND else (b"", b"")
        if name != b"READY":
            raise ConnectionLost("the referee did not answer the greeting with READY")
        kind = zmtp.parse_properties(data).get(b"socket-type")
        if kind != zmtp.OWN_TYPE:
            raise ConnectionLost(f"the referee's socket is a {kind!r}, not a ROUTER")

    def _command(self, body: bytes) -> None:
        name, data = zmtp.split_command(body)
        if name == b"PING":
            self._sock.sendall(zmtp.pong(data))
        elif name == b"ERROR":
            reason = data[1:1 + data[0]] if data else b""
            raise ConnectionLost(f"the referee closed the connection: "
                                 f"{reason.decode('utf-8', 'replace')}")

    def _frame(self) -> tuple[int, bytes]:
        flags, size = self._exactly(2)
        if flags & zmtp.LONG:
            size = int.from_bytes(bytes((size,)) + self._exactly(7), "big")
        return flags, self._exactly(size)

    def _exactly(self, n: int) -> bytes:
        while len(self._buffer) < n:
            chunk = self._sock.recv(max(65536, n - len(self._buffer)))
            if not chunk:
                raise ConnectionLost("the referee closed the connection")
            self._buffer += chunk
        out = bytes(self._buffer[:n])
        del self._buffer[:n]
        return out


def _connect(endpoint: str, timeout_s: float) -> socket.socket:
    """A connected socket to ``ipc://PATH`` or ``tcp://HOST:PORT``, tried until ``timeout_s``."""
    if endpoint.startswith("ipc://"):
        family, address = socket.AF_UNIX, endpoint[len("ipc://"):]
    elif endpoint.startswith("tcp://"):
        host, _, port = endpoint[len("tcp://"):].rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"{endpoint!r} is not tcp://HOST:PORT")
        family, address = socket.AF_INET, (host.strip("[]"), int(port))  # type: ignore[assignment]
        if ":" in host:
            family = socket.AF_INET6
    else:
        raise ValueError(f"{endpoint!r}: only ipc:// and tcp:// endpoints are spoken")
    deadline = time.monotonic() + timeout_s
    while True:
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.connect(address)
        except (ConnectionRefusedError, FileNotFoundError):
            sock.close()
            if time.monotonic() >= deadline:
                raise
            time.sleep(RETRY_S)
            continue
        except BaseException:
            sock.close()
            raise
        if family != socket.AF_UNIX:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock
