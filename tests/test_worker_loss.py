"""A game worker that dies (SIGKILLed here, as the out-of-memory killer or a crash in a native
library would end it) is replaced, and its game played again: the run goes on, its bots die
with the worker, and the standings are those of a run that lost no worker. A game that keeps
losing its worker is void; workers that keep dying without a game finished stop the run in one
line. Real worker processes, real bots, real journals; only processes these tests started are
killed, by pid."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
from conftest import TEST_SEED_KEY
from test_league import Arena, add, arena, assert_journal_is_the_truth, done_games, init
from test_live_and_outputs import printed, snapshot
from test_tournament_e2e import (
    EXAMPLES,
    FAULTY,
    FORKSERVER,
    Proc,
    Runs,
    assert_nothing_left,
    assert_schedule_played_once,
    children,
    deterministic_bots,
    pid_alive,
    processes,
    read_journal,
    runs,
    schedule_of,
    standings_doc,
    try_read_journal,
    wait_until,
    workers_under,
    write_tournament,
)

from arena.engine import get_game
from arena.results import Pairing
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.play.executor import DEATHS_IN_A_ROW, LOST_RETRIES, LocalExecutor
from arena.runner.play.job import GameJob, JobResult, JobStatus, record_file
from arena.runner.play.live import MAX_NOTICES, render
from arena.runner.play.ratings import compute_standings

__all__ = ["arena", "runs"]  # the fixtures of the league's and the tournament's end-to-end tests

# ---------------------------------------------------------------------------- processes


def descendants(pid: int) -> list[Proc]:
    found, todo = [], [pid]
    while todo:
        below = children(todo.pop())
        found += below
        todo += [p.pid for p in below]
    return found


def player_of(worker: int) -> Proc | None:
    """The process of a worker that plays its games (its supervisor's child), if it has one."""
    return next((p for p in children(worker) if FORKSERVER in p.cmdline), None)


def bot_in(folder: Path) -> Proc | None:
    """The live bot process running in ``folder`` (its working directory), if any."""
    for p in processes():
        try:
            if os.readlink(f"/proc/{p.pid}/cwd") == str(folder) and "faulty.py" in p.cmdline:
                return p
        except OSError:
            continue
    return None


def new_bot_in(folder: Path, seen: set[int]) -> Proc | None:
    """The bot process running in ``folder``, if there is one not ``seen`` before."""
    bot = bot_in(folder)
    return bot if bot is not None and bot.pid not in seen else None


def games_done(out: Path) -> int:
    journal = try_read_journal(out)
    return 0 if journal is None else len(journal.done)


def kill(pid: int) -> None:
    """SIGKILL a worker process of this test's own executor or run."""
    os.kill(pid, signal.SIGKILL)


# ---------------------------------------------------------------------------- the executor


def slow_game(tmp_path: Path, index: int = 0) -> tuple[GameJob, Path]:
    """A job for a game of the slow faulty bot (200 ms an answer: it lasts a while) against
    random-py, unsandboxed, and the folder the slow bot runs in: a copy of the faulty bots of
    this test's own, so that its process is told apart from any other test's."""
    faulty = shutil.copytree(FAULTY, tmp_path / "faulty", dirs_exist_ok=True,
                             ignore=shutil.ignore_patterns("__pycache__"))
    manifests = {"faulty-slow": BotManifest.load(faulty / "slow"),
                 "random-py": BotManifest.load(EXAMPLES / "random-py")}
    p = Pairing(f"g{index:03d}", index, index, 0, ("faulty-slow", "random-py"), 100 + index)
    out = tmp_path / "out"
    tc = TimeControl(handshake_ms=10_000, decision_ms=2_000, bank_ms=60_000).to_dict()
    job = GameJob(p, get_game("stoneage"), manifests, tc, str(record_file(out, p.game_id)),
                  str(out / "logs"), TEST_SEED_KEY, sandbox="none")
    return job, faulty / "slow"


def quick_game(tmp_path: Path, index: int) -> GameJob:
    """A job for a game of two random-py (under names of their own), unsandboxed."""
    manifests = {}
    for name in ("ra", "rb"):
        bot = tmp_path / name
        if not bot.exists():
            shutil.copytree(EXAMPLES / "random-py", bot)
            toml = (bot / "bot.toml").read_text(encoding="utf-8")
            (bot / "bot.toml").write_text(toml.replace('"random-py"', f'"{name}"'))
        manifests[name] = BotManifest.load(bot)
    p = Pairing(f"q{index:03d}", index, index, 0, ("ra", "rb"), 200 + index)
    out = tmp_path / "out"
    tc = TimeControl(handshake_ms=10_000, decision_ms=2_000).to_dict()
    return GameJob(p, get_game("stoneage"), manifests, tc, str(record_file(out, p.game_id)),
                   str(out / "logs"), TEST_SEED_KEY, sandbox="none")


def polled(executor: LocalExecutor, what: str, timeout: float = 30
           ) -> tuple[list[JobResult], list[str], list[str]]:
    """Poll until the executor has something to say: results, games handed out again, or
    notices."""
    got: tuple[list[JobResult], list[str], list[str]] = ([], [], [])

    def something() -> bool:
        got[0].extend(executor.poll(0.2))
        got[1].extend(executor.restarted())
        got[2].extend(executor.notices())
        return any(got)

    wait_until(what, something, timeout)
    return got


def test_a_game_that_keeps_losing_its_worker_is_played_again_then_void_and_bots_die_with_each(
    tmp_path: Path,
) -> None:
    """The worker playing a game is SIGKILLed four times, its playing process and its
    supervisor in turn: each time a new worker takes its place, the game is handed out again
    (counted as restarted) and said in a notice, and the bots of the dead worker die with it;
    the fourth loss makes the game void, naming the losses, for the caller's void policy. The
    new worker then plays the next game."""
    job, folder = slow_game(tmp_path)
    executor = LocalExecutor(1, keep_bots=0)
    try:
        executor.submit(job)
        seen: set[int] = set()
        for loss in range(1, LOST_RETRIES + 2):
            bot = wait_until(f"loss {loss}: the slow bot has started",
                             lambda: new_bot_in(folder, seen), 30)
            seen.add(bot.pid)
            player = bot.ppid
            supervisor = next(p.ppid for p in processes() if p.pid == player)
            assert supervisor in {w.pid for w in workers_under(os.getpid())}
            game_processes = [p.pid for p in descendants(supervisor)]
            kill(player if loss % 2 else supervisor)
            results, again, notices = polled(executor, f"loss {loss} seen")
            wait_until(f"loss {loss}: the dead worker's bots are gone",
                       lambda gone=game_processes: not any(pid_alive(pid) for pid in gone), 10)
            ended = ("lost its playing process to SIGKILL" if loss % 2
                     else "was killed by SIGKILL")
            assert len(notices) == 1 and f"(pid {supervisor}) {ended}: a new one took its " \
                "place" in notices[0], notices
            if loss <= LOST_RETRIES:
                assert again == [job.pairing.game_id] and not results
                assert "game g000 (faulty-slow, random-py) is played again" in notices[0]
            else:
                assert not again and len(results) == 1, (results, again)
                assert results[0].status is JobStatus.VOID
                assert results[0].reason == (f"lost its worker {LOST_RETRIES + 1} times; the "
                                             f"last (pid {supervisor}) {ended}")
                assert f"lost its worker {LOST_RETRIES + 1} times: void" in notices[0]
        assert executor.capacity == 1
        executor.submit(quick_game(tmp_path, 1))
        results, again, notices = polled(executor, "the next game played")
        assert [r.status for r in results] == [JobStatus.DONE] and not again and not notices
    finally:
        executor.shutdown(abandon=True)


def test_workers_that_keep_dying_before_any_game_finishes_end_the_executor_in_one_line() -> None:
    """Workers that die one after another with no game finished (as workers that cannot
    start would) are replaced up to a bound, then poll raises, naming the last one."""
    executor = LocalExecutor(1, keep_bots=0)
    killed: set[int] = set()
    try:
        for death in range(1, DEATHS_IN_A_ROW + 2):
            worker = wait_until(f"worker {death} started",
                                lambda: [w for w in workers_under(os.getpid())
                                         if w.pid not in killed], 30)[0]
            killed.add(worker.pid)
            kill(worker.pid)
            if death <= DEATHS_IN_A_ROW:
                _, _, notices = polled(executor, f"death {death} seen")
                assert notices == [f"a game worker (pid {worker.pid}) was killed by SIGKILL: "
                                   "a new one took its place"]
        with pytest.raises(RuntimeError) as caught:
            wait_until("the last death seen", lambda: executor.poll(0.2) and False, 30)
        assert str(caught.value) == (
            f"{DEATHS_IN_A_ROW + 1} game workers died one after another without finishing a "
            f"game; the last (pid {worker.pid}) was killed by SIGKILL")
    finally:
        executor.shutdown(abandon=True)


def test_the_live_view_shows_the_latest_notices_and_counts_the_earlier() -> None:
    """A long run that replaced many workers keeps its standings on the screen: the view
    shows the latest notices and how many came before."""
    standings = compute_standings(("a", "b"), [])
    notices = [f"a game worker (pid {100 + k}) was killed by SIGKILL: a new one took its place"
               for k in range(MAX_NOTICES + 2)]
    text = printed(render(snapshot(standings, notices=notices)))
    assert "2 earlier notices, then:" in text
    assert "pid 100)" not in text and "pid 101)" not in text
    for k in range(2, MAX_NOTICES + 2):
        assert f"pid {100 + k})" in text
    few = printed(render(snapshot(standings, notices=notices[:MAX_NOTICES])))
    assert "earlier" not in few and all(f"pid {100 + k})" in few for k in range(MAX_NOTICES))


# ---------------------------------------------------------------------------- a whole run


@pytest.mark.parametrize(("rounds", "kills"), [
    (3, 3),
    pytest.param(100, 8, marks=pytest.mark.slow),  # 600 games, as a long unattended run
], ids=["18-games", "600-games"])
def test_a_run_whose_workers_are_killed_at_random_ends_with_the_standings_of_an_undisturbed_one(
    tmp_path: Path, runs: Runs, rounds: int, kills: int,
) -> None:
    """`arena run` with its game workers SIGKILLed several times (a worker's playing process
    or its supervisor, chosen by a seeded generator), spread over the run: the run goes on to
    the end (exit 0), says each replacement on its output, plays each game once (an attempt
    more for each game a dead worker held), leaves nothing behind, and writes the standings
    of the same tournament run undisturbed."""
    common: dict[str, Any] = dict(name="killed", bots=deterministic_bots(), rounds=rounds,
                                  sandbox="none")
    file = write_tournament(tmp_path, "killed.toml", output=tmp_path / "out", **common)
    ref_file = write_tournament(tmp_path, "ref.toml", output=tmp_path / "ref", **common)
    schedule = schedule_of(file)
    chance = random.Random(24)
    run = runs.start(file)
    reference = runs.start(ref_file)
    every = len(schedule) // (kills + 1)
    for k in range(1, kills + 1):
        wait_until(f"{every * k} games done before kill {k}",
                   lambda games=every * k: games_done(tmp_path / "out") >= games, 600, run)
        worker = chance.choice(sorted(w.pid for w in workers_under(run.pid)))
        player = player_of(worker)
        kill(player.pid if player is not None and chance.random() < 0.5 else worker)
    runs.finish(run, reference, timeout=60 * rounds)
    assert run.rc == 0, run.text
    assert reference.rc == 0, reference.text
    assert "Traceback" not in run.text
    told = [line for line in run.stderr.splitlines() if "a new one took its place" in line]
    assert len(told) == kills, run.stderr
    assert f"{len(schedule)}/{len(schedule)} games, complete" in run.stdout

    journal = read_journal(tmp_path / "out")
    assert_schedule_played_once(journal, schedule)
    again = sum(len(re.findall(r"game \S+ \([^)]*\) is played again", line)) for line in told)
    assert sum(row["started"] for row in journal.pairings.values()) == len(schedule) + again
    assert all(row["voids"] == 0 for row in journal.pairings.values())
    assert standings_doc(tmp_path / "out") == standings_doc(tmp_path / "ref")
    assert journal.outcomes() == read_journal(tmp_path / "ref").outcomes()


def test_a_league_run_replaces_a_lost_worker_and_plays_on(tmp_path: Path, arena: Arena) -> None:
    """The league shares the executor: a worker SIGKILLed during `league run --games 8` is
    replaced, said on the run's output, and the run plays its 8 games, each once, nothing of
    it left behind."""
    league = tmp_path / "lg"
    init(arena, league, "--players", "2", "-j", "2")
    add(arena, league, EXAMPLES / "random-py")
    add(arena, league, EXAMPLES / "greedy-py")
    run = arena.start("league", "run", str(league), "--plain", "--games", "8")
    wait_until("a game played", lambda: done_games(league), 60, run)
    worker = wait_until("two workers", lambda: sorted(w.pid for w in workers_under(run.pid))
                        if len(workers_under(run.pid)) == 2 else None, 30, run)[0]
    kill(worker)
    assert run.wait(90) == 0, run.text
    assert "Traceback" not in run.text
    assert f"a game worker (pid {worker}) was killed by SIGKILL: a new one took its place" in \
        run.stderr, run.stderr
    assert "8 games this run" in run.stdout
    games = done_games(league)
    assert len(games) == 8 and len({g for g, _ in games}) == 8
    assert_journal_is_the_truth(arena, league)
    assert_nothing_left(arena.tag, sessions=(run.pid,))
