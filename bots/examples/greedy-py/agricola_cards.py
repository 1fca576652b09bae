"""What greedy-py knows of Agricola's cards (card mode: occupations and minor improvements).

A card's worth, in final points, is what it gives now plus a rough value of its ongoing effect
by the rounds left. Nothing here simulates a card: the numbers are a player's rules of thumb,
read off the card's words (``arena.engine.agricola.cards``, whose printed facts, cost, points
and prerequisite, this module reads). agricola_policy.py adds the worth to its farm model when
it values playing a card, so a card is played when it is worth more than what else the
decision offers.

- :data:`WORTH`: per card, ``(now, per_round)``: points now (the goods it gives on play, or a
  one-off effect) and points per round left (an effect that keeps giving). Printed points and
  the cost are not in it: they come from the card itself.
- :data:`USE`: what using an optional clause ("you may ...") changes in the goods, for the
  cards where it costs something; any other clause is worth :data:`USE_GAIN` when used.
- Any-time conversions (:data:`ANYTIME`) are never taken: the policy keeps its goods.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.engine.agricola.cards.card import Card, Count, Kind
from arena.engine.agricola.cards.deck import BY_ID

#: Every card of the base deck, by id ("A086").
CARDS: Mapping[str, Card] = BY_ID

#: (now, per round left), in points; see the module docstring.
WORTH: dict[str, tuple[float, float]] = {
    # --- occupations ----------------------------------------------------------------------
    "A086": (0.5, 0.05),  # a wood or grain, and room for animals in the house
    "A087": (0.0, 0.05),
    "A088": (1.5, 0.1),  # 3 free fences a Build Fences action
    "A090": (0.0, 0.05),  # needs a stone house
    "A092": (0.0, 0.05),
    "A098": (0.8, 0.0),  # a point per stable outside the pastures
    "A102": (0.3, 0.1),
    "A108": (0.0, 0.15),
    "A110": (0.0, 0.1),
    "A111": (0.0, 0.1),
    "A112": (0.4, 0.15),  # a grain, and more grain every harvest
    "A114": (0.0, 0.15),
    "A116": (0.0, 0.25),  # a wood more from every wood space
    "A119": (0.0, 0.15),
    "A120": (0.8, 0.05),
    "A123": (0.0, 0.1),
    "A125": (0.3, 0.0),
    "A133": (1.0, 0.0),  # points for many improvements
    "A138": (0.0, 0.1),
    "A143": (0.0, 0.15),
    "A147": (0.0, 0.1),
    "A155": (0.0, 0.05),
    "A160": (0.0, 0.05),
    "A165": (0.7, 0.0),  # a wild boar
    "B087": (0.0, 0.15),
    "B089": (0.3, 0.05),
    "B091": (0.0, 0.2),  # ploughs with Day Laborer
    "B095": (0.0, 0.1),
    "B097": (0.0, 0.05),
    "B098": (0.0, 0.1),
    "B099": (0.3, 0.05),
    "B102": (1.2, 0.0),  # 3 clay with two players
    "B104": (0.0, 0.05),
    "B107": (0.0, 0.2),
    "B108": (0.0, 0.15),
    "B109": (0.0, 0.1),
    "B114": (0.0, 0.1),
    "B118": (0.0, 0.15),
    "B121": (0.0, 0.25),  # a clay more from Forest and Reed Bank
    "B123": (0.0, 0.0),  # its use is a decision of its own (USE)
    "B126": (0.0, 0.1),
    "B136": (1.5, 0.0),  # wood by the rounds left, points for the most rooms
    "B142": (0.0, 0.2),
    "B145": (0.0, 0.1),
    "B156": (0.0, 0.05),
    "B163": (0.3, 0.0),
    "B164": (0.0, 0.15),  # sheep in later rounds
    "B166": (0.0, 0.15),
    # --- minor improvements -----------------------------------------------------------------
    "A002": (1.2, 0.0),  # ploughs a field
    "A005": (0.4, 0.0),
    "A009": (1.0, 0.0),  # a sheep becomes a cattle
    "A012": (0.0, 0.1),
    "A016": (0.3, 0.0),
    "A019": (0.0, 0.1),
    "A024": (0.0, 0.1),
    "A026": (0.0, 0.05),
    "A032": (0.8, 0.0),
    "A033": (0.0, 2.0),  # a point and 2 food a round left
    "A038": (1.5, 0.0),
    "A044": (1.5, 0.0),  # 3 food in the next rounds
    "A050": (0.0, 0.1),
    "A053": (0.0, 0.1),
    "A055": (0.3, 0.1),
    "A056": (0.0, 0.2),
    "A063": (0.0, 0.1),
    "A067": (0.0, 0.15),
    "A069": (2.0, 0.0),  # 3 vegetables in later rounds
    "A071": (0.0, 0.0),
    "A075": (0.0, 0.1),
    "A078": (0.0, 0.2),
    "A080": (0.0, 0.15),
    "A083": (0.0, 0.1),
    "B002": (1.5, 0.0),  # a free pasture
    "B008": (0.8, 0.0),  # a grain becomes a vegetable
    "B010": (1.5, 0.0),  # room for a person
    "B013": (0.0, 0.05),
    "B016": (0.4, 0.0),
    "B019": (0.0, 0.15),
    "B024": (0.0, 0.05),
    "B025": (0.4, 0.05),
    "B033": (0.0, 1.0),  # a point a round left (its printed -3 comes from the card)
    "B036": (0.0, 0.0),  # 4 printed points
    "B039": (0.0, 0.15),
    "B045": (1.5, 0.0),
    "B047": (0.0, 0.15),
    "B050": (0.0, 0.1),
    "B056": (0.0, 0.2),
    "B057": (0.0, 0.15),
    "B061": (0.0, 0.2),
    "B062": (0.0, 0.15),
    "B066": (1.5, 0.0),
    "B068": (1.0, 0.0),
    "B074": (1.5, 0.0),
    "B077": (0.0, 0.25),
    "B080": (0.0, 0.0),
    "B084": (1.5, 0.0),  # 2 wild boar in the next rounds
}

#: What using an optional clause changes in the goods (by the engine's good names), for the
#: clauses that cost something. "per_person" / "per_room" / "per_occupation" scale a good.
USE: dict[str, dict[str, Any]] = {
    "A090": {"food": -1},  # and a field (the action's cell)
    "A092": {"food": -1},
    "A108": {"wood": -1, "food": 2},
    "A056": {"wood": -2, "food": 3},
    "A138": {"wood": -1, "reed": 1, "per_person": "food"},
    "A147": {"food": -1},  # and an animal (the action says which)
    "A160": {"food": -2, "vegetable": 1},
    "B089": {"wood": -1},
    "B109": {"wood": -1, "per_occupation": "food"},
    "B123": {"food": -1, "per_room": "stone"},
    "B166": {"food": -1, "cattle": 1},
}
#: Using any other optional clause: a small gain (it is offered because it gives something).
USE_GAIN = 0.5
#: Conversions offered beside every decision of their owner: never taken by this policy.
ANYTIME = frozenset({"A071", "A102", "B080", "B104"})

#: The value of a card with nothing known about it.
UNKNOWN = (0.3, 0.05)


def worth(card_id: str, rounds_left: int) -> float:
    """What the card is worth in points once played now: printed points, what it gives now,
    and its ongoing effect by the rounds left."""
    now, per_round = WORTH.get(card_id, UNKNOWN)
    return CARDS[card_id].points + now + per_round * rounds_left


def is_occupation(card_id: str) -> bool:
    return CARDS[card_id].kind is Kind.OCCUPATION


def cost(card_id: str, people: int) -> dict[str, int]:
    """The goods a card costs (an occupation's food is the Lessons space's, not the card's)."""
    card = CARDS[card_id]
    out = dict(card.cost)
    for good, n in card.cost_per_person.items():
        out[good] = out.get(good, 0) + n * people
    return out


def prerequisite_met(card_id: str, counts: Mapping[Count, int]) -> bool:
    """Whether the card's prerequisite holds for these counts (a count not given fails)."""
    pre = CARDS[card_id].prerequisite
    if pre is None:
        return True
    return pre.count in counts and pre.met(counts[pre.count])
