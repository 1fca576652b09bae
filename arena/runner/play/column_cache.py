"""The report's columns kept beside a journal (:data:`CACHE`): every finished game a large
field's report has read, as arrays of numbers (:class:`~arena.runner.play.columns.RawGames`),
so that the next report reads from the journal only the games committed since.

A million games read from SQLite and parsed from JSON take seconds; the same games read from
the file take a few hundredths. The journal stays the single source of truth: the file is
derived data, made again from the games whenever it is missing or does not agree with them,
and a reader that cannot write beside the journal reads every game as before.

The file is trusted only as far as it is checked against the journal, every time it is read:

- it is a NumPy archive of plain arrays (read without pickles), of the shapes, types and
  ranges its games need, whose digest (SHA-256 of every array) is the one it holds: a file
  damaged, cut short or not of this format is not used;
- the results numbered up to the last one it holds are as many as its games and end with its
  last game (the journal's checkpoint's check: results removed or replaced since disagree);
- :data:`SPOT_CHECKS` of its games spread over them, its last among them, are read again from
  the journal and must be the same in every field it keeps.

A file that fails any check is ignored, and written again from every game when the folder can
be written. The games committed after its last are read from the journal and added to it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from arena.runner.play.columns import ROWS, RawGames, joined, parse_rows, read_raw
from arena.runner.play.journal import Journal

#: The file beside the journal.
CACHE = "report-columns.npz"
#: A field of more bots than this is a large field, whose report reads its games as columns
#: (:data:`arena.report.html.LARGE_FIELD`).
LARGE_FIELD = 100
#: The format of the file (another is not read).
VERSION = 1
#: How many of the file's games are read again from the journal and compared, every time.
SPOT_CHECKS = 32
#: The arrays of :class:`RawGames` the file holds, in the order the digest reads them.
_ARRAYS = ("marks", "idx", "rounds", "tables", "seeds", "size", "seat", "ranks", "scores",
           "ok")
_TABLES = ("seat", "ranks", "scores", "ok")


def _digest(arrays: dict[str, np.ndarray], names: bytes, ids: bytes) -> str:
    h = hashlib.sha256()
    for key in _ARRAYS:
        a = np.ascontiguousarray(arrays[key])
        h.update(f"{key}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.data)
    h.update(names)
    h.update(ids)
    return h.hexdigest()


def _smallest(a: np.ndarray) -> np.ndarray:
    """``a`` in the smallest signed integer type that holds its values (the file's size)."""
    if a.dtype == np.bool_ or a.size == 0:
        return a
    low, high = int(a.min()), int(a.max())
    for t in (np.int8, np.int16, np.int32):
        info = np.iinfo(t)
        if info.min <= low and high <= info.max:
            return a.astype(t)
    return a


def write_cache(path: Path, raw: RawGames) -> None:
    """Write ``raw`` as the file at ``path``, whole or not at all (a temporary file renamed
    over it); a folder that cannot be written is left as it is."""
    arrays = {key: _smallest(getattr(raw, key)) for key in _ARRAYS}
    names = json.dumps(raw.names).encode()
    ids = json.dumps(raw.game_ids).encode()
    head = json.dumps({"version": VERSION, "games": raw.games,
                       "mark": int(raw.marks[-1]) if raw.games else 0,
                       "last": raw.game_ids[-1] if raw.games else None,
                       "digest": _digest(arrays, names, ids)}).encode()
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            save: Any = np.savez  # its stubs take the arrays' names as flags
            save(f, head=np.frombuffer(head, np.uint8), names=np.frombuffer(names, np.uint8),
                 ids=np.frombuffer(ids, np.uint8), **arrays)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def load_cache(path: Path) -> RawGames | None:
    """The games of the file at ``path`` if it is one this version wrote, whole and as
    written (its digest), its arrays of the shapes and ranges its games need; None
    otherwise. Not yet checked against the journal (:func:`agrees`)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            files = {key: archive[key] for key in ("head", "names", "ids", *_ARRAYS)}
        head = json.loads(files["head"].tobytes())
        names_text, ids_text = files["names"].tobytes(), files["ids"].tobytes()
        if (not isinstance(head, dict) or head.get("version") != VERSION
                or head.get("digest") != _digest(files, names_text, ids_text)):
            return None
        names, ids = json.loads(names_text), json.loads(ids_text)
        return _checked(files, names, ids, head)
    except Exception:  # whatever the file holds, it is only not used
        return None


def _checked(files: dict[str, np.ndarray], names: Any, ids: Any,
             head: dict[str, Any]) -> RawGames | None:
    """The file's games if its arrays are consistent with each other and with its head."""
    if not (isinstance(names, list) and all(type(b) is str for b in names)
            and len(set(names)) == len(names) and isinstance(ids, list)
            and set(map(type, ids)) <= {str}):
        return None
    g = len(ids)
    for key in _ARRAYS:
        kind = "b" if key == "ok" else "i"
        ndim = 2 if key in _TABLES else 1
        if files[key].dtype.kind != kind or files[key].shape[:1] != (g,) or (
                files[key].ndim != ndim):
            return None
    width = files["seat"].shape[1]
    if any(files[key].shape != (g, width) for key in _TABLES) or width < 2:
        return None
    a = {key: files[key].astype(np.int64) for key in _ARRAYS if key != "ok"}
    ok = files["ok"].astype(np.bool_)
    size, seat, marks = a["size"], a["seat"], a["marks"]
    inside = np.arange(width)[None, :] < size[:, None]
    if g and (int(size.min()) < 1 or int(size.max()) > width
              or not bool(np.all(np.diff(marks) > 0)) or int(marks[0]) < 1
              or bool(np.any(seat[inside] < 0)) or int(seat.max()) >= len(names)
              or bool(np.any(seat[~inside] != -1)) or bool(np.any(a["ranks"][~inside]))
              or bool(np.any(a["scores"][~inside])) or bool(np.any(ok[~inside]))):
        return None
    last = ids[-1] if g else None
    if head.get("games") != g or head.get("mark") != (int(marks[-1]) if g else 0) or (
            head.get("last") != last):
        return None
    return RawGames(marks=marks, idx=a["idx"], rounds=a["rounds"], tables=a["tables"],
                    seeds=a["seeds"], size=size, seat=seat, ranks=a["ranks"],
                    scores=a["scores"], ok=ok, names=names, game_ids=ids)


def agrees(db: sqlite3.Connection, raw: RawGames) -> bool:
    """Whether the journal open as ``db`` holds the games of ``raw`` as its first results:
    as many numbered up to its last, that one its last game, and :data:`SPOT_CHECKS` of them
    read again the same in every field."""
    if not raw.games:
        return True
    mark = int(raw.marks[-1])
    count = db.execute("SELECT COUNT(*) FROM results WHERE idx >= ? AND rowid <= ?",
                       (-(2**63), mark)).fetchone()[0]
    if count != raw.games:
        return False
    picked = sorted({*np.linspace(0, raw.games - 1, SPOT_CHECKS).astype(np.int64).tolist(),
                     raw.games - 1})
    cursor = db.cursor()
    cursor.row_factory = None
    marks = [int(raw.marks[g]) for g in picked]
    rows = cursor.execute(ROWS + f"WHERE r.rowid IN ({','.join('?' * len(marks))}) "
                          "ORDER BY r.rowid", marks).fetchall()
    if len(rows) != len(picked):
        return False
    again = parse_rows(rows, raw.names)
    if again.names != raw.names:  # a bot the file does not hold
        return False
    width = raw.seat.shape[1]
    if again.seat.shape[1] > width:
        return False
    rows_at = np.array(picked, dtype=np.int64)
    for key in ("marks", "idx", "rounds", "tables", "seeds", "size"):
        if not np.array_equal(getattr(again, key), getattr(raw, key)[rows_at]):
            return False
    for key, fill in (("seat", -1), ("ranks", 0), ("scores", 0), ("ok", False)):
        mine = getattr(raw, key)[rows_at]
        read = np.full_like(mine, fill)
        read[:, :again.seat.shape[1]] = getattr(again, key)
        if not np.array_equal(read, mine):
            return False
    return again.game_ids == [raw.game_ids[g] for g in picked]


def cached_games(db: sqlite3.Connection, folder: Path, write: bool = True) -> RawGames:
    """Every finished game of the journal open as ``db`` (in ``folder``), in the order their
    results were committed: those the file beside it holds, when it agrees with the journal,
    and the games committed after them read from the journal; every game read from the
    journal otherwise. With ``write``, the file is brought up to date (a folder that cannot
    be written keeps it as it was). Raises ValueError as :func:`read_raw` does."""
    path = folder / CACHE
    kept = load_cache(path) if path.is_file() else None
    if kept is not None and not agrees(db, kept):
        kept = None
    if kept is None:
        games = read_raw(db)
    else:
        games = joined(kept, read_raw(db, int(kept.marks[-1]) if kept.games else 0,
                                      kept.names))
    if write and games.games and (kept is None or games.games != kept.games):
        write_cache(path, games)
    return games


def keep_columns(journal: Journal, folder: Path) -> bool:
    """Bring the file beside ``journal`` (in ``folder``) up to date with its games, as the
    report would, for a field of more than :data:`LARGE_FIELD` bots (as the journal names
    them) in a folder that can be written: what a league run does when it stops, so that the
    report after it reads only the file. The file is derived data: a journal or file that
    cannot be read is left for the report (False); True when the file holds every game."""
    try:
        if (len(journal.progress(outcomes=False, unfinished=False).bots) <= LARGE_FIELD
                or not os.access(folder, os.W_OK)):
            return False
        games = cached_games(journal.db, folder)
    except (ValueError, OSError, sqlite3.Error):
        return False
    return games.games > 0 and (folder / CACHE).is_file()
