"""A memory hog: at the start of its first game, allocate memory (touching every page) until
refused, and fill its writable /tmp until the file system is full; log how much of each it
got; then let go of both and play random legal moves.

Log lines: ``hostile[memory-hog]: held N MiB, refused: MemoryError`` and
``hostile[memory-hog]: wrote N MiB to /tmp, refused: <error>``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any

from arena.protocol.client import run
from arena.protocol.reference_bot import RandomBot

CHUNK = 16 * 1024 * 1024
#: Where it stops on its own, so that a run without limits does not take the machine down.
CAP_MIB = 8192


def log(text: str) -> None:
    print(f"hostile[memory-hog]: {text}", file=sys.stderr, flush=True)


def hog_memory() -> None:
    held: list[bytearray] = []
    why = "never refused"
    try:
        while len(held) * CHUNK < CAP_MIB << 20:
            held.append(bytearray(b"x") * CHUNK)  # written, so every page is real
    except MemoryError:
        why = "refused: MemoryError"
    log(f"held {len(held) * CHUNK >> 20} MiB, {why}")


def hog_tmp() -> None:
    written = 0
    why = "never refused"
    block = b"x" * (1 << 20)
    with tempfile.TemporaryFile(dir=os.environ.get("TMPDIR", "/tmp")) as f:
        try:
            while written < CAP_MIB << 20:
                f.write(block)
                f.flush()
                written += len(block)
        except OSError as exc:
            why = f"refused: {exc.strerror}"
    log(f"wrote {written >> 20} MiB to /tmp, {why}")


class MemoryHog(RandomBot):
    done = False

    def on_game_start(self, info: dict[str, Any]) -> None:
        super().on_game_start(info)
        if not self.done:
            self.done = True
            hog_memory()
            hog_tmp()


if __name__ == "__main__":
    run(MemoryHog("hostile-memory-hog", "1.0"))
