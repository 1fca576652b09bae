"""Whole refereed games with bots in this process, over the in-memory transport: the referee's
checklist without processes or sockets (tests/test_referee_e2e.py has the real ones)."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import IO, Any, ClassVar

from arena.engine import get_game
from arena.protocol.client import Bot
from arena.protocol.messages import REFEREE_MESSAGES, Termination, decode
from arena.protocol.reference_bot import RandomBot
from arena.protocol.transport import MemoryPeer, MemoryTransport
from arena.results import SeatResult
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.record import BY_BOT, BY_FALLBACK, GameRecord, verify
from arena.runner.game.referee import play_game
from arena.runner.game.stable import Stable
from arena.seeds import fallback_rng

ROOT = Path(__file__).resolve().parent.parent
RANDOM_PY = BotManifest.load(ROOT / "bots" / "examples" / "random-py")
GAME = get_game("stoneage")
# Generous limits: the bots answer at once, and a busy machine must not turn a slow scheduler
# tick into a timeout (the tests compare games move by move).
FAST = TimeControl(handshake_ms=5000, decision_ms=2000, bank_ms=60000, margin_ms=20)


class InProcessBot:
    """A started bot that plays in this process: the SDK's loop, run synchronously as each
    message arrives. Stands in for a :class:`~arena.runner.game.processes.BotProcess`."""

    def __init__(self, transport: MemoryTransport, bot: Bot, env: dict[str, str]) -> None:
        self.bot = bot
        self.pid = self.pgid = -1
        self.returncode: int | None = None
        self.requests = 0
        self.peer = transport.connect(respond=self.on_frame)
        self.peer.send_message({"type": "hello", "token": env["ARENA_TOKEN"], "name": bot.name,
                                "version": bot.version})

    def on_frame(self, peer: MemoryPeer, frame: bytes) -> None:
        if self.returncode is not None:
            return  # a dead bot reads nothing
        message = decode(frame, REFEREE_MESSAGES)
        mtype = message["type"]
        if mtype == "request":
            self.requests += 1
            index = self.answer(message)
            if index is not None:
                peer.send_message({"type": "action", "request_id": message["request_id"],
                                   "index": index})
        elif mtype == "ping":
            peer.send_message({"type": "pong", "nonce": message["nonce"]})
        elif mtype == "game_start":
            self.bot.on_game_start(message)
        elif mtype == "shutdown":
            self.returncode = 0

    def answer(self, request: dict[str, Any]) -> int | None:
        return self.bot.choose(request["observation"], request["legal_actions"],
                               request["decision_ms"])

    def alive(self) -> bool:
        return self.returncode is None

    def describe_exit(self) -> str:
        if self.returncode is None:
            return "still running"
        return ("killed by signal SIGKILL" if self.returncode < 0
                else f"exited with status {self.returncode}")

    def cpu_seconds(self) -> float | None:
        return 0.0

    def kill(self) -> None:
        if self.returncode is None:
            self.returncode = -9

    def stop(self, grace_s: float) -> None:
        self.kill()


class IllegalOnThird(InProcessBot):
    def answer(self, request: dict[str, Any]) -> int | None:
        if self.requests == 3:
            return len(request["legal_actions"])
        return super().answer(request)


class CrashOnThird(InProcessBot):
    def answer(self, request: dict[str, Any]) -> int | None:
        if self.requests == 3:
            self.returncode = 3
            return None
        return super().answer(request)


def in_memory(
    keep: int = 0, kinds: dict[str, type[InProcessBot]] | None = None
) -> tuple[Stable, list[InProcessBot]]:
    """A stable whose bots play in-process (``kinds``: by bot name; random by default)."""
    transport = MemoryTransport()
    started: list[InProcessBot] = []

    def launch(manifest: BotManifest, env: dict[str, str], log: IO[bytes]) -> InProcessBot:
        kind = (kinds or {}).get(manifest.name, InProcessBot)
        started.append(kind(transport, RandomBot(manifest.name), env))
        return started[-1]

    return Stable(keep=keep, transport=transport, launch=launch), started


def renamed(name: str) -> BotManifest:
    return BotManifest.from_dict({"name": name, "version": "1.0", "language": "python",
                                  "command": ["true"]}, ROOT, name)


def play(stable: Stable, seed: int, bots: list[BotManifest | None]) -> GameRecord:
    return play_game(GAME, seed, bots, FAST, stable=stable)


def test_a_game_of_in_process_bots_is_the_game_their_real_processes_play() -> None:
    stable, started = in_memory()
    try:
        record = play(stable, 8, [RANDOM_PY, RANDOM_PY, None])
    finally:
        stable.close()
    assert [t["reason"] for t in record.terminations] == ["ok", "ok", "ok"]
    assert verify(record).ok
    assert {d[3] for d in record.decisions if d[0] < 2} == {"bot"}
    assert sorted(e for e in record.events if "hello" in e) == [
        "seat 0: hello from random-py 1.0", "seat 1: hello from random-py 1.0"]
    assert [bot.returncode for bot in started] == [0, 0], "each bot was told to shut down"
    real = play_game(GAME, 8, [RANDOM_PY, RANDOM_PY, None], FAST)
    assert [d[:2] for d in record.decisions] == [d[:2] for d in real.decisions]
    assert record.result == real.result and record.ranks == real.ranks


def test_an_illegal_index_is_recorded_and_the_seat_played_out_by_the_fallback() -> None:
    stable, started = in_memory(kinds={"cheat": IllegalOnThird})
    try:
        record = play(stable, 3, [RANDOM_PY, renamed("cheat")])
    finally:
        stable.close()
    assert [t["reason"] for t in record.terminations] == [Termination.OK, Termination.ILLEGAL]
    assert record.terminations[1]["detail"].startswith("index ")
    mine = [d[3] for d in record.decisions if d[0] == 1]
    assert mine[:2] == ["bot", "bot"] and set(mine[2:]) == {"fallback"}
    assert record.ranks == [1, 2] and verify(record).ok
    assert started[1].returncode == -9, "a failed bot is killed"


def test_a_bot_that_dies_mid_game_is_a_crash_with_its_exit_status() -> None:
    stable, _ = in_memory(kinds={"crasher": CrashOnThird})
    try:
        record = play(stable, 3, [renamed("crasher"), None])
    finally:
        stable.close()
    assert record.terminations[0]["reason"] == Termination.CRASH
    assert record.terminations[0]["detail"] == "exited with status 3"


def test_kept_in_process_bots_serve_the_next_game_and_play_it_as_fresh_ones() -> None:
    stable, started = in_memory(keep=4)
    try:
        play(stable, 1, [RANDOM_PY, renamed("other")])
        kept = play(stable, 2, [renamed("other"), RANDOM_PY])
        assert set(stable.idle) == {"random-py", "other"}
    finally:
        stable.close()
    assert len(started) == 2 and stable.launches == 2
    fresh_stable, _ = in_memory()
    try:
        fresh = play(fresh_stable, 2, [renamed("other"), RANDOM_PY])
    finally:
        fresh_stable.close()
    assert [d[:2] for d in kept.decisions] == [d[:2] for d in fresh.decisions]
    assert all(bot.returncode is not None for bot in started), "closing stops the kept bots"


# ---------------------------------------------------------------- the checklist, rule by rule
# Each bot below misbehaves on one request, numbered from 1, and plays well otherwise. Each test
# checks the termination and the seat's result the record holds, as read back from its JSON.

QUICK = TimeControl(handshake_ms=5000, decision_ms=2000, bank_ms=60000, increment_ms=0,
                    margin_ms=20)


class Scripted(InProcessBot):
    """A bot whose ``plan`` says what it does on some requests (by number): ``"silent"``
    (no answer), ``"garbage"`` (a frame that is not msgpack), or a float: answer after that
    many seconds."""

    plan: ClassVar[dict[int, str | float]] = {}

    def answer(self, request: dict[str, Any]) -> int | None:
        step = self.plan.get(self.requests)
        if step == "silent":
            return None
        if step == "garbage":
            self.peer.send(b"\xc1 not msgpack")
            return None
        if isinstance(step, float):
            time.sleep(step)
        return super().answer(request)


def scripted(plan: dict[int, str | float]) -> type[InProcessBot]:
    return type("Planned", (Scripted,), {"plan": plan})


def refereed(kind: type[InProcessBot], seed: int = 3,
             control: TimeControl = QUICK) -> tuple[GameRecord, InProcessBot]:
    """A game of ``kind`` (named "subject", in seat 1) against a random bot in seat 0."""
    stable, started = in_memory(kinds={"subject": kind})
    try:
        record = play_game(GAME, seed, [RANDOM_PY, renamed("subject")], control, stable=stable)
    finally:
        stable.close()
    return record, started[1]


def seat_result(record: GameRecord, seat: int) -> SeatResult:
    """Seat ``seat``'s result, the same when the record is read back from its JSON."""
    again = GameRecord.from_dict(json.loads(record.to_json()))
    assert again.seat_results == record.seat_results
    return record.seat_results[seat]


def failed_subject(record: GameRecord, reason: Termination) -> SeatResult:
    """The subject's result, checked to be a forfeit for ``reason``: last place, with its
    score as the fallback played it out, and the other seat's part whole."""
    got = seat_result(record, 1)
    assert got == SeatResult("subject", record.result["scores"][1], 2, reason, got.detail)
    assert got.detail, "a failure says what happened"
    assert seat_result(record, 0).termination == Termination.OK
    return got


def by_of(record: GameRecord, seat: int) -> list[str]:
    return [d.by for d in record.decisions if d.seat == seat]


def test_a_decision_over_its_time_is_a_timeout() -> None:
    record, bot = refereed(scripted({2: "silent"}),
                           control=dataclasses.replace(QUICK, decision_ms=300))
    got = failed_subject(record, Termination.TIMEOUT)
    assert got.detail.startswith("no answer to request ") and got.detail.endswith(
        "within 320 ms")
    assert by_of(record, 1)[:2] == [BY_BOT, BY_FALLBACK] and bot.returncode == -9


def test_a_bot_that_spends_its_bank_times_out_on_what_is_left() -> None:
    # Bank 400 ms, no increment: two answers of 150 ms leave less than 100 ms, so the third
    # request's deadline is that and the margin, which a third answer of 150 ms misses.
    control = dataclasses.replace(QUICK, bank_ms=400, margin_ms=10)
    record, bot = refereed(scripted({1: 0.15, 2: 0.15, 3: 0.15}), control=control)
    got = failed_subject(record, Termination.TIMEOUT)
    assert by_of(record, 1)[:3] == [BY_BOT, BY_BOT, BY_FALLBACK]
    third = [m for m in bot.peer.messages() if m["type"] == "request"][2]
    assert third["decision_ms"] == third["time_left_ms"] <= 100
    assert got.detail.endswith(f"within {third['decision_ms'] + 10} ms")


def test_an_answer_after_the_allowance_but_within_the_margin_is_in_time() -> None:
    # Told 50 ms, answering in about 80: within the 200 ms margin, so the bot plays on.
    control = dataclasses.replace(QUICK, decision_ms=50, margin_ms=200)
    record, _ = refereed(scripted({2: 0.08}), control=control)
    assert seat_result(record, 1) == SeatResult(
        "subject", record.result["scores"][1], record.ranks[1], Termination.OK, "")
    mine = [d for d in record.decisions if d.seat == 1]
    assert {d.by for d in mine} == {BY_BOT} and 50 < mine[1].ms <= 250


def test_an_index_outside_the_legal_actions_is_an_illegal_action() -> None:
    record, _ = refereed(IllegalOnThird)
    got = failed_subject(record, Termination.ILLEGAL)
    assert got.detail.startswith("index ")
    assert by_of(record, 1)[:3] == [BY_BOT, BY_BOT, BY_FALLBACK]


def test_a_bot_that_dies_is_a_crash() -> None:
    record, _ = refereed(CrashOnThird)
    assert failed_subject(record, Termination.CRASH).detail == "exited with status 3"


def test_a_message_that_breaks_the_protocol_is_a_protocol_error() -> None:
    record, bot = refereed(scripted({2: "garbage"}))
    failed_subject(record, Termination.PROTOCOL)
    assert by_of(record, 1)[:2] == [BY_BOT, BY_FALLBACK] and bot.returncode == -9


def test_after_a_failure_the_seeded_fallback_plays_the_seat_to_the_end() -> None:
    record, bot = refereed(CrashOnThird, seed=5)
    mine = by_of(record, 1)
    assert mine[:2] == [BY_BOT, BY_BOT] and set(mine[2:]) == {BY_FALLBACK} and len(mine) > 3
    assert bot.requests == 3, "a failed bot is asked nothing more"
    # Each fallback choice is the next draw of the seat's own generator.
    state, rng = GAME.new_state(2, seed=5), fallback_rng(5, 1)
    for d in record.decisions:
        if d.seat == 1 and d.by == BY_FALLBACK:
            assert d.choice == rng.randrange(state.num_legal())
        state.apply_index(d.choice)
    assert verify(record).ok


def test_a_failed_seat_forfeits_last_place_whatever_its_score() -> None:
    # Three seats, the failing bot in the middle: it ranks last, and the two others keep the
    # order the game gives them between themselves.
    stable, started = in_memory(kinds={"subject": CrashOnThird})
    try:
        record = play_game(GAME, 7, [RANDOM_PY, renamed("subject"), None], QUICK,
                           stable=stable)
    finally:
        stable.close()
    engine = record.result["ranks"]
    others = [1, 2] if engine[0] < engine[2] else [2, 1] if engine[0] > engine[2] else [1, 1]
    got = [seat_result(record, s) for s in range(3)]
    assert [r.rank for r in got] == [others[0], 3, others[1]] == record.ranks
    assert [r.termination for r in got] == [Termination.OK, Termination.CRASH, Termination.OK]
    assert [r.bot for r in got] == ["random-py", "subject", "builtin"]
    # The bot that played on is told the same at the end.
    end = next(m for m in started[0].peer.messages() if m["type"] == "game_end")
    assert end["ranks"] == record.ranks
    assert [t["reason"] for t in end["terminations"]] == ["ok", "crash", "ok"]


class StartKeeper(InProcessBot):
    """A random bot that keeps the ``game_start`` messages it was sent."""

    starts: ClassVar[list[dict[str, Any]]] = []

    def on_frame(self, peer: MemoryPeer, frame: bytes) -> None:
        message = decode(frame, REFEREE_MESSAGES)
        if message["type"] == "game_start":
            self.starts.append(message)
        super().on_frame(peer, frame)


def test_game_start_carries_the_components_of_the_options_played() -> None:
    """An Agricola card game: each seat's ``game_start`` has the card-mode components (the
    card board's spaces and every card), not the Family game's."""
    agricola = get_game("agricola")
    StartKeeper.starts = []
    stable, _ = in_memory(kinds={"random-py": StartKeeper})
    try:
        record = play_game(agricola, 5, [RANDOM_PY, RANDOM_PY], FAST, stable=stable,
                           options={"cards": "base"})
    finally:
        stable.close()
    assert verify(record).ok
    assert len(StartKeeper.starts) == 2
    cards = agricola.components({"cards": "base", "draft": "deal"})
    assert cards != agricola.components() and len(cards["cards"]) == 96
    for start in StartKeeper.starts:
        assert start["options"] == {"cards": "base", "draft": "deal"}
        assert start["components"] == cards
