"""Tournaments on a Dask cluster, end to end: a real `dask scheduler` process and real `arena
worker` processes on 127.0.0.1 (random free ports), `arena run --executor dask://...` as a real
process; nothing of the runner, the workers or Dask is mocked.

The cluster's processes carry a marker of their own in their environment (not the runs'), so
that a run's "nothing left" check is about the run; the workers' bots are found as the
workers' descendants (a sandboxed bot's environment is cleared). When a cluster stops, nothing
carrying its marker, and nothing in its processes' sessions, may be left.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("distributed", reason="the cluster tests need Dask: pip install "
                                          "-e '.[dev,cluster]' (./test installs it)")

from distributed import Client
from test_reproducible import key_files, standings_files
from test_tournament_e2e import (
    EXAMPLES,
    TAG_VAR,
    Proc,
    Runs,
    assert_nothing_left,
    assert_schedule_played_once,
    pid_alive,
    processes,
    read_journal,
    runs,
    schedule_of,
    signals_kept,
    tagged,
    try_read_journal,
    wait_until,
    write_tournament,
)
from typer.testing import CliRunner

from arena.cli.main import app
from arena.league.config import load_league
from arena.league.store import LeagueJournal
from arena.runner.game.record import GameRecord, verify

if TYPE_CHECKING:
    from test_league import Arena

__all__ = ["runs"]  # the fixture, shared with the tournament's end-to-end tests

# One test worker runs this module's tests one after another (`--dist loadgroup`), so that one
# cluster serves them all and stops with the module's last test.
pytestmark = pytest.mark.xdist_group("dask-cluster")

FAULTY = EXAMPLES.parent / "faulty"
#: How long a scheduler or a worker gets to come up.
UP_S = 30.0


@dataclass
class LocalCluster:
    """A `dask scheduler` and `arena worker` processes on 127.0.0.1, each the leader of its own
    session, all carrying the marker ``tag``."""

    tmp: Path
    tag: str = field(default_factory=lambda: f"cluster-{uuid.uuid4().hex}")
    address: str = ""
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def _start(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        self.tmp.mkdir(parents=True, exist_ok=True)
        log = (self.tmp / f"{name}.log").open("wb")
        proc = subprocess.Popen(argv, env={**os.environ, TAG_VAR: self.tag}, cwd=self.tmp,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)
        log.close()
        self.procs[name] = proc
        return proc

    def log(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(encoding="utf-8", errors="replace")

    def start_scheduler(self, *options: str) -> None:
        """`dask scheduler` with ``options`` besides its address and file."""
        file = self.tmp / "scheduler.json"
        self._start("scheduler", [sys.executable, "-m", "distributed.cli.dask_scheduler",
                                  "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                  "--scheduler-file", str(file), *options])

        def address() -> str | None:
            if self.procs["scheduler"].poll() is not None:
                pytest.fail(f"the scheduler ended:\n{self.log('scheduler')}")
            with contextlib.suppress(OSError, ValueError, KeyError):
                return str(json.loads(file.read_text())["address"])
            return None

        self.address = wait_until("the scheduler is up", address, UP_S)

    def start_worker(self, name: str, slots: int = 1, prelude: str = "",
                     options: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
        """An `arena worker` with ``options``; ``prelude``: Python run in its process before
        the command."""
        code = f"{prelude}\nfrom arena.cli.main import main\nmain()\n"
        return self._start(name, [sys.executable, "-c", code, "worker", self.address,
                                  "--slots", str(slots), "--name", name,
                                  "--cache", str(self.tmp / f"cache-{name}"), *options])

    def wait_serving(self, *names: str) -> None:
        for name in names:
            def serving(name: str = name) -> bool:
                if self.procs[name].poll() is not None:
                    pytest.fail(f"worker {name} ended:\n{self.log(name)}")
                return f"arena worker {name} " in self.log(name)

            wait_until(f"worker {name} serves", serving, UP_S)

    @property
    def dask_address(self) -> str:
        return "dask://" + self.address.removeprefix("tcp://")

    def worker_pid(self, name: str) -> int:
        """The process of worker ``name`` that plays (`arena worker` forks it and stays as
        its supervisor)."""
        supervisor = self.procs[name].pid
        return wait_until(f"worker {name}'s process", lambda: next(
            (pid for pid, p in tagged(self.tag).items() if p.ppid == supervisor), None), 10)

    def bots(self) -> dict[int, Proc]:
        """Live processes of the cluster other than the scheduler and the workers."""
        procs = tagged(self.tag)
        own = {p.pid for p in self.procs.values()}
        own |= {pid for pid, p in procs.items() if p.ppid in own and self._worker(pid)}
        return {pid: p for pid, p in procs.items() if pid not in own}

    def running_in(self, folder: Path) -> list[int]:
        """Live processes working in ``folder`` or below: a bot in a worker's cache, even one
        that left the cluster's process tree (its environment, and so the marker, cleared)."""
        return [p.pid for p in processes() if _cwd(p.pid).startswith(f"{folder}/")]

    def _worker(self, pid: int) -> bool:
        """Whether ``pid`` runs `arena worker` (a worker's forked process does)."""
        with contextlib.suppress(OSError):
            return b"worker" in Path(f"/proc/{pid}/cmdline").read_bytes()
        return False

    def kill(self, name: str) -> None:
        proc = self.procs[name]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def stop(self) -> None:
        """Stop the workers (SIGTERM, as a service manager does), then the scheduler; then
        nothing of the cluster may be left."""
        names = [n for n in self.procs if n != "scheduler"] + ["scheduler"]
        for name in names:
            proc = self.procs[name]
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=10)
                    pytest.fail(f"{name} did not stop on SIGTERM:\n{self.log(name)}")
        assert_nothing_left(self.tag, tuple(p.pid for p in self.procs.values()))
        assert not self.running_in(self.tmp), "a bot outlived its worker"

    def kill_everything(self) -> None:
        for proc in self.procs.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        for p in tagged(self.tag).values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGKILL)


@contextlib.contextmanager
def local_cluster(tmp: Path, workers: int) -> Iterator[LocalCluster]:
    cluster = LocalCluster(tmp)
    try:
        cluster.start_scheduler()
        names = [f"w{i}" for i in range(workers)]
        for name in names:
            cluster.start_worker(name)
        cluster.wait_serving(*names)
        yield cluster
        cluster.stop()
    finally:
        cluster.kill_everything()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A scheduler and two workers of one slot each, shared by this module's tests (which
    one test worker runs together: see ``pytestmark``)."""
    with local_cluster(tmp_path_factory.mktemp("cluster"), workers=2) as c:
        yield c


# ---------------------------------------------------------------------------- bots


def exec_bot(folder: Path) -> Path:
    """random-py under another name, started through an executable script of its folder
    (the command is ./start): it plays only if the script arrives executable."""
    bot = folder / "exec-py"
    bot.mkdir(parents=True)
    shutil.copy(EXAMPLES / "random-py" / "bot.py", bot / "bot.py")
    (bot / "bot.toml").write_text('name = "exec-py"\nversion = "1.0"\nlanguage = "python"\n'
                                  'command = ["./start", "{python}"]\n', encoding="utf-8")
    start = bot / "start"
    start.write_text('#!/bin/sh\nexec "$1" bot.py\n', encoding="utf-8")
    start.chmod(0o755)
    return bot


def sleepy_bot(folder: Path, name: str, ms: int) -> Path:
    """A random bot that takes ``ms`` per decision: its games last long enough to be caught
    in progress, and still follow from their seeds alone."""
    bot = folder / name
    bot.mkdir(parents=True)
    (bot / "bot.py").write_text(
        "import time\n"
        "from arena.protocol.client import run\n"
        "from arena.protocol.reference_bot import RandomBot\n\n"
        "class Sleepy(RandomBot):\n"
        "    def choose(self, observation, legal_actions, time_left_ms):\n"
        f"        time.sleep({ms / 1000})\n"
        "        return super().choose(observation, legal_actions, time_left_ms)\n\n"
        f"run(Sleepy({name!r}, '1.0'))\n", encoding="utf-8")
    (bot / "bot.toml").write_text(f'name = "{name}"\nversion = "1.0"\nlanguage = "python"\n'
                                  'command = ["{python}", "bot.py"]\n', encoding="utf-8")
    return bot


def standings(folder: Path) -> dict[str, object]:
    return json.loads((folder / "standings.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------- the tests


def test_a_cluster_run_gives_the_local_runs_standings(
    tmp_path: Path, runs: Runs, cluster: LocalCluster
) -> None:
    """The same file, run locally and on the cluster by two organisers with key files of
    their own: the same games, the same standings files byte for byte. An executable bot
    arrives executable, mcts-py's needed folder arrives beside it, and the records and logs
    come home to the organiser's folder."""
    bots = [EXAMPLES / "greedy-py", EXAMPLES / "random-py", exec_bot(tmp_path / "bots")]
    common = {"name": "both", "bots": bots, "seed": 5}
    local = write_tournament(tmp_path, "local.toml", output=tmp_path / "local", **common)
    there = write_tournament(tmp_path, "cluster.toml", output=tmp_path / "cluster", **common)
    schedule = schedule_of(there)

    here_env, there_env = key_files(tmp_path)
    local_run = runs.start(local, env=here_env)  # beside the cluster's run
    run = runs.start(there, "--executor", cluster.dask_address, env=there_env)
    runs.finish(local_run, run)
    assert local_run.rc == 0, local_run.text
    assert run.rc == 0, run.text
    assert f"{len(schedule)}/{len(schedule)} games, complete" in run.stdout

    view = read_journal(tmp_path / "cluster")
    assert_schedule_played_once(view, schedule)
    assert view.outcomes() == read_journal(tmp_path / "local").outcomes()
    assert standings_files(tmp_path / "cluster") == standings_files(tmp_path / "local")
    for gid, row in view.results.items():
        assert verify(GameRecord.load(tmp_path / "cluster" / row["record"])).ok, gid
    assert {p["started"] for p in view.pairings.values()} == {1}
    # Kept processes' logs, one folder per worker slot, each game's part headed by its id.
    logs = "".join(p.read_text(encoding="utf-8")
                   for p in (tmp_path / "cluster" / "logs").glob("w*.0/exec-py-*.log"))
    assert logs.count("[arena: game ") == sum("exec-py" in p.bots for p in schedule)
    wait_until("the workers' bots have stopped", lambda: not cluster.bots(), 10)


def test_with_ship_bots_false_the_workers_use_the_bots_where_they_are(
    tmp_path: Path, runs: Runs, cluster: LocalCluster
) -> None:
    """A shared file system: the workers play the bots from the organiser's paths, and no
    package of them reaches a worker's cache."""
    bots = []
    for name in ("shared-a", "shared-b"):  # bots of their own: packages no test sent before
        bot = shutil.copytree(EXAMPLES / "random-py", tmp_path / "bots" / name)
        toml = (bot / "bot.toml").read_text(encoding="utf-8")
        (bot / "bot.toml").write_text(toml.replace('"random-py"', f'"{name}"'),
                                      encoding="utf-8")
        bots.append(bot)
    file = write_tournament(tmp_path, "t.toml", name="shared", bots=bots,
                            output=tmp_path / "out")
    file.write_text(file.read_text(encoding="utf-8") + "\n[executor]\nkind = \"dask\"\n"
                    f"address = \"{cluster.address}\"\nship_bots = false\n", encoding="utf-8")

    def cached() -> set[Path]:
        return {p for name in ("w0", "w1") for p in (cluster.tmp / f"cache-{name}").rglob("*")}

    before = cached()
    run = runs.complete(file)
    assert run.rc == 0 and "2/2 games, complete" in run.stdout, run.text
    assert cached() == before


def test_the_bots_are_checked_on_the_workers_so_the_organiser_needs_no_runtime_or_sandbox(
    tmp_path: Path, runs: Runs, cluster: LocalCluster
) -> None:
    """The bots' start check runs where the games run. An organiser whose PATH has neither
    Node.js nor bubblewrap cannot run the JavaScript bot, nor any bot sandboxed, itself: it
    refuses a local run in one line, and plays the same file on the cluster. A bot that
    cannot start on the workers stops the run before any game, the worker named."""
    bots = [EXAMPLES / "random-js", EXAMPLES / "random-py"]
    bare = {"PATH": str(Path(sys.executable).parent)}  # no /usr/bin: no node, no bwrap
    assert shutil.which("node", path=bare["PATH"]) is None
    assert shutil.which("bwrap", path=bare["PATH"]) is None
    local = write_tournament(tmp_path, "local.toml", name="bare", bots=bots,
                             output=tmp_path / "local")
    refused = runs.complete(local, env=bare)
    assert refused.rc == 2 and "bwrap" in refused.stderr, refused.text
    assert not (tmp_path / "local" / "games").exists()

    there = write_tournament(tmp_path, "there.toml", name="bare", bots=bots,
                             output=tmp_path / "there")
    run = runs.complete(there, "--executor", cluster.dask_address, env=bare)
    assert run.rc == 0, run.text
    assert_schedule_played_once(read_journal(tmp_path / "there"), schedule_of(there))
    assert not (tmp_path / "there" / "logs" / "start-check").exists()  # not checked here

    broken = write_tournament(tmp_path, "broken.toml", name="broken",
                              bots=[EXAMPLES / "random-py", FAULTY / "crash-start"],
                              output=tmp_path / "broken")
    stopped = runs.complete(broken, "--executor", cluster.dask_address)
    assert stopped.rc == 2, stopped.text
    assert "1 bot of broken cannot start, so no game was played" in stopped.stderr
    assert re.search(r"on worker w[01] \(tcp://[^)]*\): faulty-crash-start cannot start",
                     stopped.stderr), stopped.stderr
    assert "Traceback" not in stopped.text
    assert not read_journal(tmp_path / "broken").done


@pytest.mark.slow
def test_a_league_plays_on_the_cluster_and_ships_a_bot_added_while_it_runs(
    tmp_path: Path, cluster: LocalCluster
) -> None:
    """`arena league run --executor dask://...`: the league's games are played by the
    workers, and a bot version added while the league runs is packed and sent then."""
    from test_league import Arena, add, done_games, init
    from test_tournament_e2e import random_py_twin

    arena = Arena(tmp_path)
    try:
        league = tmp_path / "lg"
        init(arena, league, "--players", "2")
        add(arena, league, EXAMPLES / "random-py")
        add(arena, league, EXAMPLES / "greedy-py")
        run = arena.start("league", "run", str(league), "--plain", "--executor",
                          cluster.dask_address)
        wait_until("games played on the cluster", lambda: len(done_games(league)) >= 2, 60, run)
        twin = add(arena, league, random_py_twin(tmp_path))
        wait_until("the bot added while running has played on the cluster",
                   lambda: any(twin in seats for _, seats in done_games(league)), 60, run)
        check_a_bot_is_validated_on_the_cluster(arena, league, cluster)
        run.interrupt()
        assert run.wait(60) == 130, run.text
        assert "Traceback" not in run.text
        cached = {p.name for p in (cluster.tmp).glob("cache-w*/*")}
        assert len(cached) >= 3, cached  # each version's package, unpacked on a worker
        assert_nothing_left(arena.tag, sessions=(run.pid,))
    finally:
        arena.close()


def check_a_bot_is_validated_on_the_cluster(arena: Arena, league: Path,
                                            cluster: LocalCluster) -> None:
    """`arena league add --executor dask://...` runs the checks on a worker: an organiser
    whose PATH has neither Node.js nor bubblewrap adds the JavaScript bot, the checks' logs
    come back into the league's folder, and a bot that fails is refused with its log's end."""
    bare = {"PATH": str(Path(sys.executable).parent)}  # no /usr/bin: no node, no bwrap
    here = arena("league", "add", str(league), str(EXAMPLES / "random-js"), env=bare)
    assert here.returncode != 0 and "added" not in here.stdout  # not checkable here
    js = arena("league", "add", str(league), str(EXAMPLES / "random-js"), "--executor",
               cluster.dask_address, env=bare)
    assert js.returncode == 0, js.stdout + js.stderr
    assert re.search(r"pass\s+cluster\s+checked on worker w[01] ", js.stdout), js.stdout
    assert re.search(r"pass\s+game\s+\d+ decisions", js.stdout), js.stdout
    assert re.search(r"seed \d+ was drawn at random", js.stdout), js.stdout  # on a worker too
    assert "added random-js@1.0" in js.stdout
    logs = list((league / "logs" / "validation").rglob("*random-js*.log"))
    assert logs and sum(p.stat().st_size for p in logs) > 0, logs  # the bot's own output
    broken = arena("league", "add", str(league), str(FAULTY / "crash-start"), "--executor",
                   cluster.dask_address, env=bare)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "FAIL" in broken.stdout and "exiting with status 1 before hello" in broken.stdout
    assert "did not pass its validation: not added" in broken.stderr
    journal = LeagueJournal(load_league(league), readonly=True)
    try:
        keys = {e.key for e in journal.entrants()}
    finally:
        journal.close()
    assert "random-js@1.0" in keys and not any(k.startswith("faulty") for k in keys)


def test_ctrl_c_twice_abandons_the_games_on_the_workers(
    tmp_path: Path, runs: Runs, cluster: LocalCluster
) -> None:
    """The workers kill the bots of the games in progress; nothing of them is recorded."""
    bots = [sleepy_bot(tmp_path / "bots", "slow-a", 20), sleepy_bot(tmp_path / "bots",
                                                                    "slow-b", 20)]
    out = tmp_path / "out"
    file = write_tournament(tmp_path, "t.toml", name="abandoned", bots=bots, output=out)
    run = runs.start(file, "--executor", cluster.dask_address)
    def both_playing() -> bool:
        view = try_read_journal(out)
        started = [p for p in view.pairings.values() if p["started"]] if view else []
        return len(started) == 2 and len(cluster.bots()) >= 4

    wait_until("a game in progress on each worker", both_playing, 30, run)
    run.interrupt()
    # Again once the first is said (two SIGINTs before Python's handler runs are one).
    wait_until("the first Ctrl-C is said", lambda: "finishing the games" in run.stderr, 10, run)
    run.interrupt()
    assert run.wait(30) == 130, run.text
    assert "abandoning the games in progress" in run.stderr
    wait_until("the workers' bots are gone", lambda: not cluster.bots(), 5)
    runs.check_nothing_left(sessions=(run.pid,))
    view = read_journal(out)
    assert not view.done and {p["status"] for p in view.pairings.values()} == {"scheduled"}


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_game_and_leaves_nothing(
    tmp_path: Path, runs: Runs
) -> None:
    """Two workers; one is SIGKILLed while it plays: Dask gives its game to the other, the
    journal counts that attempt, every game is recorded once, the standings are the local
    run's, and the killed worker's bots die with it."""
    bots = [sleepy_bot(tmp_path / "bots", "sleepy-a", 1), sleepy_bot(tmp_path / "bots",
                                                                    "sleepy-b", 1),
            EXAMPLES / "random-py"]
    common = {"name": "killed", "bots": bots, "seed": 9}
    local = write_tournament(tmp_path, "local.toml", output=tmp_path / "local", **common)
    there = write_tournament(tmp_path, "cluster.toml", output=tmp_path / "cluster", **common)
    schedule = schedule_of(there)
    local_run = runs.start(local)  # while the cluster starts, and beside the cluster's run

    with local_cluster(tmp_path / "c", workers=2) as cluster:
        victim_pid = cluster.worker_pid("w0")
        run = runs.start(there, "--executor", cluster.dask_address)
        with Client(cluster.address, set_as_default=False, timeout="10s") as client:
            victim = next(a for a, w in client.scheduler_info()["workers"].items()
                          if w["name"] == "w0")

            def playing() -> list[int] | None:
                """The victim's bots, if a game has been running on it for a while (a first
                game on a loaded machine may still be setting up: no bot yet; the bots' start
                checks, tasks too, come before any game)."""
                def games() -> set[str]:
                    return {str(key) for key in client.processing([victim]).get(victim, ())
                            if str(key).startswith("arena-game-")}

                before = games()
                time.sleep(0.15)
                both = before & games()
                doomed = [pid for pid, p in cluster.bots().items()
                          if victim_pid in _ancestors(pid)]
                return doomed if both and doomed else None

            doomed = wait_until("a game in progress on the victim, its bots started",
                                playing, 60, run)
        os.kill(victim_pid, signal.SIGKILL)
        # Its bots die with it: by the parent-death signal of the slot thread that started
        # them, or, a sandbox caught while being set up, killed by the worker's supervisor.
        wait_until("the killed worker's bots are gone",
                   lambda: not set(doomed) & set(cluster.bots()), 5)
        assert cluster.procs["w0"].wait(15) == 128 + signal.SIGKILL
        assert "its worker process was killed (SIGKILL)" in cluster.log("w0")
        assert not cluster.running_in(tmp_path / "c" / "cache-w0"), "a bot outlived w0"
        runs.finish(run, local_run, timeout=90)
        assert local_run.rc == 0, local_run.text
        assert run.rc == 0, run.text + cluster.log("w1")

        view = read_journal(tmp_path / "cluster")
        assert_schedule_played_once(view, schedule)
        started = {g: p["started"] for g, p in view.pairings.items()}
        assert all(n >= 1 for n in started.values())
        assert sum(started.values()) > len(schedule), "the lost attempt was not counted"
        assert standings(tmp_path / "cluster") == standings(tmp_path / "local")
        wait_until("the surviving worker's bots have stopped", lambda: not cluster.bots(), 10)


def _cwd(pid: int) -> str:
    with contextlib.suppress(OSError):
        return os.readlink(f"/proc/{pid}/cwd")
    return ""


def _ancestors(pid: int) -> list[int]:
    out = []
    with contextlib.suppress(OSError, ValueError, IndexError):
        while pid > 1:
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat[stat.rfind(")") + 2:].split()[1])
            out.append(pid)
    return out


@pytest.mark.slow
def test_no_worker_and_a_worker_of_another_version_are_one_line_each(
    tmp_path: Path, runs: Runs
) -> None:
    """With no worker connected the run gives up after its wait. A worker whose arena reports
    another version (set in that worker's own process) that joins during a run is left out,
    said once, and the run goes on on the others, voiding nothing; one that is there when a
    run starts is refused, naming the worker and both versions, before any game."""
    bots = [EXAMPLES / "greedy-py", EXAMPLES / "random-py"]
    out = tmp_path / "out"
    cluster = LocalCluster(tmp_path / "c")
    try:
        cluster.start_scheduler()
        # Two workers wait, all imported, each for its gate: one of them pretends to another
        # version of arena.
        gates = {name: tmp_path / f"gate-{name}" for name in ("good", "odd")}
        for name, pretend in (("good", ""), ("odd", "arena.__version__ = '9.9.9'\n")):
            cluster.start_worker(name, prelude=(
                "import os, time, arena, arena.cli.main, arena.runner.cluster.worker, distributed\n"
                f"{pretend}while not os.path.exists({str(gates[name])!r}):\n"
                "    time.sleep(0.02)"))
        file = write_tournament(tmp_path, "t.toml", name="versions", bots=bots, output=out)
        file.write_text(file.read_text(encoding="utf-8") + "\n[executor]\nkind = \"dask\"\n"
                        f"address = \"{cluster.address}\"\nwait_for_workers_s = 1\n",
                        encoding="utf-8")
        lonely = runs.complete(file)
        assert lonely.rc == 2, lonely.text
        assert (f"no worker connected to the Dask scheduler at {cluster.address} within 1 s: "
                f"start one with `arena worker {cluster.address}`") in lonely.stderr
        assert "Traceback" not in lonely.text and not out.exists()

        # The odd worker joins once a run on the good one plays.
        gates["good"].touch()
        cluster.wait_serving("good")
        sleepy = [sleepy_bot(tmp_path / "bots", f"sleepy-{c}", 1) for c in "abc"]
        late = write_tournament(tmp_path, "late.toml", name="late", output=tmp_path / "late",
                                bots=sleepy, max_games=4)
        run = runs.start(late, "--executor", cluster.dask_address)

        def playing() -> bool:
            view = try_read_journal(tmp_path / "late")
            return view is not None and any(p["started"] for p in view.pairings.values())

        wait_until("a game in progress", playing, 30, run)
        gates["odd"].touch()
        cluster.wait_serving("odd")
        said = "worker odd (tcp://"
        wait_until("the odd worker left out", lambda: said in run.stderr, 10, run)
        left = len(schedule_of(late)) - len(read_journal(tmp_path / "late").done)
        assert run.wait(60) == 0, run.text
        assert left >= 2, "the run was over before the odd worker could be given a game"
        notice = [line for line in run.stderr.splitlines() if said in line]
        assert len(notice) == 1, run.stderr
        assert ("has arena 9.9.9, this machine 0.1.0: install the same versions on every "
                "machine of the cluster; until then it is given no game") in notice[0]
        view = read_journal(tmp_path / "late")
        assert_schedule_played_once(view, schedule_of(late))
        assert {p["started"] for p in view.pairings.values()} == {1}
        assert "void" not in run.stdout

        refused = runs.complete(file)
        assert refused.rc == 2, refused.text
        lines = [line for line in refused.stderr.splitlines() if line.strip()]
        assert lines == [lines[0]] and lines[0].startswith("error: worker odd (tcp://"), lines
        assert "has arena 9.9.9, this machine 0.1.0" in lines[0]
        assert "install the same versions" in lines[0]
        assert not out.exists()

        # Its supervisor killed outright, the worker process sees it and stops by itself.
        worker = cluster.worker_pid("odd")
        cluster.kill("odd")
        wait_until("the orphaned worker process stops", lambda: not pid_alive(worker), 20)
        cluster.stop()
    finally:
        cluster.kill_everything()


def test_an_unreachable_scheduler_is_one_line(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.runner.cluster.connect.CONNECT_TIMEOUT_S", 1)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    file = write_tournament(tmp_path, "t.toml", name="away", output=tmp_path / "out",
                            bots=[EXAMPLES / "greedy-py", EXAMPLES / "random-py"])
    with signals_kept():
        r = CliRunner().invoke(app, ["run", str(file), "--plain",
                                     "--executor", f"dask://127.0.0.1:{port}"])
    assert r.exit_code == 2, r.output
    assert r.output.strip().splitlines() == [
        f"error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port} within 1 s: start "
        "one there (dask scheduler), or check the address and that its port is open to this "
        "machine"]
    assert not (tmp_path / "out").exists()
