"""The `arena` command line: exit codes and output, through typer's CliRunner."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()


def test_games_lists_stone_age() -> None:
    r = runner.invoke(app, ["games"])
    assert r.exit_code == 0
    assert "stoneage" in r.output and "2-4" in r.output


def test_play_json_reports_game_rules_seed_rounds_and_every_player() -> None:
    r = runner.invoke(app, ["play", "stoneage", "--players", "3", "--seed", "7", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["game"] == "stoneage"
    assert data["rules_version"].startswith("stoneage-")
    assert data["seed"] == 7
    assert data["rounds"] >= 1
    assert [p["seat"] for p in data["players"]] == [0, 1, 2]
    for p in data["players"]:
        assert sum(p["breakdown"].values()) == p["score"]
        assert 1 <= p["rank"] <= 3
    assert min(p["rank"] for p in data["players"]) == 1


def test_play_is_reproducible_from_the_seed_and_changes_with_it() -> None:
    outs = [
        runner.invoke(app, ["play", "stoneage", "-n", "4", "--seed", str(s), "--json"]).output
        for s in (5, 5, 6)
    ]
    assert outs[0] == outs[1]
    assert outs[0] != outs[2]


def test_play_prints_a_final_table_with_ranks_scores_and_breakdown() -> None:
    r = runner.invoke(app, ["play", "stoneage", "--players", "2", "--seed", "1"])
    assert r.exit_code == 0
    for word in ("rank", "score", "seat 0", "seat 1", "buildings", "civilization green"):
        assert word in r.output


def test_play_refuses_an_unknown_game_with_exit_code_2() -> None:
    r = runner.invoke(app, ["play", "chess"])
    assert r.exit_code == 2
    assert "unknown game 'chess'" in r.output


def test_play_refuses_a_player_count_the_game_does_not_support() -> None:
    r = runner.invoke(app, ["play", "stoneage", "--players", "5"])
    assert r.exit_code == 2
    assert "2-4 players" in r.output


def test_bench_engine_json_prints_every_figure() -> None:
    r = runner.invoke(
        app, ["bench", "engine", "--players", "2", "--games", "3", "--seed", "1", "--json"]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["games"] == 3 and data["players"] == 2
    for key in (
        "games_per_second", "decisions_per_second", "decisions_per_game", "clone_microseconds",
    ):
        assert data[key] > 0


def test_bench_engine_refuses_zero_games() -> None:
    r = runner.invoke(app, ["bench", "engine", "--games", "0"])
    assert r.exit_code == 2
