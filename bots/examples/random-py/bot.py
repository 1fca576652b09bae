"""A random bot: picks a uniformly random legal action.

Seeded from ARENA_SEED (set by the referee from the game seed and the seat), so a game with the
same seed is the same game.
"""

from __future__ import annotations

import os
import random
from typing import Any

from arena.protocol.client import Bot, run


class RandomBot(Bot):
    name = "random-py"
    version = "1.0"

    def __init__(self) -> None:
        self.rng = random.Random(os.environ.get("ARENA_SEED", "0"))

    def choose(
        self, observation: dict[str, Any], legal_actions: list[dict[str, Any]], time_left_ms: int
    ) -> int:
        return self.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    run(RandomBot())
