"""Protocol messages: msgpack maps with a ``type`` and the protocol version.

``docs/protocol.md`` is the specification; this module is its executable form. Decoding is
strict: anything that is not exactly one well-formed message of a known type raises
:class:`ProtocolError`, whose ``code`` the referee records against the sender.
"""

from __future__ import annotations

import re
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

# What decoding one bot message may cost. Bots send small flat maps, but the size limit alone
# lets a message hold a million tiny elements (tens of ms to decode, every answer). msgpack
# checks the container and string limits on each header, before it reads what follows. The
# element total and the nesting are checked by _Bounds as msgpack completes each container; that
# alone would let the scalars of up to 1024 unfinished containers (msgpack's stack) through
# unchecked, so a frame too big for that to matter is first walked header by header
# (_check_shape), which stops at the first header that breaks a limit.
#: The most items in one array or entries in one map of a bot's message.
MAX_CONTAINER_LEN: Final = 256
#: The most items and entries in all the arrays and maps of a bot's message together.
MAX_ELEMENTS: Final = 1024
#: The deepest nesting of arrays and maps in a bot's message; its own map is level 1.
MAX_NESTING: Final = 4
#: The longest str, bin or ext value in a bot's message, in bytes. Decoding one costs time in
#: proportion to its bytes, which the message's size already bounds (an ``error`` may carry a
#: text as long as the message allows).
MAX_STRING_BYTES: Final = MAX_MESSAGE_BYTES
#: Frames up to this size are decoded at once (they cannot hold more elements than bytes);
#: bigger ones are walked header by header first. Every answer of a bot is far smaller.
_WALK_ABOVE_BYTES: Final = 4096


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


_ELEMENTS_ERROR: Final = (f"more array items and map entries than the limit of {MAX_ELEMENTS} "
                          "in one message")
_NESTING_ERROR: Final = f"arrays and maps nested deeper than the limit of {MAX_NESTING} levels"


def _too_long(kind: str, length: int) -> ProtocolError:
    """The error for a container or string header over its limit (``kind`` as msgpack names
    it: array, map, str, bin or ext)."""
    if kind in ("array", "map"):
        what = f"an array of {length} items" if kind == "array" else f"a map of {length} entries"
        return ProtocolError(f"{what} is over the limit of {MAX_CONTAINER_LEN} items or "
                             "entries per array or map")
    return ProtocolError(f"a {kind} value of {length} bytes is over the limit of "
                         f"{MAX_STRING_BYTES} bytes per string")


class _Bounds:
    """The element total and nesting of one bot message, kept as msgpack completes each array
    and map (innermost first; :meth:`see` is its ``list_hook`` and ``object_hook``). The first that
    breaks a limit stops the decoding with a :class:`ProtocolError`."""

    __slots__ = ("elements", "heights")

    def __init__(self) -> None:
        self.elements = 0
        #: id -> nesting height of each container completed so far. Every one is still held by
        #: the message being built, so no id can be reused before decoding ends.
        self.heights: dict[int, int] = {}

    def see(self, container: Any) -> Any:
        """Count a container just completed; returns it unchanged."""
        self.elements += len(container)
        if self.elements > MAX_ELEMENTS:
            raise ProtocolError(_ELEMENTS_ERROR)
        height = 1
        heights = self.heights
        # Fast path: the map of a flat message is the first container completed, so none of
        # its values can be a container.
        if heights:
            for value in container.values() if type(container) is dict else container:
                if type(value) is list or type(value) is dict:
                    height = max(height, heights[id(value)] + 1)
            if height > MAX_NESTING:
                raise ProtocolError(_NESTING_ERROR)
        heights[id(container)] = height
        return container


# msgpack's first bytes of a map or an array header (fixmap, map16, map32; fixarray, array16,
# array32): the walk looks at the next byte to know what comes without decoding it.
_MAP_HEADERS: Final = frozenset([*range(0x80, 0x90), 0xDE, 0xDF])
_ARRAY_HEADERS: Final = frozenset([*range(0x90, 0xA0), 0xDC, 0xDD])


def _check_shape(frame: bytes) -> None:
    """Walk the first object of ``frame`` header by header, skipping scalars undecoded, and
    raise :class:`ProtocolError` at the first container header that breaks a limit: so the
    walk reads at most MAX_ELEMENTS elements. Malformed bytes raise msgpack's own errors."""
    unpacker = msgpack.Unpacker(max_buffer_size=len(frame), max_str_len=MAX_STRING_BYTES,
                                max_bin_len=MAX_STRING_BYTES, max_ext_len=MAX_STRING_BYTES)
    unpacker.feed(frame)
    elements = 0
    # How many objects are still to be read in each unfinished container, outermost first;
    # the bottom entry is the frame's one object.
    left = [1]
    while left:
        if not left[-1]:
            left.pop()
            continue
        left[-1] -= 1
        first = frame[unpacker.tell()]
        if first in _MAP_HEADERS:
            length = unpacker.read_map_header()
            kind, objects = "map", 2 * length
        elif first in _ARRAY_HEADERS:
            length = unpacker.read_array_header()
            kind, objects = "array", length
        else:
            unpacker.skip()
            continue
        if length > MAX_CONTAINER_LEN:
            raise _too_long(kind, length)
        elements += length
        if elements > MAX_ELEMENTS:
            raise ProtocolError(_ELEMENTS_ERROR)
        if len(left) > MAX_NESTING:
            raise ProtocolError(_NESTING_ERROR)
        left.append(objects)


# How msgpack words a header over one of its max_*_len limits, e.g. "900000 exceeds
# max_array_len(256)": read back to say it in the protocol's terms.
_MSGPACK_LIMIT = re.compile(r"^(\d+) exceeds max_(str|bin|ext|array|map)_len\(")


def _unpack_bot_message(frame: bytes) -> Any:
    """msgpack's strict decoder, within the limits above."""
    if len(frame) > _WALK_ABOVE_BYTES:
        _check_shape(frame)
    see = _Bounds().see
    try:
        return msgpack.unpackb(
            frame, raw=False, strict_map_key=True, use_list=True, list_hook=see, object_hook=see,
            max_array_len=MAX_CONTAINER_LEN, max_map_len=MAX_CONTAINER_LEN,
            max_str_len=MAX_STRING_BYTES, max_bin_len=MAX_STRING_BYTES,
            max_ext_len=MAX_STRING_BYTES,
        )
    except msgpack.StackError:
        # msgpack's C decoder has a fixed stack (1024 containers deep) and stops at the header
        # that would overflow it, before any container is completed for _Bounds to see.
        raise ProtocolError(_NESTING_ERROR) from None
    except ValueError as exc:
        over = _MSGPACK_LIMIT.match(str(exc))
        if over is None:
            raise
        raise _too_long(over.group(2), int(over.group(1))) from None


def _format_error(frame: bytes) -> str:
    """Where bytes that msgpack's decoder refused with its (wordless) FormatError go wrong: a
    value that begins with 0xc1, the one byte msgpack never uses. msgpack's decoder, skipping
    the frame, stops at that byte."""
    unpacker = msgpack.Unpacker(max_buffer_size=max(1, len(frame)))
    unpacker.feed(frame)
    try:
        unpacker.skip()
    except msgpack.FormatError:
        at = unpacker.tell()
        if at < len(frame) and frame[at] == 0xC1:
            return f"the value at byte {at} begins with 0xc1, a byte msgpack never uses"
    except Exception:  # any other fault: the general words below
        pass
    return "a value begins with a byte msgpack never uses (0xc1)"


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
        "time_control": dict, "components": dict, "bot_seed": int, "options": dict,
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

    Messages from bots (BOT_MESSAGES) are decoded strictly: trailing bytes are an error too,
    and so is breaking a limit on what decoding costs (MAX_CONTAINER_LEN, MAX_ELEMENTS,
    MAX_NESTING, MAX_STRING_BYTES), each checked before the work it bounds is done.

    Raises :class:`ProtocolError`: for more than MAX_MESSAGE_BYTES, a broken limit (the message
    names it), bytes that are not exactly
    one msgpack map with string keys, a missing or wrong ``protocol`` (code
    ``protocol_mismatch``), an unknown ``type``, or a missing or mistyped field.
    """
    if len(frame) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {len(frame)} bytes is over the {MAX_MESSAGE_BYTES} limit")
    try:
        if schemas is BOT_MESSAGES:
            message = _unpack_bot_message(frame)
        else:
            message = ormsgpack.unpackb(frame)
    except ProtocolError:
        raise
    except msgpack.FormatError:  # says nothing of its own
        raise ProtocolError(f"not a msgpack message: {_format_error(frame)}") from None
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
    options: dict[str, str],
) -> dict[str, Any]:
    """The start of a game for one seat (see docs/protocol.md, game_start). ``options``: the
    game's options, complete (every option of the game with its value; {} for a game without
    options)."""
    return _referee_message("game_start", {
        "game_id": game_id, "game": game, "rules_version": rules_version, "seat": seat,
        "num_players": num_players, "time_control": time_control, "components": components,
        "bot_seed": bot_seed, "options": options,
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


_REQUEST_HEAD: Final = b"\x88" + ormsgpack.packb("type") + ormsgpack.packb("request")
_PACKED = {name: ormsgpack.packb(name) for name in (
    "game_id", "request_id", "observation", "legal_actions", "time_left_ms", "decision_ms",
    "protocol")}


def encode_request(
    game_id: str, request_id: int, observation: dict[str, Any], packed_actions: bytes,
    time_left_ms: int, decision_ms: int,
) -> bytes:
    """``encode(request(...))`` byte for byte, with the legal actions already encoded (by an
    :class:`~arena.protocol.packing.ActionPacker`)."""
    if type(observation) is not dict or type(packed_actions) is not bytes:
        raise TypeError("'request' message: observation must be dict, legal actions bytes")
    if type(request_id) is not int or type(time_left_ms) is not int or \
            type(decision_ms) is not int or type(game_id) is not str:
        raise TypeError("'request' message: game_id must be str; ids and times int")
    k = _PACKED
    return b"".join((
        _REQUEST_HEAD, k["game_id"], ormsgpack.packb(game_id),
        k["request_id"], ormsgpack.packb(request_id),
        k["observation"], ormsgpack.packb(observation),
        k["legal_actions"], packed_actions,
        k["time_left_ms"], ormsgpack.packb(time_left_ms),
        k["decision_ms"], ormsgpack.packb(decision_ms),
        k["protocol"], ormsgpack.packb(PROTOCOL_VERSION),
    ))


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
