"""The game-agnostic engine contract: registry, factory, illegal actions, ranks."""

from __future__ import annotations

import pytest

from arena.engine import (
    IllegalActionError,
    ScriptedChance,
    UnknownGameError,
    get_game,
    list_games,
    register,
)
from arena.engine.api import competition_ranks
from arena.engine.stoneage import STONE_AGE


def test_registry_finds_stone_age_by_name_and_lists_every_installed_game() -> None:
    assert get_game("stoneage") is STONE_AGE
    assert [g.name for g in list_games()] == ["agricola", "stoneage"]


def test_unknown_game_error_names_the_registered_games() -> None:
    with pytest.raises(UnknownGameError, match="stoneage"):
        get_game("chess")


def test_registering_a_different_game_under_a_taken_name_is_refused() -> None:
    class Impostor(type(STONE_AGE)):  # type: ignore[misc]
        pass

    with pytest.raises(ValueError, match="already registered"):
        register(Impostor())


def test_registering_the_same_game_twice_is_harmless() -> None:
    assert register(STONE_AGE) is STONE_AGE


@pytest.mark.parametrize("players", [0, 1, 5, "4", 2.0])
def test_new_state_refuses_a_player_count_outside_the_game_range(players: object) -> None:
    with pytest.raises(ValueError, match="2-4 players"):
        STONE_AGE.new_state(players, seed=1)  # type: ignore[arg-type]


def test_new_state_needs_exactly_one_of_seed_and_chance() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        STONE_AGE.new_state(2)
    with pytest.raises(ValueError, match="exactly one"):
        STONE_AGE.new_state(2, seed=1, chance=ScriptedChance())


def test_an_action_that_was_not_offered_raises_and_leaves_the_state_unchanged() -> None:
    state = STONE_AGE.new_state(3, seed=5)
    before = state.to_dict()
    for bad in (
        {"type": "place", "place": "hunting", "people": 6},  # more people than the seat has
        {"type": "place", "place": "moon", "people": 1},
        {"type": "resolve", "place": "hunting"},  # not the phase for it
        {"place": "hunting", "people": 1},
        {},
    ):
        with pytest.raises(IllegalActionError):
            state.apply(bad)
    for bad_index in (-1, state.num_legal(), 1.0, "0", None):
        with pytest.raises(IllegalActionError):
            state.apply_index(bad_index)  # type: ignore[arg-type]
    assert state.to_dict() == before


def test_legal_keys_and_legal_actions_correspond_one_to_one() -> None:
    state = STONE_AGE.new_state(4, seed=9)
    keys = state.legal_keys()
    actions = state.legal_actions()
    assert len(keys) == len(actions) == len(set(keys))
    assert [state.action_of(k) for k in keys] == actions
    assert state.index_of(actions[-1]) == len(actions) - 1


def test_applying_by_dict_and_by_index_reach_the_same_state() -> None:
    a = STONE_AGE.new_state(2, seed=3)
    b = STONE_AGE.new_state(2, seed=3)
    for _ in range(40):
        i = a.num_legal() // 2
        a.apply(a.legal_actions()[i])
        b.apply_index(i)
    assert a.to_dict() == b.to_dict()


def test_a_finished_game_has_no_player_to_act_and_refuses_actions() -> None:
    from arena.runner.game.referee import play_random_game

    state = play_random_game(STONE_AGE, 2, 11)
    assert state.is_terminal and state.current_player is None
    assert state.legal_actions() == [] and state.num_legal() == 0
    with pytest.raises(IllegalActionError, match="over"):
        state.apply({"type": "decline"})


def test_result_before_the_end_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="not over"):
        STONE_AGE.new_state(2, seed=1).result()


def test_competition_ranks_share_ties_and_skip_the_next_rank() -> None:
    assert competition_ranks([(10, 1), (12, 0), (10, 1), (3, 9)]) == (2, 1, 2, 4)
    assert competition_ranks([5, 5, 5]) == (1, 1, 1)


def test_game_description_is_plain_data_with_a_rules_version() -> None:
    d = STONE_AGE.describe()
    assert d == {
        "name": "stoneage",
        "title": "Stone Age (base game)",
        "rules_version": STONE_AGE.rules_version,
        "min_players": 2,
        "max_players": 4,
    }
    assert STONE_AGE.rules_version.startswith("stoneage-")


def test_state_from_dict_refuses_another_rules_version_or_a_broken_save() -> None:
    d = STONE_AGE.new_state(2, seed=1).to_dict()
    with pytest.raises(ValueError, match="rules"):
        STONE_AGE.state_from_dict({**d, "rules_version": "stoneage-0.0"})
    with pytest.raises(ValueError, match="not a stoneage state"):
        STONE_AGE.state_from_dict({**d, "game": "chess"})
    broken = dict(d)
    del broken["goods"]
    with pytest.raises(ValueError, match="malformed"):
        STONE_AGE.state_from_dict(broken)


def test_progress_is_stone_ages_round_at_every_step() -> None:
    state = STONE_AGE.new_state(3, seed=21)
    seen = []
    while not state.is_terminal:
        assert state.progress == state.round
        seen.append(state.progress)
        state.apply_index(state.num_legal() - 1)
    assert state.progress == state.round == seen[-1] > 1
    assert seen == sorted(seen)


def test_progress_defaults_to_none_for_a_game_without_a_count() -> None:
    from arena.engine.api import State

    assert State.progress.fget(STONE_AGE.new_state(2, seed=1)) is None  # type: ignore[attr-defined]


def test_stone_age_and_its_states_pickle_for_worker_processes() -> None:
    import pickle

    game = pickle.loads(pickle.dumps(STONE_AGE))
    assert game.describe() == STONE_AGE.describe()
    state = STONE_AGE.new_state(3, seed=4)
    for _ in range(30):
        state.apply_index(0)
    copy = pickle.loads(pickle.dumps(state))
    assert copy.to_dict() == state.to_dict()
    assert game.new_state(3, seed=4).to_dict() == STONE_AGE.new_state(3, seed=4).to_dict()
