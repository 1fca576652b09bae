"""Agricola (Revised Edition, Family game) component data: goods, action spaces for 1-4
players, the 14 stage cards, the 10 major improvements, set-up and cost constants, and the
scoring table.

Everything here is immutable data. The source of each table is named beside it: "ref A3" is
section A3 of the project's Agricola reference page (``shared/reference/agricola.md``), "seed"
the online implementation's help page (``seeds/002_*.txt``). Where they differ, or are silent,
the ruling is in ``RULES.md`` beside this file. Action spaces and majors are referred to
by their index into :data:`SPACES` and :data:`MAJORS`; those indices are stable and are what
observations and saved states carry.
"""

from __future__ import annotations

from typing import Final, NamedTuple

# --- goods (ref A7 "Unlimited: goods and food"; ref A8 harvest and scoring) --------------------
# Index into a player's goods row. The four building resources come first so that a cost,
# written (wood, clay, reed, stone), lines up with the row.
WOOD, CLAY, REED, STONE, GRAIN, VEGETABLE, FOOD, SHEEP, BOAR, CATTLE = range(10)
GOODS: Final = (
    "wood", "clay", "reed", "stone", "grain", "vegetable", "food", "sheep", "boar", "cattle",
)
#: Building resources: what rooms, stables, fences and majors cost, and the tie-break.
BUILDING_RESOURCES: Final = (WOOD, CLAY, REED, STONE)
CROPS: Final = (GRAIN, VEGETABLE)
ANIMALS: Final = (SHEEP, BOAR, CATTLE)

#: A cost in building resources: (wood, clay, reed, stone).
Cost = tuple[int, int, int, int]
NO_COST: Final[Cost] = (0, 0, 0, 0)

#: Food for one grain or one vegetable from the supply, at any time, without an improvement
#: (ref A7 "Food conversion"; seed: "手元に持っている小麦か野菜をいつでも食料1に変えられます").
RAW_FOOD: Final = ((GRAIN, 1), (VEGETABLE, 1))

# --- set-up (ref A2 "set-up"; seed "準備とボードの説明") -----------------------------------
NUM_PLAYERS_MIN, NUM_PLAYERS_MAX = 1, 4
#: Card mode: occupations and minor improvements each player is dealt (seed: 7 of each).
HAND_SIZE: Final = 7
FARM_ROWS, FARM_COLS = 3, 5
FARM_SPACES: Final = FARM_ROWS * FARM_COLS
#: The two pre-printed wooden rooms, as (row, column), row 0 at the top: the left column's
#: middle and bottom rows (ref A2, as AgricolaBot models them).
START_ROOMS: Final = ((1, 0), (2, 0))
START_PEOPLE: Final = 2
#: People in the personal supply at the start; START_PEOPLE + SUPPLY_PEOPLE is the maximum.
SUPPLY_PEOPLE: Final = 3
MAX_PEOPLE: Final = START_PEOPLE + SUPPLY_PEOPLE
MAX_STABLES: Final = 4
MAX_FENCES: Final = 15
#: Starting food: the starting player 2, every other player 3; solo 0 (ref A2, A8 "Solo").
START_FOOD_FIRST: Final = 2
START_FOOD_OTHERS: Final = 3
START_FOOD_SOLO: Final = 0

# --- house (ref A7 "Rooms", "Renovation"; seed アクションA) ---------------------------------
HOUSE_WOOD, HOUSE_CLAY, HOUSE_STONE = range(3)
HOUSE_MATERIALS: Final = ("wood", "clay", "stone")
#: One room, by house material: 5 of the material + 2 reed.
ROOM_COST: Final[tuple[Cost, Cost, Cost]] = ((5, 0, 2, 0), (0, 5, 2, 0), (0, 0, 2, 5))
#: Renovation from wood to clay, and from clay to stone: 1 of the new material per room plus
#: 1 reed for the whole house. The index is the material renovated *from*.
RENOVATION_PER_ROOM: Final[tuple[Cost, Cost]] = ((0, 1, 0, 0), (0, 0, 0, 1))
RENOVATION_REED: Final = 1


def room_cost(material: int) -> Cost:
    """What one room costs in a house of ``material`` (HOUSE_WOOD/CLAY/STONE)."""
    return ROOM_COST[material]


def renovation_cost(material: int, rooms: int) -> Cost:
    """What renovating a house of ``material`` with ``rooms`` rooms costs; a stone house
    cannot be renovated (ValueError)."""
    if material not in (HOUSE_WOOD, HOUSE_CLAY):
        raise ValueError("only a wooden or a clay house can be renovated")
    per = RENOVATION_PER_ROOM[material]
    return (per[0] * rooms, per[1] * rooms, RENOVATION_REED, per[3] * rooms)


# --- stables and fences (ref A7 "Stables", "Fences"; seed アクションD, E) ---------------------
STABLE_COST: Final[Cost] = (2, 0, 0, 0)  # Farm Expansion: any number
SIDE_JOB_STABLE_COST: Final[Cost] = (1, 0, 0, 0)  # Side Job: exactly one
FENCE_COST: Final[Cost] = (1, 0, 0, 0)  # each fence
PASTURE_CAPACITY_PER_SPACE: Final = 2  # doubled by each stable inside the pasture
UNFENCED_STABLE_CAPACITY: Final = 1
HOUSE_PETS: Final = 1  # one animal of any type in the house

# --- fields (ref A7 "Fields", "Sowing"; seed アクションC) ------------------------------------
#: Crops on a field after sowing: 1 from the supply + 2 (grain) or + 1 (vegetable) from the
#: general supply.
SOWN_GRAIN: Final = 3
SOWN_VEGETABLE: Final = 2

# --- people, feeding and begging (ref A7 "People", A8 "Harvest", "Solo"; seed 収穫) ----------
FOOD_PER_PERSON: Final = 2
FOOD_PER_NEWBORN: Final = 1  # a person born in the round of the harvest
FOOD_PER_PERSON_SOLO: Final = 3
FOOD_PER_NEWBORN_SOLO: Final = 1
BEGGING_POINTS: Final = -3  # per begging marker, one per food missing
#: Family growth "with room" needs more rooms than people (people on spaces count).
GROWTH_NEEDS_ROOM: Final = True

# --- rounds, stages, harvests (ref A2, A4; seed "ラウンドとステージ") -------------------------
NUM_ROUNDS: Final = 14
#: The rounds of each of the six stages.
STAGE_ROUNDS: Final = ((1, 2, 3, 4), (5, 6, 7), (8, 9), (10, 11), (12, 13), (14,))
HARVEST_ROUNDS: Final = (4, 7, 9, 11, 13, 14)


def stage_of_round(rnd: int) -> int:
    """The stage (1..6) of round ``rnd`` (1..14)."""
    for stage, rounds in enumerate(STAGE_ROUNDS, 1):
        if rnd in rounds:
            return stage
    raise ValueError(f"no round {rnd}")


# --- action spaces -----------------------------------------------------------------------------
# What a space lets a player do is a tuple of *parts* and how they combine. Part kinds:
TAKE_ALL = "take_accumulated"  # take every good piled on the space
GAIN = "gain"  # get ``goods`` from the general supply
GAIN_ONE_OF = "gain_one_of"  # get one of the ``goods`` pairs, the player's choice
STARTING_PLAYER = "starting_player"  # take the starting-player token
BUILD_ROOMS = "build_rooms"
BUILD_STABLES = "build_stables"  # ``cost`` each, at most ``limit`` (0: any number)
PLOUGH = "plough"  # plough ``limit`` field(s)
SOW = "sow"  # sow any number of empty fields
BAKE = "bake"  # a Bake Bread action: each baking improvement once
BUILD_FENCES = "build_fences"  # ``cost`` per fence, any number
BUILD_MAJOR = "build_major"  # ``limit`` major improvement(s)
RENOVATE = "renovate"
FAMILY_GROWTH = "family_growth"  # only with room (rooms > people)
FAMILY_GROWTH_WITHOUT_ROOM = "family_growth_without_room"

# How the parts combine (ref A2 "And/or", "And afterward"; seed 複合アクションの処理):
ONE = "one"  # a single part
ALL = "all"  # every part happens (taking goods, the token)
AND_OR = "and_or"  # either or both, in either order, at least one
AND_THEN = "and_then"  # the first part compulsory, the rest optional and only after it

# Branches of the card game that the Family game removes (kept to document the printed text).
OCCUPATION = "occupation"
MINOR_IMPROVEMENT = "minor_improvement"
#: Card mode's "1 major or 1 minor improvement" (Major Improvement, House Redevelopment).
MAJOR_OR_MINOR = "major_or_minor"


class Part(NamedTuple):
    """One part of a space's action: ``kind`` and its figures. ``goods`` are (good, amount)
    pairs (what GAIN gives, the options of GAIN_ONE_OF); ``cost`` is per item built;
    ``limit`` the most items (0: any number)."""

    kind: str
    goods: tuple[tuple[int, int], ...] = ()
    cost: Cost = NO_COST
    limit: int = 0


class Space(NamedTuple):
    """An action space: printed on a board (``stage`` 0) or a stage card (``stage`` 1..6).

    ``accumulates`` is what the preparation phase adds every round, as (good, amount) pairs,
    with 1..4 players; ``accumulates_solo`` replaces it in the solo game when not None.
    ``dead`` spaces stay on the board but can never be used in the Family game; ``removed``
    names the card-game branches the Family game takes away from the printed text.
    """

    key: str
    name: str
    stage: int
    parts: tuple[Part, ...]
    combine: str
    accumulates: tuple[tuple[int, int], ...] = ()
    accumulates_solo: tuple[tuple[int, int], ...] | None = None
    dead: bool = False
    removed: tuple[str, ...] = ()


_TAKE: Final = (Part(TAKE_ALL),)


def _acc(key: str, name: str, good: int, amount: int, stage: int = 0) -> Space:
    return Space(key, name, stage, _TAKE, ONE, ((good, amount),))


def _dead(key: str, name: str) -> Space:
    return Space(key, name, 0, (), ONE, dead=True, removed=(OCCUPATION,))


SPACES: Final[tuple[Space, ...]] = (
    # -- the board at every player count (ref A3; seed "左のボード" and board 2)
    Space("farm_expansion", "Farm Expansion", 0,
          (Part(BUILD_ROOMS), Part(BUILD_STABLES, cost=STABLE_COST)), AND_OR),
    # Family game: the token is compulsory and the food piled up comes with it (ref A2, A9).
    Space("meeting_place", "Meeting Place", 0, (Part(STARTING_PLAYER), Part(TAKE_ALL)), ALL,
          ((FOOD, 1),), removed=(MINOR_IMPROVEMENT,)),
    Space("grain_seeds", "Grain Seeds", 0, (Part(GAIN, ((GRAIN, 1),)),), ONE),
    Space("farmland", "Farmland", 0, (Part(PLOUGH, limit=1),), ONE),
    _dead("lessons", "Lessons"),
    Space("day_laborer", "Day Laborer", 0, (Part(GAIN, ((FOOD, 2),)),), ONE),
    Space("forest", "Forest", 0, _TAKE, ONE, ((WOOD, 3),), accumulates_solo=((WOOD, 2),)),
    _acc("clay_pit", "Clay Pit", CLAY, 1),
    _acc("reed_bank", "Reed Bank", REED, 1),
    _acc("fishing", "Fishing", FOOD, 1),
    # Family variant tile (ref A2, A3; RE appendix §1): exactly one stable for 1 wood.
    Space("side_job", "Side Job", 0,
          (Part(BUILD_STABLES, cost=SIDE_JOB_STABLE_COST, limit=1), Part(BAKE)), AND_OR),
    # -- the 3- and 4-player extension boards (ref A5)
    _acc("copse", "Copse", WOOD, 1),  # 4 players
    _acc("grove", "Grove", WOOD, 2),  # 3 and 4 players
    _acc("hollow_3p", "Hollow", CLAY, 1),  # 3 players
    _acc("hollow_4p", "Hollow", CLAY, 2),  # 4 players
    Space("resource_market_3p", "Resource Market", 0,
          (Part(GAIN, ((FOOD, 1),)), Part(GAIN_ONE_OF, ((REED, 1), (STONE, 1)))), ALL),
    Space("resource_market_4p", "Resource Market", 0,
          (Part(GAIN, ((REED, 1), (STONE, 1), (FOOD, 1))),), ONE),
    _dead("lessons_3p", "Lessons"),  # occupation for 2 food
    _dead("lessons_4p", "Lessons"),  # occupation, the first two 1 food each, later 2
    _acc("traveling_players", "Traveling Players", FOOD, 1),  # 4 players
    # -- the 14 stage cards (ref A4; seed ステージ)
    Space("major_improvement", "Major Improvement", 1, (Part(BUILD_MAJOR, limit=1),), ONE,
          removed=(MINOR_IMPROVEMENT,)),
    Space("fencing", "Fencing", 1, (Part(BUILD_FENCES, cost=FENCE_COST),), ONE),
    Space("grain_utilization", "Grain Utilization", 1, (Part(SOW), Part(BAKE)), AND_OR),
    _acc("sheep_market", "Sheep Market", SHEEP, 1, stage=1),
    Space("basic_wish_for_children", "Basic Wish for Children", 2, (Part(FAMILY_GROWTH),),
          ONE, removed=(MINOR_IMPROVEMENT,)),
    Space("house_redevelopment", "House Redevelopment", 2,
          (Part(RENOVATE), Part(BUILD_MAJOR, limit=1)), AND_THEN,
          removed=(MINOR_IMPROVEMENT,)),
    _acc("western_quarry", "Western Quarry", STONE, 1, stage=2),
    Space("vegetable_seeds", "Vegetable Seeds", 3, (Part(GAIN, ((VEGETABLE, 1),)),), ONE),
    _acc("pig_market", "Pig Market", BOAR, 1, stage=3),
    _acc("cattle_market", "Cattle Market", CATTLE, 1, stage=4),
    _acc("eastern_quarry", "Eastern Quarry", STONE, 1, stage=4),
    Space("urgent_wish_for_children", "Urgent Wish for Children", 5,
          (Part(FAMILY_GROWTH_WITHOUT_ROOM),), ONE),
    # The field ploughed here may be sown in the same action (ref A4).
    Space("cultivation", "Cultivation", 5, (Part(PLOUGH, limit=1), Part(SOW)), AND_OR),
    Space("farm_redevelopment", "Farm Redevelopment", 6,
          (Part(RENOVATE), Part(BUILD_FENCES, cost=FENCE_COST)), AND_THEN),
)
SPACE_KEYS: Final = tuple(s.key for s in SPACES)
#: Space id by key.
SPACE_ID: Final = {s.key: i for i, s in enumerate(SPACES)}


def _ids(*keys: str) -> tuple[int, ...]:
    return tuple(SPACE_ID[k] for k in keys)


_BASE: Final = (
    "farm_expansion", "meeting_place", "grain_seeds", "farmland", "lessons", "day_laborer",
    "forest", "clay_pit", "reed_bank", "fishing",
)
#: The printed spaces (no stage cards) by player count 1..4 (index 0 is unused). Side Job is
#: left out of the solo game (ruling D7 in RULES.md).
BOARD_SPACES: Final[tuple[tuple[int, ...], ...]] = (
    (),
    _ids(*_BASE),
    _ids(*_BASE, "side_job"),
    _ids(*_BASE, "side_job", "grove", "hollow_3p", "resource_market_3p", "lessons_3p"),
    _ids(*_BASE, "side_job", "copse", "grove", "hollow_4p", "resource_market_4p",
         "lessons_4p", "traveling_players"),
)
#: The stage cards of each stage 1..6 (index 0 is stage 1), in the reference's order; the
#: order inside a stage is shuffled at set-up.
STAGE_CARDS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(i for i, s in enumerate(SPACES) if s.stage == stage) for stage in range(1, 7)
)


def accumulation(space: int, players: int) -> tuple[tuple[int, int], ...]:
    """What the preparation phase adds to ``space`` each round with ``players`` players."""
    s = SPACES[space]
    if players == 1 and s.accumulates_solo is not None:
        return s.accumulates_solo
    return s.accumulates


def spaces_for(players: int) -> tuple[int, ...]:
    """Every action space of a ``players``-player game: the board, then stages 1..6."""
    return BOARD_SPACES[players] + tuple(i for stage in STAGE_CARDS for i in stage)


# --- major improvements (ref A8 "Major improvements"; seed 食料関係の説明) -------------------
FIREPLACE_2, FIREPLACE_3, HEARTH_4, HEARTH_5, CLAY_OVEN, STONE_OVEN = range(6)
JOINERY, POTTERY, BASKETMAKER, WELL = range(6, 10)


class Major(NamedTuple):
    """A major improvement.

    ``cost`` in (wood, clay, reed, stone); ``or_return_fireplace``: it may be paid instead by
    returning a Fireplace (the Cooking Hearths). ``cook``: (good, food) any-time conversions.
    ``bake_food`` per grain in one Bake Bread action, at most ``bake_limit`` grain (0: any
    number); ``free_bake``: building it gives a Bake Bread action at once. ``craft``: (good,
    food), once per harvest. ``bonus``: (at least this many of the craft's good left, bonus
    points) steps at the end. ``well_food``: food on each of that many next round spaces.
    """

    key: str
    name: str
    cost: Cost
    points: int
    or_return_fireplace: bool = False
    cook: tuple[tuple[int, int], ...] = ()
    bake_food: int = 0
    bake_limit: int = 0
    free_bake: bool = False
    craft: tuple[int, int] | None = None
    bonus: tuple[tuple[int, int], ...] = ()
    well_food: int = 0


_FIREPLACE_COOK: Final = ((SHEEP, 2), (BOAR, 2), (CATTLE, 3), (VEGETABLE, 2))
_HEARTH_COOK: Final = ((SHEEP, 2), (BOAR, 3), (CATTLE, 4), (VEGETABLE, 3))

MAJORS: Final[tuple[Major, ...]] = (
    Major("fireplace_2", "Fireplace", (0, 2, 0, 0), 1, cook=_FIREPLACE_COOK, bake_food=2),
    Major("fireplace_3", "Fireplace", (0, 3, 0, 0), 1, cook=_FIREPLACE_COOK, bake_food=2),
    Major("cooking_hearth_4", "Cooking Hearth", (0, 4, 0, 0), 1, or_return_fireplace=True,
          cook=_HEARTH_COOK, bake_food=3),
    Major("cooking_hearth_5", "Cooking Hearth", (0, 5, 0, 0), 1, or_return_fireplace=True,
          cook=_HEARTH_COOK, bake_food=3),
    Major("clay_oven", "Clay Oven", (0, 3, 0, 1), 2, bake_food=5, bake_limit=1,
          free_bake=True),
    Major("stone_oven", "Stone Oven", (0, 1, 0, 3), 3, bake_food=4, bake_limit=2,
          free_bake=True),
    Major("joinery", "Joinery", (2, 0, 0, 2), 2, craft=(WOOD, 2),
          bonus=((3, 1), (5, 2), (7, 3))),
    Major("pottery", "Pottery", (0, 2, 0, 2), 2, craft=(CLAY, 2),
          bonus=((3, 1), (5, 2), (7, 3))),
    Major("basketmakers_workshop", "Basketmaker's Workshop", (0, 0, 2, 2), 2,
          craft=(REED, 3), bonus=((2, 1), (4, 2), (5, 3))),
    Major("well", "Well", (1, 0, 0, 3), 4, well_food=5),
)
MAJOR_KEYS: Final = tuple(m.key for m in MAJORS)
FIREPLACES: Final = (FIREPLACE_2, FIREPLACE_3)
COOKING_HEARTHS: Final = (HEARTH_4, HEARTH_5)
OVENS: Final = (CLAY_OVEN, STONE_OVEN)
CRAFTS: Final = (JOINERY, POTTERY, BASKETMAKER)
#: The improvements that can bake (a Bake Bread action uses each once).
BAKERS: Final = tuple(i for i, m in enumerate(MAJORS) if m.bake_food)
#: The improvements that cook animals and vegetables at any time.
COOKERS: Final = tuple(i for i, m in enumerate(MAJORS) if m.cook)


def craft_bonus(major: int, left: int) -> int:
    """Bonus points of craft ``major`` with ``left`` of its good in the supply at the end."""
    points = 0
    for at_least, bonus in MAJORS[major].bonus:
        if left >= at_least:
            points = bonus
    return points


# --- scoring table (ref A8 "Scoring"; seed 得点表, whose rows are garbled: ruling D1) --------
#: Lower bounds for 1, 2, 3 and 4 points; below the first bound the row scores -1.
FIELDS_ROW: Final = (2, 3, 4, 5)
PASTURES_ROW: Final = (1, 2, 3, 4)
GRAIN_ROW: Final = (1, 4, 6, 8)
VEGETABLES_ROW: Final = (1, 2, 3, 4)
SHEEP_ROW: Final = (1, 4, 6, 8)
BOAR_ROW: Final = (1, 3, 5, 7)
CATTLE_ROW: Final = (1, 2, 4, 6)
ROW_MISSING_POINTS: Final = -1
UNUSED_SPACE_POINTS: Final = -1
FENCED_STABLE_POINTS: Final = 1
CLAY_ROOM_POINTS: Final = 1
STONE_ROOM_POINTS: Final = 2
PERSON_POINTS: Final = 3


def row_points(bounds: tuple[int, int, int, int], count: int) -> int:
    """Points of one scoring row for ``count``: -1 below the first bound, else 1..4."""
    points = ROW_MISSING_POINTS
    for step, at_least in enumerate(bounds, 1):
        if count >= at_least:
            points = step
    return points
