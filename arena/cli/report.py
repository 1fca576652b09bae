"""``arena report``: a tournament's results as one self-contained HTML page (see
:mod:`arena.report.html`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import fail, out


def report(
    folder: Annotated[Path, typer.Argument(help="A tournament's output folder.")],
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="The HTML file to write (default: FOLDER/report.html).")] = None,
    bootstrap: Annotated[int, typer.Option(
        "--bootstrap", min=0, help="Bootstrap replicates of the Plackett–Luce fit.")] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap's resampling.")] = 0,
) -> None:
    """Write one self-contained HTML page of a tournament: standings, a crosstable heat map,
    ratings over the games, score distributions, strengths, seat advantage, and every game
    linked to its record. Also while a run is going."""
    from arena.report.html import build_report
    from arena.runner.game.disk import write_atomic
    from arena.runner.play.journal import JournalError, read_progress
    from arena.runner.play.outputs import run_complete

    if not folder.is_dir():
        fail(f"{folder}: no such folder")
    try:
        progress = read_progress(folder, records=True)
    except JournalError as exc:
        fail(str(exc))
    if not progress.outcomes:
        fail(f"{folder}: no game has finished yet")
    target = output if output is not None else folder / "report.html"
    page = build_report(progress, folder, target, run_complete(folder, len(progress.outcomes)),
                        replicates=bootstrap, seed=seed)
    try:
        write_atomic(target, page)
    except OSError as exc:
        fail(f"cannot write {target}: {exc.strerror or exc}")
    out.print(f"wrote {target} ({len(page.encode()) // 1024} KiB, "
              f"{len(progress.outcomes)} games)")
