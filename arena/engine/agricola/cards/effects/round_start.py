"""Cards whose effect comes at the start of each round (the preparation phase), after the
goods on the round space are taken; seats in turn from the starting player."""

from __future__ import annotations

from typing import Any, Final, Protocol, cast

from arena.engine.agricola.board import Board
from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import (
    USE,
    CardState,
    Pending,
    choice,
    decline,
    register,
    use,
)
from arena.engine.agricola.cards.effects.util import give, material, plough, rooms, row
from arena.engine.agricola.cards.play import Seat, occupation_plays
from arena.engine.agricola.components import FOOD, HOUSE_STONE, HOUSE_WOOD, NUM_ROUNDS, WOOD

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


# B057 Scullery: living in a wooden house, 1 food.
def _scullery(state: CardState, seat: int, card: str) -> None:
    if material(state, seat) == HOUSE_WOOD:
        state.gain(seat, row(food=1))


register("B057", ROUND_START, events={ROUND_START: _scullery})


# B118 Small-scale Farmer: a house of exactly 2 rooms, 1 wood.
def _small_farmer(state: CardState, seat: int, card: str) -> None:
    if rooms(state, seat) == 2:
        state.gain(seat, row(wood=1))


register("B118", ROUND_START, events={ROUND_START: _small_farmer})


# A090 Plow Driver: in a stone house, may pay 1 food to plough 1 field.
def _plow_driver(state: CardState, seat: int, card: str) -> None:
    if material(state, seat) == HOUSE_STONE and state._goods[seat][FOOD] >= 1 \
            and state._farms[seat].plough_spots():
        state.ask(Pending(seat, card, "plough"))


def _plough_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [*(use(pd.card, cell=c) for c in state._farms[pd.seat].plough_spots()),
            decline(pd.card)]


def _plow_driver_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    # Asked only while the food is still there (an any-time purchase may have spent it).
    return _plough_ask(state, pd) if state._goods[pd.seat][FOOD] >= 1 else []


def _plow_driver_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] == USE:
        state.gain(pd.seat, row(food=-1))
        plough(state, pd.seat, action["cell"])


register("A090", ROUND_START, events={ROUND_START: _plow_driver}, ask=_plow_driver_ask,
         answer=_plow_driver_answer)


# A019 Handplow: the round 5 rounds on is kept on the card; at its start, may plough 1 field.
def _handplow_play(state: CardState, seat: int, card: str) -> None:
    rnd = state._board.round + 5
    if rnd <= NUM_ROUNDS:
        state.set_mark(card, (rnd,))


def _handplow(state: CardState, seat: int, card: str) -> None:
    if state.mark(card) == (state._board.round,):
        state.set_mark(card, ())
        if state._farms[seat].plough_spots():
            state.ask(Pending(seat, card, "plough"))


def _handplow_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] == USE:
        plough(state, pd.seat, action["cell"])


register("A019", Moment.ON_PLAY, ROUND_START,
         events={Moment.ON_PLAY: _handplow_play, ROUND_START: _handplow}, ask=_plough_ask,
         answer=_handplow_answer)


# B089 Groom: 1 wood on play; in a stone house, may build 1 stable for 1 wood each round.
def _groom(state: CardState, seat: int, card: str) -> None:
    if material(state, seat) == HOUSE_STONE and state._goods[seat][WOOD] >= 1 \
            and state._farms[seat].stable_spots():
        state.ask(Pending(seat, card, "stable"))


def _groom_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [*(use(pd.card, cell=c) for c in state._farms[pd.seat].stable_spots()),
            decline(pd.card)]


def _groom_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] == USE:
        state._farms[pd.seat].build_stable(action["cell"])
        state.gain(pd.seat, row(wood=-1))


register("B089", Moment.ON_PLAY, ROUND_START,
         events={Moment.ON_PLAY: give(wood=1), ROUND_START: _groom}, ask=_groom_ask,
         answer=_groom_answer)


# B097 Scholar: in a stone house, at the start of each round, may play an occupation for 1
# food or a minor improvement paying its cost (the card plays as on Lessons or Meeting Place,
# food raised by the same conversions; ruling C30).
class _PlayState(CardState, Protocol):
    def seat_view(self, p: int) -> Seat: ...
    def _minor_plays(self, p: int, s: Seat, board: Board
                     ) -> list[tuple[dict[str, Any], tuple[int, ...]]]: ...
    def play(self, p: int, card: str, goods: tuple[int, ...]) -> None: ...


SCHOLAR_FOOD: Final = 1


def _scholar_plays(state: CardState, seat: int
                   ) -> list[tuple[dict[str, Any], tuple[int, ...]]]:
    s = cast(_PlayState, state)
    view = s.seat_view(seat)
    plays = [*occupation_plays(state.hands(seat)[0], SCHOLAR_FOOD, view),
             *s._minor_plays(seat, view, state._board)]
    out = []
    for a, after in plays:
        fields = {"play": a["type"], "which": a["card"]}
        if "convert" in a:
            fields["convert"] = a["convert"]
        out.append((use("B097", **fields), after))
    return out


def _scholar(state: CardState, seat: int, card: str) -> None:
    if material(state, seat) == HOUSE_STONE and _scholar_plays(state, seat):
        state.ask(Pending(seat, card, "play"))


def _scholar_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [*(a for a, _ in _scholar_plays(state, pd.seat)), decline(pd.card)]


def _scholar_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] != USE:
        return
    after = next(g for a, g in _scholar_plays(state, pd.seat) if a == action)
    cast(_PlayState, state).play(pd.seat, action["which"], after)


register("B097", ROUND_START, events={ROUND_START: _scholar}, ask=_scholar_ask,
         answer=_scholar_answer)
