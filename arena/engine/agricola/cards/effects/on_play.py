"""Cards whose effect happens once, as they are played."""

from __future__ import annotations

from typing import Any, Final

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import (
    USE,
    CardState,
    Pending,
    choice,
    register,
    rounds_left,
    yes_no_paying,
)
from arena.engine.agricola.cards.effects.util import give, material, plough, rooms, row
from arena.engine.agricola.components import CLAY, FOOD, HOUSE_CLAY, MAX_FENCES
from arena.engine.agricola.pastures import CELLS

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


def _ballaster_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] == USE:
        state.gain(pd.seat, row(food=-1, stone=rooms(state, pd.seat)))


register("B123", ON_PLAY, events={ON_PLAY: _ballaster}, ask=yes_no_paying(FOOD, 1),
         answer=_ballaster_answer)


register("B008", ON_PLAY, events={ON_PLAY: give(vegetable=1)})  # Market Stall


# A125 Priest: a clay house of exactly 2 rooms: 3 clay, 2 reed, 2 stone.
def _priest(state: CardState, seat: int, card: str) -> None:
    if material(state, seat) == HOUSE_CLAY and rooms(state, seat) == 2:
        state.gain(seat, row(clay=3, reed=2, stone=2))


register("A125", ON_PLAY, events={ON_PLAY: _priest})


# A005 Clay Embankment: 1 clay per 2 clay in the supply (after paying its food).
def _embankment(state: CardState, seat: int, card: str) -> None:
    state.gain(seat, row(clay=state._goods[seat][CLAY] // 2))


register("A005", ON_PLAY, events={ON_PLAY: _embankment})


# B136 House Steward: wood by the rounds left; its scoring clause is in .scoring.
def _steward_wood(state: CardState, seat: int, card: str) -> None:
    left = rounds_left(state._board.round)
    wood = 4 if left >= 9 else 3 if left >= 6 else 2 if left >= 3 else 1 if left >= 1 else 0
    if wood:
        state.gain(seat, row(wood=wood))


STEWARD_WOOD: Final = _steward_wood


# A033 Big Country: per round left, 1 bonus point (kept on the card) and 2 food.
def _big_country(state: CardState, seat: int, card: str) -> None:
    left = rounds_left(state._board.round)
    state.set_mark(card, (left,))
    if left:
        state.gain(seat, row(food=2 * left))


register("A033", ON_PLAY, events={ON_PLAY: _big_country}, kept_points=True)


# A002 Shifting Cultivation: plough 1 field (where, the player's choice; nowhere: nothing).
def _shifting(state: CardState, seat: int, card: str) -> None:
    if state._farms[seat].plough_spots():
        state.ask(Pending(seat, card, "plough"))


def _shifting_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [choice(pd.card, c) for c in state._farms[pd.seat].plough_spots()]


def _shifting_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    plough(state, pd.seat, action["choice"])


register("A002", ON_PLAY, events={ON_PLAY: _shifting}, ask=_shifting_ask,
         answer=_shifting_answer)


# B002 Mini Pasture: fence 1 space as a pasture for no wood, next to a pasture if there is one
# (the fences still come from the 15; a space of a larger pasture may be split off, ruling
# C29).
def _mini_spots(state: CardState, seat: int) -> list[int]:
    farm = state._farms[seat]
    return [c for c in range(CELLS) if farm.pasture_cost(1 << c, MAX_FENCES) > 0]


def _mini_pasture(state: CardState, seat: int, card: str) -> None:
    if _mini_spots(state, seat):
        state.ask(Pending(seat, card, "fence"))


def _mini_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [choice(pd.card, c) for c in _mini_spots(state, pd.seat)]


def _mini_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    state._farms[pd.seat].build_pasture(1 << action["choice"])


register("B002", ON_PLAY, events={ON_PLAY: _mini_pasture}, ask=_mini_ask, answer=_mini_answer)
