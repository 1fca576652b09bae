"""A random bot shipped inside the package: seeded, uniformly random legal actions.

``python -m arena.protocol.reference_bot`` runs it; ``arena bench protocol`` uses it so the
benchmark needs nothing outside the package, and ``bots/examples/random-py`` is this bot.
"""

from __future__ import annotations

import os
import random
from typing import Any

from arena.protocol.client import Bot, run


class RandomBot(Bot):
    """Uniformly random legal actions from a generator seeded by ``ARENA_SEED``, which the
    referee sets from the game seed and the seat, so the same seed gives the same game."""

    def __init__(self, name: str = "random-py", version: str = "1.0") -> None:
        self.name = name
        self.version = version
        self.rng = random.Random(os.environ.get("ARENA_SEED", "0"))

    def on_game_start(self, info: dict[str, Any]) -> None:
        # A process may serve several games: each game reseeds, so it plays the same whatever
        # the process played before.
        self.rng = random.Random(info["bot_seed"])

    def choose(
        self, observation: dict[str, Any], legal_actions: list[dict[str, Any]], time_left_ms: int
    ) -> int:
        return self.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    run(RandomBot("reference-py"))
