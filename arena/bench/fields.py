"""The fields' benchmark: games a minute as a round-robin's field of bots grows, locally and
on a local cluster."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

#: The fields of :func:`bench_fields`: bots in the round-robin.
FIELDS = (4, 8, 16)


#: How often :func:`bench_fields` says how far a field has got, at most (seconds).
PROGRESS_EVERY_S = 10.0


class FieldProgress:
    """How far a field of :func:`bench_fields` has got, a line to ``say`` at most every
    :data:`PROGRESS_EVERY_S` while its games are played: the benchmark takes minutes."""

    def __init__(self, say: Callable[[str], None], label: str, games: int) -> None:
        self.say, self.label, self.games = say, label, games
        self.last = time.monotonic()
        self.done = 0

    def __call__(self, snapshot: Any) -> None:
        now = time.monotonic()
        if snapshot.games_done != self.done and now - self.last >= PROGRESS_EVERY_S:
            self.say(f"{self.label}: {snapshot.games_done}/{self.games} games")
            self.last, self.done = now, snapshot.games_done


def bench_fields(games: int, seed: int, fields: tuple[int, ...] = FIELDS,
                 sandbox: str = "bwrap", concurrency: int = 2,
                 cluster: Callable[[Path, int], AbstractContextManager[tuple[Any, int]]]
                 | None = None, say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Round-robins of ``fields`` random bots (copies of the example random-py under names of
    their own) at 4-player tables, ``games`` games each (a balanced subset of the schedule),
    one after the other at ``concurrency``, with bot processes kept as by default.

    Per field: games per minute while games were played (from the first game's start to the
    last one's end, by the journal: the start check of every bot before the first game is
    left out, as it grows with the field and not with the games), and the bot processes the
    games started (a kept process writes one log across its games, so the logs are counted).
    And the 16-bot ÷ 8-bot games per minute, or of whichever two fields are largest; and how
    many bots a worker keeps (sized to the memory available now).

    With ``cluster`` (:func:`arena.bench.cluster.local_cluster`), the same fields again on a
    local Dask cluster started for it (a scheduler and ``concurrency`` ``arena worker``
    processes of one slot each): the same figures under ``cluster_fields``
    (the bot processes counted from the logs the workers send home) and ``cluster_ratio``, and
    how many bots a slot keeps there, as the workers said.

    ``say`` is given progress lines as the fields are played (:class:`FieldProgress`), and a
    line with each field's figures as it ends.
    """
    import tempfile

    from arena.runner.play.affinity import available_memory, keep_for_memory

    figures: dict[str, Any] = {
        "games": games, "players": 4, "concurrency": concurrency, "sandbox": sandbox,
        "kept_per_worker": keep_for_memory(available_memory(), concurrency), "fields": {},
    }
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        base = Path(tmp)
        for n in fields:
            figures["fields"][str(n)] = _play_field(base / f"field-{n}", n, games, seed,
                                                    concurrency, sandbox, say=say)
        if cluster is not None:
            with cluster(base / "cluster", concurrency) as (on, kept):
                figures["cluster_kept_per_slot"] = kept
                figures["cluster_fields"] = {
                    str(n): _play_field(base / f"cluster-field-{n}", n, games, seed,
                                        concurrency, sandbox, on, say)
                    for n in fields}
    big = sorted(fields)[-2:]
    if len(big) == 2:
        figures["ratio_fields"] = big
        for where, ratio in (("fields", "ratio"), ("cluster_fields", "cluster_ratio")):
            if where in figures:
                a, b = (figures[where][str(k)]["games_per_minute"] for k in big)
                figures[ratio] = round(b / a, 2)
    return figures


def _play_field(folder: Path, n: int, games: int, seed: int, concurrency: int, sandbox: str,
                cluster: Any = None, say: Callable[[str], None] | None = None
                ) -> dict[str, Any]:
    """One field of :func:`bench_fields`, played locally or on ``cluster``
    (:class:`arena.runner.cluster.executor.Cluster`): its games, games per minute, bot processes;
    progress to ``say``."""
    import math
    import shutil
    import sqlite3

    from arena.runner.cluster.executor import executor_factory
    from arena.runner.play.config import parse_config
    from arena.runner.play.journal import JOURNAL
    from arena.runner.play.ring import RunOptions
    from arena.runner.play.schedule.shape import schedule_size
    from arena.runner.play.tournament import Tournament

    example = Path(__file__).resolve().parents[2] / "bots" / "examples" / "random-py"
    bots = []
    for k in range(n):
        bot = folder / "bots" / f"random-{k:02d}"
        shutil.copytree(example, bot)
        toml = (bot / "bot.toml").read_text()
        (bot / "bot.toml").write_text(toml.replace('"random-py"', f'"random-{k:02d}"'))
        bots.append({"path": str(bot)})
    per_round = schedule_size("round-robin", n, 0, 4, 1, True)
    data = {
        "name": f"bench-fields-{n}", "game": "stoneage", "format": "round-robin",
        "players": 4, "rounds": math.ceil(games / per_round), "max_games": games,
        "seed": seed, "concurrency": concurrency, "output": str(folder / "out"),
        "bots": bots, "sandbox": sandbox,
    }
    config = parse_config(data, folder / "bench.toml")
    factory = executor_factory(cluster, config.bots) if cluster is not None else None
    label = f"{'cluster, ' if cluster is not None else ''}{n} bots"
    if say is not None:
        say(f"{label}: starting each bot once, then {games} games")
    progress = FieldProgress(say, label, games) if say is not None else None
    result = Tournament(config, RunOptions(factory, on_snapshot=progress)).run()
    db = sqlite3.connect(folder / "out" / JOURNAL)
    try:
        first, last = db.execute(
            "SELECT MIN(finished_at - duration_s), MAX(finished_at) FROM results"
        ).fetchone()
    finally:
        db.close()
    # A log per process the games started: a kept one's spans its games (a cluster's is in
    # a folder of its worker's slot); the bots' builds, and start checks whose process was
    # not kept, log apart; a kept process that was checked but played no game is not counted.
    logs = folder / "out" / "logs"
    apart = {"start-check", "build"}
    started = [p for p in logs.rglob("*.log")
               if not apart & set(p.relative_to(logs).parts) and _played(p)]
    figures = {
        "games": result.games_done,
        "games_per_minute": round(result.games_done / (last - first) * 60, 1),
        "bot_processes": len(started),
    }
    if say is not None:
        say(f"{label}: {figures['games']} games, {figures['games_per_minute']:,.1f} a minute, "
            f"{figures['bot_processes']} bot processes started")
    return figures


def _played(log: Path) -> bool:
    """Whether the bot process that wrote ``log`` played a game (one started for its start
    check and kept may have played none)."""
    text = log.read_bytes()
    return not text.startswith(b"[arena: start check]") or b"[arena: game " in text
