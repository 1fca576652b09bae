"""Tournament schedulers: pure policy from bots, master seed and finished games to pairings.

``make_scheduler`` builds one from a tournament's settings; the classes can also be used
directly. See ``base`` for what a scheduler produces and consumes.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.runner.play.schedule.base import Scheduler
from arena.runner.play.schedule.gauntlet import Gauntlet
from arena.runner.play.schedule.round_robin import RoundRobin
from arena.runner.play.schedule.shape import FORMATS, ScheduleError, ScheduleShape
from arena.runner.play.schedule.swiss import Swiss, placement_points2, table_sizes

__all__ = [
    "FORMATS",
    "Gauntlet",
    "RoundRobin",
    "ScheduleError",
    "ScheduleShape",
    "Scheduler",
    "Swiss",
    "make_scheduler",
    "placement_points2",
    "scheduler_for",
    "table_sizes",
]


def scheduler_for(shape: ScheduleShape, seed: int) -> Scheduler:
    """The scheduler of ``shape`` under the master seed ``seed`` (the shape is checked, so
    this raises nothing)."""
    if shape.format == "round-robin":
        return RoundRobin(shape.bots, shape.players, seed, shape.rounds, shape.rotate,
                          shape.max_games)
    if shape.format == "swiss":
        return Swiss(shape.bots, shape.players, seed, shape.rounds, shape.rotate)
    return Gauntlet(shape.candidates, shape.field, shape.players, seed, shape.rounds,
                    shape.rotate, shape.max_games)


def make_scheduler(
    fmt: str,
    bots: Sequence[str],
    players: int,
    seed: int,
    rounds: int = 1,
    rotate: bool | None = None,
    max_games: int | None = None,
    candidates: Sequence[str] = (),
) -> Scheduler:
    """The scheduler for a tournament format: :func:`scheduler_for` the
    :class:`ScheduleShape` of these settings (see there for what each means and the rules
    they must keep). ``rotate`` None is the format's default.

    Raises :class:`ScheduleError` (a ValueError) naming the setting that breaks a rule.
    """
    shape = ScheduleShape(fmt, _tupled(bots), players, rounds, rotate, max_games,
                          _tupled(candidates))
    return scheduler_for(shape, seed)


def _tupled(names: Sequence[str]) -> tuple[str, ...]:
    # A bare string stays one, for the shape to refuse by name (tuple() would split it).
    return names if isinstance(names, str) else tuple(names)  # type: ignore[return-value]
