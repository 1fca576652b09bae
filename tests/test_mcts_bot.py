"""The search bot's search, in-process: legal choices, fixed-iteration reproducibility."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

from arena.engine import STONE_AGE

FOLDER = Path(__file__).resolve().parent.parent / "bots" / "examples" / "mcts-py"


def load_search() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mcts_search", FOLDER / "search.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mcts_search"] = module
    spec.loader.exec_module(module)
    return module


search = load_search()


def test_the_search_always_picks_a_legal_action_and_runs_the_iterations_asked() -> None:
    state = STONE_AGE.new_state(3, seed=4)
    rng = random.Random(1)
    decisions = 0
    while not state.is_terminal and decisions < 60:
        seat = state.current_player
        assert seat is not None
        legal = state.legal_actions()
        index, iterations = search.search(STONE_AGE, state.observation(seat), legal, rng, 0.0, 12)
        assert 0 <= index < len(legal)
        assert iterations == 12
        state.apply_index(index)
        decisions += 1
    assert decisions == 60


def test_the_same_seed_and_iterations_give_the_same_choice() -> None:
    state = STONE_AGE.new_state(2, seed=9)
    for _ in range(40):
        state.apply_index(random.Random(3).randrange(state.num_legal()))
    seat = state.current_player
    assert seat is not None
    obs, legal = state.observation(seat), state.legal_actions()
    first = search.search(STONE_AGE, obs, legal, random.Random(5), 0.0, 30)
    again = search.search(STONE_AGE, obs, legal, random.Random(5), 0.0, 30)
    assert first == again


def test_rewards_are_in_range_and_favour_the_seat_ahead() -> None:
    state = STONE_AGE.new_state(2, seed=2)
    data = state.to_dict()
    data["build_pts"] = [60, 0]
    ahead = STONE_AGE.state_from_dict(data)
    rewards = search.evaluate(ahead)
    assert all(0.0 < r < 1.0 for r in rewards)
    assert rewards[0] > 0.9 > 0.1 > rewards[1]


def test_the_rollout_policy_buys_when_it_can_pay_most_of_the_time() -> None:
    from sa import new_game, place, with_player

    state = with_player(new_game(2, dice=[1] * 40), 0, wood=4, people=1)
    place(state, "card", slot=1)
    state = with_player(state, 1, people=1)
    # Seat 1 places, then resolution asks seat 0 to pay for its card.
    while state.observation(0)["decision"]["kind"] != "buy_card":
        state.apply_index(0)
    rng = random.Random(0)
    picks = [state.legal_keys()[search.rollout_index(state, rng)][0] for _ in range(200)]
    from arena.engine.stoneage.moves import PAY

    assert picks.count(PAY) > 160
