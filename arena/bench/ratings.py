"""``arena bench ratings``: how long ``arena standings`` and ``arena report`` take on a large
journal read from its rating checkpoint and history, against the full TrueSkill replay they did
before, in one run.

The journal is a real SQLite file of synthetic games (:func:`arena.bench.stats.write_journal`),
written at once without checkpoints (its writing is timed apart and not counted). The full
replay is what ``arena standings`` did before checkpoints: read every game, rate every game.
Its tracker then becomes the journal's checkpoint and history, and ``arena standings``'
reading (:func:`~arena.runner.play.reading.read_standings`) is timed, its standings checked to
be the replay's byte for byte; with ``report``, the report's page (without replay pages) is
made both ways and timed, and the two pages compared byte for byte. The report is timed
twice: cold, without the columns a report keeps beside the journal
(:mod:`~arena.runner.play.column_cache`: every game read, and kept), and warm, with them (what
a report after another, or the first after a league run that stopped, pays); the command too.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.bench.stats import write_journal
from arena.report.html import LARGE_FIELD
from arena.runner.play.column_cache import CACHE
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.reading import read_progress, read_report, read_standings

#: The issue's targets at a million games, in seconds.
STANDINGS_TARGET_S = 2.0
REPORT_TARGET_S = 10.0
#: The file beside a kept journal that says which arguments made it, and the figures of its
#: making.
MADE = "bench-ratings.json"


def _report(folder: Path, ratings: bool, replicates: int) -> tuple[str, float]:
    """``arena report``'s page of ``folder`` (its journal read with or without the ratings
    kept) and the seconds it took."""
    from arena.report.charts import CURVE_POINTS
    from arena.report.html import GAMES_LISTED, LARGE_FIELD, SHOWN, build_report

    start = time.perf_counter()
    if ratings:  # as ``arena report`` reads it
        progress, columns = read_report(folder, LARGE_FIELD, GAMES_LISTED,
                                        curves=(SHOWN, CURVE_POINTS))
    else:
        progress, columns = read_progress(folder, records=True), None
    page = build_report(progress, folder, folder / "report.html", True, replicates=replicates,
                        seed=0, columns=columns)
    return page, time.perf_counter() - start


def _cold(folder: Path) -> None:
    """Remove the report's columns kept beside the journal: the next report reads every game
    (and keeps them again)."""
    (folder / CACHE).unlink(missing_ok=True)


def _prepared(folder: Path, games: int, bots: int, players: int, seed: int
              ) -> dict[str, Any]:
    """A journal of about ``games`` synthetic games in ``folder`` with its rating checkpoint
    and history, and the figures of its making: written here (the games, then the full
    replay whose tracker becomes the checkpoint), or, if ``folder`` holds one made of the same
    arguments (its ``bench-ratings.json`` says so), reused with the figures of its making."""
    made = folder / MADE
    spec = {"games": games, "bots": bots, "players": players, "seed": seed}
    if made.is_file() and (folder / JOURNAL).is_file():
        kept = json.loads(made.read_text())
        if kept.get("spec") == spec:
            return {**kept, "reused": True}
    for stale in (made, folder / JOURNAL, *(folder / f"{JOURNAL}{s}" for s in ("-wal", "-shm"))):
        stale.unlink(missing_ok=True)
    start = time.perf_counter()
    written = write_journal(folder, bots, players, games, seed)
    write_s = time.perf_counter() - start

    start = time.perf_counter()
    progress = read_progress(folder)
    tracker = RatingTracker(progress.bots)
    tracker.log = []  # the rating history, written with the checkpoint
    tracker.add_all(progress.outcomes)
    replayed = json.dumps(tracker.standings().to_dict())
    replay_s = time.perf_counter() - start

    start = time.perf_counter()
    journal = Journal(folder / JOURNAL)
    try:
        journal.write_checkpoint(tracker)
    finally:
        journal.close()
    kept = {"spec": spec, "games": written, "write_seconds": write_s,
            "replay_seconds": replay_s, "checkpoint_write_seconds": time.perf_counter() - start,
            "standings_digest": hashlib.sha256(replayed.encode()).hexdigest()}
    made.write_text(json.dumps(kept))
    return {**kept, "reused": False}


def command_seconds(*args: str) -> tuple[float, float]:
    """Wall seconds of ``arena ARGS`` from a fresh process, as a user runs it (start-up
    included), and its processor seconds (user and system: what a busy machine's other work
    does not inflate); raises RuntimeError if it fails."""
    wall, cpu, _ = command_figures(*args)
    return wall, cpu


def command_figures(*args: str) -> tuple[float, float, int]:
    """:func:`command_seconds`, and the command's peak memory (resident set, bytes)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as output, tempfile.TemporaryFile() as errors:
        child = subprocess.Popen([sys.executable, "-m", "arena", *args], stdout=output,
                                 stderr=errors)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        if child.returncode != 0:
            output.seek(0)
            errors.seek(0)
            said = errors.read().decode(errors="replace") or output.read().decode(
                errors="replace")
            raise RuntimeError(f"arena {' '.join(args)} failed: {said}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def league_figures(league: Path, replicates: int) -> dict[str, Any]:
    """``arena league standings``, ``arena standings`` and ``arena report --no-views`` of a
    league's folder, each from a fresh process: wall and processor seconds, peak memory."""
    figures: dict[str, Any] = {"league_journal_bytes": sum(
        f.stat().st_size for f in league.glob(f"{JOURNAL}*"))}
    with tempfile.TemporaryDirectory(prefix="arena-bench-page-") as tmp:
        report = ("report", str(league), "--no-views", "--output",
                  str(Path(tmp) / "report.html"), "--bootstrap", str(replicates))
        for name, args in (
                ("league_standings", ("league", "standings", str(league))),
                ("league_arena_standings", ("standings", str(league))),
                ("league_report_cold", report), ("league_report", report)):
            if name == "league_report_cold":
                _cold(league)
            wall, cpu, rss = command_figures(*args)
            figures.update({f"{name}_command_seconds": wall,
                            f"{name}_command_cpu_seconds": cpu,
                            f"{name}_command_peak_rss_bytes": rss})
    return figures


def bench_ratings(games: int, bots: int, players: int, seed: int,
                  report: bool = False, replicates: int = 200, replay: bool = True,
                  keep: Path | None = None, league: Path | None = None) -> dict[str, Any]:
    """Seconds of the full replay and of the checkpoint's reading, on a journal of about
    ``games`` games among ``bots`` bots at tables of ``players``; with ``report``, also of
    the report (``replicates``: its bootstrap's), both ways unless not ``replay`` (a full
    replay of a million games is many minutes). The journal is written in ``keep`` and
    reused from there on a later run with the same arguments (else in a temporary folder).
    The commands ``arena standings`` and ``arena report`` are timed too, from a fresh
    process; with ``league`` (a league's folder), ``arena league standings`` of it."""
    with contextlib.ExitStack() as stack:
        if keep is None:
            folder = Path(stack.enter_context(
                tempfile.TemporaryDirectory(prefix="arena-bench-ratings-")))
        else:
            keep.mkdir(parents=True, exist_ok=True)
            folder = keep
        made = _prepared(folder, games, bots, players, seed)
        size = sum(f.stat().st_size for f in folder.glob(f"{JOURNAL}*"))

        start = time.perf_counter()
        _, read = read_standings(folder)
        read_s = time.perf_counter() - start
        digest = hashlib.sha256(json.dumps(read.to_dict()).encode()).hexdigest()
        wall, cpu = command_seconds("standings", str(folder))
        figures: dict[str, Any] = {"standings_command_seconds": wall,
                                   "standings_command_cpu_seconds": cpu}
        if report:
            # Cold: no columns kept beside the journal (every game read, and kept); warm: as
            # a report finds them after another report, the games since read from the journal.
            _cold(folder)
            cold_page, cold_s = _report(folder, True, replicates)
            kept_page, kept_report_s = _report(folder, True, replicates)
            figures.update(report_cold_seconds=cold_s, report_checkpoint_seconds=kept_report_s,
                           report_cold_identical=cold_page == kept_page)
            if replay:
                page, replay_report_s = _report(folder, False, replicates)
                figures.update(report_replay_seconds=replay_report_s,
                               report_identical=kept_page == page)
            page_file = Path(stack.enter_context(
                tempfile.TemporaryDirectory(prefix="arena-bench-page-"))) / "report.html"
            command = ("report", str(folder), "--no-views", "--output", str(page_file),
                       "--bootstrap", str(replicates))
            if bots > LARGE_FIELD:  # a smaller field's report keeps no columns
                _cold(folder)
                wall, cpu = command_seconds(*command)
                figures.update(report_command_cold_seconds=wall,
                               report_command_cold_cpu_seconds=cpu)
            wall, cpu = command_seconds(*command)
            figures.update(report_command_seconds=wall, report_command_cpu_seconds=cpu)
        if league is not None:
            figures.update(league_figures(league, replicates))
    return {**figures, "games": made["games"], "bots": bots, "players": players,
            "write_seconds": made["write_seconds"], "journal_reused": made["reused"],
            "journal_bytes": size, "replay_seconds": made["replay_seconds"],
            "checkpoint_seconds": read_s,
            "speedup": made["replay_seconds"] / read_s if read_s else None,
            "identical": digest == made["standings_digest"],
            "target_seconds": STANDINGS_TARGET_S, "report_target_seconds": REPORT_TARGET_S}


def figure_rows(f: dict[str, Any]) -> list[tuple[str, str]]:
    """:func:`bench_ratings`' figures as (figure, value) rows, each beside its target."""
    head = f"{f['games']:,} games"
    rows = [(f"{head}: standings, full replay", f"{f['replay_seconds']:.2f} s"),
            (f"{head}: standings, from the checkpoint", f"{f['checkpoint_seconds']:.3f} s"),
            ("ratio (replay / checkpoint)", f"× {f['speedup']:.0f}"),
            (f"{head}: `arena standings`, a fresh process",
             _wall_cpu(f, "standings_command")),
            ("target (a million games)", f"≤ {f['target_seconds']:.0f} s"),
            ("byte-identical to the replay", "yes" if f["identical"] else "NO")]
    if "report_checkpoint_seconds" in f:
        if "report_replay_seconds" in f:
            rows += [(f"{head}: report, full replay", f"{f['report_replay_seconds']:.2f} s")]
        rows += [(f"{head}: report, from the checkpoint, columns cold (every game read)",
                  f"{f['report_cold_seconds']:.2f} s"),
                 (f"{head}: report, from the checkpoint, columns warm (kept by a report)",
                  f"{f['report_checkpoint_seconds']:.2f} s"),
                 ("report byte-identical cold and warm",
                  "yes" if f["report_cold_identical"] else "NO")]
        if "report_replay_seconds" in f:
            rows += [("ratio (replay / checkpoint)",
                      f"× {f['report_replay_seconds'] / f['report_checkpoint_seconds']:.1f}")]
        if "report_command_cold_seconds" in f:
            rows += [(f"{head}: `arena report --no-views`, a fresh process, columns cold",
                      _wall_cpu(f, "report_command_cold"))]
        rows += [(f"{head}: `arena report --no-views`, a fresh process, columns warm",
                  _wall_cpu(f, "report_command")),
                 ("target (a million games)", f"≤ {f['report_target_seconds']:.0f} s")]
        if "report_identical" in f:
            rows += [("report byte-identical to the replay's",
                      "yes" if f["report_identical"] else "NO")]
    if "league_standings_command_seconds" in f:
        for name, shown, target in (
                ("league_standings", "`arena league standings`", f["target_seconds"]),
                ("league_arena_standings", "`arena standings`", f["target_seconds"]),
                ("league_report_cold", "`arena report --no-views`, columns cold",
                 f["report_target_seconds"]),
                ("league_report", "`arena report --no-views`, columns warm (as a league run "
                 "leaves them when it stops)",
                 f["report_target_seconds"])):
            rows += [(f"--league: {shown}, a fresh process (target at a million games "
                      f"≤ {target:.0f} s)",
                      _wall_cpu(f, f"{name}_command") + ", peak memory "
                      f"{f[f'{name}_command_peak_rss_bytes'] / 2**20:.0f} MiB")]
        rows += [("the league's journal size", f"{f['league_journal_bytes'] / 2**20:.1f} MiB")]
    made = "reused from --keep, written" if f["journal_reused"] else "write the journal"
    rows += [("journal size", f"{f['journal_bytes'] / 2**20:.1f} MiB"),
             (f"{head}: {made} (not counted)", f"{f['write_seconds']:.1f} s")]
    return rows


def _wall_cpu(f: dict[str, Any], name: str) -> str:
    return f"{f[name + '_seconds']:.2f} s (processor {f[name + '_cpu_seconds']:.2f} s)"
