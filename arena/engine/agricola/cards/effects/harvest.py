"""Cards whose effect comes when people return home (RETURN_HOME) or in the harvest's field
phase (FIELD_PHASE). The state fires both once everyone is home, seats in turn from the
starting player: first the returning home of every seat, then, on a harvest round, the
field-phase clauses of every seat, all before the fields are harvested ("at the start of each
field phase"); a decision they leave (Scythe Worker) is taken before feeding, after the
fields are harvested."""

from __future__ import annotations

from typing import Any

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import (
    USE,
    CardState,
    Pending,
    decline,
    register,
    use,
)
from arena.engine.agricola.cards.effects.capacity import bean_crop
from arena.engine.agricola.cards.effects.util import give, row
from arena.engine.agricola.components import BOAR, CATTLE, SHEEP
from arena.engine.agricola.farm import GRAIN as FIELD_GRAIN
from arena.engine.agricola.farm import VEGETABLE as FIELD_VEGETABLE

FIELD_PHASE = Moment.FIELD_PHASE
RETURN_HOME = Moment.RETURN_HOME


def _grain_fields(state: CardState, seat: int, least: int) -> list[int]:
    farm = state._farms[seat]
    return [c for c in range(15) if farm.fields >> c & 1
            and farm.crop(c)[0] == FIELD_GRAIN and farm.crop(c)[1] >= least]


# A112 Scythe Worker: 1 grain on play; in each field phase, may take 1 more grain from each
# grain field that still has grain after the regular harvest.
def _scythe(state: CardState, seat: int, card: str) -> None:
    if _grain_fields(state, seat, 2):  # the fields that will still hold grain
        state.ask(Pending(seat, card, "reap"))


def _scythe_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    if not _grain_fields(state, pd.seat, 1):
        return []
    return [use(pd.card), decline(pd.card)]


def _scythe_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    if action["type"] != USE:
        return
    farm = state._farms[pd.seat]
    cells = _grain_fields(state, pd.seat, 1)
    sown = list(farm._sown)
    for c in cells:
        sown[c] -= 1  # grain is counted positive
    farm._sown = tuple(sown)
    farm._open = None
    state.gain(pd.seat, row(grain=len(cells)))


register("A112", Moment.ON_PLAY, FIELD_PHASE,
         events={Moment.ON_PLAY: give(grain=1), FIELD_PHASE: _scythe},
         ask=_scythe_ask, answer=_scythe_answer)


# B039 Loom: 1/4/7+ sheep give 1/2/3 food in each field phase; 1 point per 3 sheep.
def _loom(state: CardState, seat: int, card: str) -> None:
    sheep = state._goods[seat][SHEEP]
    food = 3 if sheep >= 7 else 2 if sheep >= 4 else 1 if sheep >= 1 else 0
    if food:
        state.gain(seat, row(food=food))


def _loom_points(state: CardState, owner: int, seat: int) -> int:
    return state._goods[seat][SHEEP] // 3 if seat == owner else 0


register("B039", FIELD_PHASE, Moment.SCORING, events={FIELD_PHASE: _loom}, score=_loom_points)


# B050 Butter Churn: 1 food per 3 sheep and per 2 cattle.
def _churn(state: CardState, seat: int, card: str) -> None:
    g = state._goods[seat]
    food = g[SHEEP] // 3 + g[CATTLE] // 2
    if food:
        state.gain(seat, row(food=food))


register("B050", FIELD_PHASE, events={FIELD_PHASE: _churn})


# B061 Three-Field Rotation: a grain field, a vegetable field and an empty field (the
# Beanfield counts as a field) before the harvest: 3 food.
def _rotation(state: CardState, seat: int, card: str) -> None:
    farm = state._farms[seat]
    kinds = {farm.crop(c)[0] if farm.crop(c)[1] else 0
             for c in range(15) if farm.fields >> c & 1}
    if "B068" in state.played(seat)[1]:
        kinds.add(FIELD_VEGETABLE if bean_crop(state, seat) else 0)
    if {0, FIELD_GRAIN, FIELD_VEGETABLE} <= kinds:
        state.gain(seat, row(food=3))


register("B061", FIELD_PHASE, events={FIELD_PHASE: _rotation})


# A053 Claypipe: 7 or more building resources gained in this round's work phase: 2 food.
# The state counts them on the card's mark as (round, amount) while they are gained.
def _claypipe(state: CardState, seat: int, card: str) -> None:
    mark = state.mark(card)
    state.set_mark(card, ())
    if mark and mark[0] == state._board.round and mark[1] >= 7:
        state.gain(seat, row(food=2))


register("A053", RETURN_HOME, events={RETURN_HOME: _claypipe})


def count_resources(state: CardState, seat: int, before: tuple[int, ...]) -> None:
    """Add to the owner's Claypipe the building resources ``seat`` gained since ``before``
    (each of wood, clay, reed, stone that grew)."""
    if "A053" not in state.played(seat)[1]:
        return
    got = sum(max(0, a - b) for a, b in zip(state._goods[seat][:4], before[:4], strict=True))
    if got:
        rnd = state._board.round
        mark = state.mark("A053")
        had = mark[1] if mark and mark[0] == rnd else 0
        state.set_mark("A053", (rnd, had + got))


# A165 Pig Breeder: 1 wild boar on play; at the end of round 12, the boar breed.
def _pig_breeder(state: CardState, seat: int, card: str) -> None:
    g = state._goods[seat]
    if state._board.round == 12 and g[BOAR] >= 2 \
            and state._farms[seat].fits(g[SHEEP], g[BOAR] + 1, g[CATTLE]):
        state.gain(seat, row(boar=1))


register("A165", Moment.ON_PLAY, RETURN_HOME,
         events={Moment.ON_PLAY: give(boar=1), RETURN_HOME: _pig_breeder})

__all__ = ["count_resources"]
