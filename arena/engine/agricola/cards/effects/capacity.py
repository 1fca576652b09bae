"""Cards that change where animals, people or crops may be kept (CAPACITY clauses).

A capacity rule is data on the effect (``capacity``): what the card adds. Card mode gives a
seat holding such a card a :class:`CardFarm`, a farm that reads those additions wherever the
Family engine asks a farm how many animals fit, what to keep, or whether a person has room;
so breeding, markets, "which animals to keep" and scoring all follow without further hooks.
The additions come from the played cards and are set again when a state is read: they are
never saved with the farm.

- ``pets_per_room``: the house holds 1 animal (any type) per room instead of 1 in all.
- ``pasture``: each pasture holds that many more animals.
- ``homes``: places for people besides the rooms.
- ``bean_field``: the card is a field where only vegetables are sown (its crop is the card's
  mark; sowing, the field phase and scoring read it, see :mod:`.harvest`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from arena.engine.agricola.cards.card import Moment
from arena.engine.agricola.cards.effects.base import CardState, Pending, choice, register
from arena.engine.agricola.cards.effects.util import row
from arena.engine.agricola.components import VEGETABLE
from arena.engine.agricola.farm import SOWN, Farm
from arena.engine.agricola.farm import VEGETABLE as FIELD_VEGETABLE
from arena.engine.agricola.herds import Herd, pareto, pasture_capacity

CAPACITY = Moment.CAPACITY


class CardFarm(Farm):
    """A farm whose room for animals and people is widened by its owner's cards."""

    __slots__ = ("_homes", "_pasture_bonus", "_pets_per_room")

    _pets_per_room: bool
    _pasture_bonus: int
    _homes: int

    @classmethod
    def of(cls, farm: Farm, rules: Iterable[Mapping[str, int]]) -> Farm:
        """``farm`` with the capacity ``rules`` of the cards (a plain Farm when none)."""
        pets = pasture = homes = 0
        for r in rules:
            pets |= r.get("pets_per_room", 0)
            pasture += r.get("pasture", 0)
            homes += r.get("homes", 0)
        if not (pets or pasture or homes):
            return farm if type(farm) is Farm else _plain(farm)
        f = cls.__new__(cls)
        for name in Farm.__slots__:
            setattr(f, name, getattr(farm, name))
        f._pets_per_room = bool(pets)
        f._pasture_bonus = pasture
        f._homes = homes
        f._cap = None
        return f

    def copy(self) -> CardFarm:
        f = CardFarm.__new__(CardFarm)
        for name in (*Farm.__slots__, *CardFarm.__slots__):
            setattr(f, name, getattr(self, name))
        return f

    def homes(self) -> int:
        return self._rooms.bit_count() + self._homes

    def pasture_capacity(self, pasture: int) -> int:
        return pasture_capacity(pasture, self._stables) + self._pasture_bonus

    def flexible_slots(self) -> int:
        pets = self._rooms.bit_count() if self._pets_per_room else 1
        return self.unfenced_stables() + pets

    def capacity_frontier(self) -> tuple[Herd, ...]:
        if self._cap is None:
            points: set[Herd] = {(0, 0, 0)}
            for p in self._pastures:
                cap = self.pasture_capacity(p)
                points = set(pareto({q for s, b, c in points
                                     for q in ((s + cap, b, c), (s, b + cap, c),
                                               (s, b, c + cap))}))
            self._cap = pareto(points)
        return self._cap


def _plain(farm: Farm) -> Farm:
    f = Farm.__new__(Farm)
    for name in Farm.__slots__:
        setattr(f, name, getattr(farm, name))
    f._cap = None
    return f


# A086 Animal Tamer: 1 wood or 1 grain on play; the house holds 1 animal per room.
def _tamer_play(state: CardState, seat: int, card: str) -> None:
    state.ask(Pending(seat, card, "take"))


def _tamer_ask(state: CardState, pd: Pending) -> list[dict[str, Any]]:
    return [choice(pd.card, "wood"), choice(pd.card, "grain")]


def _tamer_answer(state: CardState, pd: Pending, action: dict[str, Any]) -> None:
    state.gain(pd.seat, row(**{action["choice"]: 1}))


register("A086", Moment.ON_PLAY, CAPACITY, events={Moment.ON_PLAY: _tamer_play},
         ask=_tamer_ask, answer=_tamer_answer, capacity={"pets_per_room": 1})
register("A012", CAPACITY, capacity={"pasture": 2})  # Drinking Trough
register("B010", CAPACITY, capacity={"homes": 1})  # Caravan


# B068 Beanfield: a field on the card for vegetables only; its crop is the card's mark.
BEANFIELD = "B068"


def bean_sow_options(state: CardState, seat: int) -> list[dict[str, Any]]:
    """The sowing of the Beanfield ``seat`` may add to a sow action (it is empty and the seat
    has a vegetable)."""
    if BEANFIELD in state.played(seat)[1] and not state.mark(BEANFIELD) \
            and state._goods[seat][VEGETABLE] >= 1:
        return [{"type": "sow", "cell": -1, "crop": "vegetable", "card": BEANFIELD}]
    return []


def bean_sow(state: CardState, seat: int) -> None:
    """Sow the Beanfield: 1 vegetable from the supply, as many on the card as a farmyard
    field gets."""
    state.gain(seat, row(vegetable=-1))
    state.set_mark(BEANFIELD, (SOWN[FIELD_VEGETABLE],))


def bean_harvest(state: CardState, seat: int) -> None:
    """The field phase of the Beanfield: 1 vegetable off the card, when it holds any."""
    if BEANFIELD in state.played(seat)[1] and state.mark(BEANFIELD):
        left = state.mark(BEANFIELD)[0] - 1
        state.set_mark(BEANFIELD, (left,) if left else ())
        state.gain(seat, row(vegetable=1))


def bean_crop(state: CardState, seat: int) -> int:
    """The vegetables on ``seat``'s Beanfield (they score as vegetables)."""
    return state.mark(BEANFIELD)[0] if state.mark(BEANFIELD) and \
        BEANFIELD in state.played(seat)[1] else 0


register(BEANFIELD, CAPACITY, capacity={"bean_field": 1})

__all__ = ["BEANFIELD", "CardFarm", "bean_crop", "bean_harvest", "bean_sow", "bean_sow_options"]
