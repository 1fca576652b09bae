"""Stone Age component data: goods, places, the 36 civilization cards and the 28 buildings.

Everything here is immutable data of the published base game (see ``RULES.md`` beside this
file). Cards and buildings are referred to by their index into :data:`CARDS` and
:data:`BUILDINGS`; those indices are stable and are what observations and saved states carry.
"""

from __future__ import annotations

from itertools import product
from typing import Final, NamedTuple

# --- goods ---------------------------------------------------------------------------------
# Index into a player's goods row. Food is not a "resource": it cannot pay for cards or
# buildings and scores nothing at the end.
FOOD, WOOD, CLAY, STONE, GOLD = 0, 1, 2, 3, 4
GOODS: Final = ("food", "wood", "clay", "stone", "gold")
RESOURCES: Final = ("wood", "clay", "stone", "gold")
#: Gathering divisor of each good, which is also the point value of a resource.
DIVISOR: Final = (2, 3, 4, 5, 6)

# --- places on the board --------------------------------------------------------------------
HUNT, FOREST, CLAY_PIT, QUARRY, RIVER, TOOL_MAKER, HUT, FIELD = range(8)
CARD0 = 8  # civilization card slots 8..11; slot 8 is the rightmost, costing 1 resource
PILE0 = 12  # building piles 12..15
NUM_PLACES: Final = 16
VILLAGE: Final = (TOOL_MAKER, HUT, FIELD)
PLACE_NAMES: Final = (
    "hunting", "forest", "clay_pit", "quarry", "river", "tool_maker", "hut", "field",
)
RESOURCE_PLACE_CAPACITY: Final = 7
MAX_PEOPLE: Final = 10
MAX_AGRICULTURE: Final = 10
START_PEOPLE: Final = 5
START_FOOD: Final = 12
FEEDING_PENALTY: Final = 10

# --- tools ------------------------------------------------------------------------------------
#: Permanent tool values after each tool step (0..12): three value-1 tools arrive first, then
#: one tool at a time is raised to 2, then to 3, then to 4.
TOOL_VALUES: Final[tuple[tuple[int, ...], ...]] = (
    (), (1,), (1, 1), (1, 1, 1),
    (2, 1, 1), (2, 2, 1), (2, 2, 2),
    (3, 2, 2), (3, 3, 2), (3, 3, 3),
    (4, 3, 3), (4, 4, 3), (4, 4, 4),
)
MAX_TOOL_STEP: Final = 12

# --- civilization cards -----------------------------------------------------------------------
SYMBOLS: Final = (
    "pottery", "writing", "sundial", "transport", "medicine", "weaving", "art", "music",
)
FIGURES: Final = ("farmer", "tool_maker", "hut_builder", "shaman")
FARMER, TOOL_MAKER_FIG, HUT_BUILDER, SHAMAN = range(4)

# Top (immediate effect) kinds.
T_DICE_ALL = "dice_for_everyone"
T_FOOD = "food"
T_RESOURCE = "resource"
T_ROLL = "roll_two_dice"
T_POINTS = "points"
T_TOOL = "tool"
T_AGRICULTURE = "agriculture"
T_EXTRA_CARD = "extra_card"
T_ONE_USE_TOOL = "one_use_tool"
T_ANY_TWO = "any_two_resources"


class Card(NamedTuple):
    """One civilization card: an immediate effect on top, a scoring bottom.

    ``top`` is ``(kind, amount, good)``: the amount of food/resource/points, the value of a
    one-use tool, or the good rolled for; unused parts are 0. ``symbol`` is the culture symbol
    index of a green card or -1; ``figure``/``figures`` give the kind and count of people on a
    sand card (``figure`` is -1 on green cards).
    """

    top: str
    amount: int
    good: int
    symbol: int
    figure: int
    figures: int


def _green(top: str, amount: int, good: int, symbol: str) -> Card:
    return Card(top, amount, good, SYMBOLS.index(symbol), -1, 0)


def _sand(top: str, amount: int, good: int, count: int, figure: str) -> Card:
    return Card(top, amount, good, -1, FIGURES.index(figure), count)


CARDS: Final[tuple[Card, ...]] = (
    _green(T_DICE_ALL, 0, 0, "pottery"),
    _green(T_DICE_ALL, 0, 0, "writing"),
    _green(T_DICE_ALL, 0, 0, "sundial"),
    _green(T_DICE_ALL, 0, 0, "transport"),
    _sand(T_DICE_ALL, 0, 0, 1, "hut_builder"),
    _sand(T_DICE_ALL, 0, 0, 2, "hut_builder"),
    _sand(T_DICE_ALL, 0, 0, 1, "farmer"),
    _sand(T_DICE_ALL, 0, 0, 2, "farmer"),
    _sand(T_DICE_ALL, 0, 0, 2, "tool_maker"),
    _sand(T_DICE_ALL, 0, 0, 2, "tool_maker"),
    _green(T_FOOD, 7, FOOD, "pottery"),
    _green(T_FOOD, 5, FOOD, "medicine"),
    _green(T_FOOD, 3, FOOD, "weaving"),
    _green(T_FOOD, 1, FOOD, "weaving"),
    _sand(T_FOOD, 4, FOOD, 1, "hut_builder"),
    _sand(T_FOOD, 2, FOOD, 2, "hut_builder"),
    _sand(T_FOOD, 3, FOOD, 2, "farmer"),
    _green(T_RESOURCE, 2, STONE, "transport"),
    _sand(T_RESOURCE, 1, STONE, 1, "farmer"),
    _sand(T_RESOURCE, 1, STONE, 1, "shaman"),
    _sand(T_RESOURCE, 1, GOLD, 1, "shaman"),
    _sand(T_RESOURCE, 1, CLAY, 2, "shaman"),
    _green(T_ROLL, 0, GOLD, "art"),
    _sand(T_ROLL, 0, WOOD, 2, "shaman"),
    _sand(T_ROLL, 0, STONE, 1, "shaman"),
    _green(T_POINTS, 3, 0, "music"),
    _green(T_POINTS, 3, 0, "music"),
    _sand(T_POINTS, 3, 0, 3, "hut_builder"),
    _green(T_TOOL, 1, 0, "art"),
    _green(T_AGRICULTURE, 1, 0, "sundial"),
    _sand(T_AGRICULTURE, 1, 0, 1, "farmer"),
    _green(T_EXTRA_CARD, 0, 0, "writing"),
    _sand(T_ONE_USE_TOOL, 4, 0, 1, "tool_maker"),
    _sand(T_ONE_USE_TOOL, 3, 0, 1, "tool_maker"),
    _sand(T_ONE_USE_TOOL, 2, 0, 2, "tool_maker"),
    _green(T_ANY_TWO, 2, 0, "medicine"),
)

# --- buildings --------------------------------------------------------------------------------
B_FIXED = "fixed"
B_VARIABLE = "variable"  # exactly `count` resources of exactly `kinds` different kinds
B_ANY = "one_to_seven"  # 1..7 resources of any kinds


class Building(NamedTuple):
    """A building tile.

    ``cost`` is (wood, clay, stone, gold) for a fixed tile, else zeros; ``size`` is the number
    of resources (the maximum, 7, for the one-to-seven tiles); ``kinds`` the exact number of
    different resources a variable tile takes.
    """

    kind: str
    cost: tuple[int, int, int, int]
    size: int
    kinds: int


def _fixed(wood: int, clay: int, stone: int, gold: int) -> Building:
    return Building(B_FIXED, (wood, clay, stone, gold), wood + clay + stone + gold, 0)


BUILDINGS: Final[tuple[Building, ...]] = (
    _fixed(2, 1, 0, 0),
    _fixed(2, 0, 1, 0),
    _fixed(1, 2, 0, 0),
    _fixed(2, 0, 0, 1),
    _fixed(1, 0, 2, 0),
    _fixed(0, 2, 1, 0),
    _fixed(0, 2, 0, 1),
    _fixed(0, 1, 2, 0),
    _fixed(0, 0, 2, 1),
    _fixed(1, 1, 1, 0), _fixed(1, 1, 1, 0),
    _fixed(1, 1, 0, 1), _fixed(1, 1, 0, 1),
    _fixed(1, 0, 1, 1), _fixed(1, 0, 1, 1),
    _fixed(0, 1, 1, 1), _fixed(0, 1, 1, 1),
    Building(B_VARIABLE, (0, 0, 0, 0), 4, 1),
    Building(B_VARIABLE, (0, 0, 0, 0), 4, 2),
    Building(B_VARIABLE, (0, 0, 0, 0), 4, 3),
    Building(B_VARIABLE, (0, 0, 0, 0), 4, 4),
    Building(B_VARIABLE, (0, 0, 0, 0), 5, 1),
    Building(B_VARIABLE, (0, 0, 0, 0), 5, 2),
    Building(B_VARIABLE, (0, 0, 0, 0), 5, 3),
    Building(B_VARIABLE, (0, 0, 0, 0), 5, 4),
    Building(B_ANY, (0, 0, 0, 0), 7, 0),
    Building(B_ANY, (0, 0, 0, 0), 7, 0),
    Building(B_ANY, (0, 0, 0, 0), 7, 0),
)
PILE_SIZE: Final = 7


def payment_points(pay: tuple[int, int, int, int]) -> int:
    """Point value of a payment (wood, clay, stone, gold): 3, 4, 5, 6 each."""
    return 3 * pay[0] + 4 * pay[1] + 5 * pay[2] + 6 * pay[3]


# --- payment tables ---------------------------------------------------------------------------
# Every way to pay is a (wood, clay, stone, gold) tuple. These tables hold all candidates in a
# fixed order; a state filters them by what the player holds.


def _compositions(total: int) -> tuple[tuple[int, int, int, int], ...]:
    r = range(total + 1)
    return tuple((w, c, s, g) for w, c, s, g in product(r, r, r, r) if w + c + s + g == total)


#: All (w, c, s, g) with the given total, for totals 0..10.
COMPOSITIONS: Final = tuple(_compositions(t) for t in range(11))


def building_payments(b: Building) -> tuple[tuple[int, int, int, int], ...]:
    """Every distinct payment a building accepts, ignoring what the buyer holds."""
    if b.kind == B_FIXED:
        return (b.cost,)
    if b.kind == B_VARIABLE:
        return tuple(p for p in COMPOSITIONS[b.size] if sum(1 for x in p if x) == b.kinds)
    return tuple(p for t in range(1, 8) for p in COMPOSITIONS[t])


BUILDING_PAYMENTS: Final = tuple(building_payments(b) for b in BUILDINGS)

#: The ten ways to claim the "any 2 resources" card: two resources, same or different.
CLAIMS: Final = tuple(p for p in COMPOSITIONS[2])

#: Dice-for-everyone: die face -> effect. 1..4 give one wood/clay/stone/gold.
DIE_FACE_GOOD: Final = (0, WOOD, CLAY, STONE, GOLD)  # index by face; 5 = tool, 6 = agriculture
