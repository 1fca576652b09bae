"""Cards whose effect comes just before or after a sub-action (SUB_ACTION clauses).

The state fires SUB_ACTION for every seat's cards after each of these, with what happened in
``state._sub`` = (what, seat who did it, *numbers); each event reads it and ignores what is
not its own:

- ``("rooms", seat, material, first)``: a room built, ``first`` 1 for the first room of a
  Build Rooms action (the "each time you build one or more rooms" of the cards);
- ``("renovate", seat, old, new)``: a renovation, materials before and after;
- ``("improvement", seat)``: a major or minor improvement built or played (this card too);
- ``("growth", seat, born)``: a family growth;
- ``("pasture", seat, cells, new)``: a pasture fenced, of ``cells`` spaces; ``new`` 1 when
  none of them were pastured before (not a split);
- ``("bake", seat)``: a Bake Bread action used;
- ``("occupation", seat)``: an occupation played; ``("lessons", seat)``: a person placed on
  a Lessons space, just before its occupation is played.
"""

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
    yes_no_paying,
)
from arena.engine.agricola.cards.effects.util import give, row
from arena.engine.agricola.components import (
    FOOD,
    GOODS,
    GRAIN,
    HOUSE_CLAY,
    HOUSE_STONE,
    NUM_ROUNDS,
    WOOD,
)
from arena.engine.agricola.food import bake, bake_options

SUB = Moment.SUB_ACTION
ON_PLAY = Moment.ON_PLAY


def _sub(state: CardState, seat: int, what: str) -> tuple[int, ...] | None:
    """The numbers of the sub-action just done when it is ``what`` by ``seat``, else None."""
    sub = state._sub
    if sub and sub[0] == what and sub[1] == seat:
        return tuple(sub[2:])
    return None


def _promise_food(state: CardState, seat: int, good: str, rounds: range, amount: int) -> None:
    state.promise(seat, GOODS.index(good), rounds, amount)


# A110 Roughcaster: clay rooms built, or a renovation from clay to stone: 3 food.
def _roughcaster(state: CardState, seat: int, card: str) -> None:
    rooms = _sub(state, seat, "rooms")
    reno = _sub(state, seat, "renovate")
    if (rooms is not None and rooms == (HOUSE_CLAY, 1)) or reno == (HOUSE_CLAY, HOUSE_STONE):
        state.gain(seat, row(food=3))


register("A110", SUB, events={SUB: _roughcaster})


# A111 Wall Builder: rooms built: may put 1 food on each of the next 4 round spaces.
def _wall_builder(state: CardState, seat: int, card: str) -> None:
    rooms = _sub(state, seat, "rooms")
    if rooms is not None and rooms[1] and state._board.round < NUM_ROUNDS:
        state.ask(Pending(seat, card, "food"))


def _yes_no(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [use(pd.card), decline(pd.card)]


def _wall_builder_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] == USE:
        r = state._board.round
        _promise_food(state, pd.seat, "food", range(r + 1, r + 5), 1)


register("A111", SUB, Moment.ROUND_START, events={SUB: _wall_builder}, ask=_yes_no,
         answer=_wall_builder_answer)


# A120 Clay Hut Builder / B107 Manservant: goods on round spaces once the house is (or
# becomes) no longer wood / stone; the card's mark (1,) says it was done.
def _once(card: str, good: str, amount: int, ready: int, rounds: int) -> None:
    def promise(state: CardState, seat: int) -> None:
        r = state._board.round
        state.set_mark(card, (1,))
        _promise_food(state, seat, good, range(r + 1, min(r + rounds, NUM_ROUNDS) + 1), amount)

    def on_play(state: CardState, seat: int, c: str) -> None:
        if state._farms[seat].material >= ready:
            promise(state, seat)

    def renovated(state: CardState, seat: int, c: str) -> None:
        reno = _sub(state, seat, "renovate")
        if reno is not None and not state.mark(card) and reno[1] >= ready > reno[0]:
            promise(state, seat)

    register(card, ON_PLAY, SUB, Moment.ROUND_START,
             events={ON_PLAY: on_play, SUB: renovated})


_once("A120", "clay", 2, HOUSE_CLAY, 5)  # Clay Hut Builder: the next 5 round spaces
_once("B107", "food", 3, HOUSE_STONE, NUM_ROUNDS)  # Manservant: each remaining round space


# B163 Pastor: the only house of exactly 2 rooms: 3 wood, 2 clay, 1 reed, 1 stone, once (on
# play, or after the first build of rooms, anyone's, that makes it so).
def _pastor_check(state: CardState, seat: int, card: str) -> None:
    if state.mark(card):
        return
    twos = [p for p in range(state._n) if state._farms[p].num_rooms() == 2]
    if twos == [seat]:
        state.set_mark(card, (1,))
        state.gain(seat, row(wood=3, clay=2, reed=1, stone=1))


def _pastor(state: CardState, seat: int, card: str) -> None:
    if state._sub and state._sub[0] == "rooms":
        _pastor_check(state, seat, card)


register("B163", ON_PLAY, SUB, events={ON_PLAY: _pastor_check, SUB: _pastor})


# A055 Junk Room: after each improvement built (this one too): 1 food.
def _junk_room(state: CardState, seat: int, card: str) -> None:
    if _sub(state, seat, "improvement") is not None:
        state.gain(seat, row(food=1))


register("A055", SUB, events={SUB: _junk_room})


# A063 Dutch Windmill: baking in a round right after a harvest: 3 more food.
AFTER_HARVEST = frozenset({5, 8, 10, 12, 14})


def _windmill(state: CardState, seat: int, card: str) -> None:
    if _sub(state, seat, "bake") is not None and state._board.round in AFTER_HARVEST:
        state.gain(seat, row(food=3))


register("A063", SUB, events={SUB: _windmill})


# A083 Shepherd's Crook: a new pasture of 4 or more spaces: 2 sheep into it.
def _crook(state: CardState, seat: int, card: str) -> None:
    p = _sub(state, seat, "pasture")
    if p is not None and p[0] >= 4 and p[1]:
        state.gain(seat, row(sheep=2))


register("A083", SUB, events={SUB: _crook})


# B016 Mining Hammer: 1 food on play; after each renovation, may build 1 stable for free.
def _hammer(state: CardState, seat: int, card: str) -> None:
    if _sub(state, seat, "renovate") is not None and state._farms[seat].stable_spots():
        state.ask(Pending(seat, card, "stable"))


def _stable_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [*(use(pd.card, cell=c) for c in state._farms[pd.seat].stable_spots()),
            decline(pd.card)]


def _hammer_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] == USE:
        state._farms[pd.seat].build_stable(action["cell"])


register("B016", ON_PLAY, SUB, events={ON_PLAY: give(food=1), SUB: _hammer},
         ask=_stable_ask, answer=_hammer_answer)


# B025 Bread Paddle: 1 food on play; each occupation played: a Bake Bread action.
def _paddle(state: CardState, seat: int, card: str) -> None:
    if _sub(state, seat, "occupation") is not None and bake_options(
            state._goods[seat][GRAIN], state._majors[seat]):
        state.ask(Pending(seat, card, "bake"))


def _paddle_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    opts = bake_options(state._goods[pd.seat][GRAIN], state._majors[pd.seat])
    return [*(use(pd.card, grain=o.grain) for o in opts), decline(pd.card)]


def _paddle_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] != USE:
        return
    s = pd.seat
    opts = bake_options(state._goods[s][GRAIN], state._majors[s])
    option = next(o for o in opts if o.grain == action["grain"])
    state._goods[s] = bake(state._goods[s], option)
    baked(state, s)


register("B025", ON_PLAY, SUB, events={ON_PLAY: give(food=1), SUB: _paddle},
         ask=_paddle_ask, answer=_paddle_answer)


def baked(state: CardState, seat: int) -> None:
    """Tell the cards that ``seat`` used a Bake Bread action (a card's own bake too)."""
    state.sub_action(("bake", seat))


# A092 Adoptive Parents: after a family growth, may pay 1 food: the offspring is no newborn
# and may be placed later this round.
def _adoptive(state: CardState, seat: int, card: str) -> None:
    g = _sub(state, seat, "growth")
    if g is not None and state._goods[seat][FOOD] >= 1 and state._newborns[seat] >= 1:
        state.ask(Pending(seat, card, "adopt"))


def _adoptive_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] == USE:
        s = pd.seat
        state.gain(s, row(food=-1))
        state._newborns[s] -= 1
        state._home[s] += 1


register("A092", SUB, events={SUB: _adoptive}, ask=yes_no_paying(FOOD, 1),
         answer=_adoptive_answer)


# B109 Paper Maker: just before each later occupation, may pay 1 wood for 1 food per
# occupation in front of the owner.
def _paper_maker(state: CardState, seat: int, card: str) -> None:
    if _sub(state, seat, "lessons") is not None and state._goods[seat][WOOD] >= 1 \
            and state.hands(seat)[0]:
        state.ask(Pending(seat, card, "paper"))


def _paper_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] == USE:
        state.gain(pd.seat, row(wood=-1, food=len(state.played(pd.seat)[0])))


register("B109", SUB, events={SUB: _paper_maker}, ask=yes_no_paying(WOOD, 1),
         answer=_paper_answer)

__all__ = ["AFTER_HARVEST", "baked"]
