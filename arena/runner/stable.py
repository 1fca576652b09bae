"""The stable: the endpoint bots connect to, and bot processes kept alive between games."""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.protocol.messages import shutdown
from arena.protocol.server import Endpoint
from arena.protocol.transport import Transport, ZmqTransport
from arena.runner.botlog import DEFAULT_LOG_CAP, BotLog
from arena.runner.bots import BotManifest, BotProcess, Launcher, RunningBot
from arena.runner.sandbox import (
    DEFAULT_MODE,
    SOCKET_NAME,
    Sandbox,
    inside_endpoint,
    require_sandbox,
)

#: How long a bot gets to exit by itself after shutdown before its group is killed.
SHUTDOWN_GRACE_S = 1.0


@dataclass
class Session:
    """A live, handshaken bot process kept between games."""

    manifest: BotManifest
    token: str
    process: RunningBot
    identity: bytes
    log: BotLog
    games: int = 0


class Stable:
    """The endpoint bots connect to, and the bot processes kept alive between games.

    A bot process serves one game at a time. With ``keep`` > 0, a bot that finished a game
    without failing waits here for the next game that seats it, saving its start-up and
    handshake (most of a short game's cost); at most ``keep`` wait at once (the longest idle is
    stopped first), and a process is retired after ``max_games`` games or half its CPU-time
    limit. With ``keep`` = 0 every bot is stopped after its game.

    The endpoint is a ZeroMQ socket on a random loopback port (none if not ``bind``), or with
    the sandbox a unix socket in a private folder (``bot_address`` is where bots connect, as
    they see it), unless a ``transport`` is given; bots are started as processes
    (:class:`BotProcess`) unless a ``launch`` is given. Both seams let tests play whole games
    inside one process.
    """

    def __init__(
        self,
        keep: int = 0,
        max_games: int = 200,
        bind: bool = True,
        transport: Transport | None = None,
        launch: Launcher | None = None,
        sandbox: str = DEFAULT_MODE,
    ) -> None:
        """``sandbox``: "none", or "bwrap" to start every bot in a bubblewrap sandbox
        (:mod:`arena.runner.sandbox`); raises :class:`~arena.runner.sandbox.SandboxError` if
        the sandbox cannot work here (never falls back to running bots unsandboxed)."""
        if launch is None and bind:
            require_sandbox(sandbox)  # only a stable that starts bot processes needs one
        self.keep = keep
        self.max_games = max_games
        self.sandbox = sandbox
        # Sandboxed bots have no network: the endpoint is a unix socket in a folder that the
        # sandbox mounts in (bots see it at a fixed path). That folder sits in a private one
        # (only this user may enter it), and is itself open to all, as is the socket, because
        # a root runner's bots run as users of their own.
        self._private_dir: str | None = None
        bot_sandbox: Sandbox | None = None
        self.bot_address = ""
        if transport is None and bind and sandbox == "bwrap":
            self._private_dir = tempfile.mkdtemp(prefix="arena-endpoint-")  # mode 0700
            endpoint_dir = os.path.join(self._private_dir, "endpoint")
            os.mkdir(endpoint_dir)
            os.chmod(endpoint_dir, 0o711)
            socket_path = os.path.join(endpoint_dir, SOCKET_NAME)
            transport = ZmqTransport(endpoint=f"ipc://{socket_path}")
            os.chmod(socket_path, 0o666)
            self.bot_address = inside_endpoint()
            bot_sandbox = Sandbox(endpoint_dir)
        elif transport is None:
            transport = ZmqTransport(bind)
        self.endpoint = Endpoint(transport)
        self.bot_address = self.bot_address or self.endpoint.address
        if launch is None:
            launch = (BotProcess if bot_sandbox is None
                      else functools.partial(BotProcess, sandbox=bot_sandbox))
        self.launch: Launcher = launch
        self.idle: dict[str, Session] = {}  # by bot name, oldest first
        self.launches = 0

    def take(self, name: str) -> Session | None:
        """A waiting, still healthy process of bot ``name``, or None."""
        session = self.idle.pop(name, None)
        if session is None:
            return None
        self.endpoint.idle.discard(session.identity)
        if session.process.alive() and not self._worn(session):
            return session
        self._stop(session)
        return None

    def _worn(self, session: Session) -> bool:
        if session.games >= self.max_games:
            return True
        used = session.process.cpu_seconds()
        return used is not None and used > session.manifest.limits.cpu_seconds / 2

    def put(self, session: Session) -> None:
        """Keep a healthy process for a later game (or stop it if none are kept)."""
        session.games += 1
        if self.keep <= 0 or session.manifest.name in self.idle:
            self._stop(session)
            return
        self.idle[session.manifest.name] = session
        self.endpoint.idle.add(session.identity)
        while len(self.idle) > self.keep:
            self._stop(self.idle.pop(next(iter(self.idle))))

    def new_log(
        self, log_dir: Path | None, game_id: str, seat: int, manifest: BotManifest,
        cap: int = DEFAULT_LOG_CAP,
    ) -> BotLog:
        """The output log for a bot process about to be launched (counted as a launch), with
        at most ``cap`` bytes of output per game: a file per game, or per process when
        processes are kept between games (a kept process goes on writing to the log it started
        with, each game's part headed by a line naming the game; the cap starts again with
        each game). No file without a ``log_dir``. The caller closes it when the process
        stops."""
        path: Path | None = None
        if log_dir is not None:
            log_dir.mkdir(parents=True, exist_ok=True)
            name = (f"{game_id}-seat{seat}-{manifest.name}.log" if self.keep <= 0 else
                    f"{manifest.name}-{os.getpid()}-{self.launches}.log")
            path = log_dir / name
        self.launches += 1
        return BotLog(path, cap, game_id if self.keep > 0 else None)

    def _stop(self, session: Session) -> None:
        self.endpoint.idle.discard(session.identity)
        self.endpoint.tell(session.identity, shutdown("retired"))
        session.process.stop(SHUTDOWN_GRACE_S)
        session.log.close()

    def close(self) -> None:
        """Stop every waiting bot and close the endpoint."""
        while self.idle:
            self._stop(self.idle.pop(next(iter(self.idle))))
        self.endpoint.close()
        if self._private_dir is not None:
            shutil.rmtree(self._private_dir, ignore_errors=True)
            self._private_dir = None
