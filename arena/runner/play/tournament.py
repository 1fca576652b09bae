"""The tournament loop: schedule -> execute -> record -> rate -> display, resumable.

The journal is the single source of truth. On start the loop binds the journal to the
configuration (a different tournament in the same folder is refused), rebuilds the ratings from
the finished games, and replays any game that was issued but not finished. Each finished game is
committed before the next result is taken; ratings are applied in the games' index order, so the
final standings of an interrupted and resumed run equal those of an uninterrupted one.

Games are issued (entered in the journal as scheduled) as they are needed: a schedule fixed
from the start a repeat at a time, whenever fewer games wait than workers can take, so no worker
waits for the end of a repeat; a Swiss round once every game before it has finished.

An executor's capacity may change while the run goes on (a cluster's workers come and go); with
none at all the run waits for a worker rather than ending, and says so. Each attempt at a game
is counted in the journal: when it is handed out, and again whenever the executor says it
started the game again by itself (a game lost with its worker is played again).

A stopping rule (the file's ``[stop]``, :mod:`arena.runner.play.stop`) is looked at after each
finished game. Once it decides, the decision is recorded in the journal in the transaction that
withdraws the games issued but never handed out; the games in progress finish and count, and
the tournament is complete. A journal holding a decision issues nothing more on any later run.

The loop itself is the ring's (:mod:`arena.runner.play.ring`); a :class:`Tournament` is the
policy it drives: the schedule, the stopping rule and the standings.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import sqlite3
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import get_game
from arena.protocol.messages import FAILURES
from arena.results import GameOutcome, Pairing
from arena.runner.game.build import BuildError, built
from arena.runner.game.checkbot import start_problem
from arena.runner.game.digest import bot_digest
from arena.runner.game.disk import FolderBusyError, FolderLock, disk_full_message, is_disk_full
from arena.runner.game.manifest import BotManifest
from arena.runner.play.config import TournamentConfig
from arena.runner.play.executor import Executor
from arena.runner.play.job import GameJob, record_file
from arena.runner.play.journal import (
    BOT_DIGESTS,
    GAMES_TOTAL,
    JOURNAL,
    SECRET_SEED,
    STOPPED_BY,
    Journal,
    damaged_message,
)
from arena.runner.play.live import Snapshot
from arena.runner.play.outputs import write_standings
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.ring import Choose, Ring, RunOptions, TournamentError
from arena.runner.play.schedule import scheduler_for
from arena.runner.play.schedule.base import Scheduler
from arena.runner.play.standings import Standings
from arena.runner.play.stop import StopWatch
from arena.seeds import tournament_key

RECENT = 8


@dataclass
class TournamentResult:
    standings: Standings
    complete: bool
    games_done: int
    games_total: int
    outputs: list[Path] = field(default_factory=list)
    #: Why the stopping rule stopped the tournament (the journal's record), if it has one.
    stopped_by: dict[str, Any] | None = None


def make_tournament_scheduler(config: TournamentConfig, master_seed: int) -> Scheduler:
    """The tournament's scheduler under ``master_seed`` (the file's seed, or one drawn)."""
    return scheduler_for(config.schedule, master_seed)


class Tournament:
    """One run of a tournament (fresh or resumed).

    The master seed decides every game: the file's ``seed``, or one drawn in secret and kept
    in the journal. It decides the bots' seeds too, through their key
    (:func:`arena.seeds.tournament_key`); a journal made with another key (before keys
    followed from seeds) keeps its own. ``options`` drive the run (the executor, the live
    view, the stop request); None: the defaults of :class:`RunOptions`.

    Games run in worker processes started by a fork server, which imports the main module:
    a script that runs a tournament must do so under ``if __name__ == "__main__":``.
    """

    def __init__(
        self,
        config: TournamentConfig,
        options: RunOptions | None = None,
    ) -> None:
        self.config = config
        self.folder = config.output
        self.ring = Ring(self, config, options or RunOptions())
        with self._full_disk_stops_the_run():
            try:
                self.lock = FolderLock(self.folder)
            except FolderBusyError as exc:
                raise TournamentError(str(exc)) from None
        try:
            self._open(config)
        except BaseException:
            self.lock.release()
            raise

    def _open(self, config: TournamentConfig) -> None:
        with self._full_disk_stops_the_run():
            self.journal: Journal = Journal(self.folder / JOURNAL)
            # Without a seed in the file, the master seed is a secret drawn for this
            # tournament and kept in its journal: resumes use it, and no entrant can guess it.
            drawn: int | None = None
            if config.seed is None:
                drawn = self.master_seed = self.journal.secret_seed()
            else:
                self.master_seed = config.seed
            self.scheduler = make_tournament_scheduler(config, self.master_seed)
            self.resumed = self.journal.bind(
                config.identity(), self.scheduler.describe(),
                {SECRET_SEED: drawn} if drawn is not None else {})
            self.issued = self.journal.pairing_count()
            self.tracker = RatingTracker(config.bot_names)
            self.failures: dict[str, int] = dict.fromkeys(FAILURES, 0)
            self.recent: collections.deque[GameOutcome] = collections.deque(maxlen=RECENT)
            self.done = 0
            self.watch = (None if config.stop is None else
                          StopWatch(config.stop, config.bot_names, config.candidates))
            for outcome in self.journal.outcomes():
                self._count(outcome)
            self.stopped_by: dict[str, Any] | None = self.journal.meta().get(STOPPED_BY)
            if self._rule_decided():
                # The deciding game was committed, its decision not yet (the run was killed
                # between the two): record it now, as that run would have.
                self._record_stop()
            # A finished tournament plays nothing: its journal is only read (the standings are
            # written again), so a committed journal stays byte for byte what it was.
            if not (self.journal.has_results() and not self._unfinished()):
                # What `arena standings` shows as the total while games are to be issued.
                total = self.issued if self.stopped_by is not None else \
                    self.scheduler.fixed_total
                if self.journal.meta().get(GAMES_TOTAL) != total:
                    self.journal.set_meta(GAMES_TOTAL, total)
                self._same_bots()
        self.done_before = self.done
        self.queue: list[Pairing] = []  # issued, not handed out, in the order to hand out

    @functools.cached_property
    def seed_key(self) -> bytes:
        """The key of the bots' seeds. It follows from the master seed, so the seed alone
        replays every game; the journal keeps the key it was made with, and stores it when a
        game first needs it (a finished tournament, which plays nothing, leaves its journal
        as it is)."""
        return self.journal.seed_key(default=tournament_key(self.master_seed))

    @property
    def settings(self) -> TournamentConfig:
        return self.config

    @property
    def keep_bots(self) -> bool:
        return self.config.reuse_bots

    def _unfinished(self) -> bool:
        """Whether games are left to play: issued and not done, or still to be issued."""
        return bool(self.journal.pairing_count("scheduled")) or self._more_to_issue()

    def _same_bots(self) -> None:
        """Refuse to go on with a bot whose files changed since the tournament's first game:
        results of two programs under one name would mix. (A finished tournament, which plays
        nothing more, is not asked.)"""
        current = {b.name: bot_digest(b) for b in self.config.bots}
        stored = self.journal.meta().get(BOT_DIGESTS)
        if stored is None or not self.journal.has_results():
            self.journal.set_meta(BOT_DIGESTS, current)
            return
        changed = sorted(n for n in current if stored.get(n) != current[n])
        if changed:
            self.journal.close()
            raise TournamentError(
                f"{', '.join(changed)} changed since this tournament began (the files in "
                f"{'its folder' if len(changed) == 1 else 'their folders'} differ); resuming "
                "would mix the results of two programs under one name. Put the old version "
                "back to resume, or play the new one in a new tournament (another output "
                "folder)"
            )

    @contextlib.contextmanager
    def _full_disk_stops_the_run(self) -> Iterator[None]:
        """Any write that finds the disk full (the journal, the standings, a folder) ends the
        run with one message naming the folder. The journal stays consistent: a transaction
        that could not be committed is rolled back, so the game it was for is not done and a
        resume plays it."""
        try:
            yield
        except (OSError, sqlite3.Error) as exc:
            if is_disk_full(exc, self.folder):
                raise TournamentError(disk_full_message(self.folder, exc)) from None
            if isinstance(exc, sqlite3.DatabaseError):
                raise TournamentError(damaged_message(self.folder / JOURNAL, str(exc))) from None
            raise

    # ------------------------------------------------------------------ bookkeeping
    def _more_to_issue(self) -> bool:
        """Whether the schedule has games that were not issued yet (for Swiss: a next round,
        once every issued game has finished). Never once the stopping rule stopped it."""
        if self.stopped_by is not None:
            return False
        total = self.scheduler.fixed_total
        if total is not None:
            return self.issued < total
        return bool(self.scheduler.next_round(self.journal.outcomes(), self.issued))

    def _games_total(self) -> int:
        """The schedule's games: all it will play (a Swiss tournament's too, so that progress
        never goes back as its rounds are paired), or those issued when the stopping rule
        stopped it."""
        return self.issued if self.stopped_by is not None else self.scheduler.planned_total

    # ------------------------------------------------------------------ the ring's policy
    def begin(self) -> bool:
        self.queue = self.journal.pairings("scheduled")
        return bool(self.queue or self._more_to_issue())

    def plan(self, capacity: int, running: Sequence[Pairing]) -> None:
        """Issue the next games when the queue runs short: a fixed schedule's next parts
        once fewer games wait than ``capacity`` workers can take (up to twice that, in one
        transaction); a Swiss round once every issued game has finished. Nothing once the
        stopping rule stopped the tournament."""
        if self.stopped_by is not None:
            return
        queue = self.queue
        if self.scheduler.fixed_total is None:
            if queue or running:
                return
            batch = self.scheduler.next_round(self.journal.outcomes(), self.issued) or []
        else:
            if len(queue) >= capacity:
                return
            batch = []
            while len(queue) + len(batch) < 2 * capacity:
                part = self.scheduler.next_round((), self.issued + len(batch))
                if not part:
                    break
                batch += part
        if batch:
            self.journal.add_pairings(batch)
            self.issued += len(batch)
            queue += batch

    def next(self, running: Sequence[Pairing], choose: Choose) -> Pairing | None:
        """The next game waiting; only the order in which issued games are played changes
        with ``choose``: ratings are applied in the schedule's order."""
        return self.queue.pop(choose(self.queue)) if self.queue else None

    def finished(self) -> bool:
        return not (self.queue or self._more_to_issue())

    def record(self, outcome: GameOutcome) -> None:
        self._count(outcome)
        if self._rule_decided():
            self._record_stop()
            left = {q.game_id for q in self.journal.pairings("scheduled")}
            self.queue = [q for q in self.queue if q.game_id in left]

    def retry(self, pairing: Pairing) -> None:
        self.queue.insert(0, pairing)

    def _count(self, outcome: GameOutcome) -> None:
        self.done += 1
        self.tracker.add(outcome)
        if self.watch is not None:
            self.watch.add(outcome)
        self.recent.appendleft(outcome)
        for reason in outcome.terminations:
            if reason in self.failures:
                self.failures[reason] += 1

    def check_bots(self, executor: Executor) -> None:
        """Before any game of this run: start every bot once (several at once) and wait for its
        hello, and stop with every bot that could not, at once, each with why and the end of its
        log (rather than one void game after another). The bots that have a build step are
        built first, here, unless the ``executor``'s workers build them (a cluster's). The
        checks run where the games will: on the ``executor``'s workers when it checks them
        itself (the local workers keep the processes they checked for their games), else
        here."""
        if self.config.executor.kind == "local":
            self._build_bots()
        checks = [self.job(Pairing(f"start-check-{bot}", 0, 0, 0, (bot,), 0))
                  for bot in self.config.bot_names]
        remote = executor.start_problems(checks)
        if remote is not None:
            self._refuse_to_start(remote)
            return
        game = get_game(self.config.game)
        key = self.seed_key  # read here: the journal is not to be used from the pool

        def problem(bot: BotManifest) -> str | None:
            return start_problem(bot, game, self.config.time_control,
                                 self.folder / "logs" / "start-check", self.config.log_cap,
                                 self.config.sandbox, key)

        # As many at once as the games will run (most of a check is waiting for the hello).
        at_once = max(1, self.config.concurrency * self.config.players)
        with ThreadPoolExecutor(at_once, thread_name_prefix="start-check") as pool:
            self._refuse_to_start([found for found in pool.map(problem, self.config.bots)
                                   if found is not None])

    def _build_bots(self) -> None:
        """Build the bots that have a build step (each then plays from its built copy), or
        stop with every one whose build failed, before any bot is started."""
        problems: list[str] = []
        ready: list[BotManifest] = []
        for bot in self.config.bots:
            try:
                ready.append(built(bot, self.config.sandbox, self.folder / "logs" / "build"))
            except BuildError as exc:
                problems.append(str(exc))
        self._refuse_to_start(problems)
        self.config = dataclasses.replace(self.config, bots=tuple(ready))

    def _refuse_to_start(self, problems: list[str]) -> None:
        if problems:
            n = len(problems)
            raise TournamentError(
                f"{n} bot{'s' if n > 1 else ''} of {self.config.name} cannot start, so no "
                "game was played:\n" + "\n".join(problems) + "\nFix the bot (or drop it "
                "from the file, while no game has been played) and run again")

    def job(self, p: Pairing) -> GameJob:
        return GameJob(
            pairing=p, game=get_game(self.config.game),
            bots={b.name: b for b in self.config.bots},
            time_control=self.config.time_control.to_dict(),
            record_path=str(record_file(self.folder, p.game_id)),
            log_dir=str(self.folder / "logs"), log_cap=self.config.log_cap,
            seed_key=self.seed_key, sandbox=self.config.sandbox, options=self.config.options,
        )

    def _rule_decided(self) -> bool:
        """Whether the stopping rule has just decided: it had not before this game."""
        return self.watch is not None and self.stopped_by is None and self.watch.decided()

    def _record_stop(self) -> None:
        """The rule decided: record why in the journal, with the games issued but never
        handed out withdrawn (the games in progress finish and count)."""
        assert self.watch is not None
        self.stopped_by = self.watch.record(schedule_ended=False)
        self.journal.stop_issuing(self.stopped_by)
        self.issued = self.journal.pairing_count()

    def _rule_state(self, running: Sequence[Pairing]) -> str:
        """The stopping rule's state for the live view ("" without a rule)."""
        if self.stopped_by is not None:
            games = self.stopped_by.get("games")
            if self.stopped_by.get("schedule_ended"):
                return f"undecided when the schedule ended ({games} games)"
            text = f"stopped: {self.stopped_by.get('verdict')} after {games} games"
            return text + ("; finishing the games in progress" if running else "")
        return "" if self.watch is None else self.watch.status()

    def view(self, running: Sequence[Pairing]) -> Snapshot:
        return Snapshot(
            name=self.config.name,
            game=self.config.game,
            format=self.config.format,
            standings=self.tracker.standings(),
            games_done=self.done,
            games_total=self._games_total(),
            recent=list(self.recent),
            failures=dict(self.failures),
            schedule=self.scheduler.describe(),
            done_before=self.done_before,
            stop_rule=self._rule_state(running),
        )

    # ------------------------------------------------------------------ the run
    def run(self) -> TournamentResult:
        """Play the tournament to its end or until stopped. Raises TournamentError if it
        cannot go on (finished games are kept and a run of the same file resumes). The output
        folder stays locked against other runs until this returns."""
        try:
            with self._full_disk_stops_the_run():
                self.ring.run()
                result = self._conclude()
                if result.games_done > self.done_before:  # as a league's run does at its stop
                    from arena.runner.play.column_cache import keep_columns  # numpy

                    keep_columns(self.journal, self.folder)  # a large field's, for its report
                self.ring.show()
                self.journal.close()
                return result
        finally:
            self.lock.release()

    def _conclude(self) -> TournamentResult:
        standings = self.tracker.standings()
        total = self._games_total()
        done = self.journal.pairing_count("done")
        # Complete: every game issued is done, and none is left to issue (a fixed schedule's
        # later repeats, a Swiss round after a stop between rounds).
        complete = (done == self.issued and not self.ring.stop.level
                    and not self._more_to_issue())
        if complete and self.watch is not None and self.stopped_by is None:
            self.watch.flush()  # a last look at every game
            if self.watch.decided():
                self._record_stop()
            else:  # the schedule's size is the rule's cap: say that it was reached first
                self.stopped_by = self.watch.record(schedule_ended=True)
                self.journal.set_meta(STOPPED_BY, self.stopped_by)
        meta: dict[str, Any] = {
            "name": self.config.name,
            "game": self.config.game,
            "format": self.config.format,
            "players": self.config.players,
            "schedule": self.scheduler.describe(),
            "seed": self.master_seed,
            "games": done,
            "complete": complete,
            "void_retries": self.ring.voids,
        }
        if self.stopped_by is not None:
            meta[STOPPED_BY] = self.stopped_by
        from arena.stats.summary import tournament_stats  # numpy: only when a run ends

        outcomes = self.journal.outcomes()
        statistics = (tournament_stats(outcomes, self.config.bot_names) if outcomes else None)
        outputs = write_standings(self.folder, standings, meta, statistics)
        return TournamentResult(standings, complete, done, total, outputs, self.stopped_by)
