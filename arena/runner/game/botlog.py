"""A bot's output log: a pipe drained by one thread into a file, at most a cap of bytes per game.

A bot's stdout and stderr go to one pipe. The runner reads it continuously, so a bot never
blocks on a full pipe (and is never slowed into a timeout by its own logging), and writes at
most ``cap`` bytes of it to the log file per game; the rest is counted and dropped, and one
marker line says how much::

    [arena: output capped at 10 MiB; 1063256064 more bytes dropped]

A process kept between games (:mod:`arena.runner.game.stable`) writes one log across its games; the
cap starts again at each game, which begins with a line naming it::

    [arena: game rr-000012]

The marker of a game is written when the next game begins or the log closes; what a kept process
writes while it waits between games counts towards the game before.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
from pathlib import Path

MIB = 1024 * 1024
#: The default cap on a bot's output per game (the tournament file's ``log_cap_mb``).
DEFAULT_LOG_CAP = 10 * MIB
#: The largest cap a tournament file or the command line may set, in MiB.
MAX_LOG_CAP_MB = 10240
#: The drain thread reads up to this much at once (a pipe holds 64 KiB by default).
READ_CHUNK = 256 * 1024
#: How long closing a log waits for the drain thread to read what is left in the pipe. The bot's
#: process group is dead by then; only a process that left the group can still hold the pipe.
JOIN_S = 1.0


def size_text(n: int) -> str:
    """``n`` bytes in MiB when whole, else in bytes: "10 MiB", "1500 bytes"."""
    return f"{n // MIB} MiB" if n and n % MIB == 0 else f"{n} bytes"


class BotLog:
    """One bot process's output: a file (or nowhere) written through a per-game cap.

    Thread-safe: the drain thread writes, the referee begins games and closes.
    """

    def __init__(self, path: Path | None, cap: int = DEFAULT_LOG_CAP,
                 game_id: str | None = None, heading: str | None = None) -> None:
        """Open ``path`` for appending (None: the output is read and discarded).

        Args:
            path: the log file; created if missing, appended to if not.
            cap: the most bytes of output written per game (>= 0).
            game_id: if given, a first line names the game (for a log that spans games).
            heading: that first line's words instead of "game GAME_ID" (a start check's).
        """
        if cap < 0:
            raise ValueError(f"a log cap must be >= 0, not {cap}")
        self.path = path
        self._file = path.open("ab", buffering=0) if path is not None else None
        self._lock = threading.Lock()
        self._cap = cap
        self._written = 0  # this game's bytes in the file
        self._dropped = 0  # this game's bytes past the cap
        self._at_line_start = True
        self._closed = False
        self._stopping = False  # set by close(): the drain thread stops reading
        self._thread: threading.Thread | None = None
        self._wake_w = -1
        if game_id is not None:
            self._line(f"[arena: {heading or f'game {game_id}'}]")

    # ---------------------------------------------------------------- writing
    def write(self, data: bytes | memoryview) -> None:
        """Append the bot's ``data``, as much as this game's cap leaves room for."""
        with self._lock:
            if self._closed:
                return
            room = self._cap - self._written
            kept = data[:room] if len(data) > room else data
            if kept:
                self._put(kept)
                self._written += len(kept)
            self._dropped += len(data) - len(kept)

    def begin_game(self, game_id: str, cap: int) -> None:
        """End the current game's part (its marker, if output was dropped) and start a new one
        with a line naming ``game_id`` and a fresh ``cap``."""
        with self._lock:
            if self._closed:
                return
            self._mark()
            self._cap, self._written, self._dropped = cap, 0, 0
            self._line(f"[arena: game {game_id}]")

    @property
    def dropped(self) -> int:
        """Bytes of this game's output dropped so far."""
        return self._dropped

    @property
    def written(self) -> int:
        """Bytes of this game's output kept so far (at most the cap)."""
        return self._written

    def _put(self, data: bytes | memoryview) -> None:
        if self._file is None:
            return
        try:
            view = memoryview(data)
            while view:
                n = self._file.write(view)
                view = view[n or len(view):]
        except OSError:
            # A full disk: drop the log's output rather than stop draining (the bot would
            # block on its pipe) or fail the runner.
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
            return
        self._at_line_start = data[-1:] == b"\n"

    def _line(self, text: str) -> None:
        """A line of the runner's own, on a line of its own."""
        self._put(("" if self._at_line_start else "\n").encode() + text.encode() + b"\n")

    def _mark(self) -> None:
        if self._dropped:
            self._line(f"[arena: output capped at {size_text(self._cap)}; "
                       f"{self._dropped} more bytes dropped]")

    # ---------------------------------------------------------------- draining a pipe
    def drain(self, fd: int) -> None:
        """Read the pipe ``fd`` (the read end; this log owns it from now on) on a thread of its
        own until every writer has closed it or the log closes."""
        os.set_blocking(fd, False)
        wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._pump, args=(fd, wake_r), daemon=True,
                                        name=f"bot-log-{fd}")
        self._thread.start()

    def _pump(self, fd: int, wake_r: int) -> None:
        buffer = bytearray(READ_CHUNK)
        view = memoryview(buffer)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        poller.register(wake_r, select.POLLIN)
        try:
            # The flag, for a pipe that never runs dry (a process that left the group writing
            # on): the thread then never waits in poll() to be woken.
            while not self._stopping:
                try:
                    n = os.readv(fd, [buffer])
                except BlockingIOError:
                    # The pipe is empty: sleep until output, end of file, or close() wakes us.
                    if any(ready == wake_r for ready, _ in poller.poll()):
                        return
                    continue
                except OSError:
                    return  # not expected of a pipe; the bot then sees its pipe closed
                if n == 0:
                    return  # every writer has gone
                self.write(view[:n])
        finally:
            os.close(fd)
            os.close(wake_r)

    # ---------------------------------------------------------------- closing
    def close(self) -> None:
        """Read what is left in the pipe (waiting at most about :data:`JOIN_S`), write the
        marker if output was dropped, and close the file. Never hangs on a process that keeps
        the pipe open; safe to call twice. Kill the bot's process group first."""
        thread = self._thread
        if thread is not None:
            thread.join(JOIN_S)
            self._stopping = True
            # Closing the wake-up pipe's write end wakes the thread if it still waits.
            os.close(self._wake_w)
            self._thread, self._wake_w = None, -1
            thread.join(JOIN_S)
        with self._lock:
            if self._closed:
                return
            self._mark()
            self._closed = True
            if self._file is not None:
                with contextlib.suppress(OSError):
                    self._file.close()
                self._file = None


#: The most characters of one log line that a tail shows: a bot may write lines of kilobytes,
#: and a message about why it failed should stay readable.
TAIL_LINE_WIDTH = 200


def log_tail(path: Path, lines: int = 10, limit: int = 8192,
             width: int = TAIL_LINE_WIDTH) -> list[str]:
    """The last ``lines`` lines of a bot's log (at most ``limit`` bytes read from its end),
    each cut to ``width`` characters saying so, for a message about why the bot failed; []
    when there is no log."""
    try:
        with path.open("rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - limit))
            data = f.read()
    except OSError:
        return []
    text = data.decode("utf-8", "replace").splitlines()
    if size > limit and len(text) == 1:  # the end of one longer line: all there is to show
        return [f"…{_cut(text[0], width, 'the last ')}"]
    if size > limit:
        text = text[1:]  # the first line read is probably cut
    return [_cut(line, width) for line in text[-lines:]]


def _cut(line: str, width: int, part: str = "") -> str:
    """``line``, or its first ``width`` characters and how long it was (``part``: what of the
    line it is)."""
    if len(line) <= width:
        return line
    return f"{line[:width]}… ({part}{len(line):,} characters, cut to {width})"
