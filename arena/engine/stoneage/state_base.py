"""The base of a Stone Age state: what it holds (its slots), shared by the modules that hold
its rules.

The state is a flat set of small lists indexed by seat (and by ``seat * 16 + place`` for the
people on the board), plus tuples for what rarely changes (cards owned, the deck, the building
piles), which a clone shares instead of copying. Every decision point stores its legal action
keys in ``_moves``. Two fields repeat what others hold, in the form the next decision reads
without scanning the board: ``_where`` (each seat's occupied places as a bit mask, from
``_placed``) and ``_open_buys`` (the card slots and piles nobody has placed on this round); the
save format leaves them out, and a loaded state rebuilds them.

:class:`StoneAgeStateBase` declares them once. Each rule area is a mixin over it (placement,
resolution, feeding, scoring, views, save format), and ``StoneAgeState`` combines them; a mixin
that needs a step of another area calls it through the abstract hooks declared here, so the
modules never import one another.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from arena.engine.api import State
from arena.engine.chance import Chance
from arena.engine.stoneage.moves import CLAIM_KEYS
from arena.engine.stoneage.payments import TABLE_CAPS, payment_keys
from arena.engine.stoneage.phases import Key, Pay

#: (opcode, table, holdings capped by the table's cap, whether the payer may claim, the key
#: after the payments) -> the decision's keys (see ``_choices``). At most 2 * (cap + 1) ** 4
#: entries a table and opcode; far fewer are ever met.
_CHOICES: dict[tuple[Any, ...], list[Key]] = {}


class StoneAgeStateBase(State):
    """Slot declarations, goods accounting, and the hooks one rule area calls in another."""

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
        "_goods",
        "_hidden",
        "_moves",
        "_nbuild",
        "_one_use",
        "_open_buys",
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
        "_where",
    )

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
    _open_buys: tuple[Key, ...]
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
    #: _where[p]: the places where seat p has people on the board, bit q for place q (what
    #: ``_placed`` holds, as a mask: the resolution's choices are looked up by it)
    _where: list[int]

    # ------------------------------------------------------------------ goods accounting
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

    def _choices(self, op: int, table: int, p: int, last: Key) -> list[Key]:
        """The keys of a decision to pay with ``table`` (see ``payments.PAYMENT_TABLES``):
        ``(op, payment)`` for each payment of the table that ``p`` can make, in the table's order,
        then ``last`` (declining, or the penalty), then the claims of the "any 2 resources"
        card if ``p`` holds one. The list is shared by every decision alike: never modify it
        (a state's ``_moves`` is only ever replaced)."""
        cap = TABLE_CAPS[table]
        b = p * 5
        w, c, s, gold = self._goods[b + 1 : b + 5]
        # capped one by one: a generator and min() cost more than the lookup they key
        if w > cap:
            w = cap
        if c > cap:
            c = cap
        if s > cap:
            s = cap
        if gold > cap:
            gold = cap
        claims = self._any2[p] > 0
        ck = (op, table, w, c, s, gold, claims, last)
        got = _CHOICES.get(ck)
        if got is None:
            got = _CHOICES[ck] = [
                *payment_keys(op, table, w, c, s, gold),
                last,
                *(CLAIM_KEYS if claims else ()),
            ]
        return got

    # ------------------------------------------------------------------ hooks
    @abstractmethod
    def _next_resolver(self) -> None:
        """Start resolution with the next player who has people out, or go on to feeding."""

    @abstractmethod
    def _next_feeder(self) -> None:
        """Feed the next player who needs to decide, or end the round."""

    @abstractmethod
    def _end_round(self) -> None:
        """End the round: the game ends, or the next round begins."""

    @abstractmethod
    def _open_buy_places(self) -> tuple[Key, ...]:
        """The placements on card slots and building piles still open this round."""

    @abstractmethod
    def _pending_options(self) -> list[Key]:
        """The legal keys of the current decision, regenerated from the slots."""

    @abstractmethod
    def running_score(self, p: int) -> int:
        """The score track during play (see :mod:`arena.engine.stoneage.scoring`)."""
