"""The ``arena`` command line. Commands are thin: parse options, call the library, print.

Domain errors become a message on stderr and exit code 2, in one place
(:func:`arena.cli.common.fail`).
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from arena.cli.bench import bench_app
from arena.cli.cluster import worker
from arena.cli.common import fail, out, whole_paragraphs
from arena.cli.game import check_bot, play, replay
from arena.cli.league import league_app
from arena.cli.report import report
from arena.cli.serve import serve
from arena.cli.stats import compare, stats
from arena.cli.tournament import rebuild, run, standings
from arena.cli.view import view

if TYPE_CHECKING:
    from arena.engine.api import OptionSpec

app = typer.Typer(
    name="arena",
    help="Arena: run refereed games and tournaments between game-playing bots.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(bench_app, name="bench")
app.add_typer(league_app, name="league")
app.command()(worker)
app.command()(stats)
app.command()(compare)
app.command()(report)


@app.command()
def games() -> None:
    """List the installed (registered) games."""
    from rich.table import Table

    from arena.engine import UnknownGameError, list_games

    table = Table(title="Registered games")
    table.add_column("name")
    table.add_column("title")
    table.add_column("players")
    table.add_column("rules version")
    table.add_column("options (default first)")
    try:
        installed = list_games()
    except UnknownGameError as exc:  # a broken game plugin: name it, no traceback
        fail(str(exc))
    for g in installed:
        table.add_row(g.name, g.title, f"{g.min_players}-{g.max_players}", g.rules_version,
                      "\n".join(_option_line(name, spec)
                                for name, spec in sorted(g.options_schema().items())))
    out.print(table)


def _option_line(name: str, spec: OptionSpec) -> str:
    """One option as `arena games` shows it: its name, its values, the default first."""
    values = [spec.default, *(v for v in spec.values if v != spec.default)]
    return escape(f"{name} = {' | '.join(values)}")


@app.command()
def doctor() -> None:
    """Say whether bots can be sandboxed here (bubblewrap), and why not: exit 0 if they can,
    1 if not."""
    from arena.runner.game.sandbox import runs_as_root, sandbox_problem

    problem = sandbox_problem()
    if problem is None:
        how = ("each as a user id of its own (Arena runs as root)" if runs_as_root() else
               "each in a user namespace of its own, as you")
        out.print(f"[green]ok[/]    sandbox: bubblewrap works here; bots run in it by default, "
                  f"{how}")
        return
    out.print(f"[red]FAIL[/]  sandbox: {escape(problem)}")
    raise typer.Exit(1)


app.command()(play)
app.command()(replay)
app.command()(view)
app.command()(serve)
app.command("check-bot")(check_bot)
app.command()(run)
app.command()(rebuild)
app.command()(standings)
whole_paragraphs(app)  # last: every command is registered by now


def main() -> None:
    """The ``arena`` command (the script and ``python -m arena``): :data:`app`, built for the
    command line at hand by :func:`app_for`."""
    app_for(sys.argv[1:])(prog_name="arena")


def app_for(args: Sequence[str]) -> typer.Typer:
    """:data:`app` as much as ``args`` need, with the same behaviour and output: Typer turns
    every command's parameters into Click's before it runs one (about 25 ms for Arena's 31
    commands, on every start). Here only the command named in ``args`` is built whole; every
    other command is built with its name and help, as a list of commands shows it
    (``arena --help``, ``arena league``). An unknown command builds it all."""
    return _pruned(app, list(args))


def _pruned(group: typer.Typer, args: list[str]) -> typer.Typer:
    """``group`` with each command listed only (:func:`_listed`), except the one ``args``
    name, built whole (or, for a group, built for the rest of ``args``)."""
    first = args[0] if args else "--help"
    if first.startswith("-") and args[1:]:
        return group  # an option before the command: as Typer has it
    named = {_name(info) for info in group.registered_commands}
    groups = {info.name for info in group.registered_groups if info.typer_instance is not None}
    if not first.startswith("-") and first not in named | groups:
        return group  # not a command: Typer's own message, with its suggestions
    return _with(group,
                 [info if _name(info) == first else _listed(info)
                  for info in group.registered_commands],
                 [_group_with(info, _pruned(info.typer_instance,
                                            args[1:] if info.name == first else []))
                  for info in group.registered_groups if info.typer_instance is not None])


def _name(info: typer.models.CommandInfo) -> str:
    """A command's name as Typer gives it."""
    assert info.callback is not None
    return info.name or info.callback.__name__.lower().replace("_", "-")


def _with(group: typer.Typer, commands: list[typer.models.CommandInfo],
          groups: list[typer.models.TyperInfo]) -> typer.Typer:
    pruned = copy.copy(group)
    pruned.registered_commands, pruned.registered_groups = commands, groups
    return pruned


def _group_with(info: typer.models.TyperInfo, instance: typer.Typer) -> typer.models.TyperInfo:
    pruned = copy.copy(info)
    pruned.typer_instance = instance
    return pruned


def _listed(info: typer.models.CommandInfo) -> typer.models.CommandInfo:
    """A command as a list of commands shows it: its name and help, no parameters."""
    listed = copy.copy(info)
    listed.name, listed.callback = _name(info), _listed_only
    return listed


def _listed_only() -> None:
    """Stands for a command in a list of commands; never run."""
