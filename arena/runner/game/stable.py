"""The stable: the endpoint bots connect to, and bot processes kept alive between games."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.protocol.messages import shutdown
from arena.protocol.server import Endpoint
from arena.protocol.transport import Transport
from arena.protocol.wire import ZmtpTransport
from arena.runner.game.botlog import DEFAULT_LOG_CAP, BotLog
from arena.runner.game.manifest import BotManifest
from arena.runner.game.processes import BotProcess, BotStartError, Launcher, RunningBot
from arena.runner.game.sandbox import DEFAULT_MODE, Sandbox, inside_endpoint, require_sandbox

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
    #: The door it connected through (None for a transport without doors).
    door: int | None = None


class Stable:
    """The endpoint bots connect to, and the bot processes kept alive between games.

    A bot process serves one game at a time. With ``keep`` > 0, a bot that finished a game
    without failing waits here for the next game that seats it, saving its start-up and
    handshake (most of a short game's cost); at most ``keep`` wait at once (the longest idle is
    stopped first), and a process is retired after ``max_games`` games or half its CPU-time
    limit. With ``keep`` = 0 every bot is stopped after its game.

    Bots connect to the endpoint, each through a door of its own
    (:class:`~arena.protocol.transport.ZmtpTransport`): a unix socket in a private folder,
    which the sandbox shows the bot at a fixed path, unless a ``transport`` is given; bots are
    started as processes (:class:`BotProcess`) unless a ``launch`` is given. Both seams let
    tests play whole games inside one process.
    """

    def __init__(
        self,
        keep: int = 0,
        max_games: int = 200,
        bind: bool = True,
        transport: Transport | None = None,
        launch: Launcher | None = None,
        sandbox: str = DEFAULT_MODE,
        on_start: Callable[[RunningBot], None] | None = None,
    ) -> None:
        """``bind``: bot processes will be started (the sandbox must then work here).
        ``on_start`` is told of every bot process started.
        ``sandbox``: "none", or "bwrap" to start every bot in a bubblewrap sandbox
        (:mod:`arena.runner.game.sandbox`); raises
        :class:`~arena.runner.game.sandbox.SandboxError` if the sandbox cannot work here (never
        falls back to running bots unsandboxed)."""
        if launch is None and bind:
            require_sandbox(sandbox)  # only a stable that starts bot processes needs one
        self.keep = keep
        self.max_games = max_games
        self.sandbox = sandbox
        self.endpoint = Endpoint(transport if transport is not None else ZmtpTransport())
        self._launch = launch
        self._on_start = on_start
        self.idle: dict[str, Session] = {}  # by bot name, oldest first
        self.launches = 0

    def launch(self, manifest: BotManifest, env: dict[str, str],
               log: BotLog) -> tuple[RunningBot, int | None]:
        """Start a bot process with ``env`` (``ARENA_ENDPOINT`` added: a door of its own when
        the transport has doors). Returns it and its door. Raises
        :class:`~arena.runner.game.processes.BotStartError`."""
        transport = self.endpoint.transport
        try:
            door = transport.open_door()
        except OSError as exc:
            raise BotStartError(f"{manifest.name}: cannot open its endpoint: "
                                f"{exc.strerror or exc}") from None
        sandbox = None
        if door is None:
            address = transport.address
        elif self._launch is None and self.sandbox == "bwrap":
            address, sandbox = inside_endpoint(), Sandbox(door.folder)
        else:
            address = door.address
        env = {**env, "ARENA_ENDPOINT": address}
        try:
            if self._launch is not None:
                process = self._launch(manifest, env, log)
            else:
                process = BotProcess(manifest, env, log, sandbox=sandbox)
        except BaseException:
            if door is not None:
                transport.close_door(door.key)
            raise
        if self._on_start is not None:
            self._on_start(process)
        return process, None if door is None else door.key

    def close_door(self, door: int | None) -> None:
        """Close a stopped bot's door."""
        if door is not None:
            self.endpoint.transport.close_door(door)
            self.endpoint.unfit.discard(door)

    def take(self, name: str) -> Session | None:
        """A waiting, still healthy process of bot ``name``, or None."""
        session = self.idle.pop(name, None)
        if session is None:
            return None
        self.endpoint.idle.discard(session.identity)
        if (session.process.alive() and not self._worn(session)
                and session.door not in self.endpoint.unfit):
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
        cap: int = DEFAULT_LOG_CAP, heading: str | None = None,
    ) -> BotLog:
        """The output log for a bot process about to be launched (counted as a launch), with
        at most ``cap`` bytes of output per game: a file per game, or per process when
        processes are kept between games (a kept process goes on writing to the log it started
        with, each game's part headed by a line naming the game, or the ``heading`` given; the
        cap starts again with each game). No file without a ``log_dir``. The caller closes it
        when the process stops."""
        path: Path | None = None
        if log_dir is not None:
            log_dir.mkdir(parents=True, exist_ok=True)
            name = (f"{game_id}-seat{seat}-{manifest.name}.log" if self.keep <= 0 else
                    f"{manifest.name}-{os.getpid()}-{self.launches}.log")
            path = log_dir / name
        self.launches += 1
        return BotLog(path, cap, game_id if self.keep > 0 else None, heading)

    def _stop(self, session: Session) -> None:
        self.endpoint.idle.discard(session.identity)
        self.endpoint.tell(session.identity, shutdown("retired"))
        session.process.stop(SHUTDOWN_GRACE_S)
        session.log.close()
        self.close_door(session.door)

    def close(self) -> None:
        """Stop every waiting bot and close the endpoint."""
        while self.idle:
            self._stop(self.idle.pop(next(iter(self.idle))))
        self.endpoint.close()
