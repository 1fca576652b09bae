"""What the organiser and an ``arena worker`` send each other for one game: the task
(:class:`ClusterJob`, with where each bot is found) and its result (:class:`WorkerResult`)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import arena
from arena.runner.play.job import GameJob, Played

#: A game that found its bot's package lost with a worker (the organiser sends it again).
LOST_PACKAGE = "lost_package"
#: A game that reached a worker whose versions differ from the organiser's, not played (the
#: organiser leaves that worker out and sends the game to another).
WRONG_VERSION = "wrong_version"


def versions() -> dict[str, str]:
    """What the organiser, the scheduler and every worker must have alike."""
    import dask
    import distributed

    return {"arena": arena.__version__, "python": "{}.{}".format(*sys.version_info[:2]),
            "dask": dask.__version__, "distributed": distributed.__version__}


@dataclass(frozen=True)
class ShippedBot:
    """Where a worker finds one bot: ``folder`` inside the package ``key`` (its archive in
    the cluster's dataset ``dataset``), or, with no dataset, ``folder`` as it is (a file
    system the workers share; ``key`` is then the bot's content digest)."""

    key: str
    folder: str
    dataset: str = ""


@dataclass(frozen=True)
class ClusterJob:
    """A game for a worker: the job as the organiser made it (its paths are the
    organiser's), the run it belongs to, and where the bots come from."""

    job: GameJob
    run: str
    #: whether slots keep bot processes between the run's games (how many is the worker's
    #: to say: sized to its memory)
    reuse: bool
    bots: dict[str, ShippedBot]
    versions: dict[str, str]
    topic: str  #: where the task announces each attempt
    key: str  #: the task's key, named in the announcements
    #: where the organiser meant the game to be played: a worker's address and its slot (a
    #: game Dask placed elsewhere, or one sent with no choice, goes to the best free slot)
    slot: tuple[str, int] | None = None


@dataclass(frozen=True)
class WorkerResult:
    """What a game task returns: a :class:`~arena.runner.play.job.JobStatus` value (or
    :data:`LOST_PACKAGE`, :data:`WRONG_VERSION`), the game :class:`Played` if it was, and
    each bot log's new bytes by its path under the run's ``logs`` folder; and where it was
    played (the worker's address and slot, -1 for none) and which of the run's bots that slot
    keeps idle now."""

    game_id: str
    status: str
    worker: str
    reason: str = ""
    played: Played | None = None
    duration_s: float = 0.0
    logs: dict[str, bytes] = field(default_factory=dict)
    address: str = ""
    slot: int = -1
    kept: tuple[str, ...] = ()
    #: a bot's checks (:mod:`arena.runner.cluster.checks`): name, passed, detail and its log's
    #: path among ``logs`` (or None)
    checks: tuple[tuple[str, bool, str, str | None], ...] = ()
