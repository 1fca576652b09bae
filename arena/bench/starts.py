"""The start benchmark: how long a bot takes from its process's start to its hello, with and
without the sandbox."""

from __future__ import annotations

import time
from pathlib import Path
from statistics import median
from typing import Any

from arena.engine import get_game


def bench_start(bots: list[Path], starts: int) -> dict[str, Any]:
    """Start-to-hello of each bot with and without the sandbox: the time from starting its
    process to its hello being accepted, median of ``starts`` starts each, alternating the two
    ways so both see the same machine load."""
    from arena.runner.game.manifest import BotManifest
    from arena.runner.game.referee import Referee

    game = get_game("stoneage")
    figures: dict[str, Any] = {"starts": starts, "bots": {}}
    for path in bots:
        manifest = BotManifest.load(path)
        times: dict[str, list[float]] = {"bwrap": [], "none": []}
        for k in range(2 * starts):
            mode = "bwrap" if k % 2 == 0 else "none"
            referee = Referee(game, k, [manifest, None], sandbox=mode, game_id=f"start-{k}")
            try:
                t0 = time.perf_counter()
                referee.launch()
                referee.handshake()
                times[mode].append((time.perf_counter() - t0) * 1000)
            finally:
                referee.kill_all()
                referee.close()
        sandboxed, bare = median(times["bwrap"]), median(times["none"])
        figures["bots"][manifest.name] = {
            "sandboxed_median_ms": round(sandboxed, 1),
            "unsandboxed_median_ms": round(bare, 1),
            "ratio": round(sandboxed / bare, 2),
        }
    return figures
