"""The search bot's search, in-process: legal choices, fixed-iteration reproducibility."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.engine.stoneage import STONE_AGE

FOLDER = Path(__file__).resolve().parent.parent / "bots" / "examples" / "mcts-py"


def load_search() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mcts_search", FOLDER / "search.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mcts_search"] = module
    spec.loader.exec_module(module)
    return module


search = load_search()


COMPONENTS = STONE_AGE.components()


def _greedy(state: Any) -> int:
    seat = state.current_player
    return int(search.policy.choose(state.observation(seat), state.legal_actions(), COMPONENTS))


def test_the_search_picks_a_legal_action_and_searches_placements_only() -> None:
    state = STONE_AGE.new_state(3, seed=4)
    rng = random.Random(1)
    searched = skipped = 0
    while not state.is_terminal and searched + skipped < 60:
        seat = state.current_player
        assert seat is not None
        obs, legal = state.observation(seat), state.legal_actions()
        index, iterations = search.search(STONE_AGE, obs, legal, COMPONENTS, rng, 60.0, 12)
        assert 0 <= index < len(legal)
        if obs["decision"]["kind"] == "place":
            # Whole sweeps over the root candidates: at least the iterations asked.
            assert iterations >= 12
            searched += 1
        else:
            assert iterations == 0 and index == _greedy(state)
            skipped += 1
        state.apply_index(index)
    assert searched >= 10 and skipped >= 10


def test_the_same_seed_and_iterations_give_the_same_choice() -> None:
    state = STONE_AGE.new_state(2, seed=9)
    for _ in range(40):
        state.apply_index(_greedy(state))
    while state.observation(state.current_player)["decision"]["kind"] != "place":
        state.apply_index(_greedy(state))
    seat = state.current_player
    assert seat is not None
    obs, legal = state.observation(seat), state.legal_actions()
    first = search.search(STONE_AGE, obs, legal, COMPONENTS, random.Random(5), 60.0, 30)
    again = search.search(STONE_AGE, obs, legal, COMPONENTS, random.Random(5), 60.0, 30)
    assert first == again and first[1] >= 30


def test_a_spent_budget_stops_the_search_after_one_sweep() -> None:
    """The search starts no sweep it expects to end after its budget: with none left, it plays
    each root candidate once and stops (without a clock in the test: no timing to flake)."""
    state = STONE_AGE.new_state(4, seed=3)
    while state.observation(state.current_player)["decision"]["kind"] != "place" or (
        state.round < 3
    ):
        state.apply_index(_greedy(state))
    seat = state.current_player
    obs, legal = state.observation(seat), state.legal_actions()
    order = search.policy.preferences(obs, legal, COMPONENTS)
    root = search.candidates(state.legal_keys(), order, search.ROOT_CANDIDATES)
    assert len(root) >= 2
    index, iterations = search.search(STONE_AGE, obs, legal, COMPONENTS, random.Random(1), 0.0)
    assert iterations == len(root) and index in root


def test_rewards_are_in_range_and_favour_the_seat_ahead() -> None:
    state = STONE_AGE.new_state(2, seed=2)
    data = state.to_dict()
    data["build_pts"] = [60, 0]
    ahead = STONE_AGE.state_from_dict(data)
    assert search.reward(ahead, 0) > 0.9 > 0.1 > search.reward(ahead, 1) > 0.0


def test_the_fast_policy_moves_are_the_greedy_policy_moves() -> None:
    """``policy_index`` skips building an observation for most resolution decisions; it must
    still choose exactly what the greedy policy chooses."""
    checked = 0
    for seed in range(6):
        state = STONE_AGE.new_state(2 + seed % 3, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            fast = search.policy_index(state, COMPONENTS)
            assert fast == _greedy(state)
            checked += 1
            # Some random moves, so the positions are not only greedy ones.
            state.apply_index(fast if rng.random() < 0.7 else rng.randrange(state.num_legal()))
    assert checked > 1000


def test_root_candidates_start_with_the_policy_choice_and_spread_over_places() -> None:
    state = STONE_AGE.new_state(2, seed=11)
    seen = 0
    while not state.is_terminal:
        seat = state.current_player
        obs, legal = state.observation(seat), state.legal_actions()
        if obs["decision"]["kind"] == "place" and len(legal) > 6:
            keys = state.legal_keys()
            order = search.policy.preferences(obs, legal, COMPONENTS)
            assert order[0] == _greedy(state) and sorted(order) == list(range(len(legal)))
            picked = search.candidates(keys, order, search.ROOT_CANDIDATES)
            assert picked[0] == order[0] and len(picked) == search.ROOT_CANDIDATES
            places = [keys[i][1] for i in picked]
            assert max(places.count(p) for p in places) <= search.PER_PLACE
            seen += 1
        state.apply_index(_greedy(state))
    assert seen > 10


def test_the_bot_replays_its_game_exactly_with_fixed_iterations(tmp_path: Path) -> None:
    """Through the referee, real processes and sockets: with ``--iterations`` the bot reseeds
    from each game's ``bot_seed``, so the same game seed gives the same game, move for move."""
    from dataclasses import replace

    from arena.runner.bots import BotManifest
    from arena.runner.record import verify
    from arena.runner.referee import play_game

    mcts = BotManifest.load(FOLDER)
    fixed = replace(mcts, command=("{python}", "bot.py", "--iterations", "10"))
    greedy = BotManifest.load(FOLDER.parent / "greedy-py")
    games = [play_game(STONE_AGE, 77, [fixed, greedy], log_dir=tmp_path / str(k))
             for k in range(2)]
    for record in games:
        assert [t["reason"] for t in record.terminations] == ["ok", "ok"]
        assert all(d[3] == "bot" for d in record.decisions)
        assert verify(record).ok
    moves = [[(d[0], d[1]) for d in record.decisions] for record in games]
    assert moves[0] == moves[1] and len(moves[0]) > 100
