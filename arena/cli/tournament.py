"""``arena run``, ``arena rebuild`` and ``arena standings``: a tournament from its file, its
journal rebuilt from its records, its standings read from its journal."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.cluster import connect, executor_option
from arena.cli.common import (
    GameOptions,
    PlainProgress,
    fail,
    option_pairs,
    out,
    say_drawn_seed,
    stop_on_signals,
)

if TYPE_CHECKING:
    from arena.runner.play.config import TournamentConfig
    from arena.runner.play.ring import StopRequest
    from arena.runner.play.settings import Overrides

def run(
    file: Annotated[Path, typer.Argument(help="A tournament file (TOML).")],
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", "-j", help="Games at once (default: file).")
    ] = None,
    plain: Annotated[
        bool, typer.Option("--plain", help="Progress lines instead of the live view.")
    ] = False,
    no_sandbox: Annotated[
        bool, typer.Option("--no-sandbox",
                           help="Run the bots without a sandbox (as sandbox = \"none\" in the "
                                "file), only for bots you trust.")
    ] = False,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Output folder (default: the file's "
                                  "output, else leaderboards/NAME beside the file).")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Master seed (default: file).")] = None,
    games: Annotated[
        int | None, typer.Option("--games", help="At most this many games (max_games).")
    ] = None,
    decision_ms: Annotated[
        int | None, typer.Option("--decision-ms", help="Time limit of one decision, ms.")
    ] = None,
    bank_ms: Annotated[
        int | None, typer.Option("--bank-ms", help="Each bot's time bank for a game, ms.")
    ] = None,
    executor: Annotated[
        str | None, typer.Option("--executor", help="Where the games run: local (this "
                                 "machine), or dask://HOST:PORT, the workers of a Dask "
                                 "cluster (see arena worker). Default: the file's.")
    ] = None,
    option: GameOptions = None,
) -> None:
    """Run (or resume) a tournament and show live standings.

    Options override the file's fields of the same meaning; a resumed run must be given the
    same ones (they are part of what the tournament is), except --output, -j and --executor.

    --option NAME=VALUE sets one of the game's options over the file's [game] options
    (`arena games` lists them).

    Results go to the file's output folder, or else to leaderboards/NAME in the folder holding
    the file (NAME: the file's name field), wherever the command is run from; --output
    (relative to the current directory) overrides both.

    Ctrl-C once: finish the games in progress, then stop; twice: abandon them (they are
    replayed on resume). Running the same file again resumes where it stopped.
    """
    from arena.runner.play.settings import Overrides

    overrides = Overrides(output=output, seed=seed, max_games=games, decision_ms=decision_ms,
                          bank_ms=bank_ms, executor=executor_option(executor),
                          concurrency=concurrency, no_sandbox=no_sandbox,
                          options=tuple(option_pairs(option).items()))
    config = load_tournament(file, overrides)
    live_view = sys.stdout.isatty() and not plain
    stop = stop_on_signals(live_view)
    # Before any game: a cluster that cannot be used is one line.
    cluster = connect(config, lambda: stop.level > 0)
    try:
        tournament, result = _play(config, cluster, stop, live_view)
    finally:
        if cluster is not None:
            cluster.close()
    _say_result(config, tournament, result)
    if not result.complete:
        raise typer.Exit(130 if stop.level else 1)


def load_tournament(file: Path, overrides: Overrides | None = None) -> TournamentConfig:
    """The tournament file's settings, with the command line's ``overrides`` put in before
    they are validated, or a one-line error."""
    from arena.runner.play.config import ConfigError, load_config

    try:
        return load_config(file, overrides)
    except ConfigError as exc:
        fail(str(exc))


def _play(config: TournamentConfig, cluster: Any, stop: StopRequest,
          live_view: bool) -> tuple[Any, Any]:
    """Run the tournament on ``cluster`` (None: this machine), in Rich's live view or with
    progress lines; the tournament and its result, or a one-line error."""
    from rich.live import Live

    from arena.runner.cluster.executor import ClusterError, executor_factory
    from arena.runner.play.journal import JournalError
    from arena.runner.play.live import render
    from arena.runner.play.ring import RunOptions, TournamentError
    from arena.runner.play.tournament import Tournament

    factory = executor_factory(cluster, config.bots) if cluster is not None else None
    try:
        if live_view:
            with Live(console=out, refresh_per_second=4, transient=False) as live:
                tournament = Tournament(config, RunOptions(
                    factory, on_snapshot=lambda s: live.update(render(s)), stop=stop))
                _say_rebound(tournament)
                return tournament, tournament.run()
        tournament = Tournament(config, RunOptions(factory, on_snapshot=PlainProgress(),
                                                   stop=stop))
        if tournament.resumed:
            typer.echo(f"resuming {config.name} in {config.output}")
        _say_rebound(tournament)
        return tournament, tournament.run()
    except (JournalError, TournamentError, ClusterError) as exc:
        fail(str(exc))


def _say_result(config: TournamentConfig, tournament: Any, result: Any) -> None:
    status = "complete" if result.complete else "stopped; run the same command to resume"
    out.print(f"{config.name}: {result.games_done}/{result.games_total} games, {status}")
    if result.stopped_by is not None:
        out.print(f"  stopped by its rule: {result.stopped_by.get('summary')}", markup=False,
                  highlight=False)
    for path in result.outputs:
        out.print(f"  {path}")
    if result.complete and config.seed is None:
        # Its end makes the secret master seed public: with it anyone plays it again.
        say_drawn_seed(tournament.master_seed, "this tournament")


def _say_rebound(tournament: Any) -> None:
    changed = tournament.journal.rebound
    if changed:
        out.print(f"{tournament.config.name} had played no game yet: the file's new "
                  f"{', '.join(changed)} replace the old")


def rebuild(
    file: Annotated[Path, typer.Argument(help="The tournament file (TOML).")],
) -> None:
    """Rebuild a tournament's journal from its game records, after it was damaged or lost.

    Games whose records replay to their results are entered as finished; the rest are left to
    play: run the same file afterwards to finish the tournament. The old journal is kept,
    renamed.
    """
    from arena.runner.game.disk import FolderBusyError
    from arena.runner.play.config import ConfigError, load_config
    from arena.runner.play.journal import JournalError
    from arena.runner.play.rebuild import rebuild_journal

    try:
        config = load_config(file)
        report = rebuild_journal(config)
    except (ConfigError, JournalError, FolderBusyError) as exc:
        fail(str(exc))
    if report.kept_as is not None:
        out.print(f"the old journal is kept as {report.kept_as}")
    for line in report.skipped:
        out.print(f"skipped {line}")
    out.print(f"{config.name}: {report.restored} games restored from their records, "
              f"{report.to_play} to play; run the same file to finish")


def standings(
    folder: Annotated[Path, typer.Argument(help="A tournament's output folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
) -> None:
    """Print a tournament's standings from its journal (also while it is running)."""
    from arena.runner.play.journal import JournalError
    from arena.runner.play.live import standings_table
    from arena.runner.play.reading import read_standings

    try:
        progress, table = read_standings(folder)
    except JournalError as exc:
        fail(str(exc))
    games = table.games
    if as_json:
        from arena.runner.play.outputs import standings_data
        from arena.stats.common import rounded

        typer.echo(json.dumps(rounded(standings_data(folder, progress, table))))
        return
    out.print(standings_table(table, title=_standings_title(folder, progress.name, games,
                                                            progress.issued, progress.total)))
    if progress.stopped_by is not None:
        # Why no more games are played: the rule's decision (or the schedule's end first).
        out.print(f"Stopped by its rule: {progress.stopped_by.get('summary')}", markup=False,
                  highlight=False)


def _standings_title(folder: Path, name: str, games: int, issued: int,
                     total: int | None) -> str:
    """``total``: a fixed schedule's games, issued or not (None: only the issued are known)."""
    from arena.runner.play.outputs import run_complete

    if run_complete(folder, games):
        return f"{name}: complete, {games} games"
    if total is not None:
        return f"{name}: {games} of {total} games"
    return f"{name}: {games} of {issued} games issued so far"
