"""What a card's effect is to the engine: an :class:`Effect` keyed by card id, carrying out
the clauses of :mod:`..card` at their moments.

- An **event** (on play, round start, before scoring, ...) is a function
  ``(state, owner, card) -> None`` called at its moment for the owner of a played card. It
  changes the state through the state's small card API (:meth:`gain`, :meth:`promise`,
  :meth:`ask`, the farm and goods lists) and never chooses: a choice, or an optional clause,
  is pushed with ``state.ask(Pending(...))`` and offered as a decision.
- A **decision** is a :class:`Pending` (whose, which card, which question, a few ints). Its
  legal actions are ``effect.ask(state, pending)``: plain dicts built with :func:`use`,
  :func:`decline` and :func:`choice`; the one taken goes to ``effect.answer``.
- **Any-time conversions** are ``anytime(state, seat, card)``: actions offered beside every
  decision of the owner (the decision stays open); the one taken goes to ``answer`` with a
  Pending tagged "anytime". **Capacity** rules are data (``capacity``: what the card adds
  to the farm's room for animals, people or crops; :mod:`.capacity`).
- A SPACE_USED event names the spaces whose use it may act on (``spaces``; None: any), so
  that a use of another space does not call it.
- **Modifiers** are pure functions: ``score(state, owner, seat)`` the bonus points the card
  of ``owner`` gives ``seat`` at the end; ``cost`` (:mod:`.costs`) what a thing costs.

Every Effect names the moments it carries out (``moments``); a test checks they are exactly
the moments of the card's clauses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, NamedTuple, Protocol

from arena.engine.agricola.board import Board
from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.farm import Farm

Goods = tuple[int, ...]


class Pending(NamedTuple):
    """A decision a card's effect waits for: ``seat`` decides ``tag`` of ``card``; ``data``
    is what the question needs to remember (ints only, so it saves as plain data). ``card``
    "" is the engine's own question (which animals to keep after a gain outside an action)."""

    seat: int
    card: str
    tag: str
    data: tuple[int, ...] = ()

    def to_list(self) -> list[Any]:
        return [self.seat, self.card, self.tag, list(self.data)]

    @classmethod
    def from_list(cls, x: list[Any]) -> Pending:
        seat, card, tag, data = x
        return cls(int(seat), str(card), str(tag), tuple(int(v) for v in data))


class CardState(Protocol):
    """What an effect reads and changes of card mode's state (the state is
    :class:`~arena.engine.agricola.cards.state.CardState`; this names its card API without
    importing it)."""

    _n: int
    _board: Board
    _goods: list[Goods]
    _farms: list[Farm]
    _majors: list[tuple[int, ...]]
    _people: list[int]
    _newborns: list[int]
    _home: list[int]
    _sub: tuple[Any, ...]  # the sub-action just done, while SUB_ACTION fires (.sub_action)
    _space: int  # the space whose action is under way

    def hooked(self, seat: int, moment: Moment) -> tuple[str, ...]: ...
    def costs(self, seat: int, thing: Thing, base: Goods) -> list[Goods]: ...

    def gain(self, seat: int, row: Goods) -> None: ...
    def ask(self, pending: Pending, first: bool = False) -> None: ...
    def promise(self, seat: int, good: int, rounds: list[int] | range,
                amount: int = 1) -> None: ...
    def mark(self, card: str) -> tuple[int, ...]: ...
    def set_mark(self, card: str, value: tuple[int, ...]) -> None: ...
    def played(self, seat: int) -> tuple[tuple[str, ...], tuple[str, ...]]: ...
    def hands(self, seat: int) -> tuple[tuple[str, ...], tuple[str, ...]]: ...
    def sub_action(self, sub: tuple[Any, ...]) -> None: ...


Event = Callable[[CardState, int, str], None]
Ask = Callable[[CardState, Pending], list[dict[str, Any]]]
Answer = Callable[[CardState, Pending, dict[str, Any]], None]
Score = Callable[[CardState, int, int], int]
#: ``(state, seat, card) -> actions``: the conversions the owner may make now (any time).
AnyTime = Callable[[CardState, int, str], list[dict[str, Any]]]


class Thing(NamedTuple):
    """What a cost is asked for: ``kind`` one of "minor", "major", "room", "renovation",
    "fences"; ``id`` the card id or major number ("" / -1 otherwise); ``rooms`` and
    ``material`` the buyer's house."""

    kind: str
    id: str | int
    rooms: int
    material: int


#: ``(thing, cost) -> cost`` (building resources and food as a goods row), or None when the
#: card forbids the thing.
CostRule = Callable[[Thing, Goods], "Goods | None"]


@dataclass(frozen=True, slots=True)
class Effect:
    """The implementation of one card's clauses. ``cost_first``: this cost rule replaces a
    cost (applied before the rules that take something off)."""

    card: str
    moments: frozenset[Moment]
    events: Mapping[Moment, Event] = field(default_factory=lambda: MappingProxyType({}))
    ask: Ask | None = None
    answer: Answer | None = None
    score: Score | None = None
    cost: CostRule | None = None
    cost_first: bool = False
    kept_points: bool = False  # bonus points kept on the card (its mark's first number)
    anytime: AnyTime | None = None  # conversions offered in every decision of the owner
    capacity: Mapping[str, int] | None = None  # where animals, people, crops may be kept
    spaces: frozenset[int] | None = None  # the spaces the SPACE_USED event acts on (None: any)


#: Every implemented card, by id (filled by the group modules on import).
EFFECTS: Final[dict[str, Effect]] = {}


def register(card: str, *moments: Moment, events: Mapping[Moment, Event] | None = None,
             ask: Ask | None = None, answer: Answer | None = None, score: Score | None = None,
             cost: CostRule | None = None, cost_first: bool = False,
             kept_points: bool = False, anytime: AnyTime | None = None,
             capacity: Mapping[str, int] | None = None,
             spaces: frozenset[int] | None = None) -> Effect:
    """Record the implementation of ``card``'s clauses of ``moments``."""
    if card in EFFECTS:
        raise ValueError(f"card {card} implemented twice")
    e = Effect(card, frozenset(moments), MappingProxyType(dict(events or {})), ask, answer,
               score, cost, cost_first, kept_points, anytime,
               MappingProxyType(dict(capacity)) if capacity else None, spaces)
    EFFECTS[card] = e
    return e


# --- the actions of card decisions ---------------------------------------------------------

USE, DECLINE, CHOICE = "use_card", "decline", "card_choice"


def use(card: str, **fields: Any) -> dict[str, Any]:
    """Use ``card``'s optional clause (``fields`` say how: a cell, a good...)."""
    return {"type": USE, "card": card, **fields}


def decline(card: str) -> dict[str, Any]:
    """Say no to ``card``'s optional clause."""
    return {"type": DECLINE, "card": card}


def choice(card: str, value: Any) -> dict[str, Any]:
    """Pick ``value`` in a choice an automatic clause of ``card`` leaves its owner."""
    return {"type": CHOICE, "card": card, "choice": value}


def yes_no_paying(good: int, amount: int) -> Ask:
    """The ask of a card that may pay ``amount`` of ``good`` (use or decline), put only while
    the seat still has it: a purchase answered first (an any-time one, such as Grocer's) may
    have spent it, and then the question lapses (ruling C31)."""
    def ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
        return [use(pd.card), decline(pd.card)] if state._goods[pd.seat][good] >= amount else []
    return ask


#: When a SPACE_USED event fires (``state._use[2]``): as the person is placed, before the
#: space's own action; or once that turn is over (after the action, "right after").
AT_USE, AT_END = 0, 1


def rounds_left(rnd: int) -> int:
    """The complete rounds after round ``rnd`` ("rounds left" of the card texts)."""
    return max(0, 14 - rnd)


__all__ = ["AT_END", "AT_USE", "CHOICE", "DECLINE", "EFFECTS", "USE", "Answer", "AnyTime", "Ask",
           "CardState", "CostRule", "Effect", "Event", "Goods", "Pending", "Score", "Thing",
           "choice", "decline", "register", "rounds_left", "use", "yes_no_paying"]
