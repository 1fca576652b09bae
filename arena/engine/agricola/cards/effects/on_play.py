"""Cards whose effect happens once, as they are played."""

from __future__ import annotations

from typing import Any

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import (
    USE,
    CardState,
    Pending,
    decline,
    register,
    use,
)
from arena.engine.agricola.cards.effects.util import give, rooms, row
from arena.engine.agricola.components import FOOD

ON_PLAY = Moment.ON_PLAY

register("A009", ON_PLAY, events={ON_PLAY: give(cattle=1)})  # Young Animal Market


# B102 Consultant: by the number of players.
_CONSULTANT = {1: row(grain=2), 2: row(clay=3), 3: row(reed=2), 4: row(sheep=2)}


def _consultant(state: CardState, seat: int, card: str) -> None:
    state.gain(seat, _CONSULTANT[state._n])


register("B102", ON_PLAY, events={ON_PLAY: _consultant})


# B123 Roof Ballaster: may pay 1 food for 1 stone per room.
def _ballaster(state: CardState, seat: int, card: str) -> None:
    if state._goods[seat][FOOD] >= 1:
        state.ask(Pending(seat, card, "pay"))


def _ballaster_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [use(pd.card), decline(pd.card)]


def _ballaster_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] == USE:
        state.gain(pd.seat, row(food=-1, stone=rooms(state, pd.seat)))


register("B123", ON_PLAY, events={ON_PLAY: _ballaster}, ask=_ballaster_ask,
         answer=_ballaster_answer)
