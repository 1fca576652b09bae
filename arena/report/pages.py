"""The replay pages of a tournament's games, written beside its report (``views/``, the
record's path with ``.html``) so the report can link every game to its page.

A page is written again only when it is missing, older than its record, or of another
version of the viewer: a report of a long tournament, written again as games finish, replays
only the new games.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path, PurePosixPath

from arena.engine import UnknownGameError
from arena.report.view import VIEW_VERSION, view_page
from arena.runner.game.disk import write_atomic
from arena.runner.game.record import GameRecord

VIEWS = "views"


def page_path(output: Path, record: str) -> Path:
    """Where the page of the record at ``record`` (relative to its tournament's folder) is
    written for a report at ``output``: under ``views/`` beside it, never outside."""
    parts = [p for p in PurePosixPath(record.replace("\\", "/")).parts if p not in ("/", "..")]
    return output.parent / VIEWS / Path(*parts).with_suffix(".html")


def _current(page: Path, record: Path) -> bool:
    try:
        if page.stat().st_mtime < record.stat().st_mtime:
            return False
        with page.open("rb") as f:
            return VIEW_VERSION.encode() in f.read(400)
    except OSError:
        return False


def write_pages(folder: Path, records: Mapping[str, str], output: Path,
                write: bool = True) -> tuple[dict[str, Path], list[str]]:
    """The page of every game of ``records`` (game id -> record path in ``folder``) for a
    report at ``output``, written first if ``write`` and it is not current; and what could not
    be written, one line each (a record that does not read or replay is left without a page)."""
    pages: dict[str, Path] = {}
    problems: list[str] = []
    wanted = {game_id: (record, folder / record, page_path(output, record))
              for game_id, record in sorted(records.items())}
    todo = [(record, source, page) for record, source, page in wanted.values()
            if write and not _current(page, source)]
    failed = set()
    for (record, _, _), problem in zip(todo, _write_all(todo), strict=True):
        if problem is not None:
            failed.add(record)
            problems.append(f"{record}: {problem}")
    for game_id, (record, source, page) in wanted.items():
        if record not in failed and _current(page, source):
            pages[game_id] = page
    return pages, problems


def _write_all(todo: list[tuple[str, Path, Path]]) -> list[str | None]:
    """Write each page of ``todo`` (record, record's path, page's path): what went wrong with
    each, None where nothing did. Many pages are made on every core: a page replays its game
    and draws every step for every viewer, about a second of work for a 4-player game."""
    cores = len(os.sched_getaffinity(0))
    if len(todo) < 4 or cores < 2:
        return [_write_one(source, page) for _, source, page in todo]
    with ProcessPoolExecutor(min(cores, len(todo))) as pool:
        return list(pool.map(_write_one, [t[1] for t in todo], [t[2] for t in todo],
                             chunksize=4))


def _write_one(source: Path, page: Path) -> str | None:
    try:
        text = view_page(GameRecord.load(source))
        page.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(page, text)
    except (OSError, ValueError, UnknownGameError) as exc:
        return str(exc)
    return None
