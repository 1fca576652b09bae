"""The registry of games, looked up by name."""

from __future__ import annotations

from arena.engine.api import Game

_GAMES: dict[str, Game] = {}


class UnknownGameError(LookupError):
    """No game is registered under that name."""


def register(game: Game) -> Game:
    """Register ``game`` under ``game.name``; a second game with the same name is an error."""
    if game.name in _GAMES and _GAMES[game.name] is not game:
        raise ValueError(f"a game named {game.name!r} is already registered")
    _GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    """The game registered as ``name``; UnknownGameError names the known games otherwise."""
    try:
        return _GAMES[name]
    except KeyError:
        known = ", ".join(sorted(_GAMES)) or "none"
        raise UnknownGameError(f"unknown game {name!r}; registered games: {known}") from None


def list_games() -> list[Game]:
    """All registered games, sorted by name."""
    return [_GAMES[n] for n in sorted(_GAMES)]
