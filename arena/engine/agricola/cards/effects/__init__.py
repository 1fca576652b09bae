"""The card effects: :data:`EFFECTS`, card id -> :class:`~.base.Effect`, filled by the group
modules imported here (each registers its cards on import). The words stay in
:mod:`..occupations` and :mod:`..minors`; a card missing here is played for its cost and
points only. :data:`PLACEMENT` holds the cards that change where a person may be placed."""

from arena.engine.agricola.cards.effects import (
    anytime,
    capacity,
    collect,
    costs,
    harvest,
    on_play,
    round_start,
    scoring,
    spaces_optional,
    spaces_used,
    sub_action,
)
from arena.engine.agricola.cards.effects.base import EFFECTS, Effect, Pending
from arena.engine.agricola.cards.effects.spaces_used import PLACEMENT

__all__ = ["EFFECTS", "PLACEMENT", "Effect", "Pending", "anytime", "capacity", "collect",
           "costs", "harvest", "on_play", "round_start", "scoring", "spaces_optional",
           "spaces_used", "sub_action"]
