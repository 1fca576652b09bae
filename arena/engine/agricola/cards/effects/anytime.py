"""Cards whose owner may make a conversion at any time (ANYTIME clauses).

"At any time" is carried out as: beside every decision of the owner (placing a person, a
sub-action, a card decision, feeding, breeding), the state offers the conversions of the
owner's cards as actions of their own; taking one leaves that same decision open, listed
again from the goods after it. So a conversion can come before any payment (food for a card,
feeding) and repeats at will. Only conversions that can be made now are offered.
"""

from __future__ import annotations

from typing import Any, Final

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import (
    AnyTime,
    Ask,
    CardState,
    Pending,
    register,
    use,
)
from arena.engine.agricola.cards.effects.util import row
from arena.engine.agricola.components import BOAR, CATTLE, CLAY, FOOD, SHEEP

ANYTIME = Moment.ANYTIME


def _asked(anytime: AnyTime) -> Ask:
    """The conversions as the actions of a decision of their own (what ``ask`` answers)."""
    def ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
        return anytime(state, pd.seat, pd.card)
    return ask


# A102 Grocer: a stack of goods on the card; the top one may be bought for 1 food. The mark
# is how many are left.
GROCER_STACK: Final = ("wood", "grain", "reed", "stone", "vegetable", "clay", "reed",
                       "vegetable")


def _grocer_play(state: CardState, seat: int, card: str) -> None:
    state.set_mark(card, (len(GROCER_STACK),))


def _grocer(state: CardState, seat: int, card: str) -> list[dict[str, Any]]:
    left = state.mark(card)[0] if state.mark(card) else 0
    if not left or state._goods[seat][FOOD] < 1:
        return []
    return [use(card, buy=GROCER_STACK[len(GROCER_STACK) - left])]


def _grocer_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    left = state.mark(pd.card)[0] - 1
    state.set_mark(pd.card, (left,) if left else ())
    state.gain(pd.seat, row(food=-1, **{action["buy"]: 1}))


register("A102", Moment.ON_PLAY, ANYTIME, events={Moment.ON_PLAY: _grocer_play},
         anytime=_grocer, ask=_asked(_grocer),
         answer=_grocer_answer)


# B104 Sheep Walker: 1 sheep for 1 wild boar (when it can be kept), vegetable or stone.
def _walker(state: CardState, seat: int, card: str) -> list[dict[str, Any]]:
    g = state._goods[seat]
    if g[SHEEP] < 1:
        return []
    gets = ["vegetable", "stone"]
    if state._farms[seat].fits(g[SHEEP] - 1, g[BOAR] + 1, g[CATTLE]):
        gets.insert(0, "boar")
    return [use(card, get=x) for x in gets]


def _walker_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    state.gain(pd.seat, row(sheep=-1, **{action["get"]: 1}))


register("B104", ANYTIME, anytime=_walker, ask=_asked(_walker),
         answer=_walker_answer)


# A071 Clearing Spade: 1 crop from a sown field holding 2 or more to an empty field.
def _spade(state: CardState, seat: int, card: str) -> list[dict[str, Any]]:
    farm = state._farms[seat]
    empty = farm.empty_fields()
    if not empty:
        return []
    full = [c for c in range(15) if farm.fields >> c & 1 and farm.crop(c)[1] >= 2]
    return [use(card, cell=a, to=b) for a in full for b in empty]


def _spade_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    farm = state._farms[pd.seat]
    a, b = action["cell"], action["to"]
    sown = list(farm._sown)
    one = 1 if sown[a] > 0 else -1  # grain is counted positive, vegetables negative
    sown[a] -= one
    sown[b] = one
    farm._sown = tuple(sown)
    farm._open = None


register("A071", ANYTIME, anytime=_spade, ask=_asked(_spade),
         answer=_spade_answer)


# B080 Hard Porcelain: 2/3/4 clay for 1/2/3 stone.
def _porcelain(state: CardState, seat: int, card: str) -> list[dict[str, Any]]:
    clay = state._goods[seat][CLAY]
    return [use(card, clay=n) for n in (2, 3, 4) if clay >= n]


def _porcelain_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    n = action["clay"]
    state.gain(pd.seat, row(clay=-n, stone=n - 1))


register("B080", ANYTIME, anytime=_porcelain, ask=_asked(_porcelain),
         answer=_porcelain_answer)
