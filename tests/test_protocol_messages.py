"""arena.protocol.messages: encoding, and strict decoding where every bad frame is a
ProtocolError with the right code."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from arena.protocol import messages
from arena.protocol.messages import (
    BOT_MESSAGES,
    MAX_CONTAINER_LEN,
    MAX_ELEMENTS,
    MAX_MESSAGE_BYTES,
    MAX_NAME_LENGTH,
    MAX_NESTING,
    MAX_STRING_BYTES,
    PROTOCOL_VERSION,
    REFEREE_MESSAGES,
    ProtocolError,
    Termination,
    decode,
    encode,
)
from arena.protocol.packing import ActionPacker, packer_for


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def action(**fields: Any) -> dict[str, Any]:
    return {"type": "action", "protocol": 1, "request_id": 17, "index": 3, **fields}


def protocol_error(frame: bytes, schemas: dict[str, dict[str, type]] = BOT_MESSAGES) -> str:
    """Decode ``frame``, which must fail with code protocol_error; return the message."""
    with pytest.raises(ProtocolError) as info:
        decode(frame, schemas)
    assert info.value.code == "protocol_error"
    return str(info.value)


BOT_EXAMPLES = [
    {"type": "hello", "token": "3f9c0a6d51e2b7a4", "name": "random-py", "version": "1.0"},
    {"type": "action", "request_id": 17, "index": 3},
    {"type": "pong", "nonce": 12},
    {"type": "error", "code": "oops", "message": "something of my own went wrong"},
]
REFEREE_EXAMPLES = [
    {"type": "welcome", "server": "arena", "server_version": "0.1.0"},
    {"type": "ping", "nonce": 2**40},
    {"type": "request", "game_id": "g1", "request_id": 1, "observation": {"round": 1},
     "legal_actions": [{"type": "decline"}, {"type": "pick_die", "face": 6}],
     "time_left_ms": 120000, "decision_ms": 5000},
    {"type": "shutdown", "reason": "game over"},
    {"type": "error", "code": "bad_token", "message": "no"},
]


def test_the_protocol_version_is_1_and_the_size_limit_is_one_mebibyte() -> None:
    assert PROTOCOL_VERSION == 1
    assert MAX_MESSAGE_BYTES == 1024 * 1024


@pytest.mark.parametrize("message", BOT_EXAMPLES, ids=lambda m: m["type"])
def test_a_bot_message_survives_encode_then_decode_with_the_protocol_added(
    message: dict[str, Any],
) -> None:
    original = dict(message)
    frame = encode(message)
    assert message == original, "encode must not change its argument"
    assert decode(frame, BOT_MESSAGES) == {**message, "protocol": 1}


@pytest.mark.parametrize("message", REFEREE_EXAMPLES, ids=lambda m: m["type"])
def test_a_referee_message_survives_encode_then_decode(message: dict[str, Any]) -> None:
    assert decode(encode(message), REFEREE_MESSAGES) == {**message, "protocol": 1}


def test_encode_makes_one_msgpack_map_with_string_keys() -> None:
    raw = msgpack.unpackb(encode({"type": "pong", "nonce": 5}), raw=True)
    assert raw == {b"type": b"pong", b"nonce": 5, b"protocol": 1}


def test_decode_accepts_extra_fields_and_keeps_them() -> None:
    got = decode(pack(action(comment="thinking hard")), BOT_MESSAGES)
    assert got["comment"] == "thinking hard" and got["index"] == 3


def test_a_message_of_exactly_the_limit_is_accepted_and_one_byte_more_is_oversize() -> None:
    base = pack({"type": "error", "protocol": 1, "code": "x", "message": ""})
    # The empty text has a 1-byte header; a text this long has a 5-byte (str32) header.
    text_len = MAX_MESSAGE_BYTES - len(base) - 4
    frame = pack({"type": "error", "protocol": 1, "code": "x", "message": "a" * text_len})
    assert len(frame) == MAX_MESSAGE_BYTES
    assert decode(frame, BOT_MESSAGES)["message"] == "a" * text_len
    bigger = pack({"type": "error", "protocol": 1, "code": "x", "message": "a" * (text_len + 1)})
    assert len(bigger) == MAX_MESSAGE_BYTES + 1
    message = protocol_error(bigger)
    assert str(MAX_MESSAGE_BYTES + 1) in message and "limit" in message


def test_an_oversize_frame_is_refused_before_it_is_unpacked() -> None:
    # Not even msgpack: the size check comes first.
    message = protocol_error(b"\xc1" * (MAX_MESSAGE_BYTES + 1))
    assert "limit" in message and "msgpack" not in message


@pytest.mark.parametrize(
    "frame",
    [b"", b"\xc1", b"\xc1\xc1 this is not msgpack", b"\x92\x01"],
    ids=["empty", "reserved-byte", "garbage", "truncated-array"],
)
def test_bytes_that_are_not_msgpack_are_a_protocol_error(frame: bytes) -> None:
    assert "not a msgpack message" in protocol_error(frame)


@pytest.mark.parametrize(
    ("frame", "at"),
    [(b"\xc1\xc1 this is not msgpack \xc1", 0), (pack(action())[:-1] + b"\xc1", None),
     (b"\x83\xa4type\xa6action\xa8protocol\x01\xa5index\xc1" + b"\x00" * 5000, 29)],
    ids=["garbage", "last-value", "inside-a-long-frame"],
)
def test_a_byte_msgpack_never_uses_is_named_with_where_it_is(frame: bytes, at: int | None) -> None:
    """msgpack's decoder refuses 0xc1 without a word: the message says where it is."""
    where = frame.rindex(b"\xc1") if at is None else at
    assert protocol_error(frame) == (f"not a msgpack message: the value at byte {where} begins "
                                     "with 0xc1, a byte msgpack never uses")


def test_trailing_bytes_after_the_map_are_a_protocol_error() -> None:
    frame = pack(action()) + b"\x00"
    assert "not a msgpack message" in protocol_error(frame)


def test_two_maps_in_one_frame_are_a_protocol_error() -> None:
    protocol_error(pack(action()) + pack(action()))


@pytest.mark.parametrize(
    ("value", "kind"),
    [([1, 2], "list"), (7, "int"), ("action", "str"), (None, "NoneType")],
)
def test_a_message_that_is_not_a_map_is_a_protocol_error(value: Any, kind: str) -> None:
    assert protocol_error(pack(value)) == f"a message must be a map, got {kind}"


def test_a_map_with_non_string_keys_is_a_protocol_error() -> None:
    protocol_error(pack({1: "action", "type": "action", "protocol": 1}))


@pytest.mark.parametrize("mtype", [None, 5, b"action"], ids=["missing", "int", "bytes"])
def test_a_message_without_a_string_type_is_a_protocol_error(mtype: Any) -> None:
    msg = action()
    if mtype is None:
        del msg["type"]
    else:
        msg["type"] = mtype
    assert protocol_error(pack(msg)) == "a message must have a string 'type'"


@pytest.mark.parametrize("version", [None, "1", 1.0, True], ids=["missing", "str", "float", "bool"])
def test_a_missing_or_non_integer_protocol_is_a_protocol_error_not_a_mismatch(
    version: Any,
) -> None:
    msg = action()
    if version is None:
        del msg["protocol"]
    else:
        msg["protocol"] = version
    assert "integer 'protocol'" in protocol_error(pack(msg))


@pytest.mark.parametrize("version", [2, 0, -1])
def test_another_protocol_version_is_a_mismatch_naming_both_versions(version: int) -> None:
    hello = {"type": "hello", "protocol": version, "token": "t", "name": "n", "version": "1"}
    with pytest.raises(ProtocolError) as info:
        decode(pack(hello), BOT_MESSAGES)
    assert info.value.code == "protocol_mismatch"
    assert str(info.value) == (
        f"protocol version {version} is not supported; this referee speaks 1"
    )


def test_the_version_is_checked_before_the_type() -> None:
    with pytest.raises(ProtocolError) as info:
        decode(pack({"type": "no-such-type", "protocol": 2}), BOT_MESSAGES)
    assert info.value.code == "protocol_mismatch"


@pytest.mark.parametrize("mtype", ["dance", "request", "ping", "welcome", "Action", ""])
def test_a_type_the_bot_may_not_send_is_an_unknown_type(mtype: str) -> None:
    assert protocol_error(pack({"type": mtype, "protocol": 1})) == (
        f"unknown message type {mtype!r}"
    )


def test_a_type_the_referee_may_not_send_is_an_unknown_type_for_a_bot() -> None:
    assert "unknown message type 'hello'" in protocol_error(
        encode(BOT_EXAMPLES[0]), REFEREE_MESSAGES
    )


@pytest.mark.parametrize(
    ("mtype", "field"),
    [(m["type"], f) for m in BOT_EXAMPLES for f in BOT_MESSAGES[m["type"]]],
)
def test_every_missing_field_is_a_protocol_error_naming_it(mtype: str, field: str) -> None:
    msg = dict(next(m for m in BOT_EXAMPLES if m["type"] == mtype))
    del msg[field]
    assert protocol_error(encode(msg)) == (
        f"{mtype!r} field {field!r} must be {BOT_MESSAGES[mtype][field].__name__}, got missing"
    )


@pytest.mark.parametrize(
    ("field", "value", "got"),
    [
        ("index", "3", "str"),
        ("index", 3.0, "float"),
        ("index", None, "NoneType"),
        ("index", [3], "list"),
        ("request_id", b"17", "bytes"),
    ],
)
def test_a_mistyped_field_is_a_protocol_error_naming_field_and_type(
    field: str, value: Any, got: str
) -> None:
    assert protocol_error(pack(action(**{field: value}))) == (
        f"'action' field {field!r} must be int, got {got}"
    )


@pytest.mark.parametrize("field", ["index", "request_id"])
def test_a_bool_where_an_int_is_required_is_a_protocol_error(field: str) -> None:
    assert protocol_error(pack(action(**{field: True}))) == (
        f"'action' field {field!r} must be int, got bool"
    )


def test_a_bool_nonce_in_a_pong_is_a_protocol_error() -> None:
    assert "got bool" in protocol_error(pack({"type": "pong", "protocol": 1, "nonce": False}))


def test_a_mistyped_hello_token_is_a_protocol_error() -> None:
    hello = {"type": "hello", "protocol": 1, "token": 1234, "name": "n", "version": "1"}
    assert protocol_error(pack(hello)) == "'hello' field 'token' must be str, got int"


@pytest.mark.parametrize("field", ["name", "version"])
def test_a_hello_name_or_version_must_be_1_to_64_characters(field: str) -> None:
    hello = {"type": "hello", "protocol": 1, "token": "t", "name": "n", "version": "1"}
    assert decode(pack({**hello, field: "x" * MAX_NAME_LENGTH}), BOT_MESSAGES)[field] == "x" * 64
    for bad in ("", "x" * (MAX_NAME_LENGTH + 1)):
        assert protocol_error(pack({**hello, field: bad})) == (
            f"hello {field!r} must be 1-64 characters"
        )


def test_a_negative_index_still_decodes_since_legality_is_the_referees_call() -> None:
    assert decode(pack(action(index=-1)), BOT_MESSAGES)["index"] == -1


# ---------------------------------------------------------------- what decoding may cost

#: A field that makes a frame big enough to be walked header by header before it is decoded.
PADDING = {"padding": "p" * 8192}
CONTAINER_LIMIT = f"over the limit of {MAX_CONTAINER_LEN} items or entries per array or map"
ELEMENTS_LIMIT = f"than the limit of {MAX_ELEMENTS} in one message"
NESTING_LIMIT = f"nested deeper than the limit of {MAX_NESTING} levels"


def nested(levels: int) -> Any:
    """``levels`` arrays, one inside the other, around a 0."""
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


def deeply_nested_action(levels: int) -> bytes:
    """An action with a field of ``levels`` nested one-item arrays, too deep for msgpack's own
    packer, so spelled out in bytes."""
    return pack(action()).replace(b"\x84", b"\x85", 1) + b"\xa1x" + b"\x91" * levels + b"\x00"


def test_the_decoding_limits() -> None:
    assert (MAX_CONTAINER_LEN, MAX_ELEMENTS, MAX_NESTING) == (256, 1024, 4)
    assert MAX_STRING_BYTES == MAX_MESSAGE_BYTES


@pytest.mark.parametrize("padding", [{}, PADDING], ids=["small", "walked"])
def test_a_container_of_the_limit_is_accepted_and_one_more_is_refused_by_its_header(
    padding: dict[str, str],
) -> None:
    fits = decode(pack(action(x=[0] * MAX_CONTAINER_LEN, **padding)), BOT_MESSAGES)
    assert len(fits["x"]) == MAX_CONTAINER_LEN
    assert protocol_error(pack(action(x=[0] * (MAX_CONTAINER_LEN + 1), **padding))) == (
        f"an array of {MAX_CONTAINER_LEN + 1} items is {CONTAINER_LIMIT}"
    )
    wide = pack(action(x={str(i): 0 for i in range(MAX_CONTAINER_LEN + 1)}, **padding))
    assert protocol_error(wide) == f"a map of {MAX_CONTAINER_LEN + 1} entries is {CONTAINER_LIMIT}"


def test_900000_tiny_elements_under_the_size_limit_are_refused_at_the_array_header() -> None:
    frame = pack(action(x=[None] * 900_000))
    assert len(frame) < MAX_MESSAGE_BYTES
    assert protocol_error(frame) == f"an array of 900000 items is {CONTAINER_LIMIT}"


@pytest.mark.parametrize("padding", [{}, PADDING], ids=["small", "walked"])
def test_elements_in_all_of_a_messages_containers_are_limited(padding: dict[str, str]) -> None:
    # The message's own map has 5 or 6 entries (with x); the lists fill up to the limit exactly.
    own = len(action(x=None, **padding))
    full = [[0] * MAX_CONTAINER_LEN] * 3 + [[0] * (MAX_ELEMENTS - own - 4 - 3 * MAX_CONTAINER_LEN)]
    assert decode(pack(action(x=full, **padding)), BOT_MESSAGES)["x"] == full
    over = [*full[:3], full[3] + [0]]
    assert ELEMENTS_LIMIT in protocol_error(pack(action(x=over, **padding)))


@pytest.mark.parametrize("padding", [{}, PADDING], ids=["small", "walked"])
def test_nesting_is_limited_the_messages_map_being_the_first_level(
    padding: dict[str, str],
) -> None:
    deepest = nested(MAX_NESTING - 1)
    assert decode(pack(action(x=deepest, **padding)), BOT_MESSAGES)["x"] == deepest
    assert NESTING_LIMIT in protocol_error(pack(action(x=nested(MAX_NESTING), **padding)))
    # A map counts as a level as much as an array does.
    assert NESTING_LIMIT in protocol_error(pack(action(x={"y": nested(MAX_NESTING - 1)},
                                                       **padding)))


@pytest.mark.parametrize("levels", [1100, 5000], ids=["past-msgpack's-stack", "walked"])
def test_nesting_far_past_msgpacks_own_stack_is_the_same_protocol_error(levels: int) -> None:
    # 1100 levels is under the walking size: msgpack's fixed stack stops it (StackError).
    assert protocol_error(deeply_nested_action(levels)) == (
        f"arrays and maps {NESTING_LIMIT}"
    )


def test_a_big_frame_is_refused_by_its_headers_before_msgpack_builds_anything(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The worst case for limits checked only as containers complete: 1000 unfinished arrays of
    # 255 scalars each (255,000 elements) before the first array completes.
    body = b"\x00"
    for _ in range(1000):
        body = b"\xdc" + (256).to_bytes(2, "big") + b"\x01" * 255 + body
    frame = pack(action()).replace(b"\x84", b"\x85", 1) + b"\xa1x" + body
    assert len(frame) < MAX_MESSAGE_BYTES

    def unpackb(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the frame should have been refused before it was decoded")

    monkeypatch.setattr(messages.msgpack, "unpackb", unpackb)
    assert ELEMENTS_LIMIT in protocol_error(frame)


def test_a_string_may_fill_the_message_and_a_longer_one_is_over_the_size_limit() -> None:
    # Decoding a string costs time in proportion to its bytes, which the size limit bounds.
    text = "é" * ((MAX_MESSAGE_BYTES - 100) // 2)
    assert decode(pack({**action(), "note": text}), BOT_MESSAGES)["note"] == text
    assert f"over the {MAX_MESSAGE_BYTES} limit" in protocol_error(
        pack({**action(), "note": text + "é" * 60})
    )


# ---------------------------------------------------------------- the referee's constructors

CONSTRUCTED = [
    (messages.welcome("0.1.0"),
     {"type": "welcome", "server": "arena", "server_version": "0.1.0"}),
    (messages.ping(7), {"type": "ping", "nonce": 7}),
    (messages.game_start("g", "dicerace", "dicerace-1", 1, 3, {"bank_ms": 1}, {"cards": []}, 9,
                         {"hand": "3"}),
     {"type": "game_start", "game_id": "g", "game": "dicerace", "rules_version": "dicerace-1",
      "seat": 1, "num_players": 3, "time_control": {"bank_ms": 1}, "components": {"cards": []},
      "bot_seed": 9, "options": {"hand": "3"}}),
    (messages.request("g", 4, {"round": 1}, [{"type": "decline"}], 1000, 500),
     {"type": "request", "game_id": "g", "request_id": 4, "observation": {"round": 1},
      "legal_actions": [{"type": "decline"}], "time_left_ms": 1000, "decision_ms": 500}),
    (messages.game_end("g", [3, 4], [2, 1], [{"seat": 0, "reason": "ok", "detail": ""}], [{}]),
     {"type": "game_end", "game_id": "g", "scores": [3, 4], "ranks": [2, 1],
      "terminations": [{"seat": 0, "reason": "ok", "detail": ""}], "breakdown": [{}]}),
    (messages.error("bad_token", "no"), {"type": "error", "code": "bad_token", "message": "no"}),
    (messages.shutdown("game over"), {"type": "shutdown", "reason": "game over"}),
]


@pytest.mark.parametrize(("built", "spelled"), CONSTRUCTED, ids=lambda m: m["type"])
def test_each_referee_message_is_built_to_the_byte_as_spelled_out_and_decodes(
    built: dict[str, Any], spelled: dict[str, Any]
) -> None:
    assert encode(built) == encode(spelled)
    assert decode(encode(built), REFEREE_MESSAGES) == {**spelled, "protocol": 1}


def test_every_message_type_the_referee_may_send_has_a_constructor() -> None:
    assert {built["type"] for built, _ in CONSTRUCTED} == set(REFEREE_MESSAGES)


def test_an_error_built_from_a_termination_carries_its_plain_string() -> None:
    built = messages.error(Termination.TIMEOUT, "late")
    assert type(built["code"]) is str and built["code"] == "timeout"


def test_a_constructor_given_a_mistyped_field_raises_naming_it() -> None:
    with pytest.raises(TypeError, match="'request' field 'time_left_ms' must be int, got float"):
        messages.request("g", 1, {}, [], 1000.5, 500)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'ping' field 'nonce' must be int, got bool"):
        messages.ping(True)


@pytest.mark.parametrize(("name", "options"), [
    ("stoneage", None), ("agricola", None), ("agricola", {"cards": "base", "draft": "app"})])
def test_a_request_of_packed_actions_is_the_request_byte_for_byte(
        name: str, options: dict[str, str] | None) -> None:
    """The referee's requests join each action's cached encoding; the bytes are those of
    encoding the whole request, at every decision of random games, also after the packer
    started afresh at its limit (40 keys here)."""
    import random

    from arena.engine import get_game

    game = get_game(name)
    packer = ActionPacker(limit=40)
    n = 0
    for seed in range(2):
        state = game.new_state(3, seed=seed, options=options)
        rng = random.Random(seed)
        while not state.is_terminal:
            obs = state.observation(state.current_player)
            whole = encode(messages.request("g1", n, obs, state.legal_actions(), 1200, 5000))
            packed = packer.pack(state.legal_keys(), state.action_of)
            assert messages.encode_request("g1", n, obs, packed, 1200, 5000) == whole
            n += 1
            state.apply_index(rng.randrange(state.num_legal()))
    assert n > 100


def test_a_referee_keeps_one_packer_across_games_only_where_the_game_promises_it() -> None:
    """Stone Age's keys name the same actions in every game: its games of the same options
    share a packer. Agricola's name the cards of their deal: a new packer every game."""
    from arena.engine import get_game

    stoneage, agricola = get_game("stoneage"), get_game("agricola")
    assert stoneage.actions_shared_across_games and not agricola.actions_shared_across_games
    options = stoneage.validate_options(None)
    assert packer_for(stoneage, options) is packer_for(stoneage, dict(options))
    options = agricola.validate_options(None)
    assert packer_for(agricola, options) is not packer_for(agricola, options)


@pytest.mark.parametrize("count", [0, 15, 16, 255, 256, 65535, 65536])
def test_packed_action_lists_of_every_length_decode_as_the_list(count: int) -> None:
    """Encoded the first time and from the kept encodings the next (every key known then),
    and with one new key among known ones, a list of any length decodes as the actions."""
    actions = [{"type": "pick", "n": k} for k in range(count + 1)]
    packer = ActionPacker()
    for keys in (range(count), range(count), range(count + 1)[::-1]):
        packed = packer.pack(keys, actions.__getitem__)
        assert msgpack.unpackb(packed) == [actions[k] for k in keys]


def test_a_request_with_mistyped_fields_is_refused_before_it_is_sent() -> None:
    packed = ActionPacker().pack([0], lambda k: {"type": "x"})
    with pytest.raises(TypeError):
        messages.encode_request("g", 1, {"a": 1}, [{"type": "x"}], 10, 10)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        messages.encode_request("g", "1", {"a": 1}, packed, 10, 10)  # type: ignore[arg-type]

