"""Reading a settings file (a tournament's, a league's): its fields with messages that name the
file and the field, and the command line's overrides, put into the file's data before any of
it is validated.

The game is ``game = "NAME"``, or a table with its options (values as strings; a whole number
or a boolean stands for its text, ``3`` for ``"3"``)::

    [game]
    name = "dicerace"
    options = { hand = "3" }
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.engine import Game, UnknownGameError, get_game
from arena.runner.game.clock import TimeControl


class ConfigError(ValueError):
    """A settings file that cannot be used; the message names the file and the field."""


#: Makes the error for a field: ``fail(field, problem)``.
Fail = Callable[[str, str], ConfigError]


@dataclass(frozen=True)
class Overrides:
    """The command line's changes to a settings file, each None (False) where not given.

    They are put into the file's data before it is validated (:meth:`applied_to`), so a value
    given here meets the same rule, with the same message, as the file's own, and nothing is
    built from the file's value first.
    """

    output: Path | None = None  #: relative to the current directory, not to the file
    seed: int | None = None
    max_games: int | None = None
    decision_ms: int | None = None
    bank_ms: int | None = None
    #: ``local``, or a Dask scheduler's address: the file's ``[executor]`` keeps its other
    #: fields (its ``security``) for an address, and is replaced by ``local``
    executor: str | None = None
    concurrency: int | None = None
    no_sandbox: bool = False  #: as ``sandbox = "none"``
    #: game options (``--option NAME=VALUE``), each put over the file's ``[game] options``
    options: tuple[tuple[str, str], ...] = ()

    def applied_to(self, data: dict[str, Any]) -> dict[str, Any]:
        """A copy of a file's top-level ``data`` with these changes made."""
        changed = dict(data)
        top = {"seed": self.seed, "max_games": self.max_games, "concurrency": self.concurrency,
               "output": None if self.output is None else str(self.output.resolve()),
               "sandbox": "none" if self.no_sandbox else None}
        changed.update({k: v for k, v in top.items() if v is not None})
        clock = {k: v for k, v in (("decision_ms", self.decision_ms), ("bank_ms", self.bank_ms))
                 if v is not None}
        if clock:
            changed["time_control"] = _merged(data.get("time_control", {}), clock)
        if self.executor == "local":
            changed["executor"] = {"kind": "local"}
        elif self.executor is not None:
            changed["executor"] = _merged(data.get("executor", {}),
                                          {"kind": "dask", "address": self.executor})
        if self.options:
            game = data.get("game")
            table = {"name": game} if isinstance(game, str) else game
            if isinstance(table, dict):  # anything else is left for the parser to name
                changed["game"] = {**table, "options": _merged(table.get("options", {}),
                                                               dict(self.options))}
        return changed


def _merged(table: Any, values: dict[str, Any]) -> Any:
    # A table that is not one is left for the parser to name.
    return {**table, **values} if isinstance(table, dict) else table


def parse_game(data: dict[str, Any], fail: Fail) -> tuple[Game, dict[str, str]]:
    """The game ``data["game"]`` names (a name, or a table of its ``name`` and ``options``),
    and its options, complete (Game.validate_options); ``fail(field, problem)`` makes the
    error, naming the option and the values it takes."""
    raw = data.get("game")
    table = {"name": raw} if isinstance(raw, str) else raw
    if not isinstance(table, dict):
        raise fail("game", "is required: a game's name, or a [game] table with its name and "
                           "options")
    unknown = sorted(set(table) - {"name", "options"})
    if unknown:
        raise fail("game", f"has unknown field(s): {', '.join(unknown)} (known: name, options)")
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail("game.name", "is required (a game's name)")
    try:
        game = get_game(name)
    except UnknownGameError as exc:
        raise fail("game", str(exc)) from None
    options = table.get("options", {})
    if not isinstance(options, dict):
        raise fail("game.options", "must be a table of option = \"value\"")
    try:
        return game, game.validate_options(options)
    except ValueError as exc:
        raise fail("game.options", str(exc)) from None


def field_failure(where: str) -> Fail:
    """The ``fail`` of a file: ``fail(field, problem)`` is the error "WHERE: 'field' problem"."""

    def fail(field: str, problem: str) -> ConfigError:
        return ConfigError(f"{where}: '{field}' {problem}")

    return fail


def refuse_unknown(data: dict[str, Any], known: set[str], where: str) -> None:
    """One error naming every field of ``data`` not in ``known`` (a typo, most often)."""
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown field(s): {', '.join(unknown)} "
                          f"(known: {', '.join(sorted(known))})")


def parse_time_control(raw: Any, fail: Fail) -> TimeControl:
    """The ``[time_control]`` table; ``fail(field, problem)`` makes the error."""
    if not isinstance(raw, dict):
        raise fail("time_control", "must be a table")
    try:
        return TimeControl.from_dict(raw)
    except (ValueError, TypeError) as exc:
        raise fail("time_control", str(exc)) from None


def whole_number(data: dict[str, Any], field: str, low: int | None, high: int | None,
                 default: int | None, fail: Fail) -> int:
    """The whole number ``data[field]`` (``default`` if absent; None: required) within
    low..high (None: no bound on that side, where a rule elsewhere sets it);
    ``fail(field, problem)`` makes the error."""
    value = data.get(field, default)
    if value is None:
        raise fail(field, "is required (a whole number)")
    if type(value) is not int:
        raise fail(field, f"must be a whole number, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise fail(field, f"must be {bound}, got {value}")
    return value


def flag(data: dict[str, Any], field: str, default: bool | None, fail: Fail) -> bool | None:
    """The true or false ``data[field]``, ``default`` if absent."""
    value = data.get(field, default)
    if value is not None and type(value) is not bool:
        raise fail(field, f"must be true or false, got {value!r}")
    return value


def text(data: dict[str, Any], field: str, default: str | None, fail: Fail) -> str:
    """The non-empty string ``data[field]``, ``default`` if absent (None: required)."""
    value = data.get(field, default)
    if value is None:
        raise fail(field, "is required (a string)")
    if not isinstance(value, str) or not value.strip():
        raise fail(field, "must be a non-empty string")
    return value


def choice(data: dict[str, Any], field: str, choices: tuple[str, ...], default: str,
           fail: Fail) -> str:
    """``data[field]``, one of ``choices`` (``default`` if absent)."""
    value = data.get(field, default)
    if value not in choices:
        raise fail(field, f"must be one of {', '.join(choices)}, got {value!r}")
    return str(value)


def beside(base: Path, path: str | Path) -> Path:
    """``path``, relative to ``base`` unless absolute, normalized (not resolved: the names a
    user wrote stay in messages)."""
    path = Path(path)
    return Path(os.path.normpath(path if path.is_absolute() else base / path))
