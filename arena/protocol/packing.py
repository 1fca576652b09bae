"""The legal-action lists of the referee's requests, encoded from each action's bytes.

The wire form is ``docs/protocol.md``'s: a request's ``legal_actions`` is a msgpack array of
the action maps, byte for byte what encoding the whole request gives
(:func:`arena.protocol.messages.encode_request` joins it in).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Final

import ormsgpack


class ActionPacker:
    """Encodes legal-action lists from each action's msgpack bytes, made once per action key.

    A referee sends a legal-action list with every request, and the same actions come up again
    and again (a game's keys name equal actions in every state: see ``State.legal_keys``).
    Building their dicts and encoding them anew each time costs more than the round trip's
    own share of the wire; this keeps each key's encoding and joins them. At most ``limit``
    keys are kept (then it starts afresh), so a long game cannot grow it without bound.

    A game whose states hand out the same tuple of keys for many decisions (a shared,
    immutable list), or a list in parts that are such tuples (``State.legal_key_parts``), gets
    each tuple's encoding kept too, found by the tuple's identity: one lookup a tuple instead
    of one a key. The packer holds the tuple, so its identity cannot pass to another object
    while the encoding is kept, and a tuple of hashable keys never changes.
    """

    __slots__ = ("_arrays", "_bodies", "_body_of", "_bytes", "_held", "_known", "_limit")

    def __init__(self, limit: int = 50_000) -> None:
        self._bytes: dict[Hashable, bytes] = {}
        #: the encoding of a key met before; KeyError for any other
        self._known = self._bytes.__getitem__
        #: id(tuple of keys) -> that tuple, held so that the id stays its own
        self._held: dict[int, tuple[Hashable, ...]] = {}
        #: id(tuple of keys) -> its keys' encodings joined
        self._bodies: dict[int, bytes] = {}
        self._body_of = self._bodies.__getitem__
        #: id(tuple of keys) -> the same as a msgpack array
        self._arrays: dict[int, bytes] = {}
        self._limit = limit

    def pack(self, keys: Sequence[Hashable], action_of: Callable[[Hashable], Any],
             parts: Sequence[tuple[Hashable, ...]] | None = None) -> bytes:
        """The msgpack array of the actions of ``keys`` (``action_of(key)``: the action).
        ``parts``, when given, are ``keys`` cut into consecutive tuples (see
        ``State.legal_key_parts``), packed a tuple at a time."""
        # The lookups of the common case, every key or tuple met before, run in C (map).
        if parts is not None:
            try:
                return b"".join([_HEADERS[len(keys)], *map(self._body_of, map(id, parts))])
            except (KeyError, IndexError):
                bodies = self._bodies
                return _array_header(len(keys)) + b"".join(
                    [bodies[id(part)] if id(part) in bodies else self._keep(part, action_of)
                     for part in parts])
        if type(keys) is tuple:
            got = self._arrays.get(id(keys))
            if got is None:
                self._keep(keys, action_of)
                got = self._arrays[id(keys)]
            return got
        try:
            return b"".join([_HEADERS[len(keys)], *map(self._known, keys)])
        except (KeyError, IndexError):
            return _array_header(len(keys)) + self._body(keys, action_of)

    def _keep(self, keys: tuple[Hashable, ...], action_of: Callable[[Hashable], Any]) -> bytes:
        """Encode a tuple of keys and keep its encodings joined, and as an array, by its
        identity; the joined encodings."""
        body = self._body(keys, action_of)
        if len(self._held) >= self._limit:
            self._held.clear()
            self._bodies.clear()
            self._arrays.clear()
        k = id(keys)
        self._held[k] = keys
        self._bodies[k] = body
        self._arrays[k] = _array_header(len(keys)) + body
        return body

    def _body(self, keys: Sequence[Hashable], action_of: Callable[[Hashable], Any]) -> bytes:
        """The encodings of ``keys``' actions joined, each made once and kept."""
        known = self._bytes
        parts = []
        for key in keys:
            packed = known.get(key)
            if packed is None:
                if len(known) >= self._limit:
                    known.clear()
                packed = known[key] = ormsgpack.packb(action_of(key))
            parts.append(packed)
        return b"".join(parts)


def _array_header(n: int) -> bytes:
    """A msgpack array header for ``n`` items."""
    if n < 16:
        return bytes((0x90 | n,))
    if n < 1 << 16:
        return b"\xdc" + n.to_bytes(2, "big")
    return b"\xdd" + n.to_bytes(4, "big")


#: The array headers of the lengths most legal-action lists have.
_HEADERS: Final = tuple(_array_header(n) for n in range(256))
