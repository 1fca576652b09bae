"""The card effects: :data:`EFFECTS`, card id -> :class:`~.base.Effect`, filled by the group
modules imported here (each registers its cards on import). The words stay in
:mod:`..occupations` and :mod:`..minors`; a card missing here is played for its cost and
points only."""

from arena.engine.agricola.cards.effects import (
    anytime,
    capacity,
    collect,
    costs,
    harvest,
    on_play,
    round_start,
    scoring,
    sub_action,
)
from arena.engine.agricola.cards.effects.base import EFFECTS, Effect, Pending

__all__ = ["EFFECTS", "Effect", "Pending", "anytime", "capacity", "collect", "costs",
           "harvest", "on_play", "round_start", "scoring", "sub_action"]
