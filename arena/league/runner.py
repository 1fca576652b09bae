"""``arena league run``: play a league's tables, one duplicate set at a time, until told to
stop, with the league's journal as the single source of truth.

Each pass of the loop reads the league's bot versions again (so one added, retired or enabled
while the run goes on is seen within a second), issues tables while fewer games wait than the
workers can take (each table chosen by :mod:`arena.league.matchmaking` from the ratings now,
and journalled with every seat rotation on one seed before any of it is played), hands games
to the executor, and commits each result before taking the next. Ratings are applied in the
order results were committed, so the journal read again gives exactly the ratings the run
had. A bot version whose own failures reach the league's threshold is suspended, with the
reason, and its games not yet handed out are dropped; so are those of a retired one.

Stopping: Ctrl-C once finishes the games in progress, twice abandons them (they are played
again on the next run); ``--games N`` and ``--until-sigma S`` stop issuing tables once this
run has finished N games, or once every active bot version's sigma is under S, or once some
active version's sigma is seen unable to get under S (:mod:`arena.league.floor`: a target
under what TrueSkill's drift allows at the league's tables is refused before any game).

The loop itself is the ring's (:mod:`arena.runner.play.ring`), the tournament's too: a
:class:`League` is the policy it drives. A void game is played again, first, up to the league's
``void_retries``; past that the run stops, naming it, and the next run plays it.
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.engine import get_game
from arena.league import matchmaking
from arena.league.config import LeagueConfig
from arena.league.floor import Floor, out_of_reach_line, table_floor
from arena.league.state import RunState
from arena.league.store import Entrant, LeagueJournal
from arena.protocol.messages import Termination
from arena.results import GameOutcome, Pairing, rotations
from arena.runner.game.disk import FolderBusyError, FolderLock
from arena.runner.game.manifest import BotManifest
from arena.runner.play.column_cache import keep_columns
from arena.runner.play.executor import Executor
from arena.runner.play.job import GameJob, record_file
from arena.runner.play.journal import SECRET_SEED
from arena.runner.play.live import Snapshot
from arena.runner.play.ratings import Standings
from arena.runner.play.ring import Choose, Ring, RunOptions, TournamentError
from arena.seeds import derive_seed

#: How often the run reads the league's bot versions again, at most.
REFRESH_S = 1.0


@dataclass
class LeagueResult:
    standings: Standings
    games_played: int  #: by this run
    games_total: int  #: in the journal
    why: str  #: why the run ended
    out_of_reach: bool = False  #: it ended because --until-sigma cannot be reached


def league_table_pairings(table: int, index: int, bots: Sequence[str],
                          seed: int) -> list[Pairing]:
    """Table number ``table``'s duplicate set: ``bots`` in every cyclic seat rotation on one
    seed, as games ``index``, ``index + 1``, ..."""
    return [Pairing(f"t{table:06d}-s{s}", index + s, table, table, seats, seed)
            for s, seats in enumerate(rotations(bots))]


def check_target(until_sigma: float, players: int) -> None:
    """Refuse (TournamentError) a target no league at tables of ``players`` can reach."""
    floor = table_floor(players)
    if until_sigma <= floor:
        raise TournamentError(
            f"--until-sigma {until_sigma:g} cannot be reached: TrueSkill's drift keeps a σ "
            f"above {floor:.2f} at {players}-player tables, even when every game is between "
            "equals (README: Running a league)")


class League:
    """One run of a league (see the module's doc). ``options`` drive the run (the executor,
    the live view, the stop request); None: the defaults of :class:`RunOptions`. ``games``
    and ``until_sigma`` are ``--games`` and ``--until-sigma``; ``seed_key``, the key of the
    bots' seeds a new journal is to keep (None: a fresh one)."""

    #: A league's workers keep idle bot processes between games.
    keep_bots = True

    def __init__(
        self,
        config: LeagueConfig,
        options: RunOptions | None = None,
        games: int | None = None,
        until_sigma: float | None = None,
        seed_key: bytes | None = None,
    ) -> None:
        if until_sigma is not None:
            check_target(until_sigma, config.players)
        self.config = config
        self.folder = Path(config.folder)
        self.games_wanted = games
        self.until_sigma = until_sigma
        self.ring = Ring(self, config, options or RunOptions())
        try:
            self.lock = FolderLock(self.folder)
        except FolderBusyError as exc:
            raise TournamentError(str(exc)) from None
        try:
            self.journal = LeagueJournal(config)
            self.master = self.journal.secret_seed()
            if SECRET_SEED not in self.journal.meta():
                self.journal.set_meta(SECRET_SEED, self.master)
            self.seed_key = self.journal.seed_key(seed_key)
        except BaseException:
            self.lock.release()
            raise
        # The games so far, from the rating checkpoint; the floor watch only for a target.
        self.state = RunState.started(self.journal, config.suspend_window,
                                      floors=until_sigma is not None)
        self.tracker = self.state.tracker
        self._beyond: tuple[tuple[int, tuple[str, ...]], list[Floor]] | None = None
        self.done_before = self.state.rated
        self.played = 0
        self.entrants: list[Entrant] = []
        #: Each bot version's manifest, read from its snapshot when a game first needs it.
        self.manifests: dict[str, BotManifest] = {}
        self.queue: list[Pairing] = []  # issued, not handed out, in the order to hand out
        self.last_refresh = 0.0
        self.why = ""
        self.idle_said = False  # whether the wait for more bot versions was said
        self.unreachable = False  # whether the run ends for a target it cannot reach

    # ------------------------------------------------------------------ bookkeeping
    def _refresh(self) -> None:
        """Read the bot versions again: new ones get a line; games of ones no longer active
        that were not handed out are dropped."""
        self.entrants = self.journal.entrants()
        self.last_refresh = time.monotonic()
        for e in self.entrants:
            self.tracker.add_bot(e.key)
        active = {e.key for e in self.entrants if e.status == "active"}
        gone = [p.game_id for p in self.queue if not set(p.bots) <= active]
        if gone:
            self.journal.drop_games(gone)
            self.queue = [p for p in self.queue if set(p.bots) <= active]

    def _suspend_failing(self, o: GameOutcome) -> bool:
        """Suspend each bot version of ``o`` whose failures reached the threshold; whether one
        was."""
        suspended = False
        for bot, how in zip(o.bots, o.terminations, strict=True):
            recent = self.state.history.get(bot, deque())
            if how == Termination.OK or sum(recent) < self.config.suspend_after:
                continue
            entrant = self.journal.entrant(bot)
            if entrant is None or entrant.status != "active":
                continue
            reason = (f"{sum(recent)} of its last {len(recent)} games ended in its failure "
                      f"(last: {how} in {o.game_id})")
            self.journal.set_status(bot, "suspended", reason)
            self.ring.notices.append(f"{bot} suspended: {reason}; `arena league enable` it "
                                     "once fixed")
            suspended = True
        return suspended

    # ------------------------------------------------------------------ tables
    def _active(self) -> list[Entrant]:
        return [e for e in self.entrants if e.status == "active"]

    def _pending(self, running: Sequence[Pairing]) -> dict[str, int]:
        pending: dict[str, int] = {}
        for p in [*self.queue, *running]:
            for bot in p.bots:
                pending[bot] = pending.get(bot, 0) + 1
        return pending

    def _issue_table(self, running: Sequence[Pairing]) -> bool:
        """Choose a table and issue its duplicate set; False if too few versions are active."""
        active = self._active()
        if len(active) < self.config.players:
            return False
        pending = self._pending(running)
        table, index = self.journal.next_table()
        rng = random.Random(derive_seed(self.master, "league-match", table))
        rating = self.tracker.rating
        choice = matchmaking.choose_table(
            [matchmaking.Entrant(e.key, *rating(e.key), self.state.games.get(e.key, 0),
                                 pending.get(e.key, 0))
             for e in active],
            self.config.players, rng, self.config.explore, self.until_sigma)
        pairings = league_table_pairings(table, index, choice.bots,
                                         derive_seed(self.master, "league-table", table))
        self.journal.issue(pairings)
        self.queue += pairings
        return True

    def _sure_enough(self) -> bool:
        if self.until_sigma is None:
            return False
        active = self._active()
        return bool(active) and all(self.tracker.rating(e.key)[1] < self.until_sigma
                                    for e in active)

    def _out_of_reach(self) -> list[Floor]:
        """The active bot versions whose sigma cannot get under the target (judged again once
        a game was rated or the active versions changed)."""
        if self.until_sigma is None:
            return []
        active = tuple(e.key for e in self._active())
        rated, floors = self.state.rated, self.state.floors
        assert floors is not None  # kept when there is a target
        if self._beyond is None or self._beyond[0] != (rated, active):
            self._beyond = ((rated, active),
                            floors.out_of_reach(active, self.until_sigma, self.tracker.rating))
        return self._beyond[1]

    def _asked_for(self, running: Sequence[Pairing]) -> bool:
        """Whether the games of ``--games`` are all played or handed out."""
        return self.games_wanted is not None and \
            self.played + len(running) >= self.games_wanted

    def _should_issue(self, running: Sequence[Pairing]) -> bool:
        return not self._asked_for(running) and not self._sure_enough() \
            and not self._out_of_reach()

    # ------------------------------------------------------------------ the ring's policy
    @property
    def settings(self) -> LeagueConfig:
        return self.config

    def begin(self) -> bool:
        self.queue = self.journal.pairings("scheduled")
        self._refresh()
        return True  # a league may always be given bots to play

    def check_bots(self, executor: Executor) -> None:
        """Nothing: a league's bot versions were checked as they were added."""

    def plan(self, capacity: int, running: Sequence[Pairing]) -> None:
        """Read the bot versions again if a second has passed; issue tables while fewer
        games wait than ``capacity`` workers can take."""
        if time.monotonic() - self.last_refresh >= REFRESH_S:
            self._refresh()
        while (len(self.queue) < capacity and self._should_issue(running)
               and self._issue_table(running)):
            pass

    def next(self, running: Sequence[Pairing], choose: Choose) -> Pairing | None:
        if not self.queue or self._asked_for(running):
            return None
        return self.queue.pop(choose(self.queue))

    def finished(self) -> bool:
        self.why = self._why_idle()
        return bool(self.why)

    def job(self, p: Pairing) -> GameJob:
        for e in self.entrants:
            if e.key in p.bots and e.key not in self.manifests:
                self.manifests[e.key] = BotManifest.load(self.folder / e.folder)
        return GameJob(
            pairing=p, game=get_game(self.config.game),
            bots={key: self.manifests[key] for key in p.bots},
            time_control=self.config.time_control.to_dict(),
            record_path=str(record_file(self.folder, p.game_id)),
            log_dir=str(self.folder / "logs"), log_cap=self.config.log_cap,
            seed_key=self.seed_key, sandbox=self.config.sandbox, options=self.config.options,
        )

    def record(self, outcome: GameOutcome) -> None:
        self.played += 1
        self.state.count(outcome)
        if self._suspend_failing(outcome):
            self._refresh()  # its games not handed out yet are not played

    def retry(self, pairing: Pairing) -> None:
        self.queue.insert(0, pairing)

    def view(self, running: Sequence[Pairing]) -> Snapshot:
        total = None if self.games_wanted is None else self.done_before + self.games_wanted
        active = len(self._active())
        return Snapshot(
            name=self.config.name, game=self.config.game, format="league",
            standings=self.tracker.standings(), games_done=self.state.rated,
            games_total=total, recent=list(self.state.recent),
            failures=dict(self.state.failures),
            schedule=(f"league, {active} of {len(self.entrants)} bot versions active, "
                      f"{self.config.players}-player tables as duplicate sets"
                      + (f"; until every sigma < {self.until_sigma:g}"
                         if self.until_sigma is not None else "")),
            done_before=self.done_before,
        )

    # ------------------------------------------------------------------ the run
    def run(self) -> LeagueResult:
        """Play until stopped (see the module's doc). Raises TournamentError if the league
        cannot go on (no sandbox, workers that keep dying, a game void too many times);
        finished games are kept."""
        stop = self.ring.stop
        try:
            self.ring.run()
            if stop.level:
                self.why = "stopped" + (" (the games in progress abandoned: they are played "
                                        "on the next run)" if stop.level >= 2 else "")
            self.ring.show()
        finally:
            if self.played and stop.level < 2:  # not when asked to stop at once
                keep_columns(self.journal, self.folder)
            self.journal.close()
            self.lock.release()
        return LeagueResult(self.tracker.standings(), self.played, self.state.rated, self.why,
                            self.unreachable and not stop.level)

    def _why_idle(self) -> str:
        """Why nothing is left to play now ("" if something is, or a bot may yet come)."""
        if self.games_wanted is not None and self.played >= self.games_wanted:
            return f"{self.played} games played, as asked"
        if self._sure_enough():
            return f"every active bot version's sigma is under {self.until_sigma:g}"
        beyond = self._out_of_reach()
        if beyond:
            assert self.until_sigma is not None
            self.unreachable = True
            return out_of_reach_line(self.until_sigma, beyond)
        if len(self._active()) < self.config.players:
            short = f"fewer active bot versions than the {self.config.players} a table needs"
            if self.games_wanted is None and self.until_sigma is None:
                # Forever: wait for bots to be added (or enabled), and say so once.
                if not self.idle_said:
                    self.ring.notices.append(
                        f"waiting: {short}; add one with `arena league add {self.folder} "
                        "BOT_FOLDER` (Ctrl-C to stop)")
                    self.idle_said = True
                return ""
            return short
        self.idle_said = False
        return ""
