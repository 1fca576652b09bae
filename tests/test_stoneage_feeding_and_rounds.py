"""Feeding, the end of a round and the end of the game.

Rules text (seed 000): "まず農業マーカーの値だけ食料を受け取り、
次に自分の現在の人コマ1個につき食料1を共通の置き場へ返します。小屋から増えた新しい人も含めます。余った食料は次のラウンドへ残します。"
"足りなければ、持つ食料はすべて使い、不足1につき資源1個で補ってもかまいません。... 資源で補えない、
または補いたくないなら、食料はすべて払った上で10点を失います。足りない人数が1人でも5人でも、失うのは
10点で、人コマが減ることはありません。得点が0未満になってもそのままです。"
"開始プレイヤーを左隣へ移し、使用済み道具を戻します。" and the two end signals; rulings 7, 10 and
the engine's E1 (forced decisions are applied at once) and E7 (round limit).
"""

from __future__ import annotations

from typing import Any

import pytest
from sa import act, edit, new_game, offered, place, player, with_player

from arena.engine.stoneage import StoneAgeState
from arena.engine.stoneage.components import BUILDINGS, CARDS

ROUND_LIMIT = 100  # RULES.md E7: "the game also ends after round 100"
ONES = [1] * 80  # all dice show 1: river with <= 5 people yields no gold, hunting k people k//2


def feed_actions(state: StoneAgeState) -> list[dict[str, Any]]:
    return offered(state, "feed_with_resources")


def feed(wood: int = 0, clay: int = 0, stone: int = 0, gold: int = 0) -> dict[str, Any]:
    return {"type": "feed_with_resources", "wood": wood, "clay": clay, "stone": stone,
            "gold": gold}


def river_round(**seat0: Any) -> StoneAgeState:
    """Two players, round 1. Seat 0 (set up with ``seat0``) puts all its people on the river,
    where all-1 dice yield nothing; seat 1 (5 people, 12 food) hunts with 5 people (+2 food).
    Returns the state after both placements: at seat 0's feeding decision if it has one,
    otherwise already in round 2."""
    g = new_game(2, dice=ONES)
    g = with_player(g, 0, **seat0)
    place(g, "river", player(g, 0)["people_to_place"])
    place(g, "hunting", 5)
    return g


def hunt_round(g: StoneAgeState) -> None:
    """Every player in turn puts all its people on hunting (all-1 dice); the round then runs to
    its end unless someone must decide about feeding."""
    r = g.round
    while not g.is_terminal and g.round == r and g.observation(0)["phase"] == "placement":
        seat = g.current_player
        assert seat is not None
        place(g, "hunting", player(g, seat)["people_to_place"])


# ------------------------------------------------------------------------------- feeding


def test_food_equal_to_agriculture_is_received_before_the_people_eat() -> None:
    # 2 food + 3 from agriculture feeds 5 people exactly: no shortage, nothing left.
    g = river_round(food=2, agri=3, people=5)
    assert g.round == 2
    assert player(g, 0)["food"] == 0
    assert player(g, 0)["score"] == 0
    assert player(g, 0)["agriculture"] == 3


def test_agriculture_food_not_eaten_is_kept() -> None:
    g = river_round(food=4, agri=3, people=5)
    assert g.round == 2
    assert player(g, 0)["food"] == 2


def test_each_person_eats_one_food_and_leftover_food_carries_over() -> None:
    g = river_round(food=12, people=5)
    assert g.round == 2
    assert player(g, 0)["food"] == 7
    # round 2: seat 1 starts; both hunt with all-1 dice (seat 0 gains 5 // 2 = 2 food)
    hunt_round(g)
    assert g.round == 3
    assert player(g, 0)["food"] == 7 + 2 - 5


def test_a_person_gained_on_the_hut_this_round_eats_at_this_feeding() -> None:
    g = new_game(2, dice=ONES)
    place(g, "hut", 2)
    place(g, "hunting", 5)
    place(g, "river", 3)
    # seat 0 chooses the order of its two places
    act(g, "resolve", place="hut")
    assert g.round == 2
    assert player(g, 0)["people"] == 6
    assert player(g, 0)["food"] == 12 - 6
    assert player(g, 1)["food"] == 12 + 2 - 5


def test_a_person_gained_on_the_hut_can_be_placed_from_the_next_round() -> None:
    g = new_game(2, dice=ONES)
    place(g, "hut", 2)
    place(g, "hunting", 5)
    place(g, "river", 3)
    act(g, "resolve", place="hut")
    assert g.round == 2
    assert player(g, 0)["people_to_place"] == 6


def test_a_short_player_pays_all_food_then_chooses_resources_or_the_penalty() -> None:
    # 1 food, 5 people, no agriculture: deficit 4; exactly 4 resources held
    g = river_round(food=1, people=5, wood=1, clay=1, stone=2)
    obs = g.observation(0)
    assert obs["phase"] == "feeding"
    assert obs["decision"] == {"kind": "feed", "seat": 0, "deficit": 4}
    assert player(g, 0)["food"] == 0
    assert sorted(map(str, offered(g))) == sorted(
        map(str, [feed(wood=1, clay=1, stone=2), {"type": "take_penalty"}])
    )


def test_the_deficit_counts_agriculture_food() -> None:
    g = river_round(food=1, agri=2, people=5, wood=5)
    assert g.observation(0)["decision"]["deficit"] == 2


def test_every_distinct_mix_of_resources_covering_the_whole_deficit_is_offered_once() -> None:
    # deficit 2 with wood 2, clay 1, gold 1
    g = river_round(food=3, people=5, wood=2, clay=1, gold=1)
    assert g.observation(0)["decision"]["deficit"] == 2
    got = [tuple(a[k] for k in ("wood", "clay", "stone", "gold")) for a in feed_actions(g)]
    assert len(got) == len(set(got))
    assert set(got) == {(2, 0, 0, 0), (1, 1, 0, 0), (1, 0, 0, 1), (0, 1, 0, 1)}


def test_no_partial_payment_every_resource_option_covers_the_whole_deficit() -> None:
    g = river_round(food=0, people=5, wood=3, clay=3, stone=3, gold=3)
    options = feed_actions(g)
    assert options
    assert all(a["wood"] + a["clay"] + a["stone"] + a["gold"] == 5 for a in options)
    assert sum(1 for a in offered(g) if a["type"] == "take_penalty") == 1
    assert len(offered(g)) == len(options) + 1


def test_each_resource_feeds_one_person_whatever_its_kind() -> None:
    g = river_round(food=2, people=5, wood=1, gold=3)
    act(g, **feed(gold=3))
    assert g.round == 2
    assert player(g, 0)["food"] == 0
    assert player(g, 0)["gold"] == 0
    assert player(g, 0)["wood"] == 1
    assert player(g, 0)["score"] == 0


@pytest.mark.parametrize("food", [4, 0])  # deficit 1 and deficit 5
def test_penalty_is_ten_points_whatever_the_deficit(food: int) -> None:
    g = river_round(food=food, people=5, wood=5)
    assert g.observation(0)["decision"]["deficit"] == 5 - food
    act(g, "take_penalty")
    assert g.round == 2
    assert player(g, 0)["score"] == -10


def test_taking_the_penalty_keeps_the_resources_and_the_food_is_still_gone() -> None:
    g = river_round(food=2, people=5, wood=3, stone=1)
    act(g, "take_penalty")
    p = player(g, 0)
    assert (p["food"], p["wood"], p["stone"]) == (0, 3, 1)
    assert p["score"] == -10


def test_starving_does_not_remove_people() -> None:
    g = river_round(food=0, people=5)
    assert g.round == 2
    assert player(g, 0)["people"] == 5
    assert player(g, 0)["people_to_place"] == 5


def test_only_the_penalty_when_resources_cannot_cover_the_deficit() -> None:
    # deficit 5, only 4 resources: the penalty is the single legal action and is applied at
    # once (E1); the resources stay.
    g = river_round(food=0, people=5, wood=2, clay=2)
    assert g.round == 2
    p = player(g, 0)
    assert p["score"] == -10
    assert (p["food"], p["wood"], p["clay"]) == (0, 2, 2)


def test_scores_may_go_below_zero() -> None:
    g = river_round(food=0, people=5)
    assert player(g, 0)["score"] == -10
    hunt_round(g)  # round 2: 5 hunters with all-1 dice bring 2 food, 5 are needed
    assert g.round == 3
    assert player(g, 0)["score"] == -20


def test_penalty_points_are_lost_from_points_already_scored() -> None:
    g = river_round(food=0, people=5, build_pts=4)
    assert player(g, 0)["score"] == 4 - 10


# ---------------------------------------------------------------------------- end of round


def test_the_start_player_passes_to_the_left_every_round() -> None:
    g = new_game(3, dice=ONES)
    for seat in range(3):
        g = with_player(g, seat, people=1)
    starts = []
    for _ in range(4):
        obs = g.observation(0)
        starts.append((obs["start_player"], obs["current_player"]))
        hunt_round(g)
    assert starts == [(0, 0), (1, 1), (2, 2), (0, 0)]
    assert g.round == 5


def test_the_new_start_player_places_first() -> None:
    g = new_game(2, dice=ONES)
    hunt_round(g)
    assert g.observation(1)["start_player"] == 1
    assert g.current_player == 1
    place(g, "river", 5)
    assert g.current_player == 0


def _tools_round() -> StoneAgeState:
    """Seat 0 (tools 1/1/1) hunts with one die showing 1 and adds all three tools; the state is
    left at seat 1's choice of which place to resolve first (same round)."""
    g = new_game(2, dice=ONES)
    g = with_player(g, 0, people=2, step=3)
    g = with_player(g, 1, people=2)
    place(g, "hunting", 1)
    place(g, "hunting", 1)
    place(g, "forest", 1)
    place(g, "clay_pit", 1)
    act(g, "resolve", place="hunting")
    act(g, "use_tools", tools=[1, 1, 1], one_use_tools=[])
    return g


def test_used_tools_stay_used_for_the_rest_of_the_round() -> None:
    g = _tools_round()
    assert g.round == 1
    assert g.current_player == 1
    assert player(g, 0)["tools"] == [1, 1, 1]
    assert player(g, 0)["tools_unused"] == []
    assert player(g, 0)["food"] == 12 + 2  # (1 + 3) // 2, not yet fed


def test_used_tools_are_ready_again_next_round() -> None:
    g = _tools_round()
    act(g, "resolve", place="hunting")
    assert g.round == 2
    assert player(g, 0)["tools_unused"] == [1, 1, 1]


def test_all_people_are_placeable_again_next_round() -> None:
    g = new_game(2, dice=ONES)
    place(g, "hunting", 3)
    assert player(g, 0)["people_to_place"] == 2
    place(g, "hunting", 5)
    place(g, "river", 2)
    act(g, "resolve", place="river")
    assert g.round == 2
    assert [player(g, s)["people_to_place"] for s in (0, 1)] == [5, 5]
    assert all(v == [0, 0] for v in g.observation(0)["board"]["people"].values())


# ------------------------------------------------------------------------------ game end


FOOD_CARDS = [i for i, c in enumerate(CARDS) if c.top == "food"]


def _two_buyers(cards_left: int, second_buys: bool) -> StoneAgeState:
    """Round 1 with ``cards_left`` cards in the deck; seat 0 buys the 1-cost card, seat 1 the
    2-cost card if ``second_buys`` (otherwise it cannot pay and declines)."""
    g = new_game(2, display=FOOD_CARDS[:4])
    g = edit(g, lambda d: d.update(deck_pos=36 - cards_left))
    g = with_player(g, 0, people=1, wood=1)
    g = with_player(g, 1, people=1, wood=2 if second_buys else 0)
    assert g.observation(0)["board"]["deck_size"] == cards_left
    place(g, "card", slot=1)
    place(g, "card", slot=2)
    act(g, "pay", wood=1, clay=0, stone=0, gold=0)
    if second_buys:
        act(g, "pay", wood=2, clay=0, stone=0, gold=0)
    return g


def test_game_ends_at_once_when_the_deck_cannot_refill_the_display_to_four() -> None:
    g = _two_buyers(cards_left=1, second_buys=True)
    assert g.is_terminal
    assert g.round == 1
    assert g.current_player is None
    assert g.legal_actions() == []
    res = g.result()
    assert len(res.scores) == 2


def test_game_goes_on_when_the_deck_can_just_refill_the_display() -> None:
    g = _two_buyers(cards_left=2, second_buys=True)
    assert not g.is_terminal
    assert g.round == 2
    board = g.observation(0)["board"]
    assert board["deck_size"] == 0
    assert all(c["card"] is not None for c in board["cards"])


def test_game_goes_on_when_one_card_is_missing_and_one_is_left_in_the_deck() -> None:
    g = _two_buyers(cards_left=1, second_buys=False)
    assert not g.is_terminal
    assert g.round == 2


def test_an_empty_deck_does_not_end_the_game_while_the_display_is_full() -> None:
    g = new_game(2, dice=ONES)
    g = edit(g, lambda d: d.update(deck_pos=36))
    g = with_player(g, 0, people=1)
    g = with_player(g, 1, people=1)
    hunt_round(g)
    assert not g.is_terminal
    assert g.round == 2


def _last_building_round() -> StoneAgeState:
    """Pile 0 holds one building (2 wood + 1 clay, 10 points). Seat 0 buys it; seat 1 hunts
    with 5 people (all-1 dice: +2 food) on 0 food and must then decide about feeding."""
    assert BUILDINGS[0].cost == (2, 1, 0, 0)
    g = new_game(2, dice=ONES, piles=[[1, 2, 3, 4, 5, 6, 0]])
    g = edit(g, lambda d: d["pile_pos"].__setitem__(0, 6))
    g = with_player(g, 0, people=1, wood=2, clay=1)
    g = with_player(g, 1, food=0, wood=5)
    place(g, "building", pile=0)
    place(g, "hunting", 5)
    act(g, "pay", wood=2, clay=1, stone=0, gold=0)
    return g


def test_the_round_in_which_a_building_pile_empties_is_played_to_the_end() -> None:
    g = _last_building_round()
    obs = g.observation(1)
    assert obs["board"]["buildings"][0]["remaining"] == 0
    assert not g.is_terminal
    # the other player's places are still resolved after the pile ran out
    assert player(g, 1)["food"] == 0  # 2 hunted, all paid towards 5
    assert obs["decision"] == {"kind": "feed", "seat": 1, "deficit": 3}
    with pytest.raises(RuntimeError):
        g.result()


def test_the_game_ends_after_the_feeding_of_the_round_a_building_pile_emptied() -> None:
    g = _last_building_round()
    act(g, **feed(wood=3))
    assert g.is_terminal
    assert g.round == 1
    assert player(g, 0)["food"] == 12 - 1  # seat 0 was fed as well
    assert player(g, 1)["wood"] == 2
    res = g.result()
    assert res.scores == (10, 2)
    assert res.ranks == (1, 2)


def test_a_feeding_penalty_in_the_last_round_counts() -> None:
    g = _last_building_round()
    act(g, "take_penalty")
    assert g.is_terminal
    assert g.result().scores == (10, -10 + 5)


def test_the_game_ends_after_the_round_limit() -> None:
    g = new_game(2, dice=ONES)
    g = edit(g, lambda d: d.update(round=ROUND_LIMIT))
    hunt_round(g)
    assert g.is_terminal
    assert g.round == ROUND_LIMIT


def test_the_round_before_the_limit_is_followed_by_another_round() -> None:
    g = new_game(2, dice=ONES)
    g = edit(g, lambda d: d.update(round=ROUND_LIMIT - 1))
    hunt_round(g)
    assert not g.is_terminal
    assert g.round == ROUND_LIMIT
