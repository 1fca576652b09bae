"""Tournament schedulers: pure policy from bots, master seed and finished games to pairings.

``make_scheduler`` builds one from a tournament's settings; the classes can also be used
directly. See ``base`` for what a scheduler produces and consumes.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.runner.play.schedule.base import Scheduler
from arena.runner.play.schedule.gauntlet import Gauntlet
from arena.runner.play.schedule.round_robin import RoundRobin
from arena.runner.play.schedule.swiss import Swiss, placement_points2, table_sizes

FORMATS = ("round-robin", "swiss", "gauntlet")

__all__ = [
    "FORMATS",
    "Gauntlet",
    "RoundRobin",
    "Scheduler",
    "Swiss",
    "make_scheduler",
    "placement_points2",
    "table_sizes",
]


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
    """The scheduler for a tournament format.

    ``fmt`` is one of ``FORMATS``. ``bots`` names every bot of the tournament, candidates
    included (for a gauntlet the field is ``bots`` minus ``candidates``, in the given order).
    ``rotate`` None means the format's default: True for round-robin and gauntlet (every table
    in all seat rotations), False for Swiss (one game per table, seats balanced over rounds).
    ``max_games`` caps a round-robin or gauntlet by playing a balanced subset; a Swiss
    tournament's size is set by ``rounds`` alone.

    Raises ValueError, with a message naming the setting, for an unknown format, ``players``
    outside 2..4, ``rounds`` < 1, fewer bots than ``players``, duplicate bot names, a gauntlet
    without candidates or with a candidate not among the bots, a field too small for the
    tables, candidates given to another format, ``max_games`` given to Swiss, or ``max_games``
    below one table's games.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if isinstance(bots, str):
        raise ValueError(f"bots must be a list of bot names, not the string {bots!r}")
    if isinstance(candidates, str):
        raise ValueError(f"candidates must be a list of bot names, not the string {candidates!r}")
    if fmt == "round-robin":
        _no_candidates(fmt, candidates)
        return RoundRobin(
            bots,
            players,
            seed,
            rounds=rounds,
            rotate=True if rotate is None else rotate,
            max_games=max_games,
        )
    if fmt == "swiss":
        _no_candidates(fmt, candidates)
        if max_games is not None:
            raise ValueError(
                "max_games does not apply to a Swiss tournament: its size is set by rounds"
            )
        return Swiss(bots, players, seed, rounds, rotate=bool(rotate))
    # gauntlet
    if not candidates:
        raise ValueError("a gauntlet needs candidates: the bots that play against the field")
    known = set(bots)
    missing = [c for c in candidates if c not in known]
    if missing:
        raise ValueError(f"gauntlet candidates not among the bots: {', '.join(missing)}")
    chosen = set(candidates)
    field = [b for b in bots if b not in chosen]
    return Gauntlet(
        candidates,
        field,
        players,
        seed,
        rounds=rounds,
        rotate=True if rotate is None else rotate,
        max_games=max_games,
    )


def _no_candidates(fmt: str, candidates: Sequence[str]) -> None:
    if candidates:
        raise ValueError(f"candidates apply only to a gauntlet, not to {fmt}")
