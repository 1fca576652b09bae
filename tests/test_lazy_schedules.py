"""Fixed schedules (round-robin, gauntlet) are issued a repeat at a time, as the runner needs
them: the same pairings as when the whole schedule was made up front, memory that does not grow
with ``rounds``, no wait at the end of a repeat, and runs that stop between parts resume where
they were (journals of either kind)."""

from __future__ import annotations

import hashlib
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from test_tournament_e2e import (
    assert_schedule_played_once,
    example,
    issue_the_rest,
    random_py_twin,
    read_journal,
    schedule_of,
    signals_kept,
    standings_doc,
    write_tournament,
)
from typer.testing import CliRunner

from arena.cli.main import app
from arena.protocol.messages import Termination
from arena.results import GameOutcome, Pairing
from arena.runner.play.config import load_config
from arena.runner.play.executor import Executor
from arena.runner.play.job import GameJob, JobResult, JobStatus
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.live import Snapshot
from arena.runner.play.ring import RunOptions, StopRequest
from arena.runner.play.schedule import Gauntlet, RoundRobin, Swiss, make_scheduler
from arena.runner.play.schedule.base import Scheduler
from arena.runner.play.schedule.fixed import FixedSchedule
from arena.runner.play.schedule.shape import schedule_size
from arena.runner.play.tournament import Tournament


def names(n: int) -> list[str]:
    return [f"bot{i}" for i in range(n)]


def parts(scheduler: Scheduler) -> list[list[Pairing]]:
    """Every part the scheduler issues, asked as the runner asks: told how many were issued."""
    out: list[list[Pairing]] = []
    issued = 0
    while (part := scheduler.next_round([], issued)) is not None:
        out.append(part)
        issued += len(part)
    return out


# ---------------------------------------------------------------------------- the same pairings

#: Each case: the scheduler, and (games, digest) of its whole schedule and description as the
#: code of commit a8b56fe made them, which made every fixed schedule whole, up front
#: (``fixed_schedule``), and returned it from the first ``next_round``. The parts issued now
#: must join up to exactly that: the same ids, indices, rounds, tables, seats and seeds, in the
#: same order, and the same description (journals and the committed leaderboards hold both).
RR, GA = RoundRobin, Gauntlet
CASES: dict[str, tuple[Callable[[], FixedSchedule], int, str]] = {
    "rr-5x3-r3": (lambda: RR(names(5), 3, 7, rounds=3), 90, "bd07d1839a393535"),
    "rr-5x3-r3-norot": (lambda: RR(names(5), 3, 7, rounds=3, rotate=False),
                        30, "d61dd1c6f0872126"),
    "rr-7x4-r1": (lambda: RR(names(7), 4, 1), 140, "4a506bf908e84c3e"),
    "rr-7x4-r2-norot": (lambda: RR(names(7), 4, 8, rounds=2, rotate=False),
                        70, "3499fe3332b91335"),
    "rr-6x3-r3-subset": (lambda: RR(names(6), 3, 2, rounds=3, max_games=150),
                         150, "0de4100e9e91bfdf"),
    "rr-6x3-r4-norot-subset": (lambda: RR(names(6), 3, 5, rounds=4, rotate=False, max_games=55),
                               55, "51170400da1b433a"),
    "rr-10x4-r1-subset": (lambda: RR(names(10), 4, 11, max_games=120),
                          120, "ef61a4fbf8058fa5"),
    "rr-2x2-r50-norot": (lambda: RR(names(2), 2, 9, rounds=50, rotate=False),
                         50, "6a345c9790ead350"),
    "rr-3x2-r40": (lambda: RR(names(3), 2, 23, rounds=40), 240, "90bcc25a7b71922c"),
    "gauntlet-2v5x3-r3": (lambda: GA(["c1", "c2"], names(5), 3, 4, rounds=3),
                          180, "9c14bd37d6f7332f"),
    "gauntlet-2v5x3-r3-norot": (lambda: GA(["c1", "c2"], names(5), 3, 4, rounds=3, rotate=False),
                                60, "1fd98403c86dc108"),
    "gauntlet-1v6x3-r2-subset": (lambda: GA(["c1"], names(6), 3, 6, rounds=2, max_games=60),
                                 60, "0e7002a2c26c83a1"),
    "gauntlet-2v6x4-r3-norot-subset": (
        lambda: GA(["c1", "c2"], names(6), 4, 12, rounds=3, rotate=False, max_games=70),
        70, "2db0f352edd9c6a4"),
}


def digest(describe: str, pairings: Sequence[Pairing]) -> str:
    h = hashlib.sha256()
    h.update(describe.encode())
    for p in pairings:
        h.update(repr((p.game_id, p.index, p.round, p.table, p.bots, p.seed)).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_parts_join_up_to_the_schedule_made_up_front_before(case: str) -> None:
    make, games, before = CASES[case]
    scheduler = make()
    issued = parts(scheduler)
    joined = [p for part in issued for p in part]
    assert (len(joined), digest(scheduler.describe(), joined)) == (games, before)
    assert scheduler.fixed_total == len(joined)
    # One part a repeat, in order, each naming its repeat; every game of round 1.
    assert len(issued) == scheduler.repeats
    for rep, part in enumerate(issued, start=1):
        assert {p.game_id.split("-")[0] for p in part} == {f"r{rep:03d}"}
    assert [p.index for p in joined] == list(range(len(joined)))
    assert {p.round for p in joined} == {1}


@pytest.mark.parametrize("case", ["rr-5x3-r3-norot", "rr-6x3-r4-norot-subset", "rr-3x2-r40",
                                  "gauntlet-2v6x4-r3-norot-subset"])
def test_any_part_asked_in_any_order_is_the_same(case: str) -> None:
    """A resumed run asks a fresh scheduler for a later part first: without seat rotation the
    seats of the repeats before are derived again, with the same result."""
    make = CASES[case][0]
    whole = make().pairings()
    fresh = make()
    for rep in reversed(range(1, fresh.repeats + 1)):
        assert fresh.repeat(rep) == [p for p in whole if p.game_id.startswith(f"r{rep:03d}-")]
    # Asked from the middle of a repeat (as an interrupted issue would): the rest of it.
    middle = len(fresh.repeat(1)) // 2 + 1
    assert make().next_round([], middle) == [p for p in whole if p.index >= middle][
        : len(fresh.repeat(1)) - middle]
    assert make().next_round([], len(whole)) is None


def test_a_fixed_schedule_does_not_read_the_outcomes_and_swiss_is_not_fixed() -> None:
    rr = RoundRobin(names(4), 2, seed=3, rounds=2)
    first = rr.next_round([])
    assert first is not None
    done = [GameOutcome(p.game_id, p.index, p.round, p.table, p.bots, p.seed, (1, 0), (1, 2),
                        (Termination.OK, Termination.OK)) for p in first]
    assert rr.next_round(done, len(first)) == rr.next_round([], len(first))
    assert rr.next_round(done, 0) == first
    assert Swiss(names(4), 2, seed=3, rounds=2).fixed_total is None


@pytest.mark.parametrize(("fmt", "bots", "candidates", "players", "rounds", "rotate"), [
    ("round-robin", 7, 0, 4, 3, None), ("round-robin", 5, 0, 2, 4, False),
    ("gauntlet", 6, 2, 3, 2, None), ("gauntlet", 6, 1, 2, 5, False),
])
def test_the_total_is_the_size_the_config_computes(
    fmt: str, bots: int, candidates: int, players: int, rounds: int, rotate: bool | None
) -> None:
    everyone = names(bots)
    scheduler = make_scheduler(fmt, everyone, players, 5, rounds, rotate, None,
                               everyone[:candidates])
    size = schedule_size(fmt, bots, candidates, players, rounds, rotate)
    assert scheduler.fixed_total == size == sum(len(part) for part in parts(scheduler))


# ---------------------------------------------------------------------------- memory


@pytest.mark.parametrize("rotate", [True, False])
def test_a_hundred_thousand_rounds_start_in_little_memory_and_issue_one_repeat(
    rotate: bool,
) -> None:
    """Not timed: what starting such a schedule holds. Made whole, up front, it was 600,000
    pairings (some 340 MiB at its peak, 30 s under tracemalloc)."""
    tracemalloc.start()
    try:
        rr = RoundRobin(names(3), 2, seed=1, rounds=100_000, rotate=rotate)
        first = rr.next_round([], 0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, f"{peak / (1 << 20):.1f} MiB"
    per_repeat = 6 if rotate else 3
    assert rr.fixed_total == 100_000 * per_repeat
    assert first is not None and len(first) == per_repeat
    assert {p.game_id[:5] for p in first} == {"r001-"}
    assert "100000 rounds x 3 tables" in rr.describe()
    second = rr.next_round([], per_repeat)
    assert second is not None and second[0].index == per_repeat
    assert {p.game_id[:5] for p in second} == {"r002-"}
    if rotate:  # the last repeat, asked directly
        last = rr.next_round([], rr.fixed_total - per_repeat)
        assert last is not None and last[-1].game_id == "r100000-t0003-s1"
        assert last[-1].index == rr.fixed_total - 1 and last[-1].table == 300_000


# ---------------------------------------------------------------------------- the runner


class Scripted(Executor):
    """An executor that plays nothing: each game it is given ends, seat 0 first, one a poll,
    the oldest first. It notes, for each game it is given, the games then in flight and how
    many pairings the journal held."""

    def __init__(self, journal: Path, stop: StopRequest | None = None, stop_after: int = 0,
                 level: int = 1) -> None:
        self.journal, self.stop, self.stop_after, self.level = journal, stop, stop_after, level
        self.running: list[Pairing] = []
        self.submitted: list[tuple[Pairing, list[Pairing], int]] = []
        self.finished = 0

    def __call__(self, workers: int, keep_bots: int) -> Scripted:
        return self

    @property
    def capacity(self) -> int:
        return 2

    def submit(self, job: GameJob) -> None:
        reader = Journal(self.journal, readonly=True)
        try:
            held = reader.pairing_count()
        finally:
            reader.close()
        self.submitted.append((job.pairing, list(self.running), held))
        self.running.append(job.pairing)

    def poll(self, timeout_s: float) -> list[JobResult]:
        if not self.running:
            return []
        p = self.running.pop(0)
        self.finished += 1
        if self.stop is not None and self.finished == self.stop_after:
            self.stop.level = self.level
        ranks = tuple(range(1, len(p.bots) + 1))
        outcome = GameOutcome(p.game_id, p.index, p.round, p.table, p.bots, p.seed,
                              tuple(10 - r for r in ranks), ranks,
                              tuple(Termination.OK for _ in p.bots))
        return [JobResult(p.game_id, JobStatus.DONE, outcome=outcome, duration_s=0.01)]

    def shutdown(self, abandon: bool) -> None:
        pass


def three_repeats(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A round-robin of 3 bots at 2-player tables, 3 rounds: 3 repeats of 6 games."""
    folder = tmp_path / name
    folder.mkdir()
    out = folder / "out"
    bots = [example("random-py"), example("greedy-py"), random_py_twin(folder)]
    file = write_tournament(folder, "t.toml", name=name, output=out, bots=bots, rounds=3,
                            sandbox="none")
    return file, out


def run(file: Path, executor: Scripted, stop: StopRequest | None = None,
        snapshots: list[Snapshot] | None = None) -> Any:
    with signals_kept():
        options = RunOptions(executor, stop=stop or StopRequest(),
                             on_snapshot=None if snapshots is None else snapshots.append)
        return Tournament(load_config(file), options).run()


def repeat_of(p: Pairing) -> int:
    return int(p.game_id[1:4])


def test_the_runner_issues_the_next_repeat_while_the_last_one_still_plays(
    tmp_path: Path,
) -> None:
    file, out = three_repeats(tmp_path, "lazy")
    schedule = schedule_of(file)
    executor = Scripted(out / JOURNAL)
    snapshots: list[Snapshot] = []
    result = run(file, executor, snapshots=snapshots)
    assert result.complete and result.games_done == result.games_total == 18
    assert_schedule_played_once(read_journal(out), schedule)
    assert [p for p, _, _ in executor.submitted] == schedule  # in the schedule's order
    # The first game went out with only the first repeat issued, ...
    assert executor.submitted[0][2] == 6
    # ... and a game of each later repeat while a game of the one before was still playing.
    for rep in (2, 3):
        first = next((running, held) for p, running, held in executor.submitted
                     if repeat_of(p) == rep)
        assert any(repeat_of(q) == rep - 1 for q in first[0]), rep
        assert first[1] == 6 * rep
    # The live view counts the whole schedule from the start; the standings say complete.
    assert snapshots and {s.games_total for s in snapshots} == {18}
    assert standings_doc(out)["meta"]["complete"] is True
    assert standings_doc(out)["meta"]["games"] == 18


@pytest.fixture(scope="session")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output folder of :func:`three_repeats` run to its end without a stop, once per test
    process: the stopped and resumed runs below end where it did (the tests only read it)."""
    file, out = three_repeats(tmp_path_factory.mktemp("lazy-reference"), "reference")
    run(file, Scripted(out / JOURNAL))
    return out


@pytest.mark.parametrize(("stop_after", "level"), [(1, 2), (3, 1), (5, 1), (6, 2), (7, 1)])
def test_a_run_stopped_with_repeats_still_to_issue_resumes_where_it_was(
    tmp_path: Path, stop_after: int, level: int, uninterrupted: Path
) -> None:
    file, out = three_repeats(tmp_path, "stopped")
    schedule = schedule_of(file)
    reference_out = uninterrupted

    stop = StopRequest()
    first = run(file, Scripted(out / JOURNAL, stop, stop_after, level), stop=stop)
    assert not first.complete and first.games_total == 18
    stopped = read_journal(out)
    assert len(stopped.done) >= stop_after and len(stopped.pairings) in (6, 12)
    assert list(stopped.pairings) == [p.game_id for p in schedule[:len(stopped.pairings)]]
    assert standings_doc(out)["meta"]["complete"] is False
    shown = CliRunner().invoke(app, ["standings", str(out)], env={"COLUMNS": "120"})
    assert f"stopped: {len(stopped.done)} of 18 games" in shown.output, shown.output

    again = Scripted(out / JOURNAL)
    resumed = run(file, again)
    assert resumed.complete and resumed.games_done == 18
    final = read_journal(out)
    assert_schedule_played_once(final, schedule)
    # Nothing played twice, nothing skipped: this run played exactly the games not done.
    assert [p.game_id for p, _, _ in again.submitted] == [
        p.game_id for p in schedule if p.game_id not in stopped.done]
    for gid in stopped.done:
        assert final.results[gid]["ranks"] == stopped.results[gid]["ranks"]
    assert final.outcomes() == read_journal(reference_out).outcomes()
    assert standings_doc(out)["standings"] == standings_doc(reference_out)["standings"]


def test_a_journal_with_every_pairing_issued_up_front_still_resumes(tmp_path: Path) -> None:
    """Journals written before schedules were issued in parts hold the whole schedule: a run
    plays what is left and issues nothing more (a pairing issued twice would be refused)."""
    file, out = three_repeats(tmp_path, "upfront")
    schedule = schedule_of(file)
    stop = StopRequest()
    run(file, Scripted(out / JOURNAL, stop, stop_after=4), stop=stop)
    issue_the_rest(out, schedule)
    again = Scripted(out / JOURNAL)
    resumed = run(file, again)
    assert resumed.complete and resumed.games_done == resumed.games_total == 18
    assert all(held == 18 for _, _, held in again.submitted)
    assert_schedule_played_once(read_journal(out), schedule)
    # A journal of the whole schedule, nothing played yet, plays it all.
    fresh_file, fresh_out = three_repeats(tmp_path, "fresh-upfront")
    Tournament(load_config(fresh_file)).lock.release()
    issue_the_rest(fresh_out, schedule_of(fresh_file))
    assert run(fresh_file, Scripted(fresh_out / JOURNAL)).complete
    assert_schedule_played_once(read_journal(fresh_out), schedule_of(fresh_file))
