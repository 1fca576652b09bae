"""Bot processes kept between games (a Stable): real processes, real sockets."""

from __future__ import annotations

from pathlib import Path

from arena.engine import STONE_AGE
from arena.runner.bots import BotManifest, group_alive
from arena.runner.clock import TimeControl
from arena.runner.referee import Stable, play_game

ROOT = Path(__file__).resolve().parent.parent
RANDOM_PY = BotManifest.load(ROOT / "bots" / "examples" / "random-py")
RANDOM_JS = BotManifest.load(ROOT / "bots" / "examples" / "random-js")
CRASHER = BotManifest.load(ROOT / "bots" / "faulty" / "crash-mid-game")
FAST = TimeControl(handshake_ms=10_000, decision_ms=1_000, bank_ms=30_000)


def idle_pids(stable: Stable) -> dict[str, int]:
    return {name: s.process.pid for name, s in stable.idle.items()}


def test_kept_bots_serve_the_next_games_and_play_them_exactly_as_fresh_processes() -> None:
    stable = Stable(keep=4)
    seen: list[dict[str, int]] = []
    try:
        kept = []
        for seed, seats in ((1, [RANDOM_PY, RANDOM_JS]), (2, [RANDOM_JS, RANDOM_PY]),
                            (3, [RANDOM_PY, RANDOM_JS])):
            kept.append(play_game(STONE_AGE, seed, seats, FAST, stable=stable))
            seen.append(idle_pids(stable))
        pids = [p for snapshot in seen for p in snapshot.values()]
    finally:
        stable.close()
    # One process per bot served all three games, in either seat.
    assert seen[0] == seen[1] == seen[2] and set(seen[0]) == {"random-py", "random-js"}
    # Each game is the game fresh processes play: bots reseed from game_start's bot_seed.
    fresh = [
        play_game(STONE_AGE, 1, [RANDOM_PY, RANDOM_JS], FAST),
        play_game(STONE_AGE, 2, [RANDOM_JS, RANDOM_PY], FAST),
        play_game(STONE_AGE, 3, [RANDOM_PY, RANDOM_JS], FAST),
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
        record = play_game(STONE_AGE, 5, [RANDOM_PY, CRASHER], FAST, stable=stable)
        assert [t["reason"] for t in record.terminations] == ["ok", "crash"]
        assert set(stable.idle) == {"random-py"}
        pid = stable.idle["random-py"].process.pid
    finally:
        stable.close()
    assert not group_alive(pid)


def test_a_stable_that_keeps_nothing_stops_every_bot_after_its_game() -> None:
    stable = Stable(keep=0)
    try:
        record = play_game(STONE_AGE, 6, [RANDOM_PY, RANDOM_JS], FAST, stable=stable)
        assert stable.idle == {}
    finally:
        stable.close()
    assert [t["reason"] for t in record.terminations] == ["ok", "ok"]


def test_the_oldest_idle_bot_is_stopped_when_more_would_wait_than_kept() -> None:
    stable = Stable(keep=1)
    try:
        play_game(STONE_AGE, 7, [RANDOM_PY, RANDOM_JS], FAST, stable=stable)
        assert len(stable.idle) == 1
    finally:
        stable.close()
