"""Guards of `arena run` against what goes wrong around a tournament rather than inside a game:
a second run of the same output folder, among others. Real processes, real journals."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_tournament_e2e import example, signals_kept, write_tournament
from typer.testing import CliRunner, Result

from arena.cli.main import app
from arena.runner.game.disk import LOCK_FILE
from arena.runner.play.executor import LocalExecutor
from arena.runner.play.job import JobResult

HOLD_LOCK = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from arena.runner.game.disk import FolderLock\n"
    "lock = FolderLock(Path(sys.argv[1]))\n"
    "print('locked', flush=True)\n"
    "time.sleep(120)\n"
)


def quick_tournament(tmp_path: Path) -> tuple[Path, Path]:
    out = tmp_path / "out"
    file = write_tournament(tmp_path, "t.toml", name="guards", output=out, concurrency=1,
                            bots=[example("random-py"), example("greedy-py")])
    return file, out


def test_a_second_run_of_a_busy_folder_is_refused_naming_the_first_and_a_dead_holder_frees_it(
    tmp_path: Path,
) -> None:
    file, out = quick_tournament(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(out)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with signals_kept():
            r = CliRunner().invoke(app, ["run", str(file), "--plain"])
        assert r.exit_code == 2, r.output
        assert "in use by another arena run" in r.output
        assert f"pid {holder.pid}" in r.output and "Traceback" not in r.output
        assert not (out / "journal.sqlite").exists()  # refused before touching anything
    finally:
        holder.kill()  # the holder dies without releasing: the kernel frees the lock
        holder.wait()
    with signals_kept():
        r = CliRunner().invoke(app, ["run", str(file), "--plain"])
    assert r.exit_code == 0, r.output
    assert (out / "journal.sqlite").is_file() and (out / LOCK_FILE).is_file()


# ---------------------------------------------------------------------------- damaged journals


def guards_tournament(folder: Path) -> tuple[Path, Path]:
    """The quick tournament of :func:`finished` (4 games), written into ``folder``: its file
    and output folder."""
    out = folder / "out"
    file = write_tournament(folder, "t.toml", name="guards", output=out, concurrency=2,
                            bots=[example("random-py"), example("greedy-py")], rounds=2)
    return file, out


@pytest.fixture(scope="session")
def played_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output folder of :func:`guards_tournament` played to its end by a real `arena run`,
    once per test process. The tests that damage a finished folder each take a copy of it
    (:func:`finished`), never this folder itself."""
    file, out = guards_tournament(tmp_path_factory.mktemp("guards-played"))
    with signals_kept():
        r = CliRunner().invoke(app, ["run", str(file), "--plain"])
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture
def finished(tmp_path: Path, played_once: Path) -> tuple[Path, Path, dict[str, object]]:
    """A quick tournament played to its end, in the test's own folder: its file, output folder
    and standings. The folder is a copy, file for file (the journal with its write-ahead log),
    of :func:`played_once`'s: the output folder is not part of a tournament's identity, so the
    file written here resumes, rebuilds and reads it as the one that played it."""
    file, out = guards_tournament(tmp_path)
    shutil.copytree(played_once, out)
    return file, out, standings_of(out)


def standings_of(out: Path) -> dict[str, object]:
    return json.loads((out / "standings.json").read_text())["standings"]


def invoke(*args: str) -> Result:
    with signals_kept():
        return CliRunner().invoke(app, list(args))


def one_error(r: Result, *words: str) -> None:
    assert r.exit_code == 2, r.output
    errors = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in r.output, r.output
    for word in words:
        assert word in r.output, r.output


def records(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "games").glob("*.json"))}


def test_an_empty_journal_is_refused_by_run_and_standings_and_no_record_is_written_over(
    finished: tuple[Path, Path, dict[str, object]],
) -> None:
    file, out, _ = finished
    before = records(out)
    (out / "journal.sqlite").write_bytes(b"")
    one_error(invoke("run", str(file), "--plain"), "damaged", "the file is empty", "rebuild")
    one_error(invoke("standings", str(out)), "damaged", "the file is empty")
    assert records(out) == before and (out / "journal.sqlite").stat().st_size == 0


def test_a_lost_journal_beside_records_is_refused_rather_than_started_afresh(
    finished: tuple[Path, Path, dict[str, object]],
) -> None:
    file, out, _ = finished
    (out / "journal.sqlite").unlink()
    one_error(invoke("run", str(file), "--plain"), "missing", "holds game records")
    assert not (out / "journal.sqlite").exists()


def test_a_journal_truncated_midway_is_one_clear_error_and_a_rebuild_restores_every_game(
    finished: tuple[Path, Path, dict[str, object]],
) -> None:
    file, out, standings = finished
    journal = out / "journal.sqlite"
    os.truncate(journal, journal.stat().st_size // 2)
    one_error(invoke("run", str(file), "--plain"), "damaged", "malformed")
    one_error(invoke("standings", str(out)), "damaged", "malformed")
    r = invoke("rebuild", str(file))
    assert r.exit_code == 0, r.output
    assert "4 games restored from their records, 0 to play" in r.output
    kept = [p for p in out.glob("journal.sqlite.damaged-*")
            if not p.name.endswith(("-wal", "-shm"))]
    assert len(kept) == 1 and kept[0].stat().st_size > 0  # kept, never deleted
    r = invoke("run", str(file), "--plain")
    assert r.exit_code == 0 and "4/4 games, complete" in r.output, r.output
    assert standings_of(out) == standings


def test_a_rebuild_skips_missing_and_false_records_and_the_resumed_run_plays_them_again(
    finished: tuple[Path, Path, dict[str, object]],
) -> None:
    file, out, standings = finished
    names = sorted(records(out))
    (out / "games" / names[0]).unlink()
    forged = json.loads((out / "games" / names[1]).read_text())
    forged["result"]["scores"] = [s + 10 for s in forged["result"]["scores"]]
    (out / "games" / names[1]).write_text(json.dumps(forged))
    (out / "journal.sqlite").unlink()
    r = invoke("rebuild", str(file))
    assert r.exit_code == 0, r.output
    assert "2 games restored from their records, 2 to play" in r.output
    assert f"skipped {names[1]}: it does not replay" in r.output
    assert "guards: 2 of 4 games" in invoke("standings", str(out)).output
    r = invoke("run", str(file), "--plain")
    assert r.exit_code == 0 and "4/4 games, complete" in r.output, r.output
    assert standings_of(out) == standings  # the same games, played again from the same seeds
    assert len(records(out)) == 4


def test_a_rebuild_of_a_tournament_with_a_secret_seed_takes_the_seed_it_published(
    tmp_path: Path,
) -> None:
    file, out, _ = finished_secret(tmp_path)
    (out / "journal.sqlite").unlink()
    r = invoke("rebuild", str(file))
    assert r.exit_code == 0 and "4 games restored" in r.output, r.output
    (out / "standings.json").unlink()
    (out / "journal.sqlite").unlink()
    one_error(invoke("rebuild", str(file)), "master seed", "cannot be rebuilt")


def finished_secret(tmp_path: Path) -> tuple[Path, Path, dict[str, object]]:
    """:func:`finished` for a tournament file without a seed (a secret master seed)."""
    out = tmp_path / "out"
    file = write_tournament(tmp_path, "t.toml", name="guards", output=out, concurrency=2,
                            bots=[example("random-py"), example("greedy-py")], rounds=2)
    text = "\n".join(line for line in file.read_text().splitlines()
                     if not line.startswith("seed ="))
    file.write_text(text + "\n")
    r = invoke("run", str(file), "--plain")
    assert r.exit_code == 0, r.output
    return file, out, standings_of(out)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap for a read-only mount")
def test_standings_of_a_read_only_folder_are_read_without_writing(
    finished: tuple[Path, Path, dict[str, object]],
) -> None:
    """The folder is mounted read-only (root can write anything else), and the journal is left
    in WAL mode with its write-ahead log, the case where SQLite wants to write to read."""
    _, out, _ = finished
    writable = invoke("standings", str(out), "--json")
    assert writable.exit_code == 0, writable.output
    command = ["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(out), str(out),
               sys.executable, "-m", "arena", "standings", str(out), "--json"]
    r = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == json.loads(writable.output)
    probe = ["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(out), str(out),
             "touch", str(out / "probe")]
    assert subprocess.run(probe, capture_output=True).returncode != 0  # really read-only


# ---------------------------------------------------------------------------- changed bots


def own_copy(tmp_path: Path, name: str) -> Path:
    """A copy of an example bot that the test may edit."""
    folder = tmp_path / "bots" / name
    shutil.copytree(example(name), folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_a_bot_changed_between_stop_and_resume_is_refused_and_its_old_files_resume(
    tmp_path: Path,
) -> None:
    from arena.runner.play.config import load_config
    from arena.runner.play.ring import RunOptions, StopRequest, TournamentError
    from arena.runner.play.tournament import Tournament

    bot = own_copy(tmp_path, "random-py")
    out = tmp_path / "out"
    file = write_tournament(tmp_path, "t.toml", name="changed", output=out, concurrency=1,
                            bots=[bot, example("greedy-py")], rounds=2)
    stop = StopRequest()

    def stops_after_a_result(concurrency: int, keep: int) -> LocalExecutor:
        executor = LocalExecutor(concurrency, keep)
        poll = executor.poll

        def poll_then_stop(timeout: float) -> list[JobResult]:
            results = poll(timeout)
            if results:
                stop.level = 1  # as Ctrl-C once: no new game is started
            return results

        executor.poll = poll_then_stop  # type: ignore[method-assign]
        return executor

    with signals_kept():
        first = Tournament(load_config(file),
                           RunOptions(stops_after_a_result, stop=stop)).run()
    assert not first.complete and first.games_done == 1
    script = bot / "bot.py"
    original = script.read_text()
    script.write_text(original + "\n# a different program under the same name and version\n")
    with pytest.raises(TournamentError, match="random-py changed since this tournament began"):
        Tournament(load_config(file))
    one_error(invoke("run", str(file), "--plain"), "random-py changed", "mix the results")
    script.write_text(original)  # the old files again: the tournament resumes
    r = invoke("run", str(file), "--plain")
    assert r.exit_code == 0 and "4/4 games, complete" in r.output, r.output
    script.write_text(original + "\n# changed after the end\n")  # nothing left to play
    r = invoke("run", str(file), "--plain")
    assert r.exit_code == 0 and "4/4 games, complete" in r.output, r.output


def test_a_tournament_that_played_no_game_takes_the_file_as_it_now_is(tmp_path: Path) -> None:
    from arena.runner.play.config import load_config
    from arena.runner.play.tournament import Tournament

    out = tmp_path / "out"
    bots = [example("random-py"), example("greedy-py"), example("random-js")]
    file = write_tournament(tmp_path, "t.toml", name="fixed", output=out, bots=bots)
    # Bound to the journal, nothing played.
    Tournament(load_config(file)).lock.release()
    write_tournament(tmp_path, "t.toml", name="fixed", output=out, bots=bots[:2])
    r = invoke("run", str(file), "--plain")
    assert r.exit_code == 0, r.output
    assert "had played no game yet: the file's new bots replace the old" in r.output
    assert "2/2 games, complete" in r.output


def test_workers_ending_while_the_run_stops_are_a_stop_not_an_error(tmp_path: Path) -> None:
    """A signal to the whole process group (a service manager's SIGTERM) stops the run and
    ends its workers too: the run reports itself stopped, and resumes."""
    from arena.runner.play.config import load_config
    from arena.runner.play.ring import RunOptions, StopRequest
    from arena.runner.play.tournament import Tournament

    out = tmp_path / "out"
    file = write_tournament(tmp_path, "t.toml", name="term", output=out, concurrency=2,
                            bots=[example("random-py"), example("greedy-py")], rounds=2)
    stop = StopRequest()

    def workers_die_on_stop(concurrency: int, keep: int) -> LocalExecutor:
        executor = LocalExecutor(concurrency, keep)
        poll = executor.poll

        def poll_or_die(timeout: float) -> list[JobResult]:
            if stop.level:
                raise RuntimeError("a game worker (pid 1) died with exit code 255")
            results = poll(timeout)
            if results:
                stop.level = 1  # the signal arrives
            return results

        executor.poll = poll_or_die  # type: ignore[method-assign]
        return executor

    with signals_kept():
        result = Tournament(load_config(file),
                            RunOptions(workers_die_on_stop, stop=stop)).run()
    assert not result.complete and result.games_done >= 1
    r = invoke("run", str(file), "--plain")
    assert r.exit_code == 0 and "4/4 games, complete" in r.output, r.output


#: A worker's wait for its next job, in a process whose main thread blocks SIGTERM, so that the
#: kernel must hand the signal to the other thread (as it may, unasked, to any thread of a
#: worker): the main thread's handler still runs, as the SIGTERM of a stopping run needs.
WAIT_FOR_A_JOB = """
import multiprocessing, signal, sys, threading, time
from arena.runner.play.executor import _next_job

def on_term(signum, frame):
    raise SystemExit(128 + signum)

signal.signal(signal.SIGTERM, on_term)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})

def other_thread():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    time.sleep(60)

threading.Thread(target=other_thread, daemon=True).start()
jobs, runner_end = multiprocessing.get_context("fork").Pipe(duplex=False)
print("waiting", flush=True)
_next_job(jobs)
"""


def test_a_worker_waiting_for_a_job_stops_on_a_sigterm_another_thread_received() -> None:
    proc = subprocess.Popen([sys.executable, "-c", WAIT_FOR_A_JOB], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "waiting\n"
        proc.terminate()  # of the process we started
        assert proc.wait(timeout=5) == 128 + signal.SIGTERM
    finally:
        proc.kill()
        proc.wait()


def test_an_absurd_schedule_is_refused_with_its_size_before_anything_is_built(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    file = write_tournament(tmp_path, "t.toml", name="huge", output=out, rounds=10**9,
                            bots=[example("random-py"), example("greedy-py")])
    one_error(invoke("run", str(file), "--plain"), "'rounds'", "2,000,000,000 games",
              "max_games")
    assert not out.exists()
    capped = write_tournament(tmp_path, "capped.toml", name="huge", output=out, rounds=10**9,
                              max_games=4, bots=[example("random-py"), example("greedy-py")])
    r = invoke("run", str(capped), "--plain")
    assert r.exit_code == 0 and "4/4 games, complete" in r.output, r.output


def test_standings_of_a_finished_tournament_say_it_is_complete(
    finished: tuple[Path, Path, dict[str, object]],
) -> None:
    _, out, _ = finished
    r = invoke("standings", str(out))
    assert r.exit_code == 0 and "guards: complete, 4 games" in r.output, r.output
    assert json.loads(invoke("standings", str(out), "--json").output)["complete"] is True


def test_command_line_options_override_the_files_fields(tmp_path: Path) -> None:
    file = write_tournament(tmp_path, "t.toml", name="over", output=tmp_path / "unused",
                            bots=[example("random-py"), example("greedy-py")], rounds=5)
    out = tmp_path / "elsewhere"
    r = invoke("run", str(file), "--plain", "--output", str(out), "--seed", "77",
               "--games", "4", "--decision-ms", "1500", "--bank-ms", "90000")
    assert r.exit_code == 0 and "4/4 games, complete" in r.output, r.output
    assert not (tmp_path / "unused").exists()
    meta = json.loads((out / "standings.json").read_text())["meta"]
    assert meta["seed"] == 77 and meta["games"] == 4
    record = json.loads(next((out / "games").glob("*.json")).read_text())
    assert record["time_control"]["decision_ms"] == 1500
    assert record["time_control"]["bank_ms"] == 90000
    # What defines the games is part of the tournament: another seed is another tournament.
    one_error(invoke("run", str(file), "--plain", "--output", str(out), "--games", "4"),
              "differs in", "seed")


def test_a_sigterm_that_lands_where_python_swallows_its_exit_still_stops_a_worker() -> None:
    """A game worker's SIGTERM raises SystemExit wherever the worker is. Where Python cannot let
    an exception out (here a ``__del__``; in a run, a weakref callback of an import) it is
    swallowed and printed, and the worker played on: it now stops all the same, silently."""
    probe = (
        "import signal, sys, time\n"
        "from arena.runner.play import executor\n"
        "signal.signal(signal.SIGTERM, executor._on_sigterm)\n"
        "sys.unraisablehook = executor._stop_again\n"
        "class Swallowed:\n"
        "    def __del__(self):\n"
        "        executor._on_sigterm(signal.SIGTERM, None)\n"
        "Swallowed()\n"
        "print('played on', flush=True)\n"
        "time.sleep(10)\n"
        "print('never', flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (143, "played on\n", "")
