"""What a card is: its printed facts (deck, number, name, cost, prerequisite, points, player
marker, traveling arrow) and its effect as clauses, each hooked into one moment of the game.

A clause's words are the project's own, written as the rule a referee applies; the card texts
belong to the publisher and are not copied. Goods are named as in
:data:`arena.engine.agricola.components.GOODS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from arena.engine.agricola.components import GOODS


class Kind(StrEnum):
    OCCUPATION = "occupation"
    MINOR = "minor_improvement"


class Moment(StrEnum):
    """Where a clause hooks into the game. The first eight are events (the clause fires when
    the event happens); the last four are standing rules, read whenever the engine needs them.
    """

    ON_PLAY = "on_play"  # once, as the card is played
    SPACE_USED = "space_used"  # each time a space is used (placing a person included)
    SUB_ACTION = "sub_action"  # just before or after a sub-action (build, bake, plough, play)
    ROUND_START = "round_start"  # the preparation phase, goods on round spaces included
    RETURN_HOME = "return_home"  # the returning-home phase, or the end of a round
    FIELD_PHASE = "field_phase"  # the harvest's field phase
    FEEDING = "feeding"  # the harvest's feeding phase
    BEFORE_SCORING = "before_scoring"  # after the last harvest, before points are counted
    COST = "cost"  # changes what something costs, or whether it may be bought at all
    CAPACITY = "capacity"  # changes where people, animals or crops may be kept
    SCORING = "scoring"  # bonus points, a pure function of the final farm
    ANYTIME = "anytime"  # a conversion the owner may make at any time


#: The moments that are standing rules rather than events.
MODIFIERS: Final = frozenset({Moment.COST, Moment.CAPACITY, Moment.SCORING, Moment.ANYTIME})


@dataclass(frozen=True, slots=True)
class Clause:
    """One rule of a card's effect: when it applies, whether its owner may decline it (then
    the engine offers it as a decision with a "no"), and what it does."""

    moment: Moment
    text: str
    optional: bool = False


def auto(moment: Moment, text: str) -> Clause:
    """A clause that happens whenever its moment comes, without asking."""
    return Clause(moment, text, optional=False)


def may(moment: Moment, text: str) -> Clause:
    """A clause its owner may use or decline at its moment."""
    return Clause(moment, text, optional=True)


def collect(what: str) -> Clause:
    """The clause of a card that puts goods on round spaces: at the start of each of those
    rounds its owner takes what lies there for them."""
    return auto(Moment.ROUND_START, f"At the start of those rounds, take that {what}.")


class Count(StrEnum):
    """What a prerequisite counts, in the owner's farm at the moment the card is played."""

    OCCUPATIONS = "occupations"  # occupations in front of the player
    GRAIN_FIELDS = "grain_fields"  # fields with grain on them
    VEGETABLE_FIELDS = "vegetable_fields"  # fields with vegetables on them
    UNUSED_SPACES = "unused_spaces"  # farmyard spaces unused, as scoring counts them
    SHEEP = "sheep"
    CLAY = "clay"  # clay in the personal supply (kept, not paid)
    HOUSE_MATERIAL = "house_material"  # 0 wood, 1 clay, 2 stone (HOUSE_WOOD/CLAY/STONE)
    PEOPLE_ON_FISHING = "people_on_fishing"  # the player's people on the Fishing space


#: How a count reads in words: (plural, singular).
_NOUNS: Final = {
    Count.OCCUPATIONS: ("occupations", "occupation"),
    Count.GRAIN_FIELDS: ("grain fields", "grain field"),
    Count.VEGETABLE_FIELDS: ("vegetable fields", "vegetable field"),
    Count.SHEEP: ("sheep", "sheep"),
    Count.CLAY: ("clay in the supply", "clay in the supply"),
    Count.PEOPLE_ON_FISHING: ("people on Fishing", "person on Fishing"),
}


@dataclass(frozen=True, slots=True)
class Prerequisite:
    """What a player must have (not pay) to play a card: ``low <= count <= high``, ``high``
    None for no upper bound."""

    count: Count
    low: int = 0
    high: int | None = None

    def met(self, value: int) -> bool:
        return self.low <= value and (self.high is None or value <= self.high)

    def words(self) -> str:
        if self.count is Count.HOUSE_MATERIAL:
            return ("a clay or stone house", "a stone house")[self.low - 1]
        if self.count is Count.UNUSED_SPACES:
            return "no unused farmyard space"
        noun = _NOUNS[self.count][self.low == 1 or self.high == 1]
        if self.high is None:
            return f"at least {self.low} {noun}"
        if self.low == self.high:
            return f"exactly {self.low} {noun}"
        return f"at most {self.high} {noun}"


def at_least(count: Count, n: int) -> Prerequisite:
    return Prerequisite(count, n)


def at_most(count: Count, n: int) -> Prerequisite:
    return Prerequisite(count, 0, n)


def exactly(count: Count, n: int) -> Prerequisite:
    return Prerequisite(count, n, n)


NO_GOODS: Final[Mapping[str, int]] = MappingProxyType({})


def goods(**amounts: int) -> Mapping[str, int]:
    """A read-only amount of goods by their engine names, in :data:`GOODS` order; an unknown
    name or an amount below 1 is a ValueError."""
    wrong = sorted(g for g, n in amounts.items() if g not in GOODS or n < 1)
    if wrong:
        raise ValueError(f"not goods, or not positive: {wrong}")
    return MappingProxyType({g: amounts[g] for g in GOODS if g in amounts})


@dataclass(frozen=True, slots=True)
class Card:
    """One card of the deck. ``id`` is the deck letter and the printed number ("A086");
    ``min_players`` the occupation's player marker (1, 3 or 4; minors are 1); ``traveling``
    says a minor passes to the left-hand neighbour's hand once its effect is done;
    ``cost_per_person`` is paid on top of ``cost`` once for each person the player has."""

    id: str
    name: str
    kind: Kind
    clauses: tuple[Clause, ...]
    cost: Mapping[str, int] = field(default_factory=lambda: NO_GOODS, hash=False)
    cost_per_person: Mapping[str, int] = field(default_factory=lambda: NO_GOODS, hash=False)
    prerequisite: Prerequisite | None = None
    points: int = 0
    min_players: int = 1
    traveling: bool = False

    @property
    def deck(self) -> str:
        return self.id[0]

    @property
    def number(self) -> int:
        return int(self.id[1:])

    @property
    def effect(self) -> str:
        """The whole effect in words: the clauses in order."""
        return " ".join(c.text for c in self.clauses)

    @property
    def moments(self) -> tuple[Moment, ...]:
        return tuple(c.moment for c in self.clauses)

    @property
    def optional(self) -> bool:
        """Whether any clause leaves its owner a "no"."""
        return any(c.optional for c in self.clauses)


def occupation(id: str, name: str, min_players: int, *clauses: Clause) -> Card:
    return Card(id, name, Kind.OCCUPATION, clauses, min_players=min_players)


def minor(id: str, name: str, cost: Mapping[str, int], *clauses: Clause, points: int = 0,
          prerequisite: Prerequisite | None = None, traveling: bool = False,
          cost_per_person: Mapping[str, int] = NO_GOODS) -> Card:
    return Card(id, name, Kind.MINOR, clauses, cost=cost, cost_per_person=cost_per_person,
                prerequisite=prerequisite, points=points, traveling=traveling)
