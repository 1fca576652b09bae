"""``arena play``, ``arena replay`` and ``arena check-bot``: one refereed game, played,
shown again or used to check a bot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from arena.cli.common import (
    GameOptions,
    NeedsWithin,
    err,
    fail,
    game_named,
    game_options,
    load_manifests,
    out,
    print_log_tail,
    sandbox_mode,
    say_drawn_seed,
    seed_key_or_fail,
    terminate_on_sigterm,
    time_control,
)

if TYPE_CHECKING:
    from arena.runner.game.manifest import BotManifest

#: The defaults of the time options: :class:`~arena.runner.game.clock.TimeControl`'s, written out so
#: that the options are built without importing the runner (a test holds them equal).
DECISION_MS, BANK_MS, HANDSHAKE_MS = 5_000, 120_000, 10_000
#: ``--log-cap-mb``'s default and bound: :mod:`arena.runner.game.botlog`'s, in MiB (held equal too).
LOG_CAP_MB, MAX_LOG_CAP_MB = 10, 10240

DecisionMs = Annotated[
    int, typer.Option("--decision-ms", help="Time limit of one decision, ms.")
]
BankMs = Annotated[int, typer.Option("--bank-ms", help="Each bot's time bank for the game, ms.")]
HandshakeMs = Annotated[
    int, typer.Option("--handshake-ms", help="Time for a bot to start and say hello, ms.")
]
SandboxOpt = Annotated[
    bool, typer.Option("--sandbox/--no-sandbox",
                       help="Run each bot in a bubblewrap sandbox (see `arena doctor`); "
                            "--no-sandbox only for bots you trust.")
]
LogCapMb = Annotated[
    int, typer.Option("--log-cap-mb", min=0, max=MAX_LOG_CAP_MB,
                      help="The most of each bot's output kept in its log, MiB; the rest is "
                           "dropped with a marker line.")
]


def _print_summary(summary: dict[str, Any]) -> None:
    """The final table: one column per seat, score parts as rows (fits narrow terminals)."""
    from rich.table import Table

    players = summary["players"]
    table = Table(
        title=(
            f"{summary['game']} ({summary['rules_version']}), seed {summary['seed']}, "
            f"{summary.get('rounds', '?')} rounds"
            + "".join(f", {k}={v}" for k, v in summary.get("options", {}).items())
        )
    )
    table.add_column("")
    for p in players:
        table.add_column(f"seat {p['seat']}", justify="right")
    table.add_row("player", *(p["player"] for p in players))
    table.add_row("termination", *(p["termination"] for p in players))
    table.add_row("rank", *(str(p["rank"]) for p in players), style="bold")
    table.add_row("score", *(str(p["score"]) for p in players), style="bold", end_section=True)
    for part in players[0]["breakdown"]:
        table.add_row(part.replace("_", " "), *(str(p["breakdown"][part]) for p in players))
    out.print(table)
    for p in players:
        if p["termination"] != "ok":
            err.print(f"seat {p['seat']} ({p['player']}): {p['termination']}: {p['detail']}")


def play(
    game: Annotated[str, typer.Argument(help="Game name, see `arena games`.")],
    bot: Annotated[
        list[Path] | None,
        typer.Option("--bot", "-b", help="A bot folder; repeat for each seat, in seat order."),
    ] = None,
    players: Annotated[
        int | None,
        typer.Option("--players", "-n", help="Seats; extra seats get built-in random players."),
    ] = None,
    seed: Annotated[int | None, typer.Option(
        help="Game seed: the same seed gives the same game (default: a secret one, drawn at "
             "random and printed at the end).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    record: Annotated[
        Path | None, typer.Option("--record", help="Write the game record (JSON) here.")
    ] = None,
    log_dir: Annotated[
        Path, typer.Option("--log-dir", help="Where bots' output is written.")
    ] = Path("arena-logs"),
    decision_ms: DecisionMs = DECISION_MS,
    bank_ms: BankMs = BANK_MS,
    handshake_ms: HandshakeMs = HANDSHAKE_MS,
    log_cap_mb: LogCapMb = LOG_CAP_MB,
    sandbox: SandboxOpt = True,
    needs_within: NeedsWithin = None,
    option: GameOptions = None,
) -> None:
    """Play one game and print the final table.

    Seats are the given bots in order (real processes, refereed under time control), then
    built-in random players up to --players (default: 4 built-in players without bots, two
    seats for one bot, and as many seats as bots otherwise). --option plays the game with
    other options than its defaults (`arena games` lists them).
    """
    from arena.runner.game.botlog import MIB
    from arena.runner.game.needs import NeedsRule
    from arena.runner.game.record import record_summary
    from arena.runner.game.referee import VoidGame, play_game
    from arena.seeds import draw_secret_seed, game_label

    drawn = seed is None
    seed = draw_secret_seed() if seed is None else seed
    rule = NeedsRule(needs_within).guarding("the log folder", log_dir).guarding(
        "the game record", record)
    manifests = load_manifests(bot or [], rule)
    # Without --players: 4 built-in players, a lone bot against one, or the bots alone.
    n = players if players is not None else {0: 4, 1: 2}.get(len(manifests), len(manifests))
    n = max(n, game_named(game).min_players) if players is None else n
    if len(manifests) > n:
        fail(f"{len(manifests)} bots do not fit at {n} seats (--players)")
    g = game_named(game, n)
    options = game_options(g, option)
    seats: list[BotManifest | None] = [*manifests, *[None] * (n - len(manifests))]
    seed_key = seed_key_or_fail()
    mode = sandbox_mode(sandbox) if manifests else "none"  # built-in players run in-process
    terminate_on_sigterm()
    from arena.runner.game.build import BuildError, built

    try:  # a bot with a build step plays from its built copy
        seats = [m if m is None else built(m, mode, log_dir) for m in seats]
    except BuildError as exc:
        fail(str(exc))
    try:
        rec = play_game(g, seed, seats, time_control(decision_ms, bank_ms, handshake_ms),
                        log_dir=log_dir if manifests else None,
                        game_id=f"{g.name}-{game_label(seed_key, seed)}",
                        log_cap=log_cap_mb * MIB, seed_key=seed_key, sandbox=mode,
                        options=options)
    except VoidGame as exc:
        if as_json:  # JSON whenever --json is given, a void game included
            typer.echo(json.dumps({"void": True, "game": g.name, "seed": seed,
                                   "reason": str(exc)}))
            raise typer.Exit(3) from None
        fail(f"void game (nobody loses; try again): {exc}", code=3)
    if record is not None:
        rec.save(record)
    summary = record_summary(rec)
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        _print_summary(summary)
        if record is not None:
            out.print(f"record written to {record}")
        if drawn:
            say_drawn_seed(seed, "this game")


def replay(
    file: Annotated[Path, typer.Argument(help="A game record written by --record.")],
    moves: Annotated[bool, typer.Option(
        "--moves", help="List every decision: number, round, seat, player, action, time, "
                        "the scores after it.")] = False,
    at: Annotated[int | None, typer.Option(
        "--at", help="Print the position before decision N as JSON: the seat's observation "
                     "and legal actions, what was chosen, and the full state.")] = None,
) -> None:
    """Re-run a game record through the engine and verify it exactly (exit 1 if it differs);
    with --moves or --at, show its moves or one position."""
    from arena.engine import UnknownGameError
    from arena.runner.game.record import GameRecord, verify

    try:
        rec = GameRecord.load(file)
    except FileNotFoundError:
        fail(f"{file}: no such file")
    except ValueError as exc:
        fail(f"{file}: {exc}")
    try:
        report = verify(rec)
    except UnknownGameError as exc:
        fail(f"{file}: {exc}")
    if at is not None or moves:
        _show_moves(rec, at)
        return
    if report.ok:
        out.print(
            f"[green]ok[/]: {rec.game} ({rec.rules_version}) seed {rec.seed}: "
            f"{report.decisions} decisions replay exactly; scores {rec.result['scores']}, "
            f"ranks {rec.ranks}"
        )
        return
    err.print(f"[red]mismatch[/]: {file}")
    for problem in report.problems:
        err.print(f"  {problem}")
    raise typer.Exit(1)


def _show_moves(rec: Any, at: int | None) -> None:
    from rich.table import Table

    from arena.runner.game.replay import moves as list_moves
    from arena.runner.game.replay import position

    try:
        if at is not None:
            typer.echo(json.dumps(position(rec, at), indent=1))
            return
        listed = list_moves(rec)
    except ValueError as exc:
        fail(str(exc))
    table = Table(title=f"{rec.game_id}: {rec.game}, seed {rec.seed}", box=None,
                  title_justify="left", padding=(0, 1))
    for column in ("#", "round", "seat", "player", "action", "ms", "by", "scores"):
        table.add_column(column, justify="right" if column in ("#", "round", "ms") else "left")
    for m in listed:
        action = json.dumps(m.action, separators=(",", ":"))
        table.add_row(str(m.number), "" if m.progress is None else str(m.progress), str(m.seat),
                      m.player, escape(action), f"{m.ms:.0f}", m.by,
                      "" if m.scores is None else " ".join(map(str, m.scores)))
    out.print(table)


def check_bot(
    path: Annotated[Path, typer.Argument(help="The bot's folder (with bot.toml).")],
    game: Annotated[str, typer.Option(help="Game to play the test game of.")] = "stoneage",
    seed: Annotated[int | None, typer.Option(
        help="Seed of the test game (default: a secret one, drawn at random and printed at "
             "the end).")] = None,
    decision_ms: DecisionMs = DECISION_MS,
    handshake_ms: HandshakeMs = HANDSHAKE_MS,
    log_dir: Annotated[
        Path, typer.Option("--log-dir", help="Where the bot's output is written.")
    ] = Path("arena-logs"),
    log_cap_mb: LogCapMb = LOG_CAP_MB,
    sandbox: SandboxOpt = True,
    needs_within: NeedsWithin = None,
) -> None:
    """Check a bot: manifest, start, handshake, ping, a game against built-in random players,
    and a clean shutdown. Prints pass/fail per check; exit 0 only if all pass."""
    from arena.runner.game.botlog import MIB
    from arena.runner.game.checkbot import check_bot as run_checks
    from arena.runner.game.needs import NeedsRule
    from arena.seeds import draw_secret_seed

    g = game_named(game)
    seed_key = seed_key_or_fail()  # a broken key file is named here, not raised
    mode = sandbox_mode(sandbox)
    terminate_on_sigterm()
    tc = time_control(decision_ms, BANK_MS, handshake_ms)
    drawn = seed is None
    seed = draw_secret_seed() if seed is None else seed
    results = run_checks(path, g, seed, tc, log_dir, log_cap_mb * MIB, sandbox=mode,
                         seed_key=seed_key, entering=NeedsRule(needs_within))
    for check in results:
        mark = "[green]pass[/]" if check.passed else "[red]FAIL[/]"
        out.print(f"{mark}  {check.name:<10} {escape(check.detail)}", soft_wrap=True)
        if check.log is not None:
            print_log_tail(check.log)
    if drawn and any(c.name == "start" for c in results):  # the bot was started on it
        say_drawn_seed(seed, "this check's game")
    if not all(c.passed for c in results):
        raise typer.Exit(1)
