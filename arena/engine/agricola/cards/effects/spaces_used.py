"""Cards whose effect fires when an action space is used (Moment.SPACE_USED), and the two
placement rules among them (Sleeping Corner, Lasso).

Each event is called twice per use, for every seat's cards (:meth:`.hooks.CardHooks.used`):
``state._use`` is (space, user, when), ``when`` :data:`.base.AT_USE` (the person is placed,
before the space's own action: "each time you use") or :data:`.base.AT_END` (the turn is
over: "right after", "at the end of that turn"). An event acts only on its own uses: the
owner's, another player's (Lutenist) or anyone's (Milk Jug), of the spaces it names when it
is registered (``spaces``; only the events of Brook and Lasso hear every space). A clause its
owner may decline
is asked as a card decision; the decisions of a turn are taken before the next person is
placed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol, cast

from arena.engine.agricola.board import FREE
from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import (
    AT_END,
    AT_USE,
    USE,
    CardState,
    Event,
    Goods,
    Pending,
    Thing,
    choice,
    decline,
    register,
    use,
)
from arena.engine.agricola.cards.effects.util import row
from arena.engine.agricola.components import (
    BOAR,
    CATTLE,
    FOOD,
    SHEEP,
    SPACE_ID,
)
from arena.engine.agricola.parts import Holding
from arena.engine.agricola.usable import usable_mask

SPACE_USED = Moment.SPACE_USED


def ids(*keys: str) -> frozenset[int]:
    return frozenset(SPACE_ID[k] for k in keys)


WOOD_SPACES: Final = ids("forest", "grove", "copse")
STONE_SPACES: Final = ids("western_quarry", "eastern_quarry")
MARKETS: Final = {SPACE_ID["sheep_market"]: SHEEP, SPACE_ID["pig_market"]: BOAR,
                  SPACE_ID["cattle_market"]: CATTLE}
MARKETS_MASK: Final = sum(1 << s for s in MARKETS)
WISH: Final = ids("basic_wish_for_children", "urgent_wish_for_children")
DAY_LABORER: Final = SPACE_ID["day_laborer"]
GRAIN_SEEDS: Final = SPACE_ID["grain_seeds"]
FARMLAND: Final = SPACE_ID["farmland"]
FISHING: Final = SPACE_ID["fishing"]
TRAVELING: Final = SPACE_ID["traveling_players"]
CATTLE_MARKET: Final = SPACE_ID["cattle_market"]
RESOURCE_MARKET: Final = ids("resource_market_3p", "resource_market_4p")


class SpaceState(CardState, Protocol):
    """What these effects read beside :class:`.base.CardState`: the use being dispatched,
    the held placing, people at home, guests, and the seat's costs and usable spaces."""

    _use: tuple[int, int, int]
    _hold: int
    _home: list[int]
    _guests: tuple[tuple[int, int], ...]

    def holding(self, seat: int) -> Holding: ...
    def cost(self, seat: int, thing: Thing, base: Goods) -> Goods | None: ...
    def _usable(self, p: int) -> int: ...


def st(state: CardState) -> SpaceState:
    return cast(SpaceState, state)


def own(state: CardState, owner: int, spaces: frozenset[int], when: int = AT_USE) -> int:
    """The space of the use being dispatched if it is ``owner``'s, at ``when``, of ``spaces``;
    else -1."""
    space, user, at = st(state)._use
    return space if user == owner and at == when and space in spaces else -1


def _gain_on(spaces: frozenset[int], when: int = AT_USE, **amounts: int) -> Event:
    """"Each time you use one of ``spaces``, also take these goods"."""
    r = row(**amounts)

    def event(state: CardState, owner: int, card: str) -> None:
        if own(state, owner, spaces, when) >= 0:
            state.gain(owner, r)
    return event


def _auto(card: str, spaces: frozenset[int] | None, event: Event, *more: Moment) -> None:
    register(card, SPACE_USED, *more, events={SPACE_USED: event}, spaces=spaces)


def _gain(card: str, spaces: frozenset[int], when: int = AT_USE, **amounts: int) -> None:
    _auto(card, spaces, _gain_on(spaces, when, **amounts))


_gain("A116", WOOD_SPACES, wood=1)  # Wood Cutter
_gain("A080", STONE_SPACES, stone=1)  # Stone Tongs
_gain("A067", frozenset({GRAIN_SEEDS}), grain=1)  # Corn Scoop
_gain("B142", frozenset({GRAIN_SEEDS}), vegetable=1)  # Greengrocer
_gain("A078", frozenset({FISHING}), food=1, reed=1)  # Canoe
_gain("A155", frozenset({TRAVELING}), wood=1, grain=1)  # Conjurer
_gain("B077", frozenset({DAY_LABORER}), clay=3)  # Loam Pit
# A119 Firewood Collector: the wood comes at the end of the turn.
_gain("A119", ids("farmland", "grain_seeds", "grain_utilization", "cultivation"), AT_END,
      wood=1)


# B121 Geologist: Forest and Reed Bank; Clay Pit too with 3 or more players.
_GEOLOGIST: Final = (ids("forest", "reed_bank"), ids("forest", "reed_bank", "clay_pit"))


def _geologist(state: CardState, owner: int, card: str) -> None:
    if own(state, owner, _GEOLOGIST[state._n >= 3]) >= 0:
        state.gain(owner, row(clay=1))


_auto("B121", _GEOLOGIST[1], _geologist)


# B056 Brook: Forest, Clay Pit, Reed Bank and the stage card of round 1.
_BROOK: Final = ids("forest", "clay_pit", "reed_bank")


def _brook(state: CardState, owner: int, card: str) -> None:
    board = state._board
    spaces = _BROOK | {board.card_of_round(1)} if board.round >= 1 else _BROOK
    if own(state, owner, spaces) >= 0:
        state.gain(owner, row(food=1))


_auto("B056", None, _brook)  # the stage card of round 1 is any space


# B062 Pitchfork: Grain Seeds while anyone stands on Farmland.
def _pitchfork(state: CardState, owner: int, card: str) -> None:
    if own(state, owner, frozenset({GRAIN_SEEDS})) >= 0 \
            and state._board.occupant(FARMLAND) != FREE:
        state.gain(owner, row(food=3))


_auto("B062", frozenset({GRAIN_SEEDS}), _pitchfork)


# A050 Milk Jug: whoever uses Cattle Market, the owner 3 food and every other player 1.
def _milk_jug(state: CardState, owner: int, card: str) -> None:
    space, _, at = st(state)._use
    if space == CATTLE_MARKET and at == AT_USE:
        for seat in range(state._n):
            state.gain(seat, row(food=3 if seat == owner else 1))


_auto("A050", frozenset({CATTLE_MARKET}), _milk_jug)


# B047 Herring Pot: Fishing puts 1 food on each of the next 3 round spaces.
def _herring_pot(state: CardState, owner: int, card: str) -> None:
    if own(state, owner, frozenset({FISHING})) >= 0:
        rnd = state._board.round
        state.promise(owner, FOOD, range(rnd + 1, rnd + 4))


_auto("B047", frozenset({FISHING}), _herring_pot, Moment.ROUND_START)


# --- a choice of goods --------------------------------------------------------------------------

def _choose(card: str, spaces: frozenset[int], goods: tuple[str, ...],
            offered: Callable[[CardState], bool] = lambda s: True,
            otherwise: str = "") -> None:
    """"Each time you use one of ``spaces``, also take 1 of ``goods``, your choice" (when
    ``offered``; else 1 ``otherwise``)."""
    def event(state: CardState, owner: int, c: str) -> None:
        if own(state, owner, spaces) < 0:
            return
        if offered(state):
            state.ask(Pending(owner, c, "good"))
        else:
            state.gain(owner, row(**{otherwise: 1}))

    def ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
        return [choice(pd.card, g) for g in goods]

    def answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
        state.gain(pd.seat, row(**{action["choice"]: 1}))

    register(card, SPACE_USED, events={SPACE_USED: event}, ask=ask, answer=answer,
             spaces=spaces)


# A114 Seasonal Worker: Day Laborer, 1 grain; from round 6, 1 vegetable instead if chosen.
_choose("A114", frozenset({DAY_LABORER}), ("grain", "vegetable"),
        lambda s: s._board.round >= 6, "grain")
_choose("B156", RESOURCE_MARKET, ("clay", "grain"))  # Storehouse Keeper


# A160 Lutenist: another player's Traveling Players: 1 food and 1 wood, then may buy exactly 1
# vegetable for 2 food.
def _lutenist(state: CardState, owner: int, card: str) -> None:
    space, user, at = st(state)._use
    if space == TRAVELING and user != owner and at == AT_USE:
        state.gain(owner, row(food=1, wood=1))
        state.ask(Pending(owner, card, "vegetable"))


def _lutenist_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [use(pd.card), decline(pd.card)] if state._goods[pd.seat][FOOD] >= 2 else []


register("A160", SPACE_USED, events={SPACE_USED: _lutenist}, ask=_lutenist_ask,
         spaces=frozenset({TRAVELING}),
         answer=lambda state, pd, action: state.gain(pd.seat, row(food=-2, vegetable=1))
         if action["type"] == USE else None)


# --- placement rules ----------------------------------------------------------------------------

# A026 Sleeping Corner: a Wish for Children space where exactly one other player's person
# stands may be used as well (a second person there: :attr:`.hooks.CardHooks._guests`).
def _sleeping_corner_rule(state: CardState, seat: int, usable: int) -> int:
    s = st(state)
    board = s._board
    spaces = board.spaces()
    for sp in WISH:
        if usable >> sp & 1 or sp not in spaces:
            continue
        host = board.occupant(sp)
        if host in (FREE, seat) or any(g == sp for g, _ in s._guests):
            continue
        usable |= usable_mask(1 << sp, s.holding(seat), board)
    return usable


register("A026", SPACE_USED, events={SPACE_USED: lambda state, owner, card: None},
         spaces=frozenset())  # a placement rule: its event does nothing


# B024 Lasso: right after a turn (the owner's, begun with Lasso in play), the owner may place
# one more person at once, on a market unless the first was. Mark: 4 a turn Lasso saw, 1 the
# next placement is the pair's second (any space), 2 the second (a market), 3 it is the second.
def _lasso(state: CardState, owner: int, card: str) -> None:
    s = st(state)
    space, user, at = s._use
    if user != owner:
        return
    mark = state.mark(card)
    if at == AT_USE:
        state.set_mark(card, (3,) if mark in ((1,), (2,)) else (4,))
        return
    if mark != (4,) or s._home[owner] < 1:
        return
    usable = s._usable(owner)
    market = space in MARKETS
    if usable if market else usable & MARKETS_MASK:
        state.ask(Pending(owner, card, "place", (int(market),)))


def _lasso_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [use(pd.card), decline(pd.card)]


def _lasso_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] == USE:
        state.set_mark(pd.card, (1,) if pd.data[0] else (2,))
        st(state)._hold = pd.seat


def _lasso_rule(state: CardState, seat: int, usable: int) -> int:
    return usable & MARKETS_MASK if state.mark("B024") == (2,) else usable


register("B024", SPACE_USED, events={SPACE_USED: _lasso}, ask=_lasso_ask,
         answer=_lasso_answer)

#: Placement rules by card, in the order they apply (a restriction last):
#: ``(state, seat, usable mask) -> usable mask``.
PLACEMENT: Final[dict[str, Callable[[CardState, int, int], int]]] = {
    "A026": _sleeping_corner_rule,
    "B024": _lasso_rule,
}
