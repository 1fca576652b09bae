"""Every registered game passes the conformance kit, and the kit does catch a broken game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from arena.engine import Game, get_game, list_games
from arena.engine.stoneage import STONE_AGE, StoneAgeGame, StoneAgeState
from arena.engine.testing import (
    DICE_RACE,
    ConformanceError,
    check_game,
    check_playouts,
    check_shared_actions,
    plain_data_problem,
)

# Every installed game, and the kit's own test game, which tests register by name.
GAMES = sorted({g.name for g in list_games()} | {DICE_RACE.name})


@pytest.mark.parametrize("name", GAMES)
def test_every_registered_game_passes_the_conformance_kit(name: str, dicerace: Game) -> None:
    check_game(get_game(name), seeds=range(4))


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_every_registered_game_passes_the_conformance_kit_on_many_seeds(
    name: str, dicerace: Game
) -> None:
    check_game(get_game(name), seeds=range(100, 160))


def test_the_conformance_runs_cover_stone_age_and_the_test_game() -> None:
    assert {"stoneage", "dicerace"} <= set(GAMES)


class _LeakyState(StoneAgeState):
    """A broken game: its observation leaks a tuple (not plain data)."""

    __slots__ = ()

    def observation(self, seat: int) -> dict[str, Any]:
        obs = super().observation(seat)
        obs["leak"] = (1, 2)
        return obs

    def clone(self) -> StoneAgeState:
        c = super().clone()
        c.__class__ = _LeakyState
        return c


class _LeakyGame(StoneAgeGame):
    name = "leaky"

    def _new_state(self, num_players: int, chance: Any,
                   options: dict[str, str]) -> StoneAgeState:
        s = StoneAgeState.new(self, num_players, chance)  # type: ignore[arg-type]
        s.__class__ = _LeakyState
        return s


class _StuckGame(StoneAgeGame):
    name = "stuck"

    def max_decisions(self, num_players: int) -> int:
        return 10  # far shorter than any real game: the kit must notice


def _stamping(name: str, stamp: Callable[[StoneAgeState], dict[str, Any]]) -> StoneAgeGame:
    """Stone Age under another name, each of whose actions also carries ``stamp(state)``."""

    class Stamped(StoneAgeState):
        __slots__ = ()

        def action_of(self, key: Any) -> dict[str, Any]:
            return {**super().action_of(key), **stamp(self)}

        def legal_actions(self) -> list[dict[str, Any]]:
            return [self.action_of(k) for k in self.legal_keys()]

        def clone(self) -> StoneAgeState:
            c = super().clone()
            c.__class__ = Stamped
            return c

    class Stamping(StoneAgeGame):
        def _new_state(self, num_players: int, chance: Any,
                       options: dict[str, str]) -> StoneAgeState:
            s = StoneAgeState.new(self, num_players, chance)  # type: ignore[arg-type]
            s.__class__ = Stamped
            return s

    game = Stamping()
    game.name = name
    return game


def _renaming_game() -> StoneAgeGame:
    """A broken game: the same key names a different action from one round to the next (its
    actions carry the round), which would make a referee send stale encodings."""
    return _stamping("renaming", lambda s: {"round": s._round})


def test_the_kit_rejects_keys_that_name_different_actions_in_different_states() -> None:
    with pytest.raises(ConformanceError, match="equal keys must mean equal actions"):
        check_game(_renaming_game(), seeds=[0])


def _seat_counting_game() -> StoneAgeGame:
    """A game that breaks its promise: its actions carry the player count, so a key names the
    same action throughout a game, and in every game of as many players, but not in a game of
    another count."""
    return _stamping("seatcounting", lambda s: {"players": s._n})


def test_the_kit_holds_a_game_to_its_promise_of_the_same_actions_in_every_game() -> None:
    """Consistent within each game and each player count, it fails only the promise; made
    without the promise, it is not held to it."""
    game = _seat_counting_game()
    for players in (2, 3, 4):
        check_playouts(game, players, [0, 1])
    with pytest.raises(ConformanceError, match="actions_shared_across_games"):
        check_shared_actions(game, [0])
    game.actions_shared_across_games = False
    check_shared_actions(game, [0])


def test_the_kit_rejects_observations_that_are_not_plain_data() -> None:
    with pytest.raises(ConformanceError, match="observation"):
        check_game(_LeakyGame(), seeds=[0])


def test_the_kit_rejects_games_longer_than_their_declared_maximum() -> None:
    with pytest.raises(ConformanceError, match="declared maximum"):
        check_game(_StuckGame(), seeds=[0])


def test_plain_data_problem_names_the_offending_path() -> None:
    assert plain_data_problem({"a": [1, "x", None, True, 2.5]}) is None
    assert plain_data_problem({"a": [1, (2,)]}) == "$.a[1] is a tuple"
    assert plain_data_problem({1: 2}) == "$ has a non-string key 1"


def test_stone_age_declares_a_maximum_length_for_each_player_count() -> None:
    assert [STONE_AGE.max_decisions(n) > 1000 for n in (2, 3, 4)] == [True] * 3
