"""Small helpers the effect modules share: goods rows by name and what a seat has."""

from __future__ import annotations

from arena.engine.agricola.cards.effects.base import CardState, Event
from arena.engine.agricola.components import GOODS


def row(**amounts: int) -> tuple[int, ...]:
    """A goods row from amounts by good name (negative to pay)."""
    out = [0] * len(GOODS)
    for name, n in amounts.items():
        out[GOODS.index(name)] = n
    return tuple(out)


def give(**amounts: int) -> Event:
    """The on-play (or any) event "take these goods"."""
    r = row(**amounts)

    def event(state: CardState, seat: int, card: str) -> None:
        state.gain(seat, r)
    return event


def rooms(state: CardState, seat: int) -> int:
    return state._farms[seat].num_rooms()


def material(state: CardState, seat: int) -> int:
    return state._farms[seat].material


__all__ = ["give", "material", "rooms", "row"]
