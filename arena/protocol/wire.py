"""The referee's end of the ZeroMQ wire: :class:`ZmtpTransport`, the transport of real games.

Each bot process gets a door of its own, a unix socket in a folder of its own (which the
sandbox shows the bot at a fixed path), and the referee reads ZeroMQ's wire protocol
(:mod:`arena.protocol.zmtp`) itself, frame by frame, rather than through a ZeroMQ socket. A
ZeroMQ socket accepts any number of connections, one file descriptor each, and hands over a
message only once all its frames have arrived, so one bot could make the referee run out of
descriptors or hold unbounded memory. Here a door holds one connection at a time (a few more
are refused, then the bot is blamed and the door closed), and a frame is judged by its header
as it arrives: a message of more than one frame, or over MAX_MESSAGE_BYTES, ends the
connection before its body is read. A bot still connects a ZeroMQ DEALER and sends one msgpack
frame per message: the wire is the same.

One thread does everything, through one epoll: accepting at the doors, reading and parsing
what came, and sending what waits, whenever the referee asks for the next message.
"""

from __future__ import annotations

import collections
import itertools
import os
import secrets
import select
import shutil
import socket
import tempfile

from arena.protocol import scratch, zmtp
from arena.protocol.messages import MAX_MESSAGE_BYTES
from arena.protocol.transport import Breach, Door, Event, Lost, SendError

#: The name of the socket in each door's folder.
SOCKET_NAME = "arena.sock"
#: How many connections a door accepts over its life, and how many more it refuses (each
#: closed as soon as it is accepted) before its bot is blamed and the door closed for good. A
#: bot connects once; a few more leave room for a library that reconnects.
DOOR_CONNECTIONS = 4
DOOR_REFUSALS = 4
#: The connections the kernel holds for a door until the referee takes them (more are refused
#: by the kernel): enough that a bot opening many at once meets its blame at once.
BACKLOG = 2 * DOOR_REFUSALS
#: The most read from one connection at a time, and the most messages taken from what was read
#: before other connections get a turn: what a connection costs the referee is its unfinished
#: frame (at most MAX_MESSAGE_BYTES) plus one read.
READ_BYTES = 64 * 1024
BATCH = 16
#: The largest command a bot may send (a READY with its properties, a PING).
COMMAND_BYTES = 4096
#: What may wait to be sent to a bot that does not read, before a send fails.
OUTBOUND_BYTES = 16 * MAX_MESSAGE_BYTES
_GREETING, _HANDSHAKE, _OPEN = 0, 1, 2
_IN, _OUT = select.EPOLLIN, select.EPOLLOUT


class _Door:
    __slots__ = ("accepted", "fd", "folder", "key", "listener", "path", "refused", "wires")

    def __init__(self, key: int, folder: str, path: str, listener: socket.socket) -> None:
        self.key = key
        self.folder = folder
        self.path = path
        self.listener: socket.socket | None = listener
        self.fd = listener.fileno()
        self.accepted = 0
        self.refused = 0
        self.wires: set[_Wire] = set()


class _Wire:
    """One accepted connection."""

    __slots__ = ("delivered", "door", "fd", "identity", "inbox", "outbox", "sock", "stage")

    def __init__(self, sock: socket.socket, identity: bytes, door: _Door) -> None:
        self.sock = sock
        self.fd = sock.fileno()
        self.identity = identity
        self.door = door
        self.stage = _GREETING
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.delivered = False


class ZmtpTransport:
    """The referee's end of the ZeroMQ wire, one door per bot process (see the module's
    docstring). Doors are unix sockets in a private folder made when the first door opens:
    each door's folder may be entered by anyone who knows its name, and its socket is open to
    all, since a root runner's bots run as users of their own."""

    def __init__(self) -> None:
        self._root: str | None = None
        self._epoll = select.epoll()
        self._keys = itertools.count(1)
        self._doors: dict[int, _Door] = {}
        self._wires: dict[bytes, _Wire] = {}
        self._owners: dict[int, _Door | _Wire] = {}
        self._events: collections.deque[list[bytes] | Event] = collections.deque()
        #: Connections holding whole messages not yet taken (over a :data:`BATCH`).
        self._unread: collections.deque[_Wire] = collections.deque()

    @property
    def address(self) -> str:
        return ""

    @property
    def folder(self) -> str | None:
        """The private folder holding the doors (None until the first opens)."""
        return self._root

    def _make_root(self) -> str:
        """Make the doors' private folder (:func:`arena.protocol.scratch.make`: a worker
        killed outright leaves it to be swept by the next). Its path is recorded before it is
        made: a game worker's SIGTERM handler raises, and landing between the two it would
        leave the folder to no one; recorded first, close() removes it whenever the signal
        comes. A name already taken is drawn again, as mkdtemp does."""
        for _ in range(100):
            self._root = root = _private_folder_path()
            scratch.sweep_once(os.path.dirname(root), FOLDER_PREFIX)
            try:
                scratch.make(root)
                return root
            except FileExistsError:
                self._root = None  # not ours
            except OSError:
                self._root = None
                raise
        raise FileExistsError(f"no free name for the doors' folder beside {root}")

    # ------------------------------------------------------------------ doors
    def open_door(self) -> Door:
        """Raises OSError if the socket cannot be made (its folder, a full disk)."""
        root = self._root or self._make_root()
        key = next(self._keys)
        folder = os.path.join(root, f"d{key}")
        os.mkdir(folder)
        os.chmod(folder, 0o711)
        path = os.path.join(folder, SOCKET_NAME)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK)
        try:
            listener.bind(path)
            os.chmod(path, 0o666)
            listener.listen(BACKLOG)
        except OSError:
            listener.close()
            shutil.rmtree(folder, ignore_errors=True)
            raise
        door = _Door(key, folder, path, listener)
        self._doors[key] = door
        self._owners[door.fd] = door
        self._epoll.register(door.fd, _IN)
        return Door(key, folder, f"ipc://{path}")

    def close_door(self, key: int) -> None:
        door = self._doors.pop(key, None)
        if door is None:
            return
        self._shut(door)
        for wire in list(door.wires):
            self._close(wire)
        shutil.rmtree(door.folder, ignore_errors=True)

    def door_of(self, identity: bytes) -> int | None:
        wire = self._wires.get(identity)
        return wire.door.key if wire is not None else None

    def _shut(self, door: _Door) -> None:
        """Stop listening at ``door``: from now on connecting to it is refused by the kernel,
        at no cost to the referee."""
        if door.listener is not None:
            self._owners.pop(door.fd, None)
            self._epoll.unregister(door.fd)
            door.listener.close()
            door.listener = None

    def _accept(self, door: _Door) -> None:
        while door.listener is not None:
            try:
                sock, _ = door.listener.accept()
            except BlockingIOError:
                return
            except OSError as exc:
                # Out of descriptors, or memory: the referee's own trouble. This door stops
                # listening (its bot may then never connect, a void game) rather than spin.
                self._shut(door)
                self._events.append(Breach(b"", door.key, f"its connection could not be "
                                           f"accepted: {exc.strerror}", False))
                return
            self._reap(door)
            if door.wires or door.accepted >= DOOR_CONNECTIONS:
                sock.close()
                self._refused(door)
                continue
            door.accepted += 1
            sock.setblocking(False)
            wire = _Wire(sock, b"%d.%d" % (door.key, door.accepted), door)
            door.wires.add(wire)
            self._wires[wire.identity] = wire
            self._owners[wire.fd] = wire
            self._epoll.register(wire.fd, _IN)
            self._put(wire, zmtp.GREETING)

    def _reap(self, door: _Door) -> None:
        """Take as closed now each connection of ``door`` whose peer closed it with nothing
        unread (a connection the bot opened and closed again is not one it holds)."""
        for wire in list(door.wires):
            try:
                if wire.sock.recv(1, socket.MSG_PEEK) != b"":
                    continue
            except BlockingIOError:
                continue
            except OSError:
                pass
            self._close(wire, lost=wire.delivered)

    def _refused(self, door: _Door) -> None:
        door.refused += 1
        held = "while it held one" if door.wires else f"after {door.accepted}"
        if door.refused < DOOR_REFUSALS:
            self._events.append(Breach(b"", door.key, f"a connection {held} was refused: a bot "
                                       f"holds one connection to the referee", False))
            return
        self._shut(door)
        self._events.append(Breach(b"", door.key, f"{door.refused} connections beyond its one "
                                   f"were refused ({held}): a bot holds one connection to the "
                                   f"referee", True))

    # ------------------------------------------------------------------ receiving
    def receive(self, wait_ms: int) -> list[bytes] | Event | None:
        events = self._events
        if events:
            return events.popleft()
        if self._unread:
            self._parse(self._unread.popleft())
            if events:
                return events.popleft()
        try:
            ready = self._epoll.poll(wait_ms / 1000 if wait_ms > 0 else 0)
        except InterruptedError:
            ready = []
        owners = self._owners
        for fd, mask in ready:
            owner = owners.get(fd)
            if owner is None:
                continue  # closed since the poll, by the handling of another
            if isinstance(owner, _Door):
                self._accept(owner)
                continue
            wire = owner
            if mask & _OUT:
                self._flush(wire)
            if mask & ~_OUT and owners.get(fd) is wire:
                self._read(wire)
        return events.popleft() if events else None

    def _read(self, wire: _Wire) -> None:
        try:
            data = wire.sock.recv(READ_BYTES)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._close(wire, lost=wire.delivered)
            return
        wire.inbox += data
        self._parse(wire)

    def _parse(self, wire: _Wire) -> None:
        """Take what whole frames ``wire``'s inbox holds, at most :data:`BATCH` messages (the
        rest waits its turn in ``_unread``). A frame is judged by its header alone."""
        buf = wire.inbox
        at, end, taken = 0, len(buf), 0
        while True:
            if wire.stage == _GREETING:
                if end - at < zmtp.GREETING_SIZE:
                    break
                problem = zmtp.greeting_problem(bytes(buf[at:at + zmtp.GREETING_SIZE]))
                if problem is not None:
                    return self._breach(wire, problem)
                at += zmtp.GREETING_SIZE
                wire.stage = _HANDSHAKE
                self._put(wire, zmtp.ready())
                continue
            if end - at < 2:
                break
            flags = buf[at]
            if flags & zmtp.LONG:
                if end - at < 9:
                    break
                size, head = int.from_bytes(buf[at + 1:at + 9], "big"), 9
            else:
                size, head = buf[at + 1], 2
            problem = _frame_problem(flags, size, wire.stage)
            if problem is not None:
                return self._breach(wire, problem)
            if end - at - head < size:
                break
            body = bytes(buf[at + head:at + head + size])
            at += head + size
            if flags & zmtp.COMMAND:
                problem = self._command(wire, body)
                if problem is not None:
                    return self._breach(wire, problem)
                continue
            wire.delivered = True
            self._events.append([wire.identity, body])
            taken += 1
            if taken == BATCH and at < end:
                self._unread.append(wire)
                break
        del buf[:at]

    def _command(self, wire: _Wire, body: bytes) -> str | None:
        """Act on a command; what is wrong with it, if anything."""
        try:
            name, data = zmtp.split_command(body)
            if wire.stage == _HANDSHAKE:
                if name != b"READY":
                    return f"the command {name!r} before READY"
                kind = zmtp.parse_properties(data).get(b"socket-type", b"")
                if kind != zmtp.PEER_TYPE:
                    return (f"a socket of type {kind.decode('ascii', 'replace')!r}: a bot "
                            f"connects a {zmtp.PEER_TYPE.decode()}")
                wire.stage = _OPEN
            elif name == b"PING":
                self._put(wire, zmtp.pong(data))
            elif name == b"ERROR":
                return "the bot's ZeroMQ library reported an error and closes the connection"
        except zmtp.WireError as exc:
            return str(exc)
        return None

    def _breach(self, wire: _Wire, detail: str) -> None:
        self._put(wire, zmtp.error(detail))
        self._close(wire)
        self._events.append(Breach(wire.identity, wire.door.key, detail, wire.delivered))

    # ------------------------------------------------------------------ sending
    def send(self, identity: bytes, frame: bytes) -> None:
        wire = self._wires.get(identity)
        if wire is None:
            raise SendError("Host unreachable")
        if wire.outbox:
            if len(wire.outbox) + len(frame) > OUTBOUND_BYTES:
                raise SendError(f"the bot reads nothing it is sent ({len(wire.outbox)} bytes "
                                f"wait)")
            wire.outbox += zmtp.header(len(frame))
            wire.outbox += frame
            return
        head = zmtp.header(len(frame))
        try:
            sent = wire.sock.sendmsg((head, frame))
        except BlockingIOError:
            sent = 0
        except OSError as exc:
            raise SendError(exc.strerror or str(exc)) from None
        if sent < len(head) + len(frame):
            wire.outbox += (head + frame)[sent:]
            self._epoll.modify(wire.fd, _IN | _OUT)

    def _put(self, wire: _Wire, data: bytes) -> None:
        """Send wire-level bytes (the greeting, commands) as far as the connection takes them;
        a connection that takes nothing more is found closed by its reading side."""
        wire.outbox += data
        self._flush(wire)

    def _flush(self, wire: _Wire) -> None:
        try:
            sent = wire.sock.send(wire.outbox)
        except BlockingIOError:
            sent = 0
        except OSError:
            wire.outbox.clear()  # gone: the reading side hears it close
            return
        del wire.outbox[:sent]
        if wire.fd in self._owners:
            self._epoll.modify(wire.fd, _IN | _OUT if wire.outbox else _IN)

    # ------------------------------------------------------------------ closing
    def drop(self, identity: bytes) -> None:
        wire = self._wires.get(identity)
        if wire is not None:
            if wire.outbox:
                self._flush(wire)
            self._close(wire)

    def _close(self, wire: _Wire, lost: bool = False) -> None:
        if self._owners.pop(wire.fd, None) is None:
            return
        self._epoll.unregister(wire.fd)
        wire.sock.close()
        wire.door.wires.discard(wire)
        del self._wires[wire.identity]
        wire.inbox = bytearray()
        wire.outbox = bytearray()
        if lost:
            self._events.append(Lost(wire.identity))

    def close(self) -> None:
        for key in list(self._doors):
            self.close_door(key)
        self._epoll.close()
        if self._root is not None:
            scratch.remove(self._root)
            self._root = None


#: The name of every doors' folder begins with this.
FOLDER_PREFIX = "arena-endpoint-"

#: The longest path a unix socket may have (sun_path, less its terminating NUL), less room for
#: a door's folder and the socket's name.
_ROOM_FOR_ROOT = 107 - len(f"/d{10**9}/{SOCKET_NAME}")


def _private_folder_path() -> str:
    """A path for the doors' private folder, not made yet: under the temporary folder
    (``TMPDIR``) unless its path leaves no room for a socket's name, which the kernel holds to
    107 bytes, then under /tmp. The name is random (as ``mkdtemp``'s are); the folder is made
    with mode 0700."""
    name = f"{FOLDER_PREFIX}{secrets.token_hex(8)}"
    root = os.path.join(tempfile.gettempdir(), name)
    return root if len(os.fsencode(root)) <= _ROOM_FOR_ROOT else os.path.join("/tmp", name)


def sweep_doors() -> list[str]:
    """Remove the doors' folders of processes that are gone (a game worker killed outright
    leaves its folder: see :mod:`arena.protocol.scratch`); the paths removed."""
    return scratch.sweep(os.path.dirname(_private_folder_path()), FOLDER_PREFIX)


def _frame_problem(flags: int, size: int, stage: int) -> str | None:
    """What is wrong with a frame, from its header alone."""
    if flags & ~(zmtp.MORE | zmtp.LONG | zmtp.COMMAND):
        return f"a frame with unknown flags {flags:#04x}"
    if flags & zmtp.COMMAND:
        if size > COMMAND_BYTES:
            return f"a command of {size} bytes, over the limit of {COMMAND_BYTES} bytes"
        return None
    if stage != _OPEN:
        return "a message before the ZeroMQ handshake ended"
    if flags & zmtp.MORE:
        return (f"a message of more than one frame: a message is one frame of at most "
                f"{MAX_MESSAGE_BYTES} bytes")
    if size > MAX_MESSAGE_BYTES:
        return f"a message of {size} bytes, over the limit of {MAX_MESSAGE_BYTES} bytes"
    return None
