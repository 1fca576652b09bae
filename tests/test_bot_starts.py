"""Bots that cannot start are reported before anything is played, each with its cause and
the end of its log: by `arena check-bot`, and by `arena run` before a tournament's first game.
Real bot processes, real sockets."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from test_tournament_e2e import FAULTY, example, signals_kept, write_tournament
from typer.testing import CliRunner, Result

from arena.cli.main import app


def invoke(*args: str) -> Result:
    with signals_kept():
        return CliRunner().invoke(app, list(args))


def js_without_packages(tmp_path: Path) -> Path:
    """random-js as a newcomer finds it before `npm ci`: no node_modules."""
    folder = tmp_path / "random-js"
    shutil.copytree(example("random-js"), folder, ignore=shutil.ignore_patterns("node_modules"))
    return folder


def test_check_bot_names_the_log_and_shows_its_end_when_a_bot_dies(tmp_path: Path) -> None:
    r = invoke("check-bot", str(FAULTY / "crash-start"), "--log-dir", str(tmp_path))
    assert r.exit_code == 1, r.output
    assert "FAIL  hello" in r.output and "exited with status 1" in r.output
    assert "the end of its log" in r.output and str(tmp_path) in r.output.replace("\n", "")
    assert "| faulty[crash-start]: exiting with status 1 before hello" in r.output


def test_check_bot_of_a_javascript_bot_without_its_packages_says_to_install_them(
    tmp_path: Path,
) -> None:
    folder = js_without_packages(tmp_path)
    r = invoke("check-bot", str(folder), "--log-dir", str(tmp_path / "logs"))
    assert r.exit_code == 1, r.output
    flat = " ".join(r.output.split())
    assert f"packages are not installed: run npm ci --prefix {folder}" in flat
    assert "ERR_MODULE_NOT_FOUND" in r.output  # node's own words, from the log


def test_a_tournament_reports_every_bot_that_cannot_start_before_playing_and_then_runs_fixed(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    good = [example("random-py"), example("greedy-py")]
    broken = [js_without_packages(tmp_path), FAULTY / "crash-start"]
    file = write_tournament(tmp_path, "t.toml", name="starts", output=out, bots=good + broken)
    r = invoke("run", str(file), "--plain")
    assert r.exit_code == 2, r.output
    flat = " ".join(r.output.split())
    assert "2 bots of starts cannot start, so no game was played" in flat
    assert "random-js cannot start" in flat and "npm ci --prefix" in flat
    assert "faulty-crash-start cannot start" in flat
    assert "| faulty[crash-start]: exiting with status 1 before hello" in r.output
    assert not list((out / "games").glob("*.json")) if (out / "games").exists() else True
    write_tournament(tmp_path, "t.toml", name="starts", output=out, bots=good)
    r = invoke("run", str(file), "--plain")
    assert r.exit_code == 0, r.output
    assert "had played no game yet" in r.output and "2/2 games, complete" in r.output


def test_one_bot_and_no_player_count_is_a_two_player_game_against_the_built_in_player() -> None:
    r = invoke("play", "agricola", "--bot", str(example("random-py")), "--json", "--seed", "2")
    assert r.exit_code == 0, r.output
    players = json.loads(r.output)["players"]
    assert [p["player"] for p in players] == ["random-py", "builtin"]


def test_a_void_game_under_json_is_json(tmp_path: Path) -> None:
    r = invoke("play", "stoneage", "--bot", str(FAULTY / "crash-start"), "--json",
               "--log-dir", str(tmp_path))
    assert r.exit_code == 3
    doc = json.loads(r.stdout)
    assert doc["void"] is True and "exited with status 1" in doc["reason"]
