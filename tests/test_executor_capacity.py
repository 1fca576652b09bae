"""What a tournament does with an executor whose capacity changes (a cluster's workers come and
go): with no room at all it waits, visibly, instead of ending, and a stop still stops it; and
the games an executor starts again by itself count as attempts in the journal."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from test_tournament_e2e import example, write_tournament

from arena.runner.play.config import load_config
from arena.runner.play.executor import Executor
from arena.runner.play.job import play_job
from arena.runner.play.live import Snapshot, plain_line
from arena.runner.play.ring import RunOptions, StopRequest
from arena.runner.play.tournament import Tournament


class Elastic(Executor):
    """Plays each job in this process; its capacity is 0 for its first ``empty_polls`` polls
    (no worker connected yet), then 1. ``again`` are games it says it restarted."""

    def __init__(self, empty_polls: int, again: tuple[str, ...] = ()) -> None:
        self.empty_polls = empty_polls
        self.polls = 0
        self.results: list[Any] = []
        self.again = list(again)

    @property
    def capacity(self) -> int:
        return 0 if self.polls < self.empty_polls else 1

    def submit(self, job: Any) -> None:
        assert self.capacity > 0, "a job was handed out with no room for it"
        self.results.append(play_job(job))

    def poll(self, timeout_s: float) -> list[Any]:
        self.polls += 1
        out, self.results = self.results, []
        return out

    def restarted(self) -> list[str]:
        out, self.again = self.again, []
        return out

    def shutdown(self, abandon: bool) -> None:
        pass


def two_games(tmp_path: Path) -> Path:
    return write_tournament(tmp_path, "t.toml", name="elastic", output=tmp_path / "out",
                            bots=[example("random-py"), example("greedy-py")], concurrency=1)


def test_with_no_room_the_run_waits_visibly_and_goes_on_when_a_worker_comes(
    tmp_path: Path,
) -> None:
    seen: list[Snapshot] = []
    executor = Elastic(empty_polls=3)
    result = Tournament(load_config(two_games(tmp_path)),
                        RunOptions(lambda c, k: executor, on_snapshot=seen.append)).run()
    assert result.complete and result.games_done == 2
    waiting = [s for s in seen if s.waiting]
    assert waiting, "the view never said it waits for workers"
    assert "waiting for workers" in plain_line(waiting[0])
    assert not seen[-1].waiting


def test_a_stop_while_waiting_for_workers_stops_the_run(tmp_path: Path) -> None:
    stop = StopRequest()

    class Never(Elastic):
        def poll(self, timeout_s: float) -> list[Any]:
            stop.escalate()  # Ctrl-C while no worker is there
            return super().poll(timeout_s)

    result = Tournament(load_config(two_games(tmp_path)),
                        RunOptions(lambda c, k: Never(10**9), stop=stop)).run()
    assert not result.complete and result.games_done == 0


def test_a_game_the_executor_started_again_counts_one_more_attempt(tmp_path: Path) -> None:
    file = two_games(tmp_path)
    Tournament(load_config(file),
               RunOptions(lambda c, k: Elastic(0, again=("r001-t0001-s0",)))).run()
    db = sqlite3.connect(tmp_path / "out" / "journal.sqlite")
    started = dict(db.execute("SELECT game_id, started FROM pairings").fetchall())
    db.close()
    assert started == {"r001-t0001-s0": 2, "r001-t0001-s1": 1}
