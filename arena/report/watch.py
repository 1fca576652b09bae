"""What ``arena serve`` shows of a tournament's or a league's folder, read without writing to it.

:class:`FolderWatch` reads the folder's journal again only when its files changed (their sizes
and times, and whether a run holds the folder's lock), and turns it into one JSON-ready
snapshot: the standings (from the same code as ``arena standings`` and ``arena league
standings``), the progress, the games in play and the finished games with their records. The
journal is opened read-only and creates no file in the folder
(:func:`arena.runner.play.journal.readonly_uri`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from arena.league.config import CONFIG, LeagueConfig, load_league
from arena.league.standings import standings_data as league_standings
from arena.league.state import LeagueRatings
from arena.runner.game.disk import LOCK_FILE, lock_held
from arena.runner.play.journal import JOURNAL, JournalError, Progress
from arena.runner.play.outputs import JSON_NAME
from arena.runner.play.outputs import standings_data as tournament_standings
from arena.runner.play.reading import read_progress
from arena.stats.common import rounded

#: The finished games a snapshot lists, the latest first (the page links each to its replay).
RECENT = 200


class FolderWatch:
    """One tournament's or league's folder, read again when it changes.

    Raises :class:`~arena.runner.play.journal.JournalError` (or the league's
    :class:`~arena.runner.play.config.ConfigError`) when the folder is neither: no journal,
    or a league file that does not read.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.league: LeagueConfig | None = None
        if (folder / CONFIG).is_file():
            self.league = load_league(folder)
            self._ratings = LeagueRatings()
        elif not (folder / JOURNAL).is_file():
            raise JournalError(f"{folder}: no {JOURNAL} here: give the output folder of "
                               "`arena run` or the folder of a league")
        self._stamp: tuple[Any, ...] | None = None
        self._records: dict[str, str] = {}
        #: The latest snapshot (:meth:`refresh` keeps it); ``version`` counts its changes.
        self.state: dict[str, Any] = {}
        self.version = 0

    def _files_stamp(self) -> tuple[Any, ...]:
        stamp: list[Any] = []
        for name in (JOURNAL, f"{JOURNAL}-wal", JSON_NAME, LOCK_FILE):
            try:
                st = os.stat(self.folder / name)
                stamp.append((st.st_size, st.st_mtime_ns))
            except OSError:
                stamp.append(None)
        stamp.append(lock_held(self.folder))
        return tuple(stamp)

    def refresh(self) -> bool:
        """Read the folder again if its files changed; whether the snapshot changed. Raises
        JournalError if the journal cannot be read (the snapshot is kept)."""
        stamp = self._files_stamp()
        if stamp == self._stamp:
            return False
        # The standings from the kept ratings; the rating history (a row a game) is the report's.
        progress = read_progress(self.folder, records=True, ratings=True, history=False)
        state = self._snapshot(progress, running=stamp[-1])
        self._stamp, self._records = stamp, progress.records
        if state == self.state:
            return False
        self.state, self.version = state, self.version + 1
        return True

    def record(self, game_id: str) -> Path | None:
        """The record of the finished game ``game_id``, or None if the journal names none or
        the path it names leads out of the folder."""
        relative = self._records.get(game_id)
        if relative is None:
            return None
        folder = self.folder.resolve()
        path = (folder / relative).resolve()
        return path if path.is_relative_to(folder) and path.is_file() else None

    def _snapshot(self, progress: Progress, running: bool | None) -> dict[str, Any]:
        if self.league is not None:
            data = league_standings(self.league, self._ratings)
            standings = data["standings"]
            head = {"kind": "league", "name": data["name"], "game": data["game"],
                    "games": data["games"], "total": None, "complete": False,
                    "bots_status": [b for b in data["bots"] if b["status"] != "active"]}
        else:
            standings = tournament_standings(self.folder, progress)
            game = progress.identity.get("game")
            head = {"kind": "tournament", "name": standings["name"],
                    "game": game if isinstance(game, str) else "",
                    "games": standings["games"], "total": standings["total"],
                    "issued": standings["issued"], "complete": standings["complete"],
                    "stopped_by": (standings.get("stopped_by") or {}).get("summary")}
        by_id = {o.game_id: o for o in progress.outcomes}
        finished = [by_id[g] for g in reversed(progress.records) if g in by_id][:RECENT]
        return rounded({
            **head, "running": running, "folder": self.folder.resolve().name,
            "standings": [{**b, "failures": sum(b["failures"].values())}
                          for b in standings["bots"]],
            "in_play": [{"game_id": p.game_id, "bots": list(p.bots)}
                        for p in progress.unfinished],
            "finished": [{"game_id": o.game_id, "bots": list(o.bots), "scores": list(o.scores),
                          "ranks": list(o.ranks),
                          "ended": [str(t.value) for t in o.terminations]} for o in finished],
        })
