"""Agricola: the game state (``state.py``, ``views.py``, ``game.py``) through the engine contract.

The flow of a game (set-up, rounds and stages, the work order, the starting player, one person
per space, accumulation, the stage cards), every space's action at the state level, family
growth, rooms and renovation, fields, baking, the majors, fences, animals, the harvest and the
final scoring through ``result()``. Positions are built through the save format (``agri.py``);
rulings are named as in ``arena/engine/agricola/RULES.md``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from agri import (
    GAME,
    act,
    farm,
    finished,
    goods,
    mid,
    new,
    offered,
    order_with,
    place,
    places,
    position,
    sid,
    types,
)

from arena.engine.agricola.components import (
    BOARD_SPACES,
    HARVEST_ROUNDS,
    STAGE_CARDS,
    STAGE_ROUNDS,
    stage_of_round,
)
from arena.engine.agricola.scoring import SCORE_KEYS
from arena.engine.agricola.state import AgricolaState
from arena.engine.api import IllegalActionError

FIREPLACE_2, FIREPLACE_3 = mid("fireplace_2"), mid("fireplace_3")
HEARTH_4, HEARTH_5 = mid("cooking_hearth_4"), mid("cooking_hearth_5")
CLAY_OVEN, STONE_OVEN = mid("clay_oven"), mid("stone_oven")
JOINERY, WELL = mid("joinery"), mid("well")


def board(s: AgricolaState) -> dict[str, Any]:
    return s.observation(0)["board"]


def pile(s: AgricolaState, key: str) -> int:
    return next(n for sp, _, n in board(s)["accumulated"] if sp == sid(key))


def seat_view(s: AgricolaState, seat: int) -> dict[str, Any]:
    return s.to_dict()["players"][seat]


def decision(s: AgricolaState) -> tuple[str, int | None]:
    return (s.phase, s.current_player)


# =============================================================================== set-up and flow

@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_set_up_food_people_rooms_and_round_one(n: int) -> None:
    """S7, ref A2: the starting player 2 food, the others 3 (solo 0); two people in the two
    wooden rooms; round 1's card revealed; seat 0 starts."""
    s = new(n, seed=11)
    d = s.to_dict()
    assert d["round"] == 1 and d["phase"] == "place" and d["current_player"] == 0
    assert d["board"]["start_player"] == 0 and d["round_start_player"] == 0
    for p, pd in enumerate(d["players"]):
        food = (0 if n == 1 else 2) if p == 0 else 3
        assert pd["goods"] == {**dict.fromkeys(pd["goods"], 0), "food": food}
        assert pd["farm"] == {"house": "wood", "rooms": [5, 10], "fields": [], "stables": [],
                              "fences": []}
        assert (pd["people"], pd["people_to_place"], pd["newborns"], pd["begging"]) == (2, 2, 0, 0)
        assert pd["majors"] == []
    revealed = d["board"]["revealed"]
    assert len(revealed) == 1 and revealed[0] in STAGE_CARDS[0]
    assert d["board"]["spaces"] == [*BOARD_SPACES[n], revealed[0]]
    assert d["board"]["majors"] == list(range(10))


def _solo_beggar_game() -> tuple[AgricolaState, dict[int, int], list[int]]:
    """A solo game that only ever takes building resources: begging at the start of each round,
    and the number of people placed in each round."""
    s = new(1, seed=3)
    begging_at_start: dict[int, int] = {}
    placed = [0] * 15
    prefer = ["forest", "clay_pit", "reed_bank", "western_quarry", "eastern_quarry"]
    while not s.is_terminal:
        begging_at_start.setdefault(s.round, s._begging[0])
        assert s.phase == "place", s  # nothing else is ever asked of this player
        free = places(s)
        key = next(k for k in prefer if k in free)
        placed[s.round] += 1
        place(s, key)
    return s, begging_at_start, placed


def test_fourteen_rounds_harvests_after_4_7_9_11_13_14_and_the_end() -> None:
    """Ref A2: 14 rounds in 6 stages, a harvest after rounds 4, 7, 9, 11, 13 and 14; the game
    ends after round 14's harvest. A solo player with no food begs 6 markers (2 adults x 3
    food, D8) at each harvest and at no other time."""
    s, begging_at_start, placed = _solo_beggar_game()
    assert sorted(begging_at_start) == list(range(1, 15))
    for rnd in range(1, 15):
        harvests_before = sum(1 for h in HARVEST_ROUNDS if h < rnd)
        assert begging_at_start[rnd] == 6 * harvests_before, rnd
    assert s.is_terminal and s.round == 14 and s.current_player is None
    assert s._begging[0] == 36  # six harvests, the last one after round 14
    assert placed[1:] == [2] * 14  # two people, every round
    assert s.result().breakdown[0]["begging"] == -108


def test_result_is_refused_before_the_end() -> None:
    s = new(2)
    with pytest.raises(RuntimeError):
        s.result()


def _play_automatic(s: AgricolaState, keys: list[str]) -> list[int]:
    """Place on spaces with nothing to choose, in order; the seats that placed."""
    seats = []
    for key in keys:
        assert s.phase == "place" and s.current_player is not None
        seats.append(s.current_player)
        place(s, key)
    return seats


def test_work_order_from_the_round_start_player_skipping_players_with_nobody_home() -> None:
    """S1, ref A2: from the round's starting player clockwise, one person at a time; players
    with no people left are skipped (seat 2 has three people, the others two)."""
    s = position(3, start=1, seats={2: {"people": 3, "farm": farm(rooms=[0])}})
    seats = _play_automatic(s, ["day_laborer", "forest", "clay_pit", "reed_bank", "fishing",
                                "grain_seeds", "grove"])
    assert seats == [1, 2, 0, 1, 2, 0, 2]
    assert s.round == 2 and decision(s) == ("place", 1)  # the token did not move


def test_meeting_place_moves_the_token_for_the_next_round_with_its_food() -> None:
    """S1, D5: Meeting Place gives the token and the food piled on it; this round's order is
    unchanged, the new holder starts the next round (and keeps the token after it)."""
    s = position(2, piles={"meeting_place": 3},
                 seats={0: {"goods": {"food": 2}}, 1: {"goods": {"food": 3}}})
    assert _play_automatic(s, ["forest", "meeting_place"]) == [0, 1]
    assert goods(s, 1)["food"] == 6 and pile(s, "meeting_place") == 0
    assert board(s)["start_player"] == 1
    assert s.to_dict()["round_start_player"] == 0
    assert decision(s) == ("place", 0)  # this round: still 0, 1, 0, 1
    assert _play_automatic(s, ["clay_pit", "reed_bank"]) == [0, 1]
    assert s.round == 2 and s.to_dict()["round_start_player"] == 1
    assert pile(s, "meeting_place") == 1
    assert _play_automatic(s, ["forest", "clay_pit", "reed_bank", "fishing"]) == [1, 0, 1, 0]
    assert s.round == 3 and decision(s) == ("place", 1)


def test_the_starting_player_taken_in_a_harvest_round_feeds_first() -> None:
    """S1/S5: the token taken in round 4 already orders that round's feeding. Both players
    must choose how to feed (grain or begging), so each feeding is a decision."""
    hungry = {"goods": {"grain": 4}, "home": 1}
    s = position(2, rnd=4, piles={"meeting_place": 0}, seats={0: hungry, 1: hungry})
    _play_automatic(s, ["forest", "meeting_place"])
    assert decision(s) == ("feed", 1)
    s.apply_index(0)
    assert decision(s) == ("feed", 0)


def test_one_person_per_space() -> None:
    """Ref A2: a space holds one person per round; the occupied space is not offered and
    applying it anyway is refused without changing anything."""
    s = new(2)
    place(s, "forest")
    assert "forest" not in places(s)
    before = s.to_dict()
    with pytest.raises(IllegalActionError):
        place(s, "forest")
    assert s.to_dict() == before
    assert board(s)["occupants"] == [[sid("forest"), 0]]


def test_accumulation_piles_up_while_unused_and_is_taken_whole() -> None:
    """B4, seed アクションスペース: goods are added every round, not topped up; taking
    empties the space."""
    s = new(2, seed=5)
    assert pile(s, "forest") == 3 and pile(s, "fishing") == 1
    for _ in range(2):  # rounds 1 and 2: nobody takes wood or fish
        _play_automatic(s, ["clay_pit", "reed_bank", "day_laborer", "grain_seeds"])
    assert s.round == 3 and pile(s, "forest") == 9 and pile(s, "fishing") == 3
    assert pile(s, "clay_pit") == 1  # taken every round
    wood = goods(s, 0)["wood"]
    place(s, "forest")
    assert goods(s, 0)["wood"] == wood + 9 and pile(s, "forest") == 0
    _play_automatic(s, ["clay_pit", "reed_bank", "day_laborer"])
    assert s.round == 4 and pile(s, "forest") == 3


def _revealed_by_round(n: int, seed: int, policy: int) -> list[int]:
    s = new(n, seed=seed)
    rng = random.Random(policy)
    seen = [s.observation(0)["board"]["revealed"][-1]]
    while not s.is_terminal:
        rnd = s.round
        s.apply_index(rng.randrange(s.num_legal()))
        if s.round != rnd:
            seen.append(s.observation(0)["board"]["revealed"][-1])
    return seen


def test_stage_cards_are_shuffled_within_each_stage() -> None:
    """B1, ref A2/A4: each round reveals a card of its own stage; the order inside a stage
    changes with the seed."""
    firsts = set()
    for seed in range(40):
        order = new(2, seed=seed).to_dict()["board"]["order"]
        for rounds, cards in zip(STAGE_ROUNDS, STAGE_CARDS, strict=True):
            assert sorted(order[r - 1] for r in rounds) == sorted(cards)
        firsts.add(tuple(order[:4]))
    assert len(firsts) > 5


def test_the_same_seed_reveals_the_same_card_each_round_at_every_count_and_play() -> None:
    """B1 (duplicate play): the stage order depends on the seed only, not on the player count,
    the seats or what anyone does, so every seat rotation of a seed sees the same cards."""
    for seed in (1, 2):
        reference = _revealed_by_round(2, seed, policy=0)
        assert len(reference) == 14
        for n in (1, 2, 3, 4):
            for policy in (1, 2):
                assert _revealed_by_round(n, seed, policy) == reference
        for r, card in enumerate(reference, 1):
            assert card in STAGE_CARDS[stage_of_round(r) - 1]


# ======================================================================== the spaces' actions

def test_spaces_with_nothing_to_choose_are_carried_out_at_once() -> None:
    """S3: Day Laborer's 2 food is taken on placing; the next player is asked at once."""
    s = position(2, seats={0: {"goods": {"food": 1}}})
    place(s, "day_laborer")
    assert goods(s, 0)["food"] == 3
    assert decision(s) == ("place", 1)


#: What each goods space gives (ref A3-A5), with its pile set to 3 (animals: 1, which the
#: house holds as a pet), by player count.
_GIVES = {
    "meeting_place": {"food": 3}, "grain_seeds": {"grain": 1}, "day_laborer": {"food": 2},
    "forest": {"wood": 3}, "clay_pit": {"clay": 3}, "reed_bank": {"reed": 3},
    "fishing": {"food": 3}, "sheep_market": {"sheep": 1}, "western_quarry": {"stone": 3},
    "vegetable_seeds": {"vegetable": 1}, "pig_market": {"boar": 1},
    "cattle_market": {"cattle": 1}, "eastern_quarry": {"stone": 3},
    "copse": {"wood": 3}, "grove": {"wood": 3}, "hollow_3p": {"clay": 3},
    "hollow_4p": {"clay": 3}, "traveling_players": {"food": 3},
    "resource_market_4p": {"reed": 1, "stone": 1, "food": 1},
}
_AT = {1: set(), 2: set(), 3: {"grove", "hollow_3p"},
       4: {"copse", "grove", "hollow_4p", "resource_market_4p", "traveling_players"}}
_EVERYWHERE = set(_GIVES) - {k for ks in _AT.values() for k in ks}


@pytest.mark.parametrize(("n", "key"), [(n, k) for n in (1, 2, 3, 4)
                                        for k in sorted(_EVERYWHERE | _AT[n])])
def test_every_goods_space_gives_its_goods_at_once(n: int, key: str) -> None:
    """Ref A3-A5, P10, S3: an accumulation space gives its whole pile, a fixed space its
    goods, with nothing to choose; in round 14 every stage card is in play. (Piles named for
    spaces that do not accumulate or are not in play are ignored by ``position``.)"""
    animals = ("sheep_market", "pig_market", "cattle_market")
    s = position(n, rnd=14, piles={k: 1 if k in animals else 3 for k in _GIVES},
                 seats={0: {"goods": {}}})
    before = goods(s, 0)
    place(s, key)
    after = goods(s, 0)
    assert {g: after[g] - before[g] for g in after if after[g] != before[g]} == _GIVES[key]
    assert decision(s) == ("place", 1 % n)


def test_lessons_are_on_the_board_but_never_usable() -> None:
    """D6, B5: the Lessons spaces stay on the board and can never be used."""
    for n, lessons in ((1, "lessons"), (2, "lessons"), (3, "lessons_3p"), (4, "lessons_4p")):
        s = position(n, seats={0: {"goods": {"wood": 20, "reed": 9, "clay": 9, "food": 9}}})
        assert sid(lessons) in board(s)["spaces"]
        assert lessons not in places(s)
        with pytest.raises(IllegalActionError):
            place(s, lessons)


def test_farm_expansion_rooms_and_or_stables_stop_only_after_one() -> None:
    """D11 and/or: either part, both, in either order, each at most once; ``stop`` only after
    the first sub-action. Rooms cost 5 wood + 2 reed, stables 2 wood."""
    rich = {"goods": {"wood": 14, "reed": 4}}
    s = position(2, seats={0: rich})
    place(s, "farm_expansion")
    assert types(s) == {"build_room", "build_stable"}  # no stop yet
    act(s, "build_room", cell=0)
    assert types(s) == {"build_room", "build_stable", "stop"}  # rooms repeat while affordable
    act(s, "build_stable", cell=2)
    assert types(s) == {"build_stable", "stop"}  # rooms are over once stables began
    assert goods(s, 0)["wood"] == 14 - 5 - 2 and goods(s, 0)["reed"] == 2
    act(s, "stop")
    assert decision(s) == ("place", 1)
    assert seat_view(s, 0)["farm"]["rooms"] == [0, 5, 10]
    assert seat_view(s, 0)["farm"]["stables"] == [2]

    s = position(2, seats={0: rich})
    place(s, "farm_expansion")
    act(s, "build_stable", cell=2)
    assert types(s) == {"build_room", "build_stable", "stop"}  # rooms after stables: fine
    act(s, "build_room", cell=0)
    assert "build_stable" not in types(s)
    act(s, "build_room", cell=6)  # wood 14 - 2 - 5 - 5 = 2: no third room
    assert decision(s) == ("place", 1)  # nothing left to do: the action ended by itself
    assert goods(s, 0)["wood"] == 2 and goods(s, 0)["reed"] == 0


def test_side_job_one_stable_for_one_wood_and_or_bake() -> None:
    """Ref A2/A3: Side Job builds exactly one stable for 1 wood and/or bakes bread, in either
    order."""
    s = position(2, seats={0: {"goods": {"wood": 3, "grain": 2}, "majors": [FIREPLACE_2]}},
                 majors_on_board=[m for m in range(10) if m != FIREPLACE_2])
    place(s, "side_job")
    assert types(s) == {"build_stable", "bake"}
    act(s, "build_stable", cell=4)
    assert goods(s, 0)["wood"] == 2
    assert types(s) == {"bake", "stop"}  # exactly one stable, though 2 wood are left
    bakes = [a for a in offered(s) if a["type"] == "bake"]
    assert bakes == [{"type": "bake", "grain": 1, "uses": [[FIREPLACE_2, 1]]},
                     {"type": "bake", "grain": 2, "uses": [[FIREPLACE_2, 2]]}]
    s.apply(bakes[1])
    assert goods(s, 0)["food"] == 4 and goods(s, 0)["grain"] == 0
    assert decision(s) == ("place", 1)

    s = position(2, seats={0: {"goods": {"wood": 3, "grain": 2}, "majors": [FIREPLACE_2]}},
                 majors_on_board=[m for m in range(10) if m != FIREPLACE_2])
    place(s, "side_job")
    act(s, "bake", grain=1, uses=[[FIREPLACE_2, 1]])
    assert types(s) == {"build_stable", "stop"}  # the stable may come after the bake
    act(s, "stop")
    assert decision(s) == ("place", 1) and goods(s, 0)["wood"] == 3


def test_side_job_is_not_usable_without_wood_or_a_baker_with_grain() -> None:
    """P1: neither part possible (no wood; grain but no baking improvement)."""
    s = position(2, seats={0: {"goods": {"grain": 3}}})
    assert "side_job" not in places(s)
    s = position(2, seats={0: {"goods": {"wood": 1}}})
    assert "side_job" in places(s)


def test_grain_utilization_sow_and_or_bake_in_either_order() -> None:
    """D11: sow any number of empty fields and/or bake; baking first, then sowing."""
    holding = {"goods": {"grain": 2, "vegetable": 1}, "majors": [FIREPLACE_2],
               "farm": farm(fields=[2, 3])}
    on_board = [m for m in range(10) if m != FIREPLACE_2]
    s = position(2, order=order_with("grain_utilization"), seats={0: holding},
                 majors_on_board=on_board)
    place(s, "grain_utilization")
    assert types(s) == {"sow", "bake"}
    act(s, "sow", cell=2, crop="grain")
    act(s, "sow", cell=3, crop="vegetable")
    assert seat_view(s, 0)["farm"]["fields"] == [[2, "grain", 3], [3, "vegetable", 2]]
    assert offered(s) == [{"type": "bake", "grain": 1, "uses": [[FIREPLACE_2, 1]]},
                          {"type": "stop"}]
    act(s, "bake", grain=1, uses=[[FIREPLACE_2, 1]])
    assert decision(s) == ("place", 1)
    g = goods(s, 0)
    assert (g["grain"], g["vegetable"], g["food"]) == (0, 0, 2)

    s = position(2, order=order_with("grain_utilization"), seats={0: holding},
                 majors_on_board=on_board)
    place(s, "grain_utilization")
    act(s, "bake", grain=1, uses=[[FIREPLACE_2, 1]])
    assert types(s) == {"sow", "stop"}
    act(s, "sow", cell=2, crop="grain")
    assert types(s) == {"sow", "stop"}  # the other field may still be sown (vegetable)
    assert {a.get("crop") for a in offered(s)} == {"vegetable", None}
    act(s, "stop")
    assert goods(s, 0)["vegetable"] == 1 and decision(s) == ("place", 1)


def test_cultivation_plough_then_sow_the_new_field_or_sow_then_plough() -> None:
    """Ref A4: Cultivation may sow the field it has just ploughed; D11 either order; one
    plough only."""
    order = order_with("cultivation")
    s = position(2, rnd=12, order=order, seats={0: {"goods": {"grain": 2},
                                                    "farm": farm(fields=[2])}})
    place(s, "cultivation")
    assert types(s) == {"plough", "sow"}
    act(s, "plough", cell=3)
    assert types(s) == {"sow", "stop"}  # one plough only
    assert {a["cell"] for a in offered(s) if a["type"] == "sow"} == {2, 3}
    act(s, "sow", cell=3, crop="grain")
    act(s, "stop")
    assert seat_view(s, 0)["farm"]["fields"] == [[2, None, 0], [3, "grain", 3]]
    assert goods(s, 0)["grain"] == 1

    s = position(2, rnd=12, order=order, seats={0: {"goods": {"grain": 2},
                                                    "farm": farm(fields=[2])}})
    place(s, "cultivation")
    act(s, "sow", cell=2, crop="grain")
    assert types(s) == {"plough", "stop"}  # nothing left to sow: plough or stop
    act(s, "plough", cell=7)
    assert decision(s) == ("place", 1)  # nothing left: sowing came first and is over
    assert seat_view(s, 0)["farm"]["fields"] == [[2, "grain", 3], [7, None, 0]]


def test_cultivation_only_ploughing_then_stop() -> None:
    s = position(2, rnd=12, order=order_with("cultivation"), seats={0: {"goods": {"grain": 1}}})
    place(s, "cultivation")
    assert types(s) == {"plough"}  # no field yet: nothing to sow
    act(s, "plough", cell=0)
    assert types(s) == {"sow", "stop"}
    act(s, "stop")
    assert goods(s, 0)["grain"] == 1
    assert seat_view(s, 0)["farm"]["fields"] == [[0, None, 0]]


def test_house_redevelopment_renovates_first_then_offers_a_major() -> None:
    """D11 and-afterwards, P9: renovation is compulsory and comes first (1 clay per room +
    1 reed), then one major may follow, or stop."""
    order = order_with("house_redevelopment")
    s = position(2, rnd=5, order=order, seats={0: {"goods": {"clay": 4, "reed": 1}}})
    place(s, "house_redevelopment")
    assert seat_view(s, 0)["farm"]["house"] == "clay"
    assert goods(s, 0)["clay"] == 2 and goods(s, 0)["reed"] == 0
    assert offered(s) == [{"type": "build_major", "major": FIREPLACE_2, "pay": "goods"},
                          {"type": "stop"}]
    act(s, "build_major", major=FIREPLACE_2, pay="goods")
    assert s._majors[0] == (FIREPLACE_2,) and goods(s, 0)["clay"] == 0
    assert decision(s) == ("place", 1)


def test_house_redevelopment_is_not_usable_without_an_affordable_renovation() -> None:
    """P1/P9: the first part decides: riches for a major do not help; a stone house never."""
    order = order_with("house_redevelopment")
    s = position(2, rnd=5, order=order, seats={0: {"goods": {"clay": 9, "stone": 9}}})
    assert "house_redevelopment" not in places(s)  # no reed
    s = position(2, rnd=5, order=order,
                 seats={0: {"goods": {"stone": 9, "reed": 9}, "farm": farm(house="stone")}})
    assert "house_redevelopment" not in places(s)
    s = position(2, rnd=5, order=order,
                 seats={0: {"goods": {"stone": 2, "reed": 1}, "farm": farm(house="clay")}})
    assert "house_redevelopment" in places(s)
    place(s, "house_redevelopment")
    assert seat_view(s, 0)["farm"]["house"] == "stone" and goods(s, 0)["stone"] == 0


def test_farm_redevelopment_renovates_then_fences() -> None:
    order = order_with("farm_redevelopment")
    s = position(2, rnd=14, order=order,
                 seats={0: {"goods": {"clay": 2, "reed": 1, "wood": 6}}})
    place(s, "farm_redevelopment")
    assert seat_view(s, 0)["farm"]["house"] == "clay"
    assert types(s) == {"pasture_from", "stop"}
    act(s, "pasture_from", cell=4)
    assert offered(s) == [{"type": "pasture", "shape": [4]}, {"type": "pasture", "shape": [4, 9]}]
    act(s, "pasture", shape=[4])
    assert goods(s, 0)["wood"] == 2 and len(seat_view(s, 0)["pastures"]) == 1
    assert decision(s) == ("place", 1)


def test_resource_market_three_players_food_and_a_choice_four_players_all() -> None:
    """D10: at 3 players 1 food and (1 reed or 1 stone), the player's choice; at 4 players
    1 reed, 1 stone and 1 food at once."""
    s = position(3, seats={0: {"goods": {}}})
    place(s, "resource_market_3p")
    assert goods(s, 0)["food"] == 1
    assert offered(s) == [{"type": "gain", "good": "reed"}, {"type": "gain", "good": "stone"}]
    act(s, "gain", good="stone")
    assert (goods(s, 0)["stone"], goods(s, 0)["reed"]) == (1, 0)
    assert decision(s) == ("place", 1)
    s = position(4, seats={0: {"goods": {}}})
    place(s, "resource_market_4p")
    g = goods(s, 0)
    assert (g["reed"], g["stone"], g["food"]) == (1, 1, 1) and decision(s) == ("place", 1)


def test_a_player_who_can_use_no_free_space_stays_home() -> None:
    """S2: seat 1 has two people home, no building resources, no grain and no room to plough,
    and every goods space is taken: it places nobody more this round."""
    full = farm(rooms=[0, 6, 11], fields=[1, 2, 3, 4, 9, 14, 13, 12, 7, 8])
    s = position(
        2, order=order_with("fencing"), cur=1,
        seats={0: {"people": 5, "home": 1, "goods": {"wood": 5},
                   "farm": farm(rooms=[0, 6, 11])},
               1: {"people": 5, "home": 2, "goods": {"food": 4}, "farm": full}},
        occupants=[("meeting_place", 0), ("grain_seeds", 1), ("day_laborer", 0),
                   ("forest", 1), ("clay_pit", 0), ("reed_bank", 1), ("fishing", 0)])
    assert decision(s) == ("place", 0)
    assert seat_view(s, 1)["people_to_place"] == 0
    assert goods(s, 1)["food"] == 4
    place(s, "farmland")
    act(s, "plough", cell=4)
    assert s.round == 2 and decision(s) == ("place", 0)
    assert seat_view(s, 1)["people_to_place"] == 5


# =============================================================================== family growth

def test_family_growth_with_room_newborn_placed_from_the_next_round() -> None:
    """S4, ref A7, seed アクションB: the newborn counts at once but acts from the next round."""
    s = position(2, rnd=5, order=order_with("basic_wish_for_children"),
                 seats={0: {"farm": farm(rooms=[0])}})
    assert "basic_wish_for_children" in places(s)
    place(s, "basic_wish_for_children")
    d = seat_view(s, 0)
    assert (d["people"], d["newborns"], d["people_to_place"]) == (3, 1, 1)
    assert _play_automatic(s, ["forest", "clay_pit", "reed_bank"]) == [1, 0, 1]
    assert s.round == 6  # seat 0 placed two people in round 5, not three
    d = seat_view(s, 0)
    assert (d["people"], d["newborns"], d["people_to_place"]) == (3, 0, 3)
    assert _play_automatic(s, ["forest", "clay_pit", "reed_bank", "fishing", "day_laborer"]) \
        == [0, 1, 0, 1, 0]


def test_basic_wish_needs_more_rooms_than_people_counting_those_out_working() -> None:
    """P8, ref A7: "with room" needs rooms > people, people on spaces included."""
    order = order_with("basic_wish_for_children")
    s = position(2, rnd=5, order=order, seats={0: {"farm": farm(rooms=[0]), "people": 3,
                                                   "home": 2}})
    assert "basic_wish_for_children" not in places(s)
    s = position(2, rnd=5, order=order, seats={0: {"farm": farm(rooms=[0, 1]), "people": 3,
                                                   "home": 1}})
    assert "basic_wish_for_children" in places(s)


@pytest.mark.parametrize(("people", "rooms", "basic", "urgent"), [
    (4, [0, 6, 11, 1], True, True),
    (4, [0, 6], False, True),
    (5, [0, 6, 11, 1], False, False),  # at most 5 people, rooms or not
])
def test_urgent_wish_needs_no_room_and_nobody_grows_past_five(
        people: int, rooms: list[int], basic: bool, urgent: bool) -> None:
    s = position(2, rnd=12, order=order_with("basic_wish_for_children",
                                               "urgent_wish_for_children"),
                 seats={0: {"people": people, "farm": farm(rooms=rooms)}})
    free = places(s)
    assert ("basic_wish_for_children" in free) == basic
    assert ("urgent_wish_for_children" in free) == urgent


def test_urgent_wish_grows_the_family_without_room() -> None:
    s = position(2, rnd=12, order=order_with("urgent_wish_for_children"))
    place(s, "urgent_wish_for_children")
    assert seat_view(s, 0)["people"] == 3 and seat_view(s, 0)["farm"]["rooms"] == [5, 10]


def test_a_newborn_eats_one_food_at_the_harvest_of_its_round() -> None:
    """S4, F5, seed 食料供給: 2 food per person, 1 for one born this round."""
    s = position(2, rnd=7, order=order_with("basic_wish_for_children"),
                 seats={0: {"farm": farm(rooms=[0]), "goods": {"food": 10}},
                        1: {"goods": {"food": 10}}})
    _play_automatic(s, ["basic_wish_for_children", "forest", "clay_pit", "reed_bank"])
    assert s.round == 8
    assert goods(s, 0)["food"] == 10 - (2 * 2 + 1)
    assert goods(s, 1)["food"] == 10 - 2 * 2
    assert seat_view(s, 0)["newborns"] == 0 and seat_view(s, 0)["people"] == 3


# ====================================================================== rooms and renovation

@pytest.mark.parametrize(("house", "material"), [("wood", "wood"), ("clay", "clay"),
                                                 ("stone", "stone")])
def test_a_room_costs_five_of_the_house_material_and_two_reed(house: str, material: str) -> None:
    """Ref A7, seed アクションA: a wooden house gets wooden rooms only, and so on."""
    plenty = {"wood": 5, "clay": 5, "stone": 5, "reed": 2}
    s = position(2, seats={0: {"goods": plenty, "farm": farm(house=house)}})
    place(s, "farm_expansion")
    act(s, "build_room", cell=0)
    g = goods(s, 0)
    assert g[material] == 0 and g["reed"] == 0
    assert all(g[m] == 5 for m in ("wood", "clay", "stone") if m != material)
    assert seat_view(s, 0)["farm"]["house"] == house


def test_renovation_costs_one_per_room_and_one_reed_for_the_whole_house() -> None:
    """Ref A7, seed 改築: the whole house at once; 3 clay rooms to stone: 3 stone + 1 reed."""
    order = order_with("house_redevelopment")
    s = position(2, rnd=5, order=order,
                 seats={0: {"goods": {"stone": 3, "reed": 1}, "farm": farm(rooms=[0],
                                                                           house="clay")}})
    place(s, "house_redevelopment")
    assert goods(s, 0)["stone"] == 0 and goods(s, 0)["reed"] == 0
    assert seat_view(s, 0)["farm"]["house"] == "stone"
    s = position(2, rnd=5, order=order,
                 seats={0: {"goods": {"stone": 2, "reed": 5}, "farm": farm(rooms=[0],
                                                                           house="clay")}})
    assert "house_redevelopment" not in places(s)


# ================================================================== fields, sowing and baking

def test_farmland_ploughs_next_to_the_fields() -> None:
    """Ref A7: the first field anywhere, later ones next to a field."""
    s = position(2, seats={0: {"farm": farm(fields=[2])}})
    place(s, "farmland")
    assert [a["cell"] for a in offered(s)] == [1, 3, 7]
    act(s, "plough", cell=7)
    assert [c for c, _, _ in seat_view(s, 0)["farm"]["fields"]] == [2, 7]


def test_baking_through_the_best_improvements() -> None:
    """F1, ref A8: the Clay Oven's one grain (5) first, then the Cooking Hearth (3 each)."""
    s = position(2, order=order_with("grain_utilization"),
                 seats={0: {"goods": {"grain": 3}, "majors": [HEARTH_4, CLAY_OVEN]}},
                 majors_on_board=[m for m in range(10) if m not in (HEARTH_4, CLAY_OVEN)])
    place(s, "grain_utilization")
    assert [(a["grain"], a["uses"]) for a in offered(s)] == [
        (1, [[CLAY_OVEN, 1]]), (2, [[CLAY_OVEN, 1], [HEARTH_4, 1]]),
        (3, [[CLAY_OVEN, 1], [HEARTH_4, 2]])]
    act(s, "bake", grain=3, uses=[[CLAY_OVEN, 1], [HEARTH_4, 2]])
    assert goods(s, 0)["food"] == 11 and goods(s, 0)["grain"] == 0


def test_an_ovens_free_bake_is_a_full_bake_bread_and_may_be_declined() -> None:
    """D13, S3: building an oven gives a Bake Bread action at once, in which every baker owned
    fires once; ``stop`` declines it and ends the action."""
    spec = {"goods": {"clay": 3, "stone": 1, "grain": 2}, "majors": [FIREPLACE_2]}
    on_board = [m for m in range(10) if m != FIREPLACE_2]
    s = position(2, order=order_with("major_improvement"), seats={0: spec},
                 majors_on_board=on_board)
    place(s, "major_improvement")
    act(s, "build_major", major=CLAY_OVEN, pay="goods")
    assert offered(s) == [
        {"type": "bake", "grain": 1, "uses": [[CLAY_OVEN, 1]]},
        {"type": "bake", "grain": 2, "uses": [[CLAY_OVEN, 1], [FIREPLACE_2, 1]]},
        {"type": "stop"}]
    act(s, "bake", grain=2, uses=[[CLAY_OVEN, 1], [FIREPLACE_2, 1]])
    assert goods(s, 0)["food"] == 7 and goods(s, 0)["grain"] == 0
    assert decision(s) == ("place", 1)

    s = position(2, order=order_with("major_improvement"), seats={0: spec},
                 majors_on_board=on_board)
    place(s, "major_improvement")
    act(s, "build_major", major=CLAY_OVEN, pay="goods")
    act(s, "stop")
    assert goods(s, 0)["grain"] == 2 and goods(s, 0)["food"] == 0
    assert decision(s) == ("place", 1) and s._majors[0] == (FIREPLACE_2, CLAY_OVEN)


def test_an_oven_built_without_grain_asks_nothing_more() -> None:
    s = position(2, order=order_with("major_improvement"),
                 seats={0: {"goods": {"clay": 3, "stone": 3}}})
    place(s, "major_improvement")
    act(s, "build_major", major=STONE_OVEN, pay="goods")
    assert decision(s) == ("place", 1) and goods(s, 0)["clay"] == 2


# ====================================================================================== majors

def test_a_cooking_hearth_paid_with_a_fireplace_which_returns_to_the_board() -> None:
    """D12, P6, ref A8, seed 調理場: a Cooking Hearth for clay or for a Fireplace given back;
    the Fireplace goes back on the board and may be built again by anyone."""
    on_board = [m for m in range(10) if m != FIREPLACE_2]
    s = position(2, order=order_with("major_improvement"),
                 seats={0: {"goods": {"clay": 0}, "majors": [FIREPLACE_2]},
                        1: {"goods": {"clay": 3}, "home": 2}},
                 majors_on_board=on_board)
    place(s, "major_improvement")
    assert offered(s) == [{"type": "build_major", "major": HEARTH_4, "pay": "fireplace"},
                          {"type": "build_major", "major": HEARTH_5, "pay": "fireplace"}]
    act(s, "build_major", major=HEARTH_4, pay="fireplace")
    assert s._majors[0] == (HEARTH_4,)
    assert board(s)["majors"] == [m for m in range(10) if m != HEARTH_4]
    _play_automatic(s, ["forest", "clay_pit", "reed_bank"])
    assert s.round == 2 and decision(s) == ("place", 0)
    place(s, "day_laborer")
    place(s, "major_improvement")  # seat 1: the Fireplace given back is for sale again
    assert {"type": "build_major", "major": FIREPLACE_2, "pay": "goods"} in offered(s)
    act(s, "build_major", major=FIREPLACE_2, pay="goods")
    assert s._majors[1] == (FIREPLACE_2,) and goods(s, 1)["clay"] == 1


def test_a_cooking_hearth_for_clay_keeps_the_fireplace_and_two_fireplaces_give_the_dearer() -> None:
    on_board = [m for m in range(10) if m not in (FIREPLACE_2, FIREPLACE_3)]
    s = position(2, order=order_with("major_improvement"),
                 seats={0: {"goods": {"clay": 4}, "majors": [FIREPLACE_2, FIREPLACE_3]}},
                 majors_on_board=on_board)
    place(s, "major_improvement")
    assert {"type": "build_major", "major": HEARTH_4, "pay": "goods"} in offered(s)
    act(s, "build_major", major=HEARTH_5, pay="fireplace")
    assert s._majors[0] == (FIREPLACE_2, HEARTH_5)
    assert FIREPLACE_3 in board(s)["majors"] and goods(s, 0)["clay"] == 4

    s = position(2, order=order_with("major_improvement"),
                 seats={0: {"goods": {"clay": 4}, "majors": [FIREPLACE_2, FIREPLACE_3]}},
                 majors_on_board=on_board)
    place(s, "major_improvement")
    act(s, "build_major", major=HEARTH_4, pay="goods")
    assert s._majors[0] == (FIREPLACE_2, FIREPLACE_3, HEARTH_4) and goods(s, 0)["clay"] == 0


@pytest.mark.parametrize(("rnd", "rounds"), [(3, [4, 5, 6, 7, 8]), (10, [11, 12, 13, 14])])
def test_the_well_puts_food_on_the_next_five_round_spaces(rnd: int, rounds: list[int]) -> None:
    """D15, B6, ref A8: 1 food on each of the next 5 round spaces (fewer near the end), paid
    at the start of those rounds."""
    s = position(2, rnd=rnd, order=order_with("major_improvement"),
                 seats={0: {"goods": {"wood": 1, "stone": 3, "clay": 2}, "home": 1},
                        1: {"home": 1, "goods": {"food": 0}}})
    place(s, "major_improvement")
    assert offered(s)[-1] == {"type": "build_major", "major": WELL, "pay": "goods"}
    act(s, "build_major", major=WELL, pay="goods")
    assert board(s)["well"] == [[r, 0, 1] for r in rounds]
    assert s._majors[0] == (WELL,)
    place(s, "forest")
    assert s.round == rnd + 1 and goods(s, 0)["food"] == 1 and goods(s, 1)["food"] == 0
    assert board(s)["well"] == [[r, 0, 1] for r in rounds[1:]]


# ============================================================================ fences and animals

def test_fencing_in_two_steps_paying_one_wood_per_new_fence() -> None:
    """Decision model item 2, P7, ref A7: pick the pasture's first space, then its shape; the
    board edge is no fence; later pastures touch an earlier one and share its fences."""
    s = position(2, order=order_with("fencing"), seats={0: {"goods": {"wood": 20}}})
    place(s, "fencing")
    assert types(s) == {"pasture_from"}
    act(s, "pasture_from", cell=0)
    shapes = [a["shape"] for a in offered(s)]
    assert shapes[0] == [0] and all(sh[0] == 0 for sh in shapes) and [0, 1] in shapes
    act(s, "pasture", shape=[0])
    assert goods(s, 0)["wood"] == 16  # a lone corner space: 4 fences
    assert types(s) == {"pasture_from", "stop"}
    # A new pasture must touch [0]: every shape holding space 1 starts there.
    assert [a for a in offered(s) if a["type"] == "pasture_from"] == [
        {"type": "pasture_from", "cell": 1}]
    act(s, "pasture_from", cell=1)
    act(s, "pasture", shape=[1, 2])
    assert goods(s, 0)["wood"] == 11  # 6 fences round two spaces, one shared with [0]
    act(s, "stop")
    assert seat_view(s, 0)["pastures"] == [[0], [1, 2]]


def test_fifteen_fences_at_most() -> None:
    """Ref A7: 15 fences per player: a 5-space row (12 fences) cut three times uses them all,
    and the player cannot fence again, however much wood is left."""
    s = position(2, order=order_with("fencing"), seats={0: {"goods": {"wood": 30}}})
    place(s, "fencing")
    for shape in ([0, 1, 2, 3, 4], [0], [1], [2]):
        act(s, "pasture_from", cell=shape[0])
        act(s, "pasture", shape=shape)
    assert goods(s, 0)["wood"] == 15 and len(seat_view(s, 0)["farm"]["fences"]) == 15
    assert seat_view(s, 0)["pastures"] == [[0], [1], [2], [3, 4]]
    assert decision(s) == ("place", 1)  # nothing more to fence: the action ended
    fenced = s._farms[0]
    later = position(2, rnd=14, order=order_with("fencing", "farm_redevelopment"),
                     seats={0: {"farm": fenced, "goods": {"wood": 15, "clay": 2, "reed": 1}}})
    assert "fencing" not in places(later)
    place(later, "farm_redevelopment")  # renovates; its fences part has nothing to offer
    assert seat_view(later, 0)["farm"]["house"] == "clay" and decision(later) == ("place", 1)


def test_a_stable_in_a_pasture_doubles_it_and_an_unfenced_stable_holds_one() -> None:
    """Ref A7, farm 14: a one-space pasture holds 2, 4 with a stable; one pet in the house.
    With no cooking improvement, the animals that do not fit are released."""
    s = position(2, piles={"sheep_market": 4}, order=order_with("sheep_market"),
                 seats={0: {"farm": farm(stables=[0], pastures=[[0]]), "goods": {"sheep": 1}}})
    place(s, "sheep_market")
    assert goods(s, 0)["sheep"] == 5 and decision(s) == ("place", 1)
    s = position(2, piles={"sheep_market": 4}, order=order_with("sheep_market"),
                 seats={0: {"farm": farm(pastures=[[0]]), "goods": {"sheep": 1}}})
    place(s, "sheep_market")
    assert goods(s, 0)["sheep"] == 3 and goods(s, 0)["food"] == 0
    s = position(2, piles={"sheep_market": 4}, order=order_with("sheep_market"),
                 seats={0: {"farm": farm(stables=[3]), "goods": {"sheep": 1}}})
    place(s, "sheep_market")
    assert goods(s, 0)["sheep"] == 2


def test_a_stable_built_inside_a_pasture_doubles_it() -> None:
    """Ref A7, farm 13/14: Farm Expansion may put a stable on a pasture space; the one-space
    pasture then holds 4, so 4 sheep and a pet boar fit where 2 sheep did."""
    s = position(2, seats={0: {"goods": {"wood": 2, "sheep": 2, "boar": 1},
                               "farm": farm(pastures=[[0]])}})
    assert not s._farms[0].fits(4, 1, 0)
    place(s, "farm_expansion")
    assert {"type": "build_stable", "cell": 0} in offered(s)
    act(s, "build_stable", cell=0)
    assert s._farms[0].fits(4, 1, 0) and not s._farms[0].fits(5, 1, 0)
    assert s.score_input(0).fenced_stables == 1


@pytest.mark.parametrize(("majors", "food"), [([], 0), ([FIREPLACE_2], 2), ([HEARTH_4], 3)])
def test_keep_after_a_market_the_rest_cooked_or_released(majors: list[int], food: int) -> None:
    """Decision model item 3, P11: a pet boar and a new sheep do not both fit; the player
    chooses; the other is cooked with a Fireplace (2) or Hearth (boar 3), else released."""
    s = position(2, rnd=8, piles={"sheep_market": 1},
                 seats={0: {"goods": {"boar": 1}, "majors": majors}},
                 majors_on_board=[m for m in range(10) if m not in majors])
    place(s, "sheep_market")
    assert offered(s) == [{"type": "keep", "sheep": 0, "boar": 1, "cattle": 0},
                          {"type": "keep", "sheep": 1, "boar": 0, "cattle": 0}]
    assert s.to_dict()["decision"]["keep"] is True
    act(s, "keep", sheep=1, boar=0, cattle=0)
    assert goods(s, 0)["sheep"] == 1 and goods(s, 0)["boar"] == 0
    assert goods(s, 0)["food"] == food
    assert decision(s) == ("place", 1)


def test_keep_after_fencing_two_stables_into_one_pasture() -> None:
    """S6: two unfenced stables and the pet hold a sheep, a boar and a cattle; fencing both
    stables into one pasture leaves room for one type plus the pet: the player keeps two
    types (the cattle is cooked on the Fireplace) and the action goes on."""
    s = position(2, order=order_with("fencing"),
                 seats={0: {"farm": farm(stables=[1, 2]), "majors": [FIREPLACE_2],
                            "goods": {"wood": 10, "sheep": 1, "boar": 1, "cattle": 1}}},
                 majors_on_board=[m for m in range(10) if m != FIREPLACE_2])
    place(s, "fencing")
    act(s, "pasture_from", cell=1)
    act(s, "pasture", shape=[1, 2])
    assert goods(s, 0)["wood"] == 4
    assert sorted((a["sheep"], a["boar"], a["cattle"]) for a in offered(s)) == [
        (0, 1, 1), (1, 0, 1), (1, 1, 0)]
    act(s, "keep", sheep=1, boar=1, cattle=0)
    g = goods(s, 0)
    assert (g["sheep"], g["boar"], g["cattle"], g["food"]) == (1, 1, 0, 3)
    assert types(s) == {"pasture_from", "stop"}


def test_a_market_is_always_usable_even_with_no_room() -> None:
    """P1: releasing is always possible, so a market is offered to a player with no room."""
    s = position(2, rnd=10, order=order_with("cattle_market"), piles={"cattle_market": 2},
                 seats={0: {"goods": {"sheep": 1}}})
    assert "cattle_market" in places(s)
    place(s, "cattle_market")
    assert offered(s) == [{"type": "keep", "sheep": 0, "boar": 0, "cattle": 1},
                          {"type": "keep", "sheep": 1, "boar": 0, "cattle": 0}]


# ===================================================================================== harvest

def _to_harvest(s: AgricolaState) -> None:
    """Both players' last person takes wood or clay (no food), ending a harvest round."""
    assert s.round in HARVEST_ROUNDS
    rnd = s.round
    place(s, "forest")
    place(s, "clay_pit")
    assert s.phase in ("feed", "breed") or s.round == rnd + 1  # the work phase is over


def test_field_phase_one_crop_from_every_sown_field() -> None:
    """F8, ref A8, seed 畑フェイズ: exactly one crop from each sown field into the supply."""
    f = farm(fields=[2, 3, 4], sown={2: "grain", 3: "vegetable"})
    s = position(2, rnd=4, seats={0: {"farm": f, "goods": {"food": 9}, "home": 1},
                                  1: {"home": 1}})
    _to_harvest(s)
    assert s.round == 5
    assert seat_view(s, 0)["farm"]["fields"] == [[2, "grain", 2], [3, "vegetable", 1],
                                                 [4, None, 0]]
    g = goods(s, 0)
    assert (g["grain"], g["vegetable"], g["food"]) == (1, 1, 5)  # food paid first (F5)


def test_fields_are_not_harvested_outside_harvest_rounds() -> None:
    f = farm(fields=[2], sown={2: "grain"})
    s = position(2, rnd=3, seats={0: {"farm": f, "home": 1}, 1: {"home": 1}})
    place(s, "forest")
    place(s, "clay_pit")
    assert s.round == 4 and seat_view(s, 0)["farm"]["fields"] == [[2, "grain", 3]]


def test_feeding_short_of_food_takes_begging_markers() -> None:
    """Ref A8, seed 物乞い: one begging marker per missing food, -3 points each."""
    s = position(2, rnd=4, seats={0: {"goods": {"food": 1}, "home": 1}, 1: {"home": 1}})
    before = s.observation(0)["players"][0]["score"]
    _to_harvest(s)
    assert s._begging[0] == 3 and goods(s, 0)["food"] == 0
    assert s.observation(0)["players"][0]["score"] == before - 9


def test_feeding_is_a_choice_between_converting_and_begging() -> None:
    """F2/F4: 2 food and 2 grain for 4 food needed: convert both, hold one back and beg one,
    or hold both back and beg two."""
    s = position(2, rnd=4, seats={0: {"goods": {"food": 2, "grain": 2}, "home": 1},
                                  1: {"home": 1, "goods": {"food": 9}}})
    _to_harvest(s)
    assert decision(s) == ("feed", 0)
    assert s.to_dict()["decision"] == {"kind": "feed", "seat": 0, "food_needed": 4}
    assert [(a["grain"], a["begging"]) for a in offered(s)] == [(2, 0), (1, 1), (0, 2)]
    s.apply(offered(s)[1])
    assert s._begging[0] == 1 and goods(s, 0)["grain"] == 1 and goods(s, 0)["food"] == 0


def test_each_craft_once_per_harvest() -> None:
    """D14, F3: the Joinery turns 1 wood into 2 food once per harvest, never twice."""
    s = position(2, rnd=4, seats={0: {"goods": {"wood": 3}, "majors": [JOINERY], "home": 1},
                                  1: {"home": 1, "goods": {"food": 9}}},
                 majors_on_board=[m for m in range(10) if m != JOINERY])
    place(s, "clay_pit")
    place(s, "reed_bank")
    assert decision(s) == ("feed", 0)
    assert [(a["crafts"], a["begging"]) for a in offered(s)] == [([JOINERY], 2), ([], 4)]
    s.apply(offered(s)[0])
    assert goods(s, 0)["wood"] == 2 and s._begging[0] == 2


def test_animals_breed_only_with_room() -> None:
    """Ref A8, seed 繁殖: one newborn per type with at least two, only if it can be housed."""
    roomy = farm(pastures=[[0, 1]])
    s = position(2, rnd=4, seats={0: {"farm": roomy, "goods": {"sheep": 2, "food": 9},
                                      "home": 1},
                                  1: {"farm": farm(stables=[0]),
                                      "goods": {"sheep": 2, "food": 9}, "home": 1}})
    _to_harvest(s)
    assert s.round == 5
    assert goods(s, 0)["sheep"] == 3
    assert goods(s, 1)["sheep"] == 2  # the stable and the pet hold two: no room for a third


def test_feeding_then_breeding_each_round_the_table_from_the_starting_player() -> None:
    """S5: every player feeds, from the starting player clockwise, then every player's animals
    breed in the same order. Each step here is a real decision."""
    herd = {"farm": farm(stables=[3], pastures=[[0]]), "goods": {"grain": 4, "sheep": 2,
                                                                  "boar": 2}, "home": 1}
    s = position(2, rnd=4, start=1, seats={0: herd, 1: herd})
    steps = []
    place(s, "forest")
    place(s, "clay_pit")
    while s.round == 4:
        steps.append(decision(s))
        s.apply_index(0)
    assert steps == [("feed", 1), ("feed", 0), ("breed", 1), ("breed", 0)]


def test_breeding_when_not_every_newborn_fits_is_a_choice() -> None:
    """F7: a one-space pasture (2), a stable and the pet hold four; two sheep and two boar
    with their two newborns make six: the player chooses among the maximal herds."""
    herd = {"farm": farm(stables=[3], pastures=[[0]]), "goods": {"sheep": 2, "boar": 2,
                                                                  "food": 9}, "home": 1}
    s = position(2, rnd=4, seats={0: herd, 1: {"home": 1, "goods": {"food": 9}}})
    _to_harvest(s)
    assert decision(s) == ("breed", 0)
    options = [(a["sheep"], a["boar"]) for a in offered(s)]
    assert options == [(1, 3), (2, 2), (3, 1)]
    act(s, "keep", sheep=3, boar=1, cattle=0)
    assert goods(s, 0)["sheep"] == 3 and goods(s, 0)["boar"] == 1


# ============================================================================= final scoring

def test_result_breakdown_has_every_category_and_sums_to_the_score() -> None:
    f = farm(rooms=[0], fields=[12, 13], stables=[3, 9], pastures=[[3, 4], [8, 9]],
             house="clay", sown={12: "grain", 13: "vegetable"})
    s = finished([{"farm": f, "goods": {"grain": 2, "sheep": 4, "cattle": 1, "wood": 3},
                    "majors": [FIREPLACE_2, JOINERY], "people": 3, "begging": 1},
                   {}])
    r = s.result()
    for p in range(2):
        assert tuple(r.breakdown[p]) == SCORE_KEYS
        assert sum(r.breakdown[p].values()) == r.scores[p]
        assert s.observation(p)["players"][p]["score"] == r.scores[p]
    b = r.breakdown[0]
    assert b == {"fields": 1, "pastures": 2, "grain": 2, "vegetables": 2, "sheep": 2,
                 "boar": -1, "cattle": 1, "unused_spaces": -6, "fenced_stables": 2,
                 "clay_rooms": 3, "stone_rooms": 0, "people": 9, "begging": -3,
                 "majors": 3, "crafts": 1}
    assert r.scores == (18, -14) and r.ranks == (1, 2) and r.tiebreak == (3, 0)


def test_ties_broken_by_building_resources_left_then_shared() -> None:
    """D3, ref A8: equal scores rank by wood + clay + reed + stone left; still equal, the rank
    is shared and the next one skips. Food, crops and animals do not count for it."""
    s = finished([{"goods": {"wood": 1, "reed": 1, "food": 5}},
                   {"goods": {"stone": 3}},
                   {"goods": {"clay": 2, "food": 9}}])
    r = s.result()
    assert r.scores == (-14, -14, -14)
    assert r.tiebreak == (2, 3, 2)
    assert r.ranks == (2, 1, 2)
    s = finished([{"goods": {"wood": 1}}, {"goods": {"reed": 1}},
                   {"people": 3, "farm": farm(rooms=[0])}, {"goods": {"stone": 1}}])
    assert s.result().ranks == (2, 2, 1, 2)


def test_result_does_not_spend_the_craft_resources_for_the_tie_break() -> None:
    """D4: the Joinery's bonus reads the wood left without spending it."""
    s = finished([{"goods": {"wood": 7}, "majors": [JOINERY]},
                   {"goods": {"stone": 1}, "majors": [CLAY_OVEN, STONE_OVEN]}])
    r = s.result()
    assert r.breakdown[0]["crafts"] == 3 and r.scores[0] == r.scores[1] == -14 + 5
    assert r.tiebreak == (7, 1) and r.ranks == (1, 2)


def test_a_played_game_ends_with_a_consistent_result() -> None:
    for n in (1, 2, 3, 4):
        s = new(n, seed=7)
        rng = random.Random(n)
        while not s.is_terminal:
            s.apply_index(rng.randrange(s.num_legal()))
        r = s.result()
        assert s.round == 14 and len(r.scores) == n
        for p in range(n):
            assert sum(r.breakdown[p].values()) == r.scores[p]
            assert s.observation(p)["players"][p]["score"] == r.scores[p]
        assert s.legal_actions() == [] and s.to_dict()["decision"] is None



# ============================================================ saving, observation, determinize

def test_the_saved_form_reads_back_to_the_same_position_mid_action() -> None:
    """A position in the middle of a fencing move (the first space chosen) is saved and read
    back with the same decision and legal actions."""
    s = position(2, order=order_with("fencing"), seats={0: {"goods": {"wood": 8}}})
    place(s, "fencing")
    act(s, "pasture_from", cell=3)
    d = s.to_dict()
    assert d["decision"]["pasture_from"] == 3
    back = GAME.state_from_dict(d)
    assert back.to_dict() == d and back.legal_actions() == s.legal_actions()
    back.apply({"type": "pasture", "shape": [3, 4]})
    assert back.to_dict()["players"][0]["pastures"] == [[3, 4]]
    assert s.to_dict() == d  # the original is untouched


def test_the_observation_hides_only_the_order_of_the_cards_to_come() -> None:
    """B8: everything is public but the order of the unrevealed stage cards; which cards are
    still to come is public, sorted."""
    s = new(3, seed=8)
    d = s.to_dict()
    for seat in range(3):
        obs = s.observation(seat)
        assert obs["seat"] == seat
        assert "order" not in obs["board"]
        assert {k: v for k, v in obs.items() if k not in ("seat", "board", "options")} == \
            {k: v for k, v in d.items() if k != "board"}
        assert obs["options"] == {"cards": "none", "draft": "deal"}  # saved only if changed
        assert obs["board"] == {k: v for k, v in d["board"].items() if k != "order"}
        assert obs["board"]["hidden_cards"] == sorted(d["board"]["order"][1:])
    with pytest.raises(ValueError):
        s.observation(3)


def test_determinize_keeps_what_a_seat_sees_and_samples_the_order_within_stages() -> None:
    """B9: a sampled state shows the seat the same observation; the unrevealed cards are
    shuffled within their stages, so different samples differ only there."""
    s = new(2, seed=2)
    for key in ["forest", "clay_pit", "reed_bank", "day_laborer"] * 2:
        place(s, key)
    assert s.round == 3
    obs = s.observation(1)
    orders = set()
    for k in range(30):
        sample = GAME.determinize(obs, random.Random(k))
        assert sample.observation(1) == obs
        order = sample.to_dict()["board"]["order"]
        assert order[:3] == obs["board"]["revealed"]
        for rounds, cards in zip(STAGE_ROUNDS, STAGE_CARDS, strict=True):
            assert sorted(order[r - 1] for r in rounds) == sorted(cards)
        orders.add(tuple(order))
    assert len(orders) > 10
    with pytest.raises(ValueError):
        GAME.determinize({**obs, "game": "stoneage"}, random.Random(0))


def test_a_save_of_another_game_is_refused() -> None:
    d = new(2).to_dict()
    with pytest.raises(ValueError):
        GAME.state_from_dict({**d, "game": "stoneage"})
    broken = dict(d)
    del broken["players"]
    with pytest.raises(ValueError):
        GAME.state_from_dict(broken)


def test_a_save_under_another_rules_version_is_refused() -> None:
    d = new(2).to_dict()
    with pytest.raises(ValueError, match="rules"):
        GAME.state_from_dict({**d, "rules_version": "agricola-family-0.9"})


def _edited(edit: Any) -> dict[str, Any]:
    d = new(2).to_dict()
    edit(d)
    return d


@pytest.mark.parametrize("what", ["nine people", "negative begging", "a major owned and on "
                                  "the board", "more newborns than people", "animals that do "
                                  "not fit", "no such round starting player",
                                  "more people to place than people"])
def test_impossible_holdings_are_refused(what: str) -> None:
    edits = {
        "nine people": lambda d: d["players"][0].update(people=9, people_to_place=9),
        "negative begging": lambda d: d["players"][0].update(begging=-1),
        "a major owned and on the board": lambda d: d["players"][0].update(majors=[WELL]),
        "more newborns than people": lambda d: d["players"][0].update(newborns=4),
        "animals that do not fit": lambda d: d["players"][0]["goods"].update(sheep=9),
        "no such round starting player": lambda d: d.update(round_start_player=7),
        "more people to place than people": lambda d: d["players"][0].update(
            people_to_place=5),
    }
    with pytest.raises(ValueError):
        GAME.state_from_dict(_edited(edits[what]))
