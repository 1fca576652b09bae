"""Rooms, renovation and fences for a seat with cost cards (rulings C26-C29 of ``RULES.md``):
what each costs after the seat's cards (:meth:`~..hooks.CardHooks.costs`), the actions that
offer them and what is paid. A seat without cost cards builds as in the Family game, by the
Family game's own code; so does every seat of a Family game.

A room or renovation with more than one way to pay carries ``"pay": [wood, clay, reed,
stone]``; Conservator's renovation straight to stone carries ``"to": "stone"``. Fences are
listed and built as in the Family game with a larger budget of fences: free ones (Hedge
Keeper), wood, and clay (Rammed Clay); they are paid in that order (ruling C28).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from operator import ge
from typing import Any, Final

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.deck import BASE_DECK
from arena.engine.agricola.cards.effects.base import EFFECTS, CardState, CostRule, Goods, Thing
from arena.engine.agricola.cards.play import minor_cost
from arena.engine.agricola.cards.spaces import CARD_SPACES
from arena.engine.agricola.components import (
    AND_THEN,
    BUILD_FENCES,
    BUILD_ROOMS,
    CLAY,
    GOODS,
    HOUSE_WOOD,
    MAJORS,
    RENOVATE,
    WOOD,
    Cost,
    Part,
)
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.parts import SINGLE, Holding, can_use

COST = Moment.COST  # a module name: read at every cost, faster than the enum member
#: Conservator, Hedge Keeper, Rammed Clay.
CONSERVATOR, HEDGE_KEEPER, RAMMED_CLAY = "A087", "A088", "A016"
#: The fences Hedge Keeper frees on each Build Fences action.
HEDGE_FREE: Final = 3
#: The part kinds whose cost cards may change.
BUILDING_KINDS: Final = frozenset({BUILD_ROOMS, RENOVATE, BUILD_FENCES})
_FENCE_CARDS: Final = frozenset({HEDGE_KEEPER, RAMMED_CLAY})
#: The cost cards that may forbid building work (Mantlepiece: no renovation). Every other cost
#: card leaves a room, a renovation or a fence a way to pay no dearer than the printed cost
#: (a test holds it), so a space the printed costs allow stays usable whatever they add.
MAY_FORBID: Final = frozenset({"B033"})
#: Per building part kind, the cost cards that may change it: the cards whose rules change
#: what a room or a renovation costs (every other card's rule leaves both as printed: a test
#: holds it), Conservator's renovation, Mantlepiece's ban, the cards that pay fences. For a
#: seat with none of a kind's cards that kind is built as in the Family game.
CHANGED_BY: Final = {
    BUILD_ROOMS: frozenset({"A143", "A123", "B145", "B126", "B013"}),
    RENOVATE: frozenset({"A143", "A123", "B145", CONSERVATOR, *MAY_FORBID}),
    BUILD_FENCES: _FENCE_CARDS,
}
#: The cards whose cost rule is a "may": a way to pay beside the cost without it.
OPTIONAL_COSTS: Final = frozenset(
    c.id for c in BASE_DECK if any(x.moment == COST and x.optional for x in c.clauses))


def _pad(cost: Cost) -> Goods:
    return (*cost, *(0,) * (len(GOODS) - len(cost)))


def ways(state: CardState, seat: int, kind: str) -> list[tuple[dict[str, Any], Goods]]:
    """For ``kind`` "room" or "renovation": (the fields its action carries, its cost) for
    every way ``seat`` can build it now, paid from its supply."""
    farm = state._farms[seat]
    goods = state._goods[seat]
    rooms, material = farm.num_rooms(), farm.material
    things: list[tuple[dict[str, Any], Thing, Goods]] = []
    if kind == "room":
        if not farm.room_mask():
            return []
        things.append(({}, Thing("room", "", rooms, material), _pad(farm.room_cost())))
    else:
        if not farm.can_renovate():
            return []
        things.append(({}, Thing("renovation", "", rooms, material),
                       _pad(farm.renovation_cost())))
        if material == HOUSE_WOOD and CONSERVATOR in state.hooked(seat, COST):
            things.append(({"to": "stone"}, Thing("renovation", "stone", rooms, material),
                           _pad((0, 0, 1, rooms))))
    out = []
    for fields, thing, base in things:
        ok = [w for w in state.costs(seat, thing, base) if all(map(ge, goods, w))]
        for w in ok:
            out.append(({**fields, "pay": list(w[:4])} if len(ok) > 1 else fields, w))
    return out


def chosen(state: CardState, seat: int, kind: str, action: dict[str, Any]) -> Goods:
    """The cost of the room or renovation ``action`` (one of :func:`ways`' actions)."""
    for fields, cost in ways(state, seat, kind):
        if fields.get("to") == action.get("to") and fields.get("pay") == action.get("pay"):
            return cost
    raise ValueError(f"cannot pay for {action}")


def room_options(state: CardState, seat: int) -> list[dict[str, Any]]:
    spots = state._farms[seat].room_spots()
    if not spots:
        return []
    paid = ways(state, seat, "room")  # the same ways for every spot: worked out once
    return [{"type": "build_room", "cell": c, **f} for c in spots for f, _ in paid]


def renovation_options(state: CardState, seat: int) -> list[dict[str, Any]]:
    return [{"type": "renovate", **f} for f, _ in ways(state, seat, "renovation")]


def one_cost(state: CardState, seat: int, thing: Thing, base: Goods) -> Goods | None:
    """What ``thing`` costs ``seat`` after its cards' cost rules, those replacing the cost
    first (None: not allowed)."""
    cards = state.hooked(seat, COST)
    if not cards:
        return base
    return cost_after(cards, thing, base)


@lru_cache(maxsize=1 << 14)
def cost_after(cards: tuple[str, ...], thing: Thing, base: Goods) -> Goods | None:
    """:func:`one_cost` for a seat with the cost cards ``cards`` (not empty), kept: a function
    of the cards, the thing and its printed cost alone (a cost rule reads nothing else)."""
    cost = base
    for rule in _rules_in_order(cards):
        got = rule(thing, cost)
        if got is None:
            return None
        cost = got
    return cost


@lru_cache(maxsize=1 << 14)
def minor_cost_after(cards: tuple[str, ...], rooms: int, material: int, people: int,
                     card: str) -> Goods | None:
    """What the minor ``card`` costs a seat with the cost cards ``cards`` (not empty), a house
    of ``rooms`` of ``material`` and a family of ``people``, kept (the card last: a seat's
    check binds the rest once, ``functools.partial``)."""
    return cost_after(cards, Thing("minor", card, rooms, material), minor_cost(card, people))


@lru_cache(maxsize=1 << 12)
def major_credit(cards: tuple[str, ...], major: int, rooms: int, material: int
                 ) -> Goods | None:
    """What the cost cards ``cards`` of a seat with a house of ``rooms`` of ``material`` take
    off the cost of ``major``, as goods (None: forbidden), kept."""
    base = (*MAJORS[major].cost, *(0,) * (len(GOODS) - 4))
    cost = cost_after(cards, Thing("major", major, rooms, material), base) if cards else base
    if cost is None:
        return None
    return tuple(b - c for b, c in zip(base, cost, strict=True))


@lru_cache(maxsize=1 << 10)
def _rules_in_order(cards: tuple[str, ...]) -> tuple[CostRule, ...]:
    """The cost rules of ``cards`` (played, in the order played) as :func:`one_cost` applies
    them: those replacing the cost first, then the others, each group in the order played."""
    rules = []
    for e in sorted((EFFECTS[c] for c in cards), key=lambda e: not e.cost_first):
        assert e.cost is not None
        rules.append(e.cost)
    return tuple(rules)


def all_costs(state: CardState, seat: int, thing: Thing, base: Goods) -> list[Goods]:
    """Every way ``seat`` may pay for ``thing`` after its cards' cost rules, distinct, in
    a fixed order ([]: not allowed). A rule replacing the cost gives its cost in place of
    the printed one (two such rules: either, ruling C26); the other rules then apply in
    the order played, each optional one (a "may" clause) both used and not."""
    cards = state.hooked(seat, COST)
    if not cards:
        return [base]
    return list(_all_costs(cards, thing, base))


@lru_cache(maxsize=1 << 14)
def _all_costs(cards: tuple[str, ...], thing: Thing, base: Goods) -> tuple[Goods, ...]:
    """:func:`all_costs` for the cost cards ``cards``, kept as :func:`cost_after` is."""
    starts: list[Goods] = []
    rest = []
    for c in cards:
        e = EFFECTS[c]
        assert e.cost is not None
        if not e.cost_first:
            rest.append(e)
            continue
        got = e.cost(thing, base)
        if got is None:
            return ()
        if got != base:
            starts.append(got)
    ways = list(dict.fromkeys(starts)) or [base]
    for e in rest:
        assert e.cost is not None
        out: list[Goods] = []
        for w in ways:
            got = e.cost(thing, w)
            if got is None:
                if e.card in OPTIONAL_COSTS:
                    out.append(w)
                    continue
                return ()
            out += (w, got) if e.card in OPTIONAL_COSTS else (got,)
        ways = list(dict.fromkeys(out))
    return tuple(ways)


def paid_part(state: CardState, p: int, action: dict[str, Any],
              family: Callable[[], None]) -> None:
    """A room, renovation or pasture of a seat with cost cards: the Family sub-action,
    paid what the cards make it cost (``family`` carries it out)."""
    typ, goods, farm = action["type"], state._goods[p], state._farms[p]
    if typ == "pasture":
        if not pays_fences(state, p):
            family()
            return
        budget = fence_budget(state, p)
        state._goods[p] = (budget, *goods[1:])  # the Family game pays its fences in wood
        family()
        state._goods[p] = pay_fences(state, p, budget - state._goods[p][0], goods)
        return
    kind = "room" if typ == "build_room" else "renovation"
    cost = chosen(state, p, kind, action)
    base = farm.room_cost() if kind == "room" else farm.renovation_cost()
    # The Family game pays the printed cost: it is lent, and the card cost paid instead.
    state._goods[p] = tuple(g - c + (base[k] if k < len(base) else 0)
                            for k, (g, c) in enumerate(zip(goods, cost, strict=True)))
    family()
    state._goods[p] = tuple(g - c for g, c in zip(goods, cost, strict=True))
    if action.get("to") == "stone":
        farm.renovate()  # Conservator: on from clay to stone, in one renovation


def building_options(state: CardState, p: int, part: Part, farm: Farm, done: int
                     ) -> list[dict[str, Any]] | None:
    """The rooms, renovation or fences of ``part`` for ``p``, a seat with cost cards; None
    when the Family game's options are the same (fences paid 1 wood each)."""
    kind = part.kind
    if (kind in SINGLE and done) or (part.limit and done >= part.limit):
        return []
    if kind == BUILD_ROOMS:
        return room_options(state, p)
    if kind == RENOVATE:
        return renovation_options(state, p)
    if not pays_fences(state, p):
        return None
    starts = farm.pasture_starts(fence_budget(state, p))
    return [{"type": "pasture_from", "cell": c} for c in starts]


# --- the building spaces a seat with cost cards may use (ruling P1) ------------------------
#: (space, its deciding parts) of card mode's spaces where rooms, renovation or fences decide
#: whether a seat may use it; the other deciding parts are the Family game's (a test holds it).
BUILDING_SPACES: Final = tuple(
    (s, parts) for s, sp in enumerate(CARD_SPACES)
    if not sp.dead
    for parts in [sp.parts[:1] if sp.combine == AND_THEN else sp.parts]
    if any(part.kind in BUILDING_KINDS for part in parts))
BUILDING_MASK: Final = sum(1 << s for s, _ in BUILDING_SPACES)


def usable_building(state: CardState, p: int, usable: int, free: int) -> int:
    """``usable`` (the free spaces ``p`` could use at the printed costs) with the spaces of
    rooms, renovation and fences decided by ``p``'s cost cards. A space the printed costs
    allow stays usable unless a card of ``p`` may forbid building work: every other cost card
    leaves a way to pay no dearer than the printed one (:data:`MAY_FORBID`); and only a space
    with a part ``p``'s cards change (:data:`CHANGED_BY`) is decided again."""
    cards = state.hooked(p, COST)
    free &= _changed_spaces(cards)
    if MAY_FORBID.isdisjoint(cards):
        free &= ~usable
    if not free:  # most cost cards change no building work: nothing to decide again
        return usable
    h = Holding(state._goods[p], state._farms[p], state._majors[p], state._people[p])
    known: dict[Part, bool] = {}  # a building part offers the same on every space
    for space, deciding in BUILDING_SPACES:
        if free >> space & 1:
            usable &= ~(1 << space)
            for part in deciding:
                ok = known.get(part)
                if ok is None:
                    ok = _possible(state, p, part, h, space)
                    if part.kind in BUILDING_KINDS:
                        known[part] = ok
                if ok:
                    usable |= 1 << space
                    break
    return usable


@lru_cache(maxsize=1 << 10)
def _changed_spaces(cards: tuple[str, ...]) -> int:
    """The mask of the spaces of :data:`BUILDING_SPACES` with a deciding part whose cost
    ``cards`` (a seat's cost cards) change, worked out once per tuple of cards."""
    return sum(1 << space for space, deciding in BUILDING_SPACES
               if any(not CHANGED_BY[part.kind].isdisjoint(cards)
                      for part in deciding if part.kind in CHANGED_BY))


def _possible(state: CardState, p: int, part: Part, h: Holding, space: int) -> bool:
    """Whether ``part`` offers ``p`` anything before its first sub-action, without listing the
    options: fences asked of the farm (a pasture within the fences ``p`` can pay), a room or
    a renovation of the ways ``p`` can pay for it, the Family game's ``can_use`` otherwise."""
    kind = part.kind
    if kind == BUILD_FENCES:
        wood = h.goods[WOOD]
        return h.farm.can_fence(fence_budget(state, p) if pays_fences(state, p) else wood)
    if kind in (BUILD_ROOMS, RENOVATE):
        return bool(ways(state, p, "room" if kind == BUILD_ROOMS else "renovation"))
    return can_use(part, h, state._board, space)


# --- fences -------------------------------------------------------------------------------

def pays_fences(state: CardState, seat: int) -> bool:
    """Whether ``seat`` has a card that pays fences otherwise than 1 wood each."""
    return not _FENCE_CARDS.isdisjoint(state.hooked(seat, COST))


def _free_left(state: CardState, seat: int) -> int:
    if HEDGE_KEEPER not in state.hooked(seat, COST):
        return 0
    mark = state.mark(HEDGE_KEEPER)
    used = mark[2] if mark[:2] == (state._board.round, state._space) else 0
    return HEDGE_FREE - used


def fence_budget(state: CardState, seat: int) -> int:
    """The most fences ``seat`` can pay for now, on the Build Fences action under way."""
    g = state._goods[seat]
    clay = g[CLAY] if RAMMED_CLAY in state.hooked(seat, COST) else 0
    return _free_left(state, seat) + g[WOOD] + clay


def pay_fences(state: CardState, seat: int, fences: int, goods: Goods) -> Goods:
    """``goods`` after paying ``fences`` fences: the free ones first, then wood, then clay
    (ruling C28); Hedge Keeper's mark counts the free ones used on this action."""
    free = min(fences, _free_left(state, seat))
    if free:
        mark = state.mark(HEDGE_KEEPER)
        used = mark[2] if mark[:2] == (state._board.round, state._space) else 0
        state.set_mark(HEDGE_KEEPER, (state._board.round, state._space, used + free))
    rest = fences - free
    wood = min(rest, goods[WOOD])
    clay = rest - wood
    if clay > goods[CLAY]:
        raise ValueError(f"cannot pay for {fences} fences")
    out = list(goods)
    out[WOOD] -= wood
    out[CLAY] -= clay
    return tuple(out)


__all__ = [
    "BUILDING_KINDS",
    "BUILDING_MASK",
    "BUILDING_SPACES",
    "CHANGED_BY",
    "CONSERVATOR",
    "HEDGE_FREE",
    "OPTIONAL_COSTS",
    "all_costs",
    "chosen",
    "cost_after",
    "fence_budget",
    "major_credit",
    "minor_cost_after",
    "paid_part",
    "pay_fences",
    "pays_fences",
    "renovation_options",
    "room_options",
    "usable_building",
    "ways",
]
