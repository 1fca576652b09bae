"""Output that is whole: `arena` writing to a pipe gives whole lines (no cut, no wrap at 80
columns), help paragraphs are not broken where the source breaks them, a bot's log tail shows
long lines cut and says so, and a Swiss tournament's progress never goes back. Each runs the
real command (a subprocess with its stdout a pipe, a real bot, a real tournament)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from test_tournament_e2e import ROOT, Runs, example, random_py_twin, runs, write_tournament
from typer.testing import CliRunner

from arena.cli.main import app
from arena.runner.game.botlog import TAIL_LINE_WIDTH, log_tail
from arena.runner.game.record import GameRecord
from arena.runner.game.replay import moves

__all__ = ["runs"]

LEADERBOARDS = ROOT / "leaderboards"
#: What a terminal of 80 columns says of itself; a pipe's lines must not follow it.
NARROW = {"COLUMNS": "80", "TERMINAL_WIDTH": "80"}


def piped(*args: str, env: dict[str, str] | None = None) -> list[str]:
    """The lines `arena ARGS` writes to its stdout, a pipe."""
    r = subprocess.run([sys.executable, "-m", "arena", *args], cwd=ROOT, capture_output=True,
                       text=True, timeout=120, env={**os.environ, **NARROW, **(env or {})})
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_a_piped_replay_lists_every_move_whole() -> None:
    record = LEADERBOARDS / "reference" / "games" / "r001-t0001-s0.json"
    lines = piped("replay", "--moves", str(record))
    decoder = json.JSONDecoder()
    shown = [decoder.raw_decode(line[line.index("{"):])[0] for line in lines if "{" in line]
    expected = [m.action for m in moves(GameRecord.load(record))]
    assert shown == expected and len(expected) > 20
    assert not any("…" in line for line in lines)


def test_piped_stats_keep_each_row_and_note_on_one_line() -> None:
    lines = piped("stats", str(LEADERBOARDS / "search-2p"), "--bootstrap", "20")
    assert not any("…" in line for line in lines)
    note = [line for line in lines if line.startswith("G games together")]
    assert len(note) == 1 and note[0].rstrip().endswith("one-sided bound).")
    sweep = next(line for line in lines if re.match(r"^ mcts-py +random-py +34 +34-0-0", line))
    assert "won every pair: no finite estimate; at least 286.0 at 95%" in sweep
    assert all(line.count("[") == line.count("]") for line in lines)


def test_the_piped_league_bench_table_keeps_every_column_on_its_line() -> None:
    lines = piped("bench", "league", "--bots", "4", "-n", "2", "--sigma", "3", "-r", "1",
                  "--spread", "1")
    head = next(line for line in lines if "scenario" in line)
    for column in ("spread", "games to sigma < 3.0", "random ÷ informative",
                   "games to clear pairs in order", "Kendall tau", "whole order right"):
        assert column in head
    assert any(line.startswith("goal, random ÷ informative at least 2:") and "a second)" in line
               for line in lines)


def test_help_keeps_each_paragraph_whole() -> None:
    """Wide enough, each paragraph of `arena run --help` is one line: none is broken where
    the command's docstring breaks it."""
    lines = piped("run", "--help", env={"TERMINAL_WIDTH": "400"})
    text = [line.strip() for line in lines]
    assert ("Options override the file's fields of the same meaning; a resumed run must be "
            "given the same ones (they are part of what the tournament is), except --output, "
            "-j and --executor.") in text
    assert any(line.startswith("Ctrl-C once: finish") and line.endswith("where it stopped.")
               for line in text)


def test_check_bot_cuts_a_long_log_line_and_says_so(tmp_path: Path) -> None:
    """A bot that writes a line of 8,000 characters to stderr and exits before its hello."""
    bot = tmp_path / "long-line"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "long-line"\nversion = "1.0"\nlanguage = "python"\n'
                                  'command = ["{python}", "bot.py"]\n')
    (bot / "bot.py").write_text('import sys\nsys.stderr.write("x" * 8000 + "\\n")\n'
                                'sys.stderr.write("last words\\n")\nsys.exit(1)\n')
    r = CliRunner().invoke(app, ["check-bot", str(bot), "--log-dir", str(tmp_path / "logs"),
                                 "--handshake-ms", "3000"])
    assert r.exit_code == 1
    tail = [line for line in r.output.splitlines() if "| " in line and "x" * 50 in line]
    assert tail and all(len(line) < TAIL_LINE_WIDTH + 80 for line in tail)
    assert all(f"… (8,000 characters, cut to {TAIL_LINE_WIDTH})" in line for line in tail)
    assert "| last words" in r.output


def test_a_log_of_one_line_longer_than_the_tail_reads_shows_its_end(tmp_path: Path) -> None:
    """One line of 20,000 characters: the tail reads its last 8 KB, which are all there is to
    show (not an empty log), cut and marked as the end of a longer line."""
    log = tmp_path / "bot.log"
    log.write_text("y" * 20_000)
    (line,) = log_tail(log)
    assert line.startswith("…" + "y" * TAIL_LINE_WIDTH)
    assert line.endswith(f"… (the last 8,192 characters, cut to {TAIL_LINE_WIDTH})")


def test_a_swiss_tournaments_progress_never_goes_back(tmp_path: Path, runs: Runs) -> None:
    """Three bots at two-player tables, 3 rounds: one table and a bye a round, both seat
    orders, 6 games. Each round is paired once the last has finished, yet every progress
    line counts the whole 6."""
    file = write_tournament(tmp_path, "swiss.toml", name="swiss", format="swiss", rounds=3,
                            seat_rotation=True, output=tmp_path / "swiss",
                            bots=[example("greedy-py"), example("random-py"),
                                  random_py_twin(tmp_path)])
    run = runs.complete(file)
    assert run.rc == 0, run.text
    progress = re.findall(r"^\[(\d+)/(\d+)\] ([\d.]+)%", run.stdout, re.MULTILINE)
    assert progress and {total for _, total, _ in progress} == {"6"}
    done = [float(pct) for _, _, pct in progress]
    assert done == sorted(done) and done[-1] == 100.0
    assert "swiss: 6/6 games, complete" in run.stdout
