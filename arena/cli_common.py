"""What the ``arena`` commands share: the consoles, one way to fail with a message, and the
option checks that turn a library error into that message."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from arena.engine import UnknownGameError, get_game
from arena.engine.api import Game
from arena.runner.botlog import log_tail
from arena.runner.bots import BotManifest
from arena.runner.clock import TimeControl

if TYPE_CHECKING:
    from arena.runner.needs import NeedsRule
    from arena.runner.tournament import StopRequest

out = Console(highlight=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code)


def say_drawn_seed(seed: int, what: str) -> None:
    """The line that makes ``what``, played on a seed drawn at random, replayable."""
    out.print(f"seed {seed} was drawn at random: --seed {seed} plays {what} again",
              soft_wrap=True)


def game_named(name: str, players: int | None = None) -> Game:
    try:
        game = get_game(name)
    except UnknownGameError as exc:
        fail(str(exc))
    if players is not None and not game.min_players <= players <= game.max_players:
        fail(
            f"{game.name} is for {game.min_players}-{game.max_players} players, "
            f"not {players} (--players)"
        )
    return game


def load_manifests(paths: list[Path],
                   entering: NeedsRule | None = None) -> list[BotManifest]:
    """The bots in ``paths``, entering under the rule ``entering`` if given, or a clear error."""
    from arena.runner.bots import ManifestError

    try:
        return [BotManifest.load(p, entering) for p in paths]
    except ManifestError as exc:
        fail(str(exc))


NeedsWithin = Annotated[
    Path | None, typer.Option(
        "--needs-within", help="How far a bot's `needs` may reach (default: the folder "
                               "holding the bot's folder).", file_okay=False, exists=True)
]


def time_control(decision_ms: int, bank_ms: int, handshake_ms: int) -> TimeControl:
    try:
        return TimeControl(handshake_ms=handshake_ms, decision_ms=decision_ms, bank_ms=bank_ms)
    except ValueError as exc:
        fail(str(exc))


def seed_key_or_fail() -> bytes:
    """The key of single games' bot seeds (the user's key file), or a clear error."""
    from arena.seeds import SeedKeyError, user_seed_key

    try:
        return user_seed_key()
    except SeedKeyError as exc:
        fail(str(exc))


def terminate_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so every ``finally`` runs and bot groups are killed."""

    def handler(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def sandbox_mode(on: bool) -> str:
    """The sandbox mode of --sandbox/--no-sandbox; with --sandbox, a clear error (no
    fallback) if the sandbox cannot work here."""
    from arena.runner.sandbox import SandboxError, require_sandbox

    mode = "bwrap" if on else "none"
    try:
        require_sandbox(mode)
    except SandboxError as exc:
        fail(str(exc))
    return mode


def print_log_tail(path: Path, lines: int = 10) -> None:
    """Name a bot's log and show its last lines (or say that it wrote nothing)."""
    tail = log_tail(path, lines)
    if not tail:
        out.print(f"      its log, {path}, is empty", soft_wrap=True)
        return
    out.print(f"      the end of its log, {path}:", soft_wrap=True)
    for line in tail:
        out.print(f"      | {escape(line)}", soft_wrap=True)


def stop_on_signals(live_view: bool) -> StopRequest:
    """A stop request that Ctrl-C escalates (finish the games in progress, then abandon them)
    and SIGTERM sets to abandon; said on stderr unless the live view says it itself (a line
    printed beside it would leave a copy of the view behind)."""
    from arena.runner.tournament import StopRequest

    stop = StopRequest()

    def on_interrupt(signum: int, frame: object) -> None:
        stop.escalate()
        if live_view:
            return
        what = ("finishing the games in progress (Ctrl-C again to abandon them)"
                if stop.level == 1 else "abandoning the games in progress")
        err.print(f"[yellow]stopping:[/] {what}")

    signal.signal(signal.SIGINT, on_interrupt)
    signal.signal(signal.SIGTERM, lambda s, f: setattr(stop, "level", 2))
    return stop


class PlainProgress:
    """Progress lines for a run without the live view: one when a game finishes (or every
    10 s, or when waiting for workers starts or ends), and each notice once, on stderr."""

    def __init__(self) -> None:
        self.done, self.t, self.waiting, self.notices = -1, 0.0, False, 0

    def __call__(self, snapshot: Any) -> None:
        from arena.runner.live import plain_line

        for notice in snapshot.notices[self.notices:]:
            err.print(notice, markup=False, highlight=False)
        self.notices = len(snapshot.notices)
        now = time.monotonic()
        if (snapshot.games_done != self.done or now - self.t > 10
                or snapshot.waiting != self.waiting):
            self.done, self.t, self.waiting = snapshot.games_done, now, snapshot.waiting
            typer.echo(plain_line(snapshot))
