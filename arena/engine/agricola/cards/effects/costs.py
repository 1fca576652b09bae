"""Cards that change what things cost their owner: pure functions ``(thing, cost) -> cost``
(None: the card forbids it), applied by the state's :meth:`cost` wherever a cost is
computed. Costs are goods rows; "never below 0" is each rule's own floor."""

from __future__ import annotations

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import Goods, Thing, register
from arena.engine.agricola.components import STONE, WOOD

COST = Moment.COST
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
