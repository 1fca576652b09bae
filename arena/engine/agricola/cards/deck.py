"""The base deck of card mode: decks A and B of the Revised Edition, 96 cards, and which of
them a game of a given size uses.

Before dealing, every occupation whose player marker is above the number of players is
removed (ref: RE rulebook, set-up; the markers are 1+, 3+ and 4+); minor improvements carry no
marker and are always used. A solo game uses the 1+ occupations, as a 2-player game does.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from arena.engine.agricola.cards.card import (
    MODIFIERS,
    Card,
    Clause,
    Count,
    Kind,
    Moment,
    Prerequisite,
)
from arena.engine.agricola.cards.minors import MINORS
from arena.engine.agricola.cards.occupations import OCCUPATIONS
from arena.engine.agricola.components import HAND_SIZE, NUM_PLAYERS_MAX, NUM_PLAYERS_MIN

__all__ = [
    "BASE_DECK", "BY_ID", "HAND_SIZE", "MINORS", "MODIFIERS", "OCCUPATIONS", "PLAYER_MARKERS",
    "Card", "Clause", "Count", "Kind", "Moment", "Prerequisite", "card", "minors_for",
    "occupations_for",
]

#: Every card of the base deck: the occupations, then the minor improvements.
BASE_DECK: Final[tuple[Card, ...]] = OCCUPATIONS + MINORS
BY_ID: Final[Mapping[str, Card]] = MappingProxyType({c.id: c for c in BASE_DECK})
#: The player markers an occupation may carry: used from that many players up.
PLAYER_MARKERS: Final = (1, 3, 4)


def card(card_id: str) -> Card:
    """The card ``card_id`` ("A086"); KeyError if the base deck has none."""
    return BY_ID[card_id]


def _check_players(players: int) -> None:
    if not NUM_PLAYERS_MIN <= players <= NUM_PLAYERS_MAX:
        raise ValueError(f"Agricola is for {NUM_PLAYERS_MIN}-{NUM_PLAYERS_MAX} players, "
                         f"not {players}")


def occupations_for(players: int) -> tuple[Card, ...]:
    """The occupations a ``players``-player game deals from: those whose marker is at most
    ``players``."""
    _check_players(players)
    return tuple(c for c in OCCUPATIONS if c.min_players <= players)


def minors_for(players: int) -> tuple[Card, ...]:
    """The minor improvements a ``players``-player game deals from: all of them."""
    _check_players(players)
    return MINORS
