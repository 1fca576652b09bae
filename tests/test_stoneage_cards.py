"""Civilization cards: the 36 cards, their cost by display slot, every top effect, and the
display's slide and refill at the end of the round.

Sources: the rules text (seed 000), the reference page (card list and rulings 1-12) and the
engine's RULES.md (E1: a decision with one legal action is applied at once; E6: payments).
"""

from __future__ import annotations

from collections import Counter
from itertools import product
from typing import Any

import pytest
from sa import card_id, edit, new_game, offered, place, player, with_player

from arena.engine.stoneage import StoneAgeState
from arena.engine.stoneage.components import BUILDINGS, CARDS, GOLD, STONE, WOOD
from arena.engine.stoneage.views import card_info

# --------------------------------------------------------------------------------- helpers
Mix = tuple[int, int, int, int]
PLENTY = {"wood": 9, "clay": 9, "stone": 9, "gold": 9}

DICE_ALL = card_id("dice_for_everyone")
FOOD_7 = card_id("food", amount=7)
FOOD_1 = card_id("food", amount=1)
POINTS = card_id("points")
TOOL = card_id("tool")
AGRI = card_id("agriculture")
EXTRA = card_id("extra_card")
ANY2 = card_id("any_two_resources")
ROLL_WOOD = card_id("roll_two_dice", good=WOOD)
ROLL_GOLD = card_id("roll_two_dice", good=GOLD)
ONE_USE_4 = card_id("one_use_tool", amount=4)
STONE_2 = card_id("resource", amount=2, good=STONE)


def start(
    players: int = 2,
    *,
    dice: tuple[int, ...] = (),
    display: tuple[int, ...] = (),
    deck: tuple[int, ...] = (),
    piles: tuple[tuple[int, ...], ...] = (),
    **seat0: Any,
) -> StoneAgeState:
    """Round 1 placement with seat 0 to place. Every seat has one person and agriculture 1, so
    feeding is free (gain 1 food, eat 1); ``seat0`` sets more of seat 0's fields."""
    state = new_game(players, dice=dice, display=display, deck=deck, piles=piles)
    for seat in range(players):
        state = with_player(state, seat, people=1, agri=1)
    return with_player(state, 0, **seat0) if seat0 else state


def buy_in_slot(state: StoneAgeState, slot: int, *other_places: dict[str, Any]) -> None:
    """Seat 0 places on card ``slot``; the other seats (one person each) place as given, which
    ends placement. Default for a second seat: the field (no dice)."""
    place(state, "card", slot=slot)
    if not other_places:
        other_places = ({"where": "field"},)
    for spec in other_places:
        spec = dict(spec)
        place(state, spec.pop("where"), **spec)


def pays(state: StoneAgeState) -> list[Mix]:
    return [(a["wood"], a["clay"], a["stone"], a["gold"]) for a in offered(state, "pay")]


def pay(state: StoneAgeState, w: int = 0, c: int = 0, s: int = 0, g: int = 0) -> None:
    state.apply({"type": "pay", "wood": w, "clay": c, "stone": s, "gold": g})


def claim(state: StoneAgeState, w: int = 0, c: int = 0, s: int = 0, g: int = 0) -> None:
    state.apply({"type": "claim_two_resources", "wood": w, "clay": c, "stone": s, "gold": g})


def resources(state: StoneAgeState, seat: int) -> Mix:
    p = player(state, seat)
    return (p["wood"], p["clay"], p["stone"], p["gold"])


def mixes(total: int, have: Mix = (9, 9, 9, 9)) -> set[Mix]:
    """Every (wood, clay, stone, gold) of ``total`` resources within ``have``."""
    r = range(total + 1)
    return {
        m for m in product(r, r, r, r)
        if sum(m) == total and all(x <= h for x, h in zip(m, have, strict=True))
    }


def display_ids(state: StoneAgeState) -> list[int | None]:
    """Card ids in slots 1..4 (None for an empty slot)."""
    ids = [c["card"] for c in state.observation(0)["board"]["cards"]]
    assert all(i is None or type(i) is int for i in ids), ids
    return ids


def decision(state: StoneAgeState) -> dict[str, Any]:
    d = state.observation(0)["decision"]
    assert d is not None
    return d


def end_after_this_round(state: StoneAgeState) -> StoneAgeState:
    """Empty the last building pile, so the game ends when this round ends (ruling 10b)."""
    return edit(state, lambda d: d["pile_pos"].__setitem__(-1, 7))


def card_ids_in(obj: Any) -> list[int]:
    """Ids of every card an observation shows: the ``card`` id of a display slot or of a
    ``buy_card`` decision, any card description (a dict with ``id``, ``top`` and ``bottom``)
    and the id lists of the players' ``cards`` and ``hidden_card_list``."""
    if isinstance(obj, dict):
        own = [obj["id"]] if "top" in obj and "bottom" in obj and "id" in obj else []
        if type(obj.get("card")) is int:
            own.append(obj["card"])
        for key in ("cards", "hidden_card_list"):
            listed = obj.get(key)
            if isinstance(listed, list) and all(isinstance(i, int) for i in listed):
                own += listed
        return own + [i for v in obj.values() for i in card_ids_in(v)]
    if isinstance(obj, list):
        return [i for v in obj for i in card_ids_in(v)]
    return []


# ------------------------------------------------------------------------- component data
# The reference page's table, one row per card: (top, bottom).
REFERENCE_CARDS = [
    *[("dice for everyone", b) for b in ("pottery", "writing", "sundial", "transport")],
    *[("dice for everyone", b) for b in ("1 hut_builder", "2 hut_builder", "1 farmer")],
    *[("dice for everyone", b) for b in ("2 farmer", "2 tool_maker", "2 tool_maker")],
    ("7 food", "pottery"),
    ("5 food", "medicine"),
    ("3 food", "weaving"),
    ("1 food", "weaving"),
    ("4 food", "1 hut_builder"),
    ("2 food", "2 hut_builder"),
    ("3 food", "2 farmer"),
    ("2 stone", "transport"),
    ("1 stone", "1 farmer"),
    ("1 stone", "1 shaman"),
    ("1 gold", "1 shaman"),
    ("1 clay", "2 shaman"),
    ("roll 2 dice for gold", "art"),
    ("roll 2 dice for wood", "2 shaman"),
    ("roll 2 dice for stone", "1 shaman"),
    ("3 points", "music"),
    ("3 points", "music"),
    ("3 points", "3 hut_builder"),
    ("+1 tool", "art"),
    ("+1 agriculture", "sundial"),
    ("+1 agriculture", "1 farmer"),
    ("extra card", "writing"),
    ("one-use tool 4", "1 tool_maker"),
    ("one-use tool 3", "1 tool_maker"),
    ("one-use tool 2", "2 tool_maker"),
    ("any 2 resources", "medicine"),
]


def describe(cid: int) -> tuple[str, str]:
    """A card as a row of the reference table, from the engine's plain-data view."""
    info = card_info(cid)
    top, bottom = info["top"], info["bottom"]
    effect = top["effect"]
    text = {
        "dice_for_everyone": "dice for everyone",
        "food": f"{top.get('amount')} food",
        "resource": f"{top.get('amount')} {top.get('good')}",
        "roll_two_dice": f"roll 2 dice for {top.get('good')}",
        "points": f"{top.get('amount')} points",
        "tool": f"+{top.get('amount')} tool",
        "agriculture": f"+{top.get('amount')} agriculture",
        "extra_card": "extra card",
        "one_use_tool": f"one-use tool {top.get('amount')}",
        "any_two_resources": "any 2 resources",
    }.get(effect, effect)
    under = bottom["symbol"] if "symbol" in bottom else f"{bottom['count']} {bottom['figure']}"
    return text, under


def test_there_are_36_civilization_cards() -> None:
    assert len(CARDS) == 36


def test_every_card_top_and_bottom_matches_the_reference_list() -> None:
    assert len(REFERENCE_CARDS) == 36
    assert Counter(describe(i) for i in range(len(CARDS))) == Counter(REFERENCE_CARDS)


def test_sixteen_green_cards_show_each_of_eight_symbols_exactly_twice() -> None:
    symbols = Counter(card_info(i)["bottom"].get("symbol") for i in range(len(CARDS)))
    symbols.pop(None, None)
    assert sum(symbols.values()) == 16
    assert symbols == {
        s: 2 for s in (
            "pottery", "writing", "sundial", "transport", "medicine", "weaving", "art", "music",
        )
    }


def test_twenty_sand_cards_five_of_each_figure_kind_with_one_to_three_figures() -> None:
    bottoms = [card_info(i)["bottom"] for i in range(len(CARDS))]
    sand = [b for b in bottoms if "figure" in b]
    assert len(sand) == 20
    assert Counter(b["figure"] for b in sand) == {
        "farmer": 5, "tool_maker": 5, "hut_builder": 5, "shaman": 5,
    }
    assert {b["count"] for b in sand} <= {1, 2, 3}


def test_figure_check_sums_are_7_farmers_8_tool_makers_9_hut_builders_7_shamans() -> None:
    totals: Counter[str] = Counter()
    for i in range(len(CARDS)):
        bottom = card_info(i)["bottom"]
        if "figure" in bottom:
            totals[bottom["figure"]] += bottom["count"]
    assert totals == {"farmer": 7, "tool_maker": 8, "hut_builder": 9, "shaman": 7}


# ----------------------------------------------------------------------------------- cost
@pytest.mark.parametrize(("slot", "count"), [(1, 4), (2, 10), (3, 20), (4, 35)])
def test_card_in_slot_n_costs_n_resources_in_any_mix_of_wood_clay_stone_gold(
    slot: int, count: int
) -> None:
    state = start(display=(FOOD_1, FOOD_1 + 1, FOOD_1 + 2, FOOD_1 + 3), **PLENTY)
    buy_in_slot(state, slot)
    assert decision(state)["kind"] == "buy_card"
    assert decision(state)["slot"] == slot
    offered_pays = pays(state)
    assert len(offered_pays) == count
    assert set(offered_pays) == mixes(slot)
    assert offered(state, "decline") == [{"type": "decline"}]
    assert {a["type"] for a in state.legal_actions()} == {"pay", "decline"}


def test_card_in_slot_three_costs_three_resources() -> None:
    state = start(display=(FOOD_7, FOOD_1, POINTS, TOOL), wood=1, clay=1, stone=1, gold=1)
    buy_in_slot(state, 3)
    assert all(sum(m) == 3 for m in pays(state))
    pay(state, w=1, s=1, g=1)
    assert resources(state, 0) == (0, 1, 0, 0)


def test_each_distinct_card_payment_is_offered_exactly_once() -> None:
    state = start(wood=2, clay=1)
    buy_in_slot(state, 2)
    assert sorted(pays(state)) == [(1, 1, 0, 0), (2, 0, 0, 0)]
    assert len(state.legal_actions()) == 3  # the two payments and decline


def test_card_payment_offers_only_mixes_the_buyer_holds() -> None:
    state = start(wood=1, stone=3, gold=1)
    buy_in_slot(state, 4)
    assert set(pays(state)) == mixes(4, (1, 0, 3, 1))
    assert set(pays(state)) == {(1, 0, 3, 0), (0, 0, 3, 1), (1, 0, 2, 1)}


def test_food_never_pays_for_a_card() -> None:
    display = (FOOD_7, FOOD_1, POINTS, STONE_2)
    state = start(display=display, food=30)
    assert {"type": "place", "place": "card", "slot": 1, "people": 1} in offered(state, "place")
    buy_in_slot(state, 1)
    # Only "decline" was legal, so it was applied at once (E1) and the round ended.
    assert state.round == 2
    assert player(state, 0)["cards"] == []
    assert player(state, 0)["food"] == 30
    assert display_ids(state) == list(display)


def test_a_player_short_of_resources_cannot_buy_and_the_card_stays() -> None:
    display = (FOOD_7, FOOD_1, POINTS, STONE_2)
    state = start(display=display, wood=1, food=20)
    buy_in_slot(state, 2)
    assert state.round == 2
    assert player(state, 0)["cards"] == []
    assert resources(state, 0) == (1, 0, 0, 0)
    assert display_ids(state) == list(display)


def test_declining_a_card_leaves_it_on_the_display_and_costs_nothing() -> None:
    display = (FOOD_7, FOOD_1, POINTS, STONE_2)
    state = start(display=display, wood=2, clay=2)
    buy_in_slot(state, 3)
    state.apply({"type": "decline"})
    assert display_ids(state) == list(display)
    assert player(state, 0)["cards"] == []
    assert resources(state, 0) == (2, 2, 0, 0)
    assert player(state, 0)["score"] == 0


def test_paying_for_a_card_spends_exactly_that_payment_and_gives_the_card() -> None:
    display = (FOOD_1, FOOD_1 + 1, POINTS, STONE_2)
    state = start(display=display, wood=3, clay=3, stone=3, gold=3)
    buy_in_slot(state, 4)
    pay(state, w=1, c=0, s=2, g=1)
    assert player(state, 0)["cards"] == [STONE_2]
    assert resources(state, 0) == (2, 3, 1 + 2, 2)  # 2 stone came back from the card's top


# ---------------------------------------------------------------------------- top effects
FOOD_CARDS = [i for i, c in enumerate(CARDS) if c.top == "food"]
RESOURCE_CARDS = [i for i, c in enumerate(CARDS) if c.top == "resource"]
POINT_CARDS = [i for i, c in enumerate(CARDS) if c.top == "points"]


def buy_for_one_gold(cid: int, **seat0: Any) -> StoneAgeState:
    """Seat 0 buys card ``cid`` from slot 1 with one gold (their only resource unless
    ``seat0`` says otherwise)."""
    fields = {"gold": 1, **seat0}
    fillers = [i for i in (FOOD_7, FOOD_1, POINTS, STONE_2) if i != cid][:3]
    state = start(display=(cid, *fillers), **fields)
    buy_in_slot(state, 1)
    pay(state, g=1)
    return state


def test_food_cards_are_the_seven_listed_amounts() -> None:
    assert sorted(CARDS[i].amount for i in FOOD_CARDS) == [1, 2, 3, 3, 4, 5, 7]


@pytest.mark.parametrize("cid", FOOD_CARDS)
def test_food_card_gives_its_food_at_once(cid: int) -> None:
    state = buy_for_one_gold(cid, food=10)
    # Feeding this round costs nothing net (agriculture 1, one person).
    assert player(state, 0)["food"] == 10 + CARDS[cid].amount
    assert resources(state, 0) == (0, 0, 0, 0)


@pytest.mark.parametrize(
    ("top", "gain"),
    [
        ("2 stone", (0, 0, 2, 0)),
        ("1 stone", (0, 0, 1, 0)),
        ("1 gold", (0, 0, 0, 1)),
        ("1 clay", (0, 1, 0, 0)),
    ],
)
def test_resource_card_gives_its_resources(top: str, gain: Mix) -> None:
    cid = next(i for i in RESOURCE_CARDS if describe(i)[0] == top)
    state = buy_for_one_gold(cid)
    assert resources(state, 0) == gain


@pytest.mark.parametrize("cid", POINT_CARDS)
def test_points_card_adds_three_points(cid: int) -> None:
    state = buy_for_one_gold(cid)
    assert player(state, 0)["score"] == 3


@pytest.mark.parametrize(
    ("step", "before", "after"),
    [(0, [], [1]), (2, [1, 1], [1, 1, 1]), (3, [1, 1, 1], [2, 1, 1]), (9, [3, 3, 3], [4, 3, 3])],
)
def test_tool_card_advances_one_tool_step(step: int, before: list[int], after: list[int]) -> None:
    state = start(display=(TOOL, FOOD_7, FOOD_7 + 1, FOOD_7 + 2), gold=1, step=step)
    assert sorted(player(state, 0)["tools"], reverse=True) == before
    buy_in_slot(state, 1)
    pay(state, g=1)
    assert sorted(player(state, 0)["tools"], reverse=True) == after


def test_tool_card_at_four_four_four_is_lost() -> None:
    state = buy_for_one_gold(TOOL, step=12)
    assert player(state, 0)["tools"] == [4, 4, 4]
    assert player(state, 0)["cards"] == [TOOL]


@pytest.mark.parametrize("cid", [i for i, c in enumerate(CARDS) if c.top == "agriculture"])
def test_agriculture_card_raises_agriculture_by_one(cid: int) -> None:
    state = buy_for_one_gold(cid, agri=4)
    assert player(state, 0)["agriculture"] == 5


def test_agriculture_card_at_ten_is_lost() -> None:
    state = buy_for_one_gold(AGRI, agri=10)
    assert player(state, 0)["agriculture"] == 10
    assert player(state, 0)["cards"] == [AGRI]


@pytest.mark.parametrize("value", [4, 3, 2])
def test_one_use_tool_card_gives_a_one_use_tool_of_its_value(value: int) -> None:
    cid = card_id("one_use_tool", amount=value)
    state = buy_for_one_gold(cid)
    assert player(state, 0)["one_use_tools"] == [value]
    assert player(state, 0)["tools"] == []  # not a permanent tool


def test_one_use_tool_is_added_once_to_a_later_gathering_roll() -> None:
    state = start(dice=(3,), display=(ONE_USE_4, FOOD_7, FOOD_1, POINTS), gold=1)
    buy_in_slot(state, 1)
    pay(state, g=1)
    assert state.round == 2 and state.current_player == 1  # the start player moved left
    place(state, "field")  # seat 1
    place(state, "hunting")  # seat 0: rolls a 3, worth 1 food alone
    assert decision(state)["kind"] == "use_tools"
    assert offered(state, "use_tools") == [
        {"type": "use_tools", "tools": [], "one_use_tools": []},
        {"type": "use_tools", "tools": [], "one_use_tools": [4]},
    ]
    food = player(state, 0)["food"]
    state.apply({"type": "use_tools", "tools": [], "one_use_tools": [4]})
    assert player(state, 0)["food"] == food + (3 + 4) // 2
    assert player(state, 0)["one_use_tools"] == []
    assert player(state, 0)["cards"] == [ONE_USE_4]


def test_a_card_top_is_gained_at_once_and_can_pay_for_a_building_in_the_same_turn() -> None:
    # Seat 0 buys "2 stone" with its only wood, then pays 1 wood + 2 stone for a building.
    one_wood_two_stone = 4
    assert BUILDINGS[one_wood_two_stone].cost == (1, 0, 2, 0)
    state = start(display=(STONE_2, FOOD_7, FOOD_1, POINTS), piles=((one_wood_two_stone,),),
                  people=2, wood=2)
    place(state, "card", slot=1)  # seat 0
    place(state, "field")  # seat 1
    place(state, "building", pile=0)  # seat 0
    state.apply({"type": "resolve", "place": "card", "slot": 1})
    pay(state, w=1)
    assert resources(state, 0) == (1, 0, 2, 0)
    assert pays(state) == [(1, 0, 2, 0)]  # the building is resolved next, and affordable
    pay(state, w=1, s=2)
    assert player(state, 0)["score"] == 13


# ------------------------------------------------------------------- any 2 resources
def test_any_two_resources_card_is_kept_until_claimed() -> None:
    state = buy_for_one_gold(ANY2)
    assert player(state, 0)["any_two_resources"] == 1
    assert resources(state, 0) == (0, 0, 0, 0)


def test_holder_of_any_two_resources_is_offered_every_claim_at_a_card_payment() -> None:
    state = start(display=(FOOD_7, FOOD_1, POINTS, STONE_2), any2=1)
    buy_in_slot(state, 2)
    assert decision(state)["kind"] == "buy_card"  # not auto-declined: claiming is a choice
    claims = {
        (a["wood"], a["clay"], a["stone"], a["gold"])
        for a in offered(state, "claim_two_resources")
    }
    assert claims == mixes(2)
    assert len(offered(state, "claim_two_resources")) == 10
    assert pays(state) == []
    assert offered(state, "decline") == [{"type": "decline"}]


def test_claiming_any_two_resources_re_asks_the_same_payment_decision() -> None:
    state = start(display=(FOOD_7, FOOD_1, POINTS, STONE_2), any2=1, wood=1)
    buy_in_slot(state, 3)
    assert pays(state) == []
    claim(state, s=1, g=1)
    assert decision(state)["kind"] == "buy_card"
    assert decision(state)["slot"] == 3
    assert state.current_player == 0
    assert resources(state, 0) == (1, 0, 1, 1)
    assert player(state, 0)["any_two_resources"] == 0
    assert pays(state) == [(1, 0, 1, 1)]
    assert offered(state, "claim_two_resources") == []
    pay(state, w=1, s=1, g=1)
    assert player(state, 0)["cards"] == [POINTS]


def test_any_two_resources_claim_is_offered_at_a_building_payment() -> None:
    state = start(any2=1)
    place(state, "building", pile=0)
    place(state, "field")
    assert state.observation(0)["decision"]["kind"] == "buy_building"
    assert len(offered(state, "claim_two_resources")) == 10


def test_any_two_resources_claim_is_offered_when_short_of_food() -> None:
    state = start(food=0, agri=0, any2=1)
    place(state, "tool_maker")  # seat 0
    place(state, "field")  # seat 1
    d = decision(state)
    assert d["kind"] == "feed" and d["seat"] == 0 and d["deficit"] == 1
    assert len(offered(state, "claim_two_resources")) == 10
    assert offered(state, "feed_with_resources") == []
    claim(state, c=2)
    assert decision(state)["kind"] == "feed"
    assert {
        (a["wood"], a["clay"], a["stone"], a["gold"])
        for a in offered(state, "feed_with_resources")
    } == {(0, 1, 0, 0)}


def test_unclaimed_any_two_resources_card_scores_two_points_at_game_end() -> None:
    state = end_after_this_round(start(display=(ANY2, FOOD_7, FOOD_1, POINTS), gold=1))
    buy_in_slot(state, 1)
    pay(state, g=1)
    assert state.is_terminal
    result = state.result()
    assert result.breakdown[0]["resources"] == 2
    assert result.breakdown[0]["civilization_green"] == 1  # medicine
    assert result.scores[0] == 3


# ------------------------------------------------------------------------ extra card
def test_extra_card_gives_the_deck_top_card_to_the_buyer_without_its_top() -> None:
    state = start(display=(EXTRA, FOOD_1, POINTS, STONE_2), deck=(FOOD_7, TOOL), gold=1)
    assert state.observation(0)["board"]["deck_size"] == 32
    buy_in_slot(state, 1)
    pay(state, g=1)
    me = player(state, 0)
    assert me["cards"] == [EXTRA]
    assert me["hidden_card_list"] == [FOOD_7]
    assert me["hidden_cards"] == 1
    assert me["food"] == 12  # the 7 food on the extra card's top were not given
    # The refill of slot 1 took the card after it: display slid, then TOOL filled slot 4.
    assert display_ids(state) == [FOOD_1, POINTS, STONE_2, TOOL]
    assert state.observation(0)["board"]["deck_size"] == 30


def test_extra_card_is_hidden_from_the_other_players() -> None:
    state = start(display=(EXTRA, FOOD_1, POINTS, STONE_2), deck=(FOOD_7,), gold=1)
    buy_in_slot(state, 1)
    pay(state, g=1)
    seen_by_other = state.observation(1)
    assert seen_by_other["players"][0]["hidden_cards"] == 1
    assert "hidden_card_list" not in seen_by_other["players"][0]
    assert FOOD_7 not in card_ids_in(seen_by_other)
    assert FOOD_7 in card_ids_in(state.observation(0))


def test_extra_card_bottom_scores_at_game_end() -> None:
    # EXTRA is green "writing"; FOOD_7 underneath is green "pottery": one set of 2 -> 4 points.
    state = start(display=(EXTRA, FOOD_1, POINTS, STONE_2), deck=(FOOD_7,), gold=1)
    state = end_after_this_round(state)
    buy_in_slot(state, 1)
    pay(state, g=1)
    assert state.is_terminal
    assert state.result().breakdown[0]["civilization_green"] == 4


def test_extra_card_with_an_empty_deck_gives_nothing() -> None:
    state = start(display=(EXTRA, FOOD_1, POINTS, STONE_2), gold=1)
    state = edit(state, lambda d: d.update(deck_pos=len(CARDS)))
    assert state.observation(0)["board"]["deck_size"] == 0
    buy_in_slot(state, 1)
    pay(state, g=1)
    me = player(state, 0)
    assert me["cards"] == [EXTRA]
    assert me["hidden_cards"] == 0
    assert me["hidden_card_list"] == []
    assert resources(state, 0) == (0, 0, 0, 0)
    assert me["food"] == 12


def test_extra_card_takes_the_last_card_of_the_deck() -> None:
    state = start(display=(EXTRA, FOOD_1, POINTS, STONE_2), gold=1)
    state = edit(state, lambda d: d.update(deck_pos=len(CARDS) - 1))
    last = state.to_dict()["deck"][-1]
    assert state.observation(0)["board"]["deck_size"] == 1
    buy_in_slot(state, 1)
    pay(state, g=1)
    assert player(state, 0)["hidden_card_list"] == [last]
    assert state.observation(0)["board"]["deck_size"] == 0


# -------------------------------------------------------------------------- roll two dice
@pytest.mark.parametrize(
    ("good", "dice", "gain"),
    [
        (WOOD, (5, 4), (3, 0, 0, 0)),
        (STONE, (6, 5), (0, 0, 2, 0)),
        (GOLD, (6, 5), (0, 0, 0, 1)),
    ],
)
def test_roll_card_rolls_two_dice_for_its_resource(good: int, dice: tuple[int, int],
                                                   gain: Mix) -> None:
    cid = card_id("roll_two_dice", good=good)
    state = start(dice=dice, display=(cid, FOOD_7, FOOD_1, POINTS), food=5, clay=1)
    buy_in_slot(state, 1)
    pay(state, c=1)
    assert resources(state, 0) == gain
    assert player(state, 0)["food"] == 5


def test_tools_may_be_added_to_the_two_dice_of_a_roll_card() -> None:
    state = start(dice=(4, 4), display=(ROLL_WOOD, FOOD_7, FOOD_1, POINTS), clay=1, step=1)
    buy_in_slot(state, 1)
    pay(state, c=1)
    d = decision(state)
    assert d["kind"] == "use_tools"
    assert d["good"] == "wood" and d["dice"] == [4, 4]
    assert offered(state, "use_tools") == [
        {"type": "use_tools", "tools": [], "one_use_tools": []},
        {"type": "use_tools", "tools": [1], "one_use_tools": []},
    ]
    state.apply({"type": "use_tools", "tools": [1], "one_use_tools": []})
    assert resources(state, 0) == (3, 0, 0, 0)  # (4 + 4 + 1) // 3


def test_a_one_use_tool_may_be_added_to_the_two_dice_of_a_roll_card() -> None:
    state = start(dice=(5, 5), display=(ROLL_GOLD, FOOD_7, FOOD_1, POINTS), clay=1,
                  one_use=(2,))
    buy_in_slot(state, 1)
    pay(state, c=1)
    state.apply({"type": "use_tools", "tools": [], "one_use_tools": [2]})
    assert resources(state, 0) == (0, 0, 0, 2)  # (5 + 5 + 2) // 6
    assert player(state, 0)["one_use_tools"] == []


# ---------------------------------------------------------------------- dice for everyone
def test_dice_for_everyone_rolls_one_die_per_player_and_the_buyer_picks_first() -> None:
    state = start(4, dice=(1, 2, 3, 4), display=(DICE_ALL, FOOD_7, FOOD_1, POINTS), wood=1)
    buy_in_slot(state, 1, {"where": "field"}, {"where": "tool_maker"},
                {"where": "card", "slot": 4})
    pay(state, w=1)
    d = decision(state)
    assert d["kind"] == "pick_die"
    assert sorted(d["dice"]) == [1, 2, 3, 4]
    assert d["seat"] == 0 and state.current_player == 0
    assert [a["face"] for a in offered(state, "pick_die")] == [1, 2, 3, 4]
    assert {a["type"] for a in state.legal_actions()} == {"pick_die"}


def test_after_the_buyer_each_other_player_picks_one_die_clockwise() -> None:
    state = start(4, dice=(1, 2, 3, 4), display=(DICE_ALL, FOOD_7, FOOD_1, POINTS), wood=1)
    buy_in_slot(state, 1, {"where": "field"}, {"where": "tool_maker"},
                {"where": "card", "slot": 4})
    pay(state, w=1)
    state.apply({"type": "pick_die", "face": 4})
    assert state.current_player == 1
    assert [a["face"] for a in offered(state, "pick_die")] == [1, 2, 3]
    state.apply({"type": "pick_die", "face": 3})
    assert state.current_player == 2
    assert [a["face"] for a in offered(state, "pick_die")] == [1, 2]
    state.apply({"type": "pick_die", "face": 1})
    # Seat 3 had one die left, taken at once (E1).
    assert resources(state, 0) == (0, 0, 0, 1)
    assert resources(state, 1) == (0, 0, 1, 0)
    assert resources(state, 2) == (1, 0, 0, 0)
    assert resources(state, 3) == (0, 1, 0, 0)


def test_dice_for_everyone_order_wraps_around_from_a_buyer_who_is_not_seat_zero() -> None:
    state = start(3, dice=(1, 2, 3), display=(DICE_ALL, FOOD_7, FOOD_1, POINTS))
    state = with_player(state, 2, wood=1)
    place(state, "field")  # seat 0
    place(state, "tool_maker")  # seat 1
    place(state, "card", slot=1)  # seat 2
    pay(state, w=1)
    assert state.current_player == 2
    state.apply({"type": "pick_die", "face": 3})
    assert state.current_player == 0
    state.apply({"type": "pick_die", "face": 2})
    assert resources(state, 2) == (0, 0, 1, 0)
    assert resources(state, 0) == (0, 1, 0, 0)
    assert resources(state, 1) == (1, 0, 0, 0)


@pytest.mark.parametrize(
    ("face", "gain"),
    [(1, (1, 0, 0, 0)), (2, (0, 1, 0, 0)), (3, (0, 0, 1, 0)), (4, (0, 0, 0, 1))],
)
def test_die_faces_one_to_four_give_one_wood_clay_stone_or_gold(face: int, gain: Mix) -> None:
    state = start(dice=(face, 6), display=(DICE_ALL, FOOD_7, FOOD_1, POINTS), food=5,
                  wood=1)
    buy_in_slot(state, 1)
    pay(state, w=1)
    state.apply({"type": "pick_die", "face": face})
    assert resources(state, 0) == gain
    assert player(state, 0)["agriculture"] == 1
    assert player(state, 0)["food"] == 5
    assert player(state, 1)["agriculture"] == 1 + 1 + 1  # the field, then the 6


def test_die_face_five_gives_a_tool_step() -> None:
    state = start(dice=(5, 1), display=(DICE_ALL, FOOD_7, FOOD_1, POINTS), wood=1, step=3)
    buy_in_slot(state, 1)
    pay(state, w=1)
    state.apply({"type": "pick_die", "face": 5})
    assert sorted(player(state, 0)["tools"], reverse=True) == [2, 1, 1]
    assert resources(state, 0) == (0, 0, 0, 0)
    assert resources(state, 1) == (1, 0, 0, 0)


def test_die_face_six_gives_one_agriculture() -> None:
    state = start(dice=(6, 1), display=(DICE_ALL, FOOD_7, FOOD_1, POINTS), wood=1, agri=3)
    buy_in_slot(state, 1)
    pay(state, w=1)
    state.apply({"type": "pick_die", "face": 6})
    assert player(state, 0)["agriculture"] == 4
    assert resources(state, 0) == (0, 0, 0, 0)


def test_tools_never_apply_to_dice_for_everyone() -> None:
    state = start(dice=(2, 2), display=(DICE_ALL, FOOD_7, FOOD_1, POINTS), wood=1, step=6,
                  one_use=(4,))
    buy_in_slot(state, 1)
    pay(state, w=1)
    # Both dice show 2: a single legal pick, so no decision at all, and no tool question.
    assert state.round == 2
    assert resources(state, 0) == (0, 1, 0, 0)
    assert resources(state, 1) == (0, 1, 0, 0)
    assert player(state, 0)["one_use_tools"] == [4]


def test_tools_are_not_offered_when_picking_a_die() -> None:
    state = start(dice=(2, 5), display=(DICE_ALL, FOOD_7, FOOD_1, POINTS), wood=1, step=6,
                  one_use=(4,))
    buy_in_slot(state, 1)
    pay(state, w=1)
    assert {a["type"] for a in state.legal_actions()} == {"pick_die"}
    state.apply({"type": "pick_die", "face": 2})
    assert resources(state, 0) == (0, 1, 0, 0)
    assert player(state, 0)["one_use_tools"] == [4]
    assert player(state, 0)["tools_unused"] == [2, 2, 2]


def test_every_player_takes_a_die_even_when_its_effect_is_lost_to_a_cap() -> None:
    state = start(3, dice=(1, 5, 6), display=(DICE_ALL, FOOD_7, FOOD_1, POINTS), wood=1)
    state = with_player(state, 1, agri=10, step=12)
    # Seat 1 can use neither the field nor the tool maker; it takes card slot 4 it cannot pay.
    buy_in_slot(state, 1, {"where": "card", "slot": 4}, {"where": "field"})
    pay(state, w=1)
    state.apply({"type": "pick_die", "face": 1})
    assert state.current_player == 1
    assert {a["type"] for a in state.legal_actions()} == {"pick_die"}  # no way to pass
    assert [a["face"] for a in offered(state, "pick_die")] == [5, 6]
    state.apply({"type": "pick_die", "face": 6})
    assert player(state, 1)["agriculture"] == 10
    assert player(state, 1)["tools"] == [4, 4, 4]
    # Seat 2 got the die seat 1 left, the 5: one tool.
    assert player(state, 2)["tools"] == [1]
    assert resources(state, 0) == (1, 0, 0, 0)


def test_a_buyer_at_the_cap_still_takes_a_die_whose_effect_is_lost() -> None:
    state = start(dice=(6, 3), display=(DICE_ALL, FOOD_7, FOOD_1, POINTS), wood=1, agri=10)
    buy_in_slot(state, 1)
    pay(state, w=1)
    assert [a["face"] for a in offered(state, "pick_die")] == [3, 6]
    state.apply({"type": "pick_die", "face": 6})
    assert player(state, 0)["agriculture"] == 10
    assert resources(state, 0) == (0, 0, 0, 0)
    assert resources(state, 1) == (0, 0, 1, 0)


# ------------------------------------------------------------------ display slide and refill
def test_remaining_cards_slide_to_the_cheap_end_and_the_deck_refills_cheapest_first() -> None:
    a, b, c, d = FOOD_7, FOOD_1, POINTS, STONE_2
    e, f = TOOL, AGRI
    state = start(display=(a, b, c, d), deck=(e, f), wood=2)
    state = with_player(state, 1, wood=3)
    place(state, "card", slot=2)  # seat 0
    place(state, "card", slot=3)  # seat 1
    pay(state, w=2)
    assert display_ids(state) == [a, None, c, d]  # the bought slot stays empty this round
    assert state.current_player == 1
    pay(state, w=3)
    assert state.round == 2
    assert display_ids(state) == [a, d, e, f]


def test_buying_the_cheapest_card_slides_all_others_down_one_slot() -> None:
    a, b, c, d = FOOD_7, FOOD_1, POINTS, STONE_2
    state = start(display=(a, b, c, d), deck=(TOOL,), wood=1)
    buy_in_slot(state, 1)
    pay(state, w=1)
    assert display_ids(state) == [b, c, d, TOOL]


def test_display_is_unchanged_when_no_card_was_taken() -> None:
    display = (FOOD_7, FOOD_1, POINTS, STONE_2)
    state = start(display=display, deck=(TOOL,))
    place(state, "field")
    place(state, "tool_maker")
    assert state.round == 2
    assert display_ids(state) == list(display)
    assert state.observation(0)["board"]["deck_size"] == 32
