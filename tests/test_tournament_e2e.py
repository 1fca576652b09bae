"""The tournament runner end to end: `arena run` as a real process, real bot processes, real
sockets and the real SQLite journal; nothing of the runner is mocked.

Every tournament here is a small TOML file written into the test's ``tmp_path`` (absolute bot
paths, ``output`` inside ``tmp_path``). Each `arena run` is started in a new session, with a
unique marker in its environment (:data:`TAG_VAR`) that every process it starts inherits (the
fork server, the game workers, the bots and their children). "No process of ours is left" then
means: no live process in /proc carries that marker, and the runner's session and the bots'
process groups have no live (non-zombie) member. The marker cannot reach into a bot's sandbox
(a sandboxed bot's environment is cleared): sandboxed bots count as the run's while their
worker lives, as its descendants; the tests that follow the slow bot by the pid it writes, or
bots after their worker has died, run their bots unsandboxed (the sandbox's own life cycle is
tested in test_sandbox.py). Processes are only ever stopped by the pid or
process group of a run these tests started, or by the pid of a process carrying the test's
marker (what a run left behind, cleared after the test has reported it).
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.engine import Game
from arena.protocol import scratch
from arena.protocol.messages import FAILURES
from arena.protocol.wire import FOLDER_PREFIX
from arena.results import GameOutcome, Pairing
from arena.runner.game.disk import LOCK_FILE
from arena.runner.game.record import GameRecord, verify
from arena.runner.play.config import ConfigError, load_config
from arena.runner.play.executor import RUN_FOLDER_PREFIX, Executor
from arena.runner.play.journal import JournalError
from arena.runner.play.ratings import compute_standings
from arena.runner.play.ring import RunOptions
from arena.runner.play.tournament import Tournament, make_tournament_scheduler
from arena.stats.common import rounded

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bots" / "examples"
FAULTY = ROOT / "bots" / "faulty"
#: The environment variable that marks every process of one test's runs.
TAG_VAR = "E2E_RUN_TAG"  # not ARENA_*: the runner keeps those from bots
#: How long the runner and its processes get to be gone after a run ends or is killed.
GONE_S = 6.0

T = TypeVar("T")
cli = CliRunner()
#: The environment of a resumed run, whose games need not be caught in progress: the slow bot
#: answers at once (its games then last as long as the others, not its whole time bank).
UNHURRIED = {"FAULTY_SLOW_MS": "0"}


# ---------------------------------------------------------------------------- bots and files


def example(name: str) -> Path:
    folder = EXAMPLES / name
    if name.endswith("-js"):
        if shutil.which("node") is None:
            pytest.skip("node is not installed")
        if not (folder / "node_modules").is_dir():
            pytest.fail(f"{name} has no node_modules: run npm ci --prefix {folder}")
    return folder


def faulty(mode: str) -> Path:
    return FAULTY / mode


def random_py_twin(folder: Path) -> Path:
    """random-py under another name, ``random-py-twin``, in ``folder``: a third bot for a game
    the Stone Age greedy bot cannot play."""
    twin = folder / "random-py-twin"
    twin.mkdir()
    shutil.copy(EXAMPLES / "random-py" / "bot.py", twin / "bot.py")
    manifest = (EXAMPLES / "random-py" / "bot.toml").read_text(encoding="utf-8")
    (twin / "bot.toml").write_text(
        manifest.replace('name = "random-py"', 'name = "random-py-twin"'), encoding="utf-8")
    return twin


def deterministic_bots(game: str = "stoneage", folder: Path | None = None) -> list[Path]:
    """Three bots for ``game`` whose every move follows from the game seed (greedy-py uses no
    randomness; the random bots are seeded from ARENA_SEED). Stone Age's greedy bot plays Stone
    Age only: for another game a twin of random-py, made in ``folder``, takes its place."""
    if game == "stoneage":
        return [example("greedy-py"), example("random-py"), example("random-js")]
    assert folder is not None, "a twin bot needs a folder"
    return [random_py_twin(folder), example("random-py"), example("random-js")]


def ok_bot(game: str) -> str:
    """A well-behaved bot for ``game`` besides random-py: the greedy bot in Stone Age."""
    return "greedy-py" if game == "stoneage" else "random-js"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (str, Path)):
        return json.dumps(str(value))  # a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise TypeError(value)


def write_tournament(
    folder: Path,
    file_name: str,
    *,
    name: str,
    bots: list[Path],
    output: Path,
    time_control: dict[str, int] | None = None,
    **fields: Any,
) -> Path:
    """A tournament file in ``folder``: 2-player round-robin, one round, one game at a time
    unless ``fields`` say otherwise. One game worker starts each bot once where two start it
    twice; a test of games played at once asks for ``concurrency`` itself."""
    values: dict[str, Any] = {
        "name": name, "game": "stoneage", "format": "round-robin", "players": 2, "rounds": 1,
        "seed": 11, "concurrency": 1, "output": output, **fields,
    }
    lines = [f"{k} = {_toml(v)}" for k, v in values.items()]
    if time_control:
        lines += ["", "[time_control]", *(f"{k} = {v}" for k, v in time_control.items())]
    for bot in bots:
        lines += ["", "[[bots]]", f"path = {_toml(bot)}"]
    path = folder / file_name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


#: `arena run` in a child that registers Dice Race first: a game a test registers is not seen by
#: a child process, and the runner process must know the game (the workers get it in the job).
ARENA_WITH_DICERACE = (
    "from arena.engine import register\n"
    "from arena.engine.testing import DICE_RACE\n"
    "register(DICE_RACE)\n"
    "from arena.cli.main import main\n"
    "main()\n"
)


def arena_command(file: Path) -> list[str]:
    """How to start `arena` for the tournament ``file``: as ``python -m arena``, or, for Dice
    Race, through :data:`ARENA_WITH_DICERACE`."""
    try:
        game = tomllib.loads(file.read_text(encoding="utf-8")).get("game")
    except (OSError, tomllib.TOMLDecodeError):
        game = None
    if isinstance(game, dict):  # a [game] table, with the game's options
        game = game.get("name")
    if game == "dicerace":
        return [sys.executable, "-c", ARENA_WITH_DICERACE]
    return [sys.executable, "-m", "arena"]


def schedule_of(file: Path) -> list[Pairing]:
    """The whole schedule of a round-robin tournament file, as the runner's scheduler makes it
    (a repeat at a time)."""
    config = load_config(file)
    assert config.seed is not None  # these tests' files give one
    scheduler = make_tournament_scheduler(config, config.seed)
    pairings: list[Pairing] = []
    while part := scheduler.next_round([], len(pairings)):
        pairings += part
    assert pairings and len(pairings) == scheduler.fixed_total
    return pairings


# ---------------------------------------------------------------------------- processes


@dataclass(frozen=True)
class Proc:
    pid: int
    state: str
    ppid: int
    pgrp: int
    session: int
    cmdline: str


def processes() -> Iterator[Proc]:
    """Every process in /proc that is not a zombie (or dead)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # it ended while we looked
        fields_ = stat[stat.rfind(")") + 2 :].split()
        if fields_[0] in ("Z", "X"):
            continue
        yield Proc(int(entry.name), fields_[0], int(fields_[1]), int(fields_[2]),
                   int(fields_[3]), cmdline.strip())


def children(pid: int) -> list[Proc]:
    return [p for p in processes() if p.ppid == pid]


#: What the command line of a fork server of game workers, and of each worker, holds.
FORKSERVER = "multiprocessing.forkserver"


def workers_under(parent: int) -> list[Proc]:
    """The game workers (each a supervisor, see arena.runner.play.supervise) of the executors of
    process ``parent``: the children of its fork server."""
    servers = [p for p in children(parent) if FORKSERVER in p.cmdline]
    return [w for server in servers for w in children(server.pid)]


def tagged(tag: str) -> dict[int, Proc]:
    """Live processes started (directly or not) by a run carrying ``tag``, and their
    descendants (a sandboxed bot's environment is cleared, so it and its bwrap processes are
    found as children of a tagged worker)."""
    marker = f"{TAG_VAR}={tag}".encode()
    found = {}
    everything = list(processes())
    for p in everything:
        try:
            environ = Path(f"/proc/{p.pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker in environ:
            found[p.pid] = p
    grown = True
    while grown:
        grown = False
        for p in everything:
            if p.pid not in found and p.ppid in found:
                found[p.pid] = p
                grown = True
    return found


def leftovers(tag: str | None, sessions: tuple[int, ...] = (),
              groups: tuple[int, ...] = ()) -> list[Proc]:
    """Live processes carrying ``tag`` (unless None) or in one of the sessions or groups."""
    left = dict(tagged(tag)) if tag is not None else {}
    for p in processes():
        if p.session in sessions or p.pgrp in groups:
            left[p.pid] = p
    return sorted(left.values(), key=lambda p: p.pid)


def assert_nothing_left(
    tag: str | None, sessions: tuple[int, ...] = (), groups: tuple[int, ...] = (),
    timeout: float = GONE_S,
) -> None:
    """Within ``timeout`` no process of the runs tagged ``tag`` (unless None), and no live
    member of the given sessions and process groups, is left."""
    deadline = time.monotonic() + timeout
    while True:
        left = leftovers(tag, sessions, groups)
        if not left:
            return
        if time.monotonic() > deadline:
            listing = "\n".join(
                f"  pid {p.pid} state {p.state} ppid {p.ppid} pgrp {p.pgrp} sid {p.session}: "
                f"{p.cmdline[:160]}" for p in left
            )
            raise AssertionError(f"{len(left)} process(es) left {timeout:.0f} s after the run "
                                 f"ended:\n{listing}")
        time.sleep(0.05)


def wait_until(what: str, check: Callable[[], T | None], timeout: float,
               run: Run | None = None) -> T:
    """Poll ``check`` until it returns something truthy; fail after ``timeout`` seconds (and
    if ``run`` ended before that)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if run is not None and run.proc.poll() is not None:
            pytest.fail(f"the run ended (exit {run.proc.returncode}) before: {what}\n{run.text}")
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout} s: {what}" + (f"\n{run.text}" if run else ""))
        time.sleep(0.02)


@dataclass
class Run:
    """One `arena run FILE --plain` process, leader of its own session."""

    proc: subprocess.Popen[bytes]
    stdout_path: Path
    stderr_path: Path
    tag: str  # the marker in the environment of every process of the run

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def stdout(self) -> str:
        return self.stdout_path.read_text(encoding="utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    @property
    def text(self) -> str:
        return f"--- stdout\n{self.stdout}--- stderr\n{self.stderr}"

    @property
    def rc(self) -> int | None:
        return self.proc.returncode

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"`arena run` did not end within {timeout} s\n{self.text}")

    def interrupt(self) -> None:
        """What Ctrl-C in a terminal does: SIGINT to the run's (foreground) process group."""
        os.killpg(self.pid, signal.SIGINT)

    def kill(self) -> None:
        """SIGKILL the run's process group if the runner is still running."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def bots(self) -> dict[int, Proc]:
        """The run's live processes outside its session: the bots (each leads its own)."""
        return {pid: p for pid, p in tagged(self.tag).items() if p.session != self.pid}


@dataclass
class Runs:
    """Starts `arena run` processes for one test; see the module docstring."""

    tmp: Path
    tag: str = field(default_factory=lambda: f"e2e-{uuid.uuid4().hex}")
    started: list[Run] = field(default_factory=list)
    reported: bool = False

    def start(self, file: Path, *args: str, env: dict[str, str] | None = None) -> Run:
        n = len(self.started)
        out, err = self.tmp / f"run{n}.stdout", self.tmp / f"run{n}.stderr"
        full_env = {**os.environ, **(env or {}), TAG_VAR: self.tag}
        with out.open("wb") as fo, err.open("wb") as fe:
            proc = subprocess.Popen(
                [*arena_command(file), "run", str(file), "--plain", *args],
                cwd=self.tmp, env=full_env, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe,
                start_new_session=True,
            )
        run = Run(proc, out, err, self.tag)
        self.started.append(run)
        return run

    def complete(self, file: Path, *args: str, env: dict[str, str] | None = None,
                 timeout: float = 60) -> Run:
        """Start a run and wait for it to end; then check that nothing of it is left."""
        run = self.start(file, *args, env=env)
        self.finish(run, timeout=timeout)
        return run

    def finish(self, *runs: Run, timeout: float = 60) -> None:
        """Wait for ``runs`` (started at once, each having only to end as the others do) to
        end; then check that nothing of them is left."""
        for run in runs:
            run.wait(timeout)
        self.check_nothing_left(sessions=tuple(run.pid for run in runs))

    def check_nothing_left(self, sessions: tuple[int, ...] = (), groups: tuple[int, ...] = (),
                           timeout: float = GONE_S, tagged_too: bool = True) -> None:
        """:func:`assert_nothing_left` for this test's runs (``tagged_too=False``: only the
        given sessions and groups)."""
        try:
            assert_nothing_left(self.tag if tagged_too else None, sessions, groups, timeout)
        except AssertionError:
            self.reported = True
            raise

    def kill_leftovers(self) -> list[Proc]:
        """SIGKILL whatever this test's runs left behind: each run's process group, then, by
        pid, any process still carrying this test's marker. Returns what was left."""
        for run in self.started:
            run.kill()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(run.pid, signal.SIGKILL)  # its fork server and workers
        sessions = tuple(r.pid for r in self.started)
        killed: dict[int, Proc] = {}
        for _ in range(50):
            left = leftovers(self.tag, sessions)
            if not left:
                break
            for p in left:
                killed[p.pid] = p
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p.pid, signal.SIGKILL)
            time.sleep(0.1)
        return list(killed.values())

    def close(self, test_failed: bool) -> None:
        """Check that nothing is left, and clear what is (a test that failed, maybe on this
        very check, is not failed a second time in its teardown)."""
        if test_failed or self.reported:
            self.kill_leftovers()
            return
        for run in self.started:
            run.kill()
        try:
            assert_nothing_left(self.tag, tuple(r.pid for r in self.started))
        except AssertionError:
            self.kill_leftovers()
            raise


@pytest.fixture
def runs(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Runs]:
    failed_before = request.session.testsfailed
    r = Runs(tmp_path)
    yield r
    r.close(test_failed=request.session.testsfailed > failed_before)


@contextlib.contextmanager
def signals_kept() -> Iterator[None]:
    """`arena run` installs SIGINT/SIGTERM handlers; keep pytest's own after an in-process call."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


# ---------------------------------------------------------------------------- the journal


@dataclass
class JournalView:
    meta: dict[str, Any]
    pairings: dict[str, dict[str, Any]]  # by game id, in index order
    results: dict[str, dict[str, Any]]  # by game id, in index order

    @property
    def done(self) -> set[str]:
        return set(self.results)

    def outcomes(self) -> list[GameOutcome]:
        out = []
        for gid, r in self.results.items():
            p = self.pairings[gid]
            out.append(GameOutcome(
                gid, p["idx"], p["round"], p["tbl"], tuple(json.loads(p["bots"])), p["seed"],
                tuple(json.loads(r["scores"])), tuple(json.loads(r["ranks"])),
                tuple(json.loads(r["terminations"])),
            ))
        return out


def read_journal(folder: Path) -> JournalView:
    """The journal's content, read through a read-only connection (safe beside a live run)."""
    path = folder / "journal.sqlite"
    assert path.is_file(), f"no journal at {path}"
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    db.row_factory = sqlite3.Row
    try:
        meta = {r["key"]: json.loads(r["value"]) for r in db.execute("SELECT * FROM meta")}
        pairings = {r["game_id"]: dict(r)
                    for r in db.execute("SELECT * FROM pairings ORDER BY idx")}
        results = {r["game_id"]: dict(r)
                   for r in db.execute("SELECT * FROM results ORDER BY idx")}
    finally:
        db.close()
    return JournalView(meta, pairings, results)


def try_read_journal(folder: Path) -> JournalView | None:
    """:func:`read_journal`, or None while the journal does not exist or cannot be read yet."""
    if not (folder / "journal.sqlite").is_file():
        return None
    try:
        return read_journal(folder)
    except sqlite3.Error:
        return None


def started_games(folder: Path) -> set[str]:
    """Games handed out to a worker at least once, as the journal records them."""
    from arena.runner.play.journal import JOURNAL, Journal

    if not (folder / JOURNAL).is_file():
        return set()
    journal = Journal(folder / JOURNAL, readonly=True)
    try:
        return journal.started_ids()
    finally:
        journal.close()


def read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def pid_alive(pid: int) -> bool:
    return any(p.pid == pid for p in processes())


def standings_doc(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "standings.json").read_text(encoding="utf-8"))


def assert_schedule_played_once(view: JournalView, schedule: list[Pairing]) -> None:
    """The journal holds exactly the schedule, and one result for each of its games."""
    assert list(view.pairings) == [p.game_id for p in schedule]
    for p in schedule:
        row = view.pairings[p.game_id]
        assert (row["idx"], tuple(json.loads(row["bots"])), row["seed"]) == (
            p.index, p.bots, p.seed)
        assert row["status"] == "done", p.game_id
    assert list(view.results) == [p.game_id for p in schedule]  # a primary key: each once


# ============================================================================ 1. a fresh run


def test_fresh_round_robin_plays_every_game_with_a_verified_record_and_standings(
    tmp_path: Path, runs: Runs, game: Game, request: pytest.FixtureRequest
) -> None:
    """A fresh run plays the whole schedule once, each game with a record that replays, and
    writes the standings its results make. The Dice Race variant runs with --run-slow only:
    the runner's fresh run is the same for every game, Stone Age's proves it on every run, and
    the runner's independence from Stone Age is proven on every run by the Dice Race variants
    of the faulty-bots and resume tests."""
    if game.name == "dicerace" and not request.config.getoption("--run-slow"):
        pytest.skip("long run: give --run-slow to include it")
    out = tmp_path / "out"
    file = write_tournament(tmp_path, "fresh.toml", name="fresh",
                            bots=deterministic_bots(game.name, tmp_path), output=out, rounds=2,
                            game=game.name)
    schedule = schedule_of(file)
    assert len(schedule) == 12  # 3 tables x 2 seat rotations x 2 rounds

    run = runs.complete(file)
    assert run.rc == 0, run.text
    assert "fresh: 12/12 games, complete" in run.stdout

    view = read_journal(out)
    assert_schedule_played_once(view, schedule)
    for p in schedule:
        result = view.results[p.game_id]
        assert result["record"] == f"games/{p.game_id}.json"
        record = GameRecord.load(out / result["record"])
        report = verify(record)
        assert report.ok, (p.game_id, report.problems)
        assert record.game_id == p.game_id and record.seed == p.seed
        assert record.game == game.name
        assert tuple(s["bot"] for s in record.seats) == p.bots
        assert record.ranks == json.loads(result["ranks"])
        assert record.result["scores"] == json.loads(result["scores"])
        assert [t["reason"] for t in record.terminations] == json.loads(result["terminations"])
        assert set(json.loads(result["terminations"])) == {"ok"}

    for name in ("standings.json", "standings.csv", "standings.md"):
        assert (out / name).is_file(), name
    config = load_config(file)
    expected = compute_standings(config.bot_names, view.outcomes())
    doc = standings_doc(out)
    assert doc["standings"] == json.loads(json.dumps(rounded(expected.to_dict())))
    assert doc["meta"]["complete"] is True and doc["meta"]["games"] == 12
    assert doc["meta"]["name"] == "fresh" and doc["meta"]["seed"] == 11

    with (out / "standings.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["bot"] for r in rows] == [b.name for b in expected.bots]
    assert all(int(r["games"]) == 8 for r in rows)  # each bot: 2 tables x 2 rotations x 2
    markdown = (out / "standings.md").read_text(encoding="utf-8")
    for bot in config.bot_names:
        assert bot in markdown


# ============================================================================ 2. SIGKILL, resume


def test_sigkill_of_the_runner_leaves_no_worker_and_no_bot(tmp_path: Path, runs: Runs) -> None:
    """Killing the runner with SIGKILL mid-game: within a few seconds its fork server, its game
    workers and the bots of the games in progress are gone (the workers die with the fork
    server, PR_SET_PDEATHSIG, and kill their bots' process groups)."""
    # A game with the slow bot lasts about 8 s here, so its bots outliving the runner by a few
    # seconds cannot be the game ending by itself.
    file = write_tournament(
        tmp_path, "sigkill.toml", name="sigkill", output=tmp_path / "out",
        bots=[example("random-py"), faulty("slow")],
        sandbox="none",  # the slow bot's pid file, and the marker env (see above)
        time_control={"decision_ms": 1000, "bank_ms": 8000, "increment_ms": 0}, concurrency=2,
    )
    pid_file = tmp_path / "slow.pid"
    temp = Path(tempfile.mkdtemp(prefix="arena-test-tmp-", dir="/tmp"))  # short: sockets
    run = runs.start(file, env={"FAULTY_PID_FILE": str(pid_file), "TMPDIR": str(temp)})
    slow_pid = wait_until("the slow bot is playing", lambda: read_pid(pid_file), 30, run)
    wait_until("both games' bots running", lambda: len(run.bots()) >= 4, 10, run)
    bots = run.bots()
    session = {p.pid: p.cmdline[:100] for p in processes() if p.session == run.pid}
    assert len(session) >= 4, f"expected the runner, its fork server and 2 workers: {session}"

    os.kill(run.pid, signal.SIGKILL)
    run.proc.wait(timeout=10)
    runs.check_nothing_left(sessions=(run.pid,), groups=tuple(p.pgrp for p in bots.values()),
                            timeout=4)
    assert not pid_alive(slow_pid)
    # What it left in the temporary folder (the fork server's socket, the workers' doors) is
    # in private folders that the next run sweeps, as their makers are gone.
    left = sorted(p.name for p in temp.iterdir())
    swept = scratch.sweep(str(temp), RUN_FOLDER_PREFIX) + scratch.sweep(str(temp), FOLDER_PREFIX)
    rest = sorted(p.name for p in temp.iterdir())
    shutil.rmtree(temp)
    assert any(name.startswith(RUN_FOLDER_PREFIX) for name in left), left
    assert len(swept) == len(left) and rest == [], (left, rest)


def test_resume_after_sigkill_loses_nothing_and_equals_an_uninterrupted_run(
    tmp_path: Path, runs: Runs, game: Game, request: pytest.FixtureRequest
) -> None:
    if game.name == "stoneage" and not request.config.getoption("--run-slow"):
        # The resume is the runner's, the same for every game: Dice Race's short games prove
        # it on every run, Stone Age's longer ones with --run-slow.
        pytest.skip("long run: give --run-slow to include it")
    bots = deterministic_bots(game.name, tmp_path)
    common = {"name": "resumable", "bots": bots, "rounds": 3, "seed": 23, "game": game.name}
    ref_out, out = tmp_path / "reference", tmp_path / "killed"
    ref_file = write_tournament(tmp_path, "reference.toml", output=ref_out, **common)
    file = write_tournament(tmp_path, "killed.toml", output=out, **common)
    schedule = schedule_of(file)
    total = len(schedule)
    assert total == 18

    run = runs.start(file)

    def mid_run() -> dict[int, Proc] | None:
        view = try_read_journal(out)
        if view is None or not 2 <= len(view.done) <= total - 3:
            return None
        if len(view.pairings) == total:
            return None  # (the last repeat is issued only once few games of the rest wait)
        return run.bots() or None  # a game in progress, its bots running

    wait_until("2 games finished, a game in progress and a repeat not issued yet", mid_run, 30,
               run)
    before = read_journal(out).done
    os.kill(run.pid, signal.SIGKILL)
    run.proc.wait(timeout=10)
    # Whether the killed run leaves processes is the previous test's subject; here they are
    # given a second to go (a worker kills its sandboxed bots, which carry no marker), then
    # cleared (by the run's process group and marker) so that only the journal carries over.
    deadline = time.monotonic() + 1.0
    while leftovers(runs.tag, (run.pid,)) and time.monotonic() < deadline:
        time.sleep(0.05)
    runs.kill_leftovers()

    killed = read_journal(out)
    assert before <= killed.done, "a game committed before the kill was lost"
    assert len(killed.done) < total, "the run finished before it could be killed"
    # The repeats (6 games each) are issued whole, as they are needed: the schedule's first
    # games, not all of them.
    assert list(killed.pairings) == [p.game_id for p in schedule[:len(killed.pairings)]]
    assert len(killed.pairings) in (6, 12)

    # The same journal as a run before lazy schedules would have left it, every pairing issued
    # up front: it resumes as well (in its own folder; the output is not part of the identity).
    upfront_out = tmp_path / "upfront"
    shutil.copytree(out, upfront_out)
    upfront_file = write_tournament(tmp_path, "upfront.toml", output=upfront_out, **common)
    issue_the_rest(upfront_out, schedule)

    # The uninterrupted run, the resumed one and the one resumed from the journal of pairings
    # issued up front are played at once: each has only to end as the others do.
    reference, resumed, upfront = (runs.start(f) for f in (ref_file, file, upfront_file))
    runs.finish(reference, resumed, upfront)
    assert reference.rc == 0, reference.text
    assert resumed.rc == 0, resumed.text
    assert "resuming resumable" in resumed.stdout
    assert f"{total}/{total} games, complete" in resumed.stdout
    assert upfront.rc == 0, upfront.text
    assert f"{total}/{total} games, complete" in upfront.stdout

    final = read_journal(out)
    assert_schedule_played_once(final, schedule)
    assert_schedule_played_once(read_journal(upfront_out), schedule)
    assert read_journal(upfront_out).outcomes() == final.outcomes()
    for gid in killed.done:  # kept as they were: not played again
        assert final.results[gid] == killed.results[gid], gid
    for gid in set(final.done) - killed.done:
        assert verify(GameRecord.load(out / final.results[gid]["record"])).ok, gid

    # The bots' seeds are keyed by the journal's key: the resumed run kept it, and both runs
    # had the same one (the tests' key file), so the bots were handed the same seeds.
    assert final.meta["seed_key"] == killed.meta["seed_key"] == read_journal(ref_out).meta[
        "seed_key"]
    ref_doc, doc = standings_doc(ref_out), standings_doc(out)
    for bot, ref_bot in zip(doc["standings"]["bots"], ref_doc["standings"]["bots"], strict=True):
        for key in ("name", "mu", "sigma", "conservative", "games", "wins", "failures"):
            assert bot[key] == ref_bot[key], (bot["name"], key)
    assert doc == ref_doc
    assert read_journal(ref_out).outcomes() == final.outcomes()


def issue_the_rest(folder: Path, schedule: list[Pairing]) -> None:
    """Enter every pairing of ``schedule`` that the journal in ``folder`` does not hold yet, as
    runs did before schedules were issued a part at a time (all up front)."""
    from arena.runner.play.journal import JOURNAL, Journal

    journal = Journal(folder / JOURNAL)
    try:
        held = {p.game_id for p in journal.pairings()}
        journal.add_pairings([p for p in schedule if p.game_id not in held])
        assert journal.pairing_count() == len(schedule)
    finally:
        journal.close()


# ============================================================================ 3. faulty bots


#: Per game, a tournament seed with which crash-mid-game (it crashes after 5 decisions) gets
#: more than 5 decisions in each of its games, so that it crashes in every one.
FAULTY_SEED = {"stoneage": 11, "dicerace": 16}


def test_a_tournament_with_faulty_bots_completes_and_counts_their_failures(
    tmp_path: Path, runs: Runs, game: Game, request: pytest.FixtureRequest
) -> None:
    """Faulty bots fail every game they play, each its own way, are ranked last in it, and the
    standings count their failures by kind. The Stone Age variant runs with --run-slow only:
    how the runner counts a failure is the same for every game, Dice Race's short games prove
    it on every run, and tournaments/faulty-bots.toml, played in test_tournament_files.py,
    fails these same faulty bots in Stone Age games on every run."""
    if game.name == "stoneage" and not request.config.getoption("--run-slow"):
        pytest.skip("long run: give --run-slow to include it")
    out = tmp_path / "out"
    good = ok_bot(game.name)
    bots = [example(good), example("random-py"), faulty("illegal-index"),
            faulty("crash-mid-game")]
    kinds = {"faulty-illegal-index": "illegal_action", "faulty-crash-mid-game": "crash"}
    file = write_tournament(tmp_path, "faulty.toml", name="faulty", bots=bots, output=out,
                            time_control={"handshake_ms": 5000, "decision_ms": 500},
                            game=game.name, seed=FAULTY_SEED[game.name])
    schedule = schedule_of(file)
    assert len(schedule) == 12

    run = runs.complete(file)
    assert run.rc == 0, run.text
    assert "12/12 games, complete" in run.stdout

    view = read_journal(out)
    assert_schedule_played_once(view, schedule)
    games_of = dict.fromkeys(kinds, 0)
    for o in view.outcomes():
        ok_ranks = [r for b, r, t in zip(o.bots, o.ranks, o.terminations, strict=True)
                    if t == "ok"]
        for bot, rank, termination in zip(o.bots, o.ranks, o.terminations, strict=True):
            if bot in kinds:
                games_of[bot] += 1
                assert termination == kinds[bot], (o.game_id, bot, termination)
                assert rank == max(o.ranks), (o.game_id, bot, o.ranks)  # ranked last
                assert all(rank > r for r in ok_ranks), (o.game_id, o.ranks, o.terminations)
            else:
                assert termination == "ok", (o.game_id, bot, termination)
        assert verify(GameRecord.load(out / view.results[o.game_id]["record"])).ok

    standings = {b["name"]: b for b in standings_doc(out)["standings"]["bots"]}
    for bot, kind in kinds.items():
        assert games_of[bot] == 6
        assert standings[bot]["games"] == 6
        assert standings[bot]["failures"] == {k: 6 if k == kind else 0 for k in FAILURES}
    for bot in (good, "random-py"):
        assert standings[bot]["failures"] == dict.fromkeys(FAILURES, 0)
    order = [b["name"] for b in standings_doc(out)["standings"]["bots"]]
    assert set(order[-2:]) == set(kinds), order

    with (out / "standings.csv").open(encoding="utf-8") as f:
        rows = {r["bot"]: r for r in csv.DictReader(f)}
    assert rows["faulty-illegal-index"]["illegal_action"] == "6"
    assert rows["faulty-crash-mid-game"]["crash"] == "6"


# ============================================================================ 4. void games


def test_a_game_void_too_often_stops_the_run_with_a_clear_message_and_keeps_finished_games(
    tmp_path: Path, runs: Runs
) -> None:
    out = tmp_path / "out"
    retries = 1
    # The faulty bot passes the start check the run makes before its games, then cannot
    # start again (it keeps its state in a file: no sandbox). No process is kept between
    # games, so the one checked is not the one that plays.
    file = write_tournament(
        tmp_path, "void.toml", name="void", output=out, seed=5, void_retries=retries,
        bots=[example("greedy-py"), example("random-py"), faulty("crash-restart")],
        time_control={"handshake_ms": 3000}, sandbox="none", reuse_bots=False,
    )
    schedule = schedule_of(file)
    void_games = {p.game_id for p in schedule if "faulty-crash-restart" in p.bots}
    # With this seed the table without the faulty bot comes first, so games finish before the
    # run stops.
    assert not void_games & {schedule[0].game_id, schedule[1].game_id}

    state = tmp_path / "crash-restart.state"
    run = runs.complete(file, env={"FAULTY_STATE_FILE": str(state)})
    assert run.rc == 2, run.text
    assert "Traceback" not in run.text
    message = run.stderr
    assert "error:" in message and "faulty-crash-restart" in message
    named = [gid for gid in void_games if f"game {gid} " in message]
    assert len(named) == 1, message
    assert f"void {retries + 1} times" in message
    assert "exited with status 1 before completing the handshake" in message

    first = read_journal(out)
    assert first.pairings[named[0]]["voids"] == retries + 1  # tried once, retried once
    assert first.pairings[named[0]]["status"] == "scheduled"
    assert all(first.pairings[g]["voids"] <= retries + 1 for g in void_games)
    assert first.done, "no game finished before the run stopped"
    assert not first.done & void_games
    for gid in first.done:
        assert verify(GameRecord.load(out / first.results[gid]["record"])).ok

    state.unlink()  # one good start again, for the second run's start check
    again = runs.complete(file, env={"FAULTY_STATE_FILE": str(state)})
    assert again.rc == 2, again.text
    assert "Traceback" not in again.text
    assert "faulty-crash-restart" in again.stderr and " void " in again.stderr
    assert any(f"game {gid} " in again.stderr for gid in void_games), again.stderr
    second = read_journal(out)
    for gid in first.done:  # kept, not replayed
        assert second.results[gid] == first.results[gid]


@pytest.mark.parametrize("victim", ["player", "supervisor"])
def test_a_lost_game_worker_is_replaced_its_game_played_again_and_nothing_of_it_left(
    tmp_path: Path, runs: Runs, victim: str
) -> None:
    """A game worker killed from outside (say, by the OOM killer) costs only its game: a new
    worker takes its place, the game is played again, the run says so in a line (not a
    traceback) and ends complete. A worker is a supervisor and its child, which plays the
    games: whichever of the two is SIGKILLed, the bots of its game do not outlive it, nor does
    what they started: the other bot leaves a child behind, which its parent-death signal does
    not reach (as a sandbox's init being set up is not reached)."""
    out = tmp_path / "out"
    file = write_tournament(
        tmp_path, "lost.toml", name="lost", output=out,
        bots=[faulty("child-left-behind"), faulty("slow")],
        sandbox="none",  # the slow bot's pid file, and the marker env (see above)
        time_control={"decision_ms": 1000, "bank_ms": 1500, "increment_ms": 0},
    )
    schedule = schedule_of(file)
    pid_file = tmp_path / "slow.pid"  # where both bots write a pid: the slow one's is wanted
    # The run's own temporary folder (short: sockets' paths are short), to see what it leaves.
    temp = Path(tempfile.mkdtemp(prefix="arena-test-tmp-", dir="/tmp"))
    run = runs.start(file, env={"FAULTY_PID_FILE": str(pid_file), "TMPDIR": str(temp)})

    def slow_playing() -> int | None:
        pid = read_pid(pid_file)
        return pid if any(p.pid == pid and "slow" in p.cmdline for p in processes()) else None

    slow_pid = wait_until("the slow bot is playing", slow_playing, 30, run)
    player = next(p for p in processes() if p.pid == slow_pid).ppid
    supervisor = next(p for p in processes() if p.pid == player).ppid
    assert next(p for p in processes() if p.pid == player).session == run.pid
    assert next(p for p in processes() if p.pid == supervisor).session == run.pid
    worker = {supervisor, player}
    groups = {p.pgrp for p in processes() if p.ppid == player}  # each bot leads its own
    its_game = [p for p in processes() if p.pgrp in groups]
    assert any(p.pid == slow_pid for p in its_game) and len(groups) == 2
    os.kill(player if victim == "player" else supervisor, signal.SIGKILL)  # of the run we started
    # Gone with their worker, not at the end of the run (the game played again lasts seconds).
    wait_until("the dead worker's processes are gone",
               lambda: not any(pid_alive(p.pid) for p in its_game) and not any(
                   pid_alive(pid) for pid in worker), GONE_S)
    assert run.proc.poll() is None, "the run ended with its worker"
    run.wait(60)
    assert run.rc == 0, run.text
    assert "Traceback" not in run.text
    ended = "lost its playing process to SIGKILL" if victim == "player" else \
        "was killed by SIGKILL"
    assert f"a game worker (pid {supervisor}) {ended}: a new one took its place; game " in \
        run.stderr, run.stderr
    assert " is played again" in run.stderr
    assert f"{len(schedule)}/{len(schedule)} games, complete" in run.stdout
    runs.check_nothing_left(sessions=(run.pid,))
    assert not pid_alive(slow_pid)
    # Nor its doors' folder, which it could not remove itself: the run swept it.
    left = [p.name for p in temp.iterdir() if p.name.startswith("arena-endpoint-")]
    shutil.rmtree(temp)
    assert not left, left
    journal = read_journal(out)
    assert_schedule_played_once(journal, schedule)
    assert sorted(row["started"] for row in journal.pairings.values()) == [1, 2]


# ============================================================================ 5. Ctrl-C


def slow_tournament(tmp_path: Path, name: str, bank_ms: int, **fields: Any) -> Path:
    """greedy-py, random-py and the slow faulty bot (200 ms an answer). The slow bot's bank
    runs out after about ``bank_ms`` (no increment), and it then loses on time, so a game with
    it lasts about ``bank_ms`` + a moment, whatever its length."""
    return write_tournament(
        tmp_path, f"{name}.toml", name=name, output=tmp_path / name,
        bots=[example("greedy-py"), example("random-py"), faulty("slow")],
        sandbox="none",  # the slow bot's pid file, and the marker env (see above)
        time_control={"decision_ms": 1000, "bank_ms": bank_ms, "increment_ms": 0},
        **fields,
    )


def test_ctrl_c_once_finishes_the_games_in_progress_then_resume_completes(
    tmp_path: Path, runs: Runs
) -> None:
    file = slow_tournament(tmp_path, "ctrlc-once", bank_ms=1500)
    out = tmp_path / "ctrlc-once"
    schedule = schedule_of(file)
    pid_file = tmp_path / "slow.pid"
    run = runs.start(file, env={"FAULTY_PID_FILE": str(pid_file)})

    slow_pid = wait_until("the slow bot is playing", lambda: read_pid(pid_file), 30, run)
    view = try_read_journal(out)
    done_before = view.done if view else set()
    run.interrupt()
    run.wait(30)
    assert run.rc == 130, run.text
    assert "stopping" in run.stderr and "finishing the games in progress" in run.stderr
    assert "stopped; run the same command to resume" in run.stdout
    runs.check_nothing_left(sessions=(run.pid,))
    assert not pid_alive(slow_pid)

    stopped = read_journal(out)
    assert done_before <= stopped.done
    started = started_games(out)
    assert started, "no game had started"
    # Every game that had started was finished, and none was started after Ctrl-C.
    assert started == stopped.done, (started, stopped.done)
    assert len(stopped.done) < len(schedule)
    assert all(stopped.pairings[g]["status"] == "scheduled"
               for g in set(stopped.pairings) - stopped.done)
    doc = standings_doc(out)
    assert doc["meta"]["complete"] is False and doc["meta"]["games"] == len(stopped.done)

    resumed = runs.complete(file, env=UNHURRIED)
    assert resumed.rc == 0, resumed.text
    assert f"{len(schedule)}/{len(schedule)} games, complete" in resumed.stdout
    final = read_journal(out)
    assert_schedule_played_once(final, schedule)
    for gid in stopped.done:
        assert final.results[gid] == stopped.results[gid]
    assert standings_doc(out)["meta"]["complete"] is True

def test_ctrl_c_in_the_live_view_is_said_by_the_view_and_nothing_is_printed_beside_it(
    tmp_path: Path, runs: Runs
) -> None:
    """In a terminal the live view is redrawn in place; a line printed beside it (the old
    "stopping: ..." on stderr) left a second copy of the view behind. After Ctrl-C the view
    itself says it is stopping and how to abandon, stderr stays empty, and the run ends as
    with --plain."""
    file = slow_tournament(tmp_path, "ctrlc-live", bank_ms=1500)
    pid_file = tmp_path / "slow.pid"
    master, slave = os.openpty()
    err_path = tmp_path / "live.stderr"
    env = {**os.environ, "FAULTY_PID_FILE": str(pid_file), TAG_VAR: runs.tag,
           "COLUMNS": "100", "LINES": "40"}
    with err_path.open("wb") as fe:
        proc = subprocess.Popen([*arena_command(file), "run", str(file)], cwd=tmp_path, env=env,
                                stdin=subprocess.DEVNULL, stdout=slave, stderr=fe,
                                start_new_session=True)
    os.close(slave)
    screen = bytearray()

    def drain() -> None:  # the view must keep flowing, or the runner blocks on a full pty
        with contextlib.suppress(OSError):
            while chunk := os.read(master, 65536):
                screen.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        wait_until("the slow bot is playing", lambda: read_pid(pid_file), 30)
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(30) == 130
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        reader.join(5)
        os.close(master)
    text = screen.decode("utf-8", errors="replace")
    assert "Ctrl-C again to abandon them" in text
    assert "stopped; run the same command to resume" in text
    assert "stopping" not in err_path.read_text(encoding="utf-8"), err_path.read_text()
    runs.check_nothing_left(sessions=(proc.pid,))



def test_ctrl_c_twice_abandons_the_games_in_progress_and_resume_replays_them(
    tmp_path: Path, runs: Runs
) -> None:
    # One game per table, and a slow game lasts about 4 s: finishing it would take seconds.
    file = slow_tournament(tmp_path, "ctrlc-twice", bank_ms=4000, seat_rotation=False)
    out = tmp_path / "ctrlc-twice"
    schedule = schedule_of(file)
    pid_file = tmp_path / "slow.pid"
    run = runs.start(file, env={"FAULTY_PID_FILE": str(pid_file)})

    slow_pid = wait_until("the slow bot is playing", lambda: read_pid(pid_file), 30, run)
    t0 = time.monotonic()
    run.interrupt()
    # Again once the first is said, as a person does: two SIGINTs that arrive before Python
    # runs its handler are one (a loaded machine may not run it for a while).
    wait_until("the first Ctrl-C is said", lambda: "finishing the games" in run.stderr, 10, run)
    run.interrupt()
    run.wait(30)
    elapsed = time.monotonic() - t0
    assert run.rc == 130, run.text
    assert "abandoning the games in progress" in run.stderr
    assert "stopped; run the same command to resume" in run.stdout
    assert elapsed < 3.0, f"took {elapsed:.1f} s to abandon the games in progress"
    runs.check_nothing_left(sessions=(run.pid,))
    assert not pid_alive(slow_pid)

    stopped = read_journal(out)
    abandoned = started_games(out) - stopped.done
    assert abandoned, "the slow game in progress was not abandoned"
    for gid in abandoned:
        assert stopped.pairings[gid]["status"] == "scheduled"
        assert "faulty-slow" in json.loads(stopped.pairings[gid]["bots"])

    resumed = runs.complete(file, env=UNHURRIED)
    assert resumed.rc == 0, resumed.text
    assert f"{len(schedule)}/{len(schedule)} games, complete" in resumed.stdout
    final = read_journal(out)
    assert_schedule_played_once(final, schedule)  # every game exactly once
    for gid in stopped.done:
        assert final.results[gid] == stopped.results[gid]
    for gid in abandoned:
        assert verify(GameRecord.load(out / final.results[gid]["record"])).ok


# ============================================================================ 6. arena standings


def test_arena_standings_prints_the_standings_also_while_a_run_is_going(
    tmp_path: Path, runs: Runs
) -> None:
    # Two repeats, issued one at a time: the standings show the whole schedule's total.
    file = slow_tournament(tmp_path, "watched", bank_ms=800, rounds=2)
    out = tmp_path / "watched"
    bots = ["greedy-py", "random-py", "faulty-slow"]
    total = len(schedule_of(file))
    assert total == 12
    pid_file = tmp_path / "slow.pid"
    run = runs.start(file, env={"FAULTY_PID_FILE": str(pid_file)})

    def some_done_and_slow_playing() -> bool:
        view = try_read_journal(out)
        return bool(view and view.done and read_pid(pid_file))

    wait_until("a game done and a slow game in progress", some_done_and_slow_playing, 30, run)
    done_before = len(read_journal(out).done)
    text = cli.invoke(app, ["standings", str(out)], env={"COLUMNS": "120"})
    as_json = cli.invoke(app, ["standings", str(out), "--json"])
    done_after = len(read_journal(out).done)
    assert run.proc.poll() is None, "the run ended before standings were read mid-run"
    assert text.exit_code == 0, text.output
    assert as_json.exit_code == 0, as_json.output
    for bot in bots:
        assert bot in text.output
    assert f"of {total} games" in text.output and "issued so far" not in text.output
    data = json.loads(as_json.output)
    assert data["name"] == "watched" and data["total"] == total
    assert data["games"] <= data["issued"] <= total and data["issued"] % 6 == 0
    assert done_before <= data["games"] <= done_after < total
    assert sorted(b["name"] for b in data["bots"]) == sorted(bots)
    assert sum(b["games"] for b in data["bots"]) == 2 * data["games"]

    run.wait(60)
    assert run.rc == 0, run.text
    runs.check_nothing_left(sessions=(run.pid,))
    final = cli.invoke(app, ["standings", str(out), "--json"])
    assert final.exit_code == 0, final.output
    data = json.loads(final.output)
    assert data["games"] == data["issued"] == data["total"] == total
    assert data["complete"] is True
    saved = standings_doc(out)["standings"]
    assert {k: v for k, v in data.items()
            if k not in ("name", "issued", "total", "complete")} == saved
    text = cli.invoke(app, ["standings", str(out)], env={"COLUMNS": "120"})
    assert text.exit_code == 0 and f"complete, {total} games" in text.output


def test_arena_standings_on_a_folder_without_a_journal_is_a_clear_error(tmp_path: Path) -> None:
    for args in (["standings", str(tmp_path)], ["standings", str(tmp_path), "--json"],
                 ["standings", str(tmp_path / "missing")]):
        r = cli.invoke(app, args)
        assert r.exit_code == 2, r.output
        assert "no journal here" in r.output and "journal.sqlite" in r.output
        assert "Traceback" not in r.output
    assert not (tmp_path / "journal.sqlite").exists()  # a reader creates nothing


# ============================================================================ 7. a full disk

DISK_FULL = "database or disk is full"


class InlineExecutor(Executor):
    """Plays each job in this process when it is submitted, so that a test can make one of the
    worker's writes fail (the local executor's workers are out of a test's reach)."""

    def __init__(self, workers: int, keep_bots: int) -> None:
        self.results: list[Any] = []

    @property
    def capacity(self) -> int:
        return 1

    def submit(self, job: Any) -> None:
        from arena.runner.play.job import play_job

        self.results.append(play_job(job))

    def poll(self, timeout_s: float) -> list[Any]:
        out, self.results = self.results, []
        return out

    def shutdown(self, abandon: bool) -> None:
        pass


def fails_after(calls: int, original: Callable[..., Any], error: Exception) -> Callable[..., Any]:
    """``original``, but raising ``error`` from its call number ``calls + 1`` on."""
    count = {"n": 0}

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        count["n"] += 1
        if count["n"] > calls:
            raise error
        return original(*args, **kwargs)

    return wrapper


def assert_consistent_and_resumes(file: Path, out: Path, done: int) -> None:
    """After a stop on a full disk: the journal holds ``done`` finished games, each with a
    record that replays, and nothing half-done; a run with space again finishes the schedule
    without playing them again."""
    schedule = schedule_of(file)
    stopped = read_journal(out)
    assert len(stopped.done) == done
    assert {g for g, p in stopped.pairings.items() if p["status"] == "done"} == stopped.done
    for gid in stopped.done:
        assert verify(GameRecord.load(out / stopped.results[gid]["record"])).ok, gid
    assert not list((out / "games").glob("*.tmp")), "a half-written record was left"
    result = Tournament(load_config(file), RunOptions(InlineExecutor)).run()
    assert result.complete and result.games_done == len(schedule)
    final = read_journal(out)
    assert_schedule_played_once(final, schedule)
    for gid in stopped.done:
        assert final.results[gid] == stopped.results[gid], gid


def full_disk_then_resume(file: Path, out: Path, monkeypatch: pytest.MonkeyPatch,
                          done: int) -> str:
    """Run the tournament in this process until the write ``monkeypatch`` made fail stops it
    (the message names the folder and says how to go on); then, with the disk mended, check
    the journal and resume (:func:`assert_consistent_and_resumes`). Returns the message."""
    from arena.runner.play.ring import TournamentError

    with pytest.raises(TournamentError) as info:
        Tournament(load_config(file), RunOptions(InlineExecutor)).run()
    message = str(info.value)
    assert "is full" in message and str(out) in message and "resume" in message, message
    monkeypatch.undo()
    assert_consistent_and_resumes(file, out, done)
    return message


def small_tournament(tmp_path: Path) -> tuple[Path, Path]:
    """A tournament file of four quick games, and its output folder."""
    out = tmp_path / "out"
    return write_tournament(tmp_path, "disk.toml", name="disk", output=out, concurrency=1,
                            bots=[example("random-py"), example("greedy-py")], rounds=2), out


def test_a_journal_commit_on_a_full_disk_stops_the_run_and_the_game_is_not_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.runner.play.journal import Journal

    file, out = small_tournament(tmp_path)
    # From the third result on, the commit fails after part of its transaction was written,
    # as SQLite's does when the disk fills: none of it may stay.
    real = Journal.record_result
    calls = {"n": 0}

    def record_result(self: Journal, *args: Any) -> None:
        calls["n"] += 1
        if calls["n"] <= 2:
            return real(self, *args)
        with self._tx():
            self.db.execute("UPDATE pairings SET status = 'done' WHERE idx = ?",
                            (calls["n"] - 1,))
            raise sqlite3.OperationalError(DISK_FULL)

    monkeypatch.setattr(Journal, "record_result", record_result)
    assert DISK_FULL in full_disk_then_resume(file, out, monkeypatch, done=2)


def test_a_game_record_that_finds_the_disk_full_stops_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    file, out = small_tournament(tmp_path)
    # The third record is written aside, then cannot be put in place: the disk is full.
    real = os.replace

    def replace(src: Any, dst: Any) -> None:
        target = Path(dst)
        if target.suffix == ".json" and len(list(target.parent.glob("*.json"))) >= 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    assert "No space left" in full_disk_then_resume(file, out, monkeypatch, done=2)


def test_standings_that_find_the_disk_full_stop_the_run_and_a_resume_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    import arena.runner.play.tournament as tournament_module

    file, out = small_tournament(tmp_path)
    monkeypatch.setattr(tournament_module, "write_standings",
                        fails_after(0, tournament_module.write_standings,
                                    OSError(errno.ENOSPC, "No space left on device")))
    full_disk_then_resume(file, out, monkeypatch, done=len(schedule_of(file)))
    assert standings_doc(out)["meta"]["complete"] is True


def test_arena_run_on_a_full_disk_prints_one_line_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.runner.play.journal import Journal

    file, out = small_tournament(tmp_path)
    monkeypatch.setattr(Journal, "record_result",
                        fails_after(1, Journal.record_result, sqlite3.OperationalError(DISK_FULL)))
    with signals_kept():
        r = CliRunner().invoke(app, ["run", str(file), "--plain"])
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    errors = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "is full" in errors[0] and str(out) in r.output, r.output
    assert len(read_journal(out).done) == 1


def test_what_counts_as_a_full_disk(tmp_path: Path) -> None:
    import errno

    from arena.runner.game.disk import is_disk_full

    assert is_disk_full(sqlite3.OperationalError(DISK_FULL))
    assert is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert is_disk_full(OSError(errno.EDQUOT, "Disk quota exceeded"))
    assert not is_disk_full(OSError(errno.EACCES, "Permission denied"))
    assert not is_disk_full(sqlite3.OperationalError("no such table: results"))
    assert not is_disk_full(RuntimeError(DISK_FULL))
    # A plain I/O error of SQLite's counts only where the disk is nearly full, and this one
    # (the test's temporary folder) is not.
    io_error = sqlite3.OperationalError("disk I/O error")
    io_error.sqlite_errorcode = sqlite3.SQLITE_IOERR  # type: ignore[attr-defined]
    assert not is_disk_full(io_error, tmp_path)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 3 MiB tmpfs mounted for the test (root only; skipped where mounting is not allowed)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "small-disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(folder: Path, leave_bytes: int) -> Path:
    """A file that takes all the free space of ``folder``'s disk but ``leave_bytes``."""
    st = os.statvfs(folder)
    filler = folder / "filler"
    with filler.open("wb") as f:
        f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - leave_bytes))
    return filler


@pytest.mark.parametrize(("free_kb", "games_first", "rounds"), [(16, False, 1), (400, True, 6)],
                         ids=["full-from-the-start", "fills-mid-run"])
def test_a_run_on_a_really_full_disk_stops_with_one_message_then_resumes(
    tmp_path: Path, runs: Runs, small_disk: Path, free_kb: int, games_first: bool, rounds: int
) -> None:
    """On a real small disk (a tmpfs) with ``free_kb`` left: whichever write finds it full
    first (the journal as it is created or committed, a record, a bot's log), the run ends with
    one message, exit 2; every committed game is whole, and with the space back the same
    command finishes. Full from the start, no game is committed whatever the schedule's
    length, so one round (2 games, whose records alone, about 19 KB each, overflow the 16 KB
    left) is enough; filling mid-run needs the 12 games of 6 rounds to outgrow 400 KB."""
    out = small_disk / "out"
    file = write_tournament(tmp_path, "real-disk.toml", name="real-disk", output=out,
                            bots=[example("random-py"), example("greedy-py")], rounds=rounds)
    schedule = schedule_of(file)
    filler = fill(small_disk, free_kb * 1024)
    run = runs.complete(file)
    assert run.rc == 2, run.text
    assert "Traceback" not in run.text
    assert run.stderr.count("error:") == 1 and "is full" in run.stderr, run.stderr
    assert str(out) in run.stderr.replace("\n", "")
    filler.unlink()
    stopped = read_journal(out) if games_first else JournalView({}, {}, {})
    assert bool(stopped.done) is games_first and len(stopped.done) < len(schedule)
    for gid in stopped.done:
        assert verify(GameRecord.load(out / stopped.results[gid]["record"])).ok, gid
    resumed = runs.complete(file)
    assert resumed.rc == 0, resumed.text
    final = read_journal(out)
    assert_schedule_played_once(final, schedule)
    for gid in stopped.done:
        assert final.results[gid] == stopped.results[gid], gid


# ============================================================================ 8. config errors

GOOD = {"name": "cfg", "game": "stoneage", "format": "round-robin", "players": 2, "seed": 1}


def _bots(*names: str) -> str:
    return "".join(f'\n[[bots]]\npath = "{EXAMPLES / n}"\n' for n in names)


def _fields(**changes: Any) -> str:
    values = {**GOOD, **changes}
    return "\n".join(f"{k} = {_toml(v)}" for k, v in values.items() if v is not None) + "\n"


TWO = ("greedy-py", "random-py")

#: (case, TOML text with {tmp} for the test's folder, field named, words of the problem)
CONFIG_ERRORS = [
    ("unknown field", _fields(colour="red") + _bots(*TWO), "colour", ["unknown field"]),
    ("bad format name", _fields(format="knockout") + _bots(*TWO), "'format'",
     ["must be one of round-robin, swiss, gauntlet", "'knockout'"]),
    ("too many players", _fields(players=5) + _bots(*TWO), "'players'", ["2..4", "5"]),
    ("too few players", _fields(players=1) + _bots(*TWO), "'players'", ["2..4", "1"]),
    ("unknown game", _fields(game="chess") + _bots(*TWO), "'game'", ["unknown game 'chess'"]),
    ("missing bots", _fields(), "'bots'", ["must list the bots", "[[bots]]"]),
    ("duplicate bot names", _fields() + _bots("random-py", "random-py"), "'bots'",
     ["unique", "random-py"]),
    ("bot folder without manifest", _fields() + '[[bots]]\npath = "{tmp}/not-a-bot"\n'
     + _bots("random-py"), "'bots[0]'", ["no bot manifest", "not-a-bot"]),
    ("gauntlet without candidates", _fields(format="gauntlet") + _bots(*TWO, "random-js"),
     "'candidates'", ["required for a gauntlet"]),
    ("candidates not among the bots",
     _fields(format="gauntlet", candidates=["alpha-bot"]) + _bots(*TWO, "random-js"),
     "'candidates'", ["alpha-bot", "not among the bots"]),
    ("max_games with swiss", _fields(format="swiss", max_games=4) + _bots(*TWO), "'max_games'",
     ["swiss"]),
    ("rounds not a number", _fields(rounds="two") + _bots(*TWO), "'rounds'",
     ["whole number", "'two'"]),
    ("seed a float", _fields().replace("seed = 1", "seed = 1.5") + _bots(*TWO), "'seed'",
     ["whole number", "1.5"]),
    ("concurrency a bool", _fields(concurrency=True) + _bots(*TWO), "'concurrency'",
     ["whole number", "True"]),
    ("seat_rotation a string", _fields(seat_rotation="yes") + _bots(*TWO), "'seat_rotation'",
     ["true or false", "'yes'"]),
    ("candidates a string", _fields(format="gauntlet", candidates="greedy-py")
     + _bots(*TWO, "random-js"), "'candidates'", ["list of bot names"]),
    ("time control not a table", _fields(time_control=5) + _bots(*TWO), "'time_control'",
     ["table"]),
    ("time control wrong type", _fields() + '[time_control]\ndecision_ms = "fast"\n'
     + _bots(*TWO), "'time_control'", ["decision_ms", "whole number", "'fast'"]),
    ("time control unknown field", _fields() + "[time_control]\nthinking_ms = 3\n"
     + _bots(*TWO), "'time_control'", ["unknown", "thinking_ms"]),
    ("bad name", _fields(name="my tournament") + _bots(*TWO), "'name'", ["'my tournament'"]),
    ("too few bots", _fields(players=3) + _bots(*TWO), "'bots'", ["2 bots", "table of 3"]),
    ("invalid TOML", 'name = "cfg\ngame = "stoneage"\n', "", ["not valid TOML"]),
]


@pytest.mark.parametrize(("case", "text", "field_", "words"), CONFIG_ERRORS,
                         ids=[c[0] for c in CONFIG_ERRORS])
def test_config_errors_name_the_field_and_the_problem(
    tmp_path: Path, case: str, text: str, field_: str, words: list[str]
) -> None:
    (tmp_path / "not-a-bot").mkdir()
    file = tmp_path / "bad.toml"
    file.write_text(text.replace("{tmp}", str(tmp_path)), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(file)
    message = str(caught.value)
    assert message.startswith(f"{file}: "), message
    assert field_ in message, message
    for word in words:
        assert word in message, message

    with signals_kept():
        r = cli.invoke(app, ["run", str(file), "--plain"])
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    assert message in r.output, f"`arena run` printed:\n{r.output}\nnot:\n{message}"
    assert not (tmp_path / "leaderboards").exists()


def test_max_games_below_one_table_is_a_config_error_not_a_crash(tmp_path: Path) -> None:
    """A round-robin of 2-player tables with seat rotation plays a table as 2 games, so
    max_games = 1 cannot be met."""
    file = write_tournament(tmp_path, "small.toml", name="small", output=tmp_path / "out",
                            bots=[example("greedy-py"), example("random-py")], max_games=1)
    with pytest.raises(ConfigError, match="max_games"):
        load_config(file)
    with signals_kept():
        r = cli.invoke(app, ["run", str(file), "--plain"])
    assert r.exit_code == 2, r.output
    assert "max_games" in r.output and "Traceback" not in r.output


# ============================================================================ 9. another tournament


def test_a_different_tournament_in_an_existing_output_folder_is_refused(
    tmp_path: Path, runs: Runs
) -> None:
    out = tmp_path / "out"
    first = write_tournament(tmp_path, "first.toml", name="shared", output=out,
                             bots=[example("greedy-py"), example("random-py")])
    run = runs.complete(first)
    assert run.rc == 0, run.text

    def state() -> tuple[Any, ...]:
        view = read_journal(out)
        files = sorted((p.name, p.read_bytes()) for p in out.rglob("*") if p.is_file()
                       and not p.name.startswith("journal.sqlite") and p.name != LOCK_FILE)
        return view.meta, view.pairings, view.results, files

    before = state()
    other = write_tournament(tmp_path, "other.toml", name="shared", output=out, seed=12,
                             bots=[example("greedy-py"), example("random-py"),
                                   example("random-js")])
    refused = runs.complete(other)
    assert refused.rc == 2, refused.text
    assert "Traceback" not in refused.text
    assert "differs in: bots, seed" in refused.stderr
    assert str(out / "journal.sqlite") in refused.stderr
    assert state() == before

    with pytest.raises(JournalError, match=r"differs in: bots, seed\."):
        Tournament(load_config(other))
    assert state() == before

    # Concurrency and the output folder's name are not part of a tournament's identity: the
    # same tournament with another concurrency resumes (here: nothing left to play).
    same = write_tournament(tmp_path, "same.toml", name="shared", output=out, concurrency=1,
                            bots=[example("greedy-py"), example("random-py")])
    again = runs.complete(same)
    assert again.rc == 0, again.text
    assert "resuming shared" in again.stdout and "2/2 games, complete" in again.stdout
    meta, pairings, results, _ = state()
    assert (meta, pairings, results) == before[:3]
