"""Games go where their bots already live: the local executor sends each game to the worker
that keeps most of its bots, the tournament starts first the queued game a free worker keeps
most bots of, and what a worker keeps is sized to memory. Real processes, no timed
assertions; standings never depend on where or in which order games are played."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import TEST_SEED_KEY
from test_lazy_schedules import Scripted
from test_tournament_e2e import (
    EXAMPLES,
    assert_schedule_played_once,
    read_journal,
    schedule_of,
    standings_doc,
    write_tournament,
)

from arena.engine import Game
from arena.results import Pairing
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.play import ring as ring_module
from arena.runner.play.affinity import LOOKAHEAD, WorkerView, keep_for_memory
from arena.runner.play.config import load_config
from arena.runner.play.executor import LocalExecutor
from arena.runner.play.job import GameJob, JobResult, JobStatus, record_file
from arena.runner.play.ring import RunOptions
from arena.runner.play.tournament import Tournament

GIB = 1024**3


def random_bots(folder: Path, names: list[str]) -> list[Path]:
    """Copies of the example random-py under ``names``, in ``folder``."""
    out = []
    for name in names:
        bot = folder / name
        shutil.copytree(EXAMPLES / "random-py", bot)
        manifest = (bot / "bot.toml").read_text(encoding="utf-8")
        (bot / "bot.toml").write_text(manifest.replace('"random-py"', f'"{name}"'),
                                      encoding="utf-8")
        out.append(bot)
    return out


def bot_logs(logs: Path) -> list[str]:
    """The bot processes the games started: a kept process writes one log,
    ``<bot>-<worker pid>-<n>.log``, across its games."""
    return sorted(p.name for p in logs.glob("*.log"))


def test_each_game_goes_to_the_free_worker_that_keeps_its_bots(
    tmp_path: Path, dicerace: Game,
) -> None:
    """Two groups of four bots, a worker keeping four: once each worker holds a group, a game
    of either group goes to its worker whichever is given first, so no bot starts twice."""
    a = [f"a{k}" for k in range(4)]
    b = [f"b{k}" for k in range(4)]
    manifests = {bot.name: BotManifest.load(bot) for bot in random_bots(tmp_path / "bots", a + b)}
    game = dicerace
    out = tmp_path / "out"
    time_control = TimeControl(handshake_ms=10_000, decision_ms=2_000).to_dict()

    def job(index: int, bots: list[str]) -> GameJob:
        p = Pairing(f"g{index:03d}", index, index, 0, tuple(bots), 100 + index)
        return GameJob(p, game, manifests, time_control, str(record_file(out, p.game_id)),
                       str(out / "logs"), TEST_SEED_KEY, sandbox="none")

    executor = LocalExecutor(2, keep_bots=4)
    placed: list[dict[int, WorkerView]] = []
    results: list[JobResult] = []
    try:
        index = 0
        # First A then B; then, with both workers free, B first, then A, then B again.
        for groups in ([a, b], [b, a], [b, a], [a, b]):
            for group in groups:
                executor.submit(job(index, group))
                index += 1
            placed.append(executor.worker_views())
            while len(results) < index:
                results += executor.poll(5.0)
    finally:
        executor.shutdown(abandon=False)
    assert [r.status for r in results] == [JobStatus.DONE] * 8
    # Each worker ends its games keeping its group, and is given only that group's games.
    for r in results:
        assert set(r.kept) in (set(a), set(b))
    for views in placed:
        assert views[0].playing == frozenset(a) and views[1].playing == frozenset(b)
    logs = bot_logs(out / "logs")
    assert len(logs) == 8, logs  # one process per bot for all eight games
    for group in (a, b):  # a group's processes all in one worker
        assert len({name.split("-")[1] for name in logs if name.split("-")[0] in group}) == 1


def fields_file(tmp_path: Path, name: str, bots: list[Path], **fields: Any) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    settings: dict[str, Any] = {"max_games": 24, "concurrency": 2, **fields}
    return write_tournament(folder, "t.toml", name="fields", output=folder / "out", bots=bots,
                            game="dicerace", players=4, rounds=1, sandbox="none", seed=5,
                            time_control={"handshake_ms": 10_000, "decision_ms": 2_000},
                            **settings)


def test_a_field_larger_than_the_old_keep_starts_each_bot_once_per_worker_and_standings_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dicerace: Game,
) -> None:
    """Twelve bots at 4-player tables, two workers: with 8 GB available each worker keeps 16
    (not the 8 of before), so no bot starts twice in a worker; the standings are those of the
    same tournament with a fresh process for every game."""
    bots = random_bots(tmp_path / "bots", [f"r{k:02d}" for k in range(12)])
    monkeypatch.setattr(ring_module, "available_memory", lambda: 8 * GIB)
    keeps: list[int] = []

    def local(workers: int, keep: int) -> LocalExecutor:
        keeps.append(keep)
        return LocalExecutor(workers, keep)

    kept_file = fields_file(tmp_path, "kept", bots, max_games=12)
    kept = Tournament(load_config(kept_file), RunOptions(local)).run()
    fresh_file = fields_file(tmp_path, "fresh", bots, reuse_bots=False, max_games=12)
    fresh = Tournament(load_config(fresh_file), RunOptions(local)).run()

    assert keeps == [keep_for_memory(8 * GIB, 2), 0] == [16, 0]
    assert kept.complete and fresh.complete and kept.games_done == fresh.games_done == 12
    kept_out, fresh_out = kept_file.parent / "out", fresh_file.parent / "out"
    assert_schedule_played_once(read_journal(kept_out), schedule_of(kept_file))
    started = bot_logs(kept_out / "logs")
    assert len(started) <= 2 * 12, started  # at most once per bot and worker
    assert len(bot_logs(fresh_out / "logs")) == 12 * 4  # fresh: one per game and seat
    assert standings_doc(kept_out)["standings"] == standings_doc(fresh_out)["standings"]


class Keeping(Scripted):
    """The scripted executor (it plays nothing), with one free worker that keeps every bot but
    ``shunned``: the games seating it are the last choice of the look-ahead."""

    def __init__(self, journal: Path, shunned: str, bots: list[str]) -> None:
        super().__init__(journal)
        self.view = WorkerView(kept=frozenset(bots) - {shunned})

    def worker_views(self) -> dict[int, WorkerView]:
        return {0: self.view}


def test_the_look_ahead_changes_only_the_order_of_play_and_never_passes_a_game_over_for_long(
    tmp_path: Path,
) -> None:
    names = [f"r{k}" for k in range(7)]
    bots = random_bots(tmp_path / "bots", names)

    def file(name: str) -> Path:
        folder = tmp_path / name
        folder.mkdir()
        return write_tournament(folder, "t.toml", name="ahead", output=folder / "out",
                                bots=bots, rounds=2, sandbox="none")

    ahead_file, plain_file = file("ahead"), file("plain")
    ahead = Keeping(ahead_file.parent / "out" / "journal.sqlite", "r0", names)
    plain = Scripted(plain_file.parent / "out" / "journal.sqlite")
    Tournament(load_config(ahead_file), RunOptions(ahead)).run()
    Tournament(load_config(plain_file), RunOptions(plain)).run()

    schedule = schedule_of(ahead_file)
    played = [p.index for p, _, _ in ahead.submitted]
    assert [p.index for p, _, _ in plain.submitted] == list(range(len(schedule)))
    assert sorted(played) == list(range(len(schedule))) and played != sorted(played)
    # The first game waiting is passed over at most LOOKAHEAD times in a row.
    waiting, run, longest = set(played), 0, 0
    for index in played:
        run = 0 if index == min(waiting) else run + 1
        longest = max(longest, run)
        waiting.discard(index)
    assert 0 < longest <= LOOKAHEAD
    for f in (ahead_file, plain_file):
        assert_schedule_played_once(read_journal(f.parent / "out"), schedule)
    assert standings_doc(ahead_file.parent / "out")["standings"] == \
        standings_doc(plain_file.parent / "out")["standings"]

