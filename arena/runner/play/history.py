"""A large field's rating history as the report reads it: the game of every rated game, and
the new ratings of only the games its rating curves sample.

The history holds a row a game: a million rows read whole took a second and more of a
report that draws at most :data:`~arena.report.charts.CURVE_POINTS` samples of its top bots.
Each sample needs each of those bots' rating as its last game before the sample left it;
:func:`curve_games` names those games, and :class:`RatingHistory` holds their rows beside
every game's id (which the report checks against the games)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import overload

import numpy as np

from arena.stats.columns import GameColumns

#: For each bot asked, its last game and seat among the games ``before``..``k - 1`` (a bot
#: absent from them is left out): a sample's way of finding where each rating was last made.
LastSeats = Callable[[int, int], dict[str, tuple[int, int]]]


class RatingHistory(Sequence[tuple[str, str]]):
    """The rating history of ``len(ids)`` games (each game's id and its seats' new ratings as
    JSON text), holding the ratings of only the games of ``made`` (by their place in the
    order rated); reading another's raises KeyError."""

    def __init__(self, ids: list[str], made: Mapping[int, str]) -> None:
        self.ids, self.made = ids, dict(made)

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, g: int) -> tuple[str, str]: ...

    @overload
    def __getitem__(self, g: slice) -> Sequence[tuple[str, str]]: ...

    def __getitem__(self, g: int | slice) -> tuple[str, str] | Sequence[tuple[str, str]]:
        if isinstance(g, slice):
            raise TypeError("a rating history read in part is not sliced")
        return self.ids[g], self.made[range(len(self.ids))[g]]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        raise TypeError("a rating history read in part is read by its games' places")


def history_ids(history: Sequence[tuple[str, str]]) -> list[str]:
    """Every game of a rating history, in the order rated."""
    if isinstance(history, RatingHistory):
        return history.ids
    return [g for g, _ in history]


def sample_points(n: int, points: int) -> list[int]:
    """The games after which a rating curve of ``n`` games is sampled (besides 0): at most
    ``points`` samples in all, evenly over the games, the last game always."""
    step = max(1, math.ceil(n / max(1, points - 1)))
    every = list(range(step, n + 1, step))
    return [*every, n] if n >= 1 and (not every or every[-1] != n) else every


def searched_seats(bots: Sequence[str], cols: GameColumns) -> LastSeats:
    """Each bot's last seat found by a search in the list of its seats (games as columns),
    instead of a walk back over the games."""
    number = {b: i for i, b in enumerate(cols.bots)}
    flat = cols.seat_bot.ravel()
    width = cols.width
    # Each bot's seats, as the flat position game * width + seat: in game, then seat order.
    seats = {b: np.flatnonzero(flat == number[b]) for b in bots if b in number}

    def last_seats(before: int, k: int) -> dict[str, tuple[int, int]]:
        latest: dict[str, tuple[int, int]] = {}
        for bot, at in seats.items():
            last = int(np.searchsorted(at, k * width)) - 1  # its last seat in a game before k
            if last >= 0 and at[last] >= before * width:
                latest[bot] = divmod(int(at[last]), width)
        return latest

    return last_seats


def curve_games(cols: GameColumns, bots: Sequence[str], points: int) -> list[int]:
    """The games whose rating history the curves of ``bots`` (at most ``points`` samples of
    the games of ``cols``) read, by their place in the order rated, ascending."""
    last_seats = searched_seats(bots, cols)
    games: set[int] = set()
    before = 0
    for k in sample_points(cols.games, points):
        games.update(g for g, _ in last_seats(before, k).values())
        before = k
    return sorted(games)
