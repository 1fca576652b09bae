"""The base deck's 48 minor improvements (decks A and B, 24 each), by printed number.

Facts from the public catalogues (``hunterwieman/AgricolaBot``
``agricola/cards/data/revised_minor_improvements.json``, cross-checked against
``dennishorte/battlestar`` ``common/agricola/res/cards/minor{A,B}/``): deck, number, name,
cost, prerequisite, points and the traveling arrow. Where they file a fact differently the
choice is named beside the card. Effects are the project's own words; "rounds left", "wood
accumulation space" and "stone accumulation space" mean what :mod:`.occupations` says.
"""

from __future__ import annotations

from typing import Final

from arena.engine.agricola.cards.card import (
    Card,
    at_least,
    at_most,
    auto,
    collect,
    exactly,
    goods,
    may,
)
from arena.engine.agricola.cards.card import Count as C
from arena.engine.agricola.cards.card import Moment as M
from arena.engine.agricola.cards.card import minor as card

FREE: Final = goods()

MINORS: Final[tuple[Card, ...]] = (
    # --- deck A -----------------------------------------------------------------------------
    card("A002", "Shifting Cultivation", goods(food=2),
         auto(M.ON_PLAY, "Plough 1 field."), traveling=True),
    card("A005", "Clay Embankment", goods(food=1),
         auto(M.ON_PLAY, "Take 1 clay for every 2 clay in your supply (rounded down)."),
         traveling=True),
    card("A009", "Young Animal Market", goods(sheep=1),
         auto(M.ON_PLAY, "Take 1 cattle."), traveling=True),
    card("A012", "Drinking Trough", goods(clay=1),
         auto(M.CAPACITY, "Each of your pastures holds 2 more animals.")),
    card("A016", "Rammed Clay", FREE,
         auto(M.ON_PLAY, "Take 1 clay."),
         may(M.COST, "You may pay any of your fences in clay instead of wood, 1 for 1.")),
    card("A019", "Handplow", goods(wood=1),
         auto(M.ON_PLAY, "Put 1 field tile on the round space 5 rounds after the current one "
                         "(if there is one)."),
         may(M.ROUND_START, "At the start of that round, you may plough 1 field.")),
    card("A024", "Threshing Board", goods(wood=1),
         may(M.SPACE_USED, "Each time you use Farmland or Cultivation, you also get a Bake "
                           "Bread action."),
         points=1, prerequisite=at_least(C.OCCUPATIONS, 2)),
    card("A026", "Sleeping Corner", goods(wood=1),
         may(M.SPACE_USED, "You may use a Wish for Children space that holds exactly one "
                           "other player's person."),
         points=1, prerequisite=at_least(C.GRAIN_FIELDS, 2)),
    card("A032", "Manger", goods(wood=2),
         auto(M.SCORING, "Pastures covering 6/7/8/10 or more farmyard spaces in all: 1/2/3/4 "
                         "bonus points.")),
    card("A033", "Big Country", FREE,
         auto(M.ON_PLAY, "For each round left, take 1 bonus point and 2 food."),
         prerequisite=at_most(C.UNUSED_SPACES, 0)),
    card("A038", "Wool Blankets", FREE,
         auto(M.SCORING, "Living in a wooden/clay/stone house: 3/2/0 bonus points."),
         prerequisite=at_least(C.SHEEP, 5)),
    card("A044", "Pond Hut", goods(wood=1),
         auto(M.ON_PLAY, "Put 1 food on each of the next 3 round spaces."),
         collect("food"),
         points=1, prerequisite=exactly(C.OCCUPATIONS, 2)),
    card("A050", "Milk Jug", goods(clay=1),
         auto(M.SPACE_USED, "Each time anyone (you too) uses Cattle Market, you take 3 food "
                            "and every other player 1 food.")),
    card("A053", "Claypipe", goods(clay=1),
         auto(M.RETURN_HOME, "When people return home, if you gained 7 or more building "
                             "resources in this round's work phase, take 2 food.")),
    card("A055", "Junk Room", goods(wood=1, clay=1),
         auto(M.SUB_ACTION, "Each time after you build an improvement (major or minor, this "
                            "one too), take 1 food.")),
    card("A056", "Basket", goods(reed=1),
         may(M.SPACE_USED, "Right after using a wood accumulation space, you may put 2 wood "
                           "back on that space to get 3 food.")),
    card("A063", "Dutch Windmill", goods(wood=2, stone=2),
         auto(M.SUB_ACTION, "Each time you bake bread in a round right after a harvest "
                            "(rounds 5, 8, 10, 12, 14), take 3 more food."),
         points=2),
    card("A067", "Corn Scoop", goods(wood=1),
         auto(M.SPACE_USED, "Each time you use Grain Seeds, take 1 more grain.")),
    card("A069", "Large Greenhouse", goods(wood=2),
         auto(M.ON_PLAY, "Put 1 vegetable on the round spaces 4, 7 and 9 rounds after the "
                         "current one (those up to round 14)."),
         collect("vegetable"),
         prerequisite=at_least(C.OCCUPATIONS, 2)),
    card("A071", "Clearing Spade", goods(wood=1),
         may(M.ANYTIME, "Move 1 crop from a sown field holding 2 or more to an empty field.")),
    card("A075", "Lumber Mill", goods(stone=2),
         auto(M.COST, "Each improvement costs you 1 wood less (never below 0)."),
         points=2, prerequisite=at_most(C.OCCUPATIONS, 3)),
    card("A078", "Canoe", goods(wood=2),
         auto(M.SPACE_USED, "Each time you use Fishing, also take 1 food and 1 reed."),
         points=1, prerequisite=at_least(C.OCCUPATIONS, 1)),
    card("A080", "Stone Tongs", goods(wood=1),
         auto(M.SPACE_USED, "Each time you use a stone accumulation space, take 1 more "
                            "stone.")),
    card("A083", "Shepherd's Crook", goods(wood=1),
         auto(M.SUB_ACTION, "Each time you fence a new pasture of 4 or more spaces, take 2 "
                            "sheep into it (a pasture split in the same build does not "
                            "count).")),
    # --- deck B -----------------------------------------------------------------------------
    card("B002", "Mini Pasture", goods(food=2),
         auto(M.ON_PLAY, "Fence 1 farmyard space as a pasture at no wood cost; it must "
                         "border one of your pastures if you have any."),
         traveling=True),
    card("B008", "Market Stall", goods(grain=1),
         auto(M.ON_PLAY, "Take 1 vegetable."), traveling=True),
    card("B010", "Caravan", goods(wood=3, food=3),
         auto(M.CAPACITY, "Houses 1 person, as a room would (it is not a room).")),
    card("B013", "Carpenter's Parlor", goods(wood=1, stone=1),
         auto(M.COST, "Each wooden room costs you 2 wood and 2 reed.")),
    card("B016", "Mining Hammer", goods(wood=1),
         auto(M.ON_PLAY, "Take 1 food."),
         may(M.SUB_ACTION, "Each time you renovate, you may also build 1 stable at no wood "
                           "cost.")),
    card("B019", "Moldboard Plow", goods(wood=2),
         auto(M.ON_PLAY, "Put 2 field tiles on this card."),
         may(M.SPACE_USED, "Each time you use Farmland, you may also plough 1 field with a "
                           "tile from this card (twice in the game in all)."),
         prerequisite=at_least(C.OCCUPATIONS, 1)),
    card("B024", "Lasso", goods(reed=1),
         may(M.SPACE_USED, "You may place two people one right after the other if at least "
                           "one of them uses Sheep Market, Pig Market or Cattle Market.")),
    card("B025", "Bread Paddle", goods(wood=1),
         auto(M.ON_PLAY, "Take 1 food."),
         may(M.SUB_ACTION, "Each time you play an occupation, you also get a Bake Bread "
                           "action.")),
    # Prerequisite: the catalogues say a clay or a stone house.
    card("B033", "Mantlepiece", goods(stone=1),
         auto(M.ON_PLAY, "Take 1 bonus point for each round left."),
         auto(M.COST, "You may no longer renovate."),
         points=-3, prerequisite=at_least(C.HOUSE_MATERIAL, 1)),
    card("B036", "Bottles", FREE,
         auto(M.COST, "To play it, pay 1 clay and 1 food for each person you have (newborns "
                      "too)."),
         points=4, cost_per_person=goods(clay=1, food=1)),
    card("B039", "Loom", goods(wood=2),
         auto(M.FIELD_PHASE, "In each field phase, with 1/4/7 or more sheep take 1/2/3 "
                             "food."),
         auto(M.SCORING, "1 bonus point for every 3 sheep."),
         points=1, prerequisite=at_least(C.OCCUPATIONS, 2)),
    card("B045", "Strawberry Patch", goods(wood=1),
         auto(M.ON_PLAY, "Put 1 food on each of the next 3 round spaces."),
         collect("food"),
         points=2, prerequisite=at_least(C.VEGETABLE_FIELDS, 2)),
    card("B047", "Herring Pot", goods(clay=1),
         auto(M.SPACE_USED, "Each time you use Fishing, put 1 food on each of the next 3 "
                            "round spaces."),
         collect("food")),
    card("B050", "Butter Churn", goods(wood=1),
         auto(M.FIELD_PHASE, "In each field phase, take 1 food per 3 sheep and 1 food per 2 "
                             "cattle."),
         points=1, prerequisite=at_most(C.OCCUPATIONS, 3)),
    # One catalogue files "a person on Fishing" as the cost; it is kept, not paid.
    card("B056", "Brook", FREE,
         auto(M.SPACE_USED, "Each time you use one of the four spaces above Fishing (Forest, "
                            "Clay Pit, Reed Bank, and round 1's stage card), take 1 more "
                            "food."),
         prerequisite=at_least(C.PEOPLE_ON_FISHING, 1)),
    card("B057", "Scullery", goods(wood=1, clay=1),
         auto(M.ROUND_START, "At the start of each round, if you live in a wooden house, "
                             "take 1 food.")),
    card("B061", "Three-Field Rotation", FREE,
         auto(M.FIELD_PHASE, "At the start of each field phase, with at least 1 grain field, "
                             "1 vegetable field and 1 empty field, take 3 food."),
         prerequisite=at_least(C.OCCUPATIONS, 3)),
    card("B062", "Pitchfork", goods(wood=1),
         auto(M.SPACE_USED, "Each time you use Grain Seeds while Farmland is occupied, also "
                            "take 3 food.")),
    card("B066", "Sack Cart", goods(wood=2),
         auto(M.ON_PLAY, "Put 1 grain on each of the round spaces 5, 8, 11 and 14 still to "
                         "come."),
         collect("grain"),
         prerequisite=at_least(C.OCCUPATIONS, 2)),
    card("B068", "Beanfield", goods(food=1),
         auto(M.CAPACITY, "This card is a field where only vegetables may be sown."),
         points=1, prerequisite=at_least(C.OCCUPATIONS, 2)),
    # One catalogue files "5 clay in your supply" as the cost; it is kept, not paid.
    card("B074", "Thick Forest", FREE,
         auto(M.ON_PLAY, "Put 1 wood on each even-numbered round space still to come."),
         collect("wood"),
         prerequisite=at_least(C.CLAY, 5)),
    card("B077", "Loam Pit", goods(food=1),
         auto(M.SPACE_USED, "Each time you use Day Laborer, also take 3 clay."),
         points=1, prerequisite=at_least(C.OCCUPATIONS, 3)),
    card("B080", "Hard Porcelain", goods(clay=1),
         may(M.ANYTIME, "Exchange 2/3/4 clay for 1/2/3 stone.")),
    card("B084", "Acorns Basket", goods(reed=1),
         auto(M.ON_PLAY, "Put 1 wild boar on each of the next 2 round spaces."),
         collect("wild boar"),
         prerequisite=at_least(C.OCCUPATIONS, 3)),
)
