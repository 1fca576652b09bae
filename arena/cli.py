"""The ``arena`` command line. Commands are thin: parse options, call the library, print.

Domain errors become a message on stderr and exit code 2, in one place (:func:`_fail`).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from arena.engine import UnknownGameError, get_game, list_games
from arena.engine.api import Game

app = typer.Typer(
    name="arena",
    help="Arena: run refereed games and tournaments between game-playing bots.",
    no_args_is_help=True,
    add_completion=False,
)
bench_app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def _fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code)


def _game(name: str, players: int | None = None) -> Game:
    try:
        game = get_game(name)
    except UnknownGameError as exc:
        _fail(str(exc))
    if players is not None and not game.min_players <= players <= game.max_players:
        _fail(
            f"{game.name} is for {game.min_players}-{game.max_players} players, "
            f"not {players} (--players)"
        )
    return game


@app.command()
def games() -> None:
    """List the registered games."""
    table = Table(title="Registered games")
    table.add_column("name")
    table.add_column("title")
    table.add_column("players")
    table.add_column("rules version")
    for g in list_games():
        table.add_row(g.name, g.title, f"{g.min_players}-{g.max_players}", g.rules_version)
    out.print(table)


def _print_summary(summary: dict[str, Any]) -> None:
    """The final table: one column per seat, score parts as rows (fits narrow terminals)."""
    players = summary["players"]
    table = Table(
        title=(
            f"{summary['game']} ({summary['rules_version']}), seed {summary['seed']}, "
            f"{summary.get('rounds', '?')} rounds"
        )
    )
    table.add_column("")
    for p in players:
        table.add_column(f"seat {p['seat']}", justify="right")
    table.add_row("player", *(p["player"] for p in players))
    table.add_row("rank", *(str(p["rank"]) for p in players), style="bold")
    table.add_row("score", *(str(p["score"]) for p in players), style="bold", end_section=True)
    for part in players[0]["breakdown"]:
        table.add_row(part.replace("_", " "), *(str(p["breakdown"][part]) for p in players))
    out.print(table)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="Game name, see `arena games`.")],
    players: Annotated[int, typer.Option("--players", "-n", help="Number of seats.")] = 4,
    seed: Annotated[int, typer.Option(help="Game seed: the same seed gives the same game.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Play one game with a built-in random player in every seat and print the final table."""
    from arena.runner.local import play_random_game

    g = _game(game, players)
    summary = play_random_game(g, players, seed).summary()
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        _print_summary(summary)


@bench_app.command("engine")
def bench_engine_cmd(
    game: Annotated[str, typer.Option(help="Game name.")] = "stoneage",
    players: Annotated[int, typer.Option("--players", "-n")] = 4,
    games_: Annotated[int, typer.Option("--games", "-g", help="Games to play.")] = 200,
    seed: Annotated[int, typer.Option()] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Random games in one process: games/s, decisions/s, decisions/game, clone() cost."""
    from arena.bench import bench_engine

    g = _game(game, players)
    if games_ < 1:
        _fail("--games must be at least 1")
    figures = bench_engine(g, players, games_, seed)
    if as_json:
        typer.echo(json.dumps(figures))
        return
    table = Table(title=f"engine benchmark: {g.name}, {players} players, {games_} games")
    table.add_column("figure")
    table.add_column("value", justify="right")
    rows = [
        ("games per second", f"{figures['games_per_second']:,.1f}"),
        ("decisions per second (>= 2 legal actions)", f"{figures['decisions_per_second']:,}"),
        ("decisions per game", f"{figures['decisions_per_game']:,.1f}"),
        ("clone() cost", f"{figures['clone_microseconds']:.2f} µs"),
        (
            "decisions per second, building action dicts",
            f"{figures['dict_path_decisions_per_second']:,}",
        ),
        ("wall time", f"{figures['seconds']:.2f} s"),
    ]
    for name, value in rows:
        table.add_row(name, value)
    out.print(table)


def main() -> None:  # pragma: no cover - console entry point
    app()
