"""The save format of a Stone Age state: every field, hidden parts and chance source included,
as plain data (for debugging a bot from a position, and for rule-scenario tests)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from arena.engine.api import Game
from arena.engine.chance import chance_from_dict
from arena.engine.stoneage.components import NUM_PLACES
from arena.engine.stoneage.state_base import StoneAgeStateBase

_LIST_FIELDS = (
    "display", "pile_pos", "goods", "people", "avail", "agri", "step", "any2", "build_pts",
    "top_pts", "penalties", "nbuild", "placed", "total", "players_at", "rolls",
)
_TUPLE_LIST_FIELDS = ("tfree", "one_use", "cards", "hidden")
_INT_FIELDS = ("round", "start", "phase", "cur", "turn", "deck_pos")


def _plain(x: Any) -> Any:
    return [_plain(v) for v in x] if isinstance(x, tuple | list) else x


def _frozen(x: Any) -> Any:
    return tuple(_frozen(v) for v in x) if isinstance(x, list) else x


class SaveFormat(StoneAgeStateBase):
    """``to_dict`` and ``from_dict``: a state to plain data and back, exactly."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The complete state (hidden parts and chance source included) as plain data."""
        d: dict[str, Any] = {
            "game": self._game.name,
            "rules_version": self._game.rules_version,
            "num_players": self._n,
            "chance": self._chance.to_dict(),
            "deck": list(self._deck),
            "piles": [list(p) for p in self._piles],
            "pend": _plain(self._pend),
        }
        for f in _INT_FIELDS:
            d[f] = getattr(self, "_" + f)
        for f in _LIST_FIELDS:
            d[f] = list(getattr(self, "_" + f))
        for f in _TUPLE_LIST_FIELDS:
            d[f] = [list(t) for t in getattr(self, "_" + f)]
        return d

    @classmethod
    def from_dict(cls, game: Game, data: Mapping[str, Any]) -> Self:
        """Rebuild a state saved by :meth:`to_dict`. ValueError if it is malformed."""
        if data.get("game") != game.name:
            raise ValueError(f"not a {game.name} state: game is {data.get('game')!r}")
        if data.get("rules_version") != game.rules_version:
            raise ValueError(
                f"state was saved under rules {data.get('rules_version')!r}, "
                f"this engine is {game.rules_version!r}"
            )
        try:
            s = cls.__new__(cls)
            s._game = game
            s._n = int(data["num_players"])
            s._chance = chance_from_dict(data["chance"])
            s._deck = tuple(int(c) for c in data["deck"])
            s._piles = tuple(tuple(int(b) for b in p) for p in data["piles"])
            s._pend = _frozen(data["pend"])
            for f in _INT_FIELDS:
                setattr(s, "_" + f, int(data[f]))
            for f in _LIST_FIELDS:
                setattr(s, "_" + f, [int(v) for v in data[f]])
            for f in _TUPLE_LIST_FIELDS:
                setattr(s, "_" + f, [tuple(int(v) for v in t) for t in data[f]])
            s._where = [
                sum(1 << q for q in range(NUM_PLACES) if s._placed[p * NUM_PLACES + q])
                for p in range(s._n)
            ]
            s._open_buys = s._open_buy_places()
            s._moves = s._pending_options()
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"malformed {game.name} state: {exc!r}") from exc
        return s
