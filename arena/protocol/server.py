"""The referee's side of the protocol: who may speak, what each bot said, and what it means.

Three layers over a :class:`~arena.protocol.transport.Transport`:

- :class:`Endpoint`: the transport and what outlives one game on it: identities refused for good,
  identities of bots kept waiting between games (whose messages are ignored), and request ids,
  unique across the endpoint's games so that a stale answer can never match a new request.
- :class:`Server`: one game's bots on an endpoint. It routes each incoming message to its
  connection, matches a ``hello`` to a connection by its door and token, refuses everyone
  else, and fails a bot for what its transport reports of it (a breach of the wire's rules).
- :class:`Connection`: one bot of the game: its handshake, requests, pings and the rules a bot
  must keep (one frame per message, at most 1 MiB, no flood, no second hello, no closing its
  connection). A request ends in a :class:`Reply` or a :class:`Failure`; a failure is final
  for the connection.

This layer knows nothing of games: a request carries whatever observation and actions it is
given, and whether the chosen index is legal is the caller's call.
"""

from __future__ import annotations

import contextlib
import hmac
import itertools
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from arena import __version__
from arena.protocol.messages import (
    BOT_MESSAGES,
    ProtocolError,
    Termination,
    decode,
    encode,
    encode_request,
    error,
    ping,
    shutdown,
    welcome,
)
from arena.protocol.transport import POLL_SLICE_MS, Event, Lost, SendError, Transport

#: Messages a bot may send without answering a request before it counts as flooding.
FLOOD_LIMIT = 64
#: How many wrong request ids a timeout's detail names.
STALE_IDS_NAMED = 3
#: How long a bot whose connection was lost has to be seen exited (a crash) before the loss is
#: its protocol error. An exiting process closes its sockets a moment before it can be reaped.
EXIT_GRACE_S = 0.2
#: The detail of a connection lost while its bot's process lives on.
LOST_DETAIL = "the bot closed its connection to the referee"


@dataclass(frozen=True, slots=True)
class Reply:
    """A valid answer to a request: the chosen ``index`` (not yet checked against the actions),
    and ``ms``, the time from sending the request to receiving the answer."""

    request_id: int
    index: int
    ms: float


@dataclass(frozen=True, slots=True)
class Failure:
    """How a connection failed; ``detail`` says what happened, for people."""

    reason: Termination
    detail: str


class Process(Protocol):
    """What a connection needs of its bot's process: a crash is a process that is no longer
    alive, and a bot the referee stops using is killed."""

    def alive(self) -> bool: ...

    def describe_exit(self) -> str: ...

    def kill(self) -> None: ...


def new_token() -> str:
    """A fresh secret token for one bot process (hex, so it compares in constant time)."""
    return secrets.token_hex(16)


#: How many refusal reasons a game keeps.
MAX_REFUSALS = 32

class Endpoint:
    """A transport shared by the games played on it, one after another."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        #: Connections whose every later message is dropped unread.
        self.refused: set[bytes] = set()
        #: Kept bots waiting for their next game: what they send is ignored, not refused.
        self.idle: set[bytes] = set()
        #: Doors whose bot, waiting for its next game, lost its connection or broke the wire's
        #: rules: it is stopped rather than kept.
        self.unfit: set[int] = set()
        self.request_ids = itertools.count(1)

    @property
    def address(self) -> str:
        """Where bots connect (``ARENA_ENDPOINT``)."""
        return self.transport.address

    def tell(self, identity: bytes, message: dict[str, Any]) -> None:
        """Send ``message`` if it can be sent: for news the recipient may no longer hear."""
        with contextlib.suppress(SendError):
            self.transport.send(identity, encode(message))

    def close(self) -> None:
        """Close the transport (after the last game on it)."""
        self.transport.close()


class Server:
    """One game's bots on an endpoint.

    ``event`` receives a line for every notable thing (a hello, a refusal, an ignored or
    reported message, a failure), in the order they happen.
    """

    def __init__(self, endpoint: Endpoint, event: Callable[[str], None]) -> None:
        self.endpoint = endpoint
        self.transport = endpoint.transport
        self.event = event
        self.connections: list[Connection] = []
        self.by_identity: dict[bytes, Connection] = {}
        #: Why connections were refused, for the message of a game that could not start.
        self.refusals: list[str] = []
        self.nonces = itertools.count(1)
        #: When the last message arrived (``time.perf_counter``): a bot's time stops then, not
        #: when the referee gets round to reading it.
        self.received_at = 0.0

    def expect(self, label: str, token: str, process: Process,
               door: int | None = None) -> Connection:
        """A connection for a bot just started with ``token`` and given ``door``; it is bound to
        the first connection through that door whose hello carries that token. ``label``
        prefixes its events."""
        connection = Connection(self, label, token, process, door=door)
        self.connections.append(connection)
        return connection

    def resume(self, label: str, token: str, identity: bytes, process: Process,
               door: int | None = None) -> Connection:
        """A connection for a bot already handshaken on this endpoint (kept from an earlier
        game); it is pinged at once, and its pong completes its handshake."""
        connection = Connection(self, label, token, process, identity, door)
        self.connections.append(connection)
        self.by_identity[identity] = connection
        connection.send_ping()
        return connection

    def receive(self, waiting_for: Connection | None, wait_ms: int) -> int | None:
        """Read one message, waiting up to ``wait_ms`` (0: only if one is there), and deal
        with it. Returns the index of an ``action`` that answers ``waiting_for``'s open
        request, if that is what arrived; everything else is handled here."""
        frames = self.transport.receive(wait_ms)
        if frames is None:
            return None
        if frames.__class__ is not list:
            self._news(frames)  # type: ignore[arg-type]
            return None
        self.received_at = time.perf_counter()
        identity = frames[0]
        if identity in self.endpoint.refused:
            return None
        connection = self.by_identity.get(identity)
        if connection is None:
            if identity in self.endpoint.idle:
                self.event("ignored a message from a bot waiting for its next game")
            else:
                self._stranger(identity, frames)
            return None
        if len(frames) != 2:
            connection.fail(Termination.PROTOCOL,
                            f"a message must be one frame, got {len(frames) - 1}")
            return None
        try:
            message = decode(frames[1], BOT_MESSAGES)
        except ProtocolError as exc:
            connection.fail(Termination.PROTOCOL, str(exc))
            return None
        return connection._take(message, connection is waiting_for)

    def _news(self, event: Event) -> None:
        """A connection lost or refused, or a breach of the wire's rules."""
        # A connection that has gone is forgotten: identities are never reused, so the set
        # holds only connections still open.
        self.endpoint.refused.discard(event.identity)
        connection = self.by_identity.get(event.identity)
        if isinstance(event, Lost):
            if connection is not None:
                connection.lost()
            elif event.identity in self.endpoint.idle:
                self._unfit(self.transport.door_of(event.identity))
            return
        if connection is None and event.door is not None:
            connection = next((c for c in self.connections if c.door == event.door), None)
        if connection is None:
            self.event(f"a connection was closed: {event.detail}")
            if event.fatal:
                self._unfit(event.door)
        elif event.fatal:
            connection.fail(Termination.PROTOCOL, event.detail)
        else:
            self.event(f"{connection.label}: refused a connection: {event.detail}")
            self._note_refusal(f"refused a connection: {event.detail}")

    def _unfit(self, door: int | None) -> None:
        if door is not None:
            self.endpoint.unfit.add(door)

    def _stranger(self, identity: bytes, frames: list[bytes]) -> None:
        """A message from a connection not yet bound to a bot: it must be a valid hello."""
        if len(frames) != 2:
            return
        try:
            message = decode(frames[1], BOT_MESSAGES)
        except ProtocolError as exc:
            if exc.code == "protocol_mismatch":
                self._refuse(identity, "protocol_mismatch", str(exc))
                # Its token was never read, so which bot it was is unknown; the reason goes
                # into the message of the game that cannot start.
                self._note_refusal(f"a connection spoke another protocol: {exc}")
            else:
                self._refuse(identity, "bad_hello", str(exc))
            return
        if message["type"] != "hello":
            self._refuse(identity, "protocol_error", "the first message must be a hello")
            return
        # Compared as bytes: compare_digest refuses str with non-ASCII characters, and a bot
        # must not be able to break the referee with the token it sends.
        token = message["token"].encode()
        door = self.transport.door_of(identity)
        for connection in self.connections:
            if connection.identity is None and connection.door == door and hmac.compare_digest(
                connection.token.encode(), token
            ):
                connection.identity = identity
                self.by_identity[identity] = connection
                connection.send(welcome(__version__))
                connection.send_ping()
                self.event(f"{connection.label}: hello from {message['name']} "
                           f"{message['version']}")
                return
        self._refuse(identity, "bad_token", "this token is not valid for any seat of the game")

    def _refuse(self, identity: bytes, code: str, text: str) -> None:
        self.endpoint.refused.add(identity)
        self.event(f"refused a connection: {code}: {text}")
        if code != "protocol_mismatch":
            self._note_refusal(f"refused a connection: {code}: {text}")
        self.endpoint.tell(identity, error(code, text))

    def _note_refusal(self, why: str) -> None:
        """Keep the first :data:`MAX_REFUSALS` reasons (a bot may open connections without
        end; the first say what went wrong)."""
        if len(self.refusals) < MAX_REFUSALS:
            self.refusals.append(why)


class Connection:
    """One bot of a game. Made by :meth:`Server.expect` or :meth:`Server.resume`.

    ``identity`` is None until the bot's hello is accepted; ``ponged`` is True once it has
    answered the latest ping; ``failure`` is set once, by :meth:`fail`, and from then on
    everything the bot sends is ignored.
    """

    def __init__(
        self,
        server: Server,
        label: str,
        token: str,
        process: Process,
        identity: bytes | None = None,
        door: int | None = None,
    ) -> None:
        self.server = server
        #: The door the bot was given (its connection must come through it).
        self.door = door
        self.label = label
        self.token = token
        self.process = process
        self.identity = identity
        self.failure: Failure | None = None
        self.request_id = 0  # the latest request sent
        self.unanswered = 0
        self.stale_ids: list[int] = []
        self.pong_nonce: int | None = None
        self.ponged = False
        self.shut_down = False

    def fail(self, reason: Termination, detail: str) -> Failure:
        """Record the connection's failure (the first one counts), tell the bot (best effort)
        and kill its process. Returns the failure that counts."""
        if self.failure is not None:
            return self.failure
        self.failure = Failure(reason, detail)
        self.server.event(f"{self.label}: {reason}: {detail}")
        if self.identity is not None:
            self.send(error(reason, detail), quiet=True)
            self.server.transport.drop(self.identity)  # nothing it sends is read any more
        self.process.kill()
        return self.failure

    def lost(self) -> None:
        """The transport closed the bot's connection: a crash if its process exits (it may be
        exiting now), otherwise a protocol error (a message over the size limit, or a
        connection the bot closed), since nothing the bot sends can arrive any more."""
        if self.failure is not None:
            return
        deadline = time.monotonic() + EXIT_GRACE_S
        while self.process.alive():
            if time.monotonic() >= deadline:
                self.fail(Termination.PROTOCOL, LOST_DETAIL)
                return
            time.sleep(0.005)
        self.fail(Termination.CRASH, self.process.describe_exit())

    def send(self, message: dict[str, Any], quiet: bool = False) -> bool:
        """Send ``message`` (built by :mod:`arena.protocol.messages`). If it cannot be sent,
        the connection fails (crash if the process is gone), unless ``quiet``. Returns whether
        it was sent."""
        assert self.identity is not None, "a connection sends only after its hello"
        try:
            self.server.transport.send(self.identity, encode(message))
        except SendError as exc:
            if not quiet:
                self.fail(self._lost(), f"cannot send to the bot ({exc})")
            return False
        return True

    def _lost(self) -> Termination:
        """Why a send failed: the bot crashed, or it is alive and broke the connection."""
        return Termination.PROTOCOL if self.process.alive() else Termination.CRASH

    def send_ping(self) -> bool:
        """Ping the bot with a fresh nonce; :attr:`ponged` turns True on the matching pong."""
        self.pong_nonce = next(self.server.nonces)
        self.ponged = False
        self.unanswered = 0
        return self.send(ping(self.pong_nonce))

    def ask(
        self,
        game_id: str,
        observation: dict[str, Any],
        legal_actions: bytes,
        time_left_ms: int,
        decision_ms: int,
        deadline_ms: float,
    ) -> Reply | Failure:
        """Send a request and wait up to ``deadline_ms`` for its answer. ``legal_actions``:
        the list already encoded (by an :class:`~arena.protocol.packing.ActionPacker`).

        Meanwhile every other message is dealt with (other bots' too). A crash, a send that
        fails, a protocol breach or no valid answer in time ends in a :class:`Failure`
        (the connection's); answers naming another request id are ignored, and a timeout's
        detail names the first few of them.

        The deadline is enforced here alone: a :class:`Reply` always took at most
        ``deadline_ms`` (an answer read after it is a timeout), so the caller only accounts
        for the time.
        """
        if self.failure is not None:
            return self.failure
        process = self.process
        if not process.alive():
            return self.fail(Termination.CRASH, process.describe_exit())
        server = self.server
        self.request_id = request_id = next(server.endpoint.request_ids)
        payload = encode_request(game_id, request_id, observation, legal_actions,
                                 time_left_ms, decision_ms)
        self.unanswered = 0
        self.stale_ids.clear()
        assert self.identity is not None
        receive, now = server.receive, time.perf_counter  # no lookups in the hot loop
        t0 = now()
        try:
            server.transport.send(self.identity, payload)
        except SendError as exc:
            return self.fail(self._lost(), f"cannot send the request ({exc})")
        while True:
            left = deadline_ms - (now() - t0) * 1000
            if left <= 0:
                stale = (f"; it answered request ids {self.stale_ids} instead"
                         if self.stale_ids else "")
                return self.fail(Termination.TIMEOUT, f"no answer to request {request_id} "
                                 f"within {deadline_ms:.0f} ms{stale}")
            index = receive(self, POLL_SLICE_MS if left > POLL_SLICE_MS else int(left) + 1)
            if index is not None:
                # The last wait may overrun the deadline by a moment: the answer's own time
                # decides, so that what comes back is always in time.
                ms = (server.received_at - t0) * 1000
                if ms > deadline_ms:
                    return self.fail(Termination.TIMEOUT, f"answered request {request_id} "
                                     f"after {ms:.0f} ms; the deadline was {deadline_ms:.0f} ms")
                return Reply(request_id, index, ms)
            if self.failure is not None:
                return self.failure
            if not process.alive():
                return self.fail(Termination.CRASH, process.describe_exit())

    def ping(self, timeout_ms: float) -> float | Failure:
        """Ping the bot and wait up to ``timeout_ms`` for its pong. Returns the round trip in
        ms, or the connection's failure (timeout, crash, or whatever broke it meanwhile)."""
        if self.failure is not None:
            return self.failure
        t0 = time.perf_counter()
        if not self.send_ping() and self.failure is not None:
            return self.failure  # a ping that cannot be sent fails the connection
        while not self.ponged:
            left = timeout_ms - (time.perf_counter() - t0) * 1000
            if left <= 0:
                return self.fail(Termination.TIMEOUT, f"no pong within {timeout_ms:.0f} ms")
            if (self.server.receive(None, max(1, min(POLL_SLICE_MS, int(left) + 1))) is None
                    and not self.process.alive()):
                self.fail(Termination.CRASH, self.process.describe_exit())
            if self.failure is not None:
                return self.failure
        return (time.perf_counter() - t0) * 1000

    def shutdown(self, reason: str) -> None:
        """Tell a healthy, connected bot to exit (once; best effort)."""
        if self.identity is not None and self.failure is None and not self.shut_down:
            self.shut_down = True
            self.send(shutdown(reason), quiet=True)

    def _take(self, message: dict[str, Any], awaited: bool) -> int | None:
        """A decoded message from this bot; ``awaited``: its answer to the open request is
        being waited for. Returns the index of an action answering that request."""
        if self.failure is not None:
            return None
        self.unanswered += 1
        if self.unanswered > FLOOD_LIMIT:
            self.fail(Termination.PROTOCOL,
                      f"flood: more than {FLOOD_LIMIT} messages without answering a request")
            return None
        mtype = message["type"]
        if mtype == "action":
            request_id = message["request_id"]
            if awaited and request_id == self.request_id:
                return message["index"]
            self.server.event(
                f"{self.label}: ignored an action for request {request_id} "
                f"(open request: {self.request_id if awaited else 'none'})"
            )
            if awaited and len(self.stale_ids) < STALE_IDS_NAMED:
                self.stale_ids.append(request_id)
        elif mtype == "pong":
            if message["nonce"] == self.pong_nonce:
                self.ponged = True
            else:
                self.server.event(f"{self.label}: pong with unexpected nonce {message['nonce']}")
        elif mtype == "error":
            self.server.event(
                f"{self.label} reports error {message['code']}: {message['message'][:200]}"
            )
        elif mtype == "hello":
            self.fail(Termination.PROTOCOL, "a second hello")
        return None
