"""``arena bench stats``: how long ``arena stats`` takes on large journals, and how the cost
grows with games and bots.

Each run writes a real journal (SQLite, through :class:`~arena.runner.play.journal.Journal`) of a
synthetic round of tables (:mod:`arena.stats.synthetic`: bots of known strengths, seat
rotations sharing a seed) in a temporary folder, then times what ``arena stats`` does: read
the journal, count head to head and seats, fit Plackett–Luce and bootstrap it. The journal is
written with SQLite's synchronisation off (a benchmark's journal need not survive a crash);
its writing is timed apart and is not part of the figures.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.results import Pairing
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.reading import read_progress
from arena.stats.plackett_luce import plackett_luce
from arena.stats.summary import tournament_stats
from arena.stats.synthetic import synthetic_bots, synthetic_outcomes
from arena.stats.tables import head_to_head, seats


def write_journal(folder: Path, bots: int, players: int, games: int, seed: int) -> int:
    """A journal of about ``games`` synthetic games in ``folder``; returns how many."""
    theta = synthetic_bots(bots, seed)
    outcomes = synthetic_outcomes(theta, players, games, seed, seat_advantage=0.2, luck=0.5)
    journal = Journal(folder / JOURNAL)
    try:
        journal.bind({"name": f"bench-stats-{bots}-{games}", "game": "synthetic",
                      "players": players, "bots": [{"name": b} for b in sorted(theta)]},
                     f"synthetic, {bots} bots, {players}-player tables, {len(outcomes)} games")
        journal.db.execute("PRAGMA synchronous=OFF")
        journal.keep_ratings = False  # a rating checkpoint with each game: not timed here
        journal.add_pairings([Pairing(o.game_id, o.index, o.round, o.table, o.bots, o.seed)
                              for o in outcomes])
        for o in outcomes:
            journal.record_result(o, f"games/{o.game_id}.json", 0.0)
    finally:
        journal.close()
    return len(outcomes)


def _timed(f: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    value = f(*args, **kwargs)
    return value, time.perf_counter() - start


def bench_run(bots: int, players: int, games: int, replicates: int, seed: int) -> dict[str, Any]:
    """One journal's figures: seconds per step, and the whole of ``arena stats``."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-stats-") as tmp:
        written, build = _timed(write_journal, Path(tmp), bots, players, games, seed)
        progress, read = _timed(read_progress, tmp)
    outcomes = progress.outcomes
    _, h2h = _timed(head_to_head, outcomes, progress.bots)
    _, seat = _timed(seats, outcomes)
    _, fit = _timed(plackett_luce, outcomes, progress.bots, replicates=0, seed=seed)
    _, full = _timed(tournament_stats, outcomes, progress.bots, replicates=replicates,
                     seed=seed)
    return {"bots": bots, "players": players, "games": written, "replicates": replicates,
            "write_seconds": build, "read_seconds": read, "head_to_head_seconds": h2h,
            "seats_seconds": seat, "fit_seconds": fit, "stats_seconds": full,
            "total_seconds": read + full}


def bench_stats(games: Sequence[int], bots: Sequence[int], players: int, replicates: int,
                seed: int) -> dict[str, Any]:
    """Every combination of ``games`` and ``bots``, and how the total grows: the ratio of
    the largest to the smallest games at each bot count, and of bots at each game count."""
    runs = [bench_run(b, players, g, replicates, seed) for b in bots for g in games]
    total = {(r["bots"], r["games"]): r["total_seconds"] for r in runs}
    written = {(r["bots"], g): r["games"] for r in runs for g in games
               if abs(r["games"] - g) < players}
    growth: dict[str, float] = {}
    g_lo, g_hi = min(games), max(games)
    b_lo, b_hi = min(bots), max(bots)
    if g_hi > g_lo:
        for b in bots:
            growth[f"{b} bots, {g_hi} / {g_lo} games"] = (
                total[(b, written[(b, g_hi)])] / total[(b, written[(b, g_lo)])])
    if b_hi > b_lo:
        for g in games:
            growth[f"{g} games, {b_hi} / {b_lo} bots"] = (
                total[(b_hi, written[(b_hi, g)])] / total[(b_lo, written[(b_lo, g)])])
    return {"players": players, "replicates": replicates, "seed": seed, "runs": runs,
            "growth": growth}
