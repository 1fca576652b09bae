"""``arena bench ratings``: the kept ratings against a full replay, on a synthetic journal
(:mod:`arena.bench.ratings`); :mod:`arena.cli.bench` lists it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import AsJson, Seed, fail, print_figures


def bench_ratings_cmd(
    games_: Annotated[int, typer.Option(
        "--games", "-g", help="Games of the journal (repeatable; default 100,000).")] = 100_000,
    bots: Annotated[int, typer.Option("--bots", help="Bots of the journal.")] = 8,
    players: Annotated[int, typer.Option("--players", "-n", help="Players per table.")] = 4,
    report: Annotated[bool, typer.Option(
        "--report/--no-report", help="Also time `arena report` both ways.")] = True,
    bootstrap: Annotated[int, typer.Option(
        "--bootstrap", min=0, help="The report's bootstrap replicates, as its own.")] = 200,
    replay: Annotated[bool, typer.Option(
        "--replay/--no-replay", help="Also make the report by a full replay and compare "
        "(many minutes at a million games).")] = True,
    keep: Annotated[Path | None, typer.Option(
        "--keep", help="Write the journal in this folder and reuse it on a later run with "
        "the same --games, --bots, --players and --seed (writing a million games with their "
        "ratings takes long).")] = None,
    league: Annotated[Path | None, typer.Option(
        "--league", help="A league's folder (e.g. one `arena bench league --journal` "
        "wrote): also time `arena league standings` of it.")] = None,
    seed: Seed = 0,
    as_json: AsJson = False,
) -> None:
    """Time `arena standings` and `arena report` on a synthetic journal of --games games:
    read from its rating checkpoint and history, against the full TrueSkill replay, in one
    run, beside the targets; also each command as a user runs it, from a fresh process (and
    `arena league standings` of --league)."""
    from arena.bench.ratings import bench_ratings, figure_rows

    if not 2 <= players <= 4:
        fail("--players must be from 2 to 4")
    if bots < players:
        fail(f"--bots must be at least --players ({players})")
    if games_ < players:
        fail(f"--games must be at least --players ({players})")
    if league is not None and not (league / "league.toml").is_file():
        fail(f"--league {league}: no league.toml (not a league's folder)")
    if keep is not None and keep.exists() and not keep.is_dir():
        fail(f"--keep {keep}: not a folder")
    f = bench_ratings(games_, bots, players, seed, report=report, replicates=bootstrap,
                      replay=replay, keep=keep, league=league)
    print_figures(f"ratings benchmark: {bots} bots, {players}-player tables", figures=f,
                  rows=figure_rows(f), as_json=as_json)
    if not (f["identical"] and f.get("report_identical", True)
            and f.get("report_cold_identical", True)):
        raise typer.Exit(1)
