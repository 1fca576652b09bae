"""Reading a tournament's journal as a reader does (``arena standings``, ``report``, ``stats``,
``serve``): without writing to it, also while a run is writing, also from a folder the reader
may not write in."""

from __future__ import annotations

import dataclasses
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from arena.runner.play.column_cache import cached_games
from arena.runner.play.columns import columns_of_raw, history_agrees, last_outcomes
from arena.runner.play.history import RatingHistory, curve_games, history_ids
from arena.runner.play.journal import JOURNAL, Journal, JournalError, Progress, damaged_message
from arena.runner.play.standings import Standings
from arena.stats.columns import GameColumns

T = TypeVar("T")


def read_progress(folder: str | Path, records: bool = False, ratings: bool = False,
                  history: bool = True) -> Progress:
    """Read a tournament's progress from the journal in ``folder`` without writing to it (also
    while a run is writing); with ``records``, also where each game's record is (``ratings``
    and ``history``: see :meth:`Journal.progress`). Raises :class:`JournalError` if there is
    no usable journal."""
    return _reading(folder, lambda journal: journal.progress(records, ratings=ratings,
                                                             history=history))


def read_report(folder: str | Path, large_field: int, listed: int, keep: bool = True,
                curves: tuple[int, int] | None = None) -> tuple[Progress, GameColumns | None]:
    """What ``arena report`` reads: the progress with records, ratings and rating history,
    and for a field of more than ``large_field`` bots (as the journal names them) whose rating
    history is of its games,
    the games as columns (:func:`~arena.runner.play.columns.read_columns`), the progress then
    holding only the last ``listed`` games and their records; for any other field, every game
    and no columns.

    A large field's games are read with the columns kept beside the journal when they agree
    with it (:mod:`~arena.runner.play.column_cache`), which, with ``keep``, are brought up to
    date where the folder can be written: the same columns. With ``curves`` (the top bots
    of the standings the rating curves show, and the samples they take), a large field's rating
    history holds the ratings of only the games those curves read
    (:class:`~arena.runner.play.history.RatingHistory`), and every game's id."""
    where = Path(folder)

    def whole(journal: Journal, progress: Progress) -> Progress:
        """Every game, and the whole rating history."""
        history = progress.history
        if curves is not None and progress.ratings is not None:
            history = journal.rating_history(progress.ratings.rated_games)
        return dataclasses.replace(progress, outcomes=journal.rated_outcomes(),
                                   records=journal.records(), history=history)

    def read(journal: Journal) -> tuple[Progress, GameColumns | None]:
        progress = journal.progress(outcomes=False, ratings=True, history=curves is None)
        league = progress.identity.get("kind") == "league"
        if len(progress.bots) <= large_field:
            return whole(journal, progress), None
        try:
            games = cached_games(journal.db, where, keep and os.access(where, os.W_OK))
            cols = columns_of_raw(games, league, progress.bots)
        except ValueError as exc:  # a termination reason this version does not know
            raise JournalError(f"{journal.path}: {exc}") from None
        history: Sequence[tuple[str, str]] | None = progress.history
        if curves is not None and progress.ratings is not None:
            history = (RatingHistory(cols.game_ids, {})
                       if journal.rating_history_is(cols.game_ids) else None)
        if (progress.ratings is not None
                and history is not None
                and history_agrees(cols, history, progress.ratings)):
            if curves is not None:
                top = [b.name for b in progress.ratings.standings().bots[:curves[0]]]
                history = RatingHistory(history_ids(history), journal.rating_history_made(
                    curve_games(cols, top, curves[1])))
            tail, records = last_outcomes(journal.db, league, cols.games, listed)
            return dataclasses.replace(progress, outcomes=tail, records=records,
                                       history=history), cols
        return whole(journal, progress), None
    return _reading(folder, read)


def read_standings(folder: str | Path) -> tuple[Progress, Standings]:
    """A tournament's progress without its games (``outcomes`` and ``unfinished`` are empty),
    and its standings, read as :func:`read_progress` reads, from the rating checkpoint when one
    agrees with the games (O(bots)), else by rating every game in memory: a reader never
    writes."""
    return _reading(folder, lambda journal: (
        journal.progress(outcomes=False, unfinished=False), journal.ratings().standings()))


def _reading(folder: str | Path, read: Callable[[Journal], T]) -> T:
    path = Path(folder) / JOURNAL
    if path.is_file() and not os.access(path.parent, os.W_OK):
        # SQLite needs to write beside a WAL journal even to read it: read a copy instead.
        with tempfile.TemporaryDirectory(prefix="arena-journal-") as tmp:
            for suffix in ("", "-wal"):
                if Path(f"{path}{suffix}").is_file():
                    shutil.copyfile(f"{path}{suffix}", Path(tmp) / f"{JOURNAL}{suffix}")
            return _read(Path(tmp) / JOURNAL, path, read)
    return _read(path, path, read)


def _read(path: Path, shown_as: Path, read: Callable[[Journal], T]) -> T:
    journal = Journal(path, readonly=True)
    try:
        return read(journal)
    except sqlite3.DatabaseError as exc:
        raise JournalError(damaged_message(shown_as, str(exc))) from None
    finally:
        journal.close()
