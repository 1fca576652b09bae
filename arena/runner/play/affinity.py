"""Where a game's bots already live: which worker plays a game, and how many idle bot
processes a worker keeps.

Starting a bot and its handshake are most of a short game's cost, so a worker keeps the bots
that played its last games (:class:`arena.runner.game.stable.Stable`). A game sent to a worker that
keeps none of its bots starts them all again, and each start may stop another kept bot: with
games dispatched blindly, a field larger than what one worker keeps restarts bots nearly every
game. So each worker reports, with each result, the bots it keeps idle; the next game to start
is, among the first few queued, the one whose bots a free worker keeps most of
(:func:`choose_game`), and it goes to that worker (:func:`choose_worker`); and a worker keeps
as many bots as a share of the machine's memory allows (:func:`keep_for_memory`).

Pure functions of plain data (worker ids are ints or strings), shared by every executor, and a
reader of the memory available: none of it changes what a game is or how it is journalled,
only where and in which order of those queued it is played.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

#: A worker's id: an index for local workers, an address for a cluster's.
W = TypeVar("W", int, str)

_MIB = 1024 * 1024
#: The fewest bot processes a worker keeps idle when it keeps any (what every worker kept
#: before keeping was sized to memory).
MIN_KEEP = 8
#: The most a worker keeps, however much memory there is: a field this large plays well
#: enough with some restarts, and hundreds of idle processes are a nuisance of their own.
MAX_KEEP = 64
#: Assumed resident memory of one idle bot process. Measured on the example bots, sandboxed
#: (RSS of bwrap, its init and the bot; PSS in brackets): random-py 22 MB (12), greedy-py
#: 24 MB (14), random-js 59 MB (52). Bots that hold more pay for it in fewer kept per worker
#: only through this figure, so it errs on the large side.
BOT_RESIDENT_BYTES = 64 * _MIB
#: How many of the queued games the next one is chosen among (:func:`choose_game`). It matters
#: only when a field outgrows what the workers keep. Measured on 16 random bots at 4-player
#: tables, 2 workers keeping 8 bots each, 200 games: 216 bot processes started in the queue's
#: order (217 with the shared queue before), 125 and 146 in two runs looking 8 games ahead,
#: 98 looking 16 ahead, 91 looking 32 ahead.
LOOKAHEAD = 16
#: The share of the available memory that idle bots may take, all workers together (1/4).
MEMORY_SHARE = 4


@dataclass(frozen=True)
class WorkerView:
    """What the dispatcher knows of one worker."""

    #: The bots it keeps idle, as of its last report.
    kept: frozenset[str] = frozenset()
    #: Games it has been given and not yet reported.
    busy: int = 0
    #: Games it can play at once.
    slots: int = 1
    #: Bots seated at its games in flight: not idle there, whatever it last reported.
    playing: frozenset[str] = frozenset()

    @property
    def free(self) -> bool:
        return self.busy < self.slots

    def holds(self, bots: Collection[str]) -> int:
        """How many of ``bots`` it could seat without starting them."""
        return sum(1 for b in set(bots) if b in self.kept and b not in self.playing)


def choose_worker(bots: Collection[str], workers: Mapping[W, WorkerView]) -> W | None:
    """The free worker for a game that seats ``bots``: the one that holds most of them; among
    equals the least busy, then the lowest id. None if no worker is free."""
    free = [w for w, view in workers.items() if view.free]
    if not free:
        return None
    return min(free, key=lambda w: (-workers[w].holds(bots), workers[w].busy, w))


def choose_game(games: Sequence[Collection[str]], workers: Iterable[WorkerView]) -> int:
    """Which of the queued ``games`` (each given by the bots it seats, in the queue's order;
    the caller passes the first :data:`LOOKAHEAD`) to start next: the one that a free worker
    holds most bots of; among equals the earliest, so where no free worker holds any the
    queue's order stands. 0 if no worker is free.

    The caller bounds how long the first game may wait: passed over, it is still first, and
    another game may be chosen before it again and again (the tournament takes it after
    :data:`LOOKAHEAD` passes)."""
    free = [view for view in workers if view.free]
    best, chosen = 0, 0
    for i, bots in enumerate(games):
        held = max((view.holds(bots) for view in free), default=0)
        if held > best:
            best, chosen = held, i
    return chosen


def keep_for_memory(available_bytes: int | None, workers: int) -> int:
    """How many idle bot processes each of ``workers`` workers keeps, given the memory
    available on their machine (None: unknown)::

        keep = available / MEMORY_SHARE / workers / BOT_RESIDENT_BYTES

    clamped to [MIN_KEEP, MAX_KEEP]: a quarter of the available memory shared among the
    workers, counted in idle bots of an assumed 64 MB. With 24 GB available and 2 workers
    that is 48 each; with 4 GB and 16 workers, 8 (the floor, what a worker kept before). The
    floor may take more than the share on a small machine, as keeping did before; a bot's
    own limit (``memory_mb``, address space) is far above what a kept bot holds, so it is not
    the measure.
    """
    if available_bytes is None:
        return MIN_KEEP
    share = available_bytes // MEMORY_SHARE // max(1, workers) // BOT_RESIDENT_BYTES
    return max(MIN_KEEP, min(MAX_KEEP, share))


def available_memory(proc: str = "/proc", cgroup: str = "/sys/fs/cgroup") -> int | None:
    """Bytes of memory this machine can still give: ``MemAvailable`` from ``/proc/meminfo``,
    or less if this process's cgroup (v2) has a limit nearer (its ``memory.max`` less its
    ``memory.current``). None if neither can be read."""
    found: list[int] = []
    try:
        with open(os.path.join(proc, "meminfo")) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(os.path.join(cgroup, "memory.max")) as f:
            limit = f.read().strip()
        if limit != "max":
            with open(os.path.join(cgroup, "memory.current")) as f:
                found.append(max(0, int(limit) - int(f.read().strip())))
    except (OSError, ValueError):
        pass
    return min(found) if found else None
