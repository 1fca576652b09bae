"""Stone Age placement rules: one place per turn, capacities, player-count limits, turn order.

Rules text: "配置は1か所ずつ、同じ場所へ継ぎ足せない" and the paragraphs after it; rulings 1, 2,
8, 9 (reference) and E1, E2 (engine rules notes).
"""

from __future__ import annotations

from typing import Any

import pytest
from sa import act, new_game, offered, place, player, with_player

from arena.engine import IllegalActionError
from arena.engine.stoneage import StoneAgeState

RESOURCE_PLACES = ("forest", "clay_pit", "quarry", "river")
VILLAGE = ("tool_maker", "hut", "field")


# ------------------------------------------------------------------------------ helpers
def spot(action: dict[str, Any]) -> str:
    """A label for the place of a placement action: "forest", "card 2", "building 0"."""
    if action["place"] == "card":
        return f"card {action['slot']}"
    if action["place"] == "building":
        return f"building {action['pile']}"
    return str(action["place"])


def spots(state: StoneAgeState) -> set[str]:
    """The places the player to act may put people on now."""
    return {spot(a) for a in offered(state, "place")}


def counts(state: StoneAgeState, label: str) -> list[int]:
    """The people counts offered for one place (sorted), [] if the place is not offered."""
    return sorted(a["people"] for a in offered(state, "place") if spot(a) == label)


def phase(state: StoneAgeState) -> str:
    return str(state.observation(0)["phase"])


def board_people(state: StoneAgeState, where: str) -> list[int]:
    return list(state.observation(0)["board"]["people"][where])


def finish_round(state: StoneAgeState) -> None:
    """Play out resolution and feeding with plain choices until the next placement begins.

    Resolves places in the offered order, never uses tools, declines purchases, takes the first
    die offered, and pays a feeding deficit with the first offered payment.
    """
    start_round = state.round
    while state.round == start_round and not state.is_terminal:
        actions = state.legal_actions()
        kind = actions[0]["type"]
        assert kind != "place", "finish_round is for resolution and feeding"
        if kind == "use_tools":
            act(state, "use_tools", tools=[], one_use_tools=[])
        elif any(a["type"] == "decline" for a in actions):
            act(state, "decline")
        else:
            state.apply(actions[0])


def all_hunting_round(state: StoneAgeState) -> None:
    """Round with every player sending all of their people hunting (dice must be scripted)."""
    start_round = state.round
    while state.round == start_round and phase(state) == "placement":
        seat = state.current_player
        assert seat is not None
        place(state, "hunting", player(state, seat)["people_to_place"])
    if state.round == start_round:
        finish_round(state)


# ------------------------------------------------------------------------ one place per turn
def test_a_turn_puts_one_or_more_people_on_exactly_one_place() -> None:
    s = new_game(4)
    assert counts(s, "hunting") == [1, 2, 3, 4, 5]
    assert counts(s, "forest") == [1, 2, 3, 4, 5]
    place(s, "forest", 3)
    assert board_people(s, "forest") == [3, 0, 0, 0]
    assert player(s, 0)["people_to_place"] == 2
    # The turn is over after one place: the next seat acts, seat 0 still has people.
    assert s.current_player == 1
    assert board_people(s, "hunting") == [0, 0, 0, 0]


def test_a_player_cannot_add_people_later_to_a_resource_place_used_this_round() -> None:
    s = new_game(4)
    place(s, "forest", 2)
    for _ in range(3):
        place(s, "hunting", 1)
    assert s.current_player == 0
    assert "forest" not in spots(s)  # 5 spaces are left, but not for seat 0
    assert counts(s, "clay_pit") == [1, 2, 3]
    with pytest.raises(IllegalActionError):
        place(s, "forest", 1)


def test_a_player_cannot_add_people_later_to_hunting_either() -> None:
    s = new_game(4)
    place(s, "hunting", 1)
    for _ in range(3):
        assert counts(s, "hunting") == [1, 2, 3, 4, 5]  # the others may still hunt
        place(s, "hunting", 1)
    assert s.current_player == 0
    assert "hunting" not in spots(s)
    assert counts(s, "forest") == [1, 2, 3, 4]


def test_the_other_players_may_still_join_a_place_someone_used() -> None:
    s = new_game(4)
    place(s, "forest", 2)
    assert s.current_player == 1
    assert counts(s, "forest") == [1, 2, 3, 4, 5]


# ------------------------------------------------------------------------------ capacities
def test_hunting_has_no_people_limit() -> None:
    s = new_game(4)
    for seat in range(4):
        s = with_player(s, seat, people=10)
    place(s, "hunting", 10)
    assert counts(s, "hunting") == list(range(1, 11))
    place(s, "hunting", 10)
    assert counts(s, "hunting") == list(range(1, 11))
    place(s, "hunting", 10)
    assert board_people(s, "hunting") == [10, 10, 10, 0]
    assert counts(s, "hunting") == list(range(1, 11))


@pytest.mark.parametrize("where", RESOURCE_PLACES)
def test_each_resource_place_holds_seven_people_in_total(where: str) -> None:
    s = new_game(4)
    place(s, where, 5)
    assert counts(s, where) == [1, 2]
    place(s, where, 2)
    assert board_people(s, where) == [5, 2, 0, 0]
    assert where not in spots(s)
    place(s, "hunting", 1)
    assert where not in spots(s)


@pytest.mark.parametrize("where", RESOURCE_PLACES)
def test_a_resource_place_can_be_shared_by_several_players_up_to_seven(where: str) -> None:
    s = new_game(4)
    place(s, where, 3)
    place(s, where, 2)
    assert counts(s, where) == [1, 2]
    place(s, where, 1)
    assert counts(s, where) == [1]
    place(s, where, 1)
    assert board_people(s, where) == [3, 2, 1, 1]


def test_tool_maker_takes_one_person() -> None:
    s = new_game(4)
    assert counts(s, "tool_maker") == [1]
    place(s, "tool_maker", 1)
    assert board_people(s, "tool_maker") == [1, 0, 0, 0]
    assert "tool_maker" not in spots(s)


def test_field_takes_one_person() -> None:
    s = new_game(4)
    assert counts(s, "field") == [1]
    place(s, "field", 1)
    assert board_people(s, "field") == [1, 0, 0, 0]
    assert "field" not in spots(s)


def test_hut_takes_exactly_two_people() -> None:
    s = new_game(4)
    assert counts(s, "hut") == [2]
    with pytest.raises(IllegalActionError):
        place(s, "hut", 1)
    place(s, "hut", 2)
    assert board_people(s, "hut") == [2, 0, 0, 0]
    assert player(s, 0)["people_to_place"] == 3
    assert "hut" not in spots(s)  # taken for the round by seat 0's two people


def test_hut_is_not_offered_to_a_player_with_fewer_than_two_people_left() -> None:
    s = new_game(4)
    place(s, "hunting", 4)
    for _ in range(3):
        place(s, "forest", 1)
    assert s.current_player == 0
    assert player(s, 0)["people_to_place"] == 1
    assert "hut" not in spots(s)
    assert {"tool_maker", "field", "clay_pit"} <= spots(s)


def test_hut_is_not_offered_to_a_player_with_only_one_person() -> None:
    s = with_player(new_game(4), 0, people=1)
    assert "hut" not in spots(s)
    assert "tool_maker" in spots(s)


def test_hut_is_not_offered_at_ten_people() -> None:
    s = new_game(4)
    s = with_player(s, 0, people=10)
    s = with_player(s, 1, people=9)
    assert "hut" not in spots(s)
    assert counts(s, "hunting") == list(range(1, 11))
    place(s, "hunting", 1)
    assert counts(s, "hut") == [2]  # nine people: the hut is still open


def test_field_is_not_offered_at_agriculture_ten() -> None:
    s = new_game(4)
    s = with_player(s, 0, agri=10)
    s = with_player(s, 1, agri=9)
    assert "field" not in spots(s)
    place(s, "hunting", 1)
    assert counts(s, "field") == [1]


def test_tool_maker_is_not_offered_at_tool_step_twelve() -> None:
    s = new_game(4)
    s = with_player(s, 0, step=12)
    s = with_player(s, 1, step=11)
    assert player(s, 0)["tools"] == [4, 4, 4]
    assert "tool_maker" not in spots(s)
    place(s, "hunting", 1)
    assert counts(s, "tool_maker") == [1]


def test_each_card_slot_takes_one_person() -> None:
    s = new_game(4)
    for slot in (1, 2, 3, 4):
        assert counts(s, f"card {slot}") == [1]
    place(s, "card", 1, slot=2)
    assert s.observation(0)["board"]["cards"][1]["people"] == [1, 0, 0, 0]
    assert {"card 1", "card 3", "card 4"} <= spots(s)
    assert "card 2" not in spots(s)


def test_each_building_pile_takes_one_person() -> None:
    s = new_game(4)
    for pile in range(4):
        assert counts(s, f"building {pile}") == [1]
    place(s, "building", 1, pile=0)
    assert s.observation(0)["board"]["buildings"][0]["people"] == [1, 0, 0, 0]
    assert {"building 1", "building 2", "building 3"} <= spots(s)
    assert "building 0" not in spots(s)


def test_the_same_player_may_stand_on_several_cards_and_building_piles() -> None:
    s = new_game(4)
    place(s, "card", 1, slot=1)
    for _ in range(3):
        place(s, "hunting", 1)
    assert {"card 2", "card 3", "card 4"} <= spots(s)
    place(s, "card", 1, slot=2)
    for _ in range(3):
        place(s, "forest", 1)
    place(s, "building", 1, pile=0)
    for _ in range(3):
        place(s, "clay_pit", 1)
    assert {"building 1", "building 2", "building 3"} <= spots(s)
    place(s, "building", 1, pile=1)
    cards = s.observation(0)["board"]["cards"]
    piles = s.observation(0)["board"]["buildings"]
    assert [c["people"][0] for c in cards] == [1, 1, 0, 0]
    assert [b["people"][0] for b in piles] == [1, 1, 0, 0]


# ----------------------------------------------------------------- player-count limits
@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize(
    ("first", "second", "blocked"),
    [
        ("tool_maker", "hut", "field"),
        ("tool_maker", "field", "hut"),
        ("hut", "field", "tool_maker"),
    ],
)
def test_two_or_three_players_use_only_two_of_tool_maker_hut_and_field(
    players: int, first: str, second: str, blocked: str
) -> None:
    s = new_game(players)
    assert set(VILLAGE) <= spots(s)
    place(s, first, 2 if first == "hut" else 1)
    assert {second, blocked} <= spots(s)
    place(s, second, 2 if second == "hut" else 1)
    # Nobody may use the third one this round, whoever acts next.
    for _ in range(players):
        assert blocked not in spots(s)
        place(s, "card", 1, slot=s.current_player + 1)


def test_four_players_may_use_tool_maker_hut_and_field_in_one_round() -> None:
    s = new_game(4)
    place(s, "tool_maker", 1)
    place(s, "hut", 2)
    assert counts(s, "field") == [1]
    place(s, "field", 1)
    assert board_people(s, "tool_maker") == [1, 0, 0, 0]
    assert board_people(s, "hut") == [0, 2, 0, 0]
    assert board_people(s, "field") == [0, 0, 1, 0]


def test_the_village_place_left_unused_can_change_from_round_to_round() -> None:
    s = new_game(2, dice=[1] * 20)
    place(s, "tool_maker", 1)
    place(s, "hut", 2)
    assert "field" not in spots(s)
    place(s, "hunting", 4)
    place(s, "hunting", 3)
    finish_round(s)
    assert s.round == 2
    assert s.current_player == 1
    assert counts(s, "field") == [1]
    place(s, "field", 1)
    assert "tool_maker" in spots(s)
    place(s, "tool_maker", 1)
    assert "hut" not in spots(s)  # this round the hut is the one left empty


@pytest.mark.parametrize("where", RESOURCE_PLACES)
def test_three_players_put_at_most_two_different_players_on_a_resource_place(where: str) -> None:
    s = new_game(3)
    place(s, where, 1)
    assert counts(s, where) == [1, 2, 3, 4, 5]
    place(s, where, 1)
    assert board_people(s, where) == [1, 1, 0]
    # Five spaces are left, but a third player may not come in.
    assert where not in spots(s)
    assert counts(s, "hunting") == [1, 2, 3, 4, 5]


def test_three_players_still_keep_the_seven_person_capacity() -> None:
    s = new_game(3)
    place(s, "quarry", 5)
    assert counts(s, "quarry") == [1, 2]
    place(s, "quarry", 2)
    assert "quarry" not in spots(s)


@pytest.mark.parametrize("where", RESOURCE_PLACES)
def test_two_players_put_only_one_player_on_a_resource_place(where: str) -> None:
    s = new_game(2)
    place(s, where, 1)
    assert where not in spots(s)  # six spaces are left, but not for a second player
    others = [r for r in RESOURCE_PLACES if r != where]
    for other in others:
        assert counts(s, other) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("players", [2, 3])
def test_player_count_limits_do_not_apply_to_hunting(players: int) -> None:
    s = new_game(players)
    for seat in range(players):
        assert s.current_player == seat
        assert counts(s, "hunting") == [1, 2, 3, 4, 5]
        place(s, "hunting", 1)
    assert board_people(s, "hunting") == [1] * players


# ------------------------------------------------------------------ no pass, being skipped
def test_placement_offers_no_pass_while_a_legal_place_exists() -> None:
    s = new_game(2)
    place(s, "hunting", 1)
    place(s, "hunting", 5)
    # Seat 1 is done; seat 0 still has four people and must keep placing them.
    assert s.current_player == 0
    assert phase(s) == "placement"
    assert {a["type"] for a in s.legal_actions()} == {"place"}
    with pytest.raises(IllegalActionError):
        act(s, "pass")
    place(s, "card", 1, slot=1)
    assert s.current_player == 0
    assert player(s, 0)["people_to_place"] == 3
    assert {a["type"] for a in s.legal_actions()} == {"place"}


def test_a_player_with_people_left_but_no_legal_place_is_skipped() -> None:
    s = new_game(2, dice=[1] * 7 + [6])
    s = with_player(s, 0, people=10)
    s = with_player(s, 1, people=10)
    script: list[tuple[int, str, dict[str, Any]]] = [
        (0, "forest", {}), (1, "hunting", {}), (0, "clay_pit", {}), (1, "card", {"slot": 3}),
        (0, "quarry", {}), (1, "card", {"slot": 4}), (0, "river", {}),
        (1, "building", {"pile": 0}), (0, "tool_maker", {}), (1, "building", {"pile": 1}),
        (0, "field", {}), (1, "card", {"slot": 1}), (0, "card", {"slot": 2}),
    ]
    for seat, where, extra in script:
        assert s.current_player == seat
        place(s, where, 1, **extra)
    # Seat 1 has four people left, but hunting is used, every resource place holds seat 0 (two
    # players), two village places are used, and every card and pile is taken: seat 1 is skipped.
    assert s.current_player == 0
    assert spots(s) == {"hunting"}
    assert counts(s, "hunting") == [1, 2, 3]
    place(s, "hunting", 3)
    # Nobody can place any more: the round moves on. Seat 1's idle people still eat (E2).
    finish_round(s)
    assert s.round == 2
    assert player(s, 1)["people"] == 10
    assert player(s, 1)["food"] == 12 + 3 - 10


# ------------------------------------------------------------------------------ turn order
def test_turns_go_clockwise_from_the_start_player_skipping_players_without_people() -> None:
    s = new_game(3, dice=[1] * 20)
    s = with_player(s, 1, people=1)
    seen = []
    for where, people in [("hunting", 2), ("hunting", 1), ("hunting", 2), ("forest", 3)]:
        seen.append(s.current_player)
        place(s, where, people)
    assert seen == [0, 1, 2, 0]
    # Seat 1 has nobody left: seat 0's turn is followed by seat 2's.
    assert s.current_player == 2
    assert phase(s) == "placement"
    place(s, "clay_pit", 3)
    assert phase(s) == "resolution"


def test_the_next_round_starts_placement_with_the_new_start_player() -> None:
    s = new_game(3, dice=[1] * 40)
    all_hunting_round(s)
    assert s.round == 2
    assert s.observation(0)["start_player"] == 1
    seen = []
    for _ in range(4):
        seen.append(s.current_player)
        place(s, "hunting" if len(seen) <= 3 else "forest", 1)
    assert seen == [1, 2, 0, 1]


# ------------------------------------------------------------------------- end of placement
def test_placement_ends_and_resolution_begins_when_nobody_can_place() -> None:
    s = new_game(2, dice=[1] * 20)
    place(s, "hunting", 4)
    place(s, "hunting", 4)
    place(s, "card", 1, slot=1)
    assert phase(s) == "placement"
    place(s, "card", 1, slot=2)
    assert phase(s) == "resolution"
    assert s.observation(0)["decision"] == {"kind": "resolve", "seat": 0}
    assert offered(s) == [
        {"type": "resolve", "place": "hunting"},
        {"type": "resolve", "place": "card", "slot": 1},
    ]
    # Nothing has been gathered yet: the places pay out only when resolved.
    assert player(s, 0)["food"] == 12
    assert player(s, 1)["food"] == 12
    assert board_people(s, "hunting") == [4, 4]


def test_placement_goes_on_while_any_player_still_has_people_to_place() -> None:
    s = new_game(2)
    s = with_player(s, 1, people=2)
    place(s, "hunting", 1)
    place(s, "hunting", 2)
    for left in (4, 3, 2):
        assert phase(s) == "placement"
        assert s.current_player == 0
        assert player(s, 0)["people_to_place"] == left
        place(s, "card", 1, slot=5 - left)
    assert player(s, 0)["people_to_place"] == 1
    assert s.current_player == 0
