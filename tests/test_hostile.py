"""The hostile bots (``bots/hostile``) against the sandbox: real bwrap, real bot processes, real
sockets. For each attack: it gains nothing (the victim plays its own game and is not blamed, no
process outlives its game, hidden things stay hidden, the log is capped), the game and a
tournament go on, and ``check-bot`` fails what it can see, naming it.

A hostile bot logs each attempt as ``hostile[ATTACK]: WHAT VALUE...`` (see
``bots/hostile/hostile.py``); these tests read those lines. Every bot here is sandboxed: the
killer, for one, must never run without a sandbox (it refuses to attack outside one). Every
game is Dice Race (``dicerace`` fixture): the attacks need no long game. The tests are skipped,
with the reason, where bwrap cannot start a sandbox (``arena doctor`` says why).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_sandbox import processes_with, wait_for
from test_tournament_e2e import ARENA_WITH_DICERACE, read_journal

from arena.engine import Game
from arena.runner.game.botlog import DEFAULT_LOG_CAP
from arena.runner.game.checkbot import check_bot
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.record import GameRecord, verify
from arena.runner.game.referee import Referee
from arena.runner.game.sandbox import (
    ETC_WRITTEN,
    INSIDE_BOT,
    etc_shown,
    layout_of,
    sandbox_problem,
)
from arena.runner.game.sandbox_python import INSIDE_ARENA
from arena.runner.game.sandboxed import sandbox_processes
from arena.seeds import KEY_FILE_ENV, game_label, user_key_path, user_seed_key

PROBLEM = sandbox_problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "bots" / "hostile"
RANDOM_PY = ROOT / "bots" / "examples" / "random-py"
FAST = TimeControl(handshake_ms=10_000, decision_ms=2_000, bank_ms=30_000)
GIB = 1 << 30


def hostile(attack: str) -> BotManifest:
    return BotManifest.load(HOSTILE / attack)


def copy_of(attack: str, folder: Path, *args: str) -> Path:
    """A folder of its own (``folder``, made) for the hostile bot ``attack``, beside a copy of
    hostile.py (its manifest needs its parent, as in bots/hostile): its manifest, with ``args``
    added to its command."""
    folder.mkdir(parents=True)
    shutil.copy(HOSTILE / "hostile.py", folder.parent / "hostile.py")
    manifest = (HOSTILE / attack / "bot.toml").read_text(encoding="utf-8")
    command = ", ".join(json.dumps(a) for a in ("../hostile.py", attack, *args))
    manifest = manifest.replace(f'"../hostile.py", "{attack}"', command)
    (folder / "bot.toml").write_text(manifest, encoding="utf-8")
    return folder


def said(log: Path, attack: str) -> list[str]:
    """What the hostile bot logged: the text after ``hostile[ATTACK]: `` on each of its lines
    (which may follow other output on the same line)."""
    prefix = f"hostile[{attack}]: "
    return [line.split(prefix, 1)[1] for line in log.read_text(errors="replace").splitlines()
            if prefix in line]


def log_of(folder: Path, bot: str) -> Path:
    (log,) = folder.glob(f"*-{bot}.log")
    return log


def start_time(pid: int) -> int | None:
    """When the process ``pid`` started (clock ticks after boot), or None if it is gone or a
    zombie: with its pid, it names one process even if the pid is reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    return None if fields[0] in ("Z", "X") else int(fields[19])


def sandboxed(referee: Referee) -> set[tuple[int, int]]:
    """(pid, start time) of every bwrap process of the game's bots and of every process in
    their sandboxes, as seen from here."""
    found = set()
    for seat in referee.seats:
        if seat.process is None:
            continue
        for pid in (seat.process.pid, *sandbox_processes(seat.process.pid)):
            started = start_time(pid)
            if started is not None:
                found.add((pid, started))
    return found


def still_running(processes: set[tuple[int, int]]) -> set[tuple[int, int]]:
    return {(pid, started) for pid, started in processes if start_time(pid) == started}


@dataclass
class Played:
    record: GameRecord
    referee: Referee
    #: Every process of the bots' sandboxes just before the game began (after ``during``).
    processes: set[tuple[int, int]]
    #: Whether each bot process was still running when the game ended.
    alive_at_end: list[bool]


def sandboxed_game(
    game: Game, bots: list[BotManifest | None], log_dir: Path, seed: int = 1,
    during: Callable[[Referee], None] | None = None,
) -> Played:
    """Play a game with every bot sandboxed, as ``play_game`` does, calling ``during`` between
    the handshake and the game; then assert that no process of the bots' sandboxes is left."""
    referee = Referee(game, seed, bots, FAST, log_dir, sandbox="bwrap")
    try:
        try:
            referee.launch()
            referee.handshake()
            if during is not None:
                during(referee)
            processes = sandboxed(referee)
            record = referee.play()
            alive = [s.process.alive() for s in referee.seats if s.process is not None]
        except BaseException:
            referee.kill_all()
            raise
    finally:
        referee.close()
    assert wait_for(lambda: not still_running(processes), 3.0), (
        f"processes outlived their game: {still_running(processes)}")
    return Played(record, referee, processes, alive)


def reasons(record: GameRecord) -> list[str]:
    return [t["reason"] for t in record.terminations]


def played_by(record: GameRecord, seat: int) -> set[str]:
    """Who made the seat's decisions: {"bot"} if its own bot made every one."""
    return {d[3] for d in record.decisions if d[0] == seat}


# ---------------------------------------------------------------- thief


def test_the_thief_finds_no_other_seats_token_and_its_extra_connections_are_refused(
    dicerace: Game, tmp_path: Path,
) -> None:
    """The victim starts first, so it is running when the thief looks, before hello and at the
    game's start. The thief sees its own token (it can read an environment) and nobody
    else's; the two more connections it opens are closed at its door, unread."""
    played = sandboxed_game(dicerace, [BotManifest.load(RANDOM_PY), hostile("thief")], tmp_path)
    record = played.record
    assert reasons(record) == ["ok", "ok"], record.terminations
    assert played_by(record, 0) == {"bot"} and played_by(record, 1) == {"bot"}
    assert verify(record).ok
    lines = said(log_of(tmp_path, "hostile-thief"), "thief")
    scans = [line for line in lines if line.startswith("scan ")]
    assert len(scans) >= 2, lines  # before hello, and at the game's start
    # Only bwrap's init and itself; it reads its own environment, and nobody else's. (Run as
    # root, the init is root's and unreadable; otherwise it is the runner's user's, and its
    # environment is the bot's own, handed to bwrap.)
    readable = 1 if os.geteuid() == 0 else 2
    expected = f"scan processes=2 environs-readable={readable} own-token-seen=yes"
    assert all(s == expected for s in scans), scans
    assert [line for line in lines if line.startswith("found-tokens")] == ["found-tokens 0"] * 2
    # and in the meantime on its watch thread
    assert any(re.fullmatch(r"watch scans=\d+ found-tokens=0", line) for line in lines), lines
    assert not [line for line in lines if line.startswith("hijack")]
    assert "second-connection closed" in lines and "third-connection closed" in lines
    assert len(played.referee.refusals) == 2, played.referee.refusals
    assert all(played.alive_at_end)


# ---------------------------------------------------------------- killer


def test_the_killer_can_signal_nothing_outside_its_sandbox(
    dicerace: Game, tmp_path: Path,
) -> None:
    """It sees only bwrap's init (which ignores what it sends), cannot learn the referee's pid,
    and SIGSTOP and SIGKILL to every process it may signal (-1) reach nobody: both bots play
    the whole game themselves, alive to its end."""
    played = sandboxed_game(dicerace, [BotManifest.load(RANDOM_PY), hostile("killer")], tmp_path)
    record = played.record
    assert reasons(record) == ["ok", "ok"], record.terminations
    assert played_by(record, 0) == {"bot"} and played_by(record, 1) == {"bot"}
    assert played.alive_at_end == [True, True]
    lines = said(log_of(tmp_path, "hostile-killer"), "killer")
    assert "refusing: not in a sandbox" not in lines
    attacks = lines.count("alive-after-attack yes")
    assert attacks >= 2, lines  # before hello, and at the game's start
    assert lines.count("visible-pids 1") == attacks
    assert lines.count("referee-pid 0") == attacks  # the referee is outside its namespace
    for sig in ("SIGSTOP", "SIGKILL"):
        assert lines.count(f"signal {sig} -1 failed (ESRCH No such process)") == attacks
    signals = [line for line in lines if line.startswith("signal ")]
    assert len(signals) == 4 * attacks and all(s.split()[2] in ("1", "-1") for s in signals)


# ---------------------------------------------------------------- escaper


def test_nothing_the_escaper_leaves_outlives_its_game(dicerace: Game, tmp_path: Path) -> None:
    """Its escaped process (double fork and setsid, deaf to SIGTERM) runs during the game, seen
    from outside by the marker on its command line, and is gone after it. The second way out,
    a user and PID namespace of its own, is refused (the sandbox's system-call filter)."""
    markers: dict[str, str] = {}

    def escaped(referee: Referee) -> None:
        log = referee.seats[1].log
        assert log is not None and log.path is not None

        def logged() -> bool:
            for line in said(log.path, "escaper"):  # type: ignore[arg-type]
                what, marker, _pids, *inner = line.split()
                if what == "orphan":
                    assert inner != ["none"], line
                    markers[what] = marker
                elif what == "nested-orphan":
                    assert inner == ["none"], line  # refused: no nested user namespace
                    markers[what] = marker
            return len(markers) == 2

        assert wait_for(logged), "the escaper never said what it left"
        assert processes_with(markers["orphan"]), "its orphan is not running during the game"
        assert not processes_with(markers["nested-orphan"])

    played = sandboxed_game(dicerace, [BotManifest.load(RANDOM_PY), hostile("escaper")],
                            tmp_path, during=escaped)
    record = played.record
    assert reasons(record) == ["ok", "ok"], record.terminations
    assert played_by(record, 0) == {"bot"} and played_by(record, 1) == {"bot"}
    # Per bot, bwrap outside, its init and the bot; and the escaper's orphan.
    assert len(played.processes) == 3 + 3 + 1, played.processes
    log = played.referee.seats[1].log
    assert log is not None and log.path is not None
    assert "unshare: Operation not permitted" in log.path.read_text(errors="replace")
    assert wait_for(lambda: not any(processes_with(m) for m in markers.values()), 3.0), (
        f"an escaped process outlived its game: {markers}")


# ---------------------------------------------------------------- snoop


def test_the_snoop_reads_none_of_the_organisers_files_and_only_what_it_was_shown(
    dicerace: Game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The organiser's layout, in the worst case known to the attacker, is in the snoop's
    ``targets.txt``: the tournament file, the journal, game records, standings, the logs
    (this game's, the victim's included), other bots' folders, the seed key files and the
    runner's source tree. Every one is denied; the folders above its own show nothing but the
    way to it; every file it can find anywhere is one the sandbox means to show."""
    organiser = tmp_path / "organiser"
    out = organiser / "out"
    logs = out / "logs"
    (out / "games").mkdir(parents=True)
    logs.mkdir()
    tournament = organiser / "t.toml"
    tournament.write_text('name = "secret"\nseed = 20261130\n', encoding="utf-8")
    for name, text in (("journal.sqlite", "SQLite format 3"), ("standings.md", "| 1 |"),
                       ("games/rr-000001.json", "{}")):
        (out / name).write_text(text, encoding="utf-8")
    monkeypatch.delenv(KEY_FILE_ENV)
    default_key = user_key_path()  # where a user's key file would be
    monkeypatch.undo()
    game_id = f"dicerace-{game_label(user_seed_key(), 1)}"  # what the referee names the game
    targets = [
        tournament, out, out / "journal.sqlite", out / "standings.md", out / "games",
        out / "games" / "rr-000001.json", logs, logs / f"{game_id}-seat0-random-py.log",
        logs / f"{game_id}-seat1-hostile-snoop.log", RANDOM_PY, RANDOM_PY / "bot.py",
        ROOT / "bots" / "examples" / "greedy-py", Path(os.environ[KEY_FILE_ENV]), default_key,
        ROOT / "pyproject.toml", ROOT / "tests" / "conftest.py", ROOT / "tests", ROOT / ".git",
    ]
    # A copy of the snoop's folder holding the list.
    folder = copy_of("snoop", organiser / "bots" / "hostile" / "snoop")
    (folder / "targets.txt").write_text("\n".join(map(str, targets)) + "\n", encoding="utf-8")

    played = sandboxed_game(dicerace, [BotManifest.load(RANDOM_PY), BotManifest.load(folder)],
                            logs)
    record = played.record
    assert reasons(record) == ["ok", "ok"], record.terminations
    assert played_by(record, 0) == {"bot"} and played_by(record, 1) == {"bot"}
    assert log_of(logs, "hostile-snoop").name == f"{game_id}-seat1-hostile-snoop.log"
    lines = said(log_of(logs, "hostile-snoop"), "snoop")
    assert f"targets {len(targets)}" in lines
    outcome = {line.split()[1]: line.split()[0] for line in lines
               if line.split()[0] in ("readable", "denied")}
    for target in targets:
        assert outcome.get(str(target)) == "denied", f"{target}: {outcome.get(str(target))}"
    # What the sandbox shows: its folder and the folder its manifest needs (under /bot, at
    # their places relative to each other), its runtime (under /arena).
    root, _ = layout_of([folder, folder.parent])

    def inside(path: Path) -> Path:
        return Path(INSIDE_BOT) / path.relative_to(root)

    shown = [inside(folder), inside(folder.parent), Path(INSIDE_ARENA)]
    for guess in ("/etc/shadow", "/home", "/var/log", "/etc/ssh"):
        ways = {f.relative_to(guess).parts[0] for f in shown if f.is_relative_to(guess)}
        if not ways:
            assert outcome[guess] == "denied", guess
        elif outcome[guess] == "readable":  # on the way to what it is shown, and only that
            listing = next(line.split(": ", 1)[1] for line in lines
                           if line.startswith(f"listing {guess}: "))
            assert set(listing.split()) <= ways, (guess, listing)
    listings = {line.split(": ", 1)[0][len("listing "):]: line.split(": ", 1)[1:]
                for line in lines if line.startswith("listing ")}
    # The organiser's folders are nowhere in its view: not even the way to its own folder.
    assert not [k for k in listings if str(tmp_path) in k or str(tmp_path) in str(listings[k])]
    visible = [line.split(" ", 1)[1] for line in lines if line.startswith("visible ")]
    assert f"visible-files {len(visible)}" in lines
    assert {str(inside(folder / "targets.txt")), str(inside(folder / "bot.toml"))} <= set(visible)
    shown += [Path("/tmp"), *map(Path, etc_shown()), *(Path("/etc", n) for n in ETC_WRITTEN)]
    unexpected = [v for v in visible if not any(Path(v).is_relative_to(s) for s in shown)]
    assert not unexpected, unexpected


# ---------------------------------------------------------------- flooder


def test_the_flooders_gibibyte_is_capped_in_its_log_and_the_game_goes_on(
    dicerace: Game, tmp_path: Path,
) -> None:
    """The game starts once the runner has read the whole flood (1 GiB, half on stdout, half
    on stderr, one line without end): its log is the first 10 MiB and one marker line, the
    last line, counting the rest; the lines it forged to look like the runner's are in the
    part kept, and fool no one who reads the last line."""

    def flooded(referee: Referee) -> None:
        log = referee.seats[0].log
        assert log is not None
        assert wait_for(lambda: log.written + log.dropped >= GIB, 30.0), (
            f"only {log.written + log.dropped} bytes of the flood arrived")

    played = sandboxed_game(dicerace, [hostile("flooder"), BotManifest.load(RANDOM_PY)],
                            tmp_path, during=flooded)
    record = played.record
    assert reasons(record) == ["ok", "ok"], record.terminations
    assert played_by(record, 0) == {"bot"} and played_by(record, 1) == {"bot"}
    data = log_of(tmp_path, "hostile-flooder").read_bytes()
    marker = re.search(rb"\n\[arena: output capped at 10 MiB; (\d+) more bytes dropped\]\n$",
                       data)
    assert marker is not None, data[-300:]
    assert len(data) <= DEFAULT_LOG_CAP + len(marker.group(0))
    assert int(marker.group(1)) >= GIB - DEFAULT_LOG_CAP
    assert f"flooding {GIB} bytes to stdout and stderr" in said(
        log_of(tmp_path, "hostile-flooder"), "flooder")


# ---------------------------------------------------------------- check-bot


@pytest.mark.parametrize(
    ("attack", "check", "words"),
    [
        ("thief", "connections", "refused a connection: a connection while it held one was "
                                 "refused: a bot holds one connection to the referee"),
        ("escaper", "shutdown", "exited, but left processes behind in its sandbox"),
        ("flooder", "output", "bytes of output in one game, more than the cap of 10 MiB"),
    ],
)
def test_check_bot_fails_each_hostile_bot_it_can_see_naming_what_it_did(
    attack: str, check: str, words: str, dicerace: Game, tmp_path: Path,
) -> None:
    checks = check_bot(HOSTILE / attack, dicerace, 1, FAST, tmp_path, sandbox="bwrap")
    failed = [c for c in checks if not c.passed]
    assert [c.name for c in failed] == [check], checks
    assert words in failed[0].detail, failed[0].detail


def test_no_process_can_hide_in_a_nested_namespace_it_cannot_make(
    dicerace: Game, tmp_path: Path,
) -> None:
    """The sandbox refuses new user namespaces, so the escaper's nested sleeper never starts,
    and its check passes: it left nothing (were one to start, check-bot counts everything
    below the sandbox's init, nested namespaces too)."""
    folder = copy_of("escaper", tmp_path / "bots" / "nested-escaper", "--only", "nested-orphan")
    checks = check_bot(folder, dicerace, 1, FAST, tmp_path, sandbox="bwrap")
    text = log_of(tmp_path, "hostile-escaper")
    lines = said(text, "escaper")
    assert any(line.startswith("nested-orphan ") and line.endswith(" none")
               for line in lines), lines
    assert "unshare: Operation not permitted" in text.read_text(errors="replace")
    assert all(c.passed for c in checks), checks


@pytest.mark.parametrize("attack", ["killer", "snoop"])
def test_check_bot_passes_the_attacks_that_leave_no_trace_outside_the_sandbox(
    attack: str, dicerace: Game, tmp_path: Path,
) -> None:
    """What they tried failed inside the sandbox, where the runner does not look: denied
    reads, signals that reached nobody. They played correctly."""
    checks = check_bot(HOSTILE / attack, dicerace, 1, FAST, tmp_path, sandbox="bwrap")
    assert all(c.passed for c in checks), checks
    assert [c.name for c in checks][-2:] == ["shutdown", "output"]
    lines = said(log_of(tmp_path, f"hostile-{attack}"), attack)
    assert any(line.startswith("signal " if attack == "killer" else "denied ") for line in lines)


# ---------------------------------------------------------------- a tournament


def test_a_sandboxed_tournament_of_hostile_bots_plays_every_game_and_blames_no_victim(
    dicerace: Game, tmp_path: Path,
) -> None:
    """`arena run` with the thief, the killer, the escaper, a flooder (100 MB a game, 100
    times the file's 1 MiB cap) and random-py, processes kept between games (so the thief and
    the killer also wait, idle, beside other games): every game is played and recorded, each
    bot played its own seat throughout and nobody is blamed, every log is capped, and nothing
    of the bots is left after the run."""
    flooder = copy_of("flooder", tmp_path / "bots" / "flooder", "--bytes", "100000000")
    bots = [HOSTILE / "thief", HOSTILE / "killer", HOSTILE / "escaper", flooder, RANDOM_PY]
    out = tmp_path / "out"
    file = tmp_path / "hostile.toml"
    file.write_text("\n".join([
        'name = "hostile"', 'game = "dicerace"', 'format = "round-robin"', "players = 2",
        "seat_rotation = false", "seed = 5", "concurrency = 2", "reuse_bots = true",
        "log_cap_mb = 1", 'sandbox = "bwrap"', f"output = {json.dumps(str(out))}",
        "[time_control]", "decision_ms = 2000", "handshake_ms = 10000",
        *(f"[[bots]]\npath = {json.dumps(str(b))}" for b in bots),
    ]) + "\n", encoding="utf-8")
    run = subprocess.Popen([sys.executable, "-c", ARENA_WITH_DICERACE, "run", str(file),
                            "--plain"], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = run.communicate(timeout=90)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, 9)
            run.wait()
    assert run.returncode == 0, f"{stdout}\n{stderr}"
    assert "10/10 games, complete" in stdout, stdout

    journal = read_journal(out)
    assert len(journal.results) == 10
    assert all(p["voids"] == 0 for p in journal.pairings.values())
    names = {"hostile-thief", "hostile-killer", "hostile-escaper", "hostile-flooder",
             "random-py"}
    games_of = dict.fromkeys(names, 0)
    for result in journal.results.values():
        record = GameRecord.load(out / result["record"])
        assert reasons(record) == ["ok", "ok"], record.terminations
        assert verify(record).ok
        for seat in record.seats:
            games_of[seat["bot"]] += 1
            assert played_by(record, seat["seat"]) == {"bot"}
    assert games_of == dict.fromkeys(names, 4)

    logs = out / "logs"
    thief = [line for log in logs.glob("hostile-thief-*.log") for line in said(log, "thief")]
    assert thief.count("found-tokens 0") >= 5 and not any("hijack" in t for t in thief)
    # Watching all along, idle between games too, it never saw another token.
    watches = [re.fullmatch(r"watch scans=(\d+) found-tokens=(\d+)", t) for t in thief]
    assert {m.group(2) for m in watches if m} == {"0"}
    assert max(int(m.group(1)) for m in watches if m) > 4
    killer = [line for log in logs.glob("hostile-killer-*.log") for line in said(log, "killer")]
    assert killer.count("alive-after-attack yes") >= 5
    assert all(line == "visible-pids 1" for line in killer if line.startswith("visible-pids"))
    markers = [line.split()[1] for log in logs.glob("hostile-escaper-*.log")
               for line in said(log, "escaper") if line.split()[0].endswith("orphan")]
    assert markers
    assert wait_for(lambda: not any(processes_with(m) for m in markers), 3.0), markers
    capped = [m for log in logs.glob("hostile-flooder-*.log")
              for m in re.findall(rb"\n\[arena: output capped at 1 MiB; (\d+) more bytes "
                                  rb"dropped\]\n", log.read_bytes())]
    assert len(capped) == 4 and all(int(n) > 0 for n in capped), capped
    for log in logs.iterdir():
        assert log.stat().st_size <= 4 * ((1 << 20) + 200), log
