"""Hostile bots that go after resources and hidden information (bots/hostile: fork-bomb,
memory-hog, seed-thief), each in real games with real processes, sockets and sandboxes: the
attack stays inside the attacker's limits, the victim plays its own game unblamed, and what is
hidden stays hidden unless the organiser published the seed."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from arena.engine import get_game
from arena.runner.bots import BotManifest
from arena.runner.clock import TimeControl
from arena.runner.config import parse_config
from arena.runner.referee import play_game
from arena.runner.sandbox import sandbox_problem
from arena.runner.tournament import Tournament

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
    (thief / "attack.json").write_text(json.dumps({
        "format": "round-robin", "bots": ["hostile-seed-thief", "random-py"], "players": 2,
        "rounds": 1, "guesses": 64}), encoding="utf-8")
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


@needs_bwrap
def test_check_bot_fails_the_fork_bomb_for_the_processes_it_leaves(tmp_path: Path) -> None:
    from arena.runner.checkbot import check_bot

    checks = check_bot(HOSTILE / "fork-bomb", STONE_AGE, 1, SLOW_OK, tmp_path)
    assert [c.name for c in checks if not c.passed] == ["shutdown"]
    found = re.search(r"left processes behind in its sandbox: (\d+)", checks[-1].detail)
    assert found and int(found.group(1)) > 10, checks[-1].detail
