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
