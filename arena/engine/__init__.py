"""Rules engines behind one game-agnostic contract (see :mod:`arena.engine.api`).

This package knows no particular game: each game lives in its own package and is found
through the registry (installed games declare an ``arena.games`` entry point).
"""

from arena.engine.api import Game, GameResult, IllegalActionError, OptionSpec, State
from arena.engine.chance import Chance, ScriptedChance, SeededChance, chance_from_dict
from arena.engine.registry import (
    GamePluginError,
    UnknownGameError,
    get_game,
    list_games,
    register,
    unregister,
)

__all__ = [
    "Chance",
    "Game",
    "GamePluginError",
    "GameResult",
    "IllegalActionError",
    "OptionSpec",
    "ScriptedChance",
    "SeededChance",
    "State",
    "UnknownGameError",
    "chance_from_dict",
    "get_game",
    "list_games",
    "register",
    "unregister",
]
