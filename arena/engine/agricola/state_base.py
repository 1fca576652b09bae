"""The base of an Agricola state: what it holds (its slots), the phases of a decision and
the action keys.

:class:`AgricolaStateBase` declares what a state holds and answers the simple questions about
it; the observation and saving (:mod:`~arena.engine.agricola.views`) and the flow of play
(:mod:`~arena.engine.agricola.state`) build on it.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, Final

from arena.engine.agricola.board import Board
from arena.engine.agricola.components import (
    BOAR,
    CATTLE,
    CLAY,
    GRAIN,
    REED,
    SHEEP,
    STONE,
    VEGETABLE,
    WOOD,
)
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.parts import (
    Holding,
)
from arena.engine.agricola.scoring import ScoreInput, score_breakdown
from arena.engine.api import State

#: The phases of a decision (card mode's app draft comes before round 1: ``DRAFT``).
PLACE, ACT, FEED, BREED, OVER, DRAFT = range(6)
PHASE_NAMES: Final = ("place", "action", "feed", "breed", "over", "draft")


_STOP: Final = {"type": "stop"}
#: Makes a named tuple from a tuple of its fields (its constructor's work without the call
#: through keywords; the holding is made at every decision).
_tuple_new: Final = tuple.__new__
Key = tuple[Any, ...]


def freeze(action: Mapping[str, Any]) -> Key:
    """The hashable key of a plain-dict action: its (name, value) pairs in order, lists as
    tuples. :func:`thaw` gives the dict back."""
    items = tuple(action.items())
    for _, v in items:
        if type(v) is list:
            return tuple((k, _freeze(v)) for k, v in items)
    return items


def _freeze(v: Any) -> Any:
    return tuple(_freeze(x) for x in v) if isinstance(v, list) else v


def thaw(key: Key) -> dict[str, Any]:
    """The plain-dict action of a key made by :func:`freeze` (a new dict every call)."""
    return {k: _thaw(v) for k, v in key}


def _thaw(v: Any) -> Any:
    return [_thaw(x) for x in v] if isinstance(v, tuple) else v


STOP_KEY: Final = freeze(_STOP)


class AgricolaStateBase(State):
    """What an Agricola position holds (the state class is
    :class:`~arena.engine.agricola.state.AgricolaState`).

    Per seat: ``_goods`` (10-tuples in the goods numbering), ``_farms``, ``_majors`` (sorted
    ids), ``_people`` (the whole family), ``_newborns`` (born this round), ``_home`` (people
    still to place this round), ``_begging`` (markers). The turn: ``_phase``, ``_cur``,
    ``_round_start`` (the starting player when the round began: the work phase's order),
    and inside a space's action ``_space``, ``_part`` (the part being carried out, -1 before
    the first), ``_started`` (mask of parts begun), ``_done`` (sub-actions of the current
    part), ``_acted``, ``_fence_from`` (the first space of a pasture being chosen, -1),
    ``_free_bake`` (an oven's Bake Bread is offered) and ``_keep`` (animals do not fit: what
    to keep is asked). ``_moves`` and ``_pays`` are the current decision's keys and what
    each needs to be carried out; both lists are replaced, never changed in place.
    """

    __slots__ = (
        "_acted", "_begging", "_board", "_cur", "_done", "_farms", "_fence_from", "_free_bake",
        "_goods", "_home", "_keep", "_majors", "_moves", "_newborns", "_part", "_pays",
        "_people", "_phase", "_round_start", "_space", "_started",
    )

    _board: Board
    _goods: list[tuple[int, ...]]
    _farms: list[Farm]
    _majors: list[tuple[int, ...]]
    _people: list[int]
    _newborns: list[int]
    _home: list[int]
    _begging: list[int]
    _phase: int
    _cur: int
    _round_start: int
    _space: int
    _part: int
    _started: int
    _done: int
    _acted: bool
    _fence_from: int
    _free_bake: bool
    _keep: bool
    _moves: list[Key]
    _pays: list[tuple[Any, ...]]

    # ------------------------------------------------------------------ construction
    def _clear_action(self) -> None:
        self._space = -1
        self._part = -1
        self._started = 0
        self._done = 0
        self._acted = False
        self._fence_from = -1
        self._free_bake = False
        self._keep = False

    # ------------------------------------------------------------------ State contract
    @property
    def current_player(self) -> int | None:
        return None if self._phase == OVER else self._cur

    @property
    def is_terminal(self) -> bool:
        return self._phase == OVER

    @property
    def round(self) -> int:
        """The current round (1..14); 14 once the game is over."""
        return self._board.round

    @property
    def progress(self) -> int:
        """The round, as :attr:`round` gives it."""
        return self._board.round

    @property
    def phase(self) -> str:
        """The kind of the decision now asked for (``"place"``, ``"action"``, ``"feed"``,
        ``"breed"``) or ``"over"``."""
        return PHASE_NAMES[self._phase]

    def legal_keys(self) -> list[Key]:
        return self._moves

    def action_of(self, key: Hashable) -> dict[str, Any]:
        return thaw(key)  # type: ignore[arg-type]

    def holding(self, seat: int) -> Holding:
        """What the parts of a space read of ``seat``."""
        return _tuple_new(Holding, (self._goods[seat], self._farms[seat], self._majors[seat],
                                    self._people[seat]))

    # ------------------------------------------------------------------ flow
    def scores_so_far(self) -> tuple[int, ...]:
        """What final scoring would give each seat if the game ended now."""
        return tuple(sum(self.breakdown(p).values()) for p in range(self._n))

    def breakdown(self, seat: int) -> dict[str, int]:
        """``seat``'s points by scoring category, as if the game ended now."""
        return score_breakdown(self.score_input(seat))

    def score_input(self, seat: int) -> ScoreInput:
        """``seat``'s counts for scoring, as if the game ended now."""
        g, f = self._goods[seat], self._farms[seat]
        return ScoreInput(
            fields=f.num_fields(), pastures=f.num_pastures(),
            grain=g[GRAIN] + f.grain_in_fields(),
            vegetables=g[VEGETABLE] + f.vegetables_in_fields(),
            sheep=g[SHEEP], boar=g[BOAR], cattle=g[CATTLE],
            unused_spaces=f.unused_spaces(), fenced_stables=f.fenced_stables(),
            clay_rooms=f.clay_rooms(), stone_rooms=f.stone_rooms(),
            people=self._people[seat], begging=self._begging[seat],
            majors=self._majors[seat],
            wood=g[WOOD], clay=g[CLAY], reed=g[REED], stone=g[STONE],
        )

    def _options(self) -> tuple[list[Key], list[tuple[Any, ...]]]:
        """The keys of the current decision and what each needs (the state's flow)."""
        raise NotImplementedError


def with_good(goods: tuple[int, ...], good: int, value: int) -> tuple[int, ...]:
    """``goods`` with ``good`` set to ``value``."""
    return (*goods[:good], value, *goods[good + 1:])


__all__ = ["ACT", "BREED", "DRAFT", "FEED", "OVER", "PHASE_NAMES", "PLACE", "STOP_KEY",
           "AgricolaStateBase", "Key", "freeze", "thaw", "with_good"]
