"""Small helpers the effect modules share: goods rows by name and what a seat has."""

from __future__ import annotations

from functools import cache

from arena.engine.agricola.cards.effects.base import CardState, Event
from arena.engine.agricola.components import BOAR, CATTLE, GOODS, SHEEP
from arena.engine.agricola.farm import Farm


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


def plough(state: CardState, seat: int, cell: int) -> None:
    """Plough ``cell`` of ``seat``'s farm, in place (a clone copies the farms)."""
    state._farms[seat].plough(cell)


def organic_pastures(farm: Farm, goods: tuple[int, ...]) -> int:
    """The most pastures that can hold at least 1 animal and room for 3 more, over every way
    the player's animals can be kept (0 when they do not fit: never at scoring)."""
    caps = [farm.pasture_capacity(p) for p in farm.pastures]
    flexible = farm.flexible_slots()

    @cache
    def best(i: int, herd: tuple[int, int, int]) -> int:
        if i == len(caps):
            return 0 if sum(herd) <= flexible else -1
        cap = caps[i]
        out = best(i + 1, herd)  # left empty (or any animals there counted elsewhere)
        for t in range(3):
            if not herd[t]:
                continue
            ways = [(k, 1) for k in range(1, min(cap - 3, herd[t]) + 1)]
            ways.append((min(cap, herd[t]), 0))
            for k, organic in ways:
                rest = best(i + 1, (*herd[:t], herd[t] - k, *herd[t + 1:]))
                if rest >= 0:
                    out = max(out, rest + organic)
        return out

    return max(0, best(0, (goods[SHEEP], goods[BOAR], goods[CATTLE])))


__all__ = ["give", "material", "organic_pastures", "plough", "rooms", "row"]
