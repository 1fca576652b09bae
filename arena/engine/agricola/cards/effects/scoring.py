"""Cards that give bonus points at the end: pure functions of the final state,
``(state, owner, seat) -> points``, counted in the breakdown's "cards" entry."""

from __future__ import annotations

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import CardState, register

SCORING = Moment.SCORING


def _stable_architect(state: CardState, owner: int, seat: int) -> int:
    return state._farms[seat].unfenced_stables() if seat == owner else 0


register("A098", SCORING, score=_stable_architect)
