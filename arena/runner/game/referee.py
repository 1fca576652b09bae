"""The referee: one game between bot processes, under time control, to a GameRecord.

The move loop is a checklist. For each decision: is the seat's bot still usable -> send the
request -> wait for a valid answer until the deadline -> apply it. Every way a bot can fail sets
that seat's termination reason (timeout, crash, illegal_action, protocol_error); its seat is then
played to the end by a seeded random fallback, and it is ranked last. A bot that cannot start or
does not finish the handshake makes the game void (:class:`VoidGame`), which is not a loss.

Every bot process is killed, with its whole process group, before :func:`play_game` returns or
raises, whatever happens (game over, bot failure, KeyboardInterrupt, SystemExit).

What a bot may send and what each message means is :mod:`arena.protocol.server`'s business; the
processes kept between games are :mod:`arena.runner.game.stable`'s. The referee composes them
with the engine and the clocks.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena import __version__
from arena.engine import Game, State
from arena.protocol.messages import (
    PROTOCOL_VERSION,
    Termination,
    game_end,
    game_start,
)
from arena.protocol.packing import packer_for
from arena.protocol.server import Connection, Failure, Server, new_token
from arena.protocol.transport import POLL_SLICE_MS
from arena.results import SeatResult
from arena.runner.game.botlog import DEFAULT_LOG_CAP, BotLog
from arena.runner.game.clock import Clock, TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.processes import BotStartError, RunningBot
from arena.runner.game.record import (
    BY_BOT,
    BY_FALLBACK,
    Decision,
    GameRecord,
    final_ranks,
    terminations_of,
)
from arena.runner.game.sandbox import DEFAULT_MODE
from arena.runner.game.stable import SHUTDOWN_GRACE_S, Session, Stable
from arena.seeds import bot_seed, check_seed_key, fallback_rng, game_label, user_seed_key

MAX_EVENTS = 500
#: The name a built-in random player goes by in a record.
BUILTIN = "builtin"


class VoidGame(Exception):
    """The game could not be played for a reason that is nobody's loss (a bot could not start
    or did not complete the handshake). The caller may retry it."""


@dataclass
class _Seat:
    seat: int
    manifest: BotManifest | None  # None: a built-in random player
    clock: Clock
    rng: random.Random
    process: RunningBot | None = None
    log: BotLog | None = None
    connection: Connection | None = None  # from launch on, for a bot
    door: int | None = None  # where its bot connects, for a transport with doors

    @property
    def failure(self) -> Failure | None:
        return self.connection.failure if self.connection is not None else None

    @property
    def reason(self) -> Termination:
        return Termination.OK if self.failure is None else self.failure.reason

    @property
    def detail(self) -> str:
        return "" if self.failure is None else self.failure.detail

    @property
    def identity(self) -> bytes | None:
        return self.connection.identity if self.connection is not None else None

    @property
    def live(self) -> bool:
        return self.manifest is not None and self.reason == Termination.OK

    @property
    def name(self) -> str:
        return f"seat {self.seat} ({self.manifest.name if self.manifest else '?'})"


class Referee:
    """Plays one game. Use :func:`play_game` unless you need the pieces (check-bot does).

    ``options``: the game's options (None: its defaults), validated here (ValueError).
    ``seed_key`` is the secret key bots' seeds are derived with (:func:`arena.seeds.bot_seed`);
    it never leaves the runner. None: the user's key (:func:`arena.seeds.user_seed_key`), so the
    same seed gives the same game, as ``arena play`` promises. ``sandbox`` ("none" or "bwrap")
    applies to the referee's own stable, made when no ``stable`` is shared.
    """

    def __init__(
        self,
        game: Game,
        seed: int,
        bots: Sequence[BotManifest | None],
        time_control: TimeControl | None = None,
        log_dir: str | Path | None = None,
        game_id: str | None = None,
        stable: Stable | None = None,
        log_cap: int = DEFAULT_LOG_CAP,
        seed_key: bytes | None = None,
        sandbox: str = DEFAULT_MODE,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        n = len(bots)
        if not game.min_players <= n <= game.max_players:
            raise ValueError(
                f"{game.name} is for {game.min_players}-{game.max_players} players, not {n}"
            )
        self.game = game
        self.options = game.validate_options(options)
        self.seed = seed
        self.seed_key = check_seed_key(seed_key) if seed_key is not None else user_seed_key()
        self.tc = time_control or TimeControl()
        # Named by a keyed label unless the caller names it: a game named by its seed would tell
        # every bot the whole game.
        self.game_id = game_id or f"{game.name}-{game_label(self.seed_key, seed)}"
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.log_cap = log_cap
        self.seats = [
            _Seat(s, m, Clock(self.tc), fallback_rng(seed, s)) for s, m in enumerate(bots)
        ]
        self.events: list[str] = []
        # A private stable (nothing kept) unless the caller shares one across games. Only a
        # game with bot processes needs a bound socket; built-in seats play in-process.
        self.owns_stable = stable is None
        self.stable = stable or Stable(keep=0, bind=any(b is not None for b in bots),
                                       sandbox=sandbox)
        self.server = Server(self.stable.endpoint, self.event)
        self._games_before: dict[int, int] = {}
        self.finished = False
        #: The first line of a kept bot's log, when it is not this game's (a start check's).
        self.log_heading: str | None = None
        self.state: State | None = None
        # Each legal action's encoding, made once a game (its keys name the same action in
        # every state), or once a process for a game whose keys name the same action in every
        # game of its options: the requests join them instead of encoding every list.
        self.actions = packer_for(game, self.options)

    @property
    def refusals(self) -> list[str]:
        """Why connections were refused during this game."""
        return self.server.refusals

    def bot_seed(self, seat: int) -> int:
        """The seed the bot in ``seat`` is given (keyed: it does not reveal the game seed)."""
        return bot_seed(self.seed_key, self.seed, seat)

    def event(self, text: str) -> None:
        if len(self.events) < MAX_EVENTS:
            self.events.append(text)

    # ---------------------------------------------------------------- launch and handshake
    def launch(self) -> None:
        """Start every bot process, or take a waiting one from the stable (it is pinged during
        the handshake). Raises VoidGame if one cannot be started."""
        for seat in self.seats:
            if seat.manifest is None:
                continue
            label = f"seat {seat.seat}"
            session = self.stable.take(seat.manifest.name)
            if session is not None:
                seat.process, seat.log, seat.door = session.process, session.log, session.door
                seat.log.begin_game(self.game_id, self.log_cap)
                self._games_before[seat.seat] = session.games
                seat.connection = self.server.resume(label, session.token, session.identity,
                                                     session.process, session.door)
                continue
            token = new_token()
            seat.log = self.stable.new_log(self.log_dir, self.game_id, seat.seat, seat.manifest,
                                           self.log_cap, self.log_heading)
            try:
                seat.process, seat.door = self.stable.launch(
                    seat.manifest,
                    {
                        "ARENA_TOKEN": token,
                        "ARENA_PROTOCOL": str(PROTOCOL_VERSION),
                        "ARENA_SEED": str(self.bot_seed(seat.seat)),
                    },
                    seat.log,
                )
            except BotStartError as exc:
                seat.log.close()  # no process: close() below skips this seat
                raise VoidGame(str(exc)) from None
            seat.connection = self.server.expect(label, token, seat.process, seat.door)

    def handshake(self) -> None:
        """Wait for every bot's hello and a pong, within the handshake limit. VoidGame if not."""
        deadline = time.monotonic() + self.tc.handshake_ms / 1000
        waiting = [(s, s.connection) for s in self.seats if s.connection is not None]
        while any(not c.ponged for _, c in waiting):
            left_ms = (deadline - time.monotonic()) * 1000
            for s, c in waiting:
                if not c.process.alive():
                    raise VoidGame(f"{s.name} {c.process.describe_exit()} before completing "
                                   f"the handshake{self._refusal_note()}")
            if left_ms <= 0:
                names = ", ".join(s.name for s, c in waiting if not c.ponged)
                raise VoidGame(f"no handshake from {names} within {self.tc.handshake_ms} ms"
                               + self._refusal_note())
            self.server.receive(None, min(POLL_SLICE_MS, max(1, int(left_ms))))
            for s in self.seats:
                if s.reason != Termination.OK:
                    raise VoidGame(f"seat {s.seat} failed the handshake: {s.reason}: {s.detail}")

    def _refusal_note(self) -> str:
        return f" ({'; '.join(dict.fromkeys(self.refusals))})" if self.refusals else ""

    # ---------------------------------------------------------------- the game
    def start_game(self) -> State:
        state = self.game.new_state(len(self.seats), seed=self.seed, options=self.options)
        self.state = state
        components = self.game.components(self.options)
        for seat in self.seats:
            if seat.live and seat.connection is not None:
                seat.connection.send(game_start(
                    self.game_id, self.game.name, self.game.rules_version, seat.seat,
                    len(self.seats), self.tc.to_dict(), components, self.bot_seed(seat.seat),
                    dict(self.options),
                ))
        return state

    def ask(self, seat: _Seat, state: State) -> tuple[int, float] | None:
        """Request a decision from ``seat``'s bot. Returns (index, ms) or None if it failed."""
        connection, clock = seat.connection, seat.clock
        assert connection is not None
        keys = state.legal_keys()
        got = connection.ask(self.game_id, state.observation(seat.seat),
                             self.actions.pack(keys, state.action_of),
                             int(clock.bank_ms), clock.allowance_ms(), clock.deadline_ms())
        if isinstance(got, Failure):
            return None
        # The connection held the bot to the clock's deadline: the reply is in time, and the
        # clock only takes what it used from the bank.
        clock.charge(got.ms)
        if not 0 <= got.index < len(keys):
            connection.fail(Termination.ILLEGAL,
                            f"index {got.index} is not in 0..{len(keys) - 1}")
            return None
        return got.index, got.ms

    def play(self) -> GameRecord:
        """Run the whole game (after :meth:`launch` and :meth:`handshake`)."""
        t_start = time.monotonic()
        state = self.start_game()
        decisions: list[Decision] = []
        while not state.is_terminal:
            seat = self.seats[state.current_player]  # type: ignore[index]
            got = self.ask(seat, state) if seat.live else None
            if got is None:
                index = seat.rng.randrange(state.num_legal())
                by, used = BY_FALLBACK, 0.0
            else:
                (index, used), by = got, BY_BOT
            action = state.action_of(state.legal_keys()[index])
            decisions.append(Decision(seat.seat, index, round(used, 3), by, action))
            state.apply_index(index)
        self.finished = True
        result = state.result()
        failed = [s.reason != Termination.OK for s in self.seats]
        ranks = final_ranks(result.ranks, failed)
        seat_results = tuple(
            SeatResult(self._bot_name(s), score, rank, s.reason, s.detail)
            for s, score, rank in zip(self.seats, result.scores, ranks, strict=True))
        terminations = terminations_of(seat_results)
        for seat in self.seats:
            if seat.live and seat.connection is not None:
                seat.connection.send(game_end(
                    self.game_id, list(result.scores), ranks, terminations,
                    [dict(b) for b in result.breakdown],
                ), quiet=True)
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
            rounds=state.progress,
            events=self.events,
            duration_s=round(time.monotonic() - t_start, 3),
            seat_results=seat_results,
            options=self.game.canonical_options(self.options),
        )

    @staticmethod
    def _bot_name(s: _Seat) -> str:
        return BUILTIN if s.manifest is None else s.manifest.name

    @staticmethod
    def _seat_info(s: _Seat) -> dict[str, Any]:
        if s.manifest is None:
            return {"seat": s.seat, "bot": BUILTIN, "version": __version__,
                    "language": BUILTIN}
        return {"seat": s.seat, "bot": s.manifest.name, "version": s.manifest.version,
                "language": s.manifest.language}

    def send_shutdown(self, seat: _Seat) -> None:
        """Tell a live bot to exit (once)."""
        if seat.connection is not None:
            seat.connection.shutdown("game over")

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
            c = s.connection
            if (not self.owns_stable and self.finished and c is not None and c.failure is None
                    and c.identity is not None and not c.shut_down and s.process.alive()):
                self.stable.put(Session(s.manifest, c.token, s.process, c.identity, s.log,
                                        self._games_before.get(s.seat, 0), s.door))
            else:
                stop.append(s)
                self.send_shutdown(s)
        deadline = time.monotonic() + SHUTDOWN_GRACE_S
        for s in stop:
            assert s.process is not None and s.log is not None
            s.process.stop(max(0.0, deadline - time.monotonic()))
            s.log.close()
            self.stable.close_door(s.door)
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
    log_cap: int | None = None,
    seed_key: bytes | None = None,
    sandbox: str = DEFAULT_MODE,
    options: Mapping[str, Any] | None = None,
) -> GameRecord:
    """Play one refereed game. ``bots[s]`` is seat s's manifest, or None for a built-in random
    player. Raises :class:`VoidGame` if the game could not be played. Without a ``stable``, no
    bot process outlives this call; with one, healthy bots may wait in it for a later game
    (the stable's owner stops them). Each bot's output is logged under ``log_dir`` (nowhere if
    None), at most ``log_cap`` bytes of it for this game (default
    :data:`~arena.runner.game.botlog.DEFAULT_LOG_CAP`). ``seed_key``: the secret the bots' seeds are
    derived with (see :class:`Referee`); the same key and seed give the same game.
    ``sandbox``: "bwrap" starts each bot in a bubblewrap sandbox (without a ``stable``; a
    shared stable has its own setting), raising
    :class:`~arena.runner.game.sandbox.SandboxError` if that cannot work here. ``options``:
    the game's options (None: its defaults; ValueError for options it does not take)."""
    referee = Referee(game, seed, bots, time_control, log_dir, game_id, stable,
                      DEFAULT_LOG_CAP if log_cap is None else log_cap, seed_key, sandbox,
                      options)
    try:
        referee.launch()
        referee.handshake()
        return referee.play()
    except BaseException:
        referee.kill_all()
        raise
    finally:
        referee.close()


def play_random_game(game: Game, players: int, seed: int,
                     options: Mapping[str, Any] | None = None) -> State:
    """Play one game with a built-in random player in every seat; return the final state.

    The same seeded per-seat policy as the fallback of a failed bot, in-process, no sockets.
    """
    state = game.new_state(players, seed=seed, options=options)
    rngs = [fallback_rng(seed, s) for s in range(players)]
    while not state.is_terminal:
        state.apply_index(rngs[state.current_player].randrange(state.num_legal()))  # type: ignore[index]
    return state
