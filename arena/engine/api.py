"""The game-agnostic engine contract.

A :class:`Game` is a static description (name, rules version, player counts, maximum length)
and a factory of states. A :class:`State` is one position: it says who must act, lists the legal
actions, applies one, and reports the final result. The runner and the protocol only ever talk
to these two classes, so adding a game never touches them.

Actions are plain dicts (msgpack and JSON friendly) with a ``"type"`` key. Internally each game
may use a cheaper, hashable *key* per action; :meth:`State.legal_keys` exposes those keys for
search code that must recognise the same action across states, and :meth:`State.apply_index`
applies an action by its position in the legal list without building any dict.

A game may have *options* (a variant, a deck, a draft): named choices among string values, each
with a default, declared by :meth:`Game.options_schema`. A game of other options is the same game
played another way, not another game: :meth:`Game.new_state` takes them, validated, and the state
remembers them (:attr:`State.options`). Where options are stored or identify something (a saved
state, a record, a tournament), only the values that differ from the defaults are written
(:meth:`Game.canonical_options`), so a game played with its defaults is written as it always was.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine.chance import Chance, SeededChance


class IllegalActionError(ValueError):
    """An action that the state did not offer. The state is left unchanged."""


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game: the string ``values`` it may take, its ``default`` (one of them)
    and a line saying what it changes."""

    values: tuple[str, ...]
    default: str
    description: str = ""

    def __post_init__(self) -> None:
        if not self.values or not all(isinstance(v, str) and v for v in self.values):
            raise ValueError("an option's values are non-empty strings, at least one")
        if self.default not in self.values:
            raise ValueError(f"an option's default {self.default!r} must be one of its values")


def option_text(value: Any) -> str:
    """An option's value as the string it stands for: a string as it is, a whole number in
    decimal, a boolean as ``true`` or ``false`` (as TOML writes them). ValueError otherwise."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    raise ValueError(f"an option's value is a string, not {type(value).__name__} {value!r}")


@dataclass(frozen=True)
class GameResult:
    """The outcome of a finished game.

    ``scores[s]``, ``ranks[s]`` and ``breakdown[s]`` describe seat ``s``. Rank 1 is best; seats
    that stay equal after the game's own tie-break share a rank, and the next rank skips (1, 1,
    3). The values of ``breakdown[s]`` add up to ``scores[s]``.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    breakdown: tuple[dict[str, int], ...]
    tiebreak: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "breakdown": [dict(b) for b in self.breakdown],
            "tiebreak": list(self.tiebreak),
        }


def competition_ranks(keys: Sequence[Any]) -> tuple[int, ...]:
    """Rank seats by ``keys`` (higher is better): 1 + the number of strictly better seats."""
    return tuple(1 + sum(1 for other in keys if other > k) for k in keys)


class State(ABC):
    """One position of a game.

    Invariants every game keeps: ``current_player`` is a seat in ``range(num_players)`` or
    ``None`` exactly when the game is over; a non-terminal state offers at least one legal
    action; applying an action that was not offered raises :class:`IllegalActionError` and
    changes nothing.

    A game's state class sets ``_game`` and ``_n`` (its game and number of seats) when it
    creates a state; the base class answers :attr:`game` and :attr:`num_players` from them.
    """

    __slots__ = ("_game", "_game_options", "_n")

    _game: Game
    _n: int
    _game_options: dict[str, str]  #: set by Game.new_state; a game with options keeps it on copies

    @property
    def game(self) -> Game:
        """The game this state belongs to."""
        return self._game

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self._n

    @property
    def options(self) -> dict[str, str]:
        """The game's options this state is played with, complete (defaults filled in, keys
        sorted), as a new dict; ``{}`` for a game without options."""
        return dict(getattr(self, "_game_options", {}))

    @property
    @abstractmethod
    def current_player(self) -> int | None:
        """The seat that must act now, or ``None`` when the game is over."""

    @property
    def is_terminal(self) -> bool:
        """True when the game is over."""
        return self.current_player is None

    @property
    def progress(self) -> int | None:
        """How far the game got, in the game's own count (rounds played, for a game played in
        rounds), or ``None`` for a game that has no such count.

        For records and reports only: it never decides anything. When it is an int it never
        decreases as actions are applied.
        """
        return None

    def scores_so_far(self) -> tuple[int, ...] | None:
        """Each seat's score as the game stands (what its scoring would give if it ended now,
        or its score track), for records and reports only; None for a game without one."""
        return None

    def breakdown_so_far(self) -> tuple[dict[str, int], ...] | None:
        """Each seat's score by source as the game stands (what its scoring would give if it
        ended now), for records and reports only; None for a game without one."""
        return None

    @abstractmethod
    def legal_keys(self) -> Sequence[Hashable]:
        """Hashable keys of the legal actions, in the same order as :meth:`legal_actions`.

        Equal keys mean equal actions, in this state and in any other state of the game. The
        returned sequence belongs to the state: do not modify it.
        """

    @abstractmethod
    def action_of(self, key: Hashable) -> dict[str, Any]:
        """The plain-dict action for one of this game's action keys (a new dict every call)."""

    @abstractmethod
    def _apply_key(self, key: Hashable) -> None:
        """Apply a legal action given by its key (already validated)."""

    def legal_actions(self) -> list[dict[str, Any]]:
        """The legal actions as new plain dicts; empty when the game is over."""
        return [self.action_of(k) for k in self.legal_keys()]

    def num_legal(self) -> int:
        """How many legal actions there are (0 when the game is over)."""
        return len(self.legal_keys())

    def apply_index(self, index: int) -> None:
        """Apply the ``index``-th legal action.

        Raises :class:`IllegalActionError` if the index is not an int in range.
        """
        keys = self.legal_keys()
        if type(index) is not int or not 0 <= index < len(keys):
            raise IllegalActionError(
                f"action index {index!r} is out of range: {len(keys)} legal actions"
            )
        self._apply_key(keys[index])

    def apply_key(self, key: Hashable) -> None:
        """Apply the legal action whose key is ``key`` (one of :meth:`legal_keys`), the way
        search code that keys its tree by action applies a move. IllegalActionError (and no
        change) for any other key."""
        if key not in self.legal_keys():
            raise IllegalActionError(f"{key!r} is not the key of a legal action now")
        self._apply_key(key)

    def apply(self, action: Mapping[str, Any]) -> None:
        """Apply an action given as a dict equal to one of :meth:`legal_actions`.

        Raises :class:`IllegalActionError` (and leaves the state unchanged) otherwise.
        """
        for key in self.legal_keys():
            if self.action_of(key) == action:
                self._apply_key(key)
                return
        if self.is_terminal:
            raise IllegalActionError(f"the game is over; {action!r} cannot be applied")
        raise IllegalActionError(
            f"{action!r} is not a legal action for seat {self.current_player} now"
        )

    def index_of(self, action: Mapping[str, Any]) -> int:
        """Position of ``action`` in :meth:`legal_actions`; IllegalActionError if absent."""
        for i, key in enumerate(self.legal_keys()):
            if self.action_of(key) == action:
                return i
        raise IllegalActionError(f"{action!r} is not a legal action now")

    @abstractmethod
    def result(self) -> GameResult:
        """The final result. Raises ``RuntimeError`` if the game is not over."""

    @abstractmethod
    def observation(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know now and nothing more, as plain data."""

    @abstractmethod
    def clone(self) -> State:
        """An independent copy: applying actions to one never affects the other."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The complete state as plain data; ``game.state_from_dict`` rebuilds it exactly."""


class Game(ABC):
    """A game's static description and its state factory."""

    name: str
    title: str
    rules_version: str
    min_players: int
    max_players: int
    #: True promises that a key names the same action in every game of this one with the same
    #: rules version and options, whatever the seats and the seed (the action is a function of
    #: the key alone): an action's encoding made in one game then serves every other, and a
    #: referee keeps the encodings across the games of its process. False (the default)
    #: promises it within one game only (:meth:`State.legal_keys`), as a game whose keys name
    #: the cards of its own deal must. The conformance kit checks the promise.
    actions_shared_across_games: bool = False

    @abstractmethod
    def max_decisions(self, num_players: int) -> int:
        """An upper bound on the decisions (legal-action choices) of any game."""

    @abstractmethod
    def _new_state(self, num_players: int, chance: Chance, options: dict[str, str]) -> State:
        """Create the initial state (arguments already validated; ``options`` complete, as
        :meth:`validate_options` gives them)."""

    def options_schema(self) -> Mapping[str, OptionSpec]:
        """The game's options by name; empty (the default) for a game without options."""
        return {}

    def validate_options(self, raw: Mapping[str, Any] | None) -> dict[str, str]:
        """The complete options of a game: ``raw``'s, each checked against
        :meth:`options_schema`, with the defaults of the others, keys sorted. A value may be
        written as a whole number or a boolean (see :func:`option_text`). ValueError naming
        the option and what it allows for an unknown name or a value it does not take."""
        schema = self.options_schema()
        given = dict(raw or {})
        unknown = sorted(str(k) for k in given if k not in schema)
        if unknown:
            known = (f"its options are {', '.join(sorted(schema))}" if schema
                     else "it has no options")
            raise ValueError(f"{self.name} has no option {unknown[0]!r}: {known}")
        options = {}
        for name in sorted(schema):
            spec = schema[name]
            if name not in given:
                options[name] = spec.default
                continue
            try:
                value = option_text(given[name])
            except ValueError:
                value = None
            if value not in spec.values:
                raise ValueError(f"{self.name} option {name!r} must be one of "
                                 f"{', '.join(spec.values)}, got {given[name]!r}")
            options[name] = value
        return options

    def canonical_options(self, raw: Mapping[str, Any] | None) -> dict[str, str]:
        """``raw``'s options validated (:meth:`validate_options`), keeping only the values
        that differ from the defaults: what a saved state, a record or a tournament's identity
        holds, so that a game played with its defaults is written as before options existed."""
        schema = self.options_schema()
        return {k: v for k, v in self.validate_options(raw).items() if v != schema[k].default}

    @abstractmethod
    def state_from_dict(self, data: Mapping[str, Any]) -> State:
        """Rebuild a state from :meth:`State.to_dict` output; ValueError if it is malformed."""

    def new_state(
        self, num_players: int, seed: int | None = None, chance: Chance | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> State:
        """A new game for ``num_players`` seats, from a seed or an injected chance source,
        with ``options`` (None: the defaults; see :meth:`validate_options`).

        Exactly one of ``seed`` and ``chance`` must be given. Raises ``ValueError`` for a player
        count outside ``min_players..max_players`` or options the game does not take.
        """
        if type(num_players) is not int or not (
            self.min_players <= num_players <= self.max_players
        ):
            raise ValueError(
                f"{self.name} is for {self.min_players}-{self.max_players} players, "
                f"not {num_players!r}"
            )
        if (seed is None) == (chance is None):
            raise ValueError("give exactly one of seed and chance")
        if chance is None:
            assert seed is not None
            chance = SeededChance(seed)
        valid = self.validate_options(options)
        state = self._new_state(num_players, chance, valid)
        state._game_options = valid
        return state

    def determinize(self, observation: Mapping[str, Any], rng: random.Random) -> State:
        """A full state consistent with ``observation`` (what one seat knows), its hidden parts
        sampled uniformly from what that seat has not seen, using the caller's seeded ``rng``;
        future chance comes from a new seed drawn from ``rng``. Everything the observation
        shows holds in the result: ``result.observation(seat) == observation``.

        Raises ``NotImplementedError`` for a game without this support, ``ValueError`` for an
        observation that is not one of this game's.
        """
        raise NotImplementedError(f"{self.name} cannot build a state from an observation")

    def components(self, options: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Static data of the game played with ``options`` (None: the defaults; the referee
        passes the validated options of the game it runs) that observations refer to by id, as
        plain data.

        Sent to bots once at the start of a game (``game_start.components``). Empty unless the
        game has such tables; a game whose tables do not depend on its options ignores them.
        ValueError for options the game does not take (:meth:`validate_options`).
        """
        self.validate_options(options)
        return {}

    def draw(self, position: Mapping[str, Any], seat: int | None) -> str | None:
        """A picture of a position as SVG text, for the replay page; None (the default) for a
        game that does not draw itself, whose positions the page shows as a tree of data.

        ``position`` is what one viewer saw: seat ``seat``'s observation
        (:meth:`State.observation`) or, for ``seat`` None, the referee's, the saved state
        (:meth:`State.to_dict`); so a seat's picture can show nothing that seat did not see.
        Pure: no I/O, and the same position gives the same text. Text from the position goes
        through XML escaping, and the picture is one ``<svg>`` element whose children are
        groups that each draw one part of the board (the page stores a part once however many
        steps show it, so a part that does not change costs nothing). A game that implements
        :meth:`draw_parts` gets this from it."""
        parts = self.draw_parts(position, seat)
        return None if parts is None else "".join(parts)

    def draw_parts(self, position: Mapping[str, Any], seat: int | None) -> list[str] | None:
        """:meth:`draw`'s picture as the pieces the page stores it by, which join to the SVG
        text: the ``<svg>`` opening tag, each top-level child, and the closing tag. None (the
        default): the page cuts :meth:`draw`'s text at its top-level elements itself, which
        costs more than a game that built the pieces handing them over."""
        return None

    def describe(self) -> dict[str, Any]:
        """The static description as plain data."""
        return {
            "name": self.name,
            "title": self.title,
            "rules_version": self.rules_version,
            "min_players": self.min_players,
            "max_players": self.max_players,
        }

    def describe_options(self) -> dict[str, dict[str, Any]]:
        """The game's options as plain data: for each, its values, default and description."""
        return {name: {"values": list(spec.values), "default": spec.default,
                       "description": spec.description}
                for name, spec in sorted(self.options_schema().items())}
