"""The Agricola board: set-up (ref A2), spaces per player count (A3, A5), the stage cards (A4),
accumulation, the Well (A8), the observation and determinizing (RULES.md "the board")."""

from __future__ import annotations

import random

import pytest

from arena.engine.agricola.board import (
    FREE,
    Board,
    determinize,
    from_observation,
    new_board,
    prepare_round,
)
from arena.engine.agricola.components import (
    CATTLE,
    CLAY,
    FIREPLACE_2,
    FOOD,
    HEARTH_4,
    MAJORS,
    NUM_ROUNDS,
    SHEEP,
    SPACE_ID,
    SPACES,
    STAGE_CARDS,
    STONE,
    WELL,
    WOOD,
)
from arena.engine.chance import ScriptedChance, SeededChance

# The reference's tables, by printed name: A3 (every count; Side Job from 2 players, D7) and A5.
A3 = {"Farm Expansion", "Meeting Place", "Grain Seeds", "Farmland", "Lessons", "Day Laborer",
      "Forest", "Clay Pit", "Reed Bank", "Fishing"}
REFERENCE_SPACES = {
    1: A3,
    2: A3 | {"Side Job"},
    3: A3 | {"Side Job", "Grove", "Hollow", "Resource Market", "Lessons"},
    4: A3 | {"Side Job", "Copse", "Grove", "Hollow", "Resource Market", "Lessons",
             "Traveling Players"},
}
ALL_CARDS = {c for stage in STAGE_CARDS for c in stage}
S = SPACE_ID


def board_at(players: int, rnd: int, seed: int = 7) -> Board:
    b = new_board(players, SeededChance(seed))
    for _ in range(rnd):
        prepare_round(b)
    return b


def scripted(orders: dict[str, list[int]]) -> Board:
    return new_board(2, ScriptedChance(orders=orders))


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_round_one_spaces_match_the_reference_tables(players: int) -> None:
    b = board_at(players, 1)
    printed = b.spaces()[:-1]
    names = [SPACES[s].name for s in printed]
    assert set(names) == REFERENCE_SPACES[players]
    # Lessons appears twice at 3 and 4 players (the second on the extension board).
    assert names.count("Lessons") == (2 if players >= 3 else 1)
    assert len(printed) == len(set(printed))
    # ... plus exactly one stage card, from stage 1.
    assert b.spaces()[-1] in STAGE_CARDS[0]
    assert b.revealed() == (b.spaces()[-1],)
    # Lessons is on the board but never free.
    assert S["lessons"] in b.spaces() and S["lessons"] not in b.free_spaces()
    assert set(b.free_spaces()) == {s for s in b.spaces() if not SPACES[s].dead}


def test_round_zero_shows_no_card_and_round_one_reveals_one() -> None:
    b = new_board(3, SeededChance(1))
    assert b.round == 0 and b.stage == 0 and b.revealed() == ()
    assert sorted(b.hidden_cards()) == sorted(ALL_CARDS)
    assert all(n == 0 for _, _, n in b.piles())
    prepare_round(b)
    assert b.round == 1 and len(b.revealed()) == 1 and len(b.hidden_cards()) == 13


@pytest.mark.parametrize("seed", range(20))
def test_stage_grouping_over_fourteen_rounds(seed: int) -> None:
    b = new_board(2, SeededChance(seed))
    stages = []
    for rnd in range(1, NUM_ROUNDS + 1):
        prepare_round(b)
        card = b.card_of_round(rnd)
        stages.append(SPACES[card].stage)
        assert b.stage == SPACES[card].stage
    assert stages == [1] * 4 + [2] * 3 + [3] * 2 + [4] * 2 + [5] * 2 + [6]
    assert set(b.revealed()) == ALL_CARDS and b.hidden_cards() == ()
    with pytest.raises(ValueError, match="no round after"):
        prepare_round(b)


def test_the_order_depends_on_the_seed_only_never_on_the_seat_or_count() -> None:
    orders = {n: board_at(n, NUM_ROUNDS, seed=11).revealed() for n in (1, 2, 3, 4)}
    assert len(set(orders.values())) == 1
    # The shuffle events are named by stage alone.
    keys: list[tuple[str | int, ...]] = []

    class Spy(ScriptedChance):
        def permutation(self, key: tuple[str | int, ...], n: int) -> list[int]:
            keys.append(key)
            return super().permutation(key, n)

    new_board(4, Spy())
    assert keys == [("stage", s) for s in range(1, 7)]
    seen = {board_at(2, NUM_ROUNDS, seed=s).revealed() for s in range(12)}
    assert len(seen) > 6


def test_a_scripted_stage_order_is_followed() -> None:
    b = scripted({"stage/1": [3, 2, 1, 0], "stage/5": [1, 0]})
    for _ in range(NUM_ROUNDS):
        prepare_round(b)
    assert b.revealed()[:4] == tuple(reversed(STAGE_CARDS[0]))
    assert b.revealed()[11:13] == (S["cultivation"], S["urgent_wish_for_children"])
    assert b.revealed()[4:7] == STAGE_CARDS[1]


def test_forest_piles_up_and_empties_when_taken() -> None:
    for players, per_round in ((2, 3), (1, 2), (4, 3)):
        b = board_at(players, 1)
        assert b.accumulated(S["forest"]) == ((WOOD, per_round),)
        prepare_round(b)
        prepare_round(b)
        assert b.accumulated(S["forest"]) == ((WOOD, 3 * per_round),)
        b.occupy(S["forest"], 0)
        assert b.take_accumulated(S["forest"]) == ((WOOD, 3 * per_round),)
        assert b.accumulated(S["forest"]) == ()
        prepare_round(b)
        assert b.accumulated(S["forest"]) == ((WOOD, per_round),)


@pytest.mark.parametrize(("players", "space", "good", "amount"), [
    (1, "meeting_place", FOOD, 1), (2, "meeting_place", FOOD, 1), (2, "clay_pit", CLAY, 1),
    (2, "fishing", FOOD, 1), (3, "grove", WOOD, 2), (3, "hollow_3p", CLAY, 1),
    (4, "copse", WOOD, 1), (4, "grove", WOOD, 2), (4, "hollow_4p", CLAY, 2),
    (4, "traveling_players", FOOD, 1),
])
def test_accumulation_per_space(players: int, space: str, good: int, amount: int) -> None:
    b = board_at(players, 5)
    assert b.accumulated(S[space]) == ((good, 5 * amount),)


def test_spaces_of_other_counts_never_accumulate() -> None:
    b = board_at(3, 5)
    assert b.accumulated(S["copse"]) == () and b.accumulated(S["hollow_4p"]) == ()
    with pytest.raises(ValueError, match="not an accumulation space"):
        b.take_accumulated(S["copse"])
    with pytest.raises(ValueError, match="not an accumulation space"):
        b.take_accumulated(S["day_laborer"])


def test_a_stage_card_accumulates_from_the_round_it_is_revealed() -> None:
    b = scripted({"stage/1": [1, 2, 0, 3]})  # Sheep Market comes up in round 4
    for _ in range(3):
        prepare_round(b)
    assert S["sheep_market"] not in b.spaces()
    assert b.accumulated(S["sheep_market"]) == ()
    prepare_round(b)
    assert b.card_of_round(4) == S["sheep_market"]
    assert b.accumulated(S["sheep_market"]) == ((SHEEP, 1),)
    for _ in range(6):
        prepare_round(b)
    assert b.accumulated(S["sheep_market"]) == ((SHEEP, 7),)
    cattle_round = b.revealed().index(S["cattle_market"]) + 1
    assert b.accumulated(S["cattle_market"]) == ((CATTLE, b.round - cattle_round + 1),)
    assert b.round == 10 and cattle_round == 10


def test_occupy_one_person_per_space_and_cleared_next_round() -> None:
    b = board_at(3, 1)
    b.occupy(S["forest"], 2)
    assert b.occupant(S["forest"]) == 2 and b.occupied() == ((S["forest"], 2),)
    assert S["forest"] not in b.free_spaces() and not b.is_free(S["forest"])
    for space, seat in ((S["forest"], 1), (S["lessons"], 0), (S["copse"], 0),
                        (S["grain_seeds"], 3), (99, 0)):
        with pytest.raises(ValueError):
            b.occupy(space, seat)
    hidden = b.hidden_cards()[0]
    with pytest.raises(ValueError, match="not free"):
        b.occupy(hidden, 0)
    prepare_round(b)
    assert b.occupant(S["forest"]) == FREE and b.occupied() == ()


@pytest.mark.parametrize(("built", "paid_rounds"), [
    (1, [2, 3, 4, 5, 6]), (9, [10, 11, 12, 13, 14]), (11, [12, 13, 14]), (14, []),
])
def test_well_food_lands_on_the_next_five_rounds(built: int, paid_rounds: list[int]) -> None:
    b = board_at(4, built)
    assert b.promise(2) == len(paid_rounds)
    assert [r for r, _, _ in b.promises()] == paid_rounds
    got = {}
    while b.round < NUM_ROUNDS:
        food = prepare_round(b)
        got[b.round] = food
        assert b.well_food(b.round) == (0, 0, 0, 0)  # paid out, not paid twice
    assert [r for r, f in got.items() if f == (0, 0, 1, 0)] == paid_rounds
    assert all(f == (0, 0, 0, 0) for r, f in got.items() if r not in paid_rounds)
    assert b.promises() == ()


def test_well_promises_from_a_given_round_add_up() -> None:
    b = board_at(2, 3)
    b.promise(0, after_round=5)
    b.promise(1)
    assert b.well_food(6) == (1, 1) and b.well_food(9) == (1, 0) and b.well_food(4) == (0, 1)
    with pytest.raises(ValueError):
        b.promise(0, after_round=2)
    with pytest.raises(ValueError):
        b.promise(2)


def test_majors_leave_the_board_and_a_fireplace_comes_back() -> None:
    b = board_at(2, 1)
    assert b.majors() == tuple(range(len(MAJORS)))
    b.take_major(FIREPLACE_2)
    b.take_major(WELL)
    assert FIREPLACE_2 not in b.majors() and not b.major_available(WELL)
    with pytest.raises(ValueError):
        b.take_major(WELL)
    b.return_fireplace(FIREPLACE_2)
    assert b.major_available(FIREPLACE_2)
    with pytest.raises(ValueError):
        b.return_fireplace(FIREPLACE_2)  # already there
    b.take_major(HEARTH_4)
    with pytest.raises(ValueError):
        b.return_fireplace(HEARTH_4)  # only Fireplaces return


def test_harvest_rounds() -> None:
    b = new_board(2, SeededChance(3))
    due = []
    for _ in range(NUM_ROUNDS):
        prepare_round(b)
        if b.harvest_due():
            due.append(b.round)
    assert due == [4, 7, 9, 11, 13, 14] and b.last_round()


def played(seed: int, order: dict[str, list[int]] | None = None) -> Board:
    """A board at round 6 with some play on it."""
    b = new_board(3, ScriptedChance(orders=order)) if order else board_at(3, 0, seed)
    for _ in range(6):
        prepare_round(b)
    b.occupy(S["forest"], 1)
    b.take_accumulated(S["forest"])
    b.take_major(WELL)
    b.promise(1)
    b.start_player = 2
    return b


def test_the_observation_hides_only_the_unrevealed_order() -> None:
    a = played(0, {"stage/1": [0, 1, 2, 3], "stage/2": [0, 1, 2], "stage/3": [0, 1]})
    b = played(0, {"stage/1": [0, 1, 2, 3], "stage/2": [0, 1, 2], "stage/3": [1, 0]})
    assert a != b
    assert a.observation() == b.observation()
    obs = a.observation()
    assert "order" not in obs and obs["round"] == 6
    assert obs["revealed"] == list(a.revealed())
    assert sorted(obs["hidden_cards"]) == sorted(ALL_CARDS - set(a.revealed()))
    assert obs["occupants"] == [[S["forest"], 1]] and WELL not in obs["majors"]
    assert [S["forest"], "wood", 0] in obs["accumulated"]
    assert obs["well"] == [[r, 1, 1] for r in range(7, 12)]
    # A revealed card differs: the observations differ.
    c = played(0, {"stage/1": [1, 0, 2, 3], "stage/2": [0, 1, 2], "stage/3": [0, 1]})
    assert c.observation() != a.observation()


def test_determinize_keeps_everything_public_and_samples_the_rest() -> None:
    b = played(5)
    rng = random.Random(1)
    orders = set()
    for _ in range(50):
        d = determinize(b, rng)
        assert d.observation() == b.observation()
        d2 = from_observation(b.observation(), rng)
        assert d2.observation() == b.observation()
        assert d.revealed() == b.revealed() and d2.revealed() == b.revealed()
        orders.add(tuple(d.to_dict()["order"]))
        orders.add(tuple(d2.to_dict()["order"]))
        for _ in range(NUM_ROUNDS - 6):  # every sampled future is a legal one
            prepare_round(d)
        assert [SPACES[c].stage for c in d.revealed()] == [SPACES[c].stage
                                                          for c in b.to_dict()["order"]]
    assert len(orders) == 8  # 2 x 2 x 2 ways to order stages 3, 4 and 5: all reached
    assert b.round == 6  # determinize never moves the original
    # With nothing hidden there is nothing to sample.
    end = board_at(2, NUM_ROUNDS)
    assert determinize(end, rng) == end


def test_to_dict_round_trip_and_refusals() -> None:
    b = played(9)
    d = b.to_dict()
    again = Board.from_dict(d)
    assert again == b and again.to_dict() == d and again.spaces() == b.spaces()
    assert Board.from_dict(board_at(1, 0).to_dict()) == board_at(1, 0)
    bad_order = dict(d, order=[d["order"][4], *d["order"][1:4], d["order"][0], *d["order"][5:]])
    bad = [
        dict(d, order=bad_order["order"]),
        dict(d, round=15),
        dict(d, players=5),
        dict(d, start_player=3),
        dict(d, accumulated=[[S["day_laborer"], "food", 1]]),
        dict(d, accumulated=[[S["forest"], "clay", 1]]),
        dict(d, occupants=[[S["forest"], 0], [S["forest"], 1]]),
        dict(d, well=[[3, 0, 1]]),
        dict(d, majors=[12]),
        {k: v for k, v in d.items() if k != "well"},
    ]
    for case in bad:
        with pytest.raises(ValueError):
            Board.from_dict(case)


def test_copies_are_independent() -> None:
    b = board_at(4, 3)
    c = b.copy()
    assert c == b and hash(c) == hash(b)
    c.occupy(S["grove"], 3)
    c.take_accumulated(S["grove"])
    c.take_major(FIREPLACE_2)
    c.promise(0)
    c.start_player = 1
    prepare_round(c)
    assert b.round == 3 and b.occupant(S["grove"]) == FREE
    assert b.accumulated(S["grove"]) == ((WOOD, 6),)
    assert b.major_available(FIREPLACE_2) and b.promises() == () and b.start_player == 0
    assert c != b


def test_stone_piles_from_both_quarries_stay_apart() -> None:
    b = board_at(2, NUM_ROUNDS)
    west = NUM_ROUNDS - b.revealed().index(S["western_quarry"])
    east = NUM_ROUNDS - b.revealed().index(S["eastern_quarry"])
    assert b.accumulated(S["western_quarry"]) == ((STONE, west),)
    assert b.accumulated(S["eastern_quarry"]) == ((STONE, east),)
    assert west >= 8 and east in (4, 5)
