"""Chance sources: where every die and every shuffle of a game comes from.

Chance is keyed by *event*, not by position in one stream. The k-th roll of seat ``s`` in round
``r`` is a pure function of ``(seed, "dice", r, s, k)``, and each shuffle a pure function of
``(seed, key)``. So a game replayed with the same seed and the seats rotated deals every seat
the same dice whoever sits there (duplicate play), and a state never carries a generator whose
position would need copying.

There is no module-level generator here, and nothing reads the clock.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from hashlib import blake2b
from typing import Any


class Chance(ABC):
    """The chance source a game is created with."""

    @abstractmethod
    def roll(self, round_no: int, seat: int, k: int, n: int) -> tuple[int, ...]:
        """Return ``n`` six-sided dice (1..6) for the k-th roll of ``seat`` in ``round_no``.

        The same arguments always give the same dice.
        """

    @abstractmethod
    def permutation(self, key: str, n: int) -> list[int]:
        """Return a permutation of ``range(n)`` for the shuffle named ``key``."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """A plain-data description from which :func:`chance_from_dict` rebuilds this source."""


class SeededChance(Chance):
    """Chance derived from a seed by hashing each event's key (BLAKE2b).

    Dice come from the digest's bytes by rejection (bytes >= 252 are skipped), so every face is
    exactly equally likely.
    """

    __slots__ = ("_prefix", "seed")

    def __init__(self, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}")
        self.seed = seed
        self._prefix = f"{seed}/".encode()

    def roll(self, round_no: int, seat: int, k: int, n: int) -> tuple[int, ...]:
        key = self._prefix + f"dice/{round_no}/{seat}/{k}".encode()
        out: list[int] = []
        block = 0
        while len(out) < n:
            digest = blake2b(key + b"/" + str(block).encode(), digest_size=32).digest()
            for b in digest:
                if b < 252:
                    out.append(b % 6 + 1)
                    if len(out) == n:
                        break
            block += 1
        return tuple(out)

    def permutation(self, key: str, n: int) -> list[int]:
        digest = blake2b(self._prefix + f"shuffle/{key}".encode(), digest_size=32).digest()
        order = list(range(n))
        # A private generator seeded from the event's digest: deterministic, never global.
        random.Random(int.from_bytes(digest, "big")).shuffle(order)
        return order

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "seeded", "seed": self.seed}

    def __repr__(self) -> str:
        return f"SeededChance({self.seed})"


class ScriptedChance(Chance):
    """Chance for tests: dice are taken in order from a given list.

    Each roll event takes its dice from the script the first time it is asked for and
    remembers them, so a state and its clones see the same dice for the same event. Shuffles
    are the identity unless ``orders`` gives a permutation for the key. Running out of scripted
    dice raises ``IndexError`` with the event that asked.
    """

    def __init__(
        self,
        dice: list[int] | tuple[int, ...] = (),
        orders: dict[str, list[int]] | None = None,
    ) -> None:
        for d in dice:
            if not 1 <= d <= 6:
                raise ValueError(f"scripted die {d!r} is not in 1..6")
        self.dice = list(dice)
        self.orders = {k: list(v) for k, v in (orders or {}).items()}
        self.pos = 0
        self.memo: dict[tuple[int, int, int], tuple[int, ...]] = {}

    def roll(self, round_no: int, seat: int, k: int, n: int) -> tuple[int, ...]:
        event = (round_no, seat, k)
        got = self.memo.get(event)
        if got is None or len(got) != n:
            if self.pos + n > len(self.dice):
                raise IndexError(
                    f"scripted dice exhausted: round {round_no} seat {seat} roll {k} "
                    f"needs {n} dice, {len(self.dice) - self.pos} left"
                )
            got = tuple(self.dice[self.pos : self.pos + n])
            self.pos += n
            self.memo[event] = got
        return got

    def permutation(self, key: str, n: int) -> list[int]:
        order = self.orders.get(key)
        if order is None:
            return list(range(n))
        if sorted(order) != list(range(n)):
            raise ValueError(f"scripted order for {key!r} is not a permutation of range({n})")
        return list(order)

    @property
    def remaining(self) -> int:
        """How many scripted dice have not been used yet."""
        return len(self.dice) - self.pos

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "scripted",
            "dice": list(self.dice),
            "pos": self.pos,
            "orders": {k: list(v) for k, v in self.orders.items()},
            "memo": [[*event, list(v)] for event, v in self.memo.items()],
        }


def chance_from_dict(d: dict[str, Any]) -> Chance:
    """Rebuild a chance source from :meth:`Chance.to_dict` output."""
    kind = d.get("kind")
    if kind == "seeded":
        return SeededChance(d["seed"])
    if kind == "scripted":
        c = ScriptedChance(d["dice"], d.get("orders"))
        c.pos = d["pos"]
        c.memo = {(r, s, k): tuple(v) for r, s, k, v in d.get("memo", [])}
        return c
    raise ValueError(f"unknown chance source kind {kind!r}")
