"""Seed derivation: every seed Arena hands out comes from one function.

A tournament's master seed gives each game its seed, and a game's seed gives everything that
game needs beyond its rules engine's own chance: the seed a bot may use for its randomness and
the generator of the fallback policy that plays a failed bot's seat. All are
:func:`derive_seed` of the parent seed and a key naming the use, so no two uses share a stream
and none can be computed from another without knowing the parent.
"""

from __future__ import annotations

import random
from hashlib import blake2b


def derive_seed(master: int, *parts: object) -> int:
    """A seed derived from ``master`` and a key (``parts``, joined with ``/``): a pure function,
    stable across runs and platforms, in ``0..2**63-1``."""
    key = "/".join([str(master), *map(str, parts)]).encode()
    return int.from_bytes(blake2b(key, digest_size=8).digest(), "big") >> 1


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed a bot may use for its own randomness in a game (``bot_seed`` of ``game_start``
    and ``ARENA_SEED`` of a freshly started bot)."""
    return derive_seed(game_seed, "bot", seat)


def fallback_rng(game_seed: int, seat: int) -> random.Random:
    """The private generator of the fallback policy for one seat of a game (a failed bot's
    seat, or a built-in player)."""
    return random.Random(derive_seed(game_seed, "fallback", seat))
