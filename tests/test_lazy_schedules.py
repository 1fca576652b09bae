"""Fixed schedules (round-robin, gauntlet) are issued a repeat at a time, as the runner needs
them: the same pairings as when the whole schedule was made up front, and memory that does not
grow with ``rounds``."""

from __future__ import annotations

import hashlib
import tracemalloc
from collections.abc import Callable, Sequence

import pytest

from arena.protocol.messages import Termination
from arena.runner.config import schedule_size
from arena.runner.schedule import Gauntlet, RoundRobin, Swiss, make_scheduler
from arena.runner.schedule._common import FixedSchedule
from arena.runner.schedule.base import GameOutcome, Pairing, Scheduler


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
