"""Playing a card from the hand, as pure functions (rulings C4-C6 of ``RULES.md``): what an
occupation or a minor improvement costs, whether its prerequisite is met, and the actions that
play it, one per playable card and way to raise the food (:func:`~..food.food_covers`).

An action is ``{"type": "play_occupation" | "play_minor", "card": ID}``, with
``"convert": [grain, vegetable, sheep, boar, cattle]`` added when food in the supply does not
cover the food cost and goods are turned into food to pay it. What is offered is paid: a card
not payable is not offered.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from operator import sub
from typing import Any, Final, NamedTuple

from arena.engine.agricola.board import Board
from arena.engine.agricola.cards.card import Count, Kind
from arena.engine.agricola.cards.deck import BASE_DECK
from arena.engine.agricola.components import CLAY, FOOD, GOODS, SHEEP, SPACE_ID
from arena.engine.agricola.farm import GRAIN as FIELD_GRAIN
from arena.engine.agricola.farm import VEGETABLE as FIELD_VEGETABLE
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.food import food_covers, food_value

Goods = tuple[int, ...]
PLAY_OCCUPATION: Final = "play_occupation"
PLAY_MINOR: Final = "play_minor"
_FISHING: Final = SPACE_ID["fishing"]


def _row(amounts: Mapping[str, int]) -> Goods:
    return tuple(amounts.get(g, 0) for g in GOODS)


class Facts(NamedTuple):
    """What playing a card reads of it: cost and cost per person as goods rows, the
    prerequisite (or None), whether it travels, its points, and whether it is an occupation."""

    cost: Goods
    per_person: Goods
    prerequisite: Any
    traveling: bool
    points: int
    occupation: bool


#: By card id: the facts of :class:`Facts`.
FACTS: Final[Mapping[str, Facts]] = {
    c.id: Facts(_row(c.cost), _row(c.cost_per_person), c.prerequisite, c.traveling, c.points,
                c.kind is Kind.OCCUPATION)
    for c in BASE_DECK
}


class Seat(NamedTuple):
    """What playing a card reads of one player: goods, farm, majors, family size, the seat
    (for the board's occupants) and the occupations in front of them."""

    goods: Goods
    farm: Farm
    majors: Collection[int]
    people: int
    seat: int
    occupations: int


def count(what: Count, s: Seat, board: Board) -> int:
    """The value of a prerequisite's count for ``s`` now."""
    if what is Count.OCCUPATIONS:
        return s.occupations
    if what is Count.GRAIN_FIELDS or what is Count.VEGETABLE_FIELDS:
        crop = FIELD_GRAIN if what is Count.GRAIN_FIELDS else FIELD_VEGETABLE
        fields = s.farm.fields
        return sum(1 for c in range(15) if fields >> c & 1 and s.farm.crop(c)[0] == crop
                   and s.farm.crop(c)[1] > 0)
    if what is Count.UNUSED_SPACES:
        return s.farm.unused_spaces()
    if what is Count.SHEEP:
        return s.goods[SHEEP]
    if what is Count.CLAY:
        return s.goods[CLAY]
    if what is Count.HOUSE_MATERIAL:
        return s.farm.material
    if what is Count.PEOPLE_ON_FISHING:
        return int(board.occupant(_FISHING) == s.seat)
    raise ValueError(f"unknown count {what!r}")  # pragma: no cover


#: The cards with a cost per person.
_PER_PERSON: Final = frozenset(c for c, f in FACTS.items() if any(f.per_person))


def minor_cost(card_id: str, people: int) -> Goods:
    """The goods a minor improvement costs a family of ``people``."""
    f = FACTS[card_id]
    if card_id not in _PER_PERSON:
        return f.cost
    return tuple(a + people * b for a, b in zip(f.cost, f.per_person, strict=True))


def _action(typ: str, card_id: str, convert: tuple[int, ...]) -> dict[str, Any]:
    if not convert:
        return {"type": typ, "card": card_id}
    return {"type": typ, "card": card_id, "convert": list(convert)}


def occupation_plays(hand: tuple[str, ...], food: int, s: Seat
                     ) -> list[tuple[dict[str, Any], Goods]]:
    """Each occupation of ``hand`` played for ``food``, with every minimal way to raise the
    food: (action, goods after), hand order, then conversions."""
    if not hand:
        return []
    covers = food_covers(s.goods, s.majors, food)
    return [(_action(PLAY_OCCUPATION, c, x), after) for c in hand for x, after in covers]


def can_play_occupation(hand: tuple[str, ...], food: int, s: Seat) -> bool:
    """Whether :func:`occupation_plays` offers anything: a card in hand, and the supply with
    every conversion worth ``food`` (then a minimal way to raise it exists)."""
    return bool(hand) and food_value(s.goods, s.majors) >= food


def minor_plays(hand: tuple[str, ...], s: Seat, board: Board,
                cost_of: Callable[[str], Goods | None] | None = None
                ) -> list[tuple[dict[str, Any], Goods]]:
    """Each minor improvement of ``hand`` whose prerequisite ``s`` meets and whose cost it can
    pay, food included through conversions: (action, goods after), hand order. ``cost_of``:
    the cost after the player's cards (None: may not be played); default :func:`minor_cost`."""
    out = []
    for c, rest, cost in _payable(hand, s, board, cost_of):
        for x, after in food_covers(rest, s.majors, cost[FOOD]):
            out.append((_action(PLAY_MINOR, c, x), after))
    return out


def can_play_minor(hand: tuple[str, ...], s: Seat, board: Board,
                   cost_of: Callable[[str], Goods | None] | None = None) -> bool:
    """Whether :func:`minor_plays` would offer anything, stopping at the first minor that can
    be played, without working out the ways to raise its food (the supply with every
    conversion worth the food is enough)."""
    for _, rest, cost in _payable(hand, s, board, cost_of):
        if rest[FOOD] >= cost[FOOD] or food_value(rest, s.majors) >= cost[FOOD]:
            return True
    return False


def _payable(hand: tuple[str, ...], s: Seat, board: Board,
             cost_of: Callable[[str], Goods | None] | None
             ) -> Iterator[tuple[str, Goods, Goods]]:
    """The minors of ``hand`` whose prerequisite ``s`` meets and whose goods but food it has:
    (card, goods after paying all but the food, cost). The cost is looked at first: most
    cards fail on it, and it is cheaper than counting for a prerequisite."""
    goods = s.goods
    for c in hand:
        terms = _PRINTED.get(c) if cost_of is None else None
        if terms is None:  # a cost per person, or the cost after the player's cards
            cost = minor_cost(c, s.people) if cost_of is None else cost_of(c)
            if cost is None:
                continue
            terms = _terms(cost)
        cost, charged, but_food = terms
        for i, n in charged:
            if goods[i] < n:
                break
        else:
            pre = _PREREQUISITE.get(c)
            if pre is not None and not pre.met(count(pre.count, s, board)):
                continue
            yield c, tuple(map(sub, goods, but_food)), cost


def _terms(cost: Goods) -> tuple[Goods, tuple[tuple[int, int], ...], Goods]:
    """``cost``, the goods but food it asks for as (good, amount) pairs, and ``cost`` without
    its food, kept per cost row: the rows are few, and whether a card is payable is asked for
    every minor in hand."""
    known = _TERMS.get(cost)
    if known is None:
        known = (cost, tuple((i, n) for i, n in enumerate(cost) if n and i != FOOD),
                 (*cost[:FOOD], 0, *cost[FOOD + 1:]))
        if len(_TERMS) < _MAX_TERMS:
            _TERMS[cost] = known
    return known


_TERMS: dict[Goods, tuple[Goods, tuple[tuple[int, int], ...], Goods]] = {}
_MAX_TERMS: Final = 4096
#: The :func:`_terms` of each minor's printed cost, but for the cards with a cost per person.
_PRINTED: Final = {c: _terms(f.cost) for c, f in FACTS.items()
                   if not f.occupation and c not in _PER_PERSON}
#: The prerequisite of each card that has one.
_PREREQUISITE: Final = {c: f.prerequisite for c, f in FACTS.items()
                        if f.prerequisite is not None}


__all__ = ["FACTS", "PLAY_MINOR", "PLAY_OCCUPATION", "Facts", "Seat", "can_play_minor",
           "can_play_occupation",
           "count", "minor_cost", "minor_plays", "occupation_plays"]
