"""What the ``arena`` commands share: the consoles, one way to fail with a message, and the
option checks that turn a library error into that message.

Every ``arena`` command starts by importing this module and the ``cli*`` modules, whatever it
does (``arena --help`` too): at their top level they import only Typer, Rich's console and
what the commands' signatures need. The library is imported inside the command that uses it.
"""

from __future__ import annotations

import importlib
import inspect
import json
import signal
import sys
import time
import types
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console, ConsoleDimensions
from rich.markup import escape

if TYPE_CHECKING:
    from typer._click import Context, HelpFormatter

    from arena.engine.api import Game
    from arena.runner.game.clock import TimeControl
    from arena.runner.game.manifest import BotManifest
    from arena.runner.game.needs import NeedsRule
    from arena.runner.play.ring import StopRequest

#: The width a console writes at when its output is not a terminal (a pipe, a file): wide
#: enough that no line is ever cut or wrapped, so a reader of the output gets whole lines.
UNCUT_WIDTH = 1_000_000


class WholeLines(Console):
    """A console that writes at a terminal's width, and at :data:`UNCUT_WIDTH` to anything
    else: Rich would otherwise cut and wrap a pipe's output at 80 columns, or at ``COLUMNS``
    (which describes a terminal, not a pipe). A width set on the console still holds."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._width = kwargs.get("width")  # not COLUMNS: the terminal's size is read as it is

    def _get_size(self) -> ConsoleDimensions:
        size = Console.size.fget(self)  # type: ignore[attr-defined]
        if self._width is None and not self.is_terminal:
            return ConsoleDimensions(UNCUT_WIDTH, size.height)
        return size

    size = property(_get_size, Console.size.fset)  # type: ignore[attr-defined]


out = WholeLines(highlight=False)
err = WholeLines(stderr=True, highlight=False, soft_wrap=True)


#: What Typer's help formatter (``typer.rich_utils``) imports and the help never uses: Rich's
#: Markdown (for help written in Markdown; Arena's is in Rich's markup) and its tracebacks
#: (for an uncaught error), with the Markdown parser and the syntax highlighter behind them,
#: about 90 ms of the 150 ms of ``arena --help``.
HELP_NEEDS_NOT = {"rich.markdown": "Markdown", "rich.traceback": "Traceback"}


class _Deferred(type):
    """A stand-in for a class whose module is imported only if the class is used."""

    _module: str

    def _real(cls) -> Any:
        return getattr(importlib.import_module(cls._module), cls.__name__)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._real()(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        return getattr(cls._real(), name)


def _import_help_formatter() -> None:
    """Import ``typer.rich_utils`` with stand-ins for :data:`HELP_NEEDS_NOT`: each imports
    its real module the first time it is used (a Markdown help, a traceback shown), and the
    stand-in modules are gone once the formatter is in, so any other import gets the real
    ones."""
    if "typer.rich_utils" in sys.modules:
        return
    stand_ins = {}
    for module, name in HELP_NEEDS_NOT.items():
        if module not in sys.modules:
            stand_in = types.ModuleType(module)
            setattr(stand_in, name, _Deferred(name, (), {"_module": module}))
            stand_ins[module] = sys.modules[module] = stand_in
    try:
        importlib.import_module("typer.rich_utils")
    finally:
        for module, stand_in in stand_ins.items():
            if sys.modules.get(module) is stand_in:
                del sys.modules[module]


class HelpGroup(typer.core.TyperGroup):
    """A command group whose help is Typer's, formatted without :data:`HELP_NEEDS_NOT`."""

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        _import_help_formatter()
        super().format_help(ctx, formatter)


class HelpCommand(typer.core.TyperCommand):
    """A command whose help is Typer's, formatted without :data:`HELP_NEEDS_NOT`."""

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        _import_help_formatter()
        super().format_help(ctx, formatter)


def whole_paragraphs(app: typer.Typer) -> None:
    """Give every command of ``app`` and of its groups its docstring with each paragraph on
    one line, as its help: Typer keeps the source's line breaks in the paragraphs after the
    first, and the help, wrapped again to the terminal, came out ragged. And every command
    and group its help formatted by :class:`HelpCommand` and :class:`HelpGroup`."""
    app.info.cls = app.info.cls or HelpGroup
    for info in app.registered_commands:
        info.cls = info.cls or HelpCommand
        doc = inspect.getdoc(info.callback) if info.callback is not None else None
        if info.help is None and doc:
            info.help = "\n\n".join(" ".join(p.split()) for p in doc.split("\n\n"))
    for group in app.registered_groups:
        if group.typer_instance is not None:
            whole_paragraphs(group.typer_instance)


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code)


def say_drawn_seed(seed: int, what: str) -> None:
    """The line that makes ``what``, played on a seed drawn at random, replayable."""
    out.print(f"seed {seed} was drawn at random: --seed {seed} plays {what} again",
              soft_wrap=True)


def game_named(name: str, players: int | None = None) -> Game:
    from arena.engine import UnknownGameError, get_game

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
    from arena.runner.game.manifest import BotManifest, ManifestError

    try:
        return [BotManifest.load(p, entering) for p in paths]
    except ManifestError as exc:
        fail(str(exc))


GameOptions = Annotated[
    list[str] | None, typer.Option(
        "--option", metavar="NAME=VALUE",
        help="A game option, e.g. --option hand=3 (repeat for each; see `arena games` for "
             "each game's options and their values; the others keep their defaults).")
]


def option_pairs(raw: list[str] | None) -> dict[str, str]:
    """``--option NAME=VALUE`` arguments as a map, or a clear error (exit 2) for one that is
    not NAME=VALUE or a name given twice."""
    pairs: dict[str, str] = {}
    for item in raw or []:
        name, eq, value = item.partition("=")
        name = name.strip()
        if not eq or not name:
            fail(f"--option {item!r} is not NAME=VALUE (e.g. --option hand=3)")
        if name in pairs:
            fail(f"--option {name} is given twice")
        pairs[name] = value.strip()
    return pairs


def game_options(game: Game, raw: list[str] | None) -> dict[str, str]:
    """The complete options of ``game`` from ``--option`` arguments, or a clear error (exit 2)
    naming the option and the values it takes."""
    try:
        return game.validate_options(option_pairs(raw))
    except ValueError as exc:
        fail(f"{exc} (--option)")


NeedsWithin = Annotated[
    Path | None, typer.Option(
        "--needs-within", help="How far a bot's `needs` may reach (default: the folder "
                               "holding the bot's folder).", file_okay=False, exists=True)
]


def time_control(decision_ms: int, bank_ms: int, handshake_ms: int) -> TimeControl:
    from arena.runner.game.clock import TimeControl

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
    from arena.runner.game.sandbox import SandboxError, require_sandbox

    mode = "bwrap" if on else "none"
    try:
        require_sandbox(mode)
    except SandboxError as exc:
        fail(str(exc))
    return mode


def print_log_tail(path: Path, lines: int = 10) -> None:
    """Name a bot's log and show its last lines (or say that it wrote nothing)."""
    from arena.runner.game.botlog import log_tail

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
    from arena.runner.play.ring import StopRequest

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
        from arena.runner.play.live import plain_line

        for notice in snapshot.notices[self.notices:]:
            err.print(notice, markup=False, highlight=False)
        self.notices = len(snapshot.notices)
        now = time.monotonic()
        if (snapshot.games_done != self.done or now - self.t > 10
                or snapshot.waiting != self.waiting):
            self.done, self.t, self.waiting = snapshot.games_done, now, snapshot.waiting
            typer.echo(plain_line(snapshot))


#: The options every benchmark command takes.
Seed = Annotated[int, typer.Option()]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def print_figures(
    title: str, figures: dict[str, Any], rows: list[tuple[str, str]], as_json: bool
) -> None:
    """A benchmark's figures: one JSON object, or a table of (figure, value) rows."""
    if as_json:
        typer.echo(json.dumps(figures))
        return
    from rich.table import Table

    table = Table(title=title)
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name, value in rows:
        table.add_row(name, value)
    out.print(table)
