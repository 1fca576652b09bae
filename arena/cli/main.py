"""The ``arena`` command line. Commands are thin: parse options, call the library, print.

Domain errors become a message on stderr and exit code 2, in one place
(:func:`arena.cli.common.fail`).
"""

from __future__ import annotations

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
