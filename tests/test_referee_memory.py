"""Whole refereed games with bots in this process, over the in-memory transport: the referee's
checklist without processes or sockets (tests/test_referee_e2e.py has the real ones)."""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

from arena.engine import get_game
from arena.protocol.client import Bot
from arena.protocol.messages import REFEREE_MESSAGES, Termination, decode
from arena.protocol.reference_bot import RandomBot
from arena.protocol.transport import MemoryPeer, MemoryTransport
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.record import GameRecord, verify
from arena.runner.game.referee import play_game
from arena.runner.game.stable import Stable

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
