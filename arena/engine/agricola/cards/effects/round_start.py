"""Cards whose effect comes at the start of each round (the preparation phase), after the
goods on the round space are taken; seats in turn from the starting player."""

from __future__ import annotations

from typing import Any

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import CardState, Pending, choice, register
from arena.engine.agricola.cards.effects.util import rooms, row

ROUND_START = Moment.ROUND_START


# B114 Childless: 3+ rooms and exactly 2 people: 1 food and 1 grain or 1 vegetable.
def _childless(state: CardState, seat: int, card: str) -> None:
    if rooms(state, seat) >= 3 and state._people[seat] == 2:
        state.gain(seat, row(food=1))
        state.ask(Pending(seat, card, "crop"))


def _childless_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [choice(pd.card, "grain"), choice(pd.card, "vegetable")]


def _childless_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    state.gain(pd.seat, row(**{action["choice"]: 1}))


register("B114", ROUND_START, events={ROUND_START: _childless}, ask=_childless_ask,
         answer=_childless_answer)
