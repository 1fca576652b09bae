"""``arena league``: a standing league that bots join at any time (see :mod:`arena.league`)."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from arena.cli.common import (
    GameOptions,
    NeedsWithin,
    PlainProgress,
    fail,
    option_pairs,
    out,
    print_log_tail,
    say_drawn_seed,
    stop_on_signals,
)

if TYPE_CHECKING:
    from arena.runner.play.settings import Overrides

league_app = typer.Typer(help="A standing league: bots join at any time, play the field, and "
                              "are rated until sure.", no_args_is_help=True)

Folder = Annotated[Path, typer.Argument(help="The league's folder.")]
Version = Annotated[str, typer.Argument(help="A bot version: NAME@VERSION (or NAME, when the "
                                             "league has one version of it).")]


def _config(folder: Path, overrides: Overrides | None = None) -> Any:
    """The league's settings, with the command line's ``overrides`` put in before they are
    validated, or a one-line error."""
    from arena.league.config import load_league
    from arena.runner.play.config import ConfigError

    try:
        return load_league(folder, overrides)
    except ConfigError as exc:
        fail(str(exc))


def _journal(config: Any, readonly: bool = False) -> Any:
    from arena.league.store import LeagueJournal
    from arena.runner.play.journal import JournalError

    try:
        return LeagueJournal(config, readonly=readonly)
    except JournalError as exc:
        fail(str(exc))


def _entrant(journal: Any, which: str) -> Any:
    """The bot version ``which`` names, or a one-line error listing its versions (or, for a
    name the league does not know, the league's)."""
    from arena.league.store import versions_named

    entrants = {e.key: e for e in journal.entrants()}
    found = versions_named(which, entrants)
    if len(found) == 1:
        return entrants[found[0]]
    if found:
        fail(f"{which} has {len(found)} versions in the league: name one ({', '.join(found)})")
    fail(f"no bot version {which!r} in the league (it has: {', '.join(entrants) or 'none yet'})")


@league_app.command()
def init(
    folder: Folder,
    game: Annotated[str, typer.Option(help="The game the league plays.")],
    players: Annotated[int, typer.Option(help="Players per table.")] = 2,
    concurrency: Annotated[int | None, typer.Option(
        "--concurrency", "-j", help="Games at once (default: the number of cores).")] = None,
    decision_ms: Annotated[int | None, typer.Option(
        "--decision-ms", help="Time limit of one decision, ms.")] = None,
    bank_ms: Annotated[int | None, typer.Option(
        "--bank-ms", help="Each bot's time bank for a game, ms.")] = None,
    no_sandbox: Annotated[bool, typer.Option(
        "--no-sandbox", help="Run the bots unsandboxed, only for bots you trust.")] = False,
    option: GameOptions = None,
) -> None:
    """Make a league folder: its league.toml (edit it for the rest of the settings) and its
    journal. --option plays the game with other options than its defaults."""
    from arena.league.config import league_file, league_toml, parse_league
    from arena.runner.play.config import ConfigError

    if league_file(folder).exists():
        fail(f"{folder} is a league already ({league_file(folder)})")
    options = option_pairs(option)
    data: dict[str, Any] = {"game": {"name": game, "options": options} if options else game,
                            "players": players}
    if concurrency is not None:
        data["concurrency"] = concurrency
    if no_sandbox:
        data["sandbox"] = "none"
    clock = {k: v for k, v in (("decision_ms", decision_ms), ("bank_ms", bank_ms))
             if v is not None}
    if clock:
        data["time_control"] = clock
    try:
        config = parse_league(data, folder)
    except ConfigError as exc:
        fail(str(exc))
    folder.mkdir(parents=True, exist_ok=True)
    league_file(folder).write_text(league_toml(config), encoding="utf-8")
    _journal(config).close()
    out.print(f"league {escape(config.name)} in {folder}: {config.game}, {config.players}-player "
              f"tables. Add bots with `arena league add {folder} BOT_FOLDER`.")


@league_app.command()
def add(folder: Folder,
        bot: Annotated[Path, typer.Argument(help="The bot's folder (with bot.toml).")],
        executor: Annotated[str | None, typer.Option(
            "--executor", help="Where the checks run: local, or dask://HOST:PORT, on a "
            "worker (default: league.toml's).")] = None,
        seed: Annotated[int | None, typer.Option(
            "--seed", help="Seed of the validation game (default: a secret one, drawn at "
                           "random and printed at the end).")] = None,
        needs_within: NeedsWithin = None) -> None:
    """Enter a bot version: check-bot's checks as its validation game (where the league's
    games run), then an immutable snapshot of its files. A failed check changes nothing.
    Also while the league runs."""
    from arena.cli.cluster import connect, executor_option
    from arena.cli.common import terminate_on_sigterm
    from arena.league.entry import EntryError, add_bot, cluster_validation
    from arena.runner.cluster.executor import ClusterError
    from arena.runner.play.settings import Overrides

    config = _config(folder, Overrides(executor=executor_option(executor)))
    terminate_on_sigterm()
    cluster = connect(config, lambda: False)
    journal = _journal(config)
    try:
        entry = add_bot(config, journal, bot, None if cluster is None
                        else cluster_validation(config, cluster), seed, needs_within)
    except (EntryError, ClusterError) as exc:
        fail(str(exc))
    finally:
        journal.close()
        if cluster is not None:
            cluster.close()
    for check in entry.checks:
        mark = "[green]pass[/]" if check.passed else "[red]FAIL[/]"
        out.print(f"{mark}  {check.name:<10} {escape(check.detail)}", soft_wrap=True)
        if check.log is not None and not check.passed:
            print_log_tail(check.log)
    if seed is None and any(c.name == "start" for c in entry.checks):
        say_drawn_seed(entry.seed, "this validation game")
    if entry.entrant is None:
        fail(f"{bot} did not pass its validation: not added", code=1)
    out.print(f"added {escape(entry.entrant.key)} (snapshot {entry.entrant.folder})")


@league_app.command()
def retire(folder: Folder, which: Version) -> None:
    """Stop scheduling a bot version; its games stay and count."""
    _set(folder, which, "retired", "retired: no longer scheduled; its games count")


@league_app.command()
def enable(folder: Folder, which: Version) -> None:
    """Schedule a retired or suspended bot version again."""
    _set(folder, which, "active", "active: scheduled again")


def _set(folder: Path, which: str, status: str, said: str) -> None:
    config = _config(folder)
    journal = _journal(config)
    try:
        entrant = _entrant(journal, which)
        journal.set_status(entrant.key, status)
    finally:
        journal.close()
    out.print(f"{escape(entrant.key)} {said}")


@league_app.command()
def remove(
    folder: Folder, which: Version,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
) -> None:
    """Delete a bot version, its snapshot and every game it played (the ratings are those of
    the games left). Not while the league runs."""
    import contextlib
    import shutil

    from arena.league.entry import SNAPSHOTS, snapshot_name
    from arena.runner.game.disk import FolderBusyError, FolderLock

    config = _config(folder)
    try:
        lock = FolderLock(config.folder)
    except FolderBusyError as exc:
        fail(f"{exc}; stop it first (or retire the bot, which a running league sees)")
    try:
        journal = _journal(config)
        entrant = _entrant(journal, which)
        games = sum(entrant.key in o.bots for o in journal.outcomes())
        if not yes and not typer.confirm(
                f"Delete {entrant.key} and the {games} games it played?", err=True):
            fail("nothing removed", code=1)
        records = journal.remove_entrant(entrant.key)
        journal.close()
        for record in records:
            (config.folder / record).unlink(missing_ok=True)
        named = config.folder / SNAPSHOTS / entrant.name
        shutil.rmtree(named / snapshot_name(entrant.version, entrant.digest),
                      ignore_errors=True)
        with contextlib.suppress(OSError):
            named.rmdir()  # its last version gone
    finally:
        lock.release()
    out.print(f"removed {escape(entrant.key)} and its {games} games")


@league_app.command()
def run(
    folder: Folder,
    concurrency: Annotated[int | None, typer.Option(
        "--concurrency", "-j", help="Games at once (default: league.toml's).")] = None,
    executor: Annotated[str | None, typer.Option(
        "--executor", help="local, or dask://HOST:PORT (default: league.toml's).")] = None,
    until_sigma: Annotated[float | None, typer.Option(
        "--until-sigma", help="Stop once every active bot version's sigma is under this "
        "(exit 1 once one is seen unable to get there: see README, Running a league).")
    ] = None,
    games: Annotated[int | None, typer.Option(
        "--games", help="Stop after this many games (default: play on).")] = None,
    plain: Annotated[bool, typer.Option(
        "--plain", help="Progress lines instead of the live view.")] = False,
) -> None:
    """Play the league: tables chosen for what they tell (see README, Running a league), each
    a duplicate set, until Ctrl-C (once: finish the games in progress; twice: abandon them),
    --games or --until-sigma. Bot versions added, retired or enabled meanwhile are seen."""
    from rich.live import Live

    from arena.cli.cluster import connect, executor_option
    from arena.league.runner import League
    from arena.runner.cluster.executor import ClusterError, executor_factory
    from arena.runner.play.journal import JournalError
    from arena.runner.play.live import render
    from arena.runner.play.ring import RunOptions, TournamentError
    from arena.runner.play.settings import Overrides

    if games is not None and games < 1:
        fail("--games must be at least 1")
    if until_sigma is not None and until_sigma <= 0:
        fail("--until-sigma must be above 0")
    if games is not None and until_sigma is not None:
        fail("give --games or --until-sigma, not both")
    config = _config(folder, Overrides(executor=executor_option(executor),
                                       concurrency=concurrency))
    live_view = sys.stdout.isatty() and not plain
    stop = stop_on_signals(live_view)
    cluster = connect(config, lambda: stop.level > 0)
    factory = None if cluster is None else executor_factory(cluster)
    try:
        if live_view:
            with Live(console=out, refresh_per_second=4, transient=False) as live:
                view = RunOptions(factory, on_snapshot=lambda s: live.update(render(s)),
                                  stop=stop)
                result = League(config, view, games=games, until_sigma=until_sigma).run()
        else:
            plain_run = RunOptions(factory, on_snapshot=PlainProgress(), stop=stop)
            result = League(config, plain_run, games=games, until_sigma=until_sigma).run()
    except (JournalError, TournamentError, ClusterError) as exc:
        fail(str(exc))
    finally:
        if cluster is not None:
            cluster.close()
    out.print(f"{config.name}: {result.games_played} games this run, {result.games_total} in "
              f"all; {result.why}", soft_wrap=True, markup=False)
    if stop.level:
        raise typer.Exit(130)
    if result.out_of_reach:
        raise typer.Exit(1)


@league_app.command()
def standings(
    folder: Folder,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    watch: Annotated[bool, typer.Option(
        "--watch", help="Keep the table on screen, read again every second, until Ctrl-C.")
    ] = False,
) -> None:
    """The league's standings from its journal (also while it runs, from another terminal):
    each bot version's rating, games and status (a suspended one with why)."""
    from rich.console import Group
    from rich.live import Live

    config = _config(folder)
    if as_json:
        from arena.stats.common import rounded

        typer.echo(json.dumps(rounded(_standings_data(config))))
        return
    if not watch:
        out.print(_standings_view(config, Group))
        return
    from arena.cli.common import terminate_on_sigterm
    from arena.league.state import LeagueRatings

    terminate_on_sigterm()
    ratings = LeagueRatings()  # each refresh reads only the games added since the last
    if not out.is_terminal:  # a pipe or a file: the table again whenever a game was added
        shown = -1
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                games = _games_in(config)
                if games != shown:
                    out.print(_standings_view(config, Group, ratings))
                    shown = games
                time.sleep(1.0)
        return
    with contextlib.suppress(KeyboardInterrupt), \
            Live(console=out, refresh_per_second=2, transient=False) as live:
        while True:
            live.update(_standings_view(config, Group, ratings))
            time.sleep(1.0)


def _games_in(config: Any) -> int:
    journal = _journal(config, readonly=True)
    try:
        return journal.pairing_count("done")
    finally:
        journal.close()


def _read_standings(config: Any, ratings: Any = None) -> tuple[Any, int, dict[str, Any]]:
    from arena.league.standings import read_standings
    from arena.runner.play.journal import JournalError

    try:
        return read_standings(config, ratings)
    except JournalError as exc:
        fail(str(exc))


def _standings_data(config: Any) -> dict[str, Any]:
    from arena.league.standings import standings_data
    from arena.runner.play.journal import JournalError

    try:
        return standings_data(config)
    except JournalError as exc:
        fail(str(exc))


def _standings_view(config: Any, group: Any, ratings: Any = None) -> Any:
    from rich.text import Text

    from arena.runner.play.live import standings_table

    table, games, entrants = _read_standings(config, ratings)
    lines: list[Any] = [standings_table(table, title=f"{config.name}: {games} games")]
    for e in entrants.values():
        if e.status != "active":
            lines.append(Text(f"{e.key}: {e.status}" + (f" ({e.reason})" if e.reason else "")))
    if not entrants:
        lines.append(Text(f"no bot yet: `arena league add {config.folder} BOT_FOLDER`"))
    return group(*lines)
