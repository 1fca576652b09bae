"""The card effects' side of card mode's state: where the effects of played cards hook into
the flow of play (:mod:`.effects.base` says what an effect is).

:class:`CardHooks` adds to the Family state, and only card mode's state inherits it (the
Family game does no work for cards):

- ``_index``: per seat, moment -> the played cards whose effect has an event or a rule at that
  moment, in the order played. Built when a state is read, and a played card's moments listed
  again when it is played; shared by clones (immutable). Dispatch at a moment looks at nothing
  else. ``_listen``: the same for every seat at once, moment -> (seat, card) in seat order,
  for the moments every seat's cards hear at each step (:data:`.effects.EVERY_SEAT`), so that
  a moment no played card listens to costs one lookup (the placements' SPACE_USED, the
  sub-actions, Claypipe's watch); ``_used_by``: per user seat, the SPACE_USED events in firing
  order (:func:`.effects.listeners`).
- ``_pending``: the card decisions waiting, first asked first (:class:`Pending`). While one
  waits it is the decision: its seat is the current player and its legal actions are the
  effect's ``ask``; the decision under it (``_phase``, ``_cur``) resumes afterwards.
- ``_marks``: what lies on cards, card id -> ints (goods, counters, a round); replaced, never
  changed in place, so clones share it.
- ``_promised``: goods on future round spaces, (round, seat, good, amount) sorted; taken at
  the start of that round, before the round-start effects (the Well's food stays the
  board's).
- ``_turn``: (space, seat) of the turn under way, from the placement until its end-of-turn
  events have fired; ``_hold``: the seat from which placing resumes once the decisions that
  turn left are taken (-1: none; a turn's decisions come before the next person is placed);
  ``_guests``: (space, seat) of people standing on a space another player holds (Sleeping
  Corner), home at the end of the round.

A space used fires SPACE_USED for every seat's cards (the user first, then clockwise) twice:
when the person is placed (``state._use`` is (space, user, AT_USE)) and when that turn ends
(``AT_END``); each effect reads whether the use, the user and the time are its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Final

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects import (
    EFFECTS,
    HEARD_BY_EVERY_SEAT,
    INDEXED_AT,
    PLACEMENT,
    UsedBy,
    listeners,
)
from arena.engine.agricola.cards.effects.base import AT_END, AT_USE, Goods, Pending, Thing
from arena.engine.agricola.cards.effects.building import (
    all_costs,
    fence_budget,
    one_cost,
    paid_part,
    pays_fences,
)
from arena.engine.agricola.cards.effects.capacity import (
    BEANFIELD,
    CardFarm,
    bean_crop,
    bean_harvest,
    bean_sow,
)
from arena.engine.agricola.cards.effects.harvest import count_resources
from arena.engine.agricola.cards.effects.scoring import card_points
from arena.engine.agricola.cards.spaces import LESSONS_SPACES
from arena.engine.agricola.components import BOAR, CATTLE, GOODS, NUM_ROUNDS, SHEEP
from arena.engine.agricola.parts import animal_options, keep_animals
from arena.engine.agricola.scoring import ScoreInput
from arena.engine.agricola.state import (
    _M_BAKE,
    _M_PART,
    _M_PLACE,
    _M_STOP,
    _PASTURE_ACTIONS,
    _PASTURE_KEYS,
    AgricolaState,
)
from arena.engine.agricola.state_base import ACT, DRAFT, OVER, PLACE, STOP_KEY, Key, freeze

#: The pay of a card decision's action (beside the Family state's kinds 0-6), and of an
#: any-time conversion (the decision it is offered beside stays open).
M_CARD: Final = 9
M_ANY: Final = 10
#: The pay of a pick of the app's draft (:class:`~.draft.DraftFlow`).
M_DRAFT: Final = 11
#: The sub-actions whose cost cards may change what they cost.
_PAID: Final = frozenset({"build_room", "renovate", "pasture"})
#: The moments looked up at every step, as module names (a global is read several times
#: faster than an enum member).
ON_PLAY, SPACE_USED, SUB_ACTION, ROUND_START = (Moment.ON_PLAY, Moment.SPACE_USED,
                                               Moment.SUB_ACTION, Moment.ROUND_START)
RETURN_HOME, FIELD_PHASE = Moment.RETURN_HOME, Moment.FIELD_PHASE
COST, CAPACITY, SCORING, ANYTIME = Moment.COST, Moment.CAPACITY, Moment.SCORING, Moment.ANYTIME
NO_INDEX: Final[Mapping[Moment, tuple[str, ...]]] = {}
NO_LISTEN: Final[Mapping[Moment, tuple[tuple[int, str], ...]]] = {}


class CardHooks(AgricolaState):
    """Card mode's state below the hands: the effects' index, decisions, marks and promises.
    Its methods run at every step call the Family state's by name (cheaper than super())."""

    __slots__ = ("_guests", "_hold", "_index", "_listen", "_marks", "_pending", "_promised",
                 "_seen", "_sub", "_turn", "_use", "_used_by")

    _index: list[Mapping[Moment, tuple[str, ...]]]
    _listen: Mapping[Moment, tuple[tuple[int, str], ...]]
    _used_by: UsedBy
    _pending: tuple[Pending, ...]
    _marks: Mapping[str, tuple[int, ...]]
    _promised: tuple[tuple[int, int, int, int], ...]
    _sub: tuple[Any, ...]  # the sub-action SUB_ACTION is fired for (only while it fires)
    _seen: dict[int, Goods] | None  # Claypipe owners' goods before the action being done
    _turn: tuple[int, ...]
    _hold: int
    _guests: tuple[tuple[int, int], ...]
    _use: tuple[int, int, int]
    # The app draft's picks (phase DRAFT) and taking one: :class:`~.draft.DraftFlow`'s.
    _draft_options: Callable[[], tuple[list[Key], list[tuple[Any, ...]]]]
    _draft_do: Callable[[tuple[Any, ...]], None]

    def _played(self, seat: int) -> tuple[str, ...]:
        """``seat``'s played cards (occupations, then minors), each in the order played."""
        raise NotImplementedError

    def played(self, seat: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        raise NotImplementedError

    def hands(self, seat: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        raise NotImplementedError


    def _init_effects(self) -> None:
        self._pending = ()
        self._marks = {}
        self._promised = ()
        self._index = [NO_INDEX] * self._n
        self._listen = NO_LISTEN
        self._used_by = ((),) * self._n
        self._sub = ()
        self._seen = None
        self._turn = ()
        self._hold = -1
        self._guests = ()

    def _reindex(self, seat: int) -> None:
        index: dict[Moment, tuple[str, ...]] = {}
        for c in self._played(seat):
            for m in INDEXED_AT.get(c, ()):
                index[m] = (*index.get(m, ()), c)
        self._index[seat] = index
        self._listen, self._used_by = listeners(self._index)
        self._refarm(seat)

    def _index_played(self, seat: int, card: str) -> None:
        """:meth:`_reindex` after ``seat`` played ``card``: only the moments of its effect
        list other cards than before, ``card`` put among them where it is among the played
        cards (last, but for an occupation played after minors: before those)."""
        moments = INDEXED_AT.get(card, ())
        played = self._played(seat)
        if not moments or card not in played:  # a traveling minor is passed on, not played
            return
        index = dict(self._index[seat])
        if played[-1] == card:
            for m in moments:
                index[m] = (*index.get(m, ()), card)
        else:
            before = played[:played.index(card)]
            for m in moments:
                listed = index.get(m, ())
                index[m] = (*(c for c in listed if c in before), card,
                            *(c for c in listed if c not in before))
        self._index[seat] = index
        if card in HEARD_BY_EVERY_SEAT:
            self._listen, self._used_by = listeners(self._index)
        if CAPACITY in moments:
            self._refarm(seat)

    def _refarm(self, seat: int) -> None:
        """``seat``'s farm with the capacity rules of its cards (a plain farm when none)."""
        caps = self._index[seat].get(CAPACITY, ())
        farm = self._farms[seat]
        if caps or isinstance(farm, CardFarm):
            self._farms[seat] = CardFarm.of(farm, (EFFECTS[c].capacity or {} for c in caps))

    def hooked(self, seat: int, moment: Moment) -> tuple[str, ...]:
        """The cards of ``seat`` with an effect at ``moment``, in the order played."""
        return self._index[seat].get(moment, ())

    # ------------------------------------------------------------------ the card API
    @property
    def current_player(self) -> int | None:
        if self._pending:
            return self._pending[0].seat
        return None if self._phase == OVER else self._cur

    def ask(self, pending: Pending, first: bool = False) -> None:
        """Wait for the decision ``pending`` (after those waiting; ``first``: before them)."""
        self._pending = (pending, *self._pending) if first else (*self._pending, pending)

    def mark(self, card: str) -> tuple[int, ...]:
        """What lies on ``card`` (() when nothing)."""
        return self._marks.get(card, ())

    def set_mark(self, card: str, value: tuple[int, ...]) -> None:
        marks = dict(self._marks)
        if value:
            marks[card] = value
        else:
            marks.pop(card, None)
        self._marks = marks

    def gain(self, seat: int, row: Goods) -> None:
        """Add the goods row ``row`` (negative amounts pay) to ``seat``'s supply. Animals that
        do not fit are asked about: inside the seat's own action as the Family game asks,
        otherwise as a decision of their own, before any other waiting."""
        g = tuple(a + b for a, b in zip(self._goods[seat], row, strict=True))
        if min(g) < 0:
            raise ValueError(f"seat {seat} cannot pay {row}")
        self._goods[seat] = g
        if (row[SHEEP] > 0 or row[BOAR] > 0 or row[CATTLE] > 0) \
                and not self._farms[seat].fits(g[SHEEP], g[BOAR], g[CATTLE]):
            if self._phase == ACT and seat == self._cur and not self._pending:
                self._keep = True
            else:
                self.ask(Pending(seat, "", "keep"), first=True)

    def promise(self, seat: int, good: int, rounds: list[int] | range, amount: int = 1) -> None:
        """Put ``amount`` of ``good`` for ``seat`` on each of ``rounds`` still to come (later
        rounds than the current one, up to the last)."""
        add = [(r, seat, good, amount) for r in rounds if self._board.round < r <= NUM_ROUNDS]
        if add:
            self._promised = tuple(sorted((*self._promised, *add)))

    def cost(self, seat: int, thing: Thing, base: Goods) -> Goods | None:
        """What ``thing`` costs ``seat`` after its cards' cost rules (None: not allowed)."""
        return one_cost(self, seat, thing, base)

    def costs(self, seat: int, thing: Thing, base: Goods) -> list[Goods]:
        """Every way ``seat`` may pay for ``thing`` after its cards' cost rules
        (:func:`.effects.building.all_costs`)."""
        return all_costs(self, seat, thing, base)

    def card_points(self, seat: int) -> dict[str, int]:
        """The bonus points each played card gives ``seat`` (any owner's), cards giving none
        left out (:func:`.effects.scoring.card_points`)."""
        return card_points(self, seat)

    # ------------------------------------------------------------------ dispatch
    def fire(self, moment: Moment, seat: int, card: str | None = None) -> None:
        """Run ``moment``'s events of ``seat``'s cards (only ``card``'s, if given)."""
        for c in (card,) if card is not None else self._index[seat].get(moment, ()):
            event = EFFECTS[c].events.get(moment) if c in EFFECTS else None
            if event is not None:
                event(self, seat, c)

    def used(self, space: int, user: int, when: int) -> None:
        """Fire SPACE_USED for ``user``'s use of ``space`` at ``when`` (AT_USE or AT_END): every
        seat's cards, the user's first, then clockwise (those acting on ``space``)."""
        for seat, c, event, spaces in self._used_by[user]:
            if spaces is None or space in spaces:
                self._use = (space, user, when)
                event(self, seat, c)

    def placement(self, seat: int, usable: int) -> int:
        """The spaces ``seat`` may place a person on, after its cards' placement rules."""
        for c in self._index[seat].get(SPACE_USED, ()):
            rule = PLACEMENT.get(c)
            if rule is not None:
                usable = rule(self, seat, usable)
        return usable

    def _end_turn(self) -> bool:
        """The turn under way ends: its end-of-turn events fire once the decisions of its use
        are taken. True while decisions wait (placing the next person is held)."""
        if self._pending:
            return True
        if self._turn:
            space, user = self._turn
            self._turn = ()
            if self._used_by[user]:
                self.used(space, user, AT_END)
        return bool(self._pending)

    def _next_placer(self, start: int) -> None:
        if self._turn and self._end_turn():
            self._hold = start
            return
        AgricolaState._next_placer(self, start)

    def _action_options(self, p: int) -> tuple[list[Key], list[tuple[Any, ...]]]:
        if self._fence_from >= 0 and not self._keep and pays_fences(self, p):
            masks = self._farms[p].pastures_from(self._fence_from, fence_budget(self, p))
            moves: list[Key] = [_PASTURE_KEYS[m] for m in masks]
            pays: list[tuple[Any, ...]] = [(_M_PART, self._part, _PASTURE_ACTIONS[m])
                                           for m in masks]
        else:
            moves, pays = AgricolaState._action_options(self, p)
        if moves or not self._turn or not self._end_turn():
            return moves, pays
        # The action is over and its end-of-turn decisions wait: they come first, then the
        # next person is placed.
        self._clear_action()
        self._hold = (p + 1) % self._n
        return [STOP_KEY], [(_M_STOP,)]

    def _begin_round(self) -> None:
        self._guests = ()
        super()._begin_round()
        rnd = self._board.round
        if self._promised and self._promised[0][0] == rnd:
            now = [x for x in self._promised if x[0] == rnd]
            self._promised = self._promised[len(now):]
            for _, seat, good, amount in now:
                row = [0] * len(GOODS)
                row[good] = amount
                self.gain(seat, tuple(row))
        n, start = self._n, self._board.start_player
        for i in range(n):
            seat = (start + i) % n
            if self._index[seat].get(ROUND_START):
                self.fire(ROUND_START, seat)

    def sub_action(self, sub: tuple[Any, ...]) -> None:
        """Fire SUB_ACTION for every seat's cards after the sub-action ``sub`` = (what, seat
        who did it, *numbers) (:mod:`.effects.sub_action`), the doer's cards first."""
        if SUB_ACTION not in self._listen:
            return
        n, doer = self._n, sub[1]
        self._sub = sub
        for i in range(n):
            p = (doer + i) % n
            if self._index[p].get(SUB_ACTION):
                self.fire(SUB_ACTION, p)
        self._sub = ()

    def _end_work(self) -> None:
        """Everyone is home: the returning-home clauses of every seat, then on a harvest round
        the field-phase clauses (before the fields are harvested), then the Family flow."""
        self._count_resources()
        n, start = self._n, self._board.start_player
        order = [(start + i) % n for i in range(n)]
        for p in order:
            if self._index[p].get(RETURN_HOME):
                self.fire(RETURN_HOME, p)
        if self._board.harvest_due():
            for p in order:
                if self._index[p].get(FIELD_PHASE):
                    self.fire(FIELD_PHASE, p)
                if BEANFIELD in self._index[p].get(CAPACITY, ()):
                    bean_harvest(self, p)
        super()._end_work()

    def _count_resources(self) -> None:
        """Claypipe: the building resources its owners gained since the action began."""
        seen, self._seen = self._seen, None
        if seen:
            for p, before in seen.items():
                count_resources(self, p, before)

    def _do_part(self, p: int, i: int, action: dict[str, Any]) -> None:
        if action.get("card") == BEANFIELD:  # sowing the field on the card
            if i != self._part:
                self._part = i
                self._started |= 1 << i
                self._done = 0
            bean_sow(self, p)
            self._acted = True
            self._done += 1
            return
        typ = action["type"]
        farm = self._farms[p]
        material, pastured = farm.material, farm.pastured()
        first = i != self._part or self._done == 0
        if typ in _PAID and self._index[p].get(COST):
            paid_part(self, p, action, lambda: super(CardHooks, self)._do_part(p, i, action))
        else:
            AgricolaState._do_part(self, p, i, action)
        if SUB_ACTION not in self._listen:  # no card hears sub-actions: none is made up
            return
        if typ == "build_room":
            self.sub_action(("rooms", p, material, int(first)))
        elif typ == "renovate":
            self.sub_action(("renovate", p, material, self._farms[p].material))
        elif typ == "build_major":
            self.sub_action(("improvement", p))
        elif typ == "family_growth":
            self.sub_action(("growth", p, 1))
        elif typ == "pasture":
            mask = sum(1 << c for c in action["shape"])
            self.sub_action(("pasture", p, len(action["shape"]), int(not mask & pastured)))
        elif typ == "bake":
            self.sub_action(("bake", p))

    def score_input(self, seat: int) -> ScoreInput:
        si = super().score_input(seat)
        veg = bean_crop(self, seat)
        return dataclasses.replace(si, vegetables=si.vegetables + veg) if veg else si

    # ------------------------------------------------------------------ decisions
    def _options(self) -> tuple[list[Key], list[tuple[Any, ...]]]:
        if self._phase == DRAFT:
            return self._draft_options()
        while True:
            pending = self._pending
            if pending:
                acts = self._pending_actions(pending[0])
                if acts:
                    moves: list[Key] = [freeze(a) for a in acts]
                    pays: list[tuple[Any, ...]] = [(M_CARD, a) for a in acts]
                    break
                self._pending = pending[1:]  # nothing left to decide
                continue
            if self._hold >= 0:  # the turn's decisions are taken: the next person is placed
                start, self._hold = self._hold, -1
                self._next_placer(start)
                continue
            moves, pays = AgricolaState._options(self)
            if not self._pending:  # else a round began in between and asks first
                break
        if not moves:  # the game is over
            return moves, pays
        seat = self._pending[0].seat if self._pending else self._cur  # the player to decide
        for card in self._index[seat].get(ANYTIME, ()):
            anytime = EFFECTS[card].anytime
            assert anytime is not None
            for a in anytime(self, seat, card):
                moves = [*moves, freeze(a)]
                pays = [*pays, (M_ANY, card, a)]
        return moves, pays

    def _pending_actions(self, pd: Pending) -> list[dict[str, Any]]:
        if not pd.card:
            g = self._goods[pd.seat]
            return animal_options(g, self._majors[pd.seat], self._farms[pd.seat])
        ask = EFFECTS[pd.card].ask
        assert ask is not None
        return ask(self, pd)

    def _do(self, pay: tuple[Any, ...]) -> None:
        kind = pay[0]
        if kind == M_DRAFT:
            self._draft_do(pay)
            return
        if kind == M_ANY:
            seat = self.current_player
            assert seat is not None
            answer = EFFECTS[pay[1]].answer
            assert answer is not None
            answer(self, Pending(seat, pay[1], "anytime"), pay[2])
            return
        if RETURN_HOME in self._listen and (self._phase == PLACE or self._phase == ACT):
            watch = [p for p, c in self._listen[RETURN_HOME] if c == "A053"]
            self._seen = {p: self._goods[p] for p in watch} if watch else None
        if kind != M_CARD:
            p = self._cur
            if kind == _M_PLACE:
                space = pay[1]
                self._turn = (space, p)
                if self._used_by[p]:  # else no card hears a use of a space
                    self.used(space, p, AT_USE)
                if not self._board.is_free(space):  # a second person on a held space
                    self._home[p] -= 1
                    self._clear_action()
                    self._phase = ACT
                    self._space = space
                    self._guests = (*self._guests, (space, p))
                    self._count_resources()
                    return
            AgricolaState._do(self, pay)
            if kind == _M_PLACE and pay[1] in LESSONS_SPACES:
                self.sub_action(("lessons", p))
            elif kind == _M_BAKE:
                self.sub_action(("bake", p))
        else:
            self._do_card(pay)
        if self._seen:  # else nothing to count (Claypipe's watch is off)
            self._count_resources()

    def _do_card(self, pay: tuple[Any, ...]) -> None:
        pd, action = self._pending[0], pay[1]
        self._pending = self._pending[1:]
        if not pd.card:
            s = pd.seat
            self._goods[s] = keep_animals(self._goods[s], self._majors[s], self._farms[s],
                                          action)
            return
        answer = EFFECTS[pd.card].answer
        assert answer is not None
        answer(self, pd, action)

    # ------------------------------------------------------------------ saving
    @classmethod
    def _keeping(cls, d: Mapping[str, Any]) -> set[int]:
        return {int(x[0]) for x in d.get("cards", {}).get("pending", ()) if not x[1]}


__all__ = ["M_CARD", "CardHooks"]
