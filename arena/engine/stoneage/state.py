"""The Stone Age game state: the rule areas combined, the round's flow, and the contract.

A round runs: placement (from the start player, clockwise, one place per turn) -> resolution
(each player in seat order resolves all of their places, in the order they choose) -> feeding
-> end of round (game end checks, start player moves, display slides and refills). Each rule
area is a mixin in its own module (``placement``, ``resolution``, ``feeding``, ``scoring``,
``views``, ``save``) over the fields declared in ``fields``. A decision with exactly one legal
action is applied at once, so a player is only ever asked when there is a real choice.
See ``RULES.md`` beside this file for the rules and the rulings.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from arena.engine.api import Game
from arena.engine.chance import Chance
from arena.engine.stoneage.components import (
    BUILDINGS,
    CARD0,
    CARDS,
    DIVISOR,
    NUM_PLACES,
    PILE0,
    PILE_SIZE,
    START_FOOD,
    START_PEOPLE,
    TOOL_VALUES,
)
from arena.engine.stoneage.dice import BUILDING_SHUFFLE, DECK_SHUFFLE
from arena.engine.stoneage.feeding import FeedingRules
from arena.engine.stoneage.moves import (
    CLAIM,
    DECLINE,
    FEED,
    KEY_FORMS,
    NO_TOOLS_KEY,
    PAY,
    PENALTY,
    PICK,
    PICK_KEYS,
    PLACE_KEYS_END,
    RESOLVE_KEYS_END,
    TOOLS,
    action_of_key,
    actions_of,
    copy_action,
    known_action,
    resolve_keys,
)
from arena.engine.stoneage.payments import BUILDING_TABLE0
from arena.engine.stoneage.phases import (
    MAX_ROUNDS,
    OVER,
    PD_BUILDING,
    PD_CARD,
    PD_PICK,
    PD_TOOLS,
    PHASE_NAMES,
    PLACEMENT,
    Key,
)
from arena.engine.stoneage.placement import PlacementRules
from arena.engine.stoneage.resolution import ResolutionRules, remove_values, tool_options
from arena.engine.stoneage.save import SaveFormat
from arena.engine.stoneage.scoring import Scoring
from arena.engine.stoneage.views import ObservationView

__all__ = ["MAX_ROUNDS", "PHASE_NAMES", "StoneAgeState", "tool_options"]


class StoneAgeState(
    PlacementRules, ResolutionRules, FeedingRules, Scoring, ObservationView, SaveFormat
):
    """A Stone Age position. Create one with ``STONE_AGE.new_state(players, seed=...)``."""

    __slots__ = ()

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, game: Game, n: int, chance: Chance) -> StoneAgeState:
        s = cls.__new__(cls)
        s._game = game
        s._n = n
        s._chance = chance
        deck_order = chance.permutation(DECK_SHUFFLE, len(CARDS))
        build_order = chance.permutation(BUILDING_SHUFFLE, len(BUILDINGS))
        s._deck = tuple(deck_order)
        s._display = [s._deck[i] for i in range(4)]  # index 0 = slot costing 1
        s._deck_pos = 4
        s._piles = tuple(
            tuple(build_order[j * PILE_SIZE : (j + 1) * PILE_SIZE]) for j in range(n)
        )
        s._pile_pos = [0] * n
        s._goods = [START_FOOD, 0, 0, 0, 0] * n
        s._people = [START_PEOPLE] * n
        s._agri = [0] * n
        s._step = [0] * n
        s._tfree = [()] * n
        s._one_use = [()] * n
        s._any2 = [0] * n
        s._build_pts = [0] * n
        s._top_pts = [0] * n
        s._penalties = [0] * n
        s._nbuild = [0] * n
        s._cards = [()] * n
        s._hidden = [()] * n
        s._round = 1
        s._start = 0
        s._begin_round()
        s._settle()
        return s

    # ------------------------------------------------------------------ State contract
    @property
    def current_player(self) -> int | None:
        return None if self._phase == OVER else self._cur

    @property
    def is_terminal(self) -> bool:
        return self._phase == OVER

    @property
    def round(self) -> int:
        """The current round (1-based); the last round played once the game is over."""
        return self._round

    @property
    def progress(self) -> int:
        """The round, as :attr:`round` gives it."""
        return self._round

    def legal_keys(self) -> list[Key]:
        return self._moves

    def action_of(self, key: Hashable) -> dict[str, Any]:
        return action_of_key(key)  # type: ignore[arg-type]

    def legal_actions(self) -> list[dict[str, Any]]:
        moves = self._moves
        if moves and moves[0] != NO_TOOLS_KEY:  # actions_of's path where every key is known
            try:
                return list(map(copy_action, map(known_action, moves)))
            except KeyError:
                pass
        return actions_of(moves)

    def num_legal(self) -> int:
        return len(self._moves)

    def _apply_key(self, key: Hashable) -> None:
        self._do(key)  # type: ignore[arg-type]
        self._settle()

    def apply_index(self, index: int) -> None:
        moves = self._moves
        if type(index) is not int or not 0 <= index < len(moves):
            super().apply_index(index)  # raises IllegalActionError with the message
        key = moves[index]
        if key < PLACE_KEYS_END:  # _do's first case, without its call
            self._place(self._cur, key)
        else:
            self._do(key)
        while len(self._moves) == 1:  # _settle, spelled out on the hottest path
            self._do(self._moves[0])

    def clone(self) -> StoneAgeState:
        c = StoneAgeState.__new__(StoneAgeState)
        c._game = self._game
        c._n = self._n
        c._chance = self._chance
        c._round = self._round
        c._start = self._start
        c._phase = self._phase
        c._cur = self._cur
        c._turn = self._turn
        c._pend = self._pend
        c._moves = self._moves  # never mutated in place, only replaced
        c._deck = self._deck
        c._deck_pos = self._deck_pos
        c._display = self._display[:]
        c._piles = self._piles
        c._pile_pos = self._pile_pos[:]
        c._goods = self._goods[:]
        c._people = self._people[:]
        c._avail = self._avail[:]
        c._agri = self._agri[:]
        c._step = self._step[:]
        c._tfree = self._tfree[:]
        c._one_use = self._one_use[:]
        c._any2 = self._any2[:]
        c._build_pts = self._build_pts[:]
        c._top_pts = self._top_pts[:]
        c._penalties = self._penalties[:]
        c._nbuild = self._nbuild[:]
        c._cards = self._cards[:]
        c._hidden = self._hidden[:]
        c._placed = self._placed[:]
        c._where = self._where[:]
        c._total = self._total[:]
        c._open_buys = self._open_buys
        c._players_at = self._players_at[:]
        c._rolls = self._rolls[:]
        return c

    # ------------------------------------------------------------------ flow
    def _settle(self) -> None:
        """Apply decisions that have exactly one legal action until a real choice remains."""
        while len(self._moves) == 1:
            self._do(self._moves[0])

    def _begin_round(self) -> None:
        n = self._n
        self._phase = PLACEMENT
        self._pend = None
        self._turn = 0
        self._placed = [0] * (NUM_PLACES * n)
        self._where = [0] * n
        self._total = [0] * NUM_PLACES
        self._players_at = [0] * NUM_PLACES
        self._avail = self._people[:]
        self._rolls = [0] * n
        self._tfree = [TOOL_VALUES[st] for st in self._step]
        self._open_buys = self._open_buy_places()
        self._next_placer(self._start)

    def _end_round(self) -> None:
        n = self._n
        if any(self._pile_pos[j] >= PILE_SIZE for j in range(n)) or self._round >= MAX_ROUNDS:
            self._finish()
            return
        self._start = (self._start + 1) % n
        # Slide the remaining cards to the cheap end, then refill from the deck.
        left = [c for c in self._display if c >= 0]
        need = 4 - len(left)
        if len(self._deck) - self._deck_pos < need:
            self._finish()
            return
        left.extend(self._deck[self._deck_pos : self._deck_pos + need])
        self._deck_pos += need
        self._display = left
        self._round += 1
        self._begin_round()

    def _finish(self) -> None:
        self._phase = OVER
        self._cur = -1
        self._pend = None
        self._moves = []

    def _pending_options(self) -> list[Key]:
        """Regenerate the legal keys of the current decision (after a claim, or a load)."""
        phase = self._phase
        p = self._cur
        if phase == OVER:
            return []
        if phase == PLACEMENT:
            return self._placements(p)
        pend = self._pend
        if pend is None:
            return resolve_keys(self._where[p])
        kind = pend[0]
        if kind == PD_TOOLS:
            return tool_options(sum(pend[2]), DIVISOR[pend[1]], self._tfree[p], self._one_use[p])
        if kind == PD_CARD:
            return self._payments(p, pend[1] - CARD0 + 1)
        if kind == PD_BUILDING:
            j = pend[1] - PILE0
            return self._payments(p, BUILDING_TABLE0 + self._piles[j][self._pile_pos[j]])
        if kind == PD_PICK:
            return [PICK_KEYS[f] for f in sorted(set(pend[1]))]
        return self._feed_options(p, pend[1])

    # ------------------------------------------------------------------ apply
    def _do(self, key: Key) -> None:
        p = self._cur
        if key < PLACE_KEYS_END:
            self._place(p, key)
            return
        if key < RESOLVE_KEYS_END:  # the resolve keys follow the placements', in place order
            self._resolve(p, key - PLACE_KEYS_END)
            return
        form = KEY_FORMS[key]
        op = form[0]
        if op == TOOLS:
            _, good, dice, _place = self._pend
            used, used_once = form[1], form[2]
            added = 0
            if used:
                self._tfree[p] = remove_values(self._tfree[p], used)
                added += sum(used)
            if used_once:
                self._one_use[p] = remove_values(self._one_use[p], used_once)
                added += sum(used_once)
            self._goods[p * 5 + good] += (sum(dice) + added) // DIVISOR[good]
            self._continue(p)
        elif op == PAY:
            self._pay(p, form[1])
        elif op == DECLINE:
            self._continue(p)
        elif op == CLAIM:
            self._any2[p] -= 1
            self._gain(p, form[1])
            self._moves = self._pending_options()
        elif op == FEED:
            self._spend(p, form[1])
            self._turn += 1
            self._next_feeder()
        elif op == PENALTY:
            self._penalties[p] += 1
            self._turn += 1
            self._next_feeder()
        elif op == PICK:
            self._pick(p, form[1])
        else:  # pragma: no cover - keys only come from the engine's own lists
            raise ValueError(f"unknown action key {key!r}")

    def __repr__(self) -> str:
        return (
            f"<StoneAgeState {self._n}p round {self._round} {PHASE_NAMES[self._phase]} "
            f"seat {self.current_player}>"
        )
