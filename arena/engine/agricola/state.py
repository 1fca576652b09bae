"""The Agricola game state: the round's flow over the board, the farms and the parts of each
space, and the engine contract (decision model and rulings in ``RULES.md``).

A round runs: preparation (``board.prepare_round``: the stage card, the Well's food,
accumulation) -> work (from the round's starting player, clockwise, one person per turn; each
placement is followed by the space's parts, one sub-decision at a time) -> return home -> on
harvest rounds the harvest (fields for everyone at once, then feeding and breeding per player
from the starting player). A decision with exactly one legal action is applied at once, so a
player is only ever asked when there is a real choice.

The state holds plain per-seat lists (goods as 10-tuples, :class:`Farm`, majors as sorted
tuples, family counts) and one :class:`Board`; clones copy the board and the farms, and share
every immutable tuple.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Final, Self

from arena.engine.agricola.board import new_board, prepare_round
from arena.engine.agricola.components import (
    ALL,
    AND_OR,
    AND_THEN,
    BOAR,
    CATTLE,
    FOOD,
    GOODS,
    GRAIN,
    NUM_ROUNDS,
    ONE,
    SHEEP,
    SPACES,
    START_FOOD_FIRST,
    START_FOOD_OTHERS,
    START_FOOD_SOLO,
    START_PEOPLE,
    Space,
)
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.food import (
    BreedOption,
    FeedOption,
    bake,
    bake_options,
    breeding_options,
    craft_conversions,
    feeding_options,
    field_phase,
    food_needed,
)
from arena.engine.agricola.parts import (
    FIXED,
    animal_options,
    apply,
    fixed_part,
    keep_animals,
    options,
    pasture_masks,
)
from arena.engine.agricola.pastures import SHAPES, cells_of
from arena.engine.agricola.state_base import (
    ACT,
    BREED,
    FEED,
    OVER,
    PHASE_NAMES,
    PLACE,
    STOP_KEY,
    Key,
    freeze,
    with_good,
)
from arena.engine.agricola.usable import byte_table, usable_mask
from arena.engine.agricola.views import AgricolaViews
from arena.engine.api import Game
from arena.engine.chance import Chance

#: The phases of a decision.

#: What carrying out a legal move needs besides its key (kept beside the keys).
_M_PLACE, _M_PART, _M_STOP, _M_BAKE, _M_KEEP, _M_FEED, _M_BREED = range(7)


class AgricolaState(AgricolaViews):
    """An Agricola position. Create one with ``AGRICOLA.new_state(players, seed=...)``; its
    fields are described on :class:`~arena.engine.agricola.state_base.AgricolaStateBase`."""

    __slots__ = ()

    #: The spaces' parts and the spaces carried out at once on placement (card mode's state
    #: replaces both); :meth:`_part_options` lists one part's sub-actions.
    _SPACES: tuple[Space, ...] = SPACES
    _AUTOMATIC: frozenset[int] = frozenset()  # set below, once AUTOMATIC exists
    _part_options = staticmethod(options)

    @classmethod
    def new(cls, game: Game, n: int, chance: Chance) -> AgricolaState:
        s = cls.__new__(cls)
        s._game = game
        s._n = n
        s._game_options = {}  # Game.new_state gives the options it was asked for
        s._board = new_board(n, chance)
        first = START_FOOD_SOLO if n == 1 else START_FOOD_FIRST
        s._goods = [with_good(_NO_GOODS, FOOD, first if p == 0 else START_FOOD_OTHERS)
                    for p in range(n)]
        s._farms = [Farm() for _ in range(n)]
        s._majors = [()] * n
        s._people = [START_PEOPLE] * n
        s._newborns = [0] * n
        s._home = [0] * n
        s._begging = [0] * n
        s._clear_action()
        s._begin_round()
        s._settle()
        return s

    def _apply_key(self, key: Hashable) -> None:
        self._do(self._pays[self._moves.index(key)])  # type: ignore[arg-type]
        self._settle()

    def apply_index(self, index: int) -> None:
        pays = self._pays
        if type(index) is not int or not 0 <= index < len(pays):
            super().apply_index(index)  # raises IllegalActionError with the message
        self._do(pays[index])
        self._settle()

    def clone(self) -> Self:
        cls = type(self)  # a mode's state (card mode) copies its own fields after these
        c = cls.__new__(cls)
        c._game = self._game
        c._n = self._n
        c._game_options = self._game_options  # never changed in place
        c._board = self._board.copy()
        c._goods = self._goods[:]
        c._farms = [f.copy() for f in self._farms]
        c._majors = self._majors[:]
        c._people = self._people[:]
        c._newborns = self._newborns[:]
        c._home = self._home[:]
        c._begging = self._begging[:]
        c._phase = self._phase
        c._cur = self._cur
        c._round_start = self._round_start
        c._space = self._space
        c._part = self._part
        c._started = self._started
        c._done = self._done
        c._acted = self._acted
        c._fence_from = self._fence_from
        c._free_bake = self._free_bake
        c._keep = self._keep
        c._moves = self._moves
        c._pays = self._pays
        return c

    def _settle(self) -> None:
        """Offer the current decision; apply it at once while it has a single legal action."""
        while True:
            moves, pays = self._options()
            if len(moves) == 1:
                self._do(pays[0])
                continue
            self._moves, self._pays = moves, pays
            return

    def _begin_round(self) -> None:
        food = prepare_round(self._board)
        for p, f in enumerate(food):
            if f:
                self._goods[p] = with_good(self._goods[p], FOOD, self._goods[p][FOOD] + f)
        self._newborns = [0] * self._n
        self._home = self._people[:]
        self._round_start = self._board.start_player
        self._next_placer(self._round_start)

    def _next_placer(self, start: int) -> None:
        """The next seat from ``start`` clockwise with a person at home places; when nobody
        has, the work phase ends."""
        n = self._n
        for i in range(n):
            p = (start + i) % n
            if self._home[p]:
                self._phase = PLACE
                self._cur = p
                return
        self._end_work()

    def _end_work(self) -> None:
        """Everyone is home. On a harvest round the fields are harvested for everyone and
        feeding starts with the starting player; otherwise the next round begins."""
        if not self._board.harvest_due():
            self._end_round()
            return
        for p in range(self._n):
            self._farms[p], self._goods[p] = field_phase(self._farms[p], self._goods[p])
        self._phase = FEED
        self._cur = self._board.start_player

    def _end_round(self) -> None:
        if self._board.round >= NUM_ROUNDS:
            self._phase = OVER
            self._cur = -1
            return
        self._begin_round()

    def _next_in_harvest(self) -> None:
        """Feeding and then breeding go round the table once each from the starting player."""
        nxt = (self._cur + 1) % self._n
        if nxt != self._board.start_player:
            self._cur = nxt
        elif self._phase == FEED:
            self._phase = BREED
            self._cur = nxt
        else:
            self._end_round()

    # ------------------------------------------------------------------ the legal moves
    def _options(self) -> tuple[list[Key], list[tuple[Any, ...]]]:
        """The keys of the current decision and what each needs; a phase with nothing to decide
        is passed (a player who can use no free space stays home, an action with nothing left
        to do ends)."""
        while True:
            phase = self._phase
            if phase == OVER:
                return [], []
            p = self._cur
            if phase == PLACE:
                usable = self._usable(p)
                if usable:
                    return _place_options(usable)
                self._home[p] = 0  # nowhere to go: the rest of the family stays home
                self._next_placer((p + 1) % self._n)
                continue
            if phase == ACT:
                moves, pays = self._action_options(p)
                if moves:
                    return moves, pays
                self._clear_action()
                self._next_placer((p + 1) % self._n)
                continue
            goods = self._goods[p]
            if phase == FEED:
                need = food_needed(self._people[p], self._newborns[p], self._n == 1)
                if goods[FOOD] >= need and not craft_conversions(goods, self._majors[p]):
                    # Food in the supply pays, and no craft could be used: nothing to choose.
                    self._goods[p] = with_good(goods, FOOD, goods[FOOD] - need)
                    self._next_in_harvest()
                    continue
                feeds = feeding_options(goods, self._majors[p], need)
                return [o.key() for o in feeds], [(_M_FEED, o) for o in feeds]
            if goods[SHEEP] < 2 and goods[BOAR] < 2 and goods[CATTLE] < 2:
                self._next_in_harvest()  # no pair of any type: nothing is born
                continue
            breeds = breeding_options(goods, self._majors[p], self._farms[p])
            return ([freeze(o.action()) for o in breeds], [(_M_BREED, o) for o in breeds])

    def _usable(self, p: int) -> int:
        """The mask of the free spaces ``p`` could use (ruling P1)."""
        board = self._board
        return usable_mask(board.free_mask(), self.holding(p), board)

    def _action_options(self, p: int) -> tuple[list[Key], list[tuple[Any, ...]]]:
        """The sub-decision inside a space's action (decision model item 2 and 3)."""
        h = self.holding(p)
        if self._keep:
            acts = animal_options(h.goods, h.majors, h.farm)
            return [freeze(a) for a in acts], [(_M_KEEP, a) for a in acts]
        space = self._space
        sp = self._SPACES[space]
        if self._fence_from >= 0:
            masks = pasture_masks(h, self._fence_from)
            current = self._part
            return ([_PASTURE_KEYS[m] for m in masks],
                    [(_M_PART, current, _PASTURE_ACTIONS[m]) for m in masks])
        if self._free_bake:
            bakes = bake_options(h.goods[GRAIN], h.majors)
            moves = [freeze(o.action()) for o in bakes]
            pays: list[tuple[Any, ...]] = [(_M_BAKE, o) for o in bakes]
            return [*moves, STOP_KEY], [*pays, (_M_STOP,)]
        parts = sp.parts
        board = self._board
        options = self._part_options
        moves, pays = [], []
        if sp.combine == ALL:  # every part, in order, once each
            for i, part in enumerate(parts):
                if not self._started >> i & 1:
                    acts = options(part, h, board, space, 0)
                    return [freeze(a) for a in acts], [(_M_PART, i, a) for a in acts]
            return [], []
        for i, part in enumerate(parts):
            if i == self._part:
                done = self._done
            elif self._started >> i & 1:
                continue  # an earlier part, left for another: over
            elif sp.combine == AND_THEN and i and not self._started & 1:
                continue  # the later parts come only after the first
            elif i and sp.combine not in (AND_OR, AND_THEN):
                continue
            else:
                done = 0
            for a in options(part, h, board, space, done):
                moves.append(freeze(a))
                pays.append((_M_PART, i, a))
        if moves and self._acted:
            moves.append(STOP_KEY)
            pays.append((_M_STOP,))
        return moves, pays

    # ------------------------------------------------------------------ carrying out
    def _do(self, pay: tuple[Any, ...]) -> None:
        kind = pay[0]
        p = self._cur
        if kind == _M_PLACE:
            space = pay[1]
            board = self._board
            board.occupy(space, p)
            self._home[p] -= 1
            self._clear_action()
            if space not in self._AUTOMATIC:
                self._phase = ACT
                self._space = space
                return
            # Nothing to choose: every part is carried out at once.
            before = goods = self._goods[p]
            for part in self._SPACES[space].parts:
                goods = fixed_part(part, goods, board, space, p)
            self._goods[p] = goods
            if goods[SHEEP:] != before[SHEEP:] \
                    and not self._farms[p].fits(goods[SHEEP], goods[BOAR], goods[CATTLE]):
                self._phase = ACT
                self._space = space
                self._acted = True
                self._started = (1 << len(self._SPACES[space].parts)) - 1
                self._part = len(self._SPACES[space].parts) - 1
                self._done = 1
                self._keep = True  # a market's animals need room: what to keep is asked
            else:  # the action is over (its fields were cleared above)
                self._next_placer((p + 1) % self._n)
        elif kind == _M_PART:
            self._do_part(p, pay[1], pay[2])
        elif kind == _M_STOP:
            if self._free_bake:
                self._free_bake = False
            else:
                self._clear_action()
                self._next_placer((p + 1) % self._n)
        elif kind == _M_BAKE:
            self._goods[p] = bake(self._goods[p], pay[1])
            self._free_bake = False
        elif kind == _M_KEEP:
            self._goods[p] = keep_animals(self._goods[p], self._majors[p], self._farms[p],
                                          pay[1])
            self._keep = False
        elif kind == _M_FEED:
            option: FeedOption = pay[1]
            self._goods[p] = option.goods
            self._begging[p] += option.begging
            self._next_in_harvest()
        else:  # _M_BREED
            outcome: BreedOption = pay[1]
            self._goods[p] = outcome.goods
            self._next_in_harvest()

    def _do_part(self, p: int, i: int, action: dict[str, Any]) -> None:
        if i != self._part:
            self._part = i
            self._started |= 1 << i
            self._done = 0
        part = self._SPACES[self._space].parts[i]
        typ = action["type"]
        start = self._fence_from if typ == "pasture" else None
        before = self._goods[p]
        got = apply(action, part, self.holding(p), self._board, self._space, p, self._done,
                    start, trusted=True)
        self._goods[p] = got.goods
        self._majors[p] = got.majors
        if got.born:
            self._people[p] += got.born
            self._newborns[p] += got.born
        self._acted = True
        if typ == "pasture_from":
            self._fence_from = action["cell"]
            return
        self._fence_from = -1
        self._done += 1
        if got.free_bake:
            self._free_bake = True
        g = got.goods
        if (typ == "pasture" or (typ == "take" and g[SHEEP:] != before[SHEEP:])) \
                and not self._farms[p].fits(g[SHEEP], g[BOAR], g[CATTLE]):
            self._keep = True  # animals gained, or pastures redrawn, and they do not all fit

    # ------------------------------------------------------------------ the end
    def __repr__(self) -> str:
        return (f"<AgricolaState {self._n}p round {self._board.round} "
                f"{PHASE_NAMES[self._phase]} seat {self.current_player}>")


#: The spaces whose every part is fixed (goods, the token): nothing to choose, carried out at
#: once when a person is placed.
AUTOMATIC: Final = frozenset(
    s for s, sp in enumerate(SPACES)
    if not sp.dead and sp.parts and sp.combine in (ONE, ALL)
    and all(part.kind in FIXED for part in sp.parts)
)
AgricolaState._AUTOMATIC = AUTOMATIC
_NO_GOODS: Final = (0,) * len(GOODS)
_PLACE_KEYS: Final = tuple(freeze({"type": "place", "space": s}) for s in range(len(SPACES)))
_PLACE_PAYS: Final = tuple((_M_PLACE, s) for s in range(len(SPACES)))
#: The placement keys and pays of the spaces of each byte of a mask (:func:`byte_table`).
_PLACE_KEY_BYTES: Final = byte_table(_PLACE_KEYS)
_PLACE_PAY_BYTES: Final = byte_table(_PLACE_PAYS)


def _place_options(mask: int) -> tuple[list[Key], list[tuple[Any, ...]]]:
    """The placement keys and pays of the spaces of ``mask``, by id, gathered a byte at a time
    (cheaper than listing the ids first: this runs at every placement)."""
    keys: list[Key] = []
    pays: list[tuple[Any, ...]] = []
    k = 0
    while mask:
        byte = mask & 0xFF
        if byte:
            keys += _PLACE_KEY_BYTES[k][byte]
            pays += _PLACE_PAY_BYTES[k][byte]
        mask >>= 8
        k += 1
    return keys, pays

#: The action of building each pasture shape, by mask, and its key (shared: never changed).
_PASTURE_ACTIONS: Final = {m: {"type": "pasture", "shape": cells_of(m)} for m, _, _ in SHAPES}
_PASTURE_KEYS: Final = {m: freeze(a) for m, a in _PASTURE_ACTIONS.items()}

__all__ = ["AUTOMATIC", "AgricolaState"]
