"""ZMTP 3.1, the wire protocol of ZeroMQ, as far as the referee speaks it: RFC 23 (ZMTP 3.0)
with its NULL security mechanism, and the PING and PONG commands of RFC 37 (ZMTP 3.1).

A connection starts with each side's 64-byte greeting (a signature, the version, the security
mechanism), then each side's READY command naming its socket type. From then on it carries
frames: a flags byte (MORE: another frame of the same message follows; LONG: an 8-byte size
instead of 1 byte; COMMAND: a command, not a message frame), the size, the body.

This module only builds and checks bytes; :mod:`arena.protocol.transport` reads and writes them.
"""

from __future__ import annotations

#: Flags of a frame's first byte.
MORE = 0x01
LONG = 0x02
COMMAND = 0x04
#: The length of a greeting.
GREETING_SIZE = 64
#: The referee's greeting: ZMTP 3.1 and the NULL mechanism (whose peers leave as-server 0).
GREETING = (b"\xff" + bytes(8) + b"\x7f" + b"\x03\x01" + b"NULL".ljust(20, b"\x00") + b"\x00"
            + bytes(31))
#: The socket type a bot must connect with (docs/protocol.md), and the referee's own.
PEER_TYPE = b"DEALER"
OWN_TYPE = b"ROUTER"


class WireError(ValueError):
    """Bytes that break ZMTP; the message says how, for people."""


def greeting_problem(greeting: bytes) -> str | None:
    """What is wrong with a peer's 64-byte greeting for this referee, or None if nothing."""
    if greeting[0] != 0xFF or greeting[9] & 0x01 != 0x01:
        return "not a ZeroMQ peer (no ZMTP signature)"
    if greeting[10] < 3:
        return f"ZMTP {greeting[10]}.{greeting[11]}: a ZeroMQ 4 library (ZMTP 3) is needed"
    mechanism = greeting[12:32].rstrip(b"\x00")
    if mechanism != b"NULL":
        return f"security mechanism {mechanism.decode('ascii', 'replace')!r}: only NULL is spoken"
    return None


def header(size: int, flags: int = 0) -> bytes:
    """The flags byte and size of a frame of ``size`` bytes."""
    if size < 256:
        return bytes((flags, size))
    return bytes((flags | LONG,)) + size.to_bytes(8, "big")


def frame(body: bytes, flags: int = 0) -> bytes:
    """A whole frame: header and body."""
    return header(len(body), flags) + body


def command(name: bytes, data: bytes = b"") -> bytes:
    """A command frame: the name (1-255 bytes, its length first), then its data."""
    return frame(bytes((len(name),)) + name + data, COMMAND)


def ready(socket_type: bytes = OWN_TYPE) -> bytes:
    """A READY command announcing ``socket_type``."""
    return command(b"READY", properties({b"Socket-Type": socket_type}))


def properties(values: dict[bytes, bytes]) -> bytes:
    """Metadata: each name (1 byte of length) and value (4 bytes of length)."""
    return b"".join(bytes((len(k),)) + k + len(v).to_bytes(4, "big") + v
                    for k, v in values.items())


def split_command(body: bytes) -> tuple[bytes, bytes]:
    """A command frame's body as (name, data). Raises :class:`WireError`."""
    if not body or len(body) < 1 + body[0]:
        raise WireError("a command whose name does not fit in it")
    return body[1:1 + body[0]], body[1 + body[0]:]


def parse_properties(data: bytes) -> dict[bytes, bytes]:
    """The metadata of a READY command, names in lower case (ZMTP compares them so).
    Raises :class:`WireError`."""
    found: dict[bytes, bytes] = {}
    at = 0
    while at < len(data):
        size = data[at]
        name = data[at + 1:at + 1 + size]
        at += 1 + size
        if size == 0 or len(name) != size or at + 4 > len(data):
            raise WireError("a READY command with a damaged property")
        length = int.from_bytes(data[at:at + 4], "big")
        value = data[at + 4:at + 4 + length]
        if len(value) != length:
            raise WireError("a READY command with a damaged property")
        at += 4 + length
        found[name.lower()] = value
    return found


def pong(ping_data: bytes) -> bytes:
    """The PONG answering a PING whose data (after its name) is ``ping_data``: its context,
    what follows the 2-byte time to live, at most 16 bytes."""
    return command(b"PONG", ping_data[2:18])


def error(reason: str) -> bytes:
    """An ERROR command: why the connection is about to be closed."""
    text = reason.encode("utf-8", "replace")[:255]
    return command(b"ERROR", bytes((len(text),)) + text)
