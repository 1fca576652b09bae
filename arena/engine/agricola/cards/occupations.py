"""The base deck's 48 occupations (decks A and B, 24 each), by printed number.

Facts from the public catalogues (``hunterwieman/AgricolaBot``
``agricola/cards/data/revised_occupations.json``, cross-checked against
``dennishorte/battlestar`` ``common/agricola/res/cards/occupation{A,B}/``): deck, number, name
and player marker. Effects are the project's own words. "Rounds left" means the complete rounds
after the current one (14 minus the current round). "Wood accumulation spaces" are Forest,
Grove and Copse; "stone accumulation spaces" Western and Eastern Quarry.
"""

from __future__ import annotations

from typing import Final

from arena.engine.agricola.cards.card import Card, auto, collect, may, occupation
from arena.engine.agricola.cards.card import Moment as M

OCCUPATIONS: Final[tuple[Card, ...]] = (
    # --- deck A -----------------------------------------------------------------------------
    occupation("A086", "Animal Tamer", 1,
               auto(M.ON_PLAY, "Take 1 wood or 1 grain, your choice."),
               auto(M.CAPACITY, "Your house holds 1 animal per room (of any types) instead of "
                                "1 animal in all.")),
    occupation("A087", "Conservator", 1,
               may(M.COST, "You may renovate a wooden house straight to stone, paying stone "
                           "per room and 1 reed, without the clay step.")),
    occupation("A088", "Hedge Keeper", 1,
               auto(M.COST, "On each Build Fences action, up to 3 of the fences you build "
                            "cost no wood.")),
    occupation("A090", "Plow Driver", 1,
               may(M.ROUND_START, "While you live in a stone house: at the start of each "
                                  "round, you may pay 1 food to plough 1 field.")),
    occupation("A092", "Adoptive Parents", 1,
               may(M.SUB_ACTION, "After a family growth, you may pay 1 food: the offspring "
                                 "may be placed later this round and is no newborn (it eats "
                                 "2 at a harvest).")),
    occupation("A098", "Stable Architect", 1,
               auto(M.SCORING, "1 bonus point per stable outside every pasture.")),
    occupation("A102", "Grocer", 1,
               auto(M.ON_PLAY, "Stack on this card, first to be bought first: wood, grain, "
                               "reed, stone, vegetable, clay, reed, vegetable."),
               may(M.ANYTIME, "Buy the top good of the stack for 1 food; repeat at will.")),
    occupation("A108", "Mushroom Collector", 1,
               may(M.SPACE_USED, "Right after using a wood accumulation space, you may put 1 "
                                 "wood back on that space to get 2 food.")),
    occupation("A110", "Roughcaster", 1,
               auto(M.SUB_ACTION, "Each time you build one or more clay rooms, or renovate "
                                  "from clay to stone, get 3 food.")),
    occupation("A111", "Wall Builder", 1,
               may(M.SUB_ACTION, "Each time you build one or more rooms, you may put 1 food on "
                                 "each of the next 4 round spaces."),
               collect("food")),
    occupation("A112", "Scythe Worker", 1,
               auto(M.ON_PLAY, "Take 1 grain."),
               may(M.FIELD_PHASE, "In each field phase, take 1 more grain from each of your "
                                  "grain fields (while it has grain left).")),
    occupation("A114", "Seasonal Worker", 1,
               auto(M.SPACE_USED, "Each time you use Day Laborer, also take 1 grain; from "
                                  "round 6 on, 1 vegetable instead if you choose.")),
    occupation("A116", "Wood Cutter", 1,
               auto(M.SPACE_USED, "Each time you use a wood accumulation space, take 1 more "
                                  "wood.")),
    occupation("A119", "Firewood Collector", 1,
               auto(M.SPACE_USED, "Each time you use Farmland, Grain Seeds, Grain Utilization "
                                  "or Cultivation, take 1 wood at the end of that turn.")),
    occupation("A120", "Clay Hut Builder", 1,
               auto(M.ON_PLAY, "If your house is no longer wood, put 2 clay on each of the "
                               "next 5 round spaces."),
               auto(M.SUB_ACTION, "Otherwise, do so when you renovate away from wood (once "
                                  "only)."),
               collect("clay")),
    occupation("A123", "Frame Builder", 1,
               may(M.COST, "For each room you build and for each renovation, you may pay 1 "
                           "wood in place of exactly 2 clay or 2 stone of its cost.")),
    occupation("A125", "Priest", 1,
               auto(M.ON_PLAY, "If you live in a clay house of exactly 2 rooms, take 3 clay, "
                               "2 reed and 2 stone.")),
    occupation("A133", "Braggart", 3,
               auto(M.SCORING, "With 5/6/7/8/9/10 or more improvements (majors and minors) in "
                               "front of you, 2/3/4/5/7/9 bonus points.")),
    occupation("A138", "Harpooner", 3,
               may(M.SPACE_USED, "Each time you use Fishing, you may pay 1 wood to take 1 food "
                                 "per person you have and 1 reed.")),
    occupation("A143", "Stonecutter", 3,
               auto(M.COST, "Each improvement, each room and each renovation costs you 1 stone "
                            "less (never below 0).")),
    occupation("A147", "Animal Dealer", 3,
               may(M.SPACE_USED, "Each time you use Sheep Market, Pig Market or Cattle Market, "
                                 "you may buy 1 more animal of that type for 1 food.")),
    occupation("A155", "Conjurer", 4,
               auto(M.SPACE_USED, "Each time you use Traveling Players, also take 1 wood and "
                                  "1 grain.")),
    occupation("A160", "Lutenist", 4,
               auto(M.SPACE_USED, "Each time another player uses Traveling Players, take 1 "
                                  "food and 1 wood."),
               may(M.SPACE_USED, "Right after that, you may buy exactly 1 vegetable for 2 "
                                 "food.")),
    occupation("A165", "Pig Breeder", 4,
               auto(M.ON_PLAY, "Take 1 wild boar."),
               auto(M.RETURN_HOME, "At the end of round 12, your wild boar breed as in a "
                                   "harvest (1 newborn if you have 2 or more and room for "
                                   "it).")),
    # --- deck B -----------------------------------------------------------------------------
    occupation("B087", "Cottager", 1,
               may(M.SPACE_USED, "Each time you use Day Laborer, you may also build exactly 1 "
                                 "room or renovate, paying the cost.")),
    occupation("B089", "Groom", 1,
               auto(M.ON_PLAY, "Take 1 wood."),
               may(M.ROUND_START, "While you live in a stone house: at the start of each round, "
                                  "you may build exactly 1 stable for 1 wood.")),
    occupation("B091", "Assistant Tiller", 1,
               may(M.SPACE_USED, "Each time you use Day Laborer, you may also plough 1 "
                                 "field.")),
    occupation("B095", "Master Bricklayer", 1,
               auto(M.COST, "Each major improvement costs you less stone by the number of rooms "
                            "you have beyond your first 2 (never below 0).")),
    occupation("B097", "Scholar", 1,
               may(M.ROUND_START, "While you live in a stone house: at the start of each "
                                  "round, you may play an occupation for 1 food, or a minor "
                                  "improvement paying its cost.")),
    occupation("B098", "Organic Farmer", 1,
               auto(M.SCORING, "1 bonus point per pasture holding at least 1 animal and room "
                               "for at least 3 more.")),
    occupation("B099", "Tutor", 1,
               auto(M.SCORING, "1 bonus point per occupation you played after this one.")),
    occupation("B102", "Consultant", 1,
               auto(M.ON_PLAY, "Take, by the number of players: 1 player 2 grain, 2 players "
                               "3 clay, 3 players 2 reed, 4 players 2 sheep.")),
    occupation("B104", "Sheep Walker", 1,
               may(M.ANYTIME, "Exchange 1 sheep from your farm for 1 wild boar, 1 vegetable "
                              "or 1 stone; repeat at will.")),
    occupation("B107", "Manservant", 1,
               auto(M.ON_PLAY, "If you live in a stone house, put 3 food on each remaining "
                               "round space."),
               auto(M.SUB_ACTION, "Otherwise, do so when you renovate to stone."),
               collect("food")),
    occupation("B108", "Oven Firing Boy", 1,
               may(M.SPACE_USED, "Each time you use a wood accumulation space, you also get a "
                                 "Bake Bread action.")),
    occupation("B109", "Paper Maker", 1,
               may(M.SUB_ACTION, "Just before you play each later occupation, you may pay 1 "
                                 "wood to take 1 food per occupation in front of you.")),
    occupation("B114", "Childless", 1,
               auto(M.ROUND_START, "At the start of each round, if you have 3 or more rooms and "
                                   "exactly 2 people, take 1 food and 1 grain or 1 vegetable, "
                                   "your choice.")),
    occupation("B118", "Small-scale Farmer", 1,
               auto(M.ROUND_START, "At the start of each round, if your house has exactly 2 "
                                   "rooms, take 1 wood.")),
    occupation("B121", "Geologist", 1,
               auto(M.SPACE_USED, "Each time you use Forest or Reed Bank, also take 1 clay; "
                                  "with 3 or more players, Clay Pit too.")),
    occupation("B123", "Roof Ballaster", 1,
               may(M.ON_PLAY, "You may pay 1 food to take 1 stone per room you have.")),
    occupation("B126", "Carpenter", 1,
               auto(M.COST, "Each new room costs you 3 of your house's material and 2 reed.")),
    occupation("B136", "House Steward", 3,
               auto(M.ON_PLAY, "Take wood by the rounds left: 9 or more 4, 6 or more 3, 3 or "
                               "more 2, 1 or more 1."),
               auto(M.SCORING, "Every player (owner or not) with the most rooms gets 3 bonus "
                               "points.")),
    occupation("B142", "Greengrocer", 3,
               auto(M.SPACE_USED, "Each time you use Grain Seeds, also take 1 vegetable.")),
    occupation("B145", "Brushwood Collector", 3,
               may(M.COST, "For each room you build, and for each renovation, you may pay 1 "
                           "wood in place of all the reed it needs.")),
    occupation("B156", "Storehouse Keeper", 4,
               auto(M.SPACE_USED, "Each time you use Resource Market, also take 1 clay or 1 "
                                  "grain, your choice.")),
    occupation("B163", "Pastor", 4,
               auto(M.ON_PLAY, "If you are the only player whose house has exactly 2 rooms, "
                               "take 3 wood, 2 clay, 1 reed and 1 stone."),
               auto(M.SUB_ACTION, "Otherwise, take them the first time that becomes true, "
                                  "whoever's build makes it so (once only).")),
    occupation("B164", "Sheep Whisperer", 4,
               auto(M.ON_PLAY, "Put 1 sheep on the round spaces 2, 5, 8 and 10 rounds after "
                               "the current one (those up to round 14)."),
               collect("sheep")),
    occupation("B166", "Cattle Feeder", 4,
               may(M.SPACE_USED, "Each time you use Grain Seeds, you may also buy 1 cattle for "
                                 "1 food.")),
)
