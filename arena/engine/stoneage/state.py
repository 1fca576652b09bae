"""The Stone Age game state and its rules.

The state is a flat set of small lists indexed by seat (and by ``seat * 16 + place`` for the
people on the board), plus tuples for what rarely changes (cards owned, the deck, the building
piles), which a clone shares instead of copying. Every decision point stores its legal action
keys in ``_moves``; a decision with exactly one legal action is applied at once, so a player is
only ever asked when there is a real choice.

A round runs: placement (from the start player, clockwise, one place per turn) -> resolution
(each player in seat order resolves all of their places, in the order they choose) -> feeding
-> end of round (game end checks, start player moves, display slides and refills).
See ``RULES.md`` beside this file for the rules and the rulings.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from itertools import combinations
from typing import TYPE_CHECKING, Any

from arena.engine.api import GameResult, State, competition_ranks
from arena.engine.chance import Chance
from arena.engine.stoneage.components import (
    B_FIXED,
    BUILDING_PAYMENTS,
    BUILDINGS,
    CARD0,
    CARDS,
    CLAIMS,
    COMPOSITIONS,
    DIE_FACE_GOOD,
    DIVISOR,
    FARMER,
    FEEDING_PENALTY,
    FIELD,
    FOOD,
    HUNT,
    HUT,
    HUT_BUILDER,
    MAX_AGRICULTURE,
    MAX_PEOPLE,
    MAX_TOOL_STEP,
    NUM_PLACES,
    PILE0,
    PILE_SIZE,
    RESOURCE_PLACE_CAPACITY,
    SHAMAN,
    START_FOOD,
    START_PEOPLE,
    SYMBOLS,
    T_AGRICULTURE,
    T_ANY_TWO,
    T_DICE_ALL,
    T_EXTRA_CARD,
    T_FOOD,
    T_ONE_USE_TOOL,
    T_POINTS,
    T_RESOURCE,
    T_ROLL,
    T_TOOL,
    TOOL_MAKER,
    TOOL_MAKER_FIG,
    TOOL_VALUES,
    payment_points,
)
from arena.engine.stoneage.dice import BUILDING_SHUFFLE, DECK_SHUFFLE, roll
from arena.engine.stoneage.moves import (
    CLAIM,
    DECLINE,
    DECLINE_KEY,
    FEED,
    PAY,
    PENALTY,
    PENALTY_KEY,
    PICK,
    PICK_KEYS,
    PLACE,
    PLACE_KEYS,
    RESOLVE,
    RESOLVE_KEYS,
    TOOLS,
    key_to_action,
)

if TYPE_CHECKING:
    from arena.engine.stoneage.game import StoneAgeGame

# Phases.
PLACEMENT, RESOLUTION, FEEDING, OVER = range(4)
PHASE_NAMES = ("placement", "resolution", "feeding", "game_over")

# Pending sub-decisions during resolution (``_pend[0]``); ``None`` means "choose a place".
PD_TOOLS = "use_tools"  # (PD_TOOLS, good, dice, place or -1 for a card's two dice)
PD_CARD = "buy_card"  # (PD_CARD, place)
PD_BUILDING = "buy_building"  # (PD_BUILDING, place)
PD_PICK = "pick_die"  # (PD_PICK, dice left, pickers left, buyer)
PD_FEED = "feed"  # (PD_FEED, deficit)

#: The game ends after this round even if neither end condition has been met (see RULES.md).
MAX_ROUNDS = 100

Key = tuple[Any, ...]
Pay = tuple[int, int, int, int]

_TOOL_CACHE: dict[tuple[int, int, tuple[int, ...], tuple[int, ...]], list[Key]] = {}


def _sub_multisets(values: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Distinct sub-multisets of a sorted tuple (as sorted tuples), smallest first."""
    seen: dict[tuple[int, ...], None] = {}
    for r in range(len(values) + 1):
        for combo in combinations(values, r):
            seen.setdefault(combo, None)
    return list(seen)


def tool_options(total: int, divisor: int, tools: tuple[int, ...], one_use: tuple[int, ...]
                 ) -> list[Key]:
    """The tool choices worth offering for a roll of ``total`` gathered at ``divisor``.

    Always "no tools", plus every distinct choice of unused permanent tools and one-use tools
    that is *minimal*: dropping any one tool from it would lower the yield. A choice that adds
    value without changing the yield, or a larger set with the same yield as one of its
    subsets, is never better for the player and is left out (RULES.md, ruling T1).
    """
    ck = (total, divisor, tools, one_use)
    got = _TOOL_CACHE.get(ck)
    if got is not None:
        return got
    options: list[Key] = [(TOOLS, (), ())]
    for a in _sub_multisets(tools):
        for b in _sub_multisets(one_use):
            if not a and not b:
                continue
            added = sum(a) + sum(b)
            gained = (total + added) // divisor
            if all((total + added - v) // divisor < gained for v in a + b):
                options.append((TOOLS, a, b))
    _TOOL_CACHE[ck] = options
    return options


def _remove_values(have: tuple[int, ...], used: tuple[int, ...]) -> tuple[int, ...]:
    rest = list(have)
    for v in used:
        rest.remove(v)
    return tuple(rest)


class StoneAgeState(State):
    """A Stone Age position. Create one with ``STONE_AGE.new_state(players, seed=...)``."""

    __slots__ = (
        "_agri",
        "_any2",
        "_avail",
        "_build_pts",
        "_cards",
        "_chance",
        "_cur",
        "_deck",
        "_deck_pos",
        "_display",
        "_game",
        "_goods",
        "_hidden",
        "_moves",
        "_n",
        "_nbuild",
        "_one_use",
        "_penalties",
        "_pend",
        "_people",
        "_phase",
        "_pile_pos",
        "_piles",
        "_placed",
        "_players_at",
        "_rolls",
        "_round",
        "_start",
        "_step",
        "_tfree",
        "_top_pts",
        "_total",
        "_turn",
    )

    _game: StoneAgeGame
    _n: int
    _chance: Chance
    _round: int
    _start: int
    _phase: int
    _cur: int
    _turn: int
    _pend: Any
    _moves: list[Key]
    _deck: tuple[int, ...]
    _deck_pos: int
    _display: list[int]
    _piles: tuple[tuple[int, ...], ...]
    _pile_pos: list[int]
    _goods: list[int]
    _people: list[int]
    _avail: list[int]
    _agri: list[int]
    _step: list[int]
    _tfree: list[tuple[int, ...]]
    _one_use: list[tuple[int, ...]]
    _any2: list[int]
    _build_pts: list[int]
    _top_pts: list[int]
    _penalties: list[int]
    _nbuild: list[int]
    _cards: list[tuple[int, ...]]
    _hidden: list[tuple[int, ...]]
    _placed: list[int]
    _total: list[int]
    _players_at: list[int]
    _rolls: list[int]

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, game: StoneAgeGame, n: int, chance: Chance) -> StoneAgeState:
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
    def game(self) -> StoneAgeGame:
        return self._game

    @property
    def num_players(self) -> int:
        return self._n

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
        return key_to_action(key)  # type: ignore[arg-type]

    def _apply_key(self, key: Hashable) -> None:
        self._do(key)  # type: ignore[arg-type]
        self._settle()

    def apply_index(self, index: int) -> None:
        moves = self._moves
        if type(index) is not int or not 0 <= index < len(moves):
            super().apply_index(index)  # raises IllegalActionError with the message
        self._do(moves[index])
        self._settle()

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
        c._total = self._total[:]
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
        self._total = [0] * NUM_PLACES
        self._players_at = [0] * NUM_PLACES
        self._avail = self._people[:]
        self._rolls = [0] * n
        self._tfree = [TOOL_VALUES[st] for st in self._step]
        self._next_placer(self._start)

    def _next_placer(self, first: int) -> None:
        """Give the turn to the first player from ``first`` on who can still place."""
        n = self._n
        avail = self._avail
        for i in range(n):
            p = (first + i) % n
            if avail[p]:
                moves = self._placements(p)
                if moves:
                    self._cur = p
                    self._moves = moves
                    return
                avail[p] = 0  # no legal place is left for their people: they stay home
        self._phase = RESOLUTION
        self._turn = 0
        self._next_resolver()

    def _placements(self, p: int) -> list[Key]:
        """Legal placements for seat ``p`` (who has people left)."""
        a = self._avail[p]
        base = p * NUM_PLACES
        placed = self._placed
        total = self._total
        n = self._n
        moves: list[Key] = []
        if not placed[base]:
            moves += PLACE_KEYS[HUNT][1 : a + 1]
        for place in (1, 2, 3, 4):
            t = total[place]
            if placed[base + place] or t >= RESOURCE_PLACE_CAPACITY:
                continue
            if n < 4 and self._players_at[place] >= n - 1:
                continue
            room = RESOURCE_PLACE_CAPACITY - t
            moves += PLACE_KEYS[place][1 : (a if a < room else room) + 1]
        if n == 4 or (total[TOOL_MAKER] > 0) + (total[HUT] > 0) + (total[FIELD] > 0) < 2:
            if not total[TOOL_MAKER] and self._step[p] < MAX_TOOL_STEP:
                moves.append(PLACE_KEYS[TOOL_MAKER][1])
            if not total[HUT] and a >= 2 and self._people[p] < MAX_PEOPLE:
                moves.append(PLACE_KEYS[HUT][2])
            if not total[FIELD] and self._agri[p] < MAX_AGRICULTURE:
                moves.append(PLACE_KEYS[FIELD][1])
        display = self._display
        for i in range(4):
            if display[i] >= 0 and not total[CARD0 + i]:
                moves.append(PLACE_KEYS[CARD0 + i][1])
        pile_pos = self._pile_pos
        for j in range(n):
            if pile_pos[j] < PILE_SIZE and not total[PILE0 + j]:
                moves.append(PLACE_KEYS[PILE0 + j][1])
        return moves

    def _next_resolver(self) -> None:
        """Move resolution to the next player (from ``_turn``) with places left, or feed."""
        n = self._n
        placed = self._placed
        while self._turn < n:
            p = (self._start + self._turn) % n
            base = p * NUM_PLACES
            moves = [RESOLVE_KEYS[q] for q in range(NUM_PLACES) if placed[base + q]]
            if moves:
                self._cur = p
                self._pend = None
                self._moves = moves
                return
            self._turn += 1
        self._phase = FEEDING
        self._turn = 0
        self._next_feeder()

    def _continue(self, p: int) -> None:
        """After one place of ``p`` is fully resolved: their next place, or the next player."""
        base = p * NUM_PLACES
        placed = self._placed
        moves = [RESOLVE_KEYS[q] for q in range(NUM_PLACES) if placed[base + q]]
        if moves:
            self._cur = p
            self._pend = None
            self._moves = moves
        else:
            self._turn += 1
            self._next_resolver()

    def _next_feeder(self) -> None:
        n = self._n
        goods = self._goods
        while self._turn < n:
            p = (self._start + self._turn) % n
            food = goods[p * 5] + self._agri[p]
            need = self._people[p]
            if food >= need:
                goods[p * 5] = food - need
                self._turn += 1
                continue
            goods[p * 5] = 0
            self._cur = p
            self._pend = (PD_FEED, need - food)
            self._moves = self._feed_options(p, need - food)
            return
        self._end_round()

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

    # ------------------------------------------------------------------ options
    def _holdings(self, p: int) -> Pay:
        g = self._goods
        b = p * 5
        return (g[b + 1], g[b + 2], g[b + 3], g[b + 4])

    def _payments(self, p: int, candidates: tuple[Pay, ...]) -> list[Key]:
        w, c, s, g = self._holdings(p)
        moves: list[Key] = [
            (PAY, x) for x in candidates if x[0] <= w and x[1] <= c and x[2] <= s and x[3] <= g
        ]
        moves.append(DECLINE_KEY)
        if self._any2[p]:
            moves += CLAIM_KEYS
        return moves

    def _feed_options(self, p: int, deficit: int) -> list[Key]:
        w, c, s, g = self._holdings(p)
        moves: list[Key] = []
        if w + c + s + g >= deficit:
            moves = [
                (FEED, x)
                for x in COMPOSITIONS[deficit]
                if x[0] <= w and x[1] <= c and x[2] <= s and x[3] <= g
            ]
        moves.append(PENALTY_KEY)
        if self._any2[p]:
            moves += CLAIM_KEYS
        return moves

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
            base = p * NUM_PLACES
            return [RESOLVE_KEYS[q] for q in range(NUM_PLACES) if self._placed[base + q]]
        kind = pend[0]
        if kind == PD_TOOLS:
            return tool_options(sum(pend[2]), DIVISOR[pend[1]], self._tfree[p], self._one_use[p])
        if kind == PD_CARD:
            return self._payments(p, COMPOSITIONS[pend[1] - CARD0 + 1])
        if kind == PD_BUILDING:
            j = pend[1] - PILE0
            return self._payments(p, BUILDING_PAYMENTS[self._piles[j][self._pile_pos[j]]])
        if kind == PD_PICK:
            return [PICK_KEYS[f] for f in sorted(set(pend[1]))]
        return self._feed_options(p, pend[1])

    # ------------------------------------------------------------------ apply
    def _do(self, key: Key) -> None:
        op = key[0]
        p = self._cur
        if op == PLACE:
            place = key[1]
            k = key[2]
            self._placed[p * NUM_PLACES + place] = k
            self._total[place] += k
            self._players_at[place] += 1
            self._avail[p] -= k
            self._next_placer((p + 1) % self._n)
        elif op == RESOLVE:
            self._resolve(p, key[1])
        elif op == TOOLS:
            _, good, dice, _place = self._pend
            used, used_once = key[1], key[2]
            added = 0
            if used:
                self._tfree[p] = _remove_values(self._tfree[p], used)
                added += sum(used)
            if used_once:
                self._one_use[p] = _remove_values(self._one_use[p], used_once)
                added += sum(used_once)
            self._goods[p * 5 + good] += (sum(dice) + added) // DIVISOR[good]
            self._continue(p)
        elif op == PAY:
            self._pay(p, key[1])
        elif op == DECLINE:
            self._continue(p)
        elif op == CLAIM:
            self._any2[p] -= 1
            self._gain(p, key[1])
            self._moves = self._pending_options()
        elif op == FEED:
            self._spend(p, key[1])
            self._turn += 1
            self._next_feeder()
        elif op == PENALTY:
            self._penalties[p] += 1
            self._turn += 1
            self._next_feeder()
        elif op == PICK:
            self._pick(p, key[1])
        else:  # pragma: no cover - keys only come from the engine's own lists
            raise ValueError(f"unknown action key {key!r}")

    def _gain(self, p: int, pay: Pay) -> None:
        g = self._goods
        b = p * 5
        g[b + 1] += pay[0]
        g[b + 2] += pay[1]
        g[b + 3] += pay[2]
        g[b + 4] += pay[3]

    def _spend(self, p: int, pay: Pay) -> None:
        g = self._goods
        b = p * 5
        g[b + 1] -= pay[0]
        g[b + 2] -= pay[1]
        g[b + 3] -= pay[2]
        g[b + 4] -= pay[3]

    def _roll(self, p: int, n: int) -> tuple[int, ...]:
        k = self._rolls[p]
        self._rolls[p] = k + 1
        return roll(self._chance, self._round, p, k, n)

    def _gather_roll(self, p: int, good: int, n: int, place: int) -> None:
        """Roll ``n`` dice for ``good``; ask about tools if any choice could matter."""
        dice = self._roll(p, n)
        total = sum(dice)
        divisor = DIVISOR[good]
        if self._tfree[p] or self._one_use[p]:
            options = tool_options(total, divisor, self._tfree[p], self._one_use[p])
            if len(options) > 1:
                self._pend = (PD_TOOLS, good, dice, place)
                self._moves = options
                return
        self._goods[p * 5 + good] += total // divisor
        self._continue(p)

    def _resolve(self, p: int, place: int) -> None:
        idx = p * NUM_PLACES + place
        people = self._placed[idx]
        self._placed[idx] = 0
        if place <= 4:  # hunting and the four resource places share one rule
            self._gather_roll(p, place, people, place)
            return
        if place == TOOL_MAKER:
            self._add_tool_step(p)
        elif place == HUT:
            self._people[p] += 1
        elif place == FIELD:
            self._add_agriculture(p)
        elif place < PILE0:
            if self._display[place - CARD0] < 0:  # pragma: no cover - placement forbids it
                raise AssertionError("resolving an empty card slot")
            self._pend = (PD_CARD, place)
            self._moves = self._payments(p, COMPOSITIONS[place - CARD0 + 1])
            return
        else:
            j = place - PILE0
            self._pend = (PD_BUILDING, place)
            self._moves = self._payments(p, BUILDING_PAYMENTS[self._piles[j][self._pile_pos[j]]])
            return
        self._continue(p)

    def _add_tool_step(self, p: int) -> None:
        """One tool-maker step. A raised tool is an unused one when one of that value is."""
        step = self._step[p]
        if step >= MAX_TOOL_STEP:
            return  # the step is lost at 4/4/4 (ruling 2)
        old = TOOL_VALUES[step]
        new = TOOL_VALUES[step + 1]
        self._step[p] = step + 1
        free = list(self._tfree[p])
        if len(new) > len(old):
            free.append(1)
        else:
            raised = min(old)  # the tool that changes has the lowest value
            if raised in free:
                free.remove(raised)
                free.append(raised + 1)
        free.sort(reverse=True)
        self._tfree[p] = tuple(free)

    def _add_agriculture(self, p: int) -> None:
        # A field placed at 9 can meet a card or die that already reached 10: the step is lost.
        if self._agri[p] < MAX_AGRICULTURE:
            self._agri[p] += 1

    def _pay(self, p: int, pay: Pay) -> None:
        self._spend(p, pay)
        kind, place = self._pend
        if kind == PD_BUILDING:
            j = place - PILE0
            b = BUILDINGS[self._piles[j][self._pile_pos[j]]]
            self._build_pts[p] += payment_points(b.cost if b.kind == B_FIXED else pay)
            self._nbuild[p] += 1
            self._pile_pos[j] += 1
            self._continue(p)
            return
        slot = place - CARD0
        card_id = self._display[slot]
        self._display[slot] = -1
        self._cards[p] = (*self._cards[p], card_id)
        self._card_effect(p, card_id)

    def _card_effect(self, p: int, card_id: int) -> None:
        card = CARDS[card_id]
        top = card.top
        if top == T_FOOD:
            self._goods[p * 5 + FOOD] += card.amount
        elif top == T_RESOURCE:
            self._goods[p * 5 + card.good] += card.amount
        elif top == T_POINTS:
            self._top_pts[p] += card.amount
        elif top == T_TOOL:
            self._add_tool_step(p)
        elif top == T_AGRICULTURE:
            self._add_agriculture(p)
        elif top == T_ONE_USE_TOOL:
            self._one_use[p] = tuple(sorted((*self._one_use[p], card.amount), reverse=True))
        elif top == T_ANY_TWO:
            self._any2[p] += 1
        elif top == T_EXTRA_CARD:
            if self._deck_pos < len(self._deck):
                self._hidden[p] = (*self._hidden[p], self._deck[self._deck_pos])
                self._deck_pos += 1
        elif top == T_ROLL:
            self._gather_roll(p, card.good, 2, -1)
            return
        elif top == T_DICE_ALL:
            n = self._n
            dice = self._roll(p, n)
            self._pend = (PD_PICK, dice, tuple((p + i) % n for i in range(1, n)), p)
            self._moves = [PICK_KEYS[f] for f in sorted(set(dice))]
            return
        self._continue(p)

    def _pick(self, p: int, face: int) -> None:
        _, dice, pickers, buyer = self._pend
        rest = list(dice)
        rest.remove(face)
        if face <= 4:
            self._goods[p * 5 + DIE_FACE_GOOD[face]] += 1
        elif face == 5:
            self._add_tool_step(p)
        else:
            self._add_agriculture(p)
        if pickers:
            nxt = pickers[0]
            self._cur = nxt
            self._pend = (PD_PICK, tuple(rest), pickers[1:], buyer)
            self._moves = [PICK_KEYS[f] for f in sorted(set(rest))]
        else:
            self._continue(buyer)

    # ------------------------------------------------------------------ scoring
    def _breakdown(self, p: int) -> dict[str, int]:
        """Seat ``p``'s score by source; at the end of the game, its final score."""
        symbols = [0] * len(SYMBOLS)
        figures = [0, 0, 0, 0]
        for cid in self._cards[p] + self._hidden[p]:
            card = CARDS[cid]
            if card.symbol >= 0:
                symbols[card.symbol] += 1
            else:
                figures[card.figure] += card.figures
        first = sum(1 for c in symbols if c >= 1)
        second = sum(1 for c in symbols if c >= 2)
        b = p * 5
        g = self._goods
        return {
            "buildings": self._build_pts[p],
            "card_points": self._top_pts[p],
            "feeding_penalty": -FEEDING_PENALTY * self._penalties[p],
            "civilization_green": first * first + second * second,
            "farmers": figures[FARMER] * self._agri[p],
            "tool_makers": figures[TOOL_MAKER_FIG] * sum(TOOL_VALUES[self._step[p]]),
            "hut_builders": figures[HUT_BUILDER] * self._nbuild[p],
            "shamans": figures[SHAMAN] * self._people[p],
            "resources": g[b + 1] + g[b + 2] + g[b + 3] + g[b + 4] + 2 * self._any2[p],
        }

    # ------------------------------------------------------------------ read-only accessors
    # For search code that evaluates positions without building observations.
    def score_now(self, p: int) -> int:
        """Seat ``p``'s final score if the game ended now (the breakdown's total)."""
        return sum(self._breakdown(p).values())

    def goods(self, p: int) -> tuple[int, int, int, int, int]:
        """Seat ``p``'s food, wood, clay, stone and gold."""
        b = p * 5
        g = self._goods
        return (g[b], g[b + 1], g[b + 2], g[b + 3], g[b + 4])

    def people(self, p: int) -> int:
        return self._people[p]

    def agriculture(self, p: int) -> int:
        return self._agri[p]

    def tool_values(self, p: int) -> tuple[int, ...]:
        """Seat ``p``'s permanent tools (values), used or not."""
        return TOOL_VALUES[self._step[p]]

    def tiles_left(self) -> tuple[int, ...]:
        """Tiles left in each building pile."""
        return tuple(PILE_SIZE - pos for pos in self._pile_pos)

    def deck_left(self) -> int:
        """Cards left in the deck."""
        return len(self._deck) - self._deck_pos

    def running_score(self, p: int) -> int:
        """The score track during play: buildings, card points and feeding penalties."""
        return self._build_pts[p] + self._top_pts[p] - FEEDING_PENALTY * self._penalties[p]

    def tiebreak(self, p: int) -> int:
        """Agriculture + permanent tool values + people (ruling 11)."""
        return self._agri[p] + sum(TOOL_VALUES[self._step[p]]) + self._people[p]

    def result(self) -> GameResult:
        if self._phase != OVER:
            raise RuntimeError("the game is not over yet")
        breakdown = tuple(self._breakdown(p) for p in range(self._n))
        scores = tuple(sum(b.values()) for b in breakdown)
        tiebreak = tuple(self.tiebreak(p) for p in range(self._n))
        ranks = competition_ranks(list(zip(scores, tiebreak, strict=True)))
        return GameResult(scores, ranks, breakdown, tiebreak)

    # ------------------------------------------------------------------ views
    def observation(self, seat: int) -> dict[str, Any]:
        from arena.engine.stoneage.views import observation

        return observation(self, seat)

    def to_dict(self) -> dict[str, Any]:
        from arena.engine.stoneage.views import state_to_dict

        return state_to_dict(self)

    @classmethod
    def from_dict(cls, game: StoneAgeGame, data: Mapping[str, Any]) -> StoneAgeState:
        from arena.engine.stoneage.views import state_from_dict

        return state_from_dict(cls, game, data)

    def __repr__(self) -> str:
        return (
            f"<StoneAgeState {self._n}p round {self._round} {PHASE_NAMES[self._phase]} "
            f"seat {self.current_player}>"
        )


CLAIM_KEYS: list[Key] = [(CLAIM, c) for c in CLAIMS]
