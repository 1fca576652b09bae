"""Cards of the SPACE_USED moment whose clause is a "you may": on the owner's use of a space,
asked as a card decision with a "no" beside the ways to use it (:mod:`.spaces_used` says when
the events fire)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.engine.agricola.board import Board
from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import (
    AT_END,
    AT_USE,
    USE,
    CardState,
    Event,
    Pending,
    decline,
    register,
    use,
)
from arena.engine.agricola.cards.effects.building import chosen, ways
from arena.engine.agricola.cards.effects.spaces_used import (
    DAY_LABORER,
    FARMLAND,
    FISHING,
    GRAIN_SEEDS,
    MARKETS,
    SPACE_USED,
    WOOD_SPACES,
    ids,
    own,
)
from arena.engine.agricola.cards.effects.util import plough, row
from arena.engine.agricola.components import FOOD, GOODS, GRAIN, WOOD
from arena.engine.agricola.food import bake, bake_options

Options = Callable[[CardState, Pending], list[dict[str, Any]]]


def _optional(card: str, spaces: frozenset[int], options: Options,
              answer: Callable[[CardState, Pending, dict[str, Any]], None],
              when: int = AT_USE, *more: Moment,
              events: dict[Moment, Event] | None = None) -> None:
    """A "you may" clause on the owner's use of ``spaces``: asked when ``options`` has any
    way to use it (the question remembers the space), with a "no" beside them."""
    def event(state: CardState, owner: int, c: str) -> None:
        space = own(state, owner, spaces, when)
        if space >= 0:
            pd = Pending(owner, c, "use", (space,))
            if options(state, pd):
                state.ask(pd)

    def ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
        ways = options(state, pd)
        return [*ways, decline(pd.card)] if ways else []

    def on_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
        if action["type"] == USE:
            answer(state, pd, action)

    register(card, SPACE_USED, *more, events={**(events or {}), SPACE_USED: event}, ask=ask,
             answer=on_answer, spaces=spaces)


def _paying(good: int, n: int) -> Options:
    """A single "use" while the owner has ``n`` of ``good``."""
    def options(state: CardState, pd: Pending) -> list[dict[str, Any]]:
        return [use(pd.card)] if state._goods[pd.seat][good] >= n else []
    return options


def _pays(**amounts: int) -> Callable[[CardState, Pending, dict[str, Any]], None]:
    r = row(**amounts)

    def answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
        state.gain(pd.seat, r)
    return answer


# A108 Mushroom Collector, A056 Basket: right after a wood space, wood back onto it for food.
def _put_back(wood: int, food: int) -> Callable[[CardState, Pending, dict[str, Any]], None]:
    def answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
        state.gain(pd.seat, row(wood=-wood, food=food))
        put_on_space(state._board, pd.data[0], wood)
    return answer


def put_on_space(board: Board, space: int, n: int) -> None:
    """Put ``n`` more of its good on accumulation space ``space``."""
    piles = board._piles
    board._piles = (*piles[:space], piles[space] + n, *piles[space + 1:])


_optional("A108", WOOD_SPACES, _paying(WOOD, 1), _put_back(1, 2), AT_END)
_optional("A056", WOOD_SPACES, _paying(WOOD, 2), _put_back(2, 3), AT_END)


# A138 Harpooner: Fishing, may pay 1 wood for 1 food per person and 1 reed.
def _harpooner(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    state.gain(pd.seat, row(wood=-1, food=state._people[pd.seat], reed=1))


_optional("A138", frozenset({FISHING}), _paying(WOOD, 1), _harpooner)


# A147 Animal Dealer: a market, may buy 1 more animal of its type for 1 food.
def _dealer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    state.gain(pd.seat, row(food=-1, **{GOODS[MARKETS[pd.data[0]]]: 1}))


_optional("A147", frozenset(MARKETS), _paying(FOOD, 1), _dealer)
_optional("B166", frozenset({GRAIN_SEEDS}), _paying(FOOD, 1),  # Cattle Feeder
          _pays(food=-1, cattle=1))


# B108 Oven Firing Boy (wood spaces), A024 Threshing Board (Farmland, Cultivation): a Bake
# Bread action, one way per number of grain (as a space's bake).
def _bakes(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    grain = state._goods[pd.seat][GRAIN]
    return [use(pd.card, grain=o.grain) for o in bake_options(grain, state._majors[pd.seat])]


def _bake(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    s = pd.seat
    opts = bake_options(state._goods[s][GRAIN], state._majors[s])
    state._goods[s] = bake(state._goods[s], next(o for o in opts if o.grain == action["grain"]))


_optional("B108", WOOD_SPACES, _bakes, _bake)
_optional("A024", ids("farmland", "cultivation"), _bakes, _bake)


# B091 Assistant Tiller: Day Laborer, may plough 1 field.
def _plough_spots(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [use(pd.card, cell=c) for c in state._farms[pd.seat].plough_spots()]


def _plough(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    plough(state, pd.seat, action["cell"])


_optional("B091", frozenset({DAY_LABORER}), _plough_spots, _plough)


# B019 Moldboard Plow: 2 field tiles on the card; on Farmland, may plough 1 field with one.
def _tiles(state: CardState, seat: int, card: str) -> None:
    state.set_mark(card, (2,))


def _tile_spots(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return _plough_spots(state, pd) if state.mark(pd.card) else []


def _tile_plough(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    plough(state, pd.seat, action["cell"])
    left = state.mark(pd.card)[0] - 1
    state.set_mark(pd.card, (left,) if left else ())


_optional("B019", frozenset({FARMLAND}), _tile_spots, _tile_plough, AT_USE, Moment.ON_PLAY,
          events={Moment.ON_PLAY: _tiles})


# B087 Cottager: Day Laborer, may build exactly 1 room or renovate, paying the cost (after
# the owner's cost cards, every way they leave).
def _cottager_ways(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    out = []
    spots = state._farms[pd.seat].room_spots()
    for fields, _ in ways(state, pd.seat, "room"):
        out += [use(pd.card, build="room", cell=c, **fields) for c in spots]
    out += [use(pd.card, build="renovation", **fields)
            for fields, _ in ways(state, pd.seat, "renovation")]
    return out


def _cottager(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    s, kind = pd.seat, action["build"]
    cost = chosen(state, s, kind, action)
    state.gain(s, tuple(-c for c in cost))
    if kind == "room":
        state._farms[s].build_room(action["cell"])
    else:
        state._farms[s].renovate()
        if action.get("to") == "stone":
            state._farms[s].renovate()


_optional("B087", frozenset({DAY_LABORER}), _cottager_ways, _cottager)
