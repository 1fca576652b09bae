"""What a league run keeps of the games committed so far: the ratings, each bot version's games
(as the standings count them), its last games' failures (what suspends it), the failures by
reason, the newest games (the live view's) and, with a sigma target, the floor watch
(:mod:`arena.league.floor`).

A run starts from the journal's rating checkpoint and rating history (:meth:`RunState.started`)
instead of rating every game again (:meth:`RunState.replayed`, the reference it equals): the
ratings are the checkpoint's, brought up to date as a reader does; the counts are the ratings'
own; the failures and the newest games are read from the newest results back, only as far as
each version's window reaches; the floor watch is read from the rating history's sigmas. At a
million games that is seconds instead of minutes of TrueSkill.
"""

from __future__ import annotations

import dataclasses
import json
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from math import sqrt

import numpy as np

from arena.league.floor import PATIENCE, FloorWatch
from arena.league.store import LeagueJournal
from arena.protocol.messages import FAILURES, Termination
from arena.results import GameOutcome
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.tournament import RECENT

#: The results read at a time going back from the newest (the failures' windows).
BACK_CHUNK = 2_000
#: The rating history's rows parsed at a time (the floor watch's sigmas).
HISTORY_CHUNK = 50_000


def league_ratings(journal: LeagueJournal) -> tuple[RatingTracker, list[GameOutcome]]:
    """The ratings of every bot version from the journal's games, applied in the order their
    results were committed (as the run applied them), and those games in that order."""
    ratings = LeagueRatings()
    return ratings.tracker, ratings.update(journal)


class LeagueRatings:
    """A league journal's ratings (as :func:`league_ratings` gives them), kept up to date by
    reading only the results committed since the last :meth:`update`: a view that refreshes
    every second costs the new games, not the whole league's. If the results read before
    are no longer the journal's first ones (a bot version was removed), it reads them all
    again."""

    def __init__(self) -> None:
        self._start()

    def _start(self) -> None:
        self.tracker = RatingTracker([])
        self.games = 0
        self._mark = 0  # the number of the last result read
        self._last: str | None = None  # and its game

    def update(self, journal: LeagueJournal,
               each: Callable[[GameOutcome], None] | None = None) -> list[GameOutcome]:
        """Bring the ratings up to the journal's results, calling ``each`` with every game
        once it is rated; returns the games added."""
        if self._mark and journal.results_through(self._mark) != (self.games, self._last):
            self._start()
        for e in journal.entrants():
            self.tracker.add_bot(e.key)
        added = []
        for mark, o in journal.finished_after(self._mark):
            rate(self.tracker, o, self.games)
            self.games += 1
            self._mark, self._last = mark, o.game_id
            added.append(o)
            if each is not None:
                each(o)
        return added

    def refresh(self, journal: LeagueJournal) -> None:
        """Bring the ratings up to the journal's results, as :meth:`update` does without
        ``each``, but starting from the journal's rating checkpoint when these ratings have
        read nothing yet (O(bots), not O(games))."""
        if not self._mark:
            self.tracker, mark, self.games, last = journal.rated()
            if last is not None:
                self._mark, self._last = mark, last
        self.update(journal)


def rate(tracker: RatingTracker, o: GameOutcome, games: int) -> None:
    """Rate ``o`` as the league's game number ``games`` (from 0, in the order committed)."""
    for bot in o.bots:
        tracker.add_bot(bot)
    tracker.add(dataclasses.replace(o, index=games))


@dataclass
class RunState:
    """A league run's view of its games (see the module's doc). ``window``: the league's
    ``suspend_window``; ``floors``: None without a sigma target (nothing asks it)."""

    tracker: RatingTracker
    window: int
    floors: FloorWatch | None = None
    rated: int = 0  #: games rated
    #: The newest games, newest first.
    recent: deque[GameOutcome] = field(default_factory=lambda: deque(maxlen=RECENT))
    failures: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAILURES, 0))
    #: Per bot version: its last ``window`` games, oldest first, whether each was its failure.
    history: dict[str, deque[bool]] = field(default_factory=dict)
    #: Per bot version that has played: its games rated (as the standings count them).
    games: dict[str, int] = field(default_factory=dict)

    def count(self, o: GameOutcome) -> None:
        """Rate a game just committed and take it in."""
        rate(self.tracker, o, self.rated)
        self._rated(o)

    def _rated(self, o: GameOutcome) -> None:
        if self.floors is not None:
            self.floors.add(o, self.tracker)
        self.rated += 1
        self.recent.appendleft(o)
        for bot, how in zip(o.bots, o.terminations, strict=True):
            self.games[bot] = self.games.get(bot, 0) + 1
            failed = how != Termination.OK
            self.history.setdefault(bot, deque(maxlen=self.window)).append(failed)
            if failed and how in self.failures:
                self.failures[how] += 1

    @classmethod
    def replayed(cls, journal: LeagueJournal, window: int, floors: bool) -> RunState:
        """The state of the journal's games, each rated again in the order committed."""
        ratings = LeagueRatings()
        state = cls(ratings.tracker, window, FloorWatch(journal.config.players) if floors
                    else None)
        ratings.update(journal, state._rated)
        return state

    @classmethod
    def started(cls, journal: LeagueJournal, window: int, floors: bool) -> RunState:
        """The state :meth:`replayed` gives, from the rating checkpoint and history."""
        tracker, _, games, _ = journal.rated()
        for e in journal.entrants():
            tracker.add_bot(e.key)
        state = cls(tracker, window, rated=games)
        watch = FloorWatch(journal.config.players)
        if floors and not _watch_from_history(journal, watch, games):
            return cls.replayed(journal, window, floors)
        state.floors = watch if floors else None
        for bot in tracker.bots:
            played, failed = tracker.counts(bot)
            if played:
                state.games[bot] = played
                for how, n in failed.items():
                    state.failures[how] += n
        state._read_back(journal)
        return state

    def _read_back(self, journal: LeagueJournal) -> None:
        """The newest games and each version's last ``window`` games' failures, read from the
        newest results back until every version that played has its window."""
        wanted = {bot: min(self.window, n) for bot, n in self.games.items()}
        flags: dict[str, list[bool]] = {bot: [] for bot in wanted}
        short = {bot for bot, n in wanted.items() if n}
        self.recent.extend(journal.newest(RECENT))
        for bots, ended in _back(journal):
            for bot, how in zip(bots, ended, strict=True):
                if bot in short:
                    flags[bot].append(how != Termination.OK)
                    if len(flags[bot]) == wanted[bot]:
                        short.discard(bot)
            if not short:
                break
        self.history = {bot: deque(reversed(f), maxlen=self.window) for bot, f in flags.items()}


def _back(journal: LeagueJournal) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each result's seats and their endings, newest first, read a chunk at a time."""
    before = None
    while True:
        rows = journal.seat_endings(before, BACK_CHUNK)
        yield from ((bots, ended) for _, bots, ended in rows)
        if len(rows) < BACK_CHUNK:
            return
        before = rows[-1][0]


def held_sigma(sigma: float) -> float:
    """The sigma a TrueSkill rating made of ``sigma`` gives back: it keeps the precision
    ``sigma ** -2`` and gives ``sqrt(1 / precision)``, which may differ in the last bit (what
    the floor watch saw from the ratings)."""
    return sqrt(1 / sigma ** -2)


def _watch_from_history(journal: LeagueJournal, watch: FloorWatch, games: int) -> bool:
    """Fill ``watch`` with every game's seats' sigmas, read from the rating history; False
    (``watch`` as it was) if the history does not hold exactly the journal's ``games`` games
    in the order rated."""
    names: dict[str, int] = {}
    codes: list[np.ndarray] = []
    sigmas: list[np.ndarray] = []
    read = 0
    for rows in journal.history_seats(HISTORY_CHUNK):
        seated = json.loads("[" + ",".join(r[1] for r in rows) + "]")
        chunk = np.array([names.setdefault(b, len(names)) for seats in seated for b in seats],
                         dtype=np.int64)
        made = np.fromstring(" ".join(r[2] for r in rows).translate(_BARE), sep=" ")
        if made.size != 2 * chunk.size:
            return False
        codes.append(chunk)
        sigmas.append(made[1::2])
        read += len(rows)
    if read != games or not journal.history_in_order():
        return False
    if not codes:
        return True
    seat_codes, seat_sigmas = np.concatenate(codes), np.concatenate(sigmas)
    # Each bot's seats together, in the order rated.
    by_bot = seat_sigmas[np.argsort(seat_codes, kind="stable")]
    ends = np.cumsum(np.bincount(seat_codes, minlength=len(names)))
    for name, code in names.items():
        mine = by_bot[ends[code - 1] if code else 0:ends[code]]
        held = [sqrt(1 / s ** -2) for s in mine[-PATIENCE:].tolist()]  # held_sigma, inline
        watch.restore(name, len(mine), held, *_lowest(mine))
    return True


#: Brackets and commas to spaces: the history's JSON as numbers apart.
_BARE = str.maketrans("[],", "   ")


def _lowest(sigmas: np.ndarray) -> tuple[float, int]:
    """The lowest held sigma of a bot's games (its sigmas as made, in order) and its games
    since the first game that held it."""
    least = float(sigmas.min())
    low = held_sigma(least)
    # Held sigmas rise with made ones and differ from them in the last bits: the first game
    # holding the lowest is among those made within a hair of the least.
    for at in np.flatnonzero(sigmas <= least * (1 + 1e-12)).tolist():
        if held_sigma(float(sigmas[at])) == low:
            return low, len(sigmas) - 1 - at
    raise AssertionError("the least sigma holds the lowest")
