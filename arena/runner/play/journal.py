"""The tournament journal: one SQLite file, the single source of truth of a tournament.

It holds the configuration's identity, every pairing ever issued (so a resumed run never
re-pairs), and every finished game's outcome, each committed in its own transaction before
the runner takes the next result. The database runs in WAL mode with full synchronisation, so
a runner killed at any moment (SIGKILL included) loses no committed game, and readers such as
``arena standings`` can read it while a run is writing.
"""

from __future__ import annotations

import json
import sqlite3
import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.results import GameOutcome, Pairing
from arena.runner.game.disk import is_disk_full
from arena.runner.play.checkpoint import RatingCheckpoints, RatingKeeper
from arena.runner.play.outcome_rows import outcomes_of
from arena.runner.play.ratings import RatingTracker, numbered
from arena.seeds import (
    SeedKeyError,
    draw_secret_seed,
    new_seed_key,
    seed_key_from_text,
    seed_key_to_text,
)

SCHEMA_VERSION = 1  # rating checkpoints (derived data, made when wanted) left it as it was
JOURNAL = "journal.sqlite"
#: The meta entry holding the key of the bots' seeds (a tournament's follows from its master
#: seed, arena.seeds.tournament_key). Not part of the identity: journals written before keys
#: existed get one on first use and still resume.
SEED_KEY = "seed_key"
#: The meta entry holding the master seed a tournament drew because its file gives none.
SECRET_SEED = "secret_seed"
#: The meta entry holding each bot's content digest (arena.runner.game.digest) when the tournament
#: began: a resume refuses a bot whose files changed. Not part of the identity, so journals
#: written before digests existed still resume (they get them on their next run).
BOT_DIGESTS = "bot_digests"
#: The meta entry holding the number of games of a schedule fixed from the start, whose games
#: are issued a part at a time (``arena standings`` shows it); absent for a Swiss tournament.
GAMES_TOTAL = "games_total"
#: The meta entry recording why a tournament with a stopping rule stopped (the rule's
#: decision and its figures, :meth:`arena.runner.play.stop.StopWatch.record`): once it is there, a
#: run issues no more games.
STOPPED_BY = "stopped_by"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS pairings (
    game_id  TEXT PRIMARY KEY,
    idx      INTEGER NOT NULL UNIQUE,
    round    INTEGER NOT NULL,
    tbl      INTEGER NOT NULL,
    bots     TEXT NOT NULL,
    seed     INTEGER NOT NULL,
    status   TEXT NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'done')),
    voids    INTEGER NOT NULL DEFAULT 0,
    last_void TEXT,
    started  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS results (
    game_id      TEXT PRIMARY KEY REFERENCES pairings(game_id),
    idx          INTEGER NOT NULL UNIQUE,
    scores       TEXT NOT NULL,
    ranks        TEXT NOT NULL,
    terminations TEXT NOT NULL,
    details      TEXT NOT NULL,
    record       TEXT NOT NULL,
    duration_s   REAL NOT NULL,
    finished_at  REAL NOT NULL
);
"""


#: The folder of a tournament's game records, beside its journal.
RECORDS = "games"


def damaged_message(path: Path, why: str) -> str:
    """The one message for a journal that cannot be read."""
    return (f"{path} is damaged ({why}); nothing was changed. Rebuild it from the game "
            f"records with `arena rebuild TOURNAMENT_FILE`, or move the folder away to start "
            f"the tournament afresh")


#: The finished games with their pairings, each with its result's number (``mark``: SQLite's
#: rowid, which grows with every result committed).
_OUTCOMES = ("SELECT r.rowid AS mark, p.game_id, p.idx, p.round, p.tbl, p.bots, p.seed, "
             "r.scores, r.ranks, r.terminations, r.details "
             "FROM results r JOIN pairings p USING (game_id) ")


def readonly_uri(path: Path) -> str:
    """The URI that opens the journal at ``path`` to read without creating a file beside it.

    SQLite reads a WAL database through its ``-wal`` and ``-shm`` files, and a read-only
    connection creates them when they are missing (and cannot remove them after). With both
    there (a run has the journal open, or left them), ``mode=ro`` reads what the run has
    committed; with no ``-wal``, no connection has the journal open and every committed
    transaction is in the main file, which ``immutable=1`` reads without locks or side files.
    A ``-wal`` without its ``-shm`` (removed by hand) still needs ``mode=ro``, which makes the
    ``-shm``."""
    where = urllib.parse.quote(str(path.resolve()))
    if Path(f"{path}-wal").exists() or not path.exists():
        return f"file:{where}?mode=ro"
    return f"file:{where}?immutable=1"


class JournalError(RuntimeError):
    """The journal cannot be used for this tournament (a different configuration, a newer
    format, a damaged file)."""


class Journal(RatingCheckpoints):
    """Read and write one tournament's journal."""

    def __init__(self, path: str | Path, readonly: bool = False, rebuild: bool = False) -> None:
        """Open (or create) the journal at ``path``. A missing or empty journal beside game
        records is refused (JournalError) unless ``rebuild``: the rebuild writes a new one."""
        self.path = Path(path)
        if readonly:
            if not self.path.is_file():
                raise JournalError(f"{self.path}: no journal here")
            if self.path.stat().st_size == 0:
                raise JournalError(damaged_message(self.path, "the file is empty"))
            self.db = sqlite3.connect(readonly_uri(self.path), uri=True, timeout=30)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not rebuild:
                self._refuse_a_lost_journal()
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.executescript(_SCHEMA)
            except sqlite3.DatabaseError as exc:
                self.db.close()
                if is_disk_full(exc, self.path.parent):
                    raise
                raise JournalError(damaged_message(self.path, str(exc))) from None
        self.db.row_factory = sqlite3.Row
        #: The ratings kept up to date by :meth:`record_result` (loaded on its first call).
        self._keeper: RatingKeeper | None = None
        #: Whether :meth:`record_result` keeps the rating checkpoint (False once a game could
        #: not be rated, as the readers' full replay then says; a benchmark writing a large
        #: journal at once sets it False and calls :meth:`write_checkpoint` at the end).
        self.keep_ratings = True
        #: Set by :meth:`bind` when it replaced an unplayed tournament's settings: what changed.
        self.rebound: list[str] = []

    def _refuse_a_lost_journal(self) -> None:
        """A journal that is empty, or missing beside the game records it wrote, would start
        the tournament again and write over those records: refuse, pointing to the rebuild."""
        if self.path.is_file() and self.path.stat().st_size == 0:
            raise JournalError(damaged_message(self.path, "the file is empty"))
        if not self.path.exists() and any((self.path.parent / RECORDS).glob("*.json")):
            raise JournalError(damaged_message(
                self.path, f"it is missing, but {self.path.parent / RECORDS} holds game records"))

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------ identity
    def meta(self) -> dict[str, Any]:
        rows = self.db.execute("SELECT key, value FROM meta").fetchall()
        return {r["key"]: json.loads(r["value"]) for r in rows}

    def secret_seed(self) -> int:
        """The master seed this journal's tournament drew (:data:`SECRET_SEED`), or, for a
        journal that holds none yet, a fresh one from the operating system's cryptographic
        generator (:meth:`bind` stores it with the tournament)."""
        drawn = self.meta().get(SECRET_SEED)
        if drawn is None:
            return draw_secret_seed()
        if type(drawn) is not int:
            raise JournalError(f"{self.path}: damaged {SECRET_SEED}: {drawn!r}")
        return drawn

    def bind(self, identity: dict[str, Any], describe: str,
             extra: dict[str, Any] | None = None) -> bool:
        """Tie the journal to a tournament (a new journal, or one whose tournament played
        nothing and changed, also stores ``extra``'s entries). Returns True if it already held
        this tournament (a resume); raises JournalError naming what differs if it held another
        one."""
        meta = self.meta()
        if not meta:
            with self._tx():
                for key, value in (
                    *(extra or {}).items(),
                    ("schema_version", SCHEMA_VERSION),
                    ("identity", identity),
                    ("schedule", describe),
                    ("created_at", time.time()),
                ):
                    self.db.execute("INSERT INTO meta VALUES (?, ?)", (key, json.dumps(value)))
            return False
        if meta.get("schema_version") != SCHEMA_VERSION:
            raise JournalError(f"{self.path}: journal format {meta.get('schema_version')} is "
                               f"not {SCHEMA_VERSION}")
        old = meta.get("identity", {})
        differ = sorted(k for k in set(old) | set(identity) if old.get(k) != identity.get(k))
        if differ and not self.has_results():
            # Nothing was played: the file may still change (a bot dropped or fixed, another
            # seed). Its new settings replace the old, with ``extra``'s entries (a seed drawn
            # now), the schedule is issued again, and the key goes, to follow the new seed.
            with self._tx():
                self.db.execute("DELETE FROM pairings")
                self.db.execute("DELETE FROM meta WHERE key = ?", (SEED_KEY,))
                for key, value in (*(extra or {}).items(), ("identity", identity),
                                   ("schedule", describe)):
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                    (key, json.dumps(value)))
            self.rebound = differ
            return False
        if differ:
            raise JournalError(
                f"{self.path} belongs to a tournament that differs in: {', '.join(differ)}. "
                "Resume with the same file, or choose another output folder."
            )
        return True

    def seed_key(self, wanted: bytes | None = None, default: bytes | None = None) -> bytes:
        """The key of the bots' seeds, stored on first use: ``wanted`` or ``default`` if
        given, else a fresh random one. A journal keeps the key it was first given: it raises
        JournalError if it holds a key other than ``wanted``, and returns its own over a
        ``default`` (a tournament's key follows from its master seed, but one whose journal was
        made with a random key keeps that key)."""
        with self._tx():
            row = self.db.execute("SELECT value FROM meta WHERE key = ?",
                                  (SEED_KEY,)).fetchone()
            if row is None:
                key = wanted or default or new_seed_key()
                self.db.execute("INSERT INTO meta VALUES (?, ?)",
                                (SEED_KEY, json.dumps(seed_key_to_text(key))))
                return key
        try:
            key = seed_key_from_text(json.loads(row[0]), self.path)
        except (SeedKeyError, TypeError, ValueError, AttributeError) as exc:
            raise JournalError(f"{self.path}: damaged seed key: {exc}") from None
        if wanted is not None and wanted != key:
            raise JournalError(f"{self.path} holds another seed key than the one given; a "
                               "journal keeps the key it started with")
        return key

    def set_meta(self, key: str, value: Any) -> None:
        """Store (or replace) one meta entry."""
        with self._tx():
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def stop_issuing(self, stopped_by: dict[str, Any]) -> int:
        """Withdraw every issued game no worker was ever handed, record ``stopped_by`` and
        make the games left the total (:data:`GAMES_TOTAL`), in one transaction: a run killed
        at any moment either still plays those games or has withdrawn them and recorded why.
        Games handed out stay, to be finished. Returns how many were withdrawn."""
        with self._tx():
            withdrawn = self.db.execute(
                "DELETE FROM pairings WHERE status = 'scheduled' AND started = 0").rowcount
            left = self.db.execute("SELECT COUNT(*) FROM pairings").fetchone()[0]
            for key, value in ((STOPPED_BY, stopped_by), (GAMES_TOTAL, left)):
                self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                (key, json.dumps(value)))
        return int(withdrawn)

    def has_results(self) -> bool:
        """Whether any game has finished."""
        return self.db.execute("SELECT 1 FROM results LIMIT 1").fetchone() is not None

    # ------------------------------------------------------------------ pairings
    def add_pairings(self, pairings: Sequence[Pairing]) -> None:
        """Record issued pairings, all or none."""
        with self._tx():
            self._insert_pairings(pairings)

    def _insert_pairings(self, pairings: Sequence[Pairing]) -> None:
        """Insert pairings as issued (within the caller's transaction)."""
        self.db.executemany(
            "INSERT INTO pairings (game_id, idx, round, tbl, bots, seed) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(p.game_id, p.index, p.round, p.table, json.dumps(p.bots), p.seed)
             for p in pairings],
        )

    def pairings(self, status: str | None = None) -> list[Pairing]:
        sql = "SELECT * FROM pairings" + (" WHERE status = ?" if status else "") + " ORDER BY idx"
        return _pairings(self.db.execute(sql, (status,) if status else ()).fetchall())

    def pairing_count(self, status: str | None = None) -> int:
        """How many pairings were issued (with ``status``: how many have it)."""
        sql = "SELECT COUNT(*) FROM pairings" + (" WHERE status = ?" if status else "")
        return int(self.db.execute(sql, (status,) if status else ()).fetchone()[0])

    def mark_started(self, game_id: str) -> None:
        """Count an attempt to play a game (committed before the game is handed out)."""
        with self._tx():
            self.db.execute("UPDATE pairings SET started = started + 1 WHERE game_id = ?",
                            (game_id,))

    def started_ids(self) -> set[str]:
        """Games that were handed out at least once."""
        return {r["game_id"] for r in
                self.db.execute("SELECT game_id FROM pairings WHERE started > 0")}

    def started_unfinished(self) -> list[Pairing]:
        """Games handed out at least once and not finished, in the order issued: the games in
        play while a run is going (after a run stopped, the games it will play again)."""
        return _pairings(self.db.execute("SELECT * FROM pairings WHERE started > 0 AND "
                                         "status = 'scheduled' ORDER BY idx").fetchall())

    def record_void(self, game_id: str, reason: str) -> int:
        """Count a void attempt of a game; returns how many it has had."""
        with self._tx():
            self.db.execute(
                "UPDATE pairings SET voids = voids + 1, last_void = ? WHERE game_id = ?",
                (reason, game_id),
            )
            row = self.db.execute("SELECT voids FROM pairings WHERE game_id = ?",
                                  (game_id,)).fetchone()
        return int(row["voids"])

    def void_count(self) -> int:
        row = self.db.execute("SELECT COALESCE(SUM(voids), 0) AS n FROM pairings").fetchone()
        return int(row["n"])

    # ------------------------------------------------------------------ results
    def record_result(self, outcome: GameOutcome, record: str, duration_s: float) -> None:
        """Commit a finished game (its pairing becomes done, the ratings kept are brought up
        to it: arena.runner.play.checkpoint) in one transaction. ``record`` is the game
        record's path relative to the folder; ``duration_s`` the job's time, start-up in."""
        self.record_results([(outcome, record, duration_s)])

    def record_results(self, results: Sequence[tuple[GameOutcome, str, float]]) -> None:
        """Commit finished games (as :meth:`record_result` takes them) in one transaction,
        each as :meth:`record_result` does: the journal holds what one a transaction leaves,
        its checkpoint included (a checkpoint certainly due again within the transaction is
        not written: its row would be replaced before anyone reads it)."""
        seats = max((len(o.bots) for o, _, _ in results), default=0)
        try:
            with self._tx():
                before = self._last_mark()
                for done, (o, record, duration_s) in enumerate(results, start=1):
                    mark = int(self.db.execute(
                        "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (o.game_id, o.index, json.dumps(o.scores), json.dumps(o.ranks),
                         json.dumps(o.terminations), json.dumps(o.details), record,
                         duration_s, time.time())).lastrowid or 0)
                    self.db.execute("UPDATE pairings SET status = 'done' WHERE game_id = ?",
                                    (o.game_id,))
                    if self.keep_ratings:
                        self._keep(o, before, mark, len(results) - done, seats)
                    before = mark
        except BaseException:
            self._keeper = None  # it may hold games the journal does not
            raise

    def outcomes(self, as_finished: bool = False) -> list[GameOutcome]:
        """Every finished game, in the order the schedule issued them (``as_finished``: in
        the order their results were committed, as a league rates them)."""
        return self._games(self._rows(
            _OUTCOMES + "ORDER BY " + ("r.rowid" if as_finished else "p.idx")))

    def _rows(self, query: str, *args: Any) -> list[tuple[Any, ...]]:
        """The rows of a query, as plain tuples (they read faster than named rows)."""
        cursor = self.db.cursor()
        cursor.row_factory = None
        return cursor.execute(query, args).fetchall()

    def _games(self, rows: Sequence[tuple[Any, ...]]) -> list[GameOutcome]:
        try:
            return outcomes_of(rows)
        except ValueError as exc:  # a termination reason this version does not know
            raise JournalError(f"{self.path}: {exc}") from None

    def rated_outcomes(self) -> list[GameOutcome]:
        """Every finished game in the order the ratings take them, with the indices they are
        rated by: a tournament's as the schedule issued them; a league's as their results were
        committed (the order the league rated them), numbered from 0 in that order. A league's
        own numbers follow the tables it issued, and a removed bot version's games leave gaps
        in them that would hold every later game's rating back."""
        if self.meta().get("identity", {}).get("kind") != "league":
            return self.outcomes()
        return numbered(self.outcomes(as_finished=True))

    def finished_after(self, mark: int) -> list[tuple[int, GameOutcome]]:
        """The games whose results were committed after the result numbered ``mark`` (0:
        every game), in the order they were committed, each with its result's number: to
        follow a growing journal reading only what is new."""
        rows = self._rows(_OUTCOMES + "WHERE r.rowid > ? ORDER BY r.rowid", mark)
        return [(r[0], o) for r, o in zip(rows, self._games(rows), strict=True)]

    def records(self) -> dict[str, str]:
        """Every finished game's record path, relative to the tournament folder, by game id,
        in the order the games finished."""
        return {r["game_id"]: r["record"]
                for r in self.db.execute("SELECT game_id, record FROM results ORDER BY rowid")}

    def progress(self, records: bool = False, outcomes: bool = True, ratings: bool = False,
                 history: bool = True, unfinished: bool = True) -> Progress:
        """The tournament's name and bots, its finished games (not ``outcomes``: none), how
        many were issued and, for a schedule fixed from the start, how many it has; with
        ``records``, also where each game's record is; with ``ratings``, the ratings and,
        unless not ``history``, the rating history (:meth:`ratings`,
        :meth:`rating_history`: a row a game, which only the report's curves need); not
        ``unfinished``: no games in play (a scan of every pairing)."""
        meta = self.meta()
        identity = meta.get("identity", {})
        total = meta.get(GAMES_TOTAL)
        rated = self._rated(self._rating_bots()) if ratings else None
        return Progress(
            name=identity.get("name", ""),
            bots=[b["name"] for b in identity.get("bots", [])],
            outcomes=self.rated_outcomes() if outcomes else [],
            issued=self.pairing_count(),
            total=total if type(total) is int else None,
            stopped_by=meta.get(STOPPED_BY),
            identity=identity if isinstance(identity, dict) else {},
            records=self.records() if records else {},
            unfinished=self.started_unfinished() if unfinished else [],
            ratings=rated.tracker if rated else None,
            history=(self.rating_history(rated.tracker.rated_games)
                     if rated and history else None),
        )

    def _tx(self) -> _Transaction:
        return _Transaction(self.db)


@dataclass(frozen=True)
class Progress:
    """What a reader of a tournament (``arena standings``) needs from its journal. ``total``:
    the games of a schedule fixed from the start (None for Swiss, or a journal that has none);
    ``stopped_by``: why its stopping rule stopped it, if it did. ``identity``: the
    tournament's settings as the journal holds them (game, format, seed...). ``records``: each
    finished game's record path relative to the folder, when asked for, in the order the
    games finished. ``unfinished``: the games handed out and not finished (in play while a run
    is going). ``ratings`` and ``history``: the journal's ratings and rating history, when
    asked for."""

    name: str
    bots: list[str]
    outcomes: list[GameOutcome]
    issued: int
    total: int | None = None
    stopped_by: dict[str, Any] | None = None
    identity: dict[str, Any] = field(default_factory=dict)
    records: dict[str, str] = field(default_factory=dict)
    unfinished: list[Pairing] = field(default_factory=list)
    ratings: RatingTracker | None = None
    history: Sequence[tuple[str, str]] | None = None


def _pairings(rows: Sequence[sqlite3.Row]) -> list[Pairing]:
    return [Pairing(r["game_id"], r["idx"], r["round"], r["tbl"], tuple(json.loads(r["bots"])),
                    r["seed"]) for r in rows]


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (or ROLLBACK on error) on an autocommit connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not exc_type:
            try:
                self.db.execute("COMMIT")
                return
            except sqlite3.Error:
                # A COMMIT that fails (a full disk) leaves the transaction open: undo it, so
                # the journal holds nothing of it, and let the error go on.
                self._rollback()
                raise
        self._rollback()

    def _rollback(self) -> None:
        # SQLite may have rolled back already (it does on some errors, SQLITE_FULL among
        # them); a second ROLLBACK would raise and hide the error that matters.
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")
