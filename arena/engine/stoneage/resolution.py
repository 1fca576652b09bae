"""Resolution: each player in turn resolves all of their places, in the order they choose.

Gathering rolls dice and may add tools; the tool maker, the hut and the field give their step;
a card or a building is bought (or declined) with a payment, and a card's top effect follows.
"""

from __future__ import annotations

from itertools import combinations

from arena.engine.stoneage.components import (
    B_FIXED,
    BUILDINGS,
    CARD0,
    CARDS,
    DIE_FACE_GOOD,
    DIVISOR,
    FIELD,
    FOOD,
    HUT,
    MAX_AGRICULTURE,
    MAX_TOOL_STEP,
    NUM_PLACES,
    PILE0,
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
    TOOL_VALUES,
    payment_points,
)
from arena.engine.stoneage.dice import roll
from arena.engine.stoneage.moves import (
    DECLINE_KEY,
    NO_TOOLS_KEY,
    PAY,
    PICK_KEYS,
    RESOLVE_LISTS,
    TOOLS,
    code_of,
    resolve_keys,
)
from arena.engine.stoneage.payments import BUILDING_TABLE0
from arena.engine.stoneage.phases import (
    FEEDING,
    PD_BUILDING,
    PD_CARD,
    PD_PICK,
    PD_TOOLS,
    Key,
    Pay,
)
from arena.engine.stoneage.state_base import StoneAgeStateBase

#: (the roll's remainder by the divisor, the divisor, the tools, the one-use tools) -> the
#: tool choices (see :func:`tool_options`).
_TOOL_CACHE: dict[tuple[int, int, tuple[int, ...], tuple[int, ...]], list[Key]] = {}
#: A sorted tuple of tool values -> its distinct sub-multisets (see :func:`_sub_multisets`).
_SUB_MULTISETS: dict[tuple[int, ...], list[tuple[int, ...]]] = {}


def _sub_multisets(values: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Distinct sub-multisets of a sorted tuple (as sorted tuples), smallest first."""
    got = _SUB_MULTISETS.get(values)
    if got is None:
        seen: dict[tuple[int, ...], None] = {}
        for r in range(len(values) + 1):
            for combo in combinations(values, r):
                seen.setdefault(combo, None)
        got = _SUB_MULTISETS[values] = list(seen)
    return got


def tool_options(total: int, divisor: int, tools: tuple[int, ...], one_use: tuple[int, ...]
                 ) -> list[Key]:
    """The tool choices worth offering for a roll of ``total`` gathered at ``divisor``.

    Always "no tools", plus every distinct choice of unused permanent tools and one-use tools
    that is *minimal*: dropping any one tool from it would lower the yield. A choice that adds
    value without changing the yield, or a larger set with the same yield as one of its
    subsets, is never better for the player and is left out (RULES.md, ruling T1).

    Whether a tool changes the yield depends on the roll only through its remainder by the
    divisor (``(q * divisor + r + x) // divisor`` is ``q + (r + x) // divisor``), so the
    choices are worked out for that remainder and kept for every roll that leaves it. The list
    is shared: never modify it.
    """
    rest = total % divisor
    ck = (rest, divisor, tools, one_use)
    got = _TOOL_CACHE.get(ck)
    if got is not None:
        return got
    options: list[Key] = [NO_TOOLS_KEY]
    once = _sub_multisets(one_use)
    for a in _sub_multisets(tools):
        for b in once:
            if not a and not b:
                continue
            added = sum(a) + sum(b)
            gained = (rest + added) // divisor
            if all((rest + added - v) // divisor < gained for v in a + b):
                options.append(code_of((TOOLS, a, b)))
    _TOOL_CACHE[ck] = options
    return options


def remove_values(have: tuple[int, ...], used: tuple[int, ...]) -> tuple[int, ...]:
    """``have`` without one of each value in ``used`` (all of which it holds)."""
    rest = list(have)
    for v in used:
        rest.remove(v)
    return tuple(rest)


class ResolutionRules(StoneAgeStateBase):
    """Resolving places, tools, purchases and card effects."""

    __slots__ = ()

    def _next_resolver(self) -> None:
        """Move resolution to the next player (from ``_turn``) with places left, or feed."""
        n = self._n
        where = self._where
        while self._turn < n:
            p = (self._start + self._turn) % n
            mask = where[p]
            if mask:
                self._cur = p
                self._pend = None
                self._moves = RESOLVE_LISTS.get(mask) or resolve_keys(mask)
                return
            self._turn += 1
        self._phase = FEEDING
        self._turn = 0
        self._next_feeder()

    def _continue(self, p: int) -> None:
        """After one place of ``p`` is fully resolved: their next place, or the next player."""
        mask = self._where[p]
        if mask:
            self._cur = p
            self._pend = None
            self._moves = RESOLVE_LISTS.get(mask) or resolve_keys(mask)
        else:
            self._turn += 1
            self._next_resolver()

    def _payments(self, p: int, table: int) -> list[Key]:
        """Buying with a payment of ``table`` (see ``payments.PAYMENT_TABLES``), or declining."""
        return self._choices(PAY, table, p, DECLINE_KEY)

    def _roll(self, p: int, n: int) -> tuple[int, ...]:
        k = self._rolls[p]
        self._rolls[p] = k + 1
        return roll(self._chance, self._round, p, k, n)

    def _gather_roll(self, p: int, good: int, n: int, place: int) -> None:
        """Roll ``n`` dice for ``good``; ask about tools if any choice could matter."""
        k = self._rolls[p]  # _roll, spelled out
        self._rolls[p] = k + 1
        dice = roll(self._chance, self._round, p, k, n)
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
        self._where[p] &= ~(1 << place)
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
            self._moves = self._payments(p, place - CARD0 + 1)  # the card's cost
            return
        else:
            j = place - PILE0
            self._pend = (PD_BUILDING, place)
            self._moves = self._payments(p, BUILDING_TABLE0 + self._piles[j][self._pile_pos[j]])
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
