"""The card effects: :data:`EFFECTS`, card id -> :class:`~.base.Effect`, filled by the group
modules imported here (each registers its cards on import). The words stay in
:mod:`..occupations` and :mod:`..minors`; a card missing here is played for its cost and
points only. :data:`PLACEMENT` holds the cards that change where a person may be placed.
:data:`INDEXED_AT` and :func:`listeners` are what the state's index of played cards is built
from (:mod:`..hooks`)."""

from collections.abc import Mapping, Sequence
from typing import Final

from arena.engine.agricola.cards.card import Moment
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
from arena.engine.agricola.cards.effects.base import EFFECTS, Effect, Event, Pending
from arena.engine.agricola.cards.effects.spaces_used import PLACEMENT

M = Moment
#: Per card, the moments its effect has an event or a rule at (those a seat's index lists it
#: under), worked out once.
INDEXED_AT: Final[Mapping[str, tuple[Moment, ...]]] = {
    card: (*e.events, *((M.SCORING,) if e.score else ()), *((M.COST,) if e.cost else ()),
           *((M.ANYTIME,) if e.anytime else ()), *((M.CAPACITY,) if e.capacity else ()))
    for card, e in EFFECTS.items()}
#: The moments every seat's cards hear at each step, listed for all seats at once.
EVERY_SEAT: Final = (M.SPACE_USED, M.SUB_ACTION, M.RETURN_HOME)
#: The cards with an effect at a moment of :data:`EVERY_SEAT`: playing another leaves the
#: listeners (:func:`listeners`) as they were.
HEARD_BY_EVERY_SEAT: Final = frozenset(
    c for c, moments in INDEXED_AT.items() if not set(moments).isdisjoint(EVERY_SEAT))
Index = Mapping[Moment, tuple[str, ...]]
UsedBy = tuple[tuple[tuple[int, str, Event, frozenset[int] | None], ...], ...]


def listeners(index: Sequence[Index]) -> tuple[dict[Moment, tuple[tuple[int, str], ...]], UsedBy]:
    """From every seat's index: the cards of each moment of :data:`EVERY_SEAT` as (seat, card)
    in seat order (moments nobody hears left out), and per user seat the SPACE_USED events in
    the order a use by that seat fires them, as (seat, card, event, the spaces it acts on or
    None): the user's cards and those of the seats after it, then the seats before it."""
    listen = {}
    for m in EVERY_SEAT:
        heard = tuple((p, c) for p, per_seat in enumerate(index) for c in per_seat.get(m, ()))
        if heard:
            listen[m] = heard
    if _SPACE_USED not in listen:
        return listen, ((),) * len(index)
    used = tuple((p, c, EFFECTS[c].events[_SPACE_USED], EFFECTS[c].spaces)
                 for p, c in listen[_SPACE_USED])
    # ``used`` is in seat order, so each user's order is a rotation of it.
    before = [sum(1 for x in used if x[0] < user) for user in range(len(index))]
    return listen, tuple(used[k:] + used[:k] for k in before)


_SPACE_USED: Final = M.SPACE_USED  # a module name: faster to read than the enum member


__all__ = ["EFFECTS", "EVERY_SEAT", "HEARD_BY_EVERY_SEAT", "INDEXED_AT", "PLACEMENT", "Effect",
           "Pending", "UsedBy", "anytime", "capacity", "collect", "costs", "harvest", "listeners",
           "on_play", "round_start", "scoring", "spaces_optional", "spaces_used", "sub_action"]
