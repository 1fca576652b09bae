"""Cards that change what things cost their owner: pure functions ``(thing, cost) -> cost``
(None: the card forbids it), applied by the state's :meth:`cost` wherever a cost is
computed. Costs are goods rows; "never below 0" is each rule's own floor."""

from __future__ import annotations

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import CardState, Goods, Thing, register, rounds_left
from arena.engine.agricola.cards.effects.util import give
from arena.engine.agricola.components import CLAY, HOUSE_WOOD, REED, STONE, WOOD

COST, ON_PLAY = Moment.COST, Moment.ON_PLAY
#: The things that are improvements (majors and minors).
IMPROVEMENTS = frozenset({"major", "minor"})


def _less(cost: Goods, good: int, n: int = 1) -> Goods:
    return (*cost[:good], max(0, cost[good] - n), *cost[good + 1:])


def _lumber_mill(thing: Thing, cost: Goods) -> Goods | None:
    if thing.kind not in IMPROVEMENTS:
        return cost
    return _less(cost, WOOD)


register("A075", COST, cost=_lumber_mill)  # Lumber Mill


def _less_stone_by_rooms(thing: Thing, cost: Goods) -> Goods | None:
    if thing.kind != "major":
        return cost
    return _less(cost, STONE, max(0, thing.rooms - 2))


register("B095", COST, cost=_less_stone_by_rooms)  # Master Bricklayer


# --- rooms, renovation and fences (listed and paid by :mod:`..building`) -------------------
#: The things that are building work: a room or a renovation.
BUILDING = frozenset({"room", "renovation"})


def _same(thing: Thing, cost: Goods) -> Goods | None:
    return cost


def _stonecutter(thing: Thing, cost: Goods) -> Goods | None:
    if thing.kind not in IMPROVEMENTS and thing.kind not in BUILDING:
        return cost
    return _less(cost, STONE)


register("A143", COST, cost=_stonecutter)  # Stonecutter


def _frame_builder(thing: Thing, cost: Goods) -> Goods | None:
    """1 wood in place of exactly 2 clay, else of exactly 2 stone (once per room or
    renovation; ruling C26)."""
    if thing.kind not in BUILDING:
        return cost
    for good in (CLAY, STONE):
        if cost[good] >= 2:
            out = list(_less(cost, good, 2))
            out[WOOD] += 1
            return tuple(out)
    return cost


register("A123", COST, cost=_frame_builder)  # Frame Builder (optional: a way to pay)


def _brushwood(thing: Thing, cost: Goods) -> Goods | None:
    if thing.kind not in BUILDING or not cost[REED]:
        return cost
    out = list(cost)
    out[REED] = 0
    out[WOOD] += 1
    return tuple(out)


register("B145", COST, cost=_brushwood)  # Brushwood Collector (optional)


def _carpenter(thing: Thing, cost: Goods) -> Goods | None:
    if thing.kind != "room":
        return cost
    out = [0] * len(cost)
    out[(WOOD, CLAY, STONE)[thing.material]] = 3
    out[REED] = 2
    return tuple(out)


register("B126", COST, cost=_carpenter, cost_first=True)  # Carpenter


def _parlor(thing: Thing, cost: Goods) -> Goods | None:
    if thing.kind != "room" or thing.material != HOUSE_WOOD:
        return cost
    out = [0] * len(cost)
    out[WOOD] = out[REED] = 2
    return tuple(out)


register("B013", COST, cost=_parlor, cost_first=True)  # Carpenter's Parlor


def _mantlepiece(thing: Thing, cost: Goods) -> Goods | None:
    return None if thing.kind == "renovation" else cost


def _mantlepiece_points(state: CardState, seat: int, card: str) -> None:
    state.set_mark(card, (rounds_left(state._board.round),))


register("B033", ON_PLAY, COST, events={ON_PLAY: _mantlepiece_points}, cost=_mantlepiece,
         kept_points=True)  # Mantlepiece
# A087 Conservator: its way (wood straight to stone) is a renovation of its own, listed by
# :mod:`..building`; as a rule it changes no cost.
register("A087", COST, cost=_same)
# A088 Hedge Keeper and A016 Rammed Clay pay fences (:mod:`..building`).
register("A088", COST, cost=_same)
register("A016", ON_PLAY, COST, events={ON_PLAY: give(clay=1)}, cost=_same)
# B036 Bottles: its cost per person is the card's own (``minor_cost``).
register("B036", COST)
