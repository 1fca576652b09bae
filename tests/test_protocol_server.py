"""The referee's side of the protocol over the in-memory transport: every rule a bot must keep,
with no process and no socket. A :class:`MemoryPeer` plays the bot and can send anything."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from arena.protocol.messages import (
    MAX_CONTAINER_LEN,
    MAX_MESSAGE_BYTES,
    MAX_NESTING,
    Termination,
    encode,
)
from arena.protocol.packing import ActionPacker
from arena.protocol.server import (
    FLOOD_LIMIT,
    LOST_DETAIL,
    MAX_REFUSALS,
    Connection,
    Endpoint,
    Failure,
    Reply,
    Server,
)
from arena.protocol.transport import Breach, Event, MemoryPeer, MemoryTransport

TOKEN = "0123456789abcdef0123456789abcdef"
ACTIONS = [{"type": "decline"}, {"type": "pick_die", "face": 6}]
#: The list as the referee hands it to a connection: encoded from each action's bytes.
PACKED = ActionPacker().pack(range(len(ACTIONS)), ACTIONS.__getitem__)


class FakeProcess:
    """A bot process that is alive until killed or told to have exited."""

    def __init__(self) -> None:
        self.running = True
        self.kills = 0

    def alive(self) -> bool:
        return self.running

    def describe_exit(self) -> str:
        return "still running" if self.running else "exited with status 3"

    def kill(self) -> None:
        self.running = False
        self.kills += 1


@dataclass
class Rig:
    """One game's server on an in-memory endpoint, with one expected bot."""

    transport: MemoryTransport = field(default_factory=MemoryTransport)
    events: list[str] = field(default_factory=list)
    process: FakeProcess = field(default_factory=FakeProcess)
    door: int | None = None

    def __post_init__(self) -> None:
        self.endpoint = Endpoint(self.transport)
        self.server = Server(self.endpoint, self.events.append)
        self.connection = self.server.expect("seat 0", TOKEN, self.process, self.door)

    def pump(self) -> None:
        """Deal with every message waiting, as the referee does between decisions."""
        while self.transport.inbound:
            self.server.receive(None, 0)

    def bot(self, respond: Callable[[MemoryPeer, bytes], None] | None = None) -> MemoryPeer:
        """A peer that has said hello with the right token and answered the handshake ping."""
        peer = self.transport.connect(respond=respond)
        peer.send_message(hello())
        self.pump()
        peer.send_message({"type": "pong", "nonce": last(peer)["nonce"]})
        self.pump()
        assert self.connection.ponged and self.connection.identity == peer.identity
        return peer

    def ask(self, deadline_ms: float = 500) -> Reply | Failure:
        return self.connection.ask("g1", {"round": 1}, PACKED, 1000, 400, deadline_ms)


def hello(**fields: Any) -> dict[str, Any]:
    return {"type": "hello", "token": TOKEN, "name": "bot", "version": "1.0", **fields}


def last(peer: MemoryPeer) -> dict[str, Any]:
    return peer.messages()[-1]


def answering(*request_ids: int | None, index: int = 1) -> Callable[[MemoryPeer, bytes], None]:
    """A bot that answers each request with these ids in turn (None: the request's own id)."""
    def respond(peer: MemoryPeer, frame: bytes) -> None:
        message = peer.messages()[-1]
        if message["type"] == "request":
            for rid in request_ids:
                peer.send_message({"type": "action", "index": index,
                                   "request_id": message["request_id"] if rid is None else rid})
    return respond


def failure(connection: Connection) -> tuple[str, str]:
    assert connection.failure is not None, "the connection should have failed"
    return connection.failure.reason, connection.failure.detail


# ---------------------------------------------------------------- hello and token


def test_a_hello_with_the_token_is_welcomed_pinged_and_logged() -> None:
    rig = Rig()
    peer = rig.transport.connect()
    peer.send_message(hello(name="random-py", version="2.1"))
    rig.pump()
    welcome, ping = peer.messages()
    assert welcome["type"] == "welcome" and welcome["server"] == "arena"
    assert ping["type"] == "ping" and ping["nonce"] == rig.connection.pong_nonce
    assert rig.connection.identity == peer.identity and not rig.connection.ponged
    assert rig.events == ["seat 0: hello from random-py 2.1"]


def test_a_wrong_token_is_refused_and_that_connection_is_never_read_again() -> None:
    rig = Rig()
    impostor = rig.transport.connect()
    impostor.send_message(hello(token="f" * 32))
    rig.pump()
    assert [(m["type"], m["code"]) for m in impostor.messages()] == [("error", "bad_token")]
    assert rig.events == ["refused a connection: bad_token: this token is not valid for any "
                          "seat of the game"]
    assert rig.server.refusals == rig.events
    impostor.send_message(hello())  # even the right token, now
    rig.pump()
    assert rig.connection.identity is None and len(impostor.received) == 1
    assert len(rig.events) == 1



def test_refused_connections_that_come_and_go_without_end_cost_bounded_memory() -> None:
    """A bot opening connection after connection with bad tokens: the game keeps the first
    MAX_REFUSALS reasons, and the endpoint forgets each refused connection once it has gone
    (ZeroMQ never reuses an identity), so neither grows with the number of connections."""
    rig = Rig()
    for _ in range(MAX_REFUSALS * 3):
        impostor = rig.transport.connect()
        impostor.send_message(hello(token="f" * 32))
        rig.pump()
        assert impostor.identity in rig.endpoint.refused
        impostor.lose()
        rig.pump()
        assert impostor.identity not in rig.endpoint.refused
    assert rig.endpoint.refused == set()
    assert len(rig.server.refusals) == MAX_REFUSALS
    assert rig.server.refusals[0].startswith("refused a connection: bad_token")

def test_a_token_with_non_ascii_characters_is_refused_not_a_crash() -> None:
    rig = Rig()
    peer = rig.transport.connect()
    peer.send_message(hello(token="é" * 32))
    rig.pump()
    assert last(peer)["code"] == "bad_token"


def test_the_first_message_must_be_a_hello() -> None:
    rig = Rig()
    peer = rig.transport.connect()
    peer.send_message({"type": "action", "request_id": 1, "index": 0})
    rig.pump()
    assert last(peer)["code"] == "protocol_error"
    assert rig.events == ["refused a connection: protocol_error: the first message must be a "
                          "hello"]


def test_a_malformed_hello_is_refused_as_a_bad_hello() -> None:
    rig = Rig()
    peer = rig.transport.connect()
    peer.send_message({"type": "hello", "token": TOKEN, "name": "bot"})
    rig.pump()
    assert last(peer)["code"] == "bad_hello"
    assert "'hello' field 'version' must be str, got missing" in last(peer)["message"]


def test_another_protocol_version_is_refused_naming_both_and_noted_for_the_void_game() -> None:
    rig = Rig()
    peer = rig.transport.connect()
    peer.send(encode(hello()).replace(b"\xa8protocol\x01", b"\xa8protocol\x02"))
    rig.pump()
    error = last(peer)
    assert error["code"] == "protocol_mismatch"
    assert "protocol version 2 is not supported; this referee speaks 1" in error["message"]
    assert rig.server.refusals == [f"a connection spoke another protocol: {error['message']}"]
    assert rig.events == [f"refused a connection: protocol_mismatch: {error['message']}"]


def test_a_second_hello_is_a_protocol_error_and_the_bot_is_told_and_killed() -> None:
    rig = Rig()
    peer = rig.bot()
    peer.send_message(hello())
    rig.pump()
    assert failure(rig.connection) == (Termination.PROTOCOL, "a second hello")
    assert (last(peer)["type"], last(peer)["code"]) == ("error", "protocol_error")
    assert rig.process.kills == 1
    assert rig.events[-1] == "seat 0: protocol_error: a second hello"


# ---------------------------------------------------------------- requests and answers


def test_a_valid_answer_is_a_reply_with_its_index_and_round_trip() -> None:
    rig = Rig()
    peer = rig.bot(answering(None, index=1))
    got = rig.ask()
    assert isinstance(got, Reply) and got.index == 1 and 0 <= got.ms < 500
    sent = last(peer)
    assert sent["type"] == "request" and sent["request_id"] == got.request_id
    assert (sent["legal_actions"], sent["time_left_ms"], sent["decision_ms"]) == (ACTIONS, 1000,
                                                                                  400)


def test_an_out_of_range_index_is_handed_back_since_legality_is_the_callers_call() -> None:
    rig = Rig()
    rig.bot(answering(None, index=7))
    got = rig.ask()
    assert isinstance(got, Reply) and got.index == 7 and rig.connection.failure is None


def test_answers_with_stale_request_ids_are_ignored_and_the_timeout_names_three() -> None:
    rig = Rig()
    rig.bot(answering(101, 102, 103, 104))
    got = rig.ask(deadline_ms=30)
    rid = rig.connection.request_id
    assert got == rig.connection.failure
    assert failure(rig.connection) == (
        Termination.TIMEOUT,
        f"no answer to request {rid} within 30 ms; it answered request ids [101, 102, 103] "
        "instead",
    )
    assert f"seat 0: ignored an action for request 104 (open request: {rid})" in rig.events


def test_a_timeout_without_stale_answers_says_only_what_was_not_answered() -> None:
    rig = Rig()
    rig.bot()
    rig.ask(deadline_ms=25)
    rid = rig.connection.request_id
    assert failure(rig.connection) == (Termination.TIMEOUT,
                                       f"no answer to request {rid} within 25 ms")


class SlowReading(MemoryTransport):
    """A transport whose every read takes ``delay_s`` before it returns what is waiting, as a
    loaded machine's may: the referee reads an answer later than the bot sent it."""

    def __init__(self, delay_s: float) -> None:
        super().__init__()
        self.delay_s = delay_s

    def receive(self, wait_ms: int) -> list[bytes] | Event | None:
        time.sleep(self.delay_s)
        return super().receive(wait_ms)


def test_an_answer_read_after_the_deadline_is_a_timeout_not_a_reply() -> None:
    rig = Rig(transport=SlowReading(0.05))
    rig.bot(answering(None))
    got = rig.ask(deadline_ms=20)
    rid = rig.connection.request_id
    assert isinstance(got, Failure) and got == rig.connection.failure
    reason, detail = failure(rig.connection)
    assert reason == Termination.TIMEOUT
    assert detail.startswith(f"answered request {rid} after ")
    assert detail.endswith("ms; the deadline was 20 ms")


def test_request_ids_are_unique_across_the_games_of_an_endpoint_so_old_answers_never_match(
) -> None:
    first = Rig()
    first.bot(answering(None))
    old = first.ask()
    assert isinstance(old, Reply)
    # The next game on the same endpoint: its bot answers with the previous game's id.
    second = Server(first.endpoint, first.events.append)
    connection = second.expect("seat 0", "f" * 32, FakeProcess())
    peer = first.transport.connect(respond=answering(old.request_id))
    peer.send_message(hello(token="f" * 32))
    second.receive(None, 0)
    got = connection.ask("g2", {}, PACKED, 1000, 400, 25)
    assert isinstance(got, Failure) and got.reason == Termination.TIMEOUT
    assert connection.request_id > old.request_id
    assert f"it answered request ids [{old.request_id}]" in got.detail


def test_an_answer_while_no_request_is_open_is_ignored_and_logged() -> None:
    rig = Rig()
    peer = rig.bot()
    peer.send_message({"type": "action", "request_id": 5, "index": 0})
    rig.pump()
    assert rig.connection.failure is None
    assert rig.events[-1] == "seat 0: ignored an action for request 5 (open request: none)"


def test_a_bot_whose_process_dies_during_a_request_crashes_with_its_exit() -> None:
    rig = Rig()
    rig.bot(lambda peer, frame: setattr(rig.process, "running", False))
    got = rig.ask()
    assert isinstance(got, Failure)
    assert (got.reason, got.detail) == (Termination.CRASH, "exited with status 3")


def test_a_request_that_cannot_be_sent_to_a_live_bot_is_a_protocol_error() -> None:
    rig = Rig()
    rig.bot().disconnect()
    rig.ask()
    assert failure(rig.connection) == (Termination.PROTOCOL,
                                       "cannot send the request (Host unreachable)")


def test_a_failure_is_final_the_first_reason_counts_and_later_messages_are_ignored() -> None:
    rig = Rig()
    peer = rig.bot()
    first = rig.connection.fail(Termination.ILLEGAL, "index 9 is not in 0..1")
    assert rig.connection.fail(Termination.TIMEOUT, "late") is first
    assert rig.process.kills == 1
    events = list(rig.events)
    peer.send_message(hello())
    rig.pump()
    assert rig.events == events and rig.ask() is first


# ---------------------------------------------------------------- what a bot must not send


def test_more_than_flood_limit_messages_without_a_request_is_a_flood() -> None:
    rig = Rig()
    peer = rig.bot()
    for _ in range(FLOOD_LIMIT - 1):  # the handshake pong was the first
        peer.send_message({"type": "error", "code": "chatty", "message": "hi"})
    rig.pump()
    assert rig.connection.failure is None
    peer.send_message({"type": "error", "code": "chatty", "message": "hi"})
    rig.pump()
    assert failure(rig.connection) == (
        Termination.PROTOCOL, f"flood: more than {FLOOD_LIMIT} messages without answering a "
                              "request")


def test_a_request_resets_the_flood_count() -> None:
    rig = Rig()
    peer = rig.bot(answering(None))
    for _ in range(FLOOD_LIMIT - 1):
        peer.send_message({"type": "error", "code": "chatty", "message": "hi"})
    rig.pump()
    assert isinstance(rig.ask(), Reply)
    for _ in range(FLOOD_LIMIT - 1):
        peer.send_message({"type": "error", "code": "chatty", "message": "hi"})
    rig.pump()
    assert rig.connection.failure is None


def test_an_oversized_message_is_a_protocol_error() -> None:
    rig = Rig()
    peer = rig.bot()
    peer.send_message({"type": "error", "code": "big", "message": "x" * MAX_MESSAGE_BYTES})
    rig.pump()
    reason, detail = failure(rig.connection)
    assert reason == Termination.PROTOCOL
    assert detail.endswith(f"bytes is over the {MAX_MESSAGE_BYTES} limit")


ANSWER = {"type": "action", "request_id": 1, "index": 0}
COSTLY_MESSAGES = [
    # what the bot sends, the end of the failure's detail
    (encode({**ANSWER, "x": [None] * 900_000}),
     f"an array of 900000 items is over the limit of {MAX_CONTAINER_LEN} items or entries per "
     "array or map"),
    (encode(ANSWER).replace(b"\x84", b"\x85", 1) + b"\xa1x" + b"\x91" * 5000 + b"\x00",
     f"arrays and maps nested deeper than the limit of {MAX_NESTING} levels"),
    (encode({**ANSWER, "x": "x" * MAX_MESSAGE_BYTES}),
     f"bytes is over the {MAX_MESSAGE_BYTES} limit"),
]


@pytest.mark.parametrize(("frame", "detail"), COSTLY_MESSAGES,
                         ids=["900000-elements", "deep-nesting", "long-string"])
def test_a_message_over_a_decoding_limit_is_a_protocol_error_naming_the_limit(
    frame: bytes, detail: str
) -> None:
    rig = Rig()
    peer = rig.bot(lambda peer, _frame: peer.send(frame) if last(peer)["type"] == "request"
                   else None)
    got = rig.ask()
    assert isinstance(got, Failure) and got.reason == Termination.PROTOCOL
    assert got.detail.endswith(detail), got.detail
    assert (last(peer)["type"], last(peer)["code"]) == ("error", "protocol_error")
    assert rig.process.kills == 1


def test_a_connection_a_live_bot_closes_is_a_protocol_error() -> None:
    rig = Rig()
    peer = rig.bot(lambda peer, _frame: peer.lose() if last(peer)["type"] == "request" else None)
    got = rig.ask()
    assert isinstance(got, Failure)
    assert (got.reason, got.detail) == (Termination.PROTOCOL, LOST_DETAIL)
    assert rig.process.kills == 1
    assert rig.events[-1] == f"seat 0: protocol_error: {LOST_DETAIL}"
    assert not peer.connected


def test_a_breach_the_transport_reports_fails_the_bot_with_its_detail() -> None:
    detail = f"a message of {MAX_MESSAGE_BYTES + 1} bytes, over the limit of {MAX_MESSAGE_BYTES}"
    rig = Rig()
    rig.bot(lambda peer, _frame: peer.breach(detail) if last(peer)["type"] == "request" else None)
    got = rig.ask()
    assert isinstance(got, Failure)
    assert (got.reason, got.detail) == (Termination.PROTOCOL, detail)
    assert rig.process.kills == 1


def test_a_refusal_at_a_bots_door_is_noted_and_only_the_fatal_one_fails_it() -> None:
    rig = Rig(door=7)
    rig.transport.inbound.append(Breach(b"", 7, "a connection was refused", False))
    rig.pump()
    assert rig.connection.failure is None
    assert rig.server.refusals == ["refused a connection: a connection was refused"]
    rig.transport.inbound.append(Breach(b"", 8, "another door's", True))
    rig.pump()
    assert rig.connection.failure is None  # not this bot's door
    rig.transport.inbound.append(Breach(b"", 7, "4 connections refused", True))
    rig.pump()
    assert failure(rig.connection) == (Termination.PROTOCOL, "4 connections refused")


def test_a_connection_closed_by_a_bot_that_exits_meanwhile_is_its_crash() -> None:
    rig = Rig()
    peer = rig.bot()
    peer.lose()
    rig.process.running = False  # its exit, seen only after its connection closed
    rig.pump()
    assert failure(rig.connection) == (Termination.CRASH, "exited with status 3")


def test_a_lost_connection_of_no_bot_of_the_game_is_ignored() -> None:
    rig = Rig()
    rig.transport.connect().lose()
    rig.pump()
    assert rig.events == [] and rig.connection.failure is None


def test_bytes_that_are_not_msgpack_are_a_protocol_error() -> None:
    rig = Rig()
    peer = rig.bot()
    peer.send(b"\xc1garbage")
    rig.pump()
    reason, detail = failure(rig.connection)
    assert reason == Termination.PROTOCOL and detail.startswith("not a msgpack message")


def test_a_message_of_two_frames_is_a_protocol_error() -> None:
    rig = Rig()
    peer = rig.bot()
    peer.send(encode({"type": "pong", "nonce": 1}), b"more")
    rig.pump()
    assert failure(rig.connection) == (Termination.PROTOCOL,
                                       "a message must be one frame, got 2")


def test_a_stranger_sending_several_frames_is_dropped_without_a_refusal() -> None:
    rig = Rig()
    peer = rig.transport.connect()
    peer.send(encode(hello()), b"more")
    rig.pump()
    assert peer.received == [] and rig.events == [] and rig.connection.identity is None
    peer.send_message(hello())  # not refused: a proper hello still gets in
    rig.pump()
    assert rig.connection.identity == peer.identity


# ---------------------------------------------------------------- pings, errors, idle bots


def test_a_pong_with_the_wrong_nonce_does_not_count_and_is_logged() -> None:
    rig = Rig()
    peer = rig.transport.connect()
    peer.send_message(hello())
    rig.pump()
    nonce = last(peer)["nonce"]
    peer.send_message({"type": "pong", "nonce": nonce + 1000})
    rig.pump()
    assert not rig.connection.ponged
    assert rig.events[-1] == f"seat 0: pong with unexpected nonce {nonce + 1000}"
    peer.send_message({"type": "pong", "nonce": nonce})
    rig.pump()
    assert rig.connection.ponged


def test_a_ping_is_answered_with_its_round_trip_or_times_out() -> None:
    rig = Rig()
    def pong(peer: MemoryPeer, frame: bytes) -> None:
        if last(peer)["type"] == "ping":
            peer.send_message({"type": "pong", "nonce": last(peer)["nonce"]})

    rig.bot(pong)
    rtt = rig.connection.ping(100)
    assert isinstance(rtt, float) and 0 <= rtt < 100
    silent = Rig()
    silent.bot()
    got = silent.connection.ping(30)
    assert isinstance(got, Failure)
    assert (got.reason, got.detail) == (Termination.TIMEOUT, "no pong within 30 ms")


def test_an_error_from_a_bot_is_logged_cut_to_200_characters_and_nothing_else() -> None:
    rig = Rig()
    peer = rig.bot()
    peer.send_message({"type": "error", "code": "oops", "message": "y" * 500})
    rig.pump()
    assert rig.connection.failure is None
    assert rig.events[-1] == "seat 0 reports error oops: " + "y" * 200


def test_a_message_from_an_idle_kept_bot_is_ignored_not_refused() -> None:
    rig = Rig()
    kept = rig.transport.connect()
    rig.endpoint.idle.add(kept.identity)
    kept.send_message({"type": "action", "request_id": 1, "index": 0})
    rig.pump()
    assert rig.events == ["ignored a message from a bot waiting for its next game"]
    assert kept.identity not in rig.endpoint.refused and kept.received == []


def test_a_resumed_bot_is_pinged_and_its_pong_completes_the_handshake() -> None:
    rig = Rig()
    kept = rig.transport.connect()
    connection = rig.server.resume("seat 1", "f" * 32, kept.identity, FakeProcess())
    assert last(kept)["type"] == "ping" and not connection.ponged
    kept.send_message({"type": "pong", "nonce": last(kept)["nonce"]})
    rig.pump()
    assert connection.ponged and connection.failure is None


def test_shutdown_is_sent_once_and_never_to_a_failed_bot() -> None:
    rig = Rig()
    peer = rig.bot()
    rig.connection.shutdown("game over")
    rig.connection.shutdown("game over")
    assert [m for m in peer.messages() if m["type"] == "shutdown"] == [
        {"type": "shutdown", "reason": "game over", "protocol": 1}
    ]
    other = Rig()
    peer = other.bot()
    other.connection.fail(Termination.CRASH, "gone")
    other.connection.shutdown("game over")
    assert all(m["type"] != "shutdown" for m in peer.messages())


@pytest.mark.parametrize("wait_ms", [0, 5])
def test_the_memory_transport_waits_its_time_when_nothing_comes(wait_ms: int) -> None:
    import time

    transport = MemoryTransport()
    t0 = time.perf_counter()
    assert transport.receive(wait_ms) is None
    assert (time.perf_counter() - t0) * 1000 >= wait_ms
