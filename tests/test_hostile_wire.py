"""The hostile bots that attack the referee through its socket (``bots/hostile``): a bot whose
children open connection after connection, and one that sends a message without end. Real
bwrap, real bot processes, the referee's own sockets; the referee runs in this process, so its
descriptors and memory are measured here while the game goes on.

For each: the attacker is failed (``protocol_error``, naming what it did), the victim plays
its own game and is not blamed, what the referee spends stays within its bound, a tournament
finishes with the attacker's seats recorded, and ``check-bot`` fails the attack naming it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_hostile import (
    FAST,
    RANDOM_PY,
    hostile,
    log_of,
    played_by,
    reasons,
    said,
    sandboxed_game,
)
from test_tournament_e2e import ARENA_WITH_DICERACE, read_journal

from arena.engine import Game
from arena.protocol.messages import MAX_MESSAGE_BYTES
from arena.protocol.wire import DOOR_REFUSALS
from arena.runner.game.checkbot import check_bot
from arena.runner.game.manifest import BotManifest
from arena.runner.game.record import GameRecord, verify
from arena.runner.game.referee import Referee
from arena.runner.game.sandbox import sandbox_problem

PROBLEM = sandbox_problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")

HOSTILE = Path(__file__).resolve().parent.parent / "bots" / "hostile"
#: What the referee may spend on one bot: its door, its connection, one being refused.
DESCRIPTORS_PER_BOT = 4
MIB = 1 << 20


def descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_bytes() -> int:
    with open("/proc/self/status") as f:
        line = next(line for line in f if line.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


@contextmanager
def sampled(measure: Callable[[], int]) -> Iterator[list[int]]:
    """Take ``measure`` every millisecond or so while the block runs, into the list given."""
    samples: list[int] = []
    done = threading.Event()

    def run() -> None:
        while not done.is_set():
            samples.append(measure())
            done.wait(0.001)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield samples
    finally:
        done.set()
        thread.join()


def test_a_bot_whose_children_open_64_connections_is_blamed_and_costs_four_descriptors(
    dicerace: Game, tmp_path: Path,
) -> None:
    """After its hello its 8 children open 8 connections each and hold them. Its door takes
    none of them: each is closed as it is accepted, and at the 4th the bot is failed and its
    door stops listening, so the rest are refused by the kernel. Through a ZeroMQ socket the
    referee spent a descriptor on each until libzmq aborted it."""
    baseline: list[int] = []  # descriptors once both bots are connected, and when that was

    with sampled(descriptors) as counts:

        def before_the_game(referee: Referee) -> None:
            baseline[:] = [descriptors(), len(counts)]

        played = sandboxed_game(dicerace, [BotManifest.load(RANDOM_PY),
                                           hostile("connection-flood")], tmp_path,
                                during=before_the_game)
    record = played.record
    assert reasons(record) == ["ok", "protocol_error"], record.terminations
    assert record.terminations[1]["detail"] == (
        f"{DOOR_REFUSALS} connections beyond its one were refused (while it held one): a bot "
        f"holds one connection to the referee")
    assert played_by(record, 0) == {"bot"} and verify(record).ok
    refused = [e for e in record.events if e.startswith("seat 1: refused a connection")]
    assert len(refused) == DOOR_REFUSALS - 1, record.events
    during = counts[baseline[1]:]
    assert during and max(during) - baseline[0] <= DESCRIPTORS_PER_BOT, (baseline, max(during))
    lines = said(log_of(tmp_path, "hostile-connection-flood"), "connection-flood")
    assert "forking 8 children" in lines, lines  # the attack was made
    # What the children said, those that lived to say it (each at its first refused attempt
    # and at its last; the sandbox ends as the bot fails, and on a busy machine it may end
    # before any child got that far): the referee held none of their connections open; it
    # closed them unread, or they were reset as the door closed with them queued, or, once it
    # had, the kernel turned them away (refused, or its queue full).
    children = [dict(w.split("=") for w in line.split()[2:]) for line in lines
                if line.startswith("child ")]
    assert all(c["held"] == "0" for c in children), children
    assert not children or sum(int(c["refused"]) + int(c["busy"]) for c in children) > 0, \
        children


def test_a_message_of_endless_frames_is_refused_at_its_first_and_costs_no_memory(
    dicerace: Game, tmp_path: Path,
) -> None:
    """It answers its first request with 1 MiB frames each marked "more", for up to 10 s. The
    referee reads the first frame's header and closes the connection: the bot is failed
    naming the rule and the limit, having got about one socket buffer out, and the referee's
    memory does not grow. Through a ZeroMQ socket it grew to 1.4 GiB in 2.7 s."""
    baseline = rss_bytes()
    with sampled(rss_bytes) as rss:
        played = sandboxed_game(dicerace, [BotManifest.load(RANDOM_PY),
                                           hostile("endless-message")], tmp_path)
    record = played.record
    assert reasons(record) == ["ok", "protocol_error"], record.terminations
    assert record.terminations[1]["detail"] == (
        f"a message of more than one frame: a message is one frame of at most "
        f"{MAX_MESSAGE_BYTES} bytes")
    assert played_by(record, 0) == {"bot"} and verify(record).ok
    growth = max(rss) - baseline
    assert growth < 16 * MIB, f"the referee grew by {growth / MIB:.1f} MiB"
    lines = said(log_of(tmp_path, "hostile-endless-message"), "endless-message")
    assert f"sending frames of {MIB} bytes marked more" in lines, lines  # the attack was made
    # If it lived to say how its sending ended (the referee kills it as it fails it), it was
    # cut off within its first frames.
    for line in lines:
        if line.startswith("bytes-sent "):
            assert int(line.split()[1]) < 2 * MAX_MESSAGE_BYTES, line
            assert "ended connection-closed" in line, line


@pytest.mark.parametrize(("attack", "words"), [
    ("connection-flood", f"{DOOR_REFUSALS} connections beyond its one were refused"),
    ("endless-message", "a message of more than one frame"),
])
def test_check_bot_fails_each_attack_on_the_referees_socket_naming_it(
    attack: str, words: str, dicerace: Game, tmp_path: Path,
) -> None:
    checks = check_bot(HOSTILE / attack, dicerace, 1, FAST, tmp_path, sandbox="bwrap")
    failed = [c for c in checks if not c.passed]
    assert [c.name for c in failed] == ["game"], checks
    assert f"protocol_error: {words}" in failed[0].detail, failed[0].detail


def test_a_tournament_with_both_attackers_plays_every_game_and_blames_only_them(
    dicerace: Game, tmp_path: Path,
) -> None:
    """`arena run` of the two attackers and random-py, processes kept between games: every
    game is played and recorded, the attackers' seats are recorded as protocol errors, and
    random-py plays its own seat in every game, never blamed."""
    out = tmp_path / "out"
    file = tmp_path / "wire.toml"
    bots = [HOSTILE / "connection-flood", HOSTILE / "endless-message", RANDOM_PY]
    file.write_text("\n".join([
        'name = "wire"', 'game = "dicerace"', 'format = "round-robin"', "players = 2",
        "rounds = 2", "seed = 5", "concurrency = 2", "reuse_bots = true", 'sandbox = "bwrap"',
        f"output = {json.dumps(str(out))}",
        "[time_control]", "decision_ms = 2000", "handshake_ms = 10000",
        *(f"[[bots]]\npath = {json.dumps(str(b))}" for b in bots),
    ]) + "\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", ARENA_WITH_DICERACE, "run", str(file), "--plain"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    games = len(read_journal(out).results)
    assert re.search(rf"{games}/{games} games, complete", run.stdout), run.stdout
    attackers = {"hostile-connection-flood", "hostile-endless-message"}
    seats = 0
    for result in read_journal(out).results.values():
        record = GameRecord.load(out / result["record"])
        assert verify(record).ok
        for seat, termination in zip(record.seats, record.terminations, strict=True):
            seats += 1
            if seat["bot"] in attackers:
                assert termination["reason"] == "protocol_error", termination
            else:
                assert termination["reason"] == "ok"
                assert played_by(record, seat["seat"]) == {"bot"}
    assert seats == 2 * games == 2 * 2 * 3 * 2  # 3 tables, 2 rotations, 2 rounds
