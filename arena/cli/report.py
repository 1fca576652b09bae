"""``arena report``: a tournament's results as one self-contained HTML page (see
:mod:`arena.report.html`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from arena.cli.common import fail, out


def report(
    folder: Annotated[Path, typer.Argument(help="A tournament's output folder.")],
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="The HTML file to write (default: FOLDER/report.html).")] = None,
    bootstrap: Annotated[int, typer.Option(
        "--bootstrap", min=0, help="Bootstrap replicates of the Plackett–Luce fit (a field "
        "of more than 100 bots takes its intervals from the fit's curvature instead).")] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap's resampling.")] = 0,
    views: Annotated[bool, typer.Option(
        "--views/--no-views", help="Write each game's replay page under views/ beside the "
        "report (those missing or out of date) and link it; --no-views links only the pages "
        "already there.")] = True,
    games_listed: Annotated[int, typer.Option(
        "--games-listed", min=1, help="The most games the games' table lists (the most "
        "recent; the page says how many it leaves out).")] = 1000,
) -> None:
    """Write one self-contained HTML page of a tournament: standings, a crosstable heat map,
    ratings over the games, score distributions, strengths, seat advantage, and every game
    linked to its record and its replay page (the most recent --games-listed of them). Also
    while a run is going. A field of more than 100 bots shows the top 30 of the standings in
    its crosstable and charts, and says so."""
    from arena.report.charts import CURVE_POINTS
    from arena.report.html import LARGE_FIELD, SHOWN, build_report, listed_games
    from arena.report.pages import write_pages
    from arena.runner.game.disk import write_atomic
    from arena.runner.play.journal import JournalError
    from arena.runner.play.outputs import run_complete
    from arena.runner.play.reading import read_report

    if not folder.is_dir():
        fail(f"{folder}: no such folder")
    try:
        progress, columns = read_report(folder, LARGE_FIELD, games_listed,
                                        curves=(SHOWN, CURVE_POINTS))
    except JournalError as exc:
        fail(str(exc))
    games = len(progress.outcomes) if columns is None else columns.games
    if not games:
        fail(f"{folder}: no game has finished yet")
    target = output if output is not None else folder / "report.html"
    if not target.parent.is_dir():  # before any replay page is written beside it
        fail(f"cannot write {target}: no folder {target.parent}")
    listed = listed_games(progress.outcomes, games_listed)  # only these link a replay page
    records = {o.game_id: progress.records[o.game_id] for o in listed
               if o.game_id in progress.records}
    pages, problems = write_pages(folder, records, target, write=views)
    if problems:
        out.print(f"{len(problems)} games have no replay page; the first: "
                  f"{escape(problems[0])}")
    page = build_report(progress, folder, target, run_complete(folder, games),
                        replicates=bootstrap, seed=seed, pages=pages, games_listed=games_listed,
                        columns=columns)
    try:
        write_atomic(target, page)
    except OSError as exc:
        fail(f"cannot write {target}: {exc.strerror or exc}")
    out.print(f"wrote {target} ({len(page.encode()) // 1024} KiB, "
              f"{games} games, {len(pages)} replay pages)")
