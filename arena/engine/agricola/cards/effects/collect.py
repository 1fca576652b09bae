"""Cards that put goods on round spaces for their owner to take at the start of those rounds
(the ``collect`` clauses): the on-play event promises, the state pays out (its
``_promised``, as the Well's food)."""

from __future__ import annotations

from collections.abc import Callable

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import CardState, Event, register
from arena.engine.agricola.components import GOODS


def _promise(good: str, rounds: Callable[[int], list[int] | range]) -> Event:
    g = GOODS.index(good)

    def event(state: CardState, seat: int, card: str) -> None:
        state.promise(seat, g, rounds(state._board.round))
    return event


def _collect(card: str, good: str, rounds: Callable[[int], list[int] | range]) -> None:
    register(card, Moment.ON_PLAY, Moment.ROUND_START,
             events={Moment.ON_PLAY: _promise(good, rounds)})


_collect("A044", "food", lambda r: range(r + 1, r + 4))  # Pond Hut: next 3
_collect("B045", "food", lambda r: range(r + 1, r + 4))  # Strawberry Patch: next 3
_collect("A069", "vegetable", lambda r: [r + 4, r + 7, r + 9])  # Large Greenhouse
_collect("B164", "sheep", lambda r: [r + 2, r + 5, r + 8, r + 10])  # Sheep Whisperer
_collect("B066", "grain", lambda r: [5, 8, 11, 14])  # Sack Cart: those still to come
_collect("B074", "wood", lambda r: range(2, 15, 2))  # Thick Forest: even rounds to come
_collect("B084", "boar", lambda r: range(r + 1, r + 3))  # Acorns Basket: next 2
