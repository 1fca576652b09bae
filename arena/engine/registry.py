"""The registry of games, looked up by name.

Games are found two ways. An installed package declares its games as entry points in the
``arena.games`` group (``stoneage = "arena.engine.stoneage:STONE_AGE"``): the registry loads
one when it is first asked for by name, and all of them when asked for the list, so this
generic package never imports a particular game and a process that plays one game never
imports the others. Code may also :func:`register` a game itself (tests do, for games that are
not installed).
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

from arena.engine.api import Game

#: The entry point group in which installed packages declare their games.
ENTRY_POINT_GROUP = "arena.games"

_GAMES: dict[str, Game] = {}
_installed_loaded = False


class UnknownGameError(LookupError):
    """No game is registered under that name."""


class GamePluginError(UnknownGameError):
    """An installed game's entry point could not be loaded.

    A subclass of :class:`UnknownGameError`: whoever handles a missing game also handles one
    that is declared but broken. The message names the entry point and what went wrong.
    """


def _load(ep: EntryPoint) -> Game:
    where = f"game entry point {ep.name!r} ({ep.value}) in group {ENTRY_POINT_GROUP!r}"
    try:
        game = ep.load()
    except Exception as exc:  # any failure of a third-party import is reported the same way
        raise GamePluginError(f"{where} failed to load: {type(exc).__name__}: {exc}") from exc
    if not isinstance(game, Game):
        raise GamePluginError(f"{where} is a {type(game).__name__}, not an arena Game")
    if game.name != ep.name:
        raise GamePluginError(f"{where} gives a game named {game.name!r}; the names must match")
    return game


def _load_installed() -> None:
    """Register every installed game once. On a broken entry point, raise GamePluginError
    and try again on the next call (so the error is not silently forgotten)."""
    global _installed_loaded
    if _installed_loaded:
        return
    found = [_load(ep) for ep in entry_points(group=ENTRY_POINT_GROUP)]
    _installed_loaded = True
    for game in found:
        _add(game)


def _add(game: Game) -> Game:
    if not isinstance(game, Game):
        raise TypeError(f"only a Game can be registered, not a {type(game).__name__}")
    if game.name in _GAMES and _GAMES[game.name] is not game:
        raise ValueError(f"a game named {game.name!r} is already registered")
    _GAMES[game.name] = game
    return game


def register(game: Game) -> Game:
    """Register ``game`` under ``game.name`` and return it.

    Registering the same object twice is harmless; a different game under a taken name (an
    installed one included) raises ``ValueError``. Raises GamePluginError if an installed game
    cannot be loaded.
    """
    _load_installed()
    return _add(game)


def unregister(game: Game) -> None:
    """Remove ``game`` if it is the one registered under its name (for tests that register a
    game for their own duration); anything else is left alone."""
    if _GAMES.get(game.name) is game:
        del _GAMES[game.name]


def get_game(name: str) -> Game:
    """The game registered as ``name``.

    Raises UnknownGameError naming the known games, or GamePluginError naming an installed
    game's entry point that cannot be loaded.
    """
    game = _GAMES.get(name)
    if game is not None:
        return game
    if not _installed_loaded:
        point = next((ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name),
                     None)
        if point is not None:
            return _add(_load(point))
        _load_installed()  # a broken plugin is named before the game is called unknown
    known = ", ".join(sorted(_GAMES)) or "none"
    raise UnknownGameError(f"unknown game {name!r}; registered games: {known}")


def list_games() -> list[Game]:
    """All registered games (installed ones included), sorted by name.

    Raises GamePluginError naming an installed game's entry point that cannot be loaded.
    """
    _load_installed()
    return [_GAMES[n] for n in sorted(_GAMES)]
