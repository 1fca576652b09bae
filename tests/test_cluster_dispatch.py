"""Where the Dask executor sends a game, and what it does with a worker that joins late with
other versions, against a stand-in for Dask's client (no process is started): the choices are
the organiser's, and the end-to-end tests (test_cluster.py) show Dask and the workers honour
them."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed", reason="the cluster tests need Dask: pip install "
                                          "-e '.[dev,cluster]' (./test installs it)")

from test_tournament_e2e import example

from arena.engine import get_game
from arena.results import Pairing
from arena.runner.cluster.executor import Cluster, DaskExecutor
from arena.runner.cluster.jobs import WRONG_VERSION, ClusterJob, WorkerResult, versions
from arena.runner.cluster.slots import SlotPool
from arena.runner.game.manifest import BotManifest
from arena.runner.play.config import ExecutorSettings
from arena.runner.play.job import GameJob, JobStatus

A, B, ODD = "tcp://10.0.0.1:1", "tcp://10.0.0.2:1", "tcp://10.0.0.3:1"


@dataclasses.dataclass
class Future:
    key: str
    value: Any = None
    status: str = "finished"

    def exception(self) -> None:
        return None

    def result(self) -> Any:
        return self.value


class Client:
    """What the executor asks of Dask's client: the workers (``slots`` by address, and each
    one's versions), and the games submitted."""

    status = "running"

    def __init__(self, slots: dict[str, int]) -> None:
        self.slots = slots
        self.versions: dict[str, dict[str, str]] = {}
        self.submitted: list[tuple[ClusterJob, dict[str, Any]]] = []

    def scheduler_info(self, n_workers: int) -> dict[str, Any]:
        return {"workers": {a: {"resources": {"game": n}} for a, n in self.slots.items()}}

    def run(self, function: Any, workers: list[str], on_error: str) -> dict[str, Any]:
        return {a: {"versions": self.versions.get(a, versions()), "arena": True, "name": a}
                for a in workers}

    def subscribe_topic(self, topic: str, handler: Any) -> None:
        pass

    def submit(self, function: Any, cjob: ClusterJob, **options: Any) -> Future:
        self.submitted.append((cjob, options))
        return Future(options["key"])

    @contextlib.contextmanager
    def as_current(self) -> Iterator[None]:
        yield


def job(n: int, *bots: str) -> GameJob:
    return GameJob(Pairing(f"g{n}", n, 1, n, bots, n), get_game("stoneage"),
                   dict.fromkeys(bots, BotManifest.load(example("random-py"))), {}, "", "",
                   b"")


def executor(client: Client) -> DaskExecutor:
    cluster = Cluster(client, ExecutorSettings("dask", "tcp://scheduler:1", ship_bots=False))
    cluster.check_workers()
    bots = [dataclasses.replace(BotManifest.load(example("random-py")), name=name)
            for name in "abcdef"]
    return DaskExecutor(cluster, bots, keep=8)


def played(ex: DaskExecutor, key: str, address: str, slot: int, kept: str) -> None:
    """The game ``key`` came back from ``address``'s ``slot``, which keeps ``kept`` now (void:
    no record to write)."""
    game, _, _ = ex._in_flight.pop(key)
    ex._given.pop(key)
    back = WorkerResult(game.pairing.game_id, JobStatus.VOID, address, address=address,
                        slot=slot, kept=tuple(kept))
    result = ex._result(game, Future(key, back), 0)
    assert result is not None and result.kept == tuple(kept)


def test_a_game_goes_to_the_slot_that_keeps_most_of_its_bots() -> None:
    client = Client({A: 2, B: 1})
    ex = executor(client)
    assert set(ex.worker_views()) == {f"{A}#0", f"{A}#1", f"{B}#0"}
    for n in range(3):
        ex.submit(job(n, "a", "b"))
    assert [c.slot for c, _ in client.submitted] == [(A, 0), (A, 1), (B, 0)]
    assert all(o["workers"] == [c.slot[0]] and o["allow_other_workers"]  # type: ignore[index]
               for c, o in client.submitted)
    for (cjob, options), kept in zip(client.submitted, ["ab", "cd", "ef"], strict=True):
        assert cjob.slot is not None
        played(ex, options["key"], *cjob.slot, kept)
    client.submitted.clear()
    ex.submit(job(4, "e", "f", "a"))  # B's slot keeps two of them
    ex.submit(job(5, "c", "e"))  # e is playing: A's second slot keeps c
    ex.submit(job(6, "e", "f"))  # the only free slot
    assert [c.slot for c, _ in client.submitted] == [(B, 0), (A, 1), (A, 0)]
    assert ex.worker_views()[f"{A}#0"].playing == {"e", "f"}


def test_a_late_worker_of_other_versions_is_left_out_and_said_once() -> None:
    client = Client({A: 1})
    ex = executor(client)
    client.slots[ODD] = 2
    client.versions[ODD] = {**versions(), "arena": "9.9.9"}
    ex.cluster._listing = (-1e9, {})  # read again now
    assert ex.capacity == 1
    assert list(ex.worker_views()) == [f"{A}#0"]
    [notice] = ex.notices()
    assert notice.startswith(f"worker {ODD} has arena 9.9.9, this machine {versions()['arena']}")
    assert notice.endswith("until then it is given no game")
    ex.cluster._listing = (-1e9, {})
    assert ex.capacity == 1 and ex.notices() == []

    # A game Dask placed there anyway (its worker lost) comes back unplayed: it goes to a
    # worker that may have it, and nothing is voided.
    ex.submit(job(1, "a", "b"))
    cjob, options = client.submitted.pop()
    game, _, _ = ex._in_flight.pop(options["key"])
    back = WorkerResult("g1", WRONG_VERSION, ODD, "worker odd has arena 9.9.9", address=ODD)
    assert ex._result(game, Future(options["key"], back), 0) is None
    cjob, options = client.submitted.pop()
    assert options["workers"] == [A] and cjob.job == game
    assert ex.notices() == []  # said once already


def test_a_worker_hands_a_game_to_the_slot_chosen_or_to_the_one_keeping_its_bots(
    tmp_path: Path,
) -> None:
    pool = SlotPool(3, "w", tmp_path)
    try:
        pool.address = A
        pool.slots[1].kept["run"] = frozenset("ab")
        pool.slots[2].kept["run"] = frozenset("abc")
        pool.slots[2].kept["other"] = frozenset("xyz")

        def cjob(slot: tuple[str, int] | None, *bots: str) -> ClusterJob:
            return ClusterJob(job(1, *bots), "run", True, {}, {}, "", "", slot)

        assert pool._choose(cjob(None, "a", "b", "c")).index == 2
        assert pool._choose(cjob((A, 1), "a", "b", "c")).index == 1
        assert pool._choose(cjob((B, 1), "a", "b", "c")).index == 2  # meant for another
        assert pool._choose(cjob(None, "x", "y")).index == 0  # another run's bots
        pool.slots[2].free = False
        assert pool._choose(cjob((A, 2), "a", "b", "c")).index == 1
    finally:
        pool.close()
