"""Saving and reading the card effects' side of card mode's state (:mod:`.hooks`): the
decisions waiting, the marks on cards, the goods promised and the turn under way. The
functions take the state as their first argument."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from arena.engine.agricola.cards.effects import EFFECTS, Pending
from arena.engine.agricola.cards.hooks import NO_INDEX, NO_LISTEN, CardHooks
from arena.engine.agricola.components import GOODS, NUM_ROUNDS

#: The entries of a saved ``cards`` section that :func:`effects_dict` writes.
EFFECT_KEYS: Final = ("turn", "pending", "marks", "promised", "used", "hold", "guests")


def effects_dict(state: CardHooks) -> dict[str, Any]:
    """The card effects' part of a state's saved form and observation (the ``cards`` entries
    of :data:`EFFECT_KEYS`)."""
    return {
        "turn": state._cur,
        "pending": [pd.to_list() for pd in state._pending],
        "marks": {c: list(v) for c, v in sorted(state._marks.items())},
        "promised": [[r, s, GOODS[g], a] for r, s, g, a in state._promised],
        **({"used": list(state._turn)} if state._turn else {}),
        **({"hold": state._hold} if state._hold >= 0 else {}),
        **({"guests": [list(x) for x in state._guests]} if state._guests else {}),
    }


def read_effects(state: CardHooks, cards: Mapping[str, Any]) -> None:
    """Set the card effects' fields of ``state`` from the saved ``cards`` section (the played
    cards read already), checked; the index of played cards is built again."""
    n = state._n
    if "turn" in cards:
        state._cur = int(cards["turn"])
    state._pending = tuple(Pending.from_list(x) for x in cards.get("pending", ()))
    state._marks = {str(c): tuple(int(v) for v in vs)
                   for c, vs in cards.get("marks", {}).items()}
    state._promised = tuple(sorted((int(r), int(s), GOODS.index(g), int(a))
                                  for r, s, g, a in cards.get("promised", ())))
    state._turn = tuple(int(v) for v in cards.get("used", ()))
    state._hold = int(cards.get("hold", -1))
    state._guests = tuple((int(sp), int(p)) for sp, p in cards.get("guests", ()))
    if len(state._turn) not in (0, 2) or not -1 <= state._hold < n \
            or any(not 0 <= p < n for _, p in state._guests):
        raise ValueError("impossible turn under way")
    state._index = [NO_INDEX] * n
    state._listen = NO_LISTEN
    state._sub = ()
    state._seen = None
    for p in range(n):
        state._reindex(p)
    for pd in state._pending:
        if not 0 <= pd.seat < n or (pd.card and pd.card not in EFFECTS):
            raise ValueError(f"impossible card decision {pd}")
    for r, s, _, a in state._promised:
        if not state._board.round < r <= NUM_ROUNDS or not 0 <= s < n or a <= 0:
            raise ValueError(f"impossible goods promised on round {r} to seat {s}")
    if not all(c in EFFECTS for c in state._marks):
        raise ValueError("goods on a card without an effect")


__all__ = ["EFFECT_KEYS", "effects_dict", "read_effects"]
