"""Hostile bots that go after resources and hidden information (bots/hostile: fork-bomb,
memory-hog, seed-thief), each in real games with real processes, sockets and sandboxes: the
attack stays inside the attacker's limits, the victim plays its own game unblamed, and what is
hidden stays hidden unless the organiser published the seed or chose a guessable one."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine import get_game
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.referee import play_game
from arena.runner.game.sandbox import sandbox_problem
from arena.runner.play.config import parse_config
from arena.runner.play.tournament import Tournament

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "bots" / "hostile"
RANDOM = ROOT / "bots" / "examples" / "random-py"
STONE_AGE = get_game("stoneage")
# Generous: the attacks run at the start of a game, on the attacker's own clock.
SLOW_OK = TimeControl(handshake_ms=10_000, decision_ms=10_000, bank_ms=120_000)

needs_bwrap = pytest.mark.skipif(sandbox_problem() is not None,
                                 reason=f"no sandbox here: {sandbox_problem()}")


def own_copy(name: str, tmp_path: Path) -> Path:
    """A copy of a hostile bot in the test's folder (its processes are then found by their
    working directory, which no other test's share)."""
    folder = tmp_path / name
    shutil.copytree(HOSTILE / name, folder)
    return folder


def processes_in(folder: Path) -> list[int]:
    """Live processes whose working directory is ``folder``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (os.readlink(entry / "cwd") == str(folder)
                        and "Z" not in (entry / "stat").read_text().rsplit(")", 1)[1][:3]):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def log_of(folder: Path, bot: str) -> str:
    return "".join(p.read_text(encoding="utf-8", errors="replace")
                   for p in sorted(folder.rglob(f"*{bot}*.log")))


def attack_in_a_game(name: str, tmp_path: Path, seat: int) -> tuple[BotManifest, str]:
    """One sandboxed game of the hostile bot ``name`` (a copy) at ``seat`` against random-py:
    both must finish it "ok" (the attack breaks no rule, and the victim is not blamed).
    Returns the attacker's manifest and its log."""
    attacker = BotManifest.load(own_copy(name, tmp_path))
    bots = [BotManifest.load(RANDOM)]
    bots.insert(seat, attacker)
    record = play_game(STONE_AGE, 3, bots, SLOW_OK, log_dir=tmp_path / "logs")
    assert [t["reason"] for t in record.terminations] == ["ok", "ok"]
    return attacker, log_of(tmp_path / "logs", attacker.name)


@needs_bwrap
def test_a_fork_bomb_stops_at_its_limit_and_nothing_of_it_outlives_its_game(
    tmp_path: Path,
) -> None:
    bomb, log = attack_in_a_game("fork-bomb", tmp_path, seat=0)
    forked = re.search(r"hostile\[fork-bomb\]: forked (\d+), refused: .*errno 11", log)
    assert forked, log  # EAGAIN: the process limit, not the bomb's own cap
    assert 0 < int(forked.group(1)) < bomb.limits.processes
    assert processes_in(bomb.folder) == []


@needs_bwrap
def test_a_memory_hog_gets_its_limits_and_no_more_and_its_opponent_plays_on(
    tmp_path: Path,
) -> None:
    hog, log = attack_in_a_game("memory-hog", tmp_path, seat=1)
    held = re.search(r"held (\d+) MiB, refused: MemoryError", log)
    wrote = re.search(r"wrote (\d+) MiB to /tmp, refused: No space left on device", log)
    assert held and wrote, log
    assert 0 < int(held.group(1)) <= hog.limits.memory_mb
    assert 0 < int(wrote.group(1)) <= 256
    assert processes_in(hog.folder) == []


def thief_tournament(tmp_path: Path, name: str, seed: int | None) -> Path:
    """A sandboxed round-robin of the seed thief and random-py; the thief is told everything
    about it but a seed the file does not give."""
    thief = own_copy("seed-thief", tmp_path / name)
    # Its game seeds are derived from the master seed (63 bits): small ones are not tried.
    (thief / "attack.json").write_text(json.dumps({
        "format": "round-robin", "bots": ["hostile-seed-thief", "random-py"], "players": 2,
        "rounds": 1, "guesses": 64, "small_seeds": 0}), encoding="utf-8")
    data = {"name": name, "game": "stoneage", "format": "round-robin", "players": 2,
            "rounds": 1, "concurrency": 1, "output": str(tmp_path / name / "out"),
            "bots": [{"path": str(thief)}, {"path": str(RANDOM)}]}
    if seed is not None:
        data["seed"] = seed
    result = Tournament(parse_config(data, tmp_path / name / "t.toml")).run()
    assert result.complete and result.games_done == 2
    return tmp_path / name / "out"


@needs_bwrap
def test_the_seed_thief_recovers_nothing_from_a_tournament_without_a_seed(
    tmp_path: Path,
) -> None:
    # The control: with a guessable seed in the file, the thief works out every game seed,
    # and so every card and die (README: a seed in the file is public).
    public = log_of(thief_tournament(tmp_path, "public", 5), "hostile-seed-thief")
    assert len(re.findall(r"recovered game seed \d+ \(master seed 5,", public)) == 2, public
    # Without a seed, the master seed is drawn: no guess and no bot_seed reveals a game seed.
    secret = log_of(thief_tournament(tmp_path, "secret", None), "hostile-seed-thief")
    assert len(re.findall(r"not recovered \(\d+ candidates tried\)", secret)) == 2, secret
    assert "recovered game seed" not in secret


def arena_commands(tmp_path: Path, commands: dict[str, list[str]]) -> dict[str, str]:
    """Run ``arena`` commands at once, each a real process; each must succeed. Their standard
    outputs, by name."""
    procs = {name: subprocess.Popen(
        [sys.executable, "-m", "arena", *args], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
        for name, args in commands.items()}
    outputs = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"{name}: {stdout}{stderr}"
        outputs[name] = stdout
    return outputs


def drawn_seed(output: str, what: str) -> int:
    """The seed a command says it drew for ``what``."""
    said = re.search(r"seed (\d+) was drawn at random: --seed \1 plays " + what + " again",
                     output)
    assert said, output
    return int(said.group(1))


@needs_bwrap
def test_the_seed_thief_recovers_nothing_from_a_single_game_without_a_seed(
    tmp_path: Path,
) -> None:
    """`arena play` and `arena check-bot` without --seed draw a secret seed, named nowhere the
    thief can see: it tries every number in its game's id, its bot seed unkeyed and every
    game seed up to 100000, and recovers nothing. The controls, with a small --seed, are
    recovered, and so was every unseeded game before (seeds 0 and 1)."""
    thief = str(own_copy("seed-thief", tmp_path))
    out = arena_commands(tmp_path, {name: [*args, "--log-dir", str(tmp_path / "logs" / name)]
                                    for name, args in {
        "play": ["play", "stoneage", "--bot", thief, "--json"],
        "check": ["check-bot", thief],
        "play-control": ["play", "stoneage", "--bot", thief, "--seed", "4242"],
        "check-control": ["check-bot", thief, "--seed", "77"],
    }.items()})
    logs = {name: log_of(tmp_path / "logs" / name, "hostile-seed-thief") for name in out}
    seeds = {"play": json.loads(out["play"])["seed"],
             "check": drawn_seed(out["check"], "this check's game")}
    for name, seed in seeds.items():
        tried = re.search(r"hostile\[seed-thief\]: not recovered \((\d+) candidates tried\)",
                          logs[name])
        assert tried and int(tried.group(1)) > 100_000, logs[name]
        assert "recovered game seed" not in logs[name] and str(seed) not in logs[name]
        assert seed > 100_000  # 63 random bits: below it once in 10**13 draws
    assert "recovered game seed 4242 " in logs["play-control"], logs["play-control"]
    assert "recovered game seed 77 " in logs["check-control"], logs["check-control"]
    assert "was drawn" not in out["play-control"] + out["check-control"]


@needs_bwrap
def test_the_seed_thief_recovers_nothing_from_a_league_validation_without_a_seed(
    tmp_path: Path,
) -> None:
    """`arena league add` plays its validation game on a drawn seed unless given one."""
    thief = str(own_copy("seed-thief", tmp_path))
    arena_commands(tmp_path, {name: ["league", "init", str(tmp_path / name), "--game",
                                     "stoneage"] for name in ("secret", "public")})
    out = arena_commands(tmp_path, {"secret": ["league", "add", str(tmp_path / "secret"), thief],
                                    "public": ["league", "add", str(tmp_path / "public"), thief,
                                               "--seed", "303"]})
    seed = drawn_seed(out["secret"], "this validation game")
    secret = log_of(tmp_path / "secret" / "logs" / "validation", "hostile-seed-thief")
    assert re.search(r"not recovered \(\d+ candidates tried\)", secret), secret
    assert "recovered game seed" not in secret and str(seed) not in secret
    public = log_of(tmp_path / "public" / "logs" / "validation", "hostile-seed-thief")
    assert "recovered game seed 303 " in public, public
    assert "was drawn" not in out["public"]


@needs_bwrap
def test_check_bot_fails_the_fork_bomb_for_the_processes_it_leaves(tmp_path: Path) -> None:
    from arena.runner.game.checkbot import check_bot

    checks = check_bot(HOSTILE / "fork-bomb", STONE_AGE, 1, SLOW_OK, tmp_path)
    assert [c.name for c in checks if not c.passed] == ["shutdown"]
    found = re.search(r"left processes behind in its sandbox: (\d+)", checks[-1].detail)
    assert found and int(found.group(1)) > 10, checks[-1].detail
