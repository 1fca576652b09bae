"""A fork bomb: at the start of each game, fork sleeping children until the system refuses
one, log how many it got, then play random legal moves with them still running.

Log lines: ``hostile[fork-bomb]: forked N, refused: <error>`` (or ``forked N, never refused``
at the cap below, which a sandboxed bot never reaches).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from arena.protocol.client import run
from arena.protocol.reference_bot import RandomBot

#: Where it stops on its own, far above any sandbox's limit, so that a run without one does
#: not take the machine down.
CAP = 2000


class ForkBomb(RandomBot):
    def on_game_start(self, info: dict[str, Any]) -> None:
        super().on_game_start(info)
        forked = 0
        refusal = "never refused"
        while forked < CAP:
            try:
                pid = os.fork()
            except OSError as exc:
                refusal = f"refused: {exc.strerror} (errno {exc.errno})"
                break
            if pid == 0:
                time.sleep(3600)
                os._exit(0)
            forked += 1
        print(f"hostile[fork-bomb]: forked {forked}, {refusal}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    run(ForkBomb("hostile-fork-bomb", "1.0"))
