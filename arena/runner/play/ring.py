"""The ring: one run loop for every competition (a tournament, a league), over its policy.

A competition (:class:`Competition`) is pure policy: which game is to be played next, what a
finished game changes, when nothing is left to play. The ring does the rest, the same way for
all of them: it starts and stops the executor, hands out games while it has room (choosing,
on an executor that tells what its workers keep, the game they keep most bots of), keeps the
games in flight, counts each attempt in the journal before the game is handed out, commits
each result in one transaction before the competition hears of it, treats a void game the
same way for every competition, answers stop requests and shows snapshots to the live view.

A void game is nobody's loss and nobody's result (a bot that could not start, a worker lost
again and again): it is played again, first, up to the competition's ``void_retries`` times;
past that the run stops with the game and its last reason named. It is never dropped: a
dropped game would leave a schedule short, or a league's duplicate set unbalanced, and a void
that repeats means something more games will not mend. The game stays in the journal, so a
run after the fault is fixed plays it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from arena.results import GameOutcome, Pairing
from arena.runner.game.disk import disk_full_message
from arena.runner.game.sandbox import SandboxError, require_sandbox
from arena.runner.play.affinity import LOOKAHEAD, available_memory, choose_game, keep_for_memory
from arena.runner.play.config import ExecutorSettings
from arena.runner.play.executor import Dispatching, Executor, LocalExecutor
from arena.runner.play.job import GameJob, JobResult, JobStatus, record_file
from arena.runner.play.journal import Journal
from arena.runner.play.live import Snapshot

#: How often the live view is given a snapshot while games run, at most.
VIEW_EVERY_S = 0.25

#: Makes the executor from (concurrency, bot processes kept per worker).
ExecutorFactory = Callable[[int, int], Executor]


class TournamentError(RuntimeError):
    """A run cannot go on (a game void too many times, workers that keep dying, a full disk,
    the cluster lost); finished games stay in the journal and the run can be resumed."""


@dataclass
class StopRequest:
    """Set from a signal handler: 1 = finish the games in progress, then stop; 2 = abandon
    them now (their bots are killed; they are replayed on resume)."""

    level: int = 0

    def escalate(self) -> int:
        self.level = min(2, self.level + 1)
        return self.level


@dataclass(frozen=True)
class RunOptions:
    """How a run is driven, apart from what its file says: the same for every competition.

    ``executor_factory`` makes the executor from (concurrency, bot processes kept per worker);
    None: the one the file's ``[executor]`` names (:func:`local_executor`; a cluster's is made
    above this floor and handed in). ``on_snapshot`` is given what the live view shows, a few
    times a second and once at the end. ``stop`` is the request a signal handler escalates.
    """

    executor_factory: ExecutorFactory | None = None
    on_snapshot: Callable[[Snapshot], None] | None = None
    stop: StopRequest = field(default_factory=StopRequest)


def local_executor(settings: ExecutorSettings) -> ExecutorFactory:
    """The executor factory of a run given none: worker processes on this machine. A cluster's
    executor is made above this floor, once connected
    (:func:`arena.runner.cluster.executor.executor_factory`), and handed in; raises
    TournamentError for an ``[executor]`` table of another kind."""
    if settings.kind != "local":
        raise TournamentError(f"an executor of kind {settings.kind!r} must be handed in "
                              "(arena.runner.cluster.executor.executor_factory makes it)")
    return LocalExecutor


class RunSettings(Protocol):
    """What the ring reads of a competition's file."""

    @property
    def concurrency(self) -> int: ...

    @property
    def sandbox(self) -> str: ...

    @property
    def void_retries(self) -> int: ...

    @property
    def executor(self) -> ExecutorSettings: ...


#: Given the games that may start now, in the competition's order, the index of the one to
#: start (the ring's choice by what the workers keep).
Choose = Callable[[Sequence[Pairing]], int]


class Competition(Protocol):
    """A competition's policy, driven by :class:`Ring`. ``running`` is always the games in
    flight, in the order they were handed out. The ring never asks for a game while stopping.
    """

    @property
    def folder(self) -> Path:
        """The competition's folder: its journal, its records, its logs."""
        ...

    @property
    def journal(self) -> Journal: ...

    @property
    def settings(self) -> RunSettings: ...

    @property
    def keep_bots(self) -> bool:
        """Whether workers keep idle bot processes between games."""
        ...

    def begin(self) -> bool:
        """Called once, before anything starts: take up the games waiting in the journal.
        Returns whether the run may play any game; if not, it ends without starting a worker
        (a finished tournament run again)."""

    def check_bots(self, executor: Executor) -> None:
        """Called once before the first game, once the ``executor`` has started: on its
        workers when it checks bots itself, else here. Raises TournamentError for bots that
        cannot play."""

    def plan(self, capacity: int, running: Sequence[Pairing]) -> None:
        """Issue (journal) the games the next hand-outs need, once a pass while not stopping."""

    def next(self, running: Sequence[Pairing], choose: Choose) -> Pairing | None:
        """The next game to hand out, taken from those waiting (``choose`` picks among the
        ones that may start now); None: none now."""
        ...

    def finished(self) -> bool:
        """Asked when nothing is in flight and nothing was handed out: whether the run is over
        (False: games may yet come, the ring waits for them)."""
        ...

    def job(self, pairing: Pairing) -> GameJob: ...

    def record(self, outcome: GameOutcome) -> None:
        """A game finished, its result already committed to the journal."""

    def retry(self, pairing: Pairing) -> None:
        """A game was void and is to be played again: put it back first."""

    def view(self, running: Sequence[Pairing]) -> Snapshot:
        """The competition's part of a snapshot (the ring fills in the run's part)."""
        ...


class Ring:
    """One run of a competition (see the module's doc). Build it, :meth:`run` it once.

    It is built before the competition opens its journal (an executor that cannot be made
    is said before anything is written), so it reads the journal only when it runs."""

    def __init__(self, competition: Competition, settings: RunSettings,
                 options: RunOptions) -> None:
        self.competition = competition
        self.options = options
        self.stop = options.stop
        self.factory = options.executor_factory or local_executor(settings.executor)
        self.in_flight: dict[str, tuple[Pairing, float]] = {}
        self.voids = 0  # void attempts in the journal, this run's included
        self.notices: list[str] = []  # what the executor said about its workers
        self.waiting = False  # games are left, but no worker can take one
        self.passed_over = 0  # how many games started before the first waiting one
        self.started = time.monotonic()
        self._last_view = 0.0

    @property
    def journal(self) -> Journal:
        return self.competition.journal

    def running(self) -> list[Pairing]:
        return [p for p, _ in self.in_flight.values()]

    def run(self) -> None:
        """Play until the competition is finished or the run stopped; the executor is shut
        down on return (abandoning the games in flight on a second stop request or an error).
        Raises TournamentError when the run cannot go on."""
        settings = self.competition.settings
        self.voids = self.journal.void_count()
        self.started = time.monotonic()
        here = settings.executor.kind == "local"
        if here:
            try:
                # Before any worker starts: a sandbox that cannot work stops the run with one
                # line, and bots are never run unsandboxed instead. (A cluster's workers
                # check their own.)
                require_sandbox(settings.sandbox)
            except SandboxError as exc:
                raise TournamentError(str(exc)) from None
        if not self.competition.begin():
            return
        # Each worker keeps as many idle bots as its share of the free memory holds.
        keep = (keep_for_memory(available_memory(), settings.concurrency)
                if self.competition.keep_bots else 0)
        executor = self.factory(settings.concurrency, keep)
        abandon = True
        try:
            # Where the games will run: a worker keeps the bot process it checked.
            self.competition.check_bots(executor)
            self._loop(executor)
            abandon = self.stop.level >= 2
        finally:
            executor.shutdown(abandon=abandon)

    def _loop(self, executor: Executor) -> None:
        while True:
            capacity = executor.capacity
            if not self.stop.level:
                self.competition.plan(capacity, self.running())
                self._hand_out(executor, capacity)
            self.waiting = False
            if not self.in_flight:
                if self.stop.level or self.competition.finished():
                    return
                # Games are left and none runs: no room at all (no worker of a cluster
                # connected yet, or all gone), or games to come (a league's next bots).
                self.waiting = capacity == 0
            results = self._take_results(executor)
            if results is None:
                return
            for r in results:
                self._take(r)
            self.show(every=VIEW_EVERY_S)

    def _hand_out(self, executor: Executor, capacity: int) -> None:
        """Give games to the executor while it has room, each attempt counted in the
        journal before the game is handed out."""
        def choose(ready: Sequence[Pairing]) -> int:
            return self._choose(ready, executor)

        while len(self.in_flight) < capacity:
            p = self.competition.next(self.running(), choose)
            if p is None:
                return
            self.journal.mark_started(p.game_id)
            executor.submit(self.competition.job(p))
            self.in_flight[p.game_id] = (p, time.monotonic())

    def _choose(self, ready: Sequence[Pairing], executor: Executor) -> int:
        """Which of ``ready`` to start: the first, unless the executor tells what its workers
        keep; then, among the first :data:`LOOKAHEAD`, the one whose bots a free worker keeps
        most of (the first among equals), but never past a first game that was passed over
        that many times already. Only the order in which issued games are played changes."""
        if not isinstance(executor, Dispatching) or self.passed_over >= LOOKAHEAD:
            self.passed_over = 0
            return 0
        i = choose_game([p.bots for p in ready[:LOOKAHEAD]], executor.worker_views().values())
        self.passed_over = self.passed_over + 1 if i else 0
        return i

    def _take_results(self, executor: Executor) -> list[JobResult] | None:
        """The results that arrived within a moment, the executor's own retries counted and its
        notices kept; None when the run is to end now (a second stop request, or the executor
        gone while stopping). Raises TournamentError when the executor fails otherwise."""
        if self.stop.level >= 2:
            return None
        try:
            results = executor.poll(0.2)
        except RuntimeError as exc:
            if self.stop.level:
                # Stopping: a signal to the whole process group (SIGTERM from a service
                # manager, Ctrl-C) also ends the workers. Nothing was lost; the games in
                # progress are played again on the next run.
                self.stop.level = 2
                return None
            raise TournamentError(f"{exc}; finished games are kept, run again to go on") \
                from None
        for game_id in executor.restarted():
            self.journal.mark_started(game_id)
        self.notices += executor.notices()
        return results

    def _take(self, r: JobResult) -> None:
        """One game's result: committed, then told to the competition; or a void game played
        again, up to the competition's retries."""
        p, _ = self.in_flight.pop(r.game_id)
        folder = self.competition.folder
        if r.status is JobStatus.DONE:
            assert r.outcome is not None
            record = str(record_file(folder, p.game_id).relative_to(folder))
            self.journal.record_result(r.outcome, record, r.duration_s)
            self.competition.record(r.outcome)
            return
        if r.status is JobStatus.DISK_FULL:  # not the game's fault: no retry
            raise TournamentError(disk_full_message(folder, r.reason))
        self.voids += 1
        count = self.journal.record_void(p.game_id, r.reason)
        if count > self.competition.settings.void_retries:
            kind = "void" if r.status is JobStatus.VOID else "failed in the runner"
            raise TournamentError(
                f"game {p.game_id} ({', '.join(p.bots)}) {kind} {count} times; "
                f"last: {r.reason.strip().splitlines()[-1] if r.reason else '?'}"
            )
        self.competition.retry(p)

    # ------------------------------------------------------------------ the live view
    def snapshot(self) -> Snapshot:
        """What the live view shows now: the competition's view with the run's part."""
        now = time.monotonic()
        return dataclasses.replace(
            self.competition.view(self.running()),
            in_progress=[(gid, p.bots, now - t) for gid, (p, t) in self.in_flight.items()],
            elapsed_s=now - self.started,
            void_retries=self.voids,
            stopping=self.stop.level > 0,
            abandoning=self.stop.level > 1,
            waiting=self.waiting,
            notices=tuple(self.notices),
        )

    def show(self, every: float = 0.0) -> None:
        """Give the live view a snapshot, unless one was given less than ``every`` s ago."""
        now = time.monotonic()
        if self.options.on_snapshot is not None and now - self._last_view >= every:
            self.options.on_snapshot(self.snapshot())
            self._last_view = now
