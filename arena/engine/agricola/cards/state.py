"""The state of card mode: the Family game's state with hands, played cards and the card
branches of the board (rulings C1-C8 of ``RULES.md``). Card effects hook in through
:class:`~.hooks.CardHooks` (the cards of :data:`~.effects.EFFECTS`); a card without an
effect there is played for its cost and counts its printed points.

Per seat: ``_hand_o`` and ``_hand_m`` (the occupations and minor improvements in hand,
sorted tuples), ``_occs`` and ``_minors`` (played, in the order played). ``_log`` is every
traveling minor passed on, as (card, seat that passed it) in order: public. Every field is an
immutable tuple, so a clone copies four short lists. ``_offered``: the card plays last offered
with the goods each leaves, so that the play taken is paid without listing them again.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Final

from arena.engine.agricola.board import Board, from_observation, new_board
from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.draft import Draft, DraftFlow, hands_after
from arena.engine.agricola.cards.draft_sample import sample_cards
from arena.engine.agricola.cards.effects.building import (
    BUILDING_KINDS,
    BUILDING_MASK,
    building_options,
    major_credit,
    minor_cost_after,
    usable_building,
)
from arena.engine.agricola.cards.effects.capacity import BEANFIELD, bean_sow_options
from arena.engine.agricola.cards.hands import deal, pool, sample_hands
from arena.engine.agricola.cards.hooks import CardHooks
from arena.engine.agricola.cards.play import (
    FACTS,
    PLAY_MINOR,
    PLAY_OCCUPATION,
    Seat,
    can_play_minor,
    minor_plays,
    occupation_plays,
)
from arena.engine.agricola.cards.saving import EFFECT_KEYS, effects_dict, read_effects
from arena.engine.agricola.cards.spaces import (
    BUILD_ONE_MAJOR,
    CARD_SPACES,
    LESSONS_SPACES,
    MAJOR_IMPROVEMENT,
    MOST_LESSONS_COST,
    CardBoard,
    lessons_cost,
)
from arena.engine.agricola.components import (
    ALL,
    FOOD,
    GOODS,
    MAJOR_OR_MINOR,
    MINOR_IMPROVEMENT,
    OCCUPATION,
    ONE,
    SOW,
    START_FOOD_FIRST,
    START_FOOD_OTHERS,
    START_FOOD_SOLO,
    START_PEOPLE,
    Part,
)
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.food import food_value
from arena.engine.agricola.parts import FIXED, Holding, options
from arena.engine.agricola.state_base import PHASE_NAMES, with_good
from arena.engine.agricola.usable import usable_mask
from arena.engine.api import Game
from arena.engine.chance import Chance

_tuple_new: Final = tuple.__new__  # a named tuple from its fields (faster than its call)
#: The draft options: "deal" (7 + 7 dealt), "app" (the app's draft, ``draft.py``).
DRAFTS: Final = ("deal", "app")
OCC, MINOR = "occupation", "minor"
#: The moments looked up at every step, as module names (a global is read several times
#: faster than an enum member).
ON_PLAY, SPACE_USED, COST, CAPACITY = (Moment.ON_PLAY, Moment.SPACE_USED, Moment.COST,
                                       Moment.CAPACITY)


class CardState(DraftFlow):
    """A card-mode position: create one with :func:`new_card_state`. ``_draft`` is the app's
    draft (:class:`~arena.engine.agricola.cards.draft.Draft`), None when the hands were
    dealt."""

    __slots__ = ("_hand_m", "_hand_o", "_log", "_minors", "_occs", "_offered")

    _hand_o: list[tuple[str, ...]]
    _hand_m: list[tuple[str, ...]]
    _occs: list[tuple[str, ...]]
    _minors: list[tuple[str, ...]]
    _log: tuple[tuple[str, int], ...]
    _offered: list[tuple[dict[str, Any], tuple[int, ...]]]

    _SPACES = CARD_SPACES

    def clone(self) -> CardState:
        c = super().clone()
        c._hand_o = self._hand_o[:]
        c._hand_m = self._hand_m[:]
        c._occs = self._occs[:]
        c._minors = self._minors[:]
        c._log = self._log
        c._offered = self._offered
        c._draft = self._draft
        c._index = self._index[:]
        c._listen = self._listen
        c._used_by = self._used_by
        c._pending = self._pending
        c._marks = self._marks
        c._promised = self._promised
        c._sub = ()
        c._seen = None
        c._turn = self._turn
        c._hold = self._hold
        c._guests = self._guests
        return c

    def _played(self, seat: int) -> tuple[str, ...]:
        return (*self._occs[seat], *self._minors[seat])

    # ------------------------------------------------------------------ reading a seat
    def seat_view(self, p: int) -> Seat:
        """What playing a card reads of seat ``p``."""
        return _tuple_new(Seat, (self._goods[p], self._farms[p], self._majors[p],
                                 self._people[p], p, len(self._occs[p])))

    def hands(self, seat: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``seat``'s hand: (occupations, minor improvements)."""
        return self._hand_o[seat], self._hand_m[seat]

    def played(self, seat: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``seat``'s played cards in the order played: (occupations, minor improvements)."""
        return self._occs[seat], self._minors[seat]

    def box(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The cards in no hand and not played (never dealt, or a solo traveling minor)."""
        out = []
        for kind, hands, played in ((OCC, self._hand_o, self._occs),
                                    (MINOR, self._hand_m, self._minors)):
            used = {c for h in hands for c in h} | {c for h in played for c in h}
            out.append(tuple(c for c in pool(kind, self._n) if c not in used))
        return out[0], out[1]

    def known_in_hand(self, seat: int) -> tuple[str, ...]:
        """The cards of ``seat``'s hand everyone knows: traveling minors passed to it."""
        last: dict[str, int] = {}
        for card, giver in self._log:
            last[card] = (giver + 1) % self._n
        return tuple(sorted(c for c in self._hand_m[seat] if last.get(c) == seat))

    # ------------------------------------------------------------------ the legal moves
    def _usable(self, p: int) -> int:
        usable = self._free_usable(p)
        if self._index[p].get(SPACE_USED):
            return self.placement(p, usable)
        return usable

    def _free_usable(self, p: int) -> int:
        board = self._board
        free = board.free_mask()
        usable = usable_mask(free, self.holding(p), board)
        costs = self._index[p].get(COST)
        if costs and free & BUILDING_MASK:
            usable = usable_building(self, p, usable, free)
        extra = free & ~usable & _CARD_ONLY_MASK
        if not extra:
            return usable
        hand = self._hand_o[p]
        goods = self._goods[p]
        if hand and extra & _LESSONS_MASK:
            food = goods[FOOD]
            if food >= MOST_LESSONS_COST:  # the supply pays any Lessons space at once
                usable |= extra & _LESSONS_MASK
            else:
                played = len(self._occs[p])
                value = -1  # the supply with every conversion: worked out when first needed
                for space in LESSONS_SPACES:
                    if extra >> space & 1:
                        # The supply's food pays at once; else the conversions' total decides.
                        cost = lessons_cost(space, played)
                        if food < cost and value < 0:
                            value = food_value(goods, self._majors[p])
                        if food >= cost or value >= cost:
                            usable |= 1 << space
        minors = self._hand_m[p]  # a minor of the hand playable now (the first found is enough)
        if extra >> MAJOR_IMPROVEMENT & 1 and (
                (minors and can_play_minor(minors, s := self.seat_view(p), board,
                                           self._minor_cost(p, s)))
                or (costs and any(
                    self._credit(p, m) is not None for m in board.majors()))):
            usable |= 1 << MAJOR_IMPROVEMENT
        return usable

    def _part_options(self, part: Part, h: Holding, board: Board, space: int,
                      done: int = 0) -> list[dict[str, Any]]:
        kind = part.kind
        if kind in BUILDING_KINDS and self._index[self._cur].get(COST):
            out = building_options(self, self._cur, part, h.farm, done)
            return options(part, h, board, space, done) if out is None else out
        if kind not in _CARD_KINDS:
            out = options(part, h, board, space, done)
            if kind == SOW and BEANFIELD in self._index[self._cur].get(CAPACITY, ()):
                return [*out, *bean_sow_options(self, self._cur)]
            return out
        if done:
            return []
        self._offered = self._plays(self._cur, kind, space, board)
        return [a for a, _ in self._offered]

    def _plays(self, p: int, kind: str, space: int, board: Board
               ) -> list[tuple[dict[str, Any], tuple[int, ...]]]:
        s = self.seat_view(p)
        if kind == OCCUPATION:
            return occupation_plays(self._hand_o[p], lessons_cost(space, s.occupations), s)
        plays = self._minor_plays(p, s, board)
        if kind == MAJOR_OR_MINOR:
            h = self.holding(p)
            built = (self._major_options(p, h, board, space) if self._index[p].get(COST)
                     else options(BUILD_ONE_MAJOR, h, board, space, 0))
            return [*[(a, s.goods) for a in built], *plays]
        return plays

    def _minor_plays(self, p: int, s: Seat, board: Board
                     ) -> list[tuple[dict[str, Any], tuple[int, ...]]]:
        return minor_plays(self._hand_m[p], s, board, self._minor_cost(p, s))

    def _minor_cost(self, p: int, s: Seat) -> Callable[[str], tuple[int, ...] | None] | None:
        """What a minor costs ``p`` after its cost cards (None: the printed cost)."""
        cards = self._index[p].get(COST)
        if not cards:
            return None
        farm = self._farms[p]
        return partial(minor_cost_after, cards, farm.num_rooms(), farm.material, s.people)

    def _credit(self, p: int, major: int) -> tuple[int, ...] | None:
        """What ``p``'s cost cards take off ``major``'s cost, as goods (None: forbidden)."""
        farm = self._farms[p]
        return major_credit(self._index[p].get(COST, ()), major, farm.num_rooms(), farm.material)

    def _major_options(self, p: int, h: Holding, board: Board, space: int
                       ) -> list[dict[str, Any]]:
        """The majors ``p`` may build with its cost cards: each major's options as the Family
        game lists them for goods raised by what the cards take off (listed once for the
        majors that get the same credit: most cards take off nothing)."""
        out = []
        listed: dict[tuple[int, ...], list[dict[str, Any]]] = {}
        for m in board.majors():
            credit = self._credit(p, m)
            if credit is None:
                continue
            if credit not in listed:
                more = h._replace(goods=tuple(a + b for a, b in zip(h.goods, credit,
                                                                    strict=True)))
                listed[credit] = options(BUILD_ONE_MAJOR, more, board, space, 0)
            out += [a for a in listed[credit] if a["major"] == m]
        return out

    # ------------------------------------------------------------------ carrying out
    def _do_part(self, p: int, i: int, action: dict[str, Any]) -> None:
        typ = action["type"]
        if typ == "build_major" and action["pay"] == "goods" and self._index[p].get(COST):
            credit = self._credit(p, action["major"])
            assert credit is not None
            self._goods[p] = tuple(a + b for a, b in zip(self._goods[p], credit, strict=True))
        if typ != PLAY_OCCUPATION and typ != PLAY_MINOR:
            CardHooks._do_part(self, p, i, action)  # by name: cheaper than super()
            return
        if i != self._part:
            self._part = i
            self._started |= 1 << i
            self._done = 0
        after = next((g for a, g in self._offered if a is action), None)
        if after is None:  # not one of the plays last offered (an action built elsewhere)
            kind = self._SPACES[self._space].parts[i].kind
            after = next(g for a, g in self._plays(p, kind, self._space, self._board)
                         if a == action)
        self.play(p, action["card"], after)
        self._acted = True
        self._done += 1

    def play(self, p: int, card: str, goods: tuple[int, ...]) -> None:
        """Seat ``p`` plays ``card`` from its hand, leaving it ``goods`` (its cost paid): an
        occupation or a minor goes in front of the player, a traveling minor to the left-hand
        neighbour's hand (solo: out of the game)."""
        self._goods[p] = goods
        facts = FACTS[card]
        if facts.occupation:
            self._hand_o[p] = tuple(c for c in self._hand_o[p] if c != card)
            self._occs[p] = (*self._occs[p], card)
        else:
            self._hand_m[p] = tuple(c for c in self._hand_m[p] if c != card)
            if not facts.traveling:
                self._minors[p] = (*self._minors[p], card)
            else:
                self._log = (*self._log, (card, p))
                if self._n > 1:
                    left = (p + 1) % self._n
                    self._hand_m[left] = tuple(sorted((*self._hand_m[left], card)))
        self._index_played(p, card)
        self.fire(ON_PLAY, p, card)
        self.sub_action(("occupation" if facts.occupation else "improvement", p))

    # ------------------------------------------------------------------ scoring and views
    def breakdown(self, seat: int) -> dict[str, int]:
        b = super().breakdown(seat)
        b["cards"] = sum(FACTS[c].points for c in (*self._occs[seat], *self._minors[seat])) \
            + sum(self.card_points(seat).values())
        return b

    def observation(self, seat: int) -> dict[str, Any]:
        d = super().observation(seat)
        d["cards"] = {
            "draft": self.draft_mode(),
            "hand_occupations": list(self._hand_o[seat]),
            "hand_minors": list(self._hand_m[seat]),
            "players": [self._public_cards(p) for p in range(self._n)],
            "passed": [list(e) for e in self._log],
            **effects_dict(self),
        }
        if self._draft is not None:
            d["cards"]["drafting"] = self._draft.view(seat)
        return d

    def draft_mode(self) -> str:
        """How the hands came: "deal" or "app" (drafted)."""
        return "deal" if self._draft is None else "app"

    def _public_cards(self, p: int) -> dict[str, Any]:
        return {"hand_occupations": len(self._hand_o[p]), "hand_minors": len(self._hand_m[p]),
                "known_in_hand": list(self.known_in_hand(p)),
                "occupations": list(self._occs[p]), "minors": list(self._minors[p])}

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["cards"] = {
            "draft": self.draft_mode(),
            "players": [{"hand_occupations": list(self._hand_o[p]),
                         "hand_minors": list(self._hand_m[p]),
                         "occupations": list(self._occs[p]), "minors": list(self._minors[p])}
                        for p in range(self._n)],
            "passed": [list(e) for e in self._log],
            **effects_dict(self),
        }
        if self._draft is not None:
            d["cards"]["drafting"] = self._draft.to_dict()
        return d

    def _read_extra(self, d: Mapping[str, Any]) -> None:
        cards = d["cards"]
        if cards["draft"] not in DRAFTS or len(cards["players"]) != self._n:
            raise ValueError("impossible card section")
        ps = cards["players"]
        self._hand_o = [tuple(sorted(x["hand_occupations"])) for x in ps]
        self._hand_m = [tuple(sorted(x["hand_minors"])) for x in ps]
        self._occs = [tuple(x["occupations"]) for x in ps]
        self._minors = [tuple(x["minors"]) for x in ps]
        self._log = tuple((str(c), int(p)) for c, p in cards["passed"])
        self._offered = []
        for kind, hands, played in ((OCC, self._hand_o, self._occs),
                                    (MINOR, self._hand_m, self._minors)):
            every = [c for h in (*hands, *played) for c in h]
            if len(set(every)) != len(every) or not set(every) <= set(pool(kind, self._n)):
                raise ValueError(f"a {kind} card is held twice, or is not in this game")
        self._draft = None
        if cards["draft"] == "app":
            self._draft = draft = Draft.from_dict(self._n, cards["drafting"])
            for i, (hands, played) in enumerate(((self._hand_o, self._occs),
                                                  (self._hand_m, self._minors))):
                want = hands_after([draft.drafted(i, p) for p in range(self._n)], played,
                                   self._log if i else ())
                if want != hands:
                    raise ValueError("the hands are not what the draft and the plays leave")
        read_effects(self, cards)


_CARD_KINDS: Final = frozenset({OCCUPATION, MINOR_IMPROVEMENT, MAJOR_OR_MINOR})
_LESSONS_MASK: Final = sum(1 << s for s in LESSONS_SPACES)
_CARD_ONLY_MASK: Final = sum(1 << s for s in (*LESSONS_SPACES, MAJOR_IMPROVEMENT))
CardState._AUTOMATIC = frozenset(
    s for s, sp in enumerate(CARD_SPACES)
    if not sp.dead and sp.parts and sp.combine in (ONE, ALL)
    and all(part.kind in FIXED for part in sp.parts)
)


def new_card_state(game: Game, num_players: int, chance: Chance,
                   draft: str = "deal") -> CardState:
    """A card-mode game of ``game`` at set-up: the card board, hands dealt by chance key
    (ruling C2) and round 1's preparation, or with ``draft`` "app" the draft first (rulings
    C9-C11). ``arena.engine.agricola.game.new_card_state`` passes the game."""
    if draft not in DRAFTS:
        raise ValueError(f"draft {draft!r} is not one of {DRAFTS}")
    n = num_players
    s = CardState.__new__(CardState)
    s._game = game
    s._n = n
    s._board = new_board(n, chance, CardBoard)
    first = START_FOOD_SOLO if n == 1 else START_FOOD_FIRST
    none = (0,) * len(GOODS)
    s._goods = [with_good(none, FOOD, first if p == 0 else START_FOOD_OTHERS) for p in range(n)]
    s._farms = [Farm() for _ in range(n)]
    s._majors = [()] * n
    s._people = [START_PEOPLE] * n
    s._newborns = [0] * n
    s._home = [0] * n
    s._begging = [0] * n
    s._game_options = {}  # Game.new_state gives the options it was asked for
    s._occs = [()] * n
    s._minors = [()] * n
    s._log = ()
    s._offered = []
    s._draft = None
    s._init_effects()
    s._clear_action()
    if draft == "app" and n > 1:  # solo, a draft of one is the deal (ruling C9)
        s._hand_o, s._hand_m = [()] * n, [()] * n
        s.start_draft(chance)
    else:
        s._hand_o = deal(OCC, n, chance)
        s._hand_m = deal(MINOR, n, chance)
        s._begin_round()
    s._settle()
    return s


def determinize_cards(game: Game, obs: Mapping[str, Any], rng: random.Random) -> CardState:
    """A full card-mode state consistent with observation ``obs`` (ruling C8): the board as
    the Family game samples it, and every other seat's hand drawn from the cards the seat has
    not seen. The seat to act may be in the middle of playing a card, which its hand allows:
    hands that would not offer that decision are drawn again (rejection keeps the draw
    uniform among the hands that agree with everything the seat saw)."""
    for _ in range(_TRIES):
        try:
            state = _determinize_once(game, obs, rng)
        except ValueError:  # a hand that leaves the player to act no real choice
            continue
        if state._phase == PHASE_NAMES.index(obs["phase"]) \
                and state._decision() == obs["decision"]:
            return state
    raise ValueError(f"no hands found in {_TRIES} draws that agree with the observation")


#: Draws of the hidden hands before determinizing gives up (each agrees with the observation
#: but for the decision asked; in random games nearly every first draw does).
_TRIES: Final = 1000


def _determinize_once(game: Game, obs: Mapping[str, Any], rng: random.Random) -> CardState:
    board = from_observation(obs["board"], rng, CardBoard)
    effects = {k: obs["cards"][k] for k in EFFECT_KEYS if k in obs["cards"]}
    if obs["cards"]["draft"] == "app":
        return CardState.from_data(game, {**obs, "cards": {**sample_cards(obs, rng), **effects}},
                                   board)
    seat = obs["seat"]
    n = obs["num_players"]
    cards = obs["cards"]
    ps = cards["players"]
    known = [tuple(x["known_in_hand"]) for x in ps]
    passed = {c for c, _ in cards["passed"]}
    full = []
    for kind, field, played in ((OCC, "hand_occupations", "occupations"),
                                (MINOR, "hand_minors", "minors")):
        own = tuple(sorted(cards[field]))
        visible = {*own, *passed, *(c for x in ps for c in x[played]),
                   *(c for k in known for c in k)}
        sizes = [x[field] for x in ps]
        full.append(sample_hands(kind, n, seat, own, sizes,
                                 known if kind == MINOR else [()] * n, visible, rng))
    data = dict(obs)
    data["cards"] = {
        "draft": cards["draft"],
        "players": [{"hand_occupations": list(full[0][p]), "hand_minors": list(full[1][p]),
                     "occupations": ps[p]["occupations"], "minors": ps[p]["minors"]}
                    for p in range(n)],
        "passed": cards["passed"],
        **effects,
    }
    return CardState.from_data(game, data, board)


__all__ = ["DRAFTS", "CardState", "determinize_cards", "new_card_state"]
