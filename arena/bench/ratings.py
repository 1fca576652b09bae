"""``arena bench ratings``: how long ``arena standings`` takes on a large journal read from its
rating checkpoint, against the full TrueSkill replay it did before, in one run.

The journal is a real SQLite file of synthetic games (:func:`arena.bench.stats.write_journal`),
written at once without checkpoints (its writing is timed apart and not counted). The full
replay is what ``arena standings`` did before checkpoints: read every game, rate every game.
Its tracker then becomes the journal's checkpoint, and ``arena standings``' reading
(:func:`~arena.runner.play.journal.read_standings`) is timed, its standings checked to be the
replay's byte for byte.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.bench.stats import write_journal
from arena.runner.play.journal import JOURNAL, Journal, read_progress, read_standings
from arena.runner.play.ratings import RatingTracker

#: The issue's targets at a million games, in seconds.
STANDINGS_TARGET_S = 2.0


def bench_ratings(games: int, bots: int, players: int, seed: int) -> dict[str, Any]:
    """Seconds of the full replay and of the checkpoint's reading, on a journal of about
    ``games`` games among ``bots`` bots at tables of ``players``."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-ratings-") as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        written = write_journal(folder, bots, players, games, seed)
        write_s = time.perf_counter() - start

        start = time.perf_counter()
        progress = read_progress(folder)
        tracker = RatingTracker(progress.bots)
        tracker.add_all(progress.outcomes)
        replayed = tracker.standings()
        replay_s = time.perf_counter() - start

        journal = Journal(folder / JOURNAL)
        try:
            journal.write_checkpoint(tracker)
        finally:
            journal.close()
        size = (folder / JOURNAL).stat().st_size

        start = time.perf_counter()
        _, read = read_standings(folder)
        read_s = time.perf_counter() - start
    same = json.dumps(read.to_dict()) == json.dumps(replayed.to_dict())
    return {"games": written, "bots": bots, "players": players,
            "write_seconds": write_s, "journal_bytes": size,
            "replay_seconds": replay_s, "checkpoint_seconds": read_s,
            "speedup": replay_s / read_s if read_s else None,
            "identical": same, "target_seconds": STANDINGS_TARGET_S}
