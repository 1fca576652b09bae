"""Protocol messages: msgpack maps with a ``type`` and the protocol version.

``docs/protocol.md`` is the specification; this module is its executable form. Decoding is
strict: anything that is not exactly one well-formed message of a known type raises
:class:`ProtocolError`, whose ``code`` the referee records against the sender.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

import msgpack

# ormsgpack (a Rust msgpack codec) encodes faster and decodes a typical request about twice as
# fast as msgpack's C extension; a bot's decoding of requests is most of the protocol's cost per
# decision. It accepts trailing bytes after a map, so the referee reads bots' messages (small,
# and untrusted) with msgpack's strict decoder instead. Both speak the same wire format.
import ormsgpack

PROTOCOL_VERSION: Final = 1
#: The largest message a bot may send, encoded.
MAX_MESSAGE_BYTES: Final = 1 << 20
MAX_NAME_LENGTH: Final = 64


class Termination(StrEnum):
    """How a seat's part in a game ended: the one vocabulary of records, journals, ratings and
    the live view. A ``StrEnum``, so each member is (and serialises as) its plain string, the
    same strings records and journals have always held. A failure reason is also the ``code``
    of the ``error`` message the referee sends the bot."""

    OK = "ok"  #: the bot played the whole game
    TIMEOUT = "timeout"
    CRASH = "crash"
    ILLEGAL = "illegal_action"
    PROTOCOL = "protocol_error"

    @property
    def failed(self) -> bool:
        return self is not Termination.OK


#: The termination reasons that are a bot's failure, in display order.
FAILURES: Final[tuple[Termination, ...]] = tuple(t for t in Termination if t.failed)


class ProtocolError(Exception):
    """A message that breaks the protocol. ``code`` is ``protocol_error`` or
    ``protocol_mismatch``."""

    def __init__(self, message: str, code: str = "protocol_error") -> None:
        super().__init__(message)
        self.code = code


# Field schemas: name -> type. ``int`` never accepts a bool.
BOT_MESSAGES: Final[dict[str, dict[str, type]]] = {
    "hello": {"token": str, "name": str, "version": str},
    "action": {"request_id": int, "index": int},
    "pong": {"nonce": int},
    "error": {"code": str, "message": str},
}
REFEREE_MESSAGES: Final[dict[str, dict[str, type]]] = {
    "welcome": {"server": str, "server_version": str},
    "ping": {"nonce": int},
    "game_start": {
        "game_id": str, "game": str, "rules_version": str, "seat": int, "num_players": int,
        "time_control": dict, "components": dict, "bot_seed": int,
    },
    "request": {
        "game_id": str, "request_id": int, "observation": dict, "legal_actions": list,
        "time_left_ms": int, "decision_ms": int,
    },
    "game_end": {
        "game_id": str, "scores": list, "ranks": list, "terminations": list, "breakdown": list,
    },
    "error": {"code": str, "message": str},
    "shutdown": {"reason": str},
}


def encode(message: dict[str, Any]) -> bytes:
    """One message as one msgpack map (the protocol version is added)."""
    return ormsgpack.packb({**message, "protocol": PROTOCOL_VERSION})


def decode(frame: bytes, schemas: dict[str, dict[str, type]]) -> dict[str, Any]:
    """Decode and validate one frame against ``schemas`` (BOT_MESSAGES or REFEREE_MESSAGES).

    Messages from bots (BOT_MESSAGES) are decoded strictly: trailing bytes are an error too.

    Raises :class:`ProtocolError`: for more than MAX_MESSAGE_BYTES, bytes that are not exactly
    one msgpack map with string keys, a missing or wrong ``protocol`` (code
    ``protocol_mismatch``), an unknown ``type``, or a missing or mistyped field.
    """
    if len(frame) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {len(frame)} bytes is over the {MAX_MESSAGE_BYTES} limit")
    try:
        if schemas is BOT_MESSAGES:
            message = msgpack.unpackb(frame, raw=False, strict_map_key=True, use_list=True)
        else:
            message = ormsgpack.unpackb(frame)
    except Exception as exc:  # each decoder raises several unrelated types for bad input
        raise ProtocolError(f"not a msgpack message: {exc.__class__.__name__}: {exc}") from None
    if type(message) is not dict:
        raise ProtocolError(f"a message must be a map, got {type(message).__name__}")
    mtype = message.get("type")
    if type(mtype) is not str:
        raise ProtocolError("a message must have a string 'type'")
    version = message.get("protocol")
    if type(version) is not int:
        raise ProtocolError(f"{mtype!r} message without an integer 'protocol'")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            f"protocol version {version} is not supported; this referee speaks {PROTOCOL_VERSION}",
            code="protocol_mismatch",
        )
    schema = schemas.get(mtype)
    if schema is None:
        raise ProtocolError(f"unknown message type {mtype!r}")
    for field, ftype in schema.items():
        value = message.get(field)
        if type(value) is not ftype:
            got = "missing" if field not in message else type(value).__name__
            raise ProtocolError(f"{mtype!r} field {field!r} must be {ftype.__name__}, got {got}")
    if mtype == "hello":
        for field in ("name", "version"):
            if not 1 <= len(message[field]) <= MAX_NAME_LENGTH:
                raise ProtocolError(f"hello {field!r} must be 1-{MAX_NAME_LENGTH} characters")
    return message


# ---------------------------------------------------------------- the referee's messages
# Every message the referee sends is built here and checked against REFEREE_MESSAGES, so the
# spec, the schemas and what goes on the wire cannot drift apart. Only top-level field types are
# checked: a request is built per decision, and its observation is the engine's business.


def _referee_message(mtype: str, fields: dict[str, Any]) -> dict[str, Any]:
    schema = REFEREE_MESSAGES[mtype]
    if len(fields) != len(schema):
        extra = sorted(set(fields) - set(schema))
        missing = sorted(set(schema) - set(fields))
        raise TypeError(f"{mtype!r} message: unexpected {extra}, missing {missing}")
    for name, ftype in schema.items():
        if type(fields.get(name)) is not ftype:
            raise TypeError(
                f"{mtype!r} field {name!r} must be {ftype.__name__}, "
                f"got {type(fields.get(name)).__name__}"
            )
    # "type" first, then the fields in schema order: the byte layout the protocol has always had.
    return {"type": mtype, **fields}


def welcome(server_version: str) -> dict[str, Any]:
    """The answer to an accepted hello."""
    return _referee_message("welcome", {"server": "arena", "server_version": server_version})


def ping(nonce: int) -> dict[str, Any]:
    """A ping; the bot must answer with a pong carrying ``nonce``."""
    return _referee_message("ping", {"nonce": nonce})


def game_start(
    game_id: str, game: str, rules_version: str, seat: int, num_players: int,
    time_control: dict[str, Any], components: dict[str, Any], bot_seed: int,
) -> dict[str, Any]:
    """The start of a game for one seat (see docs/protocol.md, game_start)."""
    return _referee_message("game_start", {
        "game_id": game_id, "game": game, "rules_version": rules_version, "seat": seat,
        "num_players": num_players, "time_control": time_control, "components": components,
        "bot_seed": bot_seed,
    })


def request(
    game_id: str, request_id: int, observation: dict[str, Any],
    legal_actions: list[dict[str, Any]], time_left_ms: int, decision_ms: int,
) -> dict[str, Any]:
    """A decision request: the bot answers with the index of one of ``legal_actions``."""
    return _referee_message("request", {
        "game_id": game_id, "request_id": request_id, "observation": observation,
        "legal_actions": legal_actions, "time_left_ms": time_left_ms, "decision_ms": decision_ms,
    })


def game_end(
    game_id: str, scores: list[int], ranks: list[int], terminations: list[dict[str, Any]],
    breakdown: list[dict[str, Any]],
) -> dict[str, Any]:
    """The end of a game: per seat scores, ranks, terminations and score breakdowns."""
    return _referee_message("game_end", {
        "game_id": game_id, "scores": scores, "ranks": ranks, "terminations": terminations,
        "breakdown": breakdown,
    })


def error(code: str, message: str) -> dict[str, Any]:
    """An error the referee sends before it stops using a connection (``code``: a termination
    reason, or bad_token, bad_hello, protocol_mismatch)."""
    # A Termination is a str subclass; the schema wants the plain str it stands for.
    return _referee_message("error", {"code": str(code), "message": message})


def shutdown(reason: str) -> dict[str, Any]:
    """Tells a bot to exit."""
    return _referee_message("shutdown", {"reason": reason})
