"""The rating checkpoint a tournament's journal keeps beside its results: the ratings and
statistics after the games recorded so far (:meth:`~arena.runner.play.ratings.RatingTracker.state`),
written in the transaction of a game's result and read back in O(bots) by ``arena standings``
and ``arena league standings`` instead of rating every game again.

The games stay the single source of truth. A checkpoint is trusted only if it agrees with them,
cheaply checked on reading: its digest matches its state, the results numbered up to the last
one it covers are as many as it says and end with the game it names, and its state counts as
many games. Games recorded after it (by a version without checkpoints, or between two of a
league's) are rated by the reader; one that disagrees or is missing is rebuilt from every game
(in memory only when the journal is open read-only: a reader never writes).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from arena.results import GameOutcome
from arena.runner.play.ratings import RatingTracker

#: The ratings after the games numbered up to ``mark`` (``results`` of them, the last one's
#: game ``last_game``), as :meth:`arena.runner.play.ratings.RatingTracker.state` writes them,
#: with their digest; and the rating history: each rated game's seats' new (mu, sigma), by its
#: place ``k`` in the order rated (what the report's rating curves need). Made with the first
#: game recorded, not on opening: a journal that only is opened (a finished tournament run
#: again) stays byte for byte as it was.
_CHECKPOINT = """
CREATE TABLE IF NOT EXISTS checkpoint (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    mark      INTEGER NOT NULL,
    results   INTEGER NOT NULL,
    last_game TEXT NOT NULL,
    state     TEXT NOT NULL,
    digest    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rating_history (
    k       INTEGER PRIMARY KEY,
    game_id TEXT NOT NULL,
    made    TEXT NOT NULL
);
"""

#: A checkpoint of the ratings is written with a game's result once the games since the last
#: one, times this, reach the size of the ratings' state (bots + pairs that met): with every
#: game while the state is small (a tournament's), every few hundred games in a league of a
#: thousand bots, where writing the whole state with every game would cost more than the game.
#: A reader rates the games after the checkpoint itself, so it costs O(bots) either way.
CHECKPOINT_RATIO = 256


def state_digest(text: str) -> str:
    """The digest a checkpoint keeps of its state, to know it was read as written."""
    return hashlib.sha256(text.encode()).hexdigest()


def due_again(size: int, left: int, seats: int) -> bool:
    """Whether a checkpoint written now, of a state of ``size`` entries, is certainly due
    again within the next ``left`` games of at most ``seats`` seats: each game adds at most
    ``seats`` bots, ``seats * (seats - 1)`` met pairs and one pending game to the state, so
    after j games it is due if j * ratio >= size + j * growth."""
    growth = seats * seats + 1
    if left <= 0 or growth >= CHECKPOINT_RATIO:
        return False
    return -(-size // (CHECKPOINT_RATIO - growth)) <= left


class RatingCheckpoints:
    """The checkpoint's part of :class:`~arena.runner.play.journal.Journal`."""

    db: sqlite3.Connection
    _keeper: RatingKeeper | None
    keep_ratings: bool
    meta: Callable[[], dict[str, Any]]
    _tx: Callable[[], Any]
    finished_after: Callable[[int], list[tuple[int, GameOutcome]]]

    def results_through(self, mark: int) -> tuple[int, str | None]:
        """How many results are numbered ``mark`` or lower, and the game of the one numbered
        ``mark`` (None if there is none): what a reader of :meth:`finished_after` checks to
        know the results it has read are still the journal's first ones."""
        # idx >= the least integer, always true: SQLite counts the entries of idx's index,
        # a tenth of the table's pages (13 of 112 MB at a million games), not the rows.
        count = self.db.execute("SELECT COUNT(*) FROM results WHERE idx >= ? AND rowid <= ?",
                                (-(2**63), mark)).fetchone()[0]
        row = self.db.execute("SELECT game_id FROM results WHERE rowid = ?", (mark,)).fetchone()
        return int(count), None if row is None else str(row[0])

    def _make_tables(self) -> None:
        for ddl in _CHECKPOINT.split(";")[:-1]:  # within the caller's transaction
            self.db.execute(ddl)

    def _last_mark(self) -> int:
        return int(self.db.execute("SELECT COALESCE(MAX(rowid), 0) FROM results").fetchone()[0])

    def _keep(self, outcome: GameOutcome, before: int, mark: int, left: int = 0,
              seats: int = 0) -> None:
        """Rate the game just recorded (numbered ``mark``; the last result before it was
        numbered ``before``), add the games it let be rated to the rating history and, when
        due, write the checkpoint, in the result's transaction. ``left``: the games of at
        most ``seats`` seats the transaction records after this one (a checkpoint certainly
        due again among them is not written: :func:`due_again`)."""
        keeper = self._keeper
        try:
            if keeper is None or keeper.mark != before:
                self._make_tables()
                # The first game of this run, or another writer's came between: read the
                # checkpoint again (the new game included).
                keeper = self._keeper = self._rated(self._rating_bots(), log=True)
                keeper.since = CHECKPOINT_RATIO * keeper.tracker.size  # write it now
                self._start_history(keeper)
            else:
                keeper.add(outcome, mark)
        except ValueError:
            # A game the ratings refuse (an unknown bot): no checkpoint, so every reader
            # replays the games and reports it.
            self.db.execute("DELETE FROM checkpoint")
            self._keeper, self.keep_ratings = None, False
            return
        log = keeper.tracker.log
        if log:
            if keeper.history:
                self._extend_history(log)
            log.clear()
        keeper.since += 1
        if keeper.since * CHECKPOINT_RATIO >= keeper.tracker.size:
            keeper.since = 0
            if due_again(keeper.tracker.size, left, seats):
                return
            state = keeper.tracker.state()
            self.db.execute("INSERT OR REPLACE INTO checkpoint VALUES (1, ?, ?, ?, ?, ?)",
                            (keeper.mark, keeper.results, keeper.last, state,
                             state_digest(state)))

    def _start_history(self, keeper: RatingKeeper) -> None:
        """Decide whether ``keeper``'s games can extend the rating history: after a rating of
        every game it is written anew; after a checkpoint it goes on if it holds exactly the
        games rated before those the keeper rated since, else it stays as it is (the report
        does not use a history that disagrees with the games)."""
        log = keeper.tracker.log or []
        rated = keeper.tracker.rated_games
        if keeper.whole:
            self.db.execute("DELETE FROM rating_history")
            keeper.history = True
            return
        count, top = self.db.execute(
            "SELECT COUNT(*), COALESCE(MAX(k), 0) FROM rating_history").fetchone()
        keeper.history = count == top == rated - len(log)

    def write_checkpoint(self, tracker: RatingTracker | None = None) -> None:
        """Write the checkpoint of every game recorded: ``tracker``'s ratings, which must be
        those of every game (:func:`~arena.runner.play.ratings.compute_standings` over
        :meth:`rated_outcomes`), or None to bring the checkpoint up to date from the games.
        The rating history is written anew too when every game was rated here (``tracker``
        logging from its first game)."""
        with self._tx():
            self._make_tables()
            if tracker is None:
                kept = self._rated(self._rating_bots(), log=True)
                tracker, mark, results, last = kept.tracker, kept.mark, kept.results, kept.last
            else:
                mark = self._last_mark()
                results, last = self.results_through(mark)
            if last is None:
                return
            log = tracker.log
            if log is not None and len(log) == tracker.rated_games:
                self.db.execute("DELETE FROM rating_history")
                self._extend_history(log)
            state = tracker.state()
            self.db.execute("INSERT OR REPLACE INTO checkpoint VALUES (1, ?, ?, ?, ?, ?)",
                            (mark, results, last, state, state_digest(state)))
        self._keeper = None

    def _extend_history(self, log: list[tuple[GameOutcome, list[tuple[float, float]]]]) -> None:
        self.db.executemany("INSERT INTO rating_history VALUES (?, ?, ?)",
                            [(o.index + 1, o.game_id, json.dumps(made)) for o, made in log])
        log.clear()

    def forget_ratings(self) -> None:
        """Drop the ratings kept in memory (after deleting results)."""
        self._keeper = None

    def _by_finish(self) -> bool:
        """Whether the ratings take the games in the order they finished (a league's) rather
        than the order the schedule issued them (a tournament's); see :meth:`rated_outcomes`."""
        return bool(self.meta().get("identity", {}).get("kind") == "league")

    def _rating_bots(self) -> list[str]:
        identity = self.meta().get("identity", {})
        return [b["name"] for b in identity.get("bots", [])] if isinstance(identity, dict) else []

    def _checkpoint(self, bots: Sequence[str]) -> tuple[RatingTracker, int, int, str] | None:
        """The checkpoint's ratings, bots in the order of ``bots``, and the results they
        cover (the last one's number, how many, the last one's game), if the journal holds a
        checkpoint that agrees with its results: its digest matches its state and the results
        numbered up to its last are still the ones it covers. None otherwise."""
        try:
            row = self.db.execute("SELECT mark, results, last_game, state, digest "
                                  "FROM checkpoint WHERE id = 1").fetchone()
        except sqlite3.OperationalError:  # a journal written before checkpoints, read-only
            return None
        if row is None or state_digest(row["state"]) != row["digest"]:
            return None
        if self.results_through(row["mark"]) != (row["results"], row["last_game"]):
            return None
        try:
            tracker = RatingTracker.from_state(row["state"], bots)
        except ValueError:
            return None
        if tracker.games != row["results"]:  # a state of other games than it claims
            return None
        return tracker, int(row["mark"]), int(row["results"]), str(row["last_game"])

    def _rated(self, bots: Sequence[str], log: bool = False) -> RatingKeeper:
        """The ratings of every game: the checkpoint's, brought up to date with the games
        after it (their ratings read from the rating history while it holds them, else rated
        again), or (none that agrees) those of every game (``whole``). Also the results
        covered. ``log``: the tracker logs the games it rates here that the history lacks."""
        found = self._checkpoint(bots)
        whole = found is None
        if found is None:
            tracker, mark, results, last = RatingTracker(bots), 0, 0, None
        else:
            tracker, mark, results, last = found
        if log:
            tracker.log = []
        keeper = RatingKeeper(tracker, mark, results, last, self._by_finish(), whole)
        later = self.finished_after(mark)
        if later and not whole:
            keeper.rows = self._history_after(tracker.rated_games)
        for m, o in later:
            keeper.add(o, m)
        return keeper

    def _history_after(self, rated: int) -> Iterator[tuple[int, str, str]] | None:
        """The rating history's rows after the first ``rated`` games (None: it has none)."""
        try:
            return iter(self.db.execute(
                "SELECT k, game_id, made FROM rating_history WHERE k > ? ORDER BY k",
                (rated,)).fetchall())
        except sqlite3.OperationalError:  # a journal written before the history
            return None

    def rated(self) -> tuple[RatingTracker, int, int, str | None]:
        """:meth:`ratings`, and the results they cover: the last one's number, how many, and
        the last one's game (None: no game yet)."""
        keeper = self._rated(self._rating_bots())
        return keeper.tracker, keeper.mark, keeper.results, keeper.last

    def ratings(self) -> RatingTracker:
        """The ratings and statistics of every finished game (what :meth:`rated_outcomes`
        would give :func:`~arena.runner.play.ratings.compute_standings`, bit for bit), from
        the checkpoint when one agrees with the games: O(bots + games after it)."""
        return self._rated(self._rating_bots()).tracker

    def rating_history(self, games: int) -> list[tuple[str, str]] | None:
        """The rating history of ``games`` games: each rated game's id and its seats' new
        (mu, sigma) as made (JSON text), in the order rated; None if the journal holds
        another number of them (or none at all)."""
        try:
            cursor = self.db.cursor()
            cursor.row_factory = None  # plain tuples: a row a game, read as they come
            history = cursor.execute("SELECT game_id, made FROM rating_history "
                                     "ORDER BY k").fetchall()
        except sqlite3.OperationalError:  # a journal written before the history
            return None
        return history if len(history) == games else None

    def rating_history_is(self, ids: Sequence[str]) -> bool:
        """Whether the rating history holds exactly the games ``ids``, in that order, at the
        places 1..len(``ids``). Read as one text (SQLite joins the ids), not a row a game: a
        million games' ids are compared in a few hundred milliseconds."""
        sep = "\x1f"
        mine = sep.join(ids)
        if mine.count(sep) != max(len(ids) - 1, 0):  # an id holding the separator
            return self.rating_history_ids(len(ids)) == list(ids)
        try:
            count, low, high, text = self.db.execute(
                "SELECT COUNT(*), MIN(k), MAX(k), group_concat(game_id, char(31)) FROM "
                "(SELECT k, game_id FROM rating_history ORDER BY k)").fetchone()
        except sqlite3.OperationalError:  # a journal written before the history
            return False
        if count != len(ids) or (ids and (low, high) != (1, len(ids))):
            return False
        return (text or "") == mine

    def rating_history_ids(self, games: int) -> list[str] | None:
        """The games of the rating history of ``games`` games in the order rated, without
        their ratings (:meth:`rating_history_made` reads those): None unless it holds
        exactly the places 1..``games``."""
        try:
            count, low, high = self.db.execute(
                "SELECT COUNT(*), MIN(k), MAX(k) FROM rating_history").fetchone()
            if count != games or (games and (low, high) != (1, games)):
                return None
            cursor = self.db.cursor()
            cursor.row_factory = None
            rows = cursor.execute("SELECT game_id FROM rating_history ORDER BY k").fetchall()
        except sqlite3.OperationalError:  # a journal written before the history
            return None
        return [g for (g,) in rows]

    def rating_history_made(self, places: Sequence[int]) -> dict[int, str]:
        """The new ratings (JSON text) of the rating history's games at ``places`` (0 the
        first rated), by place."""
        out: dict[int, str] = {}
        cursor = self.db.cursor()
        cursor.row_factory = None
        for at in range(0, len(places), 500):
            part = [p + 1 for p in places[at:at + 500]]
            out.update((k - 1, made) for k, made in cursor.execute(
                f"SELECT k, made FROM rating_history WHERE k IN ({','.join('?' * len(part))})",
                part))
        return out


class RatingKeeper:
    """Ratings and the results they cover: the last one's number (``mark``), how many, and
    the last one's game. ``since``: games added since the checkpoint was written."""

    def __init__(self, tracker: RatingTracker, mark: int, results: int, last: str | None,
                 by_finish: bool, whole: bool = False) -> None:
        self.tracker, self.mark, self.results, self.last = tracker, mark, results, last
        self.by_finish, self.whole = by_finish, whole
        self.since = 0
        #: Whether the games it rates extend the journal's rating history (a writer's).
        self.history = False
        #: A reader's: the history's rows after the checkpoint, which give the new ratings
        #: of the games after it as long as they name those games in the order rated (none
        #: of those is rated again; the first that differs, and every game after it, is).
        self.rows: Iterator[tuple[int, str, str]] | None = None

    def add(self, o: GameOutcome, mark: int) -> None:
        if self.by_finish:
            # A league's games are rated in the order they finished, numbered from 0, and
            # its bot versions join as they come.
            for bot in o.bots:
                self.tracker.add_bot(bot)
            o = dataclasses.replace(o, index=self.results)
        if self.rows is not None and self._from_history(o):
            if self.tracker.log:  # a writer logs what the history lacks: this game it holds
                self.tracker.log.pop()
        else:
            self.rows = None
            self.tracker.add(o)
        self.mark, self.results, self.last = mark, self.results + 1, o.game_id

    def _from_history(self, o: GameOutcome) -> bool:
        """Add ``o`` with its new ratings read from the history's next row, if that row is
        this game's (the next rated, of its id, a rating a seat)."""
        assert self.rows is not None
        row = next(self.rows, None)
        if row is None or row[0] != self.tracker.rated_games + 1 or row[1] != o.game_id:
            return False
        try:
            made = [(float(mu), float(sigma)) for mu, sigma in json.loads(row[2])]
        except (ValueError, TypeError):
            return False
        return self.tracker.add_rated(o, made)


