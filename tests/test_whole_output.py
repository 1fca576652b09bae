"""Output that is whole: `arena` writing to a pipe gives whole lines (no cut, no wrap at 80
columns), and help paragraphs are not broken where the source breaks them. Each runs the real
command, a subprocess with its stdout a pipe."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from test_tournament_e2e import ROOT

from arena.runner.record import GameRecord
from arena.runner.replay import moves

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
