"""The engine's testing kit: the conformance checks every game must pass
(:mod:`arena.engine.testing.conformance`) and a tiny second game, Dice Race
(:mod:`arena.engine.testing.dicerace`), on which generic code is tested beside Stone Age."""

from arena.engine.testing.conformance import (
    PLAIN_SCALARS,
    ConformanceError,
    check_clone_and_serialization,
    check_determinism,
    check_determinization,
    check_game,
    check_observations,
    check_options,
    check_playouts,
    check_result,
    check_shared_actions,
    plain_data_problem,
    random_playout,
    replay,
)
from arena.engine.testing.dicerace import DICE_RACE, DiceRaceGame, DiceRaceState

__all__ = [
    "DICE_RACE",
    "PLAIN_SCALARS",
    "ConformanceError",
    "DiceRaceGame",
    "DiceRaceState",
    "check_clone_and_serialization",
    "check_determinism",
    "check_determinization",
    "check_game",
    "check_observations",
    "check_options",
    "check_playouts",
    "check_result",
    "check_shared_actions",
    "plain_data_problem",
    "random_playout",
    "replay",
]
