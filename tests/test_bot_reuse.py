"""Bot processes kept between games (a Stable): real processes, real sockets."""

from __future__ import annotations

from pathlib import Path

from arena.engine import Game
from arena.engine.stoneage import STONE_AGE
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.processes import group_alive
from arena.runner.game.referee import play_game
from arena.runner.game.stable import Stable

ROOT = Path(__file__).resolve().parent.parent
RANDOM_PY = BotManifest.load(ROOT / "bots" / "examples" / "random-py")
RANDOM_JS = BotManifest.load(ROOT / "bots" / "examples" / "random-js")
CRASHER = BotManifest.load(ROOT / "bots" / "faulty" / "crash-mid-game")
# Generous: a timed-out decision would play a fallback, and the kept and fresh games differ.
CLOCK = TimeControl(handshake_ms=10_000, decision_ms=10_000, bank_ms=60_000)


def idle_pids(stable: Stable) -> dict[str, int]:
    return {name: s.process.pid for name, s in stable.idle.items()}


def test_kept_bots_serve_the_next_games_and_play_them_exactly_as_fresh_processes(
    game: Game,
) -> None:
    stable = Stable(keep=4)
    seen: list[dict[str, int]] = []
    try:
        kept = []
        for seed, seats in ((1, [RANDOM_PY, RANDOM_JS]), (2, [RANDOM_JS, RANDOM_PY]),
                            (3, [RANDOM_PY, RANDOM_JS])):
            kept.append(play_game(game, seed, seats, CLOCK, stable=stable))
            seen.append(idle_pids(stable))
        pids = [p for snapshot in seen for p in snapshot.values()]
    finally:
        stable.close()
    # One process per bot served all three games, in either seat.
    assert seen[0] == seen[1] == seen[2] and set(seen[0]) == {"random-py", "random-js"}
    # Each game is the game fresh processes play: bots reseed from game_start's bot_seed.
    fresh = [
        play_game(game, 1, [RANDOM_PY, RANDOM_JS], CLOCK),
        play_game(game, 2, [RANDOM_JS, RANDOM_PY], CLOCK),
        play_game(game, 3, [RANDOM_PY, RANDOM_JS], CLOCK),
    ]
    for a, b in zip(kept, fresh, strict=True):
        assert [d[:2] for d in a.decisions] == [d[:2] for d in b.decisions]
        assert a.result == b.result
        assert [t["reason"] for t in a.terminations] == ["ok", "ok"]
    # Closing the stable stops every kept process and its group.
    assert not any(group_alive(pid) for pid in pids)


def test_a_bot_that_failed_is_never_kept_and_the_others_are() -> None:
    stable = Stable(keep=4)
    try:
        record = play_game(STONE_AGE, 5, [RANDOM_PY, CRASHER], CLOCK, stable=stable)
        assert [t["reason"] for t in record.terminations] == ["ok", "crash"]
        assert set(stable.idle) == {"random-py"}
        pid = stable.idle["random-py"].process.pid
    finally:
        stable.close()
    assert not group_alive(pid)


def test_a_stable_that_keeps_nothing_stops_every_bot_after_its_game() -> None:
    stable = Stable(keep=0)
    try:
        record = play_game(STONE_AGE, 6, [RANDOM_PY, RANDOM_JS], CLOCK, stable=stable)
        assert stable.idle == {}
    finally:
        stable.close()
    assert [t["reason"] for t in record.terminations] == ["ok", "ok"]


def test_the_oldest_idle_bot_is_stopped_when_more_would_wait_than_kept() -> None:
    stable = Stable(keep=1)
    try:
        play_game(STONE_AGE, 7, [RANDOM_PY, RANDOM_JS], CLOCK, stable=stable)
        assert len(stable.idle) == 1
    finally:
        stable.close()


def _run_tournament(tmp_path: Path, reuse: bool) -> list[str]:
    import subprocess
    import sys

    folder = tmp_path / ("reuse" if reuse else "fresh")
    folder.mkdir()
    toml = folder / "t.toml"
    toml.write_text(
        'name = "reuse-check"\ngame = "stoneage"\nformat = "round-robin"\nplayers = 2\n'
        f'rounds = 2\nseed = 3\nconcurrency = 1\nreuse_bots = {"true" if reuse else "false"}\n'
        f'output = "{folder / "out"}"\n'
        f'[[bots]]\npath = "{ROOT / "bots" / "examples" / "random-py"}"\n'
        f'[[bots]]\npath = "{ROOT / "bots" / "examples" / "greedy-py"}"\n'
    )
    done = subprocess.run([sys.executable, "-m", "arena", "run", str(toml), "--plain"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "4/4 games, complete" in done.stdout
    return sorted(p.name for p in (folder / "out" / "logs").glob("*.log"))


def test_a_tournament_starts_each_bot_once_per_worker_or_fresh_per_game_if_asked(
    tmp_path: Path,
) -> None:
    kept = _run_tournament(tmp_path, reuse=True)
    fresh = _run_tournament(tmp_path, reuse=False)
    # One worker: one process per bot for all 4 games, against one per game and seat.
    assert len(kept) == 2 and {n.split("-")[0] for n in kept} == {"random", "greedy"}
    assert len(fresh) == 8 and all("-seat" in n for n in fresh)
