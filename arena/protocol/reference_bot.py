"""A minimal SDK bot shipped inside the package: seeded random choices.

Used by ``arena bench protocol`` so the benchmark needs nothing outside the package:
``python -m arena.protocol.reference_bot``.
"""

from __future__ import annotations

import os
import random
from typing import Any

from arena.protocol.client import Bot, run


class ReferenceBot(Bot):
    name = "reference-py"
    version = "1.0"

    def __init__(self) -> None:
        self.rng = random.Random(os.environ.get("ARENA_SEED", "0"))

    def choose(
        self, observation: dict[str, Any], legal_actions: list[dict[str, Any]], time_left_ms: int
    ) -> int:
        return self.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    run(ReferenceBot())
