"""A league's journal: the tournament journal's file and tables (so ``arena stats``,
``compare``, ``replay`` and ``standings`` read a league as they read a tournament), plus its
entrants: every bot version ever added, with its snapshot and whether it is scheduled.

A bot version's key is ``name@version``; it is the name the games, ratings and statistics
know it by. Its snapshot (``bots/<name>/<version>-<digest>/``) is never changed: a changed bot
is a new version. ``status`` is ``active`` (scheduled), ``retired`` (no longer scheduled; its
games count) or ``suspended`` (its failures passed the league's threshold; ``reason`` says
which; it can be enabled again).
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.league.config import LeagueConfig
from arena.results import GameOutcome, Pairing
from arena.runner.play.journal import _OUTCOMES, JOURNAL, Journal, JournalError

STATUSES = ("active", "retired", "suspended")
#: The last table's number and the last game's index issued: one aggregate a query, so that
#: SQLite reads each from its index's end instead of every game ever issued.
NEXT_TABLE = ("SELECT MAX(tbl) FROM pairings", "SELECT MAX(idx) FROM pairings")

_ENTRANTS = """
CREATE TABLE IF NOT EXISTS entrants (
    key      TEXT PRIMARY KEY,
    seq      INTEGER NOT NULL UNIQUE,
    name     TEXT NOT NULL,
    version  TEXT NOT NULL,
    digest   TEXT NOT NULL,
    folder   TEXT NOT NULL,
    added_at REAL NOT NULL,
    status   TEXT NOT NULL CHECK (status IN ('active', 'retired', 'suspended')),
    reason   TEXT NOT NULL DEFAULT ''
);
-- The next table's number is read before every table issued: without it, a scan of every
-- game ever issued (a second in a journal of a million).
CREATE INDEX IF NOT EXISTS pairings_by_table ON pairings (tbl);
"""


@dataclass(frozen=True)
class Entrant:
    """One bot version of the league. ``folder``: its snapshot's bot folder, relative to the
    league's folder."""

    key: str
    seq: int
    name: str
    version: str
    digest: str
    folder: str
    added_at: float
    status: str
    reason: str = ""


def _entrant(r: Any) -> Entrant:
    return Entrant(r["key"], r["seq"], r["name"], r["version"], r["digest"], r["folder"],
                   r["added_at"], r["status"], r["reason"])


@functools.lru_cache(maxsize=4096)
def seat_names(text: str) -> tuple[str, ...]:
    """The seats of a game as its ``bots`` column holds them (JSON text): a league's tables
    repeat, so each text is read once."""
    return tuple(json.loads(text))


def entrant_key(name: str, version: str) -> str:
    return f"{name}@{version}"


def versions_named(which: str, keys: Iterable[str]) -> list[str]:
    """The bot versions among ``keys`` (``name@version``) that ``which`` names: itself if it
    is one of them, else every version of the bot called ``which``, in the order given."""
    known = list(dict.fromkeys(keys))
    if which in known:
        return [which]
    return [k for k in known if k.rpartition("@")[0] == which]


class LeagueJournal(Journal):
    """The journal of the league in ``config.folder`` (created with it)."""

    def __init__(self, config: LeagueConfig, readonly: bool = False) -> None:
        super().__init__(Path(config.folder) / JOURNAL, readonly=readonly)
        self.config = config
        if not readonly:
            self.db.executescript(_ENTRANTS)
            meta = self.meta()
            if not meta:
                self.bind(self._identity([]), "league")
            elif meta.get("identity", {}).get("kind") != "league":
                raise JournalError(f"{self.path} is a tournament's journal, not a league's")

    def _identity(self, keys: Sequence[str]) -> dict[str, Any]:
        """The league's identity with its bot versions, as a tournament's lists its bots
        (what ``arena stats`` and ``arena standings`` read)."""
        return {**self.config.identity(), "bots": [{"name": k} for k in keys]}

    def _refresh_identity(self) -> None:
        keys = [e.key for e in self.entrants()]
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('identity', ?)",
                        (json.dumps(self._identity(keys)),))

    # ------------------------------------------------------------------ entrants
    def entrants(self, status: str | None = None) -> list[Entrant]:
        """Every bot version (with ``status``: those that have it), in the order added."""
        rows = self.db.execute(
            "SELECT * FROM entrants" + (" WHERE status = ?" if status else "")
            + " ORDER BY seq", (status,) if status else ()).fetchall()
        return [_entrant(r) for r in rows]

    def entrant(self, key: str) -> Entrant | None:
        r = self.db.execute("SELECT * FROM entrants WHERE key = ?", (key,)).fetchone()
        return None if r is None else _entrant(r)

    def add_entrant(self, name: str, version: str, digest: str, folder: str) -> Entrant:
        """Enter a bot version (active). Raises JournalError if the version is in the league
        with other files (a changed bot needs a new version)."""
        key = entrant_key(name, version)
        with self._tx():
            row = self.db.execute("SELECT digest FROM entrants WHERE key = ?",
                                  (key,)).fetchone()
            if row is not None:
                raise JournalError(
                    f"{key} is in the league already" + ("" if row[0] == digest else
                    " with other files: give the changed bot a new version in its bot.toml"))
            seq = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM entrants").fetchone()[0]
            self.db.execute("INSERT INTO entrants VALUES (?, ?, ?, ?, ?, ?, ?, 'active', '')",
                            (key, seq, name, version, digest, folder, time.time()))
            self._refresh_identity()
        entrant = self.entrant(key)
        assert entrant is not None
        return entrant

    def set_status(self, key: str, status: str, reason: str = "") -> None:
        assert status in STATUSES
        with self._tx():
            self.db.execute("UPDATE entrants SET status = ?, reason = ? WHERE key = ?",
                            (status, reason, key))

    def drop_games(self, game_ids: Sequence[str]) -> None:
        """Forget issued games that have no result (a suspended or retired bot's, a game void
        too often): they are not played."""
        with self._tx():
            self.db.executemany("DELETE FROM pairings WHERE game_id = ? AND status = 'scheduled'",
                                [(g,) for g in game_ids])

    def remove_entrant(self, key: str) -> list[str]:
        """Delete a bot version and every game it sat in (results too); returns the records
        of those games (paths relative to the league's folder) for the caller to delete."""
        with self._tx():
            rows = self.db.execute("SELECT game_id, bots FROM pairings").fetchall()
            games = [r["game_id"] for r in rows if key in json.loads(r["bots"])]
            records = [r["record"] for g in games for r in self.db.execute(
                "SELECT record FROM results WHERE game_id = ?", (g,))]
            self.db.executemany("DELETE FROM results WHERE game_id = ?", [(g,) for g in games])
            self.db.executemany("DELETE FROM pairings WHERE game_id = ?", [(g,) for g in games])
            self.db.execute("DELETE FROM entrants WHERE key = ?", (key,))
            self._refresh_identity()
        self.forget_ratings()  # they counted the games deleted
        return records

    def next_table(self) -> tuple[int, int]:
        """The next table's number and the next game's index: past every one issued, removed
        ones included, so that no game id is ever used twice."""
        tbl, idx = (self.db.execute(query).fetchone()[0] for query in NEXT_TABLE)
        last = self.meta().get("last_table", [0, -1])
        return (max(0 if tbl is None else int(tbl), int(last[0])) + 1,
                max(-1 if idx is None else int(idx), int(last[1])) + 1)

    def issue(self, pairings: Sequence[Pairing]) -> None:
        """Record a table's games, issued, and remember its number, in one transaction."""
        with self._tx():
            self._insert_pairings(pairings)
            last = [max(p.table for p in pairings), max(p.index for p in pairings)]
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('last_table', ?)",
                            (json.dumps(last),))

    # ------------------------------------------------------------------ a run's start
    def newest(self, count: int) -> list[GameOutcome]:
        """The ``count`` games committed last, newest first."""
        return self._games(self._rows(_OUTCOMES + "ORDER BY r.rowid DESC LIMIT ?", count))

    def seat_endings(self, before: int | None, count: int,
                     ) -> list[tuple[int, tuple[str, ...], tuple[str, ...]]]:
        """Up to ``count`` results numbered below ``before`` (None: any), newest first: each
        one's number, its game's seats and how each ended."""
        rows = self._rows("SELECT r.rowid, p.bots, r.terminations FROM results r "
                          "JOIN pairings p USING (game_id) WHERE r.rowid < ? "
                          "ORDER BY r.rowid DESC LIMIT ?",
                          2**63 - 1 if before is None else before, count)
        return [(mark, seat_names(bots), seat_names(ended)) for mark, bots, ended in rows]

    def history_seats(self, count: int) -> Iterator[list[tuple[int, str, str]]]:
        """The rating history with each game's seats, ``count`` rows at a time in the order
        rated: its place, its seats and their new (mu, sigma) as made (both JSON text); none
        for a journal without a history."""
        k = 0
        while True:
            try:
                rows = self._rows("SELECT h.k, p.bots, h.made FROM rating_history h "
                                  "JOIN pairings p USING (game_id) WHERE h.k > ? "
                                  "ORDER BY h.k LIMIT ?", k, count)
            except sqlite3.OperationalError:  # a journal written before the history
                return
            if rows:
                yield rows
            if len(rows) < count:
                return
            k = rows[-1][0]

    def history_in_order(self) -> bool:
        """Whether the rating history names the games in the order their results were
        committed (the order a league rates them), no more and no fewer."""
        try:
            matched, rows = self.db.execute(
                "SELECT (SELECT COUNT(*) FROM (SELECT game_id, ROW_NUMBER() OVER "
                "(ORDER BY rowid) AS n FROM results) r JOIN rating_history h "
                "ON h.k = r.n AND h.game_id = r.game_id), "
                "(SELECT COUNT(*) FROM rating_history)").fetchone()
        except sqlite3.OperationalError:
            return False
        results = self.db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        return bool(matched == rows == results)
