"""Chance sources: where every random draw of a game comes from.

Chance is keyed by *event*, not by position in one stream. A game names each random event with
a key, a short tuple of str and int parts (``("dice", round, seat, k)``, ``("deck",)``), and what
it draws is a pure function of the seed and that key. So a game replayed with the same seed and
the seats rotated deals every seat the same dice whoever sits there (duplicate play), and a state
never carries a generator whose position would need copying.

Two kinds of draw exist: ``n`` integers from a closed range (dice of any size) and a permutation
(a shuffle). Games build their own vocabulary on top (Stone Age's dice live in its package).

There is no module-level generator here, and nothing reads the clock.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from functools import lru_cache
from hashlib import blake2b
from typing import Any

#: A chance event's name: its parts are joined with "/" to form the hashed key, so a str part
#: must not contain "/" (and the int 1 names the same part as the str "1").
EventKey = tuple[str | int, ...]

_DIGEST_SIZE = 32


def key_text(key: EventKey) -> str:
    """The canonical text of an event key ("dice/3/1/0"); ValueError for an ambiguous key."""
    for part in key:
        t = type(part)  # exact types: a bool or a float would print as another key
        if t is not int and t is not str:
            raise ValueError(f"event key part {part!r} is not a str or an int")
    text = "/".join(map(str, key))
    # Each "/" beyond the separators comes from inside a str part (ints print none).
    if not key or text.count("/") != len(key) - 1:
        raise ValueError(f"event key {key!r} is empty or has a part containing '/'")
    return text


@lru_cache(maxsize=8192)  # a game asks for the same keys again in every playout
def _key_bytes(key: EventKey) -> bytes:
    """The hashed form of an event key: its text and the "/" before the block number."""
    return key_text(key).encode() + b"/"


@lru_cache(maxsize=64)
def _draw_width(span: int) -> tuple[int, int]:
    """Bytes per draw and the rejection limit for values in ``range(span)``.

    A draw reads ``width`` bytes (a power of two, so draws never straddle two digests) as one
    unsigned number and is rejected when it is at or above ``limit``, the largest multiple of
    ``span`` that fits: every value is then exactly equally likely. For six faces this is one
    byte and 252.
    """
    if span < 1:
        raise ValueError(f"an empty range ({span} values) cannot be drawn from")
    width = 1
    while 256**width < span:
        width *= 2
        if width > _DIGEST_SIZE:
            raise ValueError(f"a range of {span} values is too wide to draw from")
    whole = 256**width
    return width, whole - whole % span


class Chance(ABC):
    """The chance source a game is created with.

    Invariant: the same key and the same request always give the same draw, whatever was drawn
    before; draws for different keys are independent.
    """

    @abstractmethod
    def integers(self, key: EventKey, n: int, low: int, high: int) -> tuple[int, ...]:
        """``n`` integers, each uniform in ``low..high`` (both included), for event ``key``.

        Raises ``ValueError`` for an empty range or a key that is not a non-empty tuple of
        str and int parts (``TypeError`` if the key cannot even be hashed).
        """

    @abstractmethod
    def permutation(self, key: EventKey, n: int) -> list[int]:
        """A uniform permutation of ``range(n)`` for the shuffle named ``key``."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """A plain-data description from which :func:`chance_from_dict` rebuilds this source."""


class SeededChance(Chance):
    """Chance derived from a seed by hashing each event's key (BLAKE2b).

    Integers come from the digests of ``"{seed}/{key}/{block}"`` (block 0, 1, ...) by
    rejection, so every value is exactly equally likely; a shuffle seeds a private generator
    from the digest of ``"{seed}/shuffle/{key}"``.
    """

    __slots__ = ("_prefix", "seed")

    def __init__(self, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}")
        self.seed = seed
        self._prefix = f"{seed}/".encode()

    def integers(self, key: EventKey, n: int, low: int, high: int) -> tuple[int, ...]:
        span = high - low + 1
        base = self._prefix + _key_bytes(key)
        if n <= 0:
            return ()
        out: list[int] = []
        if 0 < span <= 256:
            # One byte per draw: the common case (dice), kept lean because games roll often.
            limit = 256 - 256 % span
            block = 0
            while True:
                digest = blake2b(base + str(block).encode(), digest_size=_DIGEST_SIZE).digest()
                for b in digest:
                    if b < limit:
                        out.append(b % span + low)
                        if len(out) == n:
                            return tuple(out)
                block += 1
        width, limit = _draw_width(span)
        block = 0
        while True:
            digest = blake2b(base + str(block).encode(), digest_size=_DIGEST_SIZE).digest()
            for i in range(0, _DIGEST_SIZE, width):
                v = int.from_bytes(digest[i : i + width], "big")
                if v < limit:
                    out.append(v % span + low)
                    if len(out) == n:
                        return tuple(out)
            block += 1

    def permutation(self, key: EventKey, n: int) -> list[int]:
        digest = blake2b(
            self._prefix + b"shuffle/" + key_text(key).encode(), digest_size=_DIGEST_SIZE
        ).digest()
        order = list(range(n))
        # A private generator seeded from the event's digest: deterministic, never global.
        random.Random(int.from_bytes(digest, "big")).shuffle(order)
        return order

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "seeded", "seed": self.seed}

    def __repr__(self) -> str:
        return f"SeededChance({self.seed})"


class ScriptedChance(Chance):
    """Chance for tests: drawn integers are taken in order from a given list.

    ``dice`` are the values (each in ``1..faces``) that integer draws take, in the order the
    events ask for them; a draw whose range does not contain its next value raises
    ``ValueError``. Each event takes its values from the script the first time it is asked for
    and remembers them, so a state and its clones see the same values for the same event.
    Shuffles are the identity unless ``orders`` gives a permutation for the key (by its text,
    e.g. ``"deck"``). Running out of scripted values raises ``IndexError`` naming the event.
    """

    def __init__(
        self,
        dice: Sequence[int] = (),
        orders: Mapping[str, Sequence[int]] | None = None,
        faces: int = 6,
    ) -> None:
        for d in dice:
            if not 1 <= d <= faces:
                raise ValueError(f"scripted die {d!r} is not in 1..{faces}")
        self.dice = list(dice)
        self.faces = faces
        self.orders = {k: list(v) for k, v in (orders or {}).items()}
        self.pos = 0
        self.memo: dict[str, tuple[int, ...]] = {}

    def integers(self, key: EventKey, n: int, low: int, high: int) -> tuple[int, ...]:
        event = key_text(key)
        got = self.memo.get(event)
        if got is None or len(got) != n:
            if self.pos + n > len(self.dice):
                raise IndexError(
                    f"scripted dice exhausted: event {event} needs {n} values, "
                    f"{len(self.dice) - self.pos} left"
                )
            got = tuple(self.dice[self.pos : self.pos + n])
            for v in got:
                if not low <= v <= high:
                    raise ValueError(f"scripted value {v} for event {event} is not in "
                                     f"{low}..{high}")
            self.pos += n
            self.memo[event] = got
        return got

    def permutation(self, key: EventKey, n: int) -> list[int]:
        name = key_text(key)
        order = self.orders.get(name)
        if order is None:
            return list(range(n))
        if sorted(order) != list(range(n)):
            raise ValueError(f"scripted order for {name!r} is not a permutation of range({n})")
        return list(order)

    @property
    def remaining(self) -> int:
        """How many scripted values have not been used yet."""
        return len(self.dice) - self.pos

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "scripted",
            "dice": list(self.dice),
            "faces": self.faces,
            "pos": self.pos,
            "orders": {k: list(v) for k, v in self.orders.items()},
            "memo": [[event, list(v)] for event, v in self.memo.items()],
        }


def chance_from_dict(d: Mapping[str, Any]) -> Chance:
    """Rebuild a chance source from :meth:`Chance.to_dict` output; ValueError for an unknown
    kind."""
    kind = d.get("kind")
    if kind == "seeded":
        return SeededChance(d["seed"])
    if kind == "scripted":
        c = ScriptedChance(d["dice"], d.get("orders"), d.get("faces", 6))
        c.pos = d["pos"]
        c.memo = {str(event): tuple(v) for event, v in d.get("memo", [])}
        return c
    raise ValueError(f"unknown chance source kind {kind!r}")
