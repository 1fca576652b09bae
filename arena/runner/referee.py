"""The referee: one game between bot processes, under time control, to a GameRecord.

The move loop is a checklist. For each decision: is the seat's bot still usable -> send the
request -> wait for a valid answer until the deadline -> apply it. Every way a bot can fail sets
that seat's termination reason (timeout, crash, illegal_action, protocol_error); its seat is then
played to the end by a seeded random fallback, and it is ranked last. A bot that cannot start or
does not finish the handshake makes the game void (:class:`VoidGame`), which is not a loss.

Every bot process is killed, with its whole process group, before :func:`play_game` returns or
raises, whatever happens (game over, bot failure, KeyboardInterrupt, SystemExit).
"""

from __future__ import annotations

import contextlib
import hmac
import itertools
import os
import random
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import zmq

from arena import __version__
from arena.engine import Game, State
from arena.protocol.messages import (
    BOT_MESSAGES,
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    ProtocolError,
    Termination,
    decode,
    encode,
)
from arena.runner.bots import BotManifest, BotProcess, BotStartError
from arena.runner.clock import Clock, TimeControl
from arena.runner.record import GameRecord, final_ranks
from arena.seeds import bot_seed, fallback_rng

#: Messages a bot may send without answering a request before it counts as flooding.
FLOOD_LIMIT = 64
#: How long a bot gets to exit by itself after shutdown before its group is killed.
SHUTDOWN_GRACE_S = 1.0
#: How often a wait wakes up to check that the bot's process is still alive.
POLL_SLICE_MS = 20
MAX_EVENTS = 500


class VoidGame(Exception):
    """The game could not be played for a reason that is nobody's loss (a bot could not start
    or did not complete the handshake). The caller may retry it."""


@dataclass
class _Session:
    """A live, handshaken bot process kept between games."""

    manifest: BotManifest
    token: str
    process: BotProcess
    identity: bytes
    log: IO[bytes]
    games: int = 0


class Stable:
    """The socket bots connect to, and the bot processes kept alive between games.

    A bot process serves one game at a time. With ``keep`` > 0, a bot that finished a game
    without failing waits here for the next game that seats it, saving its start-up and
    handshake (most of a short game's cost); at most ``keep`` wait at once (the longest idle is
    stopped first), and a process is retired after ``max_games`` games or half its CPU-time
    limit. With ``keep`` = 0 every bot is stopped after its game.
    """

    def __init__(self, keep: int = 0, max_games: int = 200, bind: bool = True) -> None:
        self.keep = keep
        self.max_games = max_games
        self.ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.ROUTER_MANDATORY, 1)  # sending to a vanished bot raises
        self.sock.setsockopt(zmq.MAXMSGSIZE, 4 * MAX_MESSAGE_BYTES)  # hard memory guard
        # Waiting is a blocking receive with a timeout (wakes at once when a message comes;
        # cheaper than polling then receiving), in slices so a dead bot is noticed quickly.
        self.sock.setsockopt(zmq.RCVTIMEO, POLL_SLICE_MS)
        self.rcvtimeo = POLL_SLICE_MS
        self.endpoint = ""
        if bind:
            port = self.sock.bind_to_random_port("tcp://127.0.0.1")
            self.endpoint = f"tcp://127.0.0.1:{port}"
        self.refused: set[bytes] = set()
        self.idle: dict[str, _Session] = {}  # by bot name, oldest first
        self.request_ids = itertools.count(1)  # unique across games: stale answers never match
        self.launches = 0

    def take(self, name: str) -> _Session | None:
        """A waiting, still healthy process of bot ``name``, or None."""
        session = self.idle.pop(name, None)
        if session is None:
            return None
        if session.process.alive() and not self._worn(session):
            return session
        self._stop(session)
        return None

    def _worn(self, session: _Session) -> bool:
        if session.games >= self.max_games:
            return True
        used = session.process.cpu_seconds()
        return used is not None and used > session.manifest.limits.cpu_seconds / 2

    def put(self, session: _Session) -> None:
        """Keep a healthy process for a later game (or stop it if none are kept)."""
        session.games += 1
        if self.keep <= 0 or session.manifest.name in self.idle:
            self._stop(session)
            return
        self.idle[session.manifest.name] = session
        while len(self.idle) > self.keep:
            self._stop(self.idle.pop(next(iter(self.idle))))

    def is_idle(self, identity: bytes) -> bool:
        return any(s.identity == identity for s in self.idle.values())

    def _stop(self, session: _Session) -> None:
        with contextlib.suppress(zmq.ZMQError):
            self.sock.send_multipart(
                [session.identity, encode({"type": "shutdown", "reason": "retired"})],
                zmq.NOBLOCK,
            )
        session.process.stop(SHUTDOWN_GRACE_S)
        session.log.close()

    def close(self) -> None:
        """Stop every waiting bot and close the socket."""
        while self.idle:
            self._stop(self.idle.pop(next(iter(self.idle))))
        self.sock.close(linger=0)
        self.ctx.term()


@dataclass
class _Seat:
    seat: int
    manifest: BotManifest | None  # None: a built-in random player
    token: str = ""
    process: BotProcess | None = None
    identity: bytes | None = None
    clock: Clock | None = None
    reason: Termination = Termination.OK
    detail: str = ""
    unanswered: int = 0
    stale_ids: list[int] = field(default_factory=list)
    pong_nonce: int | None = None
    ponged: bool = False
    shut_down: bool = False
    log: IO[bytes] | None = None
    rng: random.Random = field(default_factory=random.Random)

    @property
    def live(self) -> bool:
        return self.manifest is not None and self.reason == Termination.OK


class Referee:
    """Plays one game. Use :func:`play_game` unless you need the pieces (check-bot does)."""

    def __init__(
        self,
        game: Game,
        seed: int,
        bots: Sequence[BotManifest | None],
        time_control: TimeControl | None = None,
        log_dir: str | Path | None = None,
        game_id: str | None = None,
        stable: Stable | None = None,
    ) -> None:
        n = len(bots)
        if not game.min_players <= n <= game.max_players:
            raise ValueError(
                f"{game.name} is for {game.min_players}-{game.max_players} players, not {n}"
            )
        self.game = game
        self.seed = seed
        self.tc = time_control or TimeControl()
        self.game_id = game_id or f"{game.name}-{seed}"
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.seats = [
            _Seat(s, m, rng=fallback_rng(seed, s), clock=Clock(self.tc))
            for s, m in enumerate(bots)
        ]
        self.events: list[str] = []
        # A private stable (nothing kept) unless the caller shares one across games. Only a
        # game with bot processes needs a bound socket; built-in seats play in-process.
        self.owns_stable = stable is None
        self.stable = stable or Stable(keep=0, bind=any(b is not None for b in bots))
        self.ctx = self.stable.ctx
        self.sock = self.stable.sock
        self.endpoint = self.stable.endpoint
        self.refused = self.stable.refused
        self.received_at = 0.0
        self.by_identity: dict[bytes, _Seat] = {}
        self.refusals: list[str] = []
        self.request_id = 0
        self.nonces = itertools.count(1)
        self._games_before: dict[int, int] = {}
        self.finished = False
        self.state: State | None = None

    # ---------------------------------------------------------------- events and failures
    def event(self, text: str) -> None:
        if len(self.events) < MAX_EVENTS:
            self.events.append(text)

    def fail(self, seat: _Seat, reason: Termination, detail: str) -> None:
        """Record the seat's failure, tell the bot (best effort), and kill its process group."""
        if seat.reason != Termination.OK:
            return
        seat.reason = reason
        seat.detail = detail
        self.event(f"seat {seat.seat}: {reason}: {detail}")
        if seat.identity is not None:
            self._send(seat, {"type": "error", "code": reason, "message": detail}, quiet=True)
        if seat.process is not None:
            seat.process.kill()

    def _send(self, seat: _Seat, message: dict[str, Any], quiet: bool = False) -> bool:
        assert seat.identity is not None
        try:
            self.sock.send_multipart([seat.identity, encode(message)], zmq.NOBLOCK)
        except zmq.ZMQError as exc:
            if not quiet:
                alive = seat.process is not None and seat.process.alive()
                self.fail(seat, Termination.CRASH if not alive else Termination.PROTOCOL,
                          f"cannot send to the bot ({exc.strerror})")
            return False
        return True

    # ---------------------------------------------------------------- launch and handshake
    def launch(self) -> None:
        """Start every bot process, or take a waiting one from the stable (it is pinged during
        the handshake). Raises VoidGame if one cannot be started."""
        for seat in self.seats:
            if seat.manifest is None:
                continue
            session = self.stable.take(seat.manifest.name)
            if session is not None:
                seat.token, seat.process, seat.log = session.token, session.process, session.log
                seat.identity = session.identity
                self.by_identity[session.identity] = seat
                self._games_before[seat.seat] = session.games
                seat.pong_nonce = next(self.nonces)
                self._send(seat, {"type": "ping", "nonce": seat.pong_nonce})
                continue
            seat.token = secrets.token_hex(16)
            seat.log = self._open_log(seat)
            self.stable.launches += 1
            try:
                seat.process = BotProcess(
                    seat.manifest,
                    {
                        "ARENA_ENDPOINT": self.endpoint,
                        "ARENA_TOKEN": seat.token,
                        "ARENA_PROTOCOL": str(PROTOCOL_VERSION),
                        "ARENA_SEED": str(bot_seed(self.seed, seat.seat)),
                    },
                    seat.log,
                )
            except BotStartError as exc:
                raise VoidGame(str(exc)) from None

    def _open_log(self, seat: _Seat) -> IO[bytes]:
        """The bot's output file: per game, or per process when processes are kept between
        games (a kept process goes on writing to the log it started with)."""
        assert seat.manifest is not None
        if self.log_dir is None:
            path = Path(os.devnull)
        else:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            name = (f"{self.game_id}-seat{seat.seat}-{seat.manifest.name}.log"
                    if self.stable.keep <= 0 else
                    f"{seat.manifest.name}-{os.getpid()}-{self.stable.launches}.log")
            path = self.log_dir / name
        return path.open("ab")  # closed when the process is stopped

    def handshake(self) -> None:
        """Wait for every bot's hello and a pong, within the handshake limit. VoidGame if not."""
        deadline = time.monotonic() + self.tc.handshake_ms / 1000
        waiting = [s for s in self.seats if s.manifest is not None]
        while any(not s.ponged for s in waiting):
            left_ms = (deadline - time.monotonic()) * 1000
            for s in waiting:
                if s.process is not None and not s.process.alive():
                    raise VoidGame(
                        f"seat {s.seat} ({s.manifest.name if s.manifest else '?'}) "
                        f"{s.process.describe_exit()} before completing the handshake"
                        + self._refusal_note()
                    )
            if left_ms <= 0:
                late = [s for s in waiting if not s.ponged]
                names = ", ".join(
                    f"seat {s.seat} ({s.manifest.name if s.manifest else '?'})" for s in late
                )
                raise VoidGame(
                    f"no handshake from {names} within {self.tc.handshake_ms} ms"
                    + self._refusal_note()
                )
            self._receive(None, min(POLL_SLICE_MS, max(1, int(left_ms))))
            for s in self.seats:
                if s.reason != Termination.OK:
                    raise VoidGame(f"seat {s.seat} failed the handshake: {s.reason}: {s.detail}")

    def _refusal_note(self) -> str:
        return f" ({'; '.join(dict.fromkeys(self.refusals))})" if self.refusals else ""

    def _on_hello(self, identity: bytes, msg: dict[str, Any]) -> None:
        for seat in self.seats:
            if (
                seat.manifest is not None
                and seat.identity is None
                and hmac.compare_digest(seat.token, msg["token"])
            ):
                seat.identity = identity
                self.by_identity[identity] = seat
                self._send(seat, {"type": "welcome", "server": "arena",
                                  "server_version": __version__})
                seat.pong_nonce = next(self.nonces)
                self._send(seat, {"type": "ping", "nonce": seat.pong_nonce})
                self.event(f"seat {seat.seat}: hello from {msg['name']} {msg['version']}")
                return
        self._refuse(identity, "bad_token", "this token is not valid for any seat of the game")

    def _refuse(self, identity: bytes, code: str, message: str) -> None:
        self.refused.add(identity)
        self.event(f"refused a connection: {code}: {message}")
        if code != "protocol_mismatch":
            self.refusals.append(f"refused a connection: {code}: {message}")
        with contextlib.suppress(zmq.ZMQError):
            self.sock.send_multipart(
                [identity, encode({"type": "error", "code": code, "message": message})],
                zmq.NOBLOCK,
            )

    # ---------------------------------------------------------------- receiving
    def _receive(self, waiting_for: _Seat | None, wait_ms: int = 0) -> dict[str, Any] | None:
        """Read one message, waiting up to ``wait_ms`` (0: only if one is there), and deal with
        it. Returns an ``action`` message from the seat we are waiting for, if that arrived."""
        try:
            if wait_ms <= 0:
                frames = self.sock.recv_multipart(zmq.NOBLOCK)
            else:
                if wait_ms != self.stable.rcvtimeo:
                    self.sock.setsockopt(zmq.RCVTIMEO, wait_ms)
                    self.stable.rcvtimeo = wait_ms
                frames = self.sock.recv_multipart()
        except zmq.Again:
            return None
        # The bot's time stops when its message arrives, not after the referee has read it.
        self.received_at = time.perf_counter()
        identity = frames[0]
        if identity in self.refused:
            return None
        seat = self.by_identity.get(identity)
        if seat is None and self.stable.is_idle(identity):
            self.event("ignored a message from a bot waiting for its next game")
            return None
        if len(frames) != 2:
            if seat is not None:
                self.fail(seat, Termination.PROTOCOL,
                          f"a message must be one frame, got {len(frames) - 1}")
            return None
        try:
            msg = decode(frames[1], BOT_MESSAGES)
        except ProtocolError as exc:
            if seat is None:
                code = "protocol_mismatch" if exc.code == "protocol_mismatch" else "bad_hello"
                self._refuse(identity, code, str(exc))
                if exc.code == "protocol_mismatch":
                    self._mismatch(str(exc))
            else:
                self.fail(seat, Termination.PROTOCOL, str(exc))
            return None
        if seat is None:
            if msg["type"] == "hello":
                self._on_hello(identity, msg)
            else:
                self._refuse(identity, "protocol_error", "the first message must be a hello")
            return None
        if not seat.live:
            return None
        seat.unanswered += 1
        if seat.unanswered > FLOOD_LIMIT:
            self.fail(seat, Termination.PROTOCOL,
                      f"flood: more than {FLOOD_LIMIT} messages without answering a request")
            return None
        mtype = msg["type"]
        if mtype == "action":
            if seat is waiting_for and msg["request_id"] == self.request_id:
                return msg
            self.event(
                f"seat {seat.seat}: ignored an action for request {msg['request_id']} "
                f"(open request: {self.request_id if seat is waiting_for else 'none'})"
            )
            if seat is waiting_for and len(seat.stale_ids) < 3:
                seat.stale_ids.append(msg["request_id"])
        elif mtype == "pong":
            if msg["nonce"] == seat.pong_nonce:
                seat.ponged = True
            else:
                self.event(f"seat {seat.seat}: pong with unexpected nonce {msg['nonce']}")
        elif mtype == "error":
            self.event(f"seat {seat.seat} reports error {msg['code']}: {msg['message'][:200]}")
        elif mtype == "hello":
            self.fail(seat, Termination.PROTOCOL, "a second hello")
        return None

    def _mismatch(self, detail: str) -> None:
        # A bot speaking another protocol version can never complete the handshake: its token
        # was never read, so the seat is unknown; the reason goes into the VoidGame message.
        self.refusals.append(f"a connection spoke another protocol: {detail}")

    # ---------------------------------------------------------------- the game
    def start_game(self) -> State:
        state = self.game.new_state(len(self.seats), seed=self.seed)
        self.state = state
        components = self.game.components()
        for seat in self.seats:
            if seat.live:
                self._send(seat, {
                    "type": "game_start", "game_id": self.game_id, "game": self.game.name,
                    "rules_version": self.game.rules_version, "seat": seat.seat,
                    "num_players": len(self.seats), "time_control": self.tc.to_dict(),
                    "components": components, "bot_seed": bot_seed(self.seed, seat.seat),
                })
        return state

    def ask(self, seat: _Seat, state: State) -> tuple[int, float] | None:
        """Request a decision from ``seat``'s bot. Returns (index, ms) or None if it failed."""
        assert seat.clock is not None and seat.process is not None
        if not seat.process.alive():
            self.fail(seat, Termination.CRASH, seat.process.describe_exit())
            return None
        actions = state.legal_actions()
        self.request_id = next(self.stable.request_ids)
        allowance = seat.clock.allowance_ms()
        payload = encode({
            "type": "request", "game_id": self.game_id, "request_id": self.request_id,
            "observation": state.observation(seat.seat), "legal_actions": actions,
            "time_left_ms": int(seat.clock.bank_ms), "decision_ms": allowance,
        })
        deadline_ms = seat.clock.deadline_ms()
        seat.unanswered = 0
        seat.stale_ids.clear()
        t0 = time.perf_counter()
        try:
            self.sock.send_multipart([seat.identity, payload], zmq.NOBLOCK)  # type: ignore[list-item]
        except zmq.ZMQError as exc:
            self.fail(seat, Termination.CRASH if not seat.process.alive() else Termination.PROTOCOL,
                      f"cannot send the request ({exc.strerror})")
            return None
        while True:
            elapsed = (time.perf_counter() - t0) * 1000
            left = deadline_ms - elapsed
            if left <= 0:
                stale = (
                    f"; it answered request ids {seat.stale_ids} instead" if seat.stale_ids else ""
                )
                self.fail(seat, Termination.TIMEOUT,
                          f"no answer to request {self.request_id} within "
                          f"{deadline_ms:.0f} ms{stale}")
                return None
            got = self._receive(seat, POLL_SLICE_MS if left > POLL_SLICE_MS else int(left) + 1)
            if got is not None:
                return self._accept(seat, got, len(actions), (self.received_at - t0) * 1000)
            if not seat.live:
                return None
            if not seat.process.alive():
                self.fail(seat, Termination.CRASH, seat.process.describe_exit())
                return None

    def _accept(
        self, seat: _Seat, msg: dict[str, Any], n_actions: int, used_ms: float
    ) -> tuple[int, float] | None:
        assert seat.clock is not None
        if not seat.clock.charge(used_ms):
            self.fail(seat, Termination.TIMEOUT,
                      f"answered request {self.request_id} after {used_ms:.0f} "
                      f"ms; the deadline was {seat.clock.deadline_ms():.0f} ms")
            return None
        index = msg["index"]
        if not 0 <= index < n_actions:
            self.fail(seat, Termination.ILLEGAL, f"index {index} is not in 0..{n_actions - 1}")
            return None
        return index, used_ms

    def play(self) -> GameRecord:
        """Run the whole game (after :meth:`launch` and :meth:`handshake`)."""
        t_start = time.monotonic()
        state = self.start_game()
        decisions: list[list[Any]] = []
        while not state.is_terminal:
            seat = self.seats[state.current_player]  # type: ignore[index]
            got = self.ask(seat, state) if seat.live else None
            if got is None:
                index = seat.rng.randrange(state.num_legal())
                by, used = "fallback", 0.0
            else:
                (index, used), by = got, "bot"
            action = state.action_of(state.legal_keys()[index])
            decisions.append([seat.seat, index, round(used, 3), by, action])
            state.apply_index(index)
        self.finished = True
        result = state.result()
        failed = [s.reason != Termination.OK for s in self.seats]
        ranks = final_ranks(result.ranks, failed)
        terminations = [
            {"seat": s.seat, "reason": s.reason, "detail": s.detail} for s in self.seats
        ]
        for seat in self.seats:
            if seat.live:
                self._send(seat, {
                    "type": "game_end", "game_id": self.game_id,
                    "scores": list(result.scores), "ranks": ranks,
                    "terminations": terminations,
                    "breakdown": [dict(b) for b in result.breakdown],
                }, quiet=True)
        return GameRecord(
            game_id=self.game_id,
            game=self.game.name,
            rules_version=self.game.rules_version,
            seed=self.seed,
            num_players=len(self.seats),
            time_control=self.tc.to_dict(),
            seats=[self._seat_info(s) for s in self.seats],
            decisions=decisions,
            terminations=terminations,
            result=result.to_dict(),
            ranks=ranks,
            rounds=getattr(state, "round", None),
            events=self.events,
            duration_s=round(time.monotonic() - t_start, 3),
        )

    @staticmethod
    def _seat_info(s: _Seat) -> dict[str, Any]:
        if s.manifest is None:
            return {"seat": s.seat, "bot": "builtin", "version": __version__,
                    "language": "builtin"}
        return {"seat": s.seat, "bot": s.manifest.name, "version": s.manifest.version,
                "language": s.manifest.language}

    def ping(self, seat: _Seat, timeout_ms: float) -> float | None:
        """Ping a live bot between games; the round trip in ms, or None (and a failure)."""
        if not seat.live or seat.identity is None:
            return None
        seat.pong_nonce = next(self.nonces)
        seat.ponged = False
        seat.unanswered = 0
        t0 = time.perf_counter()
        if not self._send(seat, {"type": "ping", "nonce": seat.pong_nonce}):
            return None
        while not seat.ponged:
            left = timeout_ms - (time.perf_counter() - t0) * 1000
            if left <= 0:
                self.fail(seat, Termination.TIMEOUT, f"no pong within {timeout_ms:.0f} ms")
                return None
            if (
                self._receive(None, max(1, min(POLL_SLICE_MS, int(left) + 1))) is None
                and seat.process is not None
                and not seat.process.alive()
            ):
                self.fail(seat, Termination.CRASH, seat.process.describe_exit())
            if not seat.live:
                return None
        return (time.perf_counter() - t0) * 1000

    def send_shutdown(self, seat: _Seat) -> None:
        """Tell a live bot to exit (once)."""
        if seat.identity is not None and seat.reason == Termination.OK and not seat.shut_down:
            seat.shut_down = True
            self._send(seat, {"type": "shutdown", "reason": "game over"}, quiet=True)

    # ---------------------------------------------------------------- shutdown
    def close(self) -> None:
        """End the game's use of its bots. With a shared stable that keeps processes, each bot
        that played the whole game without failing goes back to it; every other bot is told to
        shut down, given a moment, then killed with its whole process group.

        Always safe to call; called by :func:`play_game` in a ``finally``.
        """
        stop: list[_Seat] = []
        for s in self.seats:
            if s.process is None:
                continue
            assert s.manifest is not None and s.log is not None
            if (not self.owns_stable and self.finished and s.reason == Termination.OK
                    and s.identity is not None and not s.shut_down and s.process.alive()):
                self.stable.put(_Session(s.manifest, s.token, s.process, s.identity, s.log,
                                         self._games_before.get(s.seat, 0)))
            else:
                stop.append(s)
                self.send_shutdown(s)
        deadline = time.monotonic() + SHUTDOWN_GRACE_S
        for s in stop:
            assert s.process is not None and s.log is not None
            s.process.stop(max(0.0, deadline - time.monotonic()))
            s.log.close()
        if self.owns_stable:
            self.stable.close()

    def kill_all(self) -> None:
        """Kill every bot process group at once (interrupts); none is kept for reuse."""
        self.finished = False
        for s in self.seats:
            if s.process is not None:
                s.process.kill()


def play_game(
    game: Game,
    seed: int,
    bots: Sequence[BotManifest | None],
    time_control: TimeControl | None = None,
    log_dir: str | Path | None = None,
    game_id: str | None = None,
    stable: Stable | None = None,
) -> GameRecord:
    """Play one refereed game. ``bots[s]`` is seat s's manifest, or None for a built-in random
    player. Raises :class:`VoidGame` if the game could not be played. Without a ``stable``, no
    bot process outlives this call; with one, healthy bots may wait in it for a later game
    (the stable's owner stops them)."""
    referee = Referee(game, seed, bots, time_control, log_dir, game_id, stable)
    try:
        referee.launch()
        referee.handshake()
        return referee.play()
    except BaseException:
        referee.kill_all()
        raise
    finally:
        referee.close()


def play_random_game(game: Game, players: int, seed: int) -> State:
    """Play one game with a built-in random player in every seat; return the final state.

    The same seeded per-seat policy as the fallback of a failed bot, in-process, no sockets.
    """
    state = game.new_state(players, seed=seed)
    rngs = [fallback_rng(seed, s) for s in range(players)]
    while not state.is_terminal:
        state.apply_index(rngs[state.current_player].randrange(state.num_legal()))  # type: ignore[index]
    return state
