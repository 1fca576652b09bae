"""Rules engines behind one game-agnostic contract (see :mod:`arena.engine.api`)."""

from arena.engine.api import Game, GameResult, IllegalActionError, State
from arena.engine.chance import Chance, ScriptedChance, SeededChance, chance_from_dict
from arena.engine.registry import UnknownGameError, get_game, list_games, register
from arena.engine.stoneage import STONE_AGE

register(STONE_AGE)

__all__ = [
    "STONE_AGE",
    "Chance",
    "Game",
    "GameResult",
    "IllegalActionError",
    "ScriptedChance",
    "SeededChance",
    "State",
    "UnknownGameError",
    "chance_from_dict",
    "get_game",
    "list_games",
    "register",
]
