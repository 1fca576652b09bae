"""The search bot's search, in-process, on both games: legal choices, what it searches, fixed-
iteration reproducibility, rewards, candidates, a constructed Agricola position where one move is
clearly best, and whole games through the referee."""

from __future__ import annotations

import importlib.util
import random
import re
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from arena.engine import Game, State, get_game
from arena.engine.testing import DiceRaceGame

FOLDER = Path(__file__).resolve().parent.parent / "bots" / "examples" / "mcts-py"
GAMES = ["stoneage", "agricola"]


def load_search() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mcts_search", FOLDER / "search.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mcts_search"] = module
    spec.loader.exec_module(module)
    return module


search = load_search()


def _setup(name: str) -> tuple[Game, dict[str, Any], Any]:
    game = get_game(name)
    components = game.components()
    return game, components, search.guide_for(game, components)


def _to_place(state: State, guide: Any, seat: int | None = None, progress: int = 0) -> dict:
    """Play the policy until ``seat`` (anyone, if None) must place, from round ``progress``."""
    while True:
        player = state.current_player
        assert player is not None
        obs = state.observation(player)
        if (obs["decision"]["kind"] == "place" and state.num_legal() > 2
                and (seat is None or player == seat) and obs["round"] >= progress):
            return obs
        state.apply_index(guide.move(state))


def test_the_search_core_knows_no_game() -> None:
    """search.py imports only the engine contract and greedy-py's policies; game names appear
    only as keys of its tuning table."""
    source = (FOLDER / "search.py").read_text()
    imports = [line for line in source.splitlines() if re.match(r"\s*(from|import) ", line)]
    arena = [line for line in imports if "arena" in line]
    assert arena == ["from arena.engine import Game, State"]
    assert "import policies" in imports
    body = source.split("TUNING = {")[1].split("}", 1)[1]
    assert "stoneage" not in body and "agricola" not in body


@pytest.mark.parametrize("name", GAMES)
def test_the_search_picks_a_legal_action_and_searches_placements_only(name: str) -> None:
    game, components, guide = _setup(name)
    state = game.new_state(3, seed=4)
    rng = random.Random(1)
    searched = skipped = 0
    while not state.is_terminal and (searched < 5 or skipped < 8):
        seat = state.current_player
        assert seat is not None
        obs, legal = state.observation(seat), state.legal_actions()
        placing = obs["decision"]["kind"] == "place"
        if placing and searched >= 5:  # enough searches (they cost most): the policy plays on
            state.apply_index(guide.move(state))
            continue
        index, iterations = search.search(game, obs, legal, components, rng, 60.0, 6)
        assert type(index) is int and 0 <= index < len(legal)
        if placing:
            # Whole sweeps over the root candidates: at least the iterations asked.
            assert iterations >= 6
            searched += 1
        else:
            assert iterations == 0 and index == guide.move(state)
            skipped += 1
        state.apply_index(index)
    assert searched >= 5 and skipped >= 8


@pytest.mark.parametrize("name", GAMES)
def test_the_same_seed_and_iterations_give_the_same_choice(name: str) -> None:
    game, components, guide = _setup(name)
    state = game.new_state(2, seed=9)
    obs = _to_place(state, guide, progress=3)
    legal = state.legal_actions()
    first = search.search(game, obs, legal, components, random.Random(5), 60.0, 20)
    again = search.search(game, obs, legal, components, random.Random(5), 60.0, 20)
    assert first == again and first[1] >= 20


@pytest.mark.parametrize("name", GAMES)
def test_a_spent_budget_stops_the_search_after_one_sweep(name: str) -> None:
    """The search starts no sweep it expects to end after its budget: with none left, it plays
    each root candidate once and stops (without a clock in the test: no timing to flake)."""
    game, components, guide = _setup(name)
    state = game.new_state(4, seed=3)
    obs = _to_place(state, guide, progress=3)
    legal = state.legal_actions()
    order = guide.policy.preferences(obs, legal, components)
    root = search.candidates(legal, order, search.ROOT_CANDIDATES, guide.tuning.amount)
    assert len(root) >= 2
    index, iterations = search.search(game, obs, legal, components, random.Random(1), 0.0)
    assert iterations == len(root) and index in root


@pytest.mark.parametrize("shrink", [True, False])
def test_a_sweep_that_no_longer_fits_shrinks_to_the_best_candidates(
    shrink: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a clock that says the third sweep of five cannot be paid for but four rollouts can,
    the search plays a third sweep of four (the policy's choice and the three best others), or,
    without SHRINK, stops after two sweeps. A scripted clock: no timing to flake."""
    game, components, guide = _setup("agricola")
    state = game.new_state(2, seed=6)
    obs = _to_place(state, guide, progress=4)
    legal = state.legal_actions()
    order = guide.policy.preferences(obs, legal, components)
    assert len(search.candidates(legal, order, search.ROOT_CANDIDATES)) == 5
    # Start, after sweep 1 (0.1 s a rollout: 5 more fit), after sweep 2 (0.07 s a rollout: 4
    # fit in the 0.3 s left), after sweep 3 (nothing fits).
    clock = iter([0.0, 0.5, 0.7, 0.95])
    monkeypatch.setattr(search, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    monkeypatch.setattr(search, "SHRINK", shrink)
    _, iterations = search.search(game, obs, legal, components, random.Random(2), 1.0)
    assert iterations == (14 if shrink else 10)


@pytest.mark.parametrize("name", GAMES)
def test_rewards_are_in_range_and_favour_the_seat_ahead(name: str) -> None:
    game, _, _ = _setup(name)
    state = game.new_state(2, seed=2)
    rng = random.Random(2)
    while not state.is_terminal:
        state.apply_index(rng.randrange(state.num_legal()))
    scores = state.result().scores
    ahead = 0 if scores[0] > scores[1] else 1
    guide = search.guide_for(game, game.components())
    scale = search.TUNING[name].margin_scale
    assert 1.0 > search.reward(state, ahead, guide) > 0.5 > search.reward(state, 1 - ahead, guide)
    lead = abs(scores[0] - scores[1])
    assert search.reward(state, ahead, guide) == pytest.approx(1 / (1 + 2.718281828 ** (-lead
                                                                                        / scale)))


def test_stone_age_candidates_spread_over_places() -> None:
    """Stone Age placements differ in place and in people: at most PER_CHOICE candidates put
    people on the same place, and the policy's own choice comes first."""
    game, components, guide = _setup("stoneage")
    state = game.new_state(2, seed=11)
    seen = 0
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        obs, legal = state.observation(seat), state.legal_actions()
        if obs["decision"]["kind"] == "place" and len(legal) > 6:
            order = guide.policy.preferences(obs, legal, components)
            assert order[0] == guide.move(state) and sorted(order) == list(range(len(legal)))
            picked = search.candidates(legal, order, search.ROOT_CANDIDATES, "people")
            assert picked[0] == order[0] and len(picked) == search.ROOT_CANDIDATES
            places = [(legal[i]["place"], legal[i].get("slot"), legal[i].get("pile"))
                      for i in picked]
            assert max(places.count(p) for p in places) <= search.PER_CHOICE
            seen += 1
        state.apply_index(guide.move(state))
    assert seen > 10


def test_agricola_candidates_are_the_policy_favourites() -> None:
    """An Agricola placement names its space only: the candidates are the policy's first ones."""
    game, components, guide = _setup("agricola")
    assert guide.tuning.amount is None
    state = game.new_state(2, seed=11)
    obs = _to_place(state, guide)
    legal = state.legal_actions()
    order = guide.policy.preferences(obs, legal, components)
    assert sorted(order) == list(range(len(legal)))
    assert search.candidates(legal, order, 4, guide.tuning.amount) == order[:4]


def test_the_actions_the_guide_hands_the_policy_are_the_legal_actions() -> None:
    """The guide builds each key's action dict once; they must equal the state's own."""
    for name in GAMES:
        game, _, guide = _setup(name)
        state = game.new_state(3, seed=8)
        rng = random.Random(8)
        for _ in range(300):
            if state.is_terminal:
                break
            assert guide.actions(state) == state.legal_actions()
            state.apply_index(rng.randrange(state.num_legal()))


def _short_of_food() -> tuple[Game, dict[str, Any], State]:
    """Agricola, round 14, seat 0 to place the first of its people: neither family has goods
    left (so neither food, nor anything to cook or to turn into food) or crops for the last
    harvest, Fishing holds 8 food and every other space at most 1 good. Taking Fishing now
    saves about four begging markers, a dozen points; leaving it lets the other seat take it."""
    game, components, guide = _setup("agricola")
    state = game.new_state(2, seed=5)
    _to_place(state, guide, seat=0, progress=14)
    data = state.to_dict()
    for player in data["players"]:
        player["goods"] = dict.fromkeys(player["goods"], 0)
        player["farm"]["fields"] = [[cell, None, 0] for cell, _, _ in player["farm"]["fields"]]
    data["board"]["accumulated"] = [[space, good, 8 if space == FISHING else min(n, 1)]
                                    for space, good, n in data["board"]["accumulated"]]
    position = game.state_from_dict(data)
    me = position.observation(0)["players"][0]
    assert me["people_to_place"] == me["people"] >= 3
    return game, components, position


FISHING = 9  # the Fishing space's id (its index in the Agricola components' spaces)


def test_the_search_takes_the_food_that_saves_begging() -> None:
    game, components, position = _short_of_food()
    obs, legal = position.observation(0), position.legal_actions()
    index, _ = search.search(game, obs, legal, components, random.Random(3), 60.0, 20)
    assert legal[index] == {"type": "place", "space": FISHING}


def test_the_search_overrules_a_policy_that_ranks_the_best_move_second(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a policy whose favourite placement is a poor one and whose second is Fishing, the
    search still plays Fishing: it compares the candidates by playing them out."""
    game, components, position = _short_of_food()
    guide = search.guide_for(game, components)
    real = guide.policy

    def preferences(observation: dict, legal: list[dict], comps: dict) -> list[int]:
        order = real.preferences(observation, legal, comps)
        if observation["decision"]["kind"] != "place":
            return order
        fishing = next(i for i in order if legal[i]["space"] == FISHING)
        farmland = next(i for i in order if legal[i]["space"] == 3)  # plough: worth ~nothing
        rest = [i for i in order if i not in (fishing, farmland)]
        return [farmland, fishing, *rest]

    monkeypatch.setattr(guide, "policy", SimpleNamespace(choose=real.choose,
                                                         preferences=preferences))
    obs, legal = position.observation(0), position.legal_actions()
    index, iterations = search.search(game, obs, legal, components, random.Random(3), 60.0, 20)
    assert iterations >= 20
    assert legal[index] == {"type": "place", "space": FISHING}


def test_a_game_without_a_policy_is_refused_at_the_start(dicerace: DiceRaceGame) -> None:
    with pytest.raises(LookupError, match="greedy-py plays"):
        search.guide_for(dicerace, dicerace.components())


def _referee_replays(name: str, tmp_path: Path, iterations: int) -> None:
    """Through the referee, real processes and sockets: with ``--iterations`` the bot reseeds
    from each game's ``bot_seed``, so the same game seed gives the same game, move for move.
    The two games are played at once (each by its own referee and bot processes)."""
    from concurrent.futures import ThreadPoolExecutor
    from dataclasses import replace

    from arena.runner.game.manifest import BotManifest
    from arena.runner.game.record import verify
    from arena.runner.game.referee import play_game

    mcts = BotManifest.load(FOLDER)
    fixed = replace(mcts, command=("{python}", "bot.py", "--iterations", str(iterations)))
    greedy = BotManifest.load(FOLDER.parent / "greedy-py")
    game = get_game(name)
    with ThreadPoolExecutor(2) as pool:
        games = list(pool.map(
            lambda k: play_game(game, 77, [fixed, greedy], log_dir=tmp_path / str(k)), range(2)))
    for record in games:
        assert [t["reason"] for t in record.terminations] == ["ok", "ok"]
        assert all(d[3] == "bot" for d in record.decisions)
        assert verify(record).ok
    moves = [[(d[0], d[1]) for d in record.decisions] for record in games]
    assert moves[0] == moves[1] and len(moves[0]) > 50


@pytest.mark.slow
def test_the_bot_replays_its_agricola_game_exactly_with_fixed_iterations(tmp_path: Path) -> None:
    """The same replay as Stone Age's below (always run), through Agricola's engine."""
    _referee_replays("agricola", tmp_path, 2)


def test_the_bot_replays_its_stone_age_game_exactly_with_fixed_iterations(
    tmp_path: Path,
) -> None:
    _referee_replays("stoneage", tmp_path, 2)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_the_search_beats_the_greedy_policy_over_a_few_games(name: str) -> None:
    """A small in-process head-to-head at two players with seat rotation (bench.py measures it
    at length): with a fixed number of iterations the search's mean margin over greedy-py is
    positive."""
    game, components, guide = _setup(name)
    margins = []
    for g in range(8):
        seed, seat = 100 + g // 2, g % 2
        state = game.new_state(2, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            if state.current_player != seat:
                state.apply_index(guide.move(state))
                continue
            obs, legal = state.observation(seat), state.legal_actions()
            state.apply_index(search.search(game, obs, legal, components, rng, 60.0, 40)[0])
        scores = state.result().scores
        margins.append(scores[seat] - scores[1 - seat])
    assert sum(margins) > 0, margins
