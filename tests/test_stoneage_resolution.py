"""Stone Age resolution rules: order, gathering, tools, one-use tools, tool maker, field, hut.

Rules text: "自分の回収順を選び、道具で出目を補う" and the worked examples (the forest example
and the first-round example); ruling 5 (reference) and E1, E4, E5 (engine rules notes).
"""

from __future__ import annotations

from typing import Any

import pytest
from sa import act, new_game, offered, place, player, with_player

from arena.engine import IllegalActionError
from arena.engine.stoneage import StoneAgeState

Choice = tuple[tuple[int, ...], tuple[int, ...]]


# ------------------------------------------------------------------------------ helpers
def phase(state: StoneAgeState) -> str:
    return str(state.observation(0)["phase"])


def decision(state: StoneAgeState) -> dict[str, Any] | None:
    return state.observation(0)["decision"]  # type: ignore[no-any-return]


def resolvable(state: StoneAgeState) -> set[str]:
    """The places the player to act may resolve next ("card 1", "building 0" for those)."""
    out = set()
    for a in offered(state, "resolve"):
        if a["place"] == "card":
            out.add(f"card {a['slot']}")
        elif a["place"] == "building":
            out.add(f"building {a['pile']}")
        else:
            out.add(a["place"])
    return out


def tool_choices(state: StoneAgeState) -> set[Choice]:
    """The offered tool choices as (permanent tool values, one-use tool values), by value."""
    return {
        (tuple(sorted(a["tools"], reverse=True)), tuple(sorted(a["one_use_tools"], reverse=True)))
        for a in offered(state, "use_tools")
    }


def use_tools(state: StoneAgeState, tools: list[int], one_use: list[int] | None = None) -> None:
    act(state, "use_tools", tools=tools, one_use_tools=one_use or [])


def resolve(state: StoneAgeState, where: str, **extra: Any) -> None:
    act(state, "resolve", place=where, **extra)


def setup(
    places: list[tuple[str, int]], dice: list[int], **seat0: Any
) -> StoneAgeState:
    """A 2-player round 1 where seat 0 (the start player) puts people on ``places`` in order.

    Seat 0 gets exactly as many people as ``places`` uses, plus any other ``seat0`` fields.
    Seat 1 puts 4 people on hunting and 1 on building pile 1, so when its turn to resolve comes
    it has a choice to make: the position stops there, before feeding, with seat 0's places all
    resolved (unless seat 0 itself has a decision to make first). ``dice`` are rolled in order.
    """
    s = new_game(2, dice=dice)
    s = with_player(s, 0, people=sum(n for _, n in places), **seat0)
    mine: list[tuple[str, int, dict[str, Any]]] = [(w, n, {}) for w, n in places]
    theirs: list[tuple[str, int, dict[str, Any]]] = [
        ("hunting", 4, {}), ("building", 1, {"pile": 1}),
    ]
    while phase(s) == "placement":
        where, n, extra = (mine if s.current_player == 0 else theirs).pop(0)
        place(s, where, n, **extra)
    return s


def seat1_waits(state: StoneAgeState) -> bool:
    """True when seat 0 is done and seat 1 is being asked which place to resolve first."""
    return decision(state) == {"kind": "resolve", "seat": 1}


def finish_round(state: StoneAgeState) -> None:
    """Play out the rest of the round with plain choices: places in the offered order, no
    tools, decline purchases, first die / first feeding option."""
    start_round = state.round
    while state.round == start_round and not state.is_terminal:
        actions = state.legal_actions()
        assert actions[0]["type"] != "place", "finish_round is for resolution and feeding"
        if actions[0]["type"] == "use_tools":
            use_tools(state, [])
        elif any(a["type"] == "decline" for a in actions):
            act(state, "decline")
        else:
            state.apply(actions[0])


# ------------------------------------------------------------------------- resolution order
def test_players_resolve_in_seat_order_from_the_start_player() -> None:
    s = new_game(3, dice=[1] * 40)
    # Round 1: everybody hunts; round 2 then starts with seat 1.
    while s.round == 1 and phase(s) == "placement":
        place(s, "hunting", 5)
    assert s.round == 2
    assert s.observation(0)["start_player"] == 1
    for where, extra in [("hunting", {}), ("card", {})]:
        for _ in range(3):
            seat = s.current_player
            assert seat is not None
            if where == "card":
                extra = {"slot": seat + 1}
            place(s, where, 4 if where == "hunting" else 1, **extra)
    seen = []
    while s.round == 2 and phase(s) == "resolution":
        seen.append(s.current_player)
        assert resolvable(s) == {"hunting", f"card {s.current_player + 1}"}
        resolve(s, "hunting")
    assert seen == [1, 2, 0]


def test_a_player_resolves_all_own_places_before_the_next_player_resolves() -> None:
    s = new_game(2, dice=[1] * 20)
    for where, people in [
        ("forest", 1), ("clay_pit", 1), ("quarry", 1), ("river", 1), ("hunting", 3),
        ("hunting", 3),
    ]:
        place(s, where, people)
    assert decision(s) == {"kind": "resolve", "seat": 0}
    assert resolvable(s) == {"hunting", "forest", "quarry"}
    resolve(s, "forest")
    assert decision(s) == {"kind": "resolve", "seat": 0}
    assert resolvable(s) == {"hunting", "quarry"}
    resolve(s, "quarry")  # hunting is seat 0's last place and is resolved at once (E1)
    assert decision(s) == {"kind": "resolve", "seat": 1}
    assert resolvable(s) == {"hunting", "clay_pit", "river"}
    assert s.observation(0)["board"]["people"]["hunting"] == [0, 3]


@pytest.mark.parametrize(
    ("first", "wood", "food"),
    [
        ("forest", 3, 5),  # forest rolls 2+4+5 = 11, hunting 6+4 = 10
        ("hunting", 5, 3),  # hunting rolls 2+4 = 6, forest 5+6+4 = 15
    ],
)
def test_the_player_chooses_the_order_of_their_own_places(first: str, wood: int, food: int
                                                          ) -> None:
    s = setup([("forest", 3), ("hunting", 2)], dice=[2, 4, 5, 6, 4])
    assert decision(s) == {"kind": "resolve", "seat": 0}
    assert resolvable(s) == {"forest", "hunting"}
    resolve(s, first)
    assert seat1_waits(s)
    assert player(s, 0)["wood"] == wood
    assert player(s, 0)["food"] == 12 + food


def test_resolving_a_place_takes_its_people_back() -> None:
    s = setup([("forest", 3), ("hunting", 2)], dice=[1] * 5)
    people = s.observation(0)["board"]["people"]
    assert (people["forest"], people["hunting"]) == ([3, 0], [2, 4])
    resolve(s, "forest")
    people = s.observation(0)["board"]["people"]
    assert (people["forest"], people["hunting"]) == ([0, 0], [0, 4])


# ------------------------------------------------------------------------------- gathering
@pytest.mark.parametrize(
    ("where", "good", "gained"),
    [
        ("hunting", "food", 14),  # 29 / 2 = 14.5
        ("forest", "wood", 9),  # 29 / 3 = 9.67
        ("clay_pit", "clay", 7),  # 29 / 4 = 7.25
        ("quarry", "stone", 5),  # 29 / 5 = 5.8
        ("river", "gold", 4),  # 29 / 6 = 4.83
    ],
)
def test_gathering_divides_the_dice_sum_by_the_place_divisor_rounding_down(
    where: str, good: str, gained: int
) -> None:
    s = setup([(where, 5)], dice=[6, 6, 6, 6, 5])
    assert seat1_waits(s)
    before = 12 if good == "food" else 0
    assert player(s, 0)[good] == before + gained


def test_a_roll_below_the_divisor_gathers_nothing() -> None:
    s = setup([("river", 1)], dice=[5])
    assert seat1_waits(s)
    assert player(s, 0)["gold"] == 0


@pytest.mark.parametrize(("dice", "wood"), [([1, 1, 1], 1), ([3, 3, 2], 2), ([6, 6, 6], 6)])
def test_a_resource_place_rolls_one_die_per_person(dice: list[int], wood: int) -> None:
    s = setup([("forest", 3)], dice=[*dice, 6, 6, 6])
    assert seat1_waits(s)
    assert player(s, 0)["wood"] == wood


def test_hunting_with_more_than_seven_people_adds_up_all_their_dice() -> None:
    s = setup([("hunting", 10)], dice=[1, 2, 3, 4, 5, 6, 1, 2, 3, 4])
    assert seat1_waits(s)
    assert player(s, 0)["food"] == 12 + 31 // 2


def test_rules_forest_example_three_people_rolling_eleven_gather_three_wood() -> None:
    s = setup([("forest", 3)], dice=[2, 4, 5])
    assert seat1_waits(s)
    assert player(s, 0)["wood"] == 3


def test_rules_forest_example_a_value_one_tool_makes_twelve_and_four_wood() -> None:
    s = setup([("forest", 3)], dice=[2, 4, 5], step=1)
    assert decision(s) == {"kind": "use_tools", "seat": 0, "good": "wood", "dice": [2, 4, 5],
                           "sum": 11}
    assert tool_choices(s) == {((), ()), ((1,), ())}
    assert player(s, 0)["wood"] == 0  # nothing is gathered before the tool choice
    use_tools(s, [1])
    assert player(s, 0)["wood"] == 4
    assert player(s, 0)["tools_unused"] == []
    assert player(s, 0)["tools"] == [1]


def test_rules_first_round_example() -> None:
    # Seat 0: forest 3 people (2+4+5 = 11), then hunting 2 people (3+4 = 7).
    s = new_game(2, dice=[2, 4, 5, 3, 4, 1, 1, 1, 1, 1])
    place(s, "forest", 3)
    place(s, "hunting", 5)
    assert s.current_player == 0
    assert "forest" not in {a["place"] for a in offered(s, "place")}
    place(s, "hunting", 2)
    assert resolvable(s) == {"forest", "hunting"}
    resolve(s, "forest")
    # Hunting, seat 1's hunting and feeding follow on their own (single choices).
    assert s.round == 2
    me = player(s, 0)
    assert (me["food"], me["wood"]) == (12 + 3 - 5, 3)
    assert me["agriculture"] == 0
    assert me["people"] == 5
    assert me["people_to_place"] == 5
    assert s.observation(0)["board"]["people"]["forest"] == [0, 0]
    # Round 2 starts with seat 1; then seat 0 may place all five people again.
    place(s, "hunting", 1)
    assert s.current_player == 0
    assert max(a["people"] for a in offered(s, "place") if a["place"] == "hunting") == 5
    assert max(a["people"] for a in offered(s, "place") if a["place"] == "forest") == 5


# ------------------------------------------------------------------------- permanent tools
def test_a_permanent_tool_is_used_at_most_once_per_round() -> None:
    s = setup([("forest", 3), ("clay_pit", 2)], dice=[2, 4, 5, 3, 4], step=1)
    resolve(s, "forest")
    use_tools(s, [1])
    assert player(s, 0)["tools_unused"] == []
    # Clay 3+4 = 7 would give 2 clay with the tool, but it is spent: no choice, 1 clay.
    assert seat1_waits(s)
    assert player(s, 0)["clay"] == 1
    assert player(s, 0)["wood"] == 4


def test_a_tool_adds_its_whole_value_and_cannot_be_split() -> None:
    s = setup([("forest", 3), ("clay_pit", 2)], dice=[2, 4, 5, 3, 4], step=4)
    assert player(s, 0)["tools"] == [2, 1, 1]
    resolve(s, "forest")
    use_tools(s, [2])  # 11 + 2 = 13: the spare point of the 2 is lost
    assert player(s, 0)["wood"] == 4
    assert player(s, 0)["tools_unused"] == [1, 1]
    # Clay 7: only the value-1 tools are left; nothing of the used 2 carries over.
    assert tool_choices(s) == {((), ()), ((1,), ())}
    with pytest.raises(IllegalActionError):
        use_tools(s, [2])
    use_tools(s, [1])
    assert player(s, 0)["clay"] == 2
    assert player(s, 0)["tools_unused"] == [1]


def test_tools_are_chosen_after_seeing_the_roll_and_may_be_kept_for_a_later_roll() -> None:
    s = setup([("forest", 3), ("hunting", 2)], dice=[2, 4, 5, 3, 4], step=1)
    resolve(s, "forest")
    assert decision(s) == {"kind": "use_tools", "seat": 0, "good": "wood", "dice": [2, 4, 5],
                           "sum": 11}
    use_tools(s, [])
    assert player(s, 0)["wood"] == 3
    assert player(s, 0)["tools_unused"] == [1]
    # Hunting 3+4 = 7: the kept tool makes it 8, 4 food.
    assert decision(s) == {"kind": "use_tools", "seat": 0, "good": "food", "dice": [3, 4],
                           "sum": 7}
    assert tool_choices(s) == {((), ()), ((1,), ())}
    use_tools(s, [1])
    assert player(s, 0)["food"] == 12 + 4
    assert seat1_waits(s)


def test_several_tools_may_be_added_to_one_roll() -> None:
    s = setup([("forest", 3)], dice=[3, 3, 3], step=3)
    assert tool_choices(s) == {((), ()), ((1, 1, 1), ())}
    use_tools(s, [1, 1, 1])
    assert player(s, 0)["wood"] == 4
    assert player(s, 0)["tools_unused"] == []


def test_used_tools_are_ready_again_next_round() -> None:
    s = new_game(2, dice=[2, 4, 5, 3, 4, 1, 1, 1, 1, 1])
    s = with_player(s, 0, step=4)
    place(s, "forest", 3)
    place(s, "hunting", 5)
    place(s, "hunting", 2)
    resolve(s, "forest")
    use_tools(s, [2, 1, 1])  # 11 + 4 = 15
    assert player(s, 0)["wood"] == 5
    # Hunting 3+4 = 7 is even with no tool left to add, and the round ends.
    assert s.round == 2
    assert player(s, 0)["tools_unused"] == [2, 1, 1]
    assert player(s, 0)["tools"] == [2, 1, 1]


# ------------------------------------------------------------------------- one-use tools
def test_a_one_use_tool_adds_its_value_once_and_is_then_gone() -> None:
    s = setup([("forest", 3), ("clay_pit", 2)], dice=[2, 3, 3, 3, 4, 1, 1, 1, 1],
              one_use=(3,))
    resolve(s, "forest")
    assert tool_choices(s) == {((), ()), ((), (3,))}
    use_tools(s, [], [3])  # 8 + 3 = 11
    assert player(s, 0)["wood"] == 3
    assert player(s, 0)["one_use_tools"] == []
    # Clay 3+4 = 7 would gain from a 3, but the tool is gone: no choice.
    assert seat1_waits(s)
    assert player(s, 0)["clay"] == 1
    finish_round(s)
    assert s.round == 2
    assert player(s, 0)["one_use_tools"] == []  # it does not come back with the new round


def test_a_one_use_tool_is_used_together_with_permanent_tools() -> None:
    s = setup([("forest", 3)], dice=[2, 3, 3], step=1, one_use=(3,))
    # 8: +1 = 9 and +3 = 11 give 3 wood, +1+3 = 12 gives 4.
    assert tool_choices(s) == {((), ()), ((1,), ()), ((), (3,)), ((1,), (3,))}
    use_tools(s, [1], [3])
    assert player(s, 0)["wood"] == 4
    assert player(s, 0)["tools_unused"] == []
    assert player(s, 0)["one_use_tools"] == []


def test_an_unused_one_use_tool_is_still_offered_on_a_later_roll() -> None:
    s = setup([("forest", 3), ("hunting", 2)], dice=[2, 4, 5, 3, 4], one_use=(2,))
    resolve(s, "forest")
    assert tool_choices(s) == {((), ()), ((), (2,))}
    use_tools(s, [])
    assert player(s, 0)["one_use_tools"] == [2]
    assert tool_choices(s) == {((), ()), ((), (2,))}  # hunting 7 + 2 = 9
    use_tools(s, [], [2])
    assert player(s, 0)["food"] == 12 + 4
    assert player(s, 0)["one_use_tools"] == []


def test_an_unused_one_use_tool_is_kept_into_the_next_round() -> None:
    s = new_game(2, dice=[2, 4, 5, 3, 4, 1, 1, 1, 1, 1])
    s = with_player(s, 0, one_use=(2,))
    place(s, "forest", 3)
    place(s, "hunting", 5)
    place(s, "hunting", 2)
    resolve(s, "forest")
    use_tools(s, [])
    use_tools(s, [])
    assert player(s, 0)["wood"] == 3
    assert player(s, 0)["food"] == 12 + 3 - 5
    assert s.round == 2
    assert player(s, 0)["one_use_tools"] == [2]


# --------------------------------------------------------------- tool choices offered (E4)
@pytest.mark.parametrize(
    ("where", "dice", "fields", "choices"),
    [
        # 11 wood-sum with 2,1,1: +1 or +2 reach 12 (4 wood), all three reach 15 (5 wood);
        # 1+1 and 2+1 add value without gaining more than a smaller choice.
        ("forest", [2, 4, 5], {"step": 4},
         {((), ()), ((1,), ()), ((2,), ()), ((2, 1, 1), ())}),
        # Clay 6: +1 = 7 gains nothing, +1+1 = 8 gains one clay.
        ("clay_pit", [3, 3], {"step": 2}, {((), ()), ((1, 1), ())}),
        # Quarry 3 with three value-2 tools: one 2 reaches 5; more gains nothing more.
        ("quarry", [1, 2], {"step": 6}, {((), ()), ((2,), ())}),
        # Forest 10 with a 1 and a one-use 3: the 1 alone gains nothing, 1 + 3 no more than 3.
        ("forest", [3, 3, 4], {"step": 1, "one_use": (3,)}, {((), ()), ((), (3,))}),
        # Hunting 7 with one-use 4 and 2: each alone and both together gain more.
        ("hunting", [3, 4], {"one_use": (4, 2)},
         {((), ()), ((), (2,)), ((), (4,)), ((), (4, 2))}),
    ],
)
def test_tool_choices_offered_are_no_tools_and_every_minimal_choice_by_value(
    where: str, dice: list[int], fields: dict[str, Any], choices: set[Choice]
) -> None:
    n = len(dice)
    s = setup([(where, n)], dice=dice, **fields)
    assert decision(s) is not None
    assert decision(s)["kind"] == "use_tools"  # type: ignore[index]
    assert tool_choices(s) == choices
    assert len(offered(s)) == len(choices)  # each choice once, whichever tool of a value


@pytest.mark.parametrize(
    ("where", "dice", "fields", "good", "gained"),
    [
        ("forest", [3, 3, 3], {"step": 1}, "wood", 3),  # 9 + 1 = 10 is still 3 wood
        ("hunting", [3, 3], {"step": 1}, "food", 3),  # 6 + 1 = 7 is still 3 food
        ("forest", [3, 3, 3], {"one_use": (2,)}, "wood", 3),  # 9 + 2 = 11 is still 3 wood
        ("river", [1, 1], {"step": 3}, "gold", 0),  # 2 + 3 = 5 is still 0 gold
    ],
)
def test_no_tool_decision_when_no_tool_can_raise_the_yield(
    where: str, dice: list[int], fields: dict[str, Any], good: str, gained: int
) -> None:
    s = setup([(where, len(dice))], dice=dice, **fields)
    assert seat1_waits(s)  # seat 0 was never asked about tools
    me = player(s, 0)
    assert me[good] == (12 if good == "food" else 0) + gained
    # The tools were not spent.
    assert me["tools_unused"] == me["tools"]
    assert me["one_use_tools"] == list(fields.get("one_use", ()))


# ------------------------------------------------------------------------------ tool maker
TOOL_TRACK = [
    [], [1], [1, 1], [1, 1, 1],
    [2, 1, 1], [2, 2, 1], [2, 2, 2],
    [3, 2, 2], [3, 3, 2], [3, 3, 3],
    [4, 3, 3], [4, 4, 3], [4, 4, 4],
]


@pytest.mark.parametrize("step", range(12))
def test_the_tool_maker_advances_one_step_along_the_tool_track(step: int) -> None:
    assert player(with_player(new_game(2), 0, step=step), 0)["tools"] == TOOL_TRACK[step]
    s = setup([("tool_maker", 1)], dice=[], step=step)
    assert seat1_waits(s)
    assert player(s, 0)["tools"] == TOOL_TRACK[step + 1]
    assert player(s, 0)["tools_unused"] == TOOL_TRACK[step + 1]


def test_a_tool_made_this_round_can_be_used_in_the_same_round() -> None:
    s = setup([("tool_maker", 1), ("hunting", 2)], dice=[3, 4])
    resolve(s, "tool_maker")
    assert decision(s) == {"kind": "use_tools", "seat": 0, "good": "food", "dice": [3, 4],
                           "sum": 7}
    assert tool_choices(s) == {((), ()), ((1,), ())}
    use_tools(s, [1])
    assert player(s, 0)["food"] == 12 + 4


def test_raising_a_tool_raises_an_unused_one_when_there_is_one() -> None:
    s = setup([("forest", 3), ("tool_maker", 1), ("hunting", 1)], dice=[2, 4, 5, 3], step=3)
    resolve(s, "forest")
    use_tools(s, [1])
    assert player(s, 0)["tools_unused"] == [1, 1]
    resolve(s, "tool_maker")
    assert player(s, 0)["tools"] == [2, 1, 1]
    assert player(s, 0)["tools_unused"] == [2, 1]
    # Hunting 3: the raised tool is ready for this roll.
    assert tool_choices(s) == {((), ()), ((1,), ()), ((2,), ()), ((2, 1), ())}
    use_tools(s, [2, 1])
    assert player(s, 0)["food"] == 12 + 3


def test_raising_a_tool_when_every_tool_of_that_value_is_used_leaves_it_used() -> None:
    s = setup([("forest", 3), ("tool_maker", 1)], dice=[2, 2, 3], step=4)
    resolve(s, "forest")
    assert ((1, 1), ()) in tool_choices(s)
    use_tools(s, [1, 1])  # 7 + 2 = 9
    assert player(s, 0)["wood"] == 3
    assert seat1_waits(s)
    assert player(s, 0)["tools"] == [2, 2, 1]
    assert player(s, 0)["tools_unused"] == [2]


# ------------------------------------------------------------------------------ field, hut
def test_the_field_raises_agriculture_by_one() -> None:
    s = setup([("field", 1)], dice=[], agri=3)
    assert seat1_waits(s)
    assert player(s, 0)["agriculture"] == 4


def test_the_field_food_is_received_at_this_rounds_feeding() -> None:
    s = new_game(2, dice=[1] * 9)
    place(s, "field", 1)
    place(s, "hunting", 5)
    place(s, "hunting", 4)
    resolve(s, "field")
    assert s.round == 2
    me = player(s, 0)
    assert me["agriculture"] == 1
    assert me["food"] == 12 + 4 // 2 + 1 - 5


def test_the_hut_adds_a_person_who_eats_this_round_and_works_from_the_next() -> None:
    s = setup([("hut", 2), ("hunting", 3)], dice=[1, 1, 1, 1, 1, 1, 1])
    resolve(s, "hut")
    assert seat1_waits(s)
    me = player(s, 0)
    assert me["people"] == 6
    assert me["people_to_place"] == 0  # the new person does not work this round
    assert phase(s) == "resolution"
    finish_round(s)
    assert s.round == 2
    me = player(s, 0)
    assert me["food"] == 12 + 3 // 2 - 6  # six people eat
    assert me["people_to_place"] == 6  # both parents and the child work
    place(s, "hunting", 1)  # seat 1 starts round 2
    assert s.current_player == 0
    assert max(a["people"] for a in offered(s, "place") if a["place"] == "hunting") == 6
