"""The ring, the one run loop of tournaments and leagues, over a competition of its own making
and an executor that plays nothing: a void game is played again first and stops the run past
its retries, a stop finishes or abandons the games in flight, and a resumed run counts each
game once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena.protocol.messages import Termination
from arena.results import GameOutcome, Pairing
from arena.runner.play.config import ExecutorSettings
from arena.runner.play.executor import Executor
from arena.runner.play.job import GameJob, JobResult, JobStatus
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.live import Snapshot
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.ring import Choose, Ring, RunOptions, StopRequest, TournamentError


@dataclass(frozen=True)
class Settings:
    concurrency: int = 1
    sandbox: str = "none"
    void_retries: int = 1
    executor: ExecutorSettings = field(default_factory=ExecutorSettings)


class Games:
    """A competition of ``n`` two-player games, all issued in its journal on the first run;
    it keeps what it was told, in order."""

    keep_bots = False

    def __init__(self, folder: Path, n: int, void_retries: int = 1) -> None:
        self.folder = folder
        self.journal = Journal(folder / JOURNAL)
        self.settings = Settings(void_retries=void_retries)
        self.n = n
        self.queue: list[Pairing] = []
        self.recorded: list[str] = []
        self.retried: list[str] = []
        self.committed_before_told: list[bool] = []

    def begin(self) -> bool:
        if not self.journal.pairing_count():
            self.journal.add_pairings([Pairing(f"g{i}", i, 0, i, ("a", "b"), i)
                                       for i in range(self.n)])
        self.queue = self.journal.pairings("scheduled")
        return bool(self.queue)

    def check_bots(self, executor: Executor | None) -> None:
        pass

    def plan(self, capacity: int, running: Sequence[Pairing]) -> None:
        pass

    def next(self, running: Sequence[Pairing], choose: Choose) -> Pairing | None:
        return self.queue.pop(choose(self.queue)) if self.queue else None

    def finished(self) -> bool:
        return not self.queue

    def job(self, pairing: Pairing) -> GameJob:
        return GameJob(pairing, None, {}, {}, "", "", b"")  # type: ignore[arg-type]

    def record(self, outcome: GameOutcome) -> None:
        done = {o.game_id for o in self.journal.outcomes()}
        self.committed_before_told.append(outcome.game_id in done)
        self.recorded.append(outcome.game_id)

    def retry(self, pairing: Pairing) -> None:
        self.retried.append(pairing.game_id)
        self.queue.insert(0, pairing)

    def view(self, running: Sequence[Pairing]) -> Snapshot:
        return Snapshot(name="games", game="none", format="fake",
                        standings=RatingTracker(["a", "b"]).standings(),
                        games_done=len(self.recorded), games_total=self.n)


def outcome(p: Pairing) -> GameOutcome:
    return GameOutcome(p.game_id, p.index, p.round, p.table, p.bots, p.seed, (1, 0), (1, 2),
                       (Termination.OK, Termination.OK), ("", ""))


class Scripted(Executor):
    """Plays nothing: a game handed out comes back done at the next poll, unless it is to be
    void first (``voids``: how many times) or held back (``held``: for how many polls).
    ``on_poll`` is called at each poll, before the results are taken."""

    def __init__(self, capacity: int = 1, voids: dict[str, int] | None = None,
                 held: dict[str, int] | None = None,
                 on_poll: Callable[[int], None] | None = None) -> None:
        self.room = capacity
        self.voids = dict(voids or {})
        self.held = dict(held or {})
        self.on_poll = on_poll
        self.polls = 0
        self.submitted: list[str] = []
        self.pending: list[Pairing] = []
        self.abandoned: bool | None = None

    @property
    def capacity(self) -> int:
        return self.room

    def submit(self, job: GameJob) -> None:
        self.submitted.append(job.pairing.game_id)
        self.pending.append(job.pairing)

    def poll(self, timeout_s: float) -> list[JobResult]:
        self.polls += 1
        if self.on_poll is not None:
            self.on_poll(self.polls)
        out, kept = [], []
        for p in self.pending:
            if self.held.get(p.game_id, 0) >= self.polls:
                kept.append(p)
            elif self.voids.get(p.game_id, 0):
                self.voids[p.game_id] -= 1
                out.append(JobResult(p.game_id, JobStatus.VOID, "lost its worker 4 times"))
            else:
                out.append(JobResult(p.game_id, JobStatus.DONE, outcome=outcome(p)))
        self.pending = kept
        return out

    def shutdown(self, abandon: bool) -> None:
        self.abandoned = abandon


def ring(games: Games, executor: Scripted, stop: StopRequest | None = None,
         seen: list[Snapshot] | None = None) -> Ring:
    return Ring(games, games.settings,
                RunOptions(lambda workers, keep: executor, stop=stop or StopRequest(),
                           on_snapshot=None if seen is None else seen.append))


def started(journal: Journal) -> dict[str, int]:
    rows = journal.db.execute("SELECT game_id, started FROM pairings").fetchall()
    return {r["game_id"]: r["started"] for r in rows}


def test_a_void_game_is_played_again_first_and_counts_once_when_it_is_played(
    tmp_path: Path,
) -> None:
    games, executor = Games(tmp_path, 3), Scripted(voids={"g0": 1})
    seen: list[Snapshot] = []
    run = ring(games, executor, seen=seen)
    run.run()
    run.show()
    assert executor.submitted == ["g0", "g0", "g1", "g2"]
    assert games.retried == ["g0"] and games.recorded == ["g0", "g1", "g2"]
    assert all(games.committed_before_told), "the competition heard of a result not committed"
    assert games.journal.void_count() == 1 and seen[-1].void_retries == 1
    assert started(games.journal) == {"g0": 2, "g1": 1, "g2": 1}
    assert executor.abandoned is False


def test_a_run_with_nothing_to_play_starts_no_executor(tmp_path: Path) -> None:
    """A finished competition run again plays nothing, and starts no worker to do it."""
    ring(Games(tmp_path, 2), Scripted()).run()
    started: list[int] = []
    again = Games(tmp_path, 2)
    Ring(again, again.settings,
         RunOptions(lambda workers, keep: started.append(workers) or Scripted())).run()
    assert started == [] and again.recorded == []


def test_a_game_void_past_its_retries_stops_the_run_and_stays_to_be_played(
    tmp_path: Path,
) -> None:
    """The same for every competition: never dropped, the run stops naming the game."""
    games, executor = Games(tmp_path, 2, void_retries=1), Scripted(voids={"g0": 5})
    with pytest.raises(TournamentError, match=r"game g0 \(a, b\) void 2 times; "
                                              "last: lost its worker 4 times"):
        ring(games, executor).run()
    assert games.recorded == [] and executor.submitted == ["g0", "g0"]
    assert [p.game_id for p in games.journal.pairings("scheduled")] == ["g0", "g1"]
    assert executor.abandoned is True


def test_a_full_disk_stops_the_run_at_once_without_a_retry(tmp_path: Path) -> None:
    games = Games(tmp_path, 2, void_retries=5)

    class Full(Scripted):
        def poll(self, timeout_s: float) -> list[JobResult]:
            self.pending = []
            return [JobResult("g0", JobStatus.DISK_FULL, "No space left on device")]

    with pytest.raises(TournamentError, match="full"):
        ring(games, Full()).run()
    assert games.retried == [] and games.journal.void_count() == 0


def test_one_stop_finishes_the_games_in_flight_and_hands_out_no_more(tmp_path: Path) -> None:
    stop = StopRequest()
    games = Games(tmp_path, 4)
    executor = Scripted(capacity=2, held={"g1": 1},
                        on_poll=lambda n: stop.escalate() if n == 1 else None)
    ring(games, executor, stop).run()
    assert executor.submitted == ["g0", "g1"] and executor.polls == 2
    assert games.recorded == ["g0", "g1"], "the game in flight at the stop did not count"
    assert [p.game_id for p in games.journal.pairings("scheduled")] == ["g2", "g3"]
    assert executor.abandoned is False


def test_two_stops_abandon_the_games_in_flight_and_a_resume_counts_each_game_once(
    tmp_path: Path,
) -> None:
    stop = StopRequest()

    def twice(n: int) -> None:
        stop.escalate()
        stop.escalate()

    first = Games(tmp_path, 4)
    executor = Scripted(capacity=2, held={"g1": 1}, on_poll=twice)
    ring(first, executor, stop).run()
    assert first.recorded == ["g0"] and executor.abandoned is True
    first.journal.close()

    again = Games(tmp_path, 4)
    ring(again, Scripted(capacity=2)).run()
    assert again.recorded == ["g1", "g2", "g3"], "a game was counted twice, or lost"
    assert [o.game_id for o in again.journal.outcomes()] == ["g0", "g1", "g2", "g3"]
    assert started(again.journal) == {"g0": 1, "g1": 2, "g2": 1, "g3": 1}
