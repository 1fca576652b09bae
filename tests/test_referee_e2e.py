"""The referee end to end: real bot processes, real sockets, every failure kind of the protocol.

The faulty bots are ``bots/faulty/<mode>`` (one program, ``bots/faulty/faulty.py``). Every game
here is driven through :func:`referee_game`, which runs the Referee the way ``play_game`` does and
then checks that no process of any seat's process group is left.
"""

from __future__ import annotations

import ast
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.engine import Game, get_game
from arena.protocol.messages import MAX_MESSAGE_BYTES, Termination
from arena.protocol.wire import DOOR_REFUSALS
from arena.runner.game.botlog import DEFAULT_LOG_CAP
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.processes import group_alive
from arena.runner.game.record import GameRecord, verify
from arena.runner.game.referee import Referee, VoidGame, play_game
from arena.runner.game.sandbox import DEFAULT_MODE

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bots" / "examples"
FAULTY = ROOT / "bots" / "faulty"
GAME = get_game("stoneage")

#: Small limits for the faulty games, so that a timeout costs half a second.
FAST = TimeControl(handshake_ms=5000, decision_ms=400, bank_ms=20000, increment_ms=100,
                   margin_ms=50)
#: The same with a short handshake limit, for the bots that never complete it.
SHORT_HANDSHAKE = TimeControl(handshake_ms=1500, decision_ms=400, bank_ms=20000,
                              increment_ms=100, margin_ms=50)
#: Per game, a seed with which, with seats [random-py, faulty, built-in], the faulty seat (played
#: by the fallback policy after its failure) wins on points; ranking it last is the referee's
#: doing. Dice Race's also gives the faulty seat more than 5 decisions, so that crash-mid-game
#: (which crashes after 5) crashes mid-game. Bots' seeds depend on the seed key: these hold with
#: the tests' key (conftest.TEST_SEED_KEY).
WINNING_SEED = {"stoneage": 13, "dicerace": 41}


def random_py() -> BotManifest:
    return BotManifest.load(EXAMPLES / "random-py")


def random_js() -> BotManifest:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if not (EXAMPLES / "random-js" / "node_modules").is_dir():
        pytest.fail("random-js has no node_modules: run npm ci --prefix bots/examples/random-js")
    return BotManifest.load(EXAMPLES / "random-js")


def faulty(mode: str) -> BotManifest:
    return BotManifest.load(FAULTY / mode)


@dataclass
class Outcome:
    record: GameRecord | None
    void: VoidGame | None
    referee: Referee
    seconds: float


def referee_game(
    bots: list[BotManifest | None],
    seed: int = 1,
    tc: TimeControl = FAST,
    log_dir: Path | None = None,
    check_processes: bool = True,
    game: Game = GAME,
    sandbox: str = DEFAULT_MODE,
) -> Outcome:
    """Launch, handshake, play and close like ``play_game``, always closing; then (unless told
    not to) assert that no process of any seat's process group is left."""
    referee = Referee(game, seed, bots, tc, log_dir, sandbox=sandbox)
    record: GameRecord | None = None
    void: VoidGame | None = None
    t0 = time.monotonic()
    try:
        try:
            referee.launch()
            referee.handshake()
            record = referee.play()
        except BaseException:
            referee.kill_all()
            raise
        finally:
            referee.close()
    except VoidGame as exc:
        void = exc
    outcome = Outcome(record, void, referee, time.monotonic() - t0)
    if check_processes:
        assert_no_process_left(outcome)
    return outcome


def group_members(pgid: int) -> dict[int, str]:
    """pid -> state letter (R, S, Z...) of every process in the group ``pgid``, from /proc."""
    members = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[2]) == pgid:
            members[int(stat.parent.name)] = fields[0]
    return members


def assert_no_process_left(outcome: Outcome) -> None:
    for seat in outcome.referee.seats:
        if seat.process is not None:
            pgid = seat.process.pgid
            assert not group_alive(pgid), (
                f"seat {seat.seat} ({seat.manifest.name if seat.manifest else '?'}): "
                f"process group {pgid} still has a process after close(); "
                f"members (pid: state): {group_members(pgid)}"
            )


def played(outcome: Outcome) -> GameRecord:
    assert outcome.void is None, f"the game was void: {outcome.void}"
    assert outcome.record is not None
    return outcome.record


def void_message(outcome: Outcome) -> str:
    assert outcome.void is not None, "the game was played, it should have been void"
    assert outcome.record is None
    return str(outcome.void)


def reasons(record: GameRecord) -> list[str]:
    return [t["reason"] for t in record.terminations]


def seat_decisions(record: GameRecord, seat: int) -> list[list]:
    return [d for d in record.decisions if d[0] == seat]


def received_messages(log_dir: Path, bot_name: str) -> list[dict]:
    """The messages a faulty bot logged as received (it logs ``received {...}`` lines)."""
    (log,) = log_dir.glob(f"*-{bot_name}.log")
    out = []
    for line in log.read_text(encoding="utf-8").splitlines():
        _, sep, rest = line.partition(": received ")
        if sep:
            out.append(ast.literal_eval(rest))
    return out


def pid_gone(pid: int) -> bool:
    """True if ``pid`` no longer runs: no such process, or only a zombie left."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


# ---------------------------------------------------------------- the example bots


def example_lineups() -> list[tuple[str, list[str | None]]]:
    py, js = "random-py", "random-js"
    return [
        ("py-2", [py, py]),
        ("py-4-with-builtins", [py, None, py, None]),
        ("js-2", [js, js]),
        ("js-4-with-builtins", [None, js, None, js]),
        ("py-js-builtin-4", [js, py, None, py]),
    ]


@pytest.mark.parametrize(
    "names", [names for _, names in example_lineups()], ids=[i for i, _ in example_lineups()]
)
def test_the_example_bots_play_whole_games_that_verify_and_survive_a_save_and_load(
    names: list[str | None], tmp_path: Path, game: Game
) -> None:
    loaders = {"random-py": random_py, "random-js": random_js}
    bots = [loaders[n]() if n else None for n in names]
    record = played(referee_game(bots, seed=11, tc=TimeControl(), game=game))
    assert record.game == game.name
    assert reasons(record) == [Termination.OK] * len(bots)
    assert [s["bot"] for s in record.seats] == [n or "builtin" for n in names]
    report = verify(record)
    assert report.ok, report.problems
    assert report.decisions == len(record.decisions) > 0
    for seat, name in enumerate(names):
        by = {d[3] for d in seat_decisions(record, seat)}
        assert by == ({"bot"} if name else {"fallback"}), f"seat {seat} ({name}): {by}"
    assert sorted(record.ranks)[0] == 1
    path = tmp_path / "game.json"
    record.save(path)
    loaded = GameRecord.load(path)
    assert loaded.to_dict() == record.to_dict()
    again = verify(loaded)
    assert again.ok, again.problems


def test_the_same_seed_and_bots_give_the_same_decisions_through_real_processes(
    game: Game,
) -> None:
    bots = [random_py(), random_py(), None]
    a = play_game(game, 21, bots)
    b = play_game(game, 21, bots)
    c = play_game(game, 22, bots)
    assert [d[:2] + d[3:] for d in a.decisions] == [d[:2] + d[3:] for d in b.decisions]
    assert a.result == b.result and a.ranks == b.ranks
    assert [d[:2] for d in a.decisions] != [d[:2] for d in c.decisions]


# ---------------------------------------------------------------- failures during the game


IN_GAME_FAILURES = [
    # mode, termination reason, decisions the faulty bot itself gets recorded for
    ("crash-mid-game", "crash", 5),
    ("never-reply", "timeout", 0),
    ("reply-late", "timeout", 0),
    ("illegal-index", "illegal_action", 0),
    ("garbage-bytes", "protocol_error", 0),
    ("wrong-request-id", "timeout", 0),
    ("flood", "protocol_error", 0),
    ("oversized", "protocol_error", 0),
]


@pytest.mark.parametrize(
    ("mode", "reason", "own_decisions"), IN_GAME_FAILURES, ids=[m for m, _, _ in IN_GAME_FAILURES]
)
def test_a_faulty_bot_gets_its_termination_reason_is_ranked_last_and_the_game_still_ends(
    mode: str, reason: str, own_decisions: int, game: Game
) -> None:
    outcome = referee_game([random_py(), faulty(mode), None], seed=WINNING_SEED[game.name],
                           game=game)
    record = played(outcome)
    assert reasons(record) == [Termination.OK, reason, Termination.OK], record.terminations
    assert record.terminations[1]["detail"], "a failure must say what happened"
    assert any(e.startswith(f"seat 1: {reason}:") for e in record.events), record.events
    report = verify(record)
    assert report.ok, report.problems
    # The fallback policy makes the failed seat win on points, yet it is ranked last.
    assert record.result["ranks"][1] == 1, "WINNING_SEED no longer lets the failed seat win"
    assert record.ranks[1] == 3
    assert sorted(record.ranks[s] for s in (0, 2)) == [1, 2]
    mine = seat_decisions(record, 1)
    assert [d[3] for d in mine] == ["bot"] * own_decisions + ["fallback"] * (
        len(mine) - own_decisions
    )
    assert {d[3] for d in seat_decisions(record, 0)} == {"bot"}
    if reason == "timeout":
        # The timeout comes at the deadline (400 + 50 ms), not much later.
        assert outcome.seconds < 10


def test_a_crash_mid_game_is_described_with_the_exit_status() -> None:
    record = played(referee_game([faulty("crash-mid-game"), random_py()], seed=5))
    assert reasons(record) == ["crash", Termination.OK]
    assert "status 3" in record.terminations[0]["detail"]
    assert record.ranks == [2, 1]


def peak_rss_kib() -> int:
    """This process's peak resident memory since :func:`reset_peak_rss` (or its start), KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # pragma: no cover


def reset_peak_rss() -> None:
    """Start the peak of :func:`peak_rss_kib` afresh from the memory in use now (Linux)."""
    Path("/proc/self/clear_refs").write_text("5")


def test_a_100_mb_message_is_a_protocol_error_naming_the_limit_and_is_never_buffered(
    tmp_path: Path,
) -> None:
    reset_peak_rss()
    before = peak_rss_kib()
    outcome = referee_game([random_py(), faulty("oversized")], seed=3, log_dir=tmp_path)
    growth_mib = (peak_rss_kib() - before) / 1024
    record = played(outcome)
    assert reasons(record) == [Termination.OK, "protocol_error"]
    detail = record.terminations[1]["detail"]
    assert "a message of 104857" in detail, detail
    assert f"over the limit of {MAX_MESSAGE_BYTES} bytes" in detail, detail
    assert record.ranks == [1, 2]
    # The referee reads the frame's size first and closes the connection: it neither holds the
    # 100 MB nor waits for the decision's deadline.
    assert growth_mib < 20, f"the referee's peak memory grew by {growth_mib:.0f} MiB"
    assert outcome.seconds < FAST.decision_ms / 1000 + 2
    log = next(tmp_path.glob("*-faulty-oversized.log")).read_text(encoding="utf-8")
    assert "sending a message of 104857" in log


def test_a_bot_that_answers_only_wrong_request_ids_has_them_ignored_then_times_out() -> None:
    record = played(referee_game([random_py(), faulty("wrong-request-id")], seed=2))
    assert reasons(record) == [Termination.OK, "timeout"]
    ignored = [e for e in record.events if "ignored an action for request" in e]
    assert ignored and all(e.startswith("seat 1:") for e in ignored)
    assert verify(record).ok


# ---------------------------------------------------------------- void games


def test_a_bot_that_crashes_before_hello_makes_the_game_void_at_once() -> None:
    outcome = referee_game([random_py(), faulty("crash-start")], tc=FAST)
    message = void_message(outcome)
    assert "seat 1" in message and "faulty-crash-start" in message
    assert "status 1" in message
    assert outcome.seconds < FAST.handshake_ms / 1000  # noticed, not waited out


def test_a_bot_that_never_says_hello_makes_the_game_void_after_the_handshake_limit() -> None:
    outcome = referee_game([faulty("hang-start"), None], tc=SHORT_HANDSHAKE)
    message = void_message(outcome)
    assert "seat 0" in message and "faulty-hang-start" in message
    assert 1.5 <= outcome.seconds < 1.5 + 3


def test_a_hello_with_a_wrong_token_is_refused_and_the_game_is_void(tmp_path: Path) -> None:
    outcome = referee_game([None, random_py(), faulty("wrong-token")], tc=SHORT_HANDSHAKE,
                           log_dir=tmp_path)
    message = void_message(outcome)
    assert "seat 2" in message and "faulty-wrong-token" in message
    assert outcome.seconds >= 1.5
    assert any("refused a connection: bad_token" in e for e in outcome.referee.events)
    got = received_messages(tmp_path, "faulty-wrong-token")
    assert [(m["type"], m["code"]) for m in got] == [("error", "bad_token")]


def test_a_hello_in_protocol_2_is_refused_naming_both_versions_and_the_game_is_void(
    tmp_path: Path,
) -> None:
    outcome = referee_game([faulty("wrong-protocol"), random_py()], tc=SHORT_HANDSHAKE,
                           log_dir=tmp_path)
    message = void_message(outcome)
    assert "seat 0" in message and "faulty-wrong-protocol" in message
    assert outcome.seconds >= 1.5
    assert any("protocol_mismatch" in e for e in outcome.referee.events)
    (error,) = received_messages(tmp_path, "faulty-wrong-protocol")
    assert error["type"] == "error" and error["code"] == "protocol_mismatch"
    words = error["message"].replace(";", " ").split()
    assert "2" in words and "1" in words, error["message"]


def test_play_game_raises_void_game_naming_the_bot_and_leaves_no_process() -> None:
    bots = [faulty("crash-start"), random_py()]
    with pytest.raises(VoidGame, match=r"seat 0 \(faulty-crash-start\)"):
        play_game(GAME, 1, bots, FAST)


# ---------------------------------------------------------------- processes and identities


def test_a_child_the_bot_leaves_behind_is_killed_with_its_process_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("FAULTY_PID_FILE", str(pid_file))
    # Unsandboxed (the sandbox's own case is in test_sandbox.py): the child's pid file is
    # written where the test reads it.
    outcome = referee_game([faulty("child-left-behind"), random_py()], seed=4,
                           check_processes=False, sandbox="none")
    record = played(outcome)
    assert reasons(record) == [Termination.OK, Termination.OK]
    assert verify(record).ok
    child = int(pid_file.read_text())
    bot = outcome.referee.seats[0].process
    assert bot is not None and child != bot.pid
    # SIGKILL is delivered asynchronously: allow the killed child a moment to die. A child that
    # was not killed sleeps for 1000 s, so this cannot hide a survivor.
    deadline = time.monotonic() + 0.5
    while not pid_gone(child) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pid_gone(child), f"the bot's child {child} survived the game"
    assert_no_process_left(outcome)


def test_a_second_connection_is_refused_at_the_door_and_never_acts(tmp_path: Path) -> None:
    # The impostor plays seat 1 with the same generator as random-py (seeded by ARENA_SEED),
    # and opens a second connection at its game start that tries to act; the door refuses it
    # at once, again each time its library reconnects, and then blames the bot.
    outcome = referee_game([random_py(), faulty("impostor"), random_py()], seed=8,
                           log_dir=tmp_path)
    record = played(outcome)
    assert reasons(record) == [Termination.OK, "protocol_error", Termination.OK]
    detail = record.terminations[1]["detail"]
    assert f"{DOOR_REFUSALS} connections beyond its one were refused" in detail, detail
    refused = [e for e in record.events if e.startswith("seat 1: refused a connection")]
    assert len(refused) == DOOR_REFUSALS - 1, record.events
    assert not any("ignored an action" in e for e in record.events), record.events
    # Up to its failure it played its own seat, exactly as random-py would have.
    failed_at = next(k for k, d in enumerate(record.decisions) if d[3] == "fallback")
    assert failed_at > 0 and record.decisions[failed_at][0] == 1
    reference = played(referee_game([random_py(), random_py(), random_py()], seed=8))
    assert ([d[:2] for d in record.decisions[:failed_at]]
            == [d[:2] for d in reference.decisions[:failed_at]])
    assert verify(record).ok


def test_interrupting_play_game_kills_the_bot_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "slow.pid"
    script = (
        "import sys\n"
        "from arena.engine import get_game\n"
        "from arena.runner.game.processes import BotManifest\n"
        "from arena.runner.game.referee import play_game\n"
        "try:\n"
        "    play_game(get_game('stoneage'), 1, [BotManifest.load(sys.argv[1]), None],\n"
        "              sandbox='none')\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(42)\n"
        "sys.exit(0)\n"
    )
    env = {**os.environ, "FAULTY_PID_FILE": str(pid_file)}
    runner = subprocess.Popen([sys.executable, "-c", script, str(FAULTY / "slow")], env=env,
                              cwd=ROOT)
    try:
        deadline = time.monotonic() + 10
        while not (pid_file.is_file() and pid_file.read_text().strip()):
            assert time.monotonic() < deadline, "the slow bot never started"
            assert runner.poll() is None, "the game ended before it could be interrupted"
            time.sleep(0.05)
        bot = int(pid_file.read_text())
        time.sleep(1.0)  # a few of its 200 ms decisions
        assert not pid_gone(bot), "the slow bot should be playing now"
        os.kill(runner.pid, signal.SIGINT)
        assert runner.wait(timeout=10) == 42
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
    assert pid_gone(bot), f"the bot {bot} survived the interrupted game"


# ---------------------------------------------------------------- output


def test_a_bot_flooding_its_output_plays_on_unfailed_and_its_log_is_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 200 MB rather than the mode's 1 GiB keeps the test short; it is still 20 times the cap.
    flood = 200_000_000
    monkeypatch.setenv("FAULTY_FLOOD_BYTES", str(flood))
    outcome = referee_game([faulty("flood-output"), random_py(), None], seed=3,
                           log_dir=tmp_path)
    record = played(outcome)
    # Writing output breaks no protocol rule: the flooder is not failed, and it never stalled.
    assert reasons(record) == [Termination.OK] * 3, record.terminations
    assert {d[3] for d in seat_decisions(record, 0)} == {"bot"}
    assert verify(record).ok
    (log,) = tmp_path.glob("*-faulty-flood-output.log")
    data = log.read_bytes()
    marker = re.search(rb"\n\[arena: output capped at 10 MiB; (\d+) more bytes dropped\]\n$",
                       data)
    assert marker is not None, data[-300:]
    assert len(data) <= DEFAULT_LOG_CAP + len(marker.group(0))
    assert int(marker.group(1)) > 0
    assert not [t for t in threading.enumerate() if t.name.startswith("bot-log-")]
    assert outcome.seconds < 10
