"""``arena view``: a recorded game as one self-contained HTML page that steps through it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from arena.cli.common import fail, out


def view(
    file: Annotated[Path, typer.Argument(help="A game record.")],
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="The HTML file to write (default: the record's path with "
                               ".html).")] = None,
) -> None:
    """Write a replay page of a recorded game: one HTML file that needs nothing else, to open
    in a browser and step through the game decision by decision, as the referee or any seat
    saw it."""
    from arena.engine import UnknownGameError
    from arena.report.view import view_page
    from arena.runner.game.disk import write_atomic
    from arena.runner.game.record import GameRecord

    try:
        record = GameRecord.load(file)
    except FileNotFoundError:
        fail(f"{file}: no such file")
    except (OSError, ValueError) as exc:
        fail(f"{file}: {exc}")
    try:
        page = view_page(record)
    except (UnknownGameError, ValueError) as exc:
        fail(f"{file}: cannot replay it: {exc}")
    target = output if output is not None else file.with_suffix(".html")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, page)
    except OSError as exc:
        fail(f"cannot write {target}: {exc.strerror or exc}")
    out.print(f"wrote {escape(str(target))} ({len(page.encode()) // 1024} KiB, "
              f"{len(record.decisions)} decisions): open it in a browser")
