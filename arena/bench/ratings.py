"""``arena bench ratings``: how long ``arena standings`` and ``arena report`` take on a large
journal read from its rating checkpoint and history, against the full TrueSkill replay they did
before, in one run.

The journal is a real SQLite file of synthetic games (:func:`arena.bench.stats.write_journal`),
written at once without checkpoints (its writing is timed apart and not counted). The full
replay is what ``arena standings`` did before checkpoints: read every game, rate every game.
Its tracker then becomes the journal's checkpoint and history, and ``arena standings``'
reading (:func:`~arena.runner.play.reading.read_standings`) is timed, its standings checked to
be the replay's byte for byte; with ``report``, the report's page (without replay pages) is
made both ways and timed, and the two pages compared byte for byte.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.bench.stats import write_journal
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.reading import read_progress, read_standings

#: The issue's targets at a million games, in seconds.
STANDINGS_TARGET_S = 2.0
REPORT_TARGET_S = 10.0


def _report(folder: Path, ratings: bool, replicates: int) -> tuple[str, float]:
    """``arena report``'s page of ``folder`` (its journal read with or without the ratings
    kept) and the seconds it took."""
    from arena.report.html import build_report

    start = time.perf_counter()
    progress = read_progress(folder, records=True, ratings=ratings)
    page = build_report(progress, folder, folder / "report.html", True, replicates=replicates,
                        seed=0)
    return page, time.perf_counter() - start


def bench_ratings(games: int, bots: int, players: int, seed: int,
                  report: bool = False, replicates: int = 200) -> dict[str, Any]:
    """Seconds of the full replay and of the checkpoint's reading, on a journal of about
    ``games`` games among ``bots`` bots at tables of ``players``; with ``report``, also of
    the report both ways (``replicates``: its bootstrap's)."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-ratings-") as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        written = write_journal(folder, bots, players, games, seed)
        write_s = time.perf_counter() - start

        start = time.perf_counter()
        progress = read_progress(folder)
        tracker = RatingTracker(progress.bots)
        tracker.log = []  # the rating history, written with the checkpoint
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
        figures: dict[str, Any] = {}
        if report:
            page, replay_report_s = _report(folder, False, replicates)
            kept_page, kept_report_s = _report(folder, True, replicates)
            figures = {"report_replay_seconds": replay_report_s,
                       "report_checkpoint_seconds": kept_report_s,
                       "report_identical": kept_page == page,
                       "report_target_seconds": REPORT_TARGET_S}
    same = json.dumps(read.to_dict()) == json.dumps(replayed.to_dict())
    return {**figures, "games": written, "bots": bots, "players": players,
            "write_seconds": write_s, "journal_bytes": size,
            "replay_seconds": replay_s, "checkpoint_seconds": read_s,
            "speedup": replay_s / read_s if read_s else None,
            "identical": same, "target_seconds": STANDINGS_TARGET_S}


def figure_rows(f: dict[str, Any]) -> list[tuple[str, str]]:
    """:func:`bench_ratings`' figures as (figure, value) rows, each beside its target."""
    head = f"{f['games']:,} games"
    rows = [(f"{head}: standings, full replay", f"{f['replay_seconds']:.2f} s"),
            (f"{head}: standings, from the checkpoint", f"{f['checkpoint_seconds']:.3f} s"),
            ("ratio (replay / checkpoint)", f"× {f['speedup']:.0f}"),
            ("target (a million games)", f"≤ {f['target_seconds']:.0f} s"),
            ("byte-identical to the replay", "yes" if f["identical"] else "NO")]
    if "report_identical" in f:
        rows += [(f"{head}: report, full replay", f"{f['report_replay_seconds']:.2f} s"),
                 (f"{head}: report, from the checkpoint",
                  f"{f['report_checkpoint_seconds']:.2f} s"),
                 ("ratio (replay / checkpoint)",
                  f"× {f['report_replay_seconds'] / f['report_checkpoint_seconds']:.1f}"),
                 ("target (a million games)", f"≤ {f['report_target_seconds']:.0f} s"),
                 ("report byte-identical to the replay's",
                  "yes" if f["report_identical"] else "NO")]
    rows += [("journal size", f"{f['journal_bytes'] / 2**20:.1f} MiB"),
             (f"{head}: write the journal (not counted)", f"{f['write_seconds']:.1f} s")]
    return rows
