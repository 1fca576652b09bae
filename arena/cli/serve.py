"""``arena serve``: a live page of a tournament's or a league's folder, in the browser."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from arena.cli.common import fail, out

#: The port ``arena serve`` listens on unless told otherwise.
DEFAULT_PORT = 8765


def serve(
    folder: Annotated[Path, typer.Argument(help="A tournament's output folder (written by "
                                                "arena run) or a league's folder.")],
    host: Annotated[str, typer.Option(
        "--host", help="The address to listen on. The default serves this machine only; "
                       "another (0.0.0.0: every network) shows the standings and every game "
                       "to anyone who can reach the port, with no password.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(
        "--port", min=0, max=65535, help="The port (0: any free one).")] = DEFAULT_PORT,
) -> None:
    """Serve a live page of a tournament or league: its standings, progress and games in
    play, updated as games finish (also while `arena run` or `arena league run` is writing),
    each finished game linked to its replay. It only reads the folder. Ctrl-C stops it."""
    import asyncio  # here, not at the top: every other command would pay its import

    from arena.runner.play.config import ConfigError
    from arena.runner.play.journal import JournalError

    try:
        from arena.report.serve import serve as serve_folder
    except ModuleNotFoundError as exc:  # pragma: no cover - tornado is a dependency
        fail(f"arena serve needs {exc.name}: pip install tornado")
    if not folder.is_dir():
        fail(f"{folder}: no such folder")

    def started(url: str) -> None:
        out.print(f"serving {escape(str(folder))} at {url} (Ctrl-C stops)", soft_wrap=True,
                  highlight=False)

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_folder(folder, host, port, started))
    except (JournalError, ConfigError) as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}"
             + ("; choose another --port (0: any free one)" if port else ""))
