"""Dice Race, the engine kit's test game: its rules, and that it is a complete citizen of the
engine contract (registered by tests, picklable, refereed with real bot processes)."""

from __future__ import annotations

import pickle
import random
from pathlib import Path
from typing import Any

import pytest

from arena.engine import (
    IllegalActionError,
    ScriptedChance,
    SeededChance,
    get_game,
    list_games,
)
from arena.engine.testing import DICE_RACE, DiceRaceGame, DiceRaceState, random_playout
from arena.engine.testing.dicerace import GOAL, MAX_HAND, NUM_CARDS, card_value

ROOT = Path(__file__).resolve().parent.parent


def new_game(players: int, dice: list[int], deck: list[int] | None = None) -> DiceRaceState:
    """A game with scripted dice; the deck is dealt in ``deck`` order (else 0, 1, 2, ...)."""
    order = deck if deck is not None else list(range(NUM_CARDS))
    state = DICE_RACE.new_state(players, chance=ScriptedChance(dice, {"deck": order}))
    assert isinstance(state, DiceRaceState)
    return state


def edit(state: DiceRaceState, **changes: Any) -> DiceRaceState:
    return DICE_RACE.state_from_dict({**state.to_dict(), **changes})


def test_each_seat_is_dealt_a_hidden_hand_and_seat_zero_opens_with_a_public_roll() -> None:
    g = new_game(3, [4, 1])
    assert g.current_player == 0
    mine, theirs = g.observation(0), g.observation(1)
    assert mine["hand"] == [0, 1] and theirs["hand"] == [2, 3]
    assert mine["hand_sizes"] == [2, 2, 2] and mine["deck_size"] == NUM_CARDS - 6
    assert mine["die"] == theirs["die"] == 4
    assert g.legal_actions() == [
        {"type": "move"}, {"type": "play", "card": 0}, {"type": "play", "card": 1},
        {"type": "draw"},
    ]


def test_moving_advances_by_the_die_and_passes_the_turn() -> None:
    g = new_game(2, [4, 6])
    g.apply({"type": "move"})
    assert g.observation(0)["positions"] == [4, 0]
    assert g.current_player == 1 and g.observation(1)["die"] == 6


def test_playing_a_card_moves_by_its_value_and_discards_it_face_up() -> None:
    g = new_game(2, [1, 2], deck=[5, 0, *range(1, 5), *range(6, NUM_CARDS)])
    g.apply({"type": "play", "card": 5})
    obs = g.observation(1)
    assert obs["positions"] == [card_value(5), 0] == [6, 0]
    assert obs["discards"] == [5] and obs["hand_sizes"] == [1, 2]


def test_drawing_takes_the_top_card_without_moving_and_only_up_to_the_hand_limit() -> None:
    g = new_game(2, [3, 3, 3])
    g.apply({"type": "draw"})
    assert g.observation(0)["hand"] == [0, 1, 4] and g.observation(0)["positions"] == [0, 0]
    g.apply({"type": "move"})  # seat 1
    assert len(g.observation(0)["hand"]) == MAX_HAND
    assert {"type": "draw"} not in g.legal_actions()
    with pytest.raises(IllegalActionError):
        g.apply({"type": "draw"})


def test_a_seat_with_no_card_and_nothing_to_draw_moves_at_once_without_being_asked() -> None:
    g = new_game(2, [2, 3, 6])  # seat 0's first die, its second one, then seat 1's
    g = edit(g, hands=[[], [2, 3]], deck_pos=NUM_CARDS, current=1, die=5, turns=[1, 1])
    g.apply({"type": "move"})  # seat 1 moves 5; seat 0 then has only one action
    assert g.observation(1)["positions"] == [3, 5]  # seat 0's die 3 was applied for it
    assert g.current_player == 1 and g.num_legal() > 1


def test_the_first_seat_to_reach_the_goal_ends_the_game_and_ranks_follow_the_track() -> None:
    g = new_game(3, [6, 1])
    g = edit(g, positions=[GOAL - 3, 7, 7], hands=[[0, 1], [2], [4, 5]])
    g.apply({"type": "move"})
    assert g.is_terminal and g.current_player is None and g.legal_actions() == []
    r = g.result()
    assert r.scores == (GOAL, 7, 7)
    assert r.tiebreak == (2, 1, 2) and r.ranks == (1, 3, 2)
    assert r.breakdown == ({"track": GOAL}, {"track": 7}, {"track": 7})
    assert g.observation(1)["die"] is None


def test_progress_counts_rounds_from_seat_zero() -> None:
    g = new_game(2, [1, 1, 1, 1])
    assert g.progress == 1
    g.apply({"type": "move"})
    assert g.progress == 1
    g.apply({"type": "move"})
    assert g.progress == 2


def test_a_seats_dice_depend_only_on_the_seed_the_seat_and_its_turn() -> None:
    # Duplicate play: whoever sits in seat s rolls seat s's dice, at any table size.
    seed = 99
    for players in (2, 3, 4):
        state = DICE_RACE.new_state(players, seed=seed)
        seen: dict[tuple[int, int], int] = {}

        def note(s: Any, _k: int, seen: dict[tuple[int, int], int] = seen) -> None:
            obs = s.observation(s.current_player)
            seen[(s.current_player, obs["turns"][s.current_player] - 1)] = obs["die"]

        random_playout(state, random.Random(players), note)
        for (seat, k), die in seen.items():
            assert SeededChance(seed).integers(("dice", seat, k), 1, 1, 6) == (die,)


def test_determinized_states_deal_other_hands_from_unseen_cards_only() -> None:
    g = DICE_RACE.new_state(4, seed=5)
    obs = g.observation(2)
    for r in range(20):
        d = DICE_RACE.determinize(obs, random.Random(r))
        assert d.observation(2) == obs
        hands = d.to_dict()["hands"]
        others = {c for p, h in enumerate(hands) if p != 2 for c in h}
        assert not others & set(obs["hand"])


def test_the_game_and_its_states_pickle_for_worker_processes() -> None:
    game = pickle.loads(pickle.dumps(DICE_RACE))
    assert isinstance(game, DiceRaceGame) and game.describe() == DICE_RACE.describe()
    a = game.new_state(3, seed=8)
    b = DICE_RACE.new_state(3, seed=8)
    random_playout(a, random.Random(1))
    random_playout(b, random.Random(1))
    assert a.to_dict() == b.to_dict()
    state = DICE_RACE.new_state(2, seed=3)
    assert pickle.loads(pickle.dumps(state)).to_dict() == state.to_dict()


def test_dice_race_is_not_installed_but_tests_can_register_it(dicerace: DiceRaceGame) -> None:
    assert get_game("dicerace") is dicerace
    assert dicerace in list_games()


def test_dice_race_is_unregistered_after_the_test_that_registered_it() -> None:
    assert "dicerace" not in {g.name for g in list_games()}


def test_dice_race_is_refereed_with_real_bot_processes(dicerace: DiceRaceGame) -> None:
    from arena.protocol.messages import Termination
    from arena.runner.game.manifest import BotManifest
    from arena.runner.game.record import verify
    from arena.runner.game.referee import play_game

    bots = [BotManifest.load(ROOT / "bots" / "examples" / name)
            for name in ("random-py", "random-js")]
    record = play_game(dicerace, 4, bots)
    assert record.game == "dicerace"
    assert [t["reason"] for t in record.terminations] == [Termination.OK, Termination.OK]
    assert sorted(record.result["ranks"])[0] == 1
    assert verify(record).ok
