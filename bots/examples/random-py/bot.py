"""The random example bot: Arena's built-in SDK random bot (arena.protocol.reference_bot) under
its own name. See the README at the top of the repository for a bot written out in full."""

from __future__ import annotations

from arena.protocol.client import run
from arena.protocol.reference_bot import RandomBot

if __name__ == "__main__":
    run(RandomBot("random-py", "1.0"))
