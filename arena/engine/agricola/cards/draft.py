"""The app's draft (option ``draft = "app"``, rulings C9-C11 of ``RULES.md``).

Before round 1 every seat gets a pack of 7 occupations and a pack of 7 minor improvements,
dealt with the deal's chance keys (:mod:`~arena.engine.agricola.cards.hands`): pack o holds
what seat o would have been dealt. Each pass every seat, in seat order, takes one occupation
and then one minor from the two packs in front of it (two decisions); then every pack goes to
the left-hand neighbour (seat + 1, the way traveling minors go, C6). After 7 passes each seat
holds 7 + 7. The last card of a pack is the only choice, so the engine takes it at once.

A draft is written down as the dealt packs and the cards taken from each, in order
(:class:`Draft`); everything else follows: pack o is held at pass j by seat (o + j) mod n,
which takes ``picks[o][j]`` from it. What a seat saw (its *sightings*: each pack as it arrived
in front of it, and what it took) is in its observation for the rest of the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from arena.engine.agricola.cards.deck import HAND_SIZE
from arena.engine.agricola.cards.hands import MINOR_EVENT, OCCUPATION_EVENT, deal, pool
from arena.engine.agricola.cards.hooks import M_DRAFT, CardHooks
from arena.engine.agricola.state_base import DRAFT, Key, freeze
from arena.engine.chance import Chance

#: The two kinds of card by index (picks of a pass: the occupation first), and their names in
#: the observation.
KINDS: Final = (OCCUPATION_EVENT, MINOR_EVENT)
FIELDS: Final = ("occupations", "minors")
#: Passes of a draft: one card of each kind per pass until the packs are empty.
PASSES: Final = HAND_SIZE

Packs = tuple[tuple[tuple[str, ...], ...], ...]  # [kind][origin]


@dataclass(frozen=True, slots=True)
class Draft:
    """A draft of ``n`` seats: ``packs[kind][o]`` the pack dealt to seat o (sorted) and
    ``picks[kind][o]`` the cards taken from it so far, in the order taken."""

    n: int
    packs: Packs
    picks: Packs

    @classmethod
    def deal(cls, n: int, chance: Chance) -> Draft:
        """The packs dealt as the deal deals hands (ruling C2), nothing taken yet."""
        packs = tuple(tuple(deal(kind, n, chance)) for kind in KINDS)
        return cls(n, packs, (((),) * n,) * len(KINDS))

    def taken(self, kind: int) -> int:
        """How many cards of ``kind`` were taken so far, by everyone."""
        return sum(len(p) for p in self.picks[kind])

    def turn(self) -> tuple[int, int, int] | None:
        """(pass, seat, kind) of the pick now due, or None once the packs are empty. Seats take
        in seat order, each its occupation and then its minor."""
        n = self.n
        occ, minor = self.taken(0), self.taken(1)
        if minor == PASSES * n:
            return None
        if occ > minor:
            return minor // n, minor % n, 1
        return occ // n, occ % n, 0

    def current_pass(self) -> int:
        """The pass under way (0..6), or 7 once the draft is over."""
        t = self.turn()
        return PASSES if t is None else t[0]

    def pack(self, kind: int, origin: int) -> tuple[str, ...]:
        """What is left of pack ``origin`` of ``kind``, sorted."""
        gone = self.picks[kind][origin]
        return tuple(c for c in self.packs[kind][origin] if c not in gone)

    def pick(self, kind: int, seat: int, card: str) -> Draft:
        """The draft after ``seat`` takes ``card`` of ``kind`` from the pack in front of it."""
        k = self.current_pass()
        o = (seat - k) % self.n
        row = list(self.picks[kind])
        row[o] = (*row[o], card)
        picks = tuple(tuple(row) if i == kind else p for i, p in enumerate(self.picks))
        return Draft(self.n, self.packs, picks)

    def drafted(self, kind: int, seat: int) -> tuple[str, ...]:
        """The cards of ``kind`` ``seat`` took, sorted."""
        n = self.n
        return tuple(sorted(c for o, taken in enumerate(self.picks[kind])
                            for j, c in enumerate(taken) if (o + j) % n == seat))

    def sightings(self, seat: int) -> list[dict[str, Any]]:
        """What the draft showed ``seat``: per pass so far, the packs as they arrived in front
        of it (from seat ``from``, the seat they were dealt to) and what it took from each
        (None while it has not taken yet)."""
        n = self.n
        out = []
        for j in range(min(self.current_pass() + 1, PASSES)):
            o = (seat - j) % n
            view: dict[str, Any] = {"pass": j, "from": o}
            took = []
            for kind, field in enumerate(FIELDS):
                taken = self.picks[kind][o]
                view[field] = [c for c in self.packs[kind][o] if c not in taken[:j]]
                took.append(taken[j] if len(taken) > j else None)
            view["took"] = took
            out.append(view)
        return out

    def view(self, seat: int) -> dict[str, Any]:
        """The draft in ``seat``'s observation: the pass under way and its sightings."""
        return {"pass": self.current_pass(), "seen": self.sightings(seat)}

    def to_dict(self) -> dict[str, Any]:
        return {name: {field: [list(p) for p in data[kind]] for kind, field in enumerate(FIELDS)}
                for name, data in (("packs", self.packs), ("picks", self.picks))}

    @classmethod
    def from_dict(cls, n: int, d: Mapping[str, Any]) -> Draft:
        """The draft :meth:`to_dict` wrote; ValueError for one no draft reaches."""
        packs = tuple(tuple(tuple(d["packs"][f][o]) for o in range(n)) for f in FIELDS)
        picks = tuple(tuple(tuple(d["picks"][f][o]) for o in range(n)) for f in FIELDS)
        for kind, field in enumerate(FIELDS):
            if len(d["packs"][field]) != n or len(d["picks"][field]) != n:
                raise ValueError(f"a draft of {n} seats has {n} packs of {field}")
            cards = [c for p in packs[kind] for c in p]
            if any(len(p) != HAND_SIZE or list(p) != sorted(p) for p in packs[kind]) \
                    or len(set(cards)) != len(cards) \
                    or not set(cards) <= set(pool(KINDS[kind], n)):
                raise ValueError(f"impossible packs of {field}")
            for p, taken in zip(packs[kind], picks[kind], strict=True):
                if len(set(taken)) != len(taken) or not set(taken) <= set(p):
                    raise ValueError(f"cards taken that the pack of {field} never held")
        draft = cls(n, packs, picks)
        occ, minor = draft.taken(0), draft.taken(1)
        if not 0 <= occ - minor <= 1 or any(
                len(draft.picks[kind][o]) != _taken_from(o, total, n)
                for kind, total in enumerate((occ, minor)) for o in range(n)):
            raise ValueError("the cards taken are not those of a draft in seat order")
        return draft


def _taken_from(origin: int, total: int, n: int) -> int:
    """How many cards of a kind pack ``origin`` has lost after the first ``total`` picks of
    that kind (pick i is made at pass i // n by seat i % n)."""
    return sum(1 for i in range(total) if (i % n - i // n) % n == origin)


def hands_after(drafted: Sequence[tuple[str, ...]], played: Sequence[tuple[str, ...]],
                passed: Sequence[tuple[str, int]]) -> list[tuple[str, ...]]:
    """Each seat's hand of one kind: what it drafted less every card that left a hand in
    public (played, or a traveling minor passed on), plus the traveling minors passed to it
    (ruling C6; solo: they go to the box)."""
    n = len(drafted)
    public = {c for p in played for c in p} | {c for c, _ in passed}
    last = {c: (giver + 1) % n for c, giver in passed} if n > 1 else {}
    return [tuple(sorted([*(c for c in drafted[q] if c not in public),
                          *(c for c, r in last.items() if r == q)]))
            for q in range(n)]


_KEYS: dict[str, Key] = {}


def _key(card: str) -> Key:
    key = _KEYS.get(card)
    if key is None:
        key = _KEYS[card] = freeze({"type": "draft", "card": card})
    return key


class DraftFlow(CardHooks):
    """The draft phase of a card-mode state (its class is
    :class:`~arena.engine.agricola.cards.state.CardState`): ``_draft`` is the
    :class:`Draft`, None when the hands were dealt."""

    __slots__ = ("_draft",)

    _draft: Draft | None
    _hand_o: list[tuple[str, ...]]
    _hand_m: list[tuple[str, ...]]

    def start_draft(self, chance: Chance) -> None:
        """Set up the draft before round 1 (board at round 0, seat 0 to take first; the hands
        empty). Solo there is none: a draft of one is the deal (ruling C9)."""
        n = self._n
        self._draft = Draft.deal(n, chance)
        self._home = [0] * n
        self._newborns = [0] * n
        self._round_start = self._board.start_player
        self._phase = DRAFT
        self._cur = 0

    def _draft_options(self) -> tuple[list[Key], list[tuple[Any, ...]]]:
        draft = self._draft
        assert draft is not None
        k, seat, kind = draft.turn()  # type: ignore[misc]
        cards = draft.pack(kind, (seat - k) % self._n)
        return [_key(c) for c in cards], [(M_DRAFT, kind, c) for c in cards]

    def _draft_do(self, pay: tuple[Any, ...]) -> None:
        _, kind, card = pay
        p = self._cur
        assert self._draft is not None
        self._draft = draft = self._draft.pick(kind, p, card)
        hands = self._hand_m if kind else self._hand_o
        hands[p] = tuple(sorted((*hands[p], card)))
        nxt = draft.turn()
        if nxt is None:
            self._begin_round()
        else:
            self._cur = nxt[1]

    def _decision(self) -> dict[str, Any] | None:
        """The decision asked: the draft's pick; the card decision waiting first, when one
        waits (``under``: the decision of the flow of play it came before, asked again once
        the card decisions are taken); otherwise the flow's own."""
        if self._phase == DRAFT:
            assert self._draft is not None
            k, seat, kind = self._draft.turn()  # type: ignore[misc]
            return {"kind": "draft", "seat": seat, "pick": KINDS[kind], "pass": k}
        under = super()._decision()
        if not self._pending:
            return under
        pd = self._pending[0]
        return {"kind": "card", "seat": pd.seat, "card": pd.card or None, "tag": pd.tag,
                "data": list(pd.data), "under": under}

    @classmethod
    def _underneath(cls, decision: Any) -> Any:
        if decision is not None and decision.get("kind") == "card":
            return decision["under"]
        return decision


__all__ = ["FIELDS", "KINDS", "PASSES", "Draft", "DraftFlow", "hands_after"]
