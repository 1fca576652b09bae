"""The `arena` command line: exit codes and output, through typer's CliRunner."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import game as game_commands
from arena.cli.main import app, app_for
from arena.engine import Game
from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.game import AGRICOLA
from arena.runner.game import botlog
from arena.runner.game.clock import TimeControl
from arena.runner.game.processes import group_alive

runner = CliRunner()


#: Command lines that the command line built for them (app_for) must answer exactly as the whole
#: app does: lists of commands, one command's help, errors of every kind, an unknown command
#: (Typer's suggestion), an option after --help.
AS_THE_WHOLE_APP = (
    [], ["--help"], ["--help", "run"], ["--nope"], ["bench"], ["bench", "--help"],
    ["league", "--help"], ["league", "add", "--help"], ["league", "nope"], ["run", "--help"],
    ["run"], ["play", "--game", "nope"], ["check-bot", "--help"], ["games"], ["leage"],
    ["bench", "engine", "--help"], ["bench", "engine", "--games", "0"], ["worker", "--help"],
)


@pytest.mark.parametrize("args", AS_THE_WHOLE_APP, ids=lambda a: " ".join(a) or "nothing")
def test_the_app_built_for_a_command_line_answers_as_the_whole_app(args: list[str]) -> None:
    whole = runner.invoke(app, args, prog_name="arena", env={"COLUMNS": "100"})
    built = runner.invoke(app_for(args), args, prog_name="arena", env={"COLUMNS": "100"})
    assert (built.exit_code, built.output) == (whole.exit_code, whole.output)
    assert whole.output.strip()


def test_the_app_built_for_one_command_holds_that_command_alone() -> None:
    import typer.main

    def built(args: list[str]) -> dict[str, Any]:
        """Each command of the app built for ``args`` (a group's as group/command): whether
        it has parameters."""
        def walk(group: Any, prefix: str) -> dict[str, Any]:
            found = {}
            for name, command in group.commands.items():
                if hasattr(command, "commands"):
                    found |= walk(command, f"{prefix}{name}/")
                else:
                    found[prefix + name] = bool(command.params)
            return found
        return walk(typer.main.get_command(app_for(args)), "")

    whole = built(["nope"])  # an unknown command: the whole app
    assert len(whole) > 30 and whole["run"] and whole["league/add"] and not whole["games"]
    for args, named in ((["run", "x.toml"], "run"), (["league", "add", "x"], "league/add"),
                        (["--help"], None)):
        assert built(args) == {name: name == named and params for name, params in whole.items()}


def test_games_lists_stone_age() -> None:
    r = runner.invoke(app, ["games"])
    assert r.exit_code == 0
    assert "stoneage" in r.output and "2-4" in r.output


def test_games_lists_a_game_registered_at_run_time_beside_the_installed_ones(
    dicerace: Game,
) -> None:
    r = runner.invoke(app, ["games"])
    assert r.exit_code == 0
    assert "dicerace" in r.output and "stoneage" in r.output


def test_play_json_reports_game_rules_seed_rounds_and_every_player(game: Game) -> None:
    r = runner.invoke(app, ["play", game.name, "--players", "3", "--seed", "7", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["game"] == game.name
    assert data["rules_version"].startswith(f"{game.name}-")
    assert data["seed"] == 7
    assert data["rounds"] >= 1
    assert [p["seat"] for p in data["players"]] == [0, 1, 2]
    for p in data["players"]:
        assert sum(p["breakdown"].values()) == p["score"]
        assert 1 <= p["rank"] <= 3
    assert min(p["rank"] for p in data["players"]) == 1


def test_play_is_reproducible_from_the_seed_and_changes_with_it(game: Game) -> None:
    outs = [
        runner.invoke(app, ["play", game.name, "-n", "4", "--seed", str(s), "--json"]).output
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
        "cpu_seconds", "decisions_per_cpu_second", "dict_path_decisions_per_cpu_second",
    ):
        assert data[key] > 0
    assert data["dict_path_to_engine"] == pytest.approx(
        data["dict_path_decisions_per_cpu_second"] / data["decisions_per_cpu_second"], abs=0.01)


def test_bench_engine_with_options_plays_them_beside_the_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    played: list[tuple[bool, Mapping[str, str] | None]] = []
    offered = AGRICOLA
    new_state = offered.new_state

    def spy(n: int, seed: int | None = None, chance: Any = None,
            options: Mapping[str, Any] | None = None) -> Any:
        state = new_state(n, seed=seed, chance=chance, options=options)
        played.append((isinstance(state, CardState), options))
        return state

    monkeypatch.setattr(offered, "new_state", spy)
    r = runner.invoke(app, ["bench", "engine", "--game", "agricola", "-n", "4", "--games", "2",
                            "--option", "cards=base", "--option", "draft=app", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["options"] == {"cards": "base", "draft": "app"}
    assert data["defaults"]["options"] == {"cards": "none", "draft": "deal"}
    for figures in (data, data["defaults"]):
        assert figures["games"] == 2 and figures["players"] == 4
        assert figures["games_per_second"] > 0 and figures["clone_microseconds"] > 0
    assert set(data["to_defaults"]) == {"games_per_second", "games_per_cpu_second",
                                        "decisions_per_second", "clone_microseconds"}
    per_cpu = data["to_defaults"]["games_per_cpu_second"]
    assert per_cpu == round(2 / data["cpu_seconds"] / (2 / data["defaults"]["cpu_seconds"]), 2)
    cards = [c for c, _ in played]
    # A game of each in turn, options first, in the order A B B A; then each one's dict path
    # and referee path.
    assert cards == [True, False, False, True, True, True, False, False]
    assert {o["draft"] for c, o in played if c and o} == {"app"}
    r = runner.invoke(app, ["bench", "engine", "--game", "agricola", "--games", "1",
                            "--option", "cards=base"])
    assert r.exit_code == 0, r.output
    assert "options ÷ defaults, games per second" in r.output
    assert "options ÷ defaults, games per CPU second" in r.output
    assert "default options: clone() cost" in r.output


def test_bench_engine_refuses_an_option_the_game_does_not_have() -> None:
    r = runner.invoke(app, ["bench", "engine", "--game", "stoneage", "--option", "cards=base"])
    assert r.exit_code == 2 and "no option 'cards'" in r.output


def test_bench_engine_refuses_zero_games() -> None:
    r = runner.invoke(app, ["bench", "engine", "--games", "0"])
    assert r.exit_code == 2


def test_the_options_defaults_are_the_library_s() -> None:
    """The command line writes out the defaults of its time and log options (it starts without
    importing the runner): they are the time control's and the bot log's."""
    tc = TimeControl()
    written = (game_commands.DECISION_MS, game_commands.BANK_MS, game_commands.HANDSHAKE_MS)
    assert written == (tc.decision_ms, tc.bank_ms, tc.handshake_ms)
    assert game_commands.LOG_CAP_MB * botlog.MIB == botlog.DEFAULT_LOG_CAP
    assert game_commands.MAX_LOG_CAP_MB == botlog.MAX_LOG_CAP_MB
    r = runner.invoke(app, ["play", "--help"])
    assert r.exit_code == 0
    for default in (tc.decision_ms, tc.bank_ms, tc.handshake_ms):
        assert f"default: {default}" in r.output


# ----------------------------------------------------------------------- with bot processes
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bots" / "examples"
FAULTY = ROOT / "bots" / "faulty"
#: Per game, the bot in seat 0 of a recorded game and a seed with which it wins: in Stone Age
#: the greedy bot beats random players; Dice Race has no greedy bot, and with this seed the
#: random-js bot in seat 0 wins.
SEAT0_WINS = {"stoneage": ("greedy-py", 4), "dicerace": ("random-js", 2)}
#: The example bots written for any game, and for Stone Age also its greedy bot.
EXAMPLE_BOTS = {"stoneage": ("random-py", "greedy-py", "random-js"),
                "dicerace": ("random-py", "random-js")}


def test_play_with_bots_records_a_game_that_replay_verifies(tmp_path: Path, game: Game) -> None:
    record = tmp_path / "game.json"
    first, seed = SEAT0_WINS[game.name]
    r = runner.invoke(app, [
        "play", game.name, "--bot", str(EXAMPLES / first),
        "--bot", str(EXAMPLES / "random-py"), "--players", "3", "--seed", str(seed),
        "--json", "--record", str(record), "--log-dir", str(tmp_path / "logs"),
    ])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert [p["player"] for p in data["players"]] == [first, "random-py", "builtin"]
    assert [p["termination"] for p in data["players"]] == ["ok", "ok", "ok"]
    assert data["players"][0]["rank"] == 1  # see SEAT0_WINS
    ok = runner.invoke(app, ["replay", str(record)])
    assert ok.exit_code == 0 and "replay exactly" in ok.output

    tampered = json.loads(record.read_text())
    tampered["result"]["scores"][0] += 1
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(tampered))
    mismatch = runner.invoke(app, ["replay", str(bad)])
    assert mismatch.exit_code == 1
    assert "scores" in mismatch.output


def test_replay_refuses_a_file_that_is_not_a_record(tmp_path: Path) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text('{"hello": 1}')
    r = runner.invoke(app, ["replay", str(junk)])
    assert r.exit_code == 2 and "not an Arena game record" in r.output
    r = runner.invoke(app, ["replay", str(tmp_path / "missing.json")])
    assert r.exit_code == 2 and "no such file" in r.output


def test_play_reports_a_void_game_with_exit_code_3(tmp_path: Path) -> None:
    r = runner.invoke(app, ["play", "stoneage", "--bot", str(FAULTY / "crash-start"),
                            "--players", "2", "--log-dir", str(tmp_path)])
    assert r.exit_code == 3
    assert "void game" in r.output and "faulty-crash-start" in r.output


def test_play_refuses_a_folder_without_a_manifest(tmp_path: Path) -> None:
    r = runner.invoke(app, ["play", "stoneage", "--bot", str(tmp_path)])
    assert r.exit_code == 2 and "no bot manifest" in r.output


def test_check_bot_passes_the_example_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game: Game
) -> None:
    monkeypatch.chdir(tmp_path)  # its logs go to ./arena-logs
    for bot in EXAMPLE_BOTS[game.name]:
        r = runner.invoke(app, ["check-bot", str(EXAMPLES / bot), "--game", game.name])
        assert r.exit_code == 0, r.output
        assert r.output.count("pass") == 8 and "FAIL" not in r.output


@pytest.mark.parametrize(
    ("mode", "check", "words"),
    [
        ("crash-start", "hello", "exited with status 1"),
        ("wrong-protocol", "hello", "protocol version 2"),
        ("illegal-index", "game", "illegal_action"),
        ("garbage-bytes", "game", "protocol_error: not a msgpack message: the value at byte 0 "
                                  "begins with 0xc1"),
        ("crash-mid-game", "game", "crash"),
        ("never-reply", "game", "timeout"),
        ("flood", "game", "flood"),
        ("oversized", "game", "over the limit of 1048576 bytes"),
        ("child-left-behind", "shutdown", "left processes behind"),
        ("impostor", "game", "4 connections beyond its one were refused"),
    ],
)
def test_check_bot_fails_a_faulty_bot_naming_its_fault(
    mode: str, check: str, words: str, tmp_path: Path
) -> None:
    r = runner.invoke(app, ["check-bot", str(FAULTY / mode), "--decision-ms", "300",
                            "--handshake-ms", "1500", "--log-dir", str(tmp_path)])
    assert r.exit_code == 1
    failed = [line for line in r.output.splitlines() if line.startswith("FAIL")]
    assert failed and failed[0].split()[1] == check
    assert words in " ".join(r.output.split())


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupting_arena_play_leaves_no_bot_process(sig: int, tmp_path: Path) -> None:
    pid_file = tmp_path / "slow.pid"
    env = {**os.environ, "FAULTY_PID_FILE": str(pid_file)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "play", "stoneage", "--bot", str(FAULTY / "slow"),
         "--players", "2", "--log-dir", str(tmp_path), "--no-sandbox"],
        env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 15
        while not (pid_file.is_file() and pid_file.read_text().strip()):
            assert time.monotonic() < deadline, "the slow bot never started"
            assert proc.poll() is None, "arena play ended before it could be interrupted"
            time.sleep(0.05)
        bot = int(pid_file.read_text())
        time.sleep(0.5)
        assert group_alive(bot), "the slow bot should be playing now"
        os.kill(proc.pid, sig)
        assert proc.wait(timeout=15) != 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not group_alive(bot), f"bot {bot} survived an interrupted arena play"


def test_bench_protocol_json_compares_both_paths() -> None:
    r = runner.invoke(app, ["bench", "protocol", "--games", "1", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["round_trips"] > 50
    assert data["referee_median_ms"] > 0 and data["bare_median_ms"] > 0
    assert abs(data["ratio"] - data["referee_median_ms"] / data["bare_median_ms"]) < 0.05
    assert data["sandbox"] == "bwrap"  # the bot as a tournament runs it


def test_bench_game_sets_whole_refereed_games_against_their_floor() -> None:
    r = runner.invoke(app, ["bench", "game", "--games", "1", "--players", "2", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert (data["players"], data["games"], data["sandbox"]) == (2, 1, "bwrap")
    assert data["decisions"] > 50
    assert data["refereed_ms_per_decision"] > 0 and data["floor_ms_per_decision"] > 0
    assert abs(data["ratio"] - data["refereed_ms_per_decision"]
               / data["floor_ms_per_decision"]) < 0.05
    assert data["target_ratio"] == 2.0
    bad = runner.invoke(app, ["bench", "game", "--players", "5"])
    assert bad.exit_code != 0 and "--players must be 2-4" in bad.output


def test_bench_start_times_each_bot_both_ways() -> None:
    r = runner.invoke(app, ["bench", "start", "--starts", "2", "--json",
                            "--bot", str(EXAMPLES / "random-py")])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    figures = data["bots"]["random-py"]
    assert data["starts"] == 2 and set(data["bots"]) == {"random-py"}
    assert figures["sandboxed_median_ms"] > 0 and figures["unsandboxed_median_ms"] > 0
    assert abs(figures["ratio"] - figures["sandboxed_median_ms"]
               / figures["unsandboxed_median_ms"]) < 0.05


@pytest.mark.parametrize("where", [
    "locally", pytest.param("on-a-cluster", marks=pytest.mark.slow)])
def test_bench_fields_counts_games_and_bot_processes_per_field(where: str) -> None:
    cluster = where == "on-a-cluster"
    if cluster:
        pytest.importorskip("distributed", reason="--cluster needs Dask")
    r = runner.invoke(app, ["bench", "fields", "--games", "4", "--no-sandbox", "--json",
                            *(["--cluster"] if cluster else [])])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)  # progress goes to stderr, field by field as it plays
    lines = r.stderr.splitlines()
    for n in (4, 8, 16):
        figures = data["fields"][str(n)]
        start = lines.index(f"{n} bots: starting each bot once, then 4 games")
        end = lines.index(f"{n} bots: 4 games, {figures['games_per_minute']:,.1f} a minute, "
                          f"{figures['bot_processes']} bot processes started")
        assert start < end
    assert data["concurrency"] == 2
    places = [("fields", "ratio"), *([("cluster_fields", "cluster_ratio")] if cluster else [])]
    for fields, ratio in places:
        assert set(data[fields]) == {"4", "8", "16"}
        for figures in data[fields].values():
            assert figures["games"] == 4 and figures["games_per_minute"] > 0
            # One table's four games: its four bots, started once in each of at most 2
            # workers (or one-slot cluster workers); the start checks are not counted.
            assert 4 <= figures["bot_processes"] <= 8
        gpm = {n: data[fields][n]["games_per_minute"] for n in ("8", "16")}
        assert abs(data[ratio] - gpm["16"] / gpm["8"]) < 0.01
    assert data["ratio_fields"] == [8, 16]
    assert data["kept_per_worker"] >= 8
    assert not cluster or data["cluster_kept_per_slot"] >= 8
    assert runner.invoke(app, ["bench", "fields", "--games", "3"]).exit_code != 0

def test_replay_names_a_decision_whose_recorded_action_differs(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    r = runner.invoke(app, ["play", "stoneage", "--players", "2", "--seed", "2",
                            "--record", str(record)])
    assert r.exit_code == 0
    data = json.loads(record.read_text())
    *_, by, action = data["decisions"][5]
    assert action["type"] and by == "fallback"
    data["decisions"][5][4] = {**action, "type": "something_else"}
    record.write_text(json.dumps(data))
    r = runner.invoke(app, ["replay", str(record)])
    assert r.exit_code == 1
    assert "decision 5" in r.output and "something_else" in r.output


def test_run_plays_a_small_tournament_whose_standings_the_standings_command_prints(
    tmp_path: Path, game: Game
) -> None:
    out = tmp_path / "out"
    file = tmp_path / "small.toml"
    file.write_text(
        f'name = "small"\ngame = "{game.name}"\nformat = "round-robin"\nplayers = 2\n'
        f'rounds = 1\nseed = 3\nconcurrency = 1\noutput = "{out}"\n'
        f'[[bots]]\npath = "{EXAMPLES / "random-py"}"\n'
        f'[[bots]]\npath = "{EXAMPLES / "random-js"}"\n'
    )
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        r = runner.invoke(app, ["run", str(file), "--plain"])
    finally:  # `arena run` installs its own handlers: keep pytest's
        for s, handler in saved.items():
            signal.signal(s, handler)
    assert r.exit_code == 0, r.output
    assert "small: 2/2 games, complete" in r.output
    records = sorted((out / "games").glob("*.json"))
    assert len(records) == 2
    for path in records:
        assert json.loads(path.read_text())["game"] == game.name
        ok = runner.invoke(app, ["replay", str(path)])
        assert ok.exit_code == 0 and "replay exactly" in " ".join(ok.output.split())
    s = runner.invoke(app, ["standings", str(out), "--json"])
    assert s.exit_code == 0, s.output
    data = json.loads(s.output)
    assert data["name"] == "small" and data["games"] == data["issued"] == 2
    assert sorted(b["name"] for b in data["bots"]) == ["random-js", "random-py"]
    text = runner.invoke(app, ["standings", str(out)], env={"COLUMNS": "120"})
    assert text.exit_code == 0 and "complete, 2 games" in text.output
