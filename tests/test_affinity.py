"""Where games go and how many bots a worker keeps (arena.runner.play.affinity): pure choices."""

from __future__ import annotations

from pathlib import Path

from arena.runner.play.affinity import (
    BOT_RESIDENT_BYTES,
    MAX_KEEP,
    MIN_KEEP,
    WorkerView,
    available_memory,
    choose_game,
    choose_worker,
    keep_for_memory,
)

GIB = 1024**3


def view(*kept: str, busy: int = 0, slots: int = 1, playing: tuple[str, ...] = ()) -> WorkerView:
    return WorkerView(frozenset(kept), busy, slots, frozenset(playing))


def test_a_game_goes_to_the_free_worker_that_keeps_most_of_its_bots() -> None:
    workers = {0: view("a"), 1: view("a", "b", "c"), 2: view("b", "c", "d", "x", "y")}
    assert choose_worker(["a", "b", "c", "d"], workers) == 1  # 1 and 2 hold three: the lower
    assert choose_worker(["a", "b", "c"], workers) == 1
    assert choose_worker(["d", "x"], workers) == 2
    # A busy worker is passed over, however many of the bots it keeps.
    workers[1] = view("a", "b", "c", busy=1)
    assert choose_worker(["a", "b", "c"], workers) == 2


def test_equals_go_to_the_least_busy_then_the_lowest_id() -> None:
    assert choose_worker(["a", "b"], {2: view(), 0: view(), 1: view()}) == 0
    assert choose_worker(["a"], {3: view("a"), 1: view("a")}) == 1
    # Workers of several slots: the one with fewer games in flight first.
    workers = {0: view("a", busy=2, slots=4), 1: view("a", busy=1, slots=4)}
    assert choose_worker(["a"], workers) == 1
    # Addresses (a cluster's workers) order as strings.
    assert choose_worker(["a"], {"tcp://b:1": view(), "tcp://a:1": view()}) == "tcp://a:1"
    # Ties are broken the same way whatever the mapping's order.
    workers = {5: view("a", "b"), 4: view("b", "c"), 6: view("a", "c")}
    assert choose_worker(["a", "b", "c"], workers) == 4
    assert choose_worker(["a", "b", "c"], dict(reversed(workers.items()))) == 4


def test_the_most_held_wins_over_the_least_busy() -> None:
    workers = {0: view(busy=0, slots=2), 1: view("a", "b", busy=1, slots=2)}
    assert choose_worker(["a", "b"], workers) == 1


def test_bots_seated_at_a_workers_game_in_flight_are_not_held_there() -> None:
    # Worker 0 reported a, b idle, but a game given to it since seats them: worker 1 keeps c.
    workers = {0: view("a", "b", busy=1, slots=2, playing=("a", "b")), 1: view("c")}
    assert workers[0].holds(["a", "b", "c"]) == 0
    assert choose_worker(["a", "b", "c"], workers) == 1


def test_no_free_worker_is_none() -> None:
    assert choose_worker(["a"], {0: view("a", busy=1), 1: view(busy=2, slots=2)}) is None
    assert choose_worker(["a"], {}) is None


def test_a_bot_named_twice_counts_once() -> None:
    assert view("a").holds(["a", "a"]) == 1


def test_the_next_game_is_the_one_a_free_worker_holds_most_bots_of() -> None:
    queued = [("a", "b", "c", "d"), ("a", "e", "f", "g"), ("e", "f", "g", "h"), ("x", "y")]
    # Worker 1 is busy: what it keeps does not count.
    workers = [view("e", "f", "g", "h"), view("a", "b", "c", "d", busy=1)]
    assert choose_game(queued, workers) == 2
    # Among equals the earliest: games 1 and 2 both have e, f, g held.
    assert choose_game(queued, [view("e", "f", "g")]) == 1
    # Two free workers: the best any of them holds.
    assert choose_game(queued, [view("a"), view("x", "y")]) == 3


def test_the_queues_order_stands_where_nothing_is_held_or_no_worker_is_free() -> None:
    queued = [("a", "b"), ("c", "d")]
    assert choose_game(queued, [view(), view("q")]) == 0
    assert choose_game(queued, [view("c", "d", busy=1)]) == 0
    assert choose_game(queued, []) == 0
    assert choose_game([], [view("a")]) == 0
    # Bots at the worker's games in flight are not held there.
    assert choose_game(queued, [view("c", "d", busy=1, slots=2, playing=("c",))]) == 1
    assert choose_game(queued, [view("c", "d", busy=1, slots=2, playing=("c", "d"))]) == 0


def test_what_a_worker_keeps_is_a_quarter_of_the_memory_among_workers_in_64_mb_bots() -> None:
    assert BOT_RESIDENT_BYTES == 64 * 1024**2
    # 24 GB among 2 workers: 6 GB / 2 / 64 MB = 48.
    assert keep_for_memory(24 * GIB, 2) == 48
    assert keep_for_memory(24 * GIB, 4) == 24
    # Never fewer than before sizing, never more than the cap.
    assert keep_for_memory(4 * GIB, 16) == MIN_KEEP == 8
    assert keep_for_memory(0, 1) == MIN_KEEP
    assert keep_for_memory(1024 * GIB, 1) == MAX_KEEP == 64
    # Unknown memory: the floor. No workers counts as one.
    assert keep_for_memory(None, 2) == MIN_KEEP
    assert keep_for_memory(8 * GIB, 0) == keep_for_memory(8 * GIB, 1) == 32


def test_available_memory_takes_the_nearer_of_the_machine_and_its_cgroup(tmp_path: Path) -> None:
    proc, cgroup = tmp_path / "proc", tmp_path / "cgroup"
    proc.mkdir()
    cgroup.mkdir()
    (proc / "meminfo").write_text("MemTotal: 32000000 kB\nMemFree: 100 kB\n"
                                  "MemAvailable: 16000000 kB\n")
    assert available_memory(str(proc), str(cgroup)) == 16_000_000 * 1024
    (cgroup / "memory.max").write_text("max\n")
    assert available_memory(str(proc), str(cgroup)) == 16_000_000 * 1024
    (cgroup / "memory.max").write_text(f"{4 * GIB}\n")
    (cgroup / "memory.current").write_text(f"{GIB}\n")
    assert available_memory(str(proc), str(cgroup)) == 3 * GIB
    (proc / "meminfo").unlink()
    assert available_memory(str(proc), str(cgroup)) == 3 * GIB
    (cgroup / "memory.max").unlink()
    assert available_memory(str(proc), str(cgroup)) is None


def test_this_machines_memory_is_read() -> None:
    available = available_memory()
    assert available is None or available > 0
