"""``arena serve``'s server run in a thread of the test's own process, on a free port, for the
serve tests and the README's screenshots."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.report.serve import serve


@contextmanager
def served(folder: Path, timeout: float = 20.0) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 and a free port; yields the page's address and stops the
    server (and its thread) on the way out."""
    ready = threading.Event()
    found: list[str] = []
    failed: list[BaseException] = []
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    def started(url: str) -> None:
        found.append(url)
        ready.set()

    def run() -> None:
        try:
            loop.run_until_complete(serve(folder, "127.0.0.1", 0, started, stop))
        except BaseException as exc:  # handed to the test's thread
            failed.append(exc)
            ready.set()
        finally:
            loop.close()

    thread = threading.Thread(target=run, name="arena-serve-test", daemon=True)
    thread.start()
    try:
        if not ready.wait(timeout):
            raise TimeoutError(f"the server of {folder} did not start in {timeout} s")
        if failed:
            raise failed[0]
        yield found[0]
    finally:
        if thread.is_alive():
            loop.call_soon_threadsafe(stop.set)
            thread.join(timeout)
