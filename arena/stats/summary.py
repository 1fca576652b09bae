"""A tournament's statistics in one value: what ``arena stats`` prints and ``--json`` gives."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arena.results import GameOutcome
from arena.stats.columns import (
    GameColumns,
    column_choice_data,
    column_head_to_head,
    column_seats,
    two_player_games,
)
from arena.stats.common import bots_of
from arena.stats.match import Match, match
from arena.stats.plackett_luce import REPLICATES, PlackettLuce, fitted, plackett_luce
from arena.stats.tables import HeadToHead, SeatFigures, head_to_head, seats


@dataclass(frozen=True)
class TournamentStats:
    """Head to head for every pair that met, Plackett–Luce strengths, seat figures, and for
    each pair that met at two-player tables its match figures (Elo, LOS, pentanomial)."""

    bots: list[str]
    games: int
    head_to_head: list[HeadToHead]
    plackett_luce: PlackettLuce
    seats: list[SeatFigures]
    matches: list[Match] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"bots": self.bots, "games": self.games,
                "head_to_head": [h.to_dict() for h in self.head_to_head],
                "plackett_luce": self.plackett_luce.to_dict(),
                "seats": [s.to_dict() for s in self.seats],
                "matches": [m.to_dict() for m in self.matches]}


def tournament_stats(outcomes: Sequence[GameOutcome], bots: Sequence[str] = (),
                     replicates: int = REPLICATES, seed: int = 0, curvature: bool = False,
                     pairs_among: Collection[str] | None = None) -> TournamentStats:
    """The statistics of ``outcomes``. Pairs are seen from the side of the stronger bot
    (by Plackett–Luce), strongest pairs first; ``bots`` (a tournament's, in its order) are
    listed first, then any other bot that played. ``curvature``: the Plackett–Luce intervals
    from the curvature at the fit, not a bootstrap (a large field's). ``pairs_among``: the
    head to head and the matches only of pairs of these bots (None: of every pair; a field of
    a thousand bots has half a million pairs)."""
    names = bots_of(outcomes, bots)
    pl = plackett_luce(outcomes, names, replicates=replicates, seed=seed, curvature=curvature)
    strongest_first = [pl.bots[i] for i in pl.order()]
    strongest_first += [b for b in names if b not in strongest_first]
    if pairs_among is None:
        return TournamentStats(strongest_first, len(outcomes),
                               head_to_head(outcomes, strongest_first), pl, seats(outcomes),
                               matches(outcomes, strongest_first))
    paired = [b for b in strongest_first if b in pairs_among]
    two = [o for o in outcomes if len(o.bots) == 2 and all(b in pairs_among for b in o.bots)]
    return TournamentStats(strongest_first, len(outcomes), head_to_head(outcomes, paired), pl,
                           seats(outcomes), matches(two, paired))


def column_stats(cols: GameColumns, pairs_among: Collection[str], seed: int = 0
                 ) -> TournamentStats:
    """:func:`tournament_stats` of a large field's games given as columns, its Plackett–Luce
    intervals from the curvature, its head to head and matches only of pairs of
    ``pairs_among``: the same figures, counted with array operations."""
    played = set(np.unique(cols.seat_bot[cols.seat_bot >= 0]).tolist())
    names = [b for i, b in enumerate(cols.bots) if i in played]
    pl = fitted(column_choice_data(cols, names), seed=seed, curvature=True)
    strongest_first = [pl.bots[i] for i in pl.order()]
    strongest_first += [b for b in cols.bots if b not in set(strongest_first)]
    paired = [b for b in strongest_first if b in pairs_among]
    return TournamentStats(strongest_first, cols.games, column_head_to_head(cols, paired), pl,
                           column_seats(cols), matches(two_player_games(cols, paired), paired))


def matches(outcomes: Sequence[GameOutcome], bots: Sequence[str]) -> list[Match]:
    """The match of every pair of bots that met at two-player tables, from the side of the
    one listed first in ``bots``, in the order of ``bots``."""
    order = {b: i for i, b in enumerate(bots)}
    games: dict[tuple[str, str], list[GameOutcome]] = {}
    for o in outcomes:
        if len(o.bots) == 2 and o.bots[0] != o.bots[1]:
            a, b = sorted(o.bots, key=lambda x: (order.get(x, len(order)), x))
            games.setdefault((a, b), []).append(o)
    return [match(games[pair], *pair)
            for pair in sorted(games, key=lambda p: (order.get(p[0], len(order)),
                                                     order.get(p[1], len(order)), p))]
