"""The legal-action lists of the referee's requests, encoded from each action's bytes.

The wire form is ``docs/protocol.md``'s: a request's ``legal_actions`` is a msgpack array of
the action maps, byte for byte what encoding the whole request gives
(:func:`arena.protocol.messages.encode_request` joins it in).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Final, Protocol

import ormsgpack


class ActionPacker:
    """Encodes legal-action lists from each action's msgpack bytes, made once per action key.

    A referee sends a legal-action list with every request, and the same actions come up again
    and again (a game's keys name equal actions in every state: see ``State.legal_keys``).
    Building their dicts and encoding them anew each time costs more than the round trip's
    own share of the wire; this keeps each key's encoding and joins them. At most ``limit``
    keys are kept (then it starts afresh), so a long game cannot grow it without bound.
    """

    __slots__ = ("_bytes", "_known", "_limit")

    def __init__(self, limit: int = 50_000) -> None:
        self._bytes: dict[Hashable, bytes] = {}
        #: the encoding of a key met before; KeyError for any other
        self._known = self._bytes.__getitem__
        self._limit = limit

    def pack(self, keys: Sequence[Hashable], action_of: Callable[[Hashable], Any]) -> bytes:
        """The msgpack array of the actions of ``keys`` (``action_of(key)``: the action)."""
        try:
            # Every key met before and a list shorter than 256 (the common case): the lookups
            # run in C, and the header is one of those made once.
            return b"".join([_HEADERS[len(keys)], *map(self._known, keys)])
        except (KeyError, IndexError):
            pass
        known = self._bytes
        parts = []
        for key in keys:
            packed = known.get(key)
            if packed is None:
                if len(known) >= self._limit:
                    known.clear()
                packed = known[key] = ormsgpack.packb(action_of(key))
            parts.append(packed)
        return _array_header(len(parts)) + b"".join(parts)


def _array_header(n: int) -> bytes:
    """A msgpack array header for ``n`` items."""
    if n < 16:
        return bytes((0x90 | n,))
    if n < 1 << 16:
        return b"\xdc" + n.to_bytes(2, "big")
    return b"\xdd" + n.to_bytes(4, "big")


#: The array headers of the lengths most legal-action lists have.
_HEADERS: Final = tuple(_array_header(n) for n in range(256))


class SharingGame(Protocol):
    """What :func:`packer_for` reads of a game (an :class:`arena.engine.api.Game`; the wire's
    floor knows no engine)."""

    rules_version: str
    actions_shared_across_games: bool


#: The packers kept across games: by game, its rules version and the options (complete).
_SHARED: dict[tuple[SharingGame, str, tuple[tuple[str, str], ...]], ActionPacker] = {}


def packer_for(game: SharingGame, options: Mapping[str, str]) -> ActionPacker:
    """The packer for a game of ``game`` played with ``options`` (complete, as
    ``game.validate_options`` gives them): where the game promises that its keys name the
    same actions in every game of its rules and options (``actions_shared_across_games``), the
    one this process keeps for all of those games, whose actions are then encoded once a
    process rather than once a game; otherwise a new one, for this game alone."""
    if not game.actions_shared_across_games:
        return ActionPacker()
    ident = (game, game.rules_version, tuple(sorted(options.items())))
    packer = _SHARED.get(ident)
    if packer is None:
        packer = _SHARED[ident] = ActionPacker()
    return packer
