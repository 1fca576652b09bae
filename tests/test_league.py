"""The league, end to end: `arena league run` as real processes, bots in their sandboxes,
the league's SQLite journal read back to check what the commands said. The commands that run
and end are invoked in the test's process (each of them once as a real process too).

A league run is followed through its journal; its processes carry a marker (as the
tournament's end-to-end tests' do), so that nothing of it may be left once it ends, however it
ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import served
from test_tournament_e2e import (
    EXAMPLES,
    TAG_VAR,
    Run,
    assert_nothing_left,
    random_py_twin,
    tagged,
    wait_until,
)
from typer.testing import CliRunner

from arena.cli.main import app
from arena.league.config import load_league
from arena.league.state import league_ratings
from arena.league.store import LeagueJournal
from arena.stats.common import rounded

FAULTY = EXAMPLES.parent / "faulty"
FAST = ["--decision-ms", "2000", "--bank-ms", "20000"]


class Arena:
    """`arena` commands for one test, every process carrying this test's marker."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.tag = f"league-{uuid.uuid4().hex}"
        self.runs: list[Run] = []

    def env(self) -> dict[str, str]:
        return {**os.environ, TAG_VAR: self.tag}

    def __call__(self, *args: str, input: str | None = None, timeout: float = 120,
                 env: dict[str, str] | None = None,
                 real: bool = False) -> subprocess.CompletedProcess[str]:
        """A command that runs and ends: in this process through typer's CliRunner (what a
        process would print and exit with, without a process's start), or as a real process
        if ``real`` or given an ``env`` (a process's own PATH, for one)."""
        if real or env is not None:
            return subprocess.run([sys.executable, "-m", "arena", *args],
                                  env={**self.env(), **(env or {})},
                                  cwd=self.tmp, capture_output=True, text=True, input=input,
                                  timeout=timeout)
        # A command turns SIGTERM into an exit for its own process: not for the test's after it.
        on_sigterm = signal.getsignal(signal.SIGTERM)
        try:
            with contextlib.chdir(self.tmp):
                r = CliRunner().invoke(app, list(args), input=input, env={TAG_VAR: self.tag},
                                       catch_exceptions=False)
        finally:
            signal.signal(signal.SIGTERM, on_sigterm)
        return subprocess.CompletedProcess(["arena", *args], r.exit_code, r.stdout, r.stderr)

    def start(self, *args: str) -> Run:
        n = len(self.runs)
        out, err = self.tmp / f"run{n}.stdout", self.tmp / f"run{n}.stderr"
        with out.open("wb") as fo, err.open("wb") as fe:
            proc = subprocess.Popen([sys.executable, "-m", "arena", *args], env=self.env(),
                                    cwd=self.tmp, stdin=subprocess.DEVNULL, stdout=fo,
                                    stderr=fe, start_new_session=True)
        run = Run(proc, out, err, self.tag)
        self.runs.append(run)
        return run

    def close(self) -> None:
        for run in self.runs:
            run.kill()
        for p in tagged(self.tag).values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGKILL)


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    a = Arena(tmp_path)
    try:
        yield a
    finally:
        a.close()


def journal_of(folder: Path) -> LeagueJournal:
    return LeagueJournal(load_league(folder), readonly=True)


def done_games(folder: Path) -> list[tuple[str, tuple[str, ...]]]:
    """The finished games (id, seats), in the order committed."""
    try:
        db = sqlite3.connect(f"file:{folder / 'journal.sqlite'}?mode=ro", uri=True, timeout=5)
        rows = db.execute("SELECT p.game_id, p.bots FROM results r JOIN pairings p "
                          "USING (game_id) ORDER BY r.rowid").fetchall()
        db.close()
    except sqlite3.Error:
        return []
    return [(g, tuple(json.loads(b))) for g, b in rows]


def add(arena: Arena, league: Path, bot: Path) -> str:
    r = arena("league", "add", str(league), str(bot))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "added " in r.stdout
    return r.stdout.split("added ", 1)[1].split()[0]


def assert_journal_is_the_truth(arena: Arena, league: Path) -> None:
    """What `league standings --json` says is what the journal's games give, each game once,
    each with its record."""
    r = arena("league", "standings", str(league), "--json")
    assert r.returncode == 0, r.stderr
    shown = json.loads(r.stdout)
    journal = journal_of(league)
    try:
        tracker, outcomes = league_ratings(journal)
    finally:
        journal.close()
    assert shown["games"] == len(outcomes)
    assert shown["standings"] == json.loads(json.dumps(rounded(tracker.standings().to_dict())))
    ids = [g for g, _ in done_games(league)]
    assert len(ids) == len(set(ids)) == len(outcomes)
    assert sorted(p.stem for p in (league / "games").glob("*.json")) == sorted(ids)


def test_a_league_takes_bots_while_it_runs_survives_a_sigkill_retires_and_removes(
    tmp_path: Path, arena: Arena
) -> None:
    league = tmp_path / "lg"
    r = arena("league", "init", str(league), "--game", "stoneage", "--players", "2",
              "-j", "2", *FAST, real=True)
    assert r.returncode == 0, r.stderr
    keys = [add(arena, league, EXAMPLES / b) for b in ("random-py", "greedy-py", "random-js")]
    assert keys == ["random-py@1.0", "greedy-py@1.0", "random-js@1.0"]

    run = arena.start("league", "run", str(league), "--plain")
    wait_until("a few games played", lambda: len(done_games(league)) >= 6, 60, run)
    twin = add(arena, league, random_py_twin(tmp_path))
    wait_until("the bot added while running has played",
               lambda: any(twin in seats for _, seats in done_games(league)), 60, run)
    os.kill(run.pid, signal.SIGKILL)
    run.proc.wait(10)
    assert_nothing_left(arena.tag, sessions=(run.pid,))
    before = done_games(league)

    again = arena.start("league", "run", str(league), "--plain", "--games", "6")
    assert again.wait(90) == 0, again.text
    after = done_games(league)
    assert after[:len(before)] == before  # kept as they were
    assert len(after) == len(before) + 6
    assert "6 games this run" in again.stdout

    r = arena("league", "retire", str(league), "random-py", real=True)
    assert r.returncode == 0 and "random-py@1.0 retired" in r.stdout, r.stderr
    last = arena.start("league", "run", str(league), "--plain", "--games", "4")
    assert last.wait(90) == 0, last.text
    newest = done_games(league)[len(after):]
    assert len(newest) == 4 and not any("random-py@1.0" in seats for _, seats in newest)
    assert_journal_is_the_truth(arena, league)
    r = arena("league", "standings", str(league), real=True)
    assert "random-py@1.0: retired" in r.stdout
    assert_nothing_left(arena.tag, sessions=tuple(x.pid for x in arena.runs))

    # Removing asks first; then the version, its snapshot and its games are gone, and the
    # ratings are those of the games left.
    games = done_games(league)
    theirs = [g for g, seats in games if "random-js@1.0" in seats]
    assert theirs, games
    r = arena("league", "remove", str(league), "random-js", input="n\n", real=True)
    assert r.returncode == 1 and "nothing removed" in r.stderr
    assert done_games(league) == games
    r = arena("league", "remove", str(league), "random-js", input="y\n")
    assert r.returncode == 0, r.stderr
    assert f"removed random-js@1.0 and its {len(theirs)} games" in r.stdout
    assert done_games(league) == [(g, s) for g, s in games if g not in theirs]
    assert not (league / "bots" / "random-js").exists()
    assert_journal_is_the_truth(arena, league)
    shown = json.loads(arena("league", "standings", str(league), "--json").stdout)
    assert "random-js@1.0" not in [b["name"] for b in shown["standings"]["bots"]]


def init(arena: Arena, league: Path, *args: str) -> None:
    r = arena("league", "init", str(league), "--game", "stoneage", *args, *FAST)
    assert r.returncode == 0, r.stderr


def version_of(bot: Path, folder: Path, version: str, name: str | None = None) -> Path:
    """A copy of ``bot`` in ``folder`` with another version (and, if given, name)."""
    copy = shutil.copytree(bot, folder / f"{bot.name}-{version}")
    toml = (copy / "bot.toml").read_text(encoding="utf-8")
    toml = toml.replace('version = "1.0"', f'version = "{version}"')
    if name is not None:
        toml = toml.replace(f'name = "{bot.name}"', f'name = "{name}"')
    (copy / "bot.toml").write_text(toml, encoding="utf-8")
    return copy


def test_a_bot_that_fails_its_validation_changes_nothing_and_a_changed_bot_needs_a_version(
    tmp_path: Path, arena: Arena
) -> None:
    league = tmp_path / "lg"
    init(arena, league)
    # With no bot, a league that plays on waits for one, and says so.
    waiting = arena.start("league", "run", str(league), "--plain")
    wait_until("the wait said", lambda: "waiting: fewer active bot versions than the 2 a "
               "table needs" in waiting.stderr, 30, waiting)
    os.kill(waiting.pid, signal.SIGINT)
    assert waiting.wait(30) == 130, waiting.text
    r = arena("league", "add", str(league), str(FAULTY / "crash-start"), real=True)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAIL" in r.stdout and "did not pass its validation: not added" in r.stderr
    assert not (league / "bots").exists()
    journal = journal_of(league)
    assert journal.entrants() == []
    journal.close()

    # A version is a folder's name in the league: one that climbs out of it is refused
    # before anything is run or written.
    climber = shutil.copytree(EXAMPLES / "random-py", tmp_path / "climber")
    toml = (climber / "bot.toml").read_text(encoding="utf-8")
    (climber / "bot.toml").write_text(toml.replace('version = "1.0"',
                                                   'version = "../../../escaped"'))
    r = arena("league", "add", str(league), str(climber))
    assert r.returncode == 2 and "a league needs the version to be" in r.stderr, r.stderr
    assert not list(tmp_path.rglob("escaped*")) and not (league / "bots").exists()

    mine = shutil.copytree(EXAMPLES / "random-py", tmp_path / "mine")
    assert add(arena, league, mine) == "random-py@1.0"
    again = arena("league", "add", str(league), str(mine))
    assert again.returncode == 2 and "random-py@1.0 is in the league already" in again.stderr
    (mine / "bot.py").write_text((mine / "bot.py").read_text() + "\n# changed\n")
    changed = arena("league", "add", str(league), str(mine))
    assert changed.returncode == 2
    assert "with other files: give the changed bot a new version" in changed.stderr
    # The snapshot is what was added, not what the folder holds now.
    journal = journal_of(league)
    (entrant,) = journal.entrants()
    journal.close()
    assert "# changed" not in (league / entrant.folder / "bot.py").read_text()


def test_two_versions_of_one_bot_meet_and_a_league_folder_answers_stats_and_compare(
    tmp_path: Path, arena: Arena
) -> None:
    league = tmp_path / "lg"
    init(arena, league, "--players", "2")
    add(arena, league, EXAMPLES / "random-py")
    add(arena, league, version_of(EXAMPLES / "random-py", tmp_path, "2.0"))
    run = arena.start("league", "run", str(league), "--plain", "--games", "4")
    assert run.wait(60) == 0, run.text
    games = done_games(league)
    assert len(games) == 4
    assert all(set(seats) == {"random-py@1.0", "random-py@2.0"} for _, seats in games)
    # Played as duplicate sets: both seat orders of each table, on one seed.
    assert {g.rsplit("-s", 1)[0] for g, _ in games} == {"t000001", "t000002"}
    record = json.loads((league / "games" / f"{games[0][0]}.json").read_text())
    assert {p["bot"] for p in record["seats"]} == {"random-py@1.0", "random-py@2.0"}

    r = arena("compare", str(league), "random-py@2.0", "random-py@1.0", "--json", real=True)
    assert r.returncode == 0, r.stderr
    figures = json.loads(r.stdout)
    assert figures["games"] == 4 and figures["pairs"] == 2
    r = arena("stats", str(league), "--json", real=True)
    assert r.returncode == 0 and json.loads(r.stdout)["games"] == 4, r.stderr
    # arena serve's page of the league: its standings, the same as league standings --json,
    # and each finished game's replay.
    shown = json.loads(arena("league", "standings", str(league), "--json").stdout)
    with served(league) as url, urllib.request.urlopen(url + "state.json", timeout=20) as got:
        state = json.loads(got.read())
        assert (state["kind"], state["games"]) == ("league", 4)
        assert [b["name"] for b in state["standings"]] == [
            b["name"] for b in shown["standings"]["bots"]]
        with urllib.request.urlopen(f"{url}games/{games[0][0]}", timeout=20) as page:
            assert page.status == 200 and b"random-py@2.0" in page.read()

    watching = arena.start("league", "standings", str(league), "--watch")
    # Without a terminal the table is printed again whenever a game is added.
    wait_until("the standings shown", lambda: "random-py@2.0" in watching.stdout, 30, watching)
    os.kill(watching.pid, signal.SIGINT)
    assert watching.wait(10) == 0, watching.text
    assert "lg: 4 games" in watching.stdout and "random-py@2.0" in watching.stdout
    assert "Traceback" not in watching.text


def crash_at_tables_of_three(folder: Path) -> Path:
    """A random bot that passes its validation (a two-player game) and crashes at the start
    of any game of three or more players."""
    bot = folder / "brittle"
    bot.mkdir()
    (bot / "bot.py").write_text(
        "import os\n"
        "from arena.protocol.client import run\n"
        "from arena.protocol.reference_bot import RandomBot\n\n"
        "class Brittle(RandomBot):\n"
        "    def on_game_start(self, info):\n"
        "        if info['num_players'] > 2:\n"
        "            os._exit(3)\n"
        "        super().on_game_start(info)\n\n"
        "run(Brittle('brittle', '1.0'))\n", encoding="utf-8")
    (bot / "bot.toml").write_text('name = "brittle"\nversion = "1.0"\nlanguage = "python"\n'
                                  'command = ["{python}", "bot.py"]\n', encoding="utf-8")
    return bot


def test_a_failing_bot_is_suspended_with_the_reason_and_can_be_enabled(
    tmp_path: Path, arena: Arena
) -> None:
    league = tmp_path / "lg"
    init(arena, league, "--players", "3")
    (league / "league.toml").write_text(
        (league / "league.toml").read_text().replace("suspend_after = 3", "suspend_after = 2"))
    for bot in ("random-py", "greedy-py"):
        add(arena, league, EXAMPLES / bot)
    add(arena, league, crash_at_tables_of_three(tmp_path))
    run = arena.start("league", "run", str(league), "--plain", "--games", "6")
    assert run.wait(90) == 0, run.text
    assert "brittle@1.0 suspended: 2 of its last 2 games ended in its failure" in run.stderr
    journal = journal_of(league)
    brittle = journal.entrant("brittle@1.0")
    journal.close()
    assert brittle is not None and brittle.status == "suspended"
    shown = arena("league", "standings", str(league))
    assert "brittle@1.0: suspended (2 of its last 2 games ended in its failure" in shown.stdout
    # Suspended, it sits at no table: with two bots left no table of three can be made, and
    # no game of it starts but those in progress when it was suspended (two at once).
    assert "fewer active bot versions than the 3 a table needs" in run.stdout
    assert 2 <= len(done_games(league)) <= 3

    r = arena("league", "enable", str(league), "brittle", real=True)
    assert r.returncode == 0 and "brittle@1.0 active" in r.stdout
    journal = journal_of(league)
    assert journal.entrant("brittle@1.0").status == "active"  # type: ignore[union-attr]
    journal.close()


def test_league_commands_say_what_is_wrong_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    def arena(*args: str) -> Any:
        return CliRunner().invoke(app, list(args))

    league = tmp_path / "lg"
    r = arena("league", "run", str(league))
    assert r.exit_code == 2 and "not a league (no league.toml)" in r.output
    r = arena("league", "init", str(league), "--game", "chess")
    assert r.exit_code == 2 and "'game'" in r.output and "Traceback" not in r.output
    r = arena("league", "init", str(league), "--game", "stoneage", "--players", "7")
    assert r.exit_code == 2 and "'players'" in r.output
    r = arena("league", "init", str(league), "--game", "stoneage", *FAST)
    assert r.exit_code == 0, r.output
    r = arena("league", "init", str(league), "--game", "stoneage")
    assert r.exit_code == 2 and "is a league already" in r.output
    r = arena("league", "retire", str(league), "nobody")
    assert r.exit_code == 2 and "no bot version 'nobody' in the league" in r.output
    r = arena("league", "run", str(league), "--games", "2", "--until-sigma", "1")
    assert r.exit_code == 2 and "not both" in r.output
    (league / "league.toml").write_text("colour = 1\n" + (league / "league.toml").read_text())
    r = arena("league", "standings", str(league))
    assert r.exit_code == 2 and "unknown field(s): colour" in r.output
