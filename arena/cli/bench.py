"""``arena bench``: benchmark commands that print figures (the :mod:`arena.bench` modules)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.bench_ratings import bench_ratings_cmd
from arena.cli.bench_wire import bench_game_cmd, bench_protocol_cmd
from arena.cli.common import (
    AsJson,
    GameOptions,
    Seed,
    err,
    fail,
    game_named,
    game_options,
    load_manifests,
    out,
    print_figures,
    sandbox_mode,
    terminate_on_sigterm,
)

bench_app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True)

#: ``arena bench league`` simulates settling leagues of at most this many bots by default.
SETTLE_MAX_BOTS = 64
GamesPerRun = Annotated[int, typer.Option("--games", "-g", help="Games per run.")]


@bench_app.command("engine")
def bench_engine_cmd(
    game: Annotated[str, typer.Option(help="Game name.")] = "stoneage",
    players: Annotated[int, typer.Option("--players", "-n")] = 4,
    games_: Annotated[int, typer.Option("--games", "-g", help="Games to play.")] = 200,
    seed: Seed = 0,
    as_json: AsJson = False,
    peer: Annotated[Path | None, typer.Option(
        exists=True, help="Also run the game's peer engine from this repository (a checkout or "
        "a bare git directory): AgricolaBot for agricola, StoneAgeAI for stoneage; and print "
        "Arena ÷ peer.")] = None,
    peer_python: Annotated[str | None, typer.Option(
        envvar="ARENA_PEER_PYTHON", help="Python with the peer's dependencies (numpy).")] = None,
    option: GameOptions = None,
) -> None:
    """Random games in one process: games/s, decisions/s, decisions/game, clone() cost. With
    --option, the game with those options and then with its defaults, in the same run, and
    options ÷ defaults. With --peer, then the same for the peer engine, in a process of its
    own, and Arena ÷ peer."""
    from arena.bench.engine import (
        REFEREE_PATH_TARGET,
        bench_against_defaults,
        bench_engine,
        to_defaults,
    )

    g = game_named(game, players)
    if games_ < 1:
        fail("--games must be at least 1")
    options = game_options(g, option)
    chosen = g.canonical_options(options)
    if peer is not None:
        from arena.bench.peers import PEERS

        if g.name not in PEERS:
            fail(f"no peer engine for {g.name}: --peer is for {' and '.join(sorted(PEERS))}")
        if chosen:
            fail("--peer plays the peer's own game: it compares with the default options only "
                 "(drop --option)")
    if chosen:
        # With the defaults, in the same run: on a busy machine only figures measured
        # together compare.
        figures, defaults = bench_against_defaults(g, players, games_, seed, options)
        figures["defaults"] = defaults
    else:
        figures = bench_engine(g, players, games_, seed, options)
    title = f"engine benchmark: {g.name}, {players} players, {games_} games"
    rows = [
        *_engine_rows(figures),
        ("decisions per second, building action dicts",
         f"{figures['dict_path_decisions_per_second']:,}"),
        ("decisions per CPU second", f"{figures['decisions_per_cpu_second']:,}"),
        ("decisions per CPU second, building action dicts",
         f"{figures['dict_path_decisions_per_cpu_second']:,}"),
        ("building action dicts ÷ not, per CPU second", f"{figures['dict_path_to_engine']:.2f}"),
        ("decisions per CPU second, the referee's path (keys, packed actions)",
         f"{figures['referee_path_decisions_per_cpu_second']:,}"),
        ("the referee's path ÷ the engine, per CPU second",
         f"{figures['referee_path_to_engine']:.2f}"),
        ("  target", f"≥ {REFEREE_PATH_TARGET:.2f}"),
        ("wall time", f"{figures['seconds']:.2f} s"),
    ]
    if chosen:
        ratios = figures["to_defaults"] = to_defaults(figures, defaults)
        title += ", " + ", ".join(f"{k}={v}" for k, v in chosen.items()) + \
            ", against the default options (in halves, alternately)"
        rows += [(f"default options: {name}", value) for name, value in _engine_rows(defaults)]
        rows += [
            ("options ÷ defaults, games per second", f"{ratios['games_per_second']:.2f}"),
            ("options ÷ defaults, games per CPU second",
             f"{ratios['games_per_cpu_second']:.2f}"),
            ("options ÷ defaults, decisions per second",
             f"{ratios['decisions_per_second']:.2f}"),
            ("options ÷ defaults, clone() cost", f"{ratios['clone_microseconds']:.2f}"),
        ]
    if peer is None or not as_json:
        print_figures(title, figures, rows, as_json)
    if peer is not None:
        _bench_peer(figures, peer, peer_python, as_json)


def _engine_rows(f: dict[str, Any]) -> list[tuple[str, str]]:
    """The rows of an engine's figures, Arena's or the peer's."""
    clone = f["clone_microseconds"]
    return [
        ("games per second", f"{f['games_per_second']:,.1f}"),
        ("decisions per second (>= 2 legal actions)", f"{f['decisions_per_second']:,}"),
        ("decisions per game", f"{f['decisions_per_game']:,.1f}"),
        ("clone() cost (CPU)", "none (no clone)" if clone is None else f"{clone:.2f} µs"),
    ]


def _bench_peer(figures: dict[str, Any], repo: Path, python: str | None, as_json: bool) -> None:
    """The peer engine with the same players, games and seed; its figures and Arena ÷ peer."""
    from arena.bench.peers import peer_engine, peer_ratios

    try:
        p = peer_engine(figures["game"], repo, figures["players"], figures["games"],
                        figures["seed"], python)
    except RuntimeError as exc:
        fail(str(exc))
    figures["peer"], figures["ratios"] = p, peer_ratios(figures, p)
    if as_json:
        typer.echo(json.dumps(figures))
        return
    title = f"peer: {p['config']}, {p['games']} games"
    if p["players"] != figures["players"]:
        title += (f"\n(unlike games: Arena's had {figures['players']} players; "
                  f"-n {p['players']} compares like with like)")
    failures = []
    if p.get("failed_games"):
        failures = [("games the peer's own errors ended early", f"{p['failed_games']:,}")]
    print_figures(title, figures, [
        *_engine_rows(p),
        *failures,
        ("set-up per game (in the play)", f"{p['setup_milliseconds']:.2f} ms"),
        ("decisions per CPU second", f"{p['decisions_per_cpu_second']:,}"),
        ("import (not timed)", f"{p['import_seconds']:.2f} s"),
        ("wall time", f"{p['seconds']:.2f} s"),
        ("Arena ÷ peer, games per second", f"{figures['ratios']['games_per_second']:.2f}"),
        ("Arena ÷ peer, decisions per second",
         f"{figures['ratios']['decisions_per_second']:.2f}"),
        ("Arena ÷ peer, decisions per CPU second",
         f"{figures['ratios']['decisions_per_cpu_second']:.2f}"),
        ("  target, Arena ÷ peer for decisions", f"≥ {p['target_ratio']:g}"),
    ], False)


bench_app.command("protocol")(bench_protocol_cmd)
bench_app.command("game")(bench_game_cmd)


@bench_app.command("tournament")
def bench_tournament_cmd(games_: GamesPerRun = 48, seed: Seed = 0, as_json: AsJson = False) -> None:
    """A small tournament of random bots at concurrency 1 and at one game per core: games per
    minute for both and their ratio; and the runner's memory with 8 games in flight."""
    from arena.bench.tournament import bench_tournament

    if games_ < 6:
        fail("--games must be at least 6")
    figures = bench_tournament(games_, seed)
    print_figures(f"tournament benchmark: {figures['games']} games of random bots", figures, [
        ("games per minute, concurrency 1", f"{figures['serial_games_per_minute']:,.1f}"),
        (f"games per minute, concurrency {figures['cores']} (cores)",
         f"{figures['parallel_games_per_minute']:,.1f}"),
        ("ratio", f"{figures['ratio']:.2f}"),
        (f"games per minute, concurrency {figures['cores']}, sandboxed (3 runs)",
         f"{figures['sandboxed_parallel_games_per_minute_3_runs']:,.1f}"),
        (f"games per minute, concurrency {figures['cores']}, without the sandbox (3 runs)",
         f"{figures['unsandboxed_parallel_games_per_minute_3_runs']:,.1f}"),
        ("sandboxed / unsandboxed", f"{figures['sandboxed_to_unsandboxed']:.2f}"),
        ("runner peak RSS, 8 games in flight",
         f"{figures['runner_peak_rss_mb_8_in_flight']:.0f} MB"),
        ("runner + workers peak PSS, 8 games in flight",
         f"{figures['runner_and_workers_peak_pss_mb_8_in_flight']:.0f} MB"),
    ], as_json)


@bench_app.command("fields")
def bench_fields_cmd(
    games_: Annotated[int, typer.Option("--games", "-g", help="Games per field.")] = 200,
    seed: Annotated[int, typer.Option()] = 0,
    concurrency: Annotated[int, typer.Option("--concurrency", "-j")] = 2,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    sandbox: Annotated[
        bool, typer.Option("--sandbox/--no-sandbox", help="Run the bots sandboxed.")
    ] = True,
    cluster: Annotated[bool, typer.Option(
        "--cluster", help="Then play the fields on a local Dask cluster too: a scheduler and "
                          "as many one-slot workers as --concurrency.")] = False,
) -> None:
    """Round-robins of 4, 8 and 16 random bots at 4-player tables, one after the other:
    games per minute and bot processes started per field, and 16 ÷ 8 bots' games per minute
    (what keeping bots per worker, and sending games where their bots are kept, are for);
    with --cluster, the same on a local Dask cluster."""
    from arena.bench.fields import bench_fields

    terminate_on_sigterm()  # the fields' temporary folder is removed, as on Ctrl-C
    if games_ < 4:
        fail("--games must be at least 4 (one table in its seat rotations)")
    if not 1 <= concurrency <= 64:
        fail("--concurrency must be from 1 to 64")
    local_cluster: Any = None
    if cluster:
        try:
            import distributed  # noqa: F401
        except ImportError:
            fail("bench fields --cluster needs Dask, which is not installed: install "
                 "arena[cluster] (pip install 'arena[cluster]')")
        from arena.bench.cluster import local_cluster
    try:
        figures = bench_fields(games_, seed, sandbox=sandbox_mode(sandbox),
                               concurrency=concurrency, cluster=local_cluster,
                               say=lambda line: err.print(line, markup=False))
    except RuntimeError as exc:  # the local cluster did not come up
        fail(str(exc))
    small, large = figures["ratio_fields"]
    rows = []
    for where, label, ratio in (("fields", "", "ratio"),
                                ("cluster_fields", "cluster, ", "cluster_ratio")):
        for n, f in figures.get(where, {}).items():
            rows += [(f"{label}{n} bots: games per minute", f"{f['games_per_minute']:,.1f}"),
                     (f"{label}{n} bots: bot processes started", f"{f['bot_processes']:,}")]
        if ratio in figures:
            rows.append((f"{label}{large} ÷ {small} bots, games per minute",
                         f"{figures[ratio]:.2f}"))
    rows.append(("bots kept per worker", f"{figures['kept_per_worker']}"))
    if cluster:
        rows.append(("cluster, bots kept per slot", f"{figures['cluster_kept_per_slot']}"))
    print_figures(
        f"fields benchmark: {games_} games a field, 4-player tables, concurrency "
        f"{concurrency}" + (", locally and on a local cluster" if cluster else ""), figures,
        rows, as_json)


@bench_app.command("cluster")
def bench_cluster_cmd(
    games_: GamesPerRun = 24, seed: Seed = 0, as_json: AsJson = False,
    think_ms: Annotated[int, typer.Option(
        "--think-ms", help="How long each bot waits before each answer (0: never; the games "
                           "are then bound by this machine's cores).")] = 1,
) -> None:
    """The Dask executor on a local cluster started for the benchmark (1, then 2 workers of
    one slot) against the local executor (1 and 2 worker processes), on the same small
    tournament of random bots: games per minute, the cluster's 2 ÷ 1, and its overhead per
    game against the local executor at the same concurrency."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        fail("bench cluster needs Dask, which is not installed: install arena[cluster] "
             "(pip install 'arena[cluster]')")
    from arena.bench.cluster import bench_cluster

    if games_ < 6 or think_ms < 0:
        fail("--games must be at least 6, and --think-ms at least 0")
    sandbox_mode(True)
    try:
        f = bench_cluster(games_, seed, think_ms)
    except RuntimeError as exc:
        fail(str(exc))
    print_figures(f"cluster benchmark: {f['games']} games of random bots that think "
                   f"{think_ms} ms an answer", f, [
        ("games per minute, local executor, 1 worker process",
         f"{f['local_1_games_per_minute']:,.1f}"),
        ("games per minute, local executor, 2 worker processes",
         f"{f['local_2_games_per_minute']:,.1f}"),
        ("games per minute, cluster, 1 worker (1 slot)",
         f"{f['cluster_1_games_per_minute']:,.1f}"),
        ("games per minute, cluster, 2 workers (1 slot each)",
         f"{f['cluster_2_games_per_minute']:,.1f}"),
        ("cluster, 2 workers ÷ 1", f"{f['cluster_2_to_1']:.2f}"),
        ("local, 2 processes ÷ 1", f"{f['local_2_to_1']:.2f}"),
        ("cluster overhead per game, concurrency 1",
         f"{f['cluster_overhead_ms_per_game_1']:.1f} ms"),
        ("cluster overhead per game, concurrency 2",
         f"{f['cluster_overhead_ms_per_game_2']:.1f} ms"),
    ], as_json)


@bench_app.command("start")
def bench_start_cmd(
    bot: Annotated[
        list[Path] | None,
        typer.Option("--bot", "-b", help="A bot folder (repeatable; default: the example "
                                         "random bots in Python and JavaScript)."),
    ] = None,
    starts: Annotated[int, typer.Option("--starts", "-n", help="Starts each way.")] = 20,
    as_json: AsJson = False,
) -> None:
    """Bot start-to-hello with and without the sandbox, measured in one run: medians and
    their ratio per bot."""
    from arena.bench.starts import bench_start

    if starts < 1:
        fail("--starts must be at least 1")
    examples = Path(__file__).resolve().parents[2] / "bots" / "examples"
    folders = bot or [examples / "random-py", examples / "random-js"]
    load_manifests(folders)  # a bad manifest is named here
    sandbox_mode(True)
    figures = bench_start(folders, starts)
    rows = []
    for name, f in figures["bots"].items():
        rows += [(f"{name}: sandboxed, median", f"{f['sandboxed_median_ms']:.1f} ms"),
                 (f"{name}: unsandboxed, median", f"{f['unsandboxed_median_ms']:.1f} ms"),
                 (f"{name}: ratio", f"{f['ratio']:.2f}")]
    print_figures(f"start-to-hello benchmark: {starts} starts each way", figures, rows,
                   as_json)


@bench_app.command("stats")
def bench_stats_cmd(
    games_: Annotated[int, typer.Option(
        "--games", "-g", help="Games of the largest journal; also one of a tenth.")] = 100_000,
    bots: Annotated[list[int] | None, typer.Option(
        "--bots", help="Bots per journal (repeatable; default 8 and 32).")] = None,
    players: Annotated[int, typer.Option("--players", "-n", help="Players per table.")] = 4,
    bootstrap: Annotated[int, typer.Option(
        "--bootstrap", min=0, help="Bootstrap replicates, as `arena stats --bootstrap`.")] = 200,
    seed: Annotated[int, typer.Option()] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Time `arena stats` on synthetic journals (real SQLite journals of bots of known
    strengths, seat rotations sharing a seed) of --games and a tenth of them, for each
    number of --bots: seconds per step, and how the total grows with games and with bots."""
    from arena.bench.stats import bench_stats

    counts = sorted(set(bots or [8, 32]))
    if not 2 <= players <= 4:
        fail("--players must be from 2 to 4")
    if any(b < players for b in counts):
        fail(f"--bots must be at least --players ({players})")
    if games_ < 10 * players:
        fail(f"--games must be at least {10 * players} (a tenth of it holds one table)")
    figures = bench_stats([games_ // 10, games_], counts, players, bootstrap, seed)
    rows = []
    for r in figures["runs"]:
        head = f"{r['bots']} bots, {r['games']:,} games"
        rows += [(f"{head}: arena stats", f"{r['total_seconds']:.2f} s"),
                 (f"{head}: read the journal", f"{r['read_seconds']:.2f} s"),
                 (f"{head}: head to head + seats",
                  f"{r['head_to_head_seconds'] + r['seats_seconds']:.2f} s"),
                 (f"{head}: Plackett–Luce fit", f"{r['fit_seconds']:.2f} s"),
                 (f"{head}: write the journal (not counted)", f"{r['write_seconds']:.2f} s")]
    rows += [(f"growth: {k}", f"× {v:.1f}") for k, v in figures["growth"].items()]
    print_figures(f"stats benchmark: {players}-player tables, {bootstrap} bootstrap "
                   f"replicates", figures, rows, as_json)


bench_app.command("ratings")(bench_ratings_cmd)


@bench_app.command("league")
def bench_league_cmd(
    bots: Annotated[int, typer.Option("--bots", help="Bots in each simulated league.")] = 16,
    players: Annotated[list[int] | None, typer.Option(
        "--players", "-n", help="Players per table (repeatable; default 2 and 4).")] = None,
    sigma: Annotated[float, typer.Option(
        "--sigma", help="The threshold every bot's TrueSkill sigma must get under.")] = 1.0,
    replicates: Annotated[int, typer.Option(
        "--replicates", "-r", min=1, help="Leagues per setting (bots and games seeded "
                                          "apart).")] = 4,
    in_flight: Annotated[int, typer.Option(
        "--in-flight", min=1, help="Tables issued before the oldest is rated, as a league "
                                   "playing that many at once (their games are pending).")] = 1,
    spread: Annotated[list[float] | None, typer.Option(
        "--spread", help="The standard deviation of the bots' log-strengths (repeatable; "
                         "default 1, a field of near equals, and 2, a wider one).")] = None,
    settle: Annotated[bool | None, typer.Option(
        "--settle/--no-settle", help="Simulate the leagues until every sigma is settled "
        f"(default: with at most {SETTLE_MAX_BOTS} bots; a larger league takes hours).")] = None,
    tables: Annotated[int, typer.Option(
        "--tables", min=0, help="Duplicate sets the league runner plays at scale (0: no "
        "runner).")] = 100,
    journal: Annotated[Path | None, typer.Option(
        "--journal", help="Also write a simulated league journal of --journal-games games "
        "(uniformly random tables) into this new folder, to time the commands that read one "
        "(a million games take several minutes).")] = None,
    journal_games: Annotated[int, typer.Option(
        "--journal-games", min=1, help="Games in the journal --journal writes.")] = 1_000_000,
    start: Annotated[Path | None, typer.Option(
        "--start", help="A league's folder (e.g. one --journal wrote): time the league "
        "runner's start on a copy of it, from the rating checkpoint and by rating every game "
        "again.")] = None,
    start_replay: Annotated[bool, typer.Option(
        "--start-replay/--no-start-replay", help="With --start, also time the start by rating "
        "every game again (about 8 minutes at a million games).")] = True,
    seed: Seed = 0,
    as_json: AsJson = False,
) -> None:
    """Simulate leagues of synthetic bots of known strengths under informative matchmaking
    and under random tables: games until every sigma is under --sigma for each, random ÷
    informative (the goal is at least 2), and the order recovered at the informative budget;
    with the whole field from the start, and with half of it joining a settled league.
    And the league at scale, at --bots entrants: a table choice's time (target 10 ms at
    1,000), screened and in full; the league runner playing --tables duplicate sets (each
    table's issue time, the journal's size, its peak memory); with --journal, a long journal
    written."""
    from arena.bench.league import bench_league
    from arena.cli.bench_league import (
        games_cell,
        league_scale,
        mean_games_cell,
        ratio_cell,
        scale_rows,
    )

    sizes = sorted(set(players or [2, 4]))
    if any(not 2 <= p <= 4 for p in sizes):
        fail("--players must be from 2 to 4")
    if bots < 2 * max(sizes):
        fail(f"--bots must be at least {2 * max(sizes)} (twice --players: half the field "
             "starts the join scenario)")
    if sigma <= 0:
        fail("--sigma must be above 0")
    spreads = sorted(set(spread or [1.0, 2.0]))
    if any(x <= 0 for x in spreads):
        fail("--spread must be above 0")
    if journal is not None and journal.exists():
        fail(f"--journal {journal}: give a folder that does not exist yet")
    settling = bots <= SETTLE_MAX_BOTS if settle is None else settle
    f: dict[str, Any] = {"bots": bots}
    if settling:
        f = bench_league(bots, sizes, sigma, replicates, seed, in_flight=in_flight,
                         spreads=spreads)
    if start is not None and not (start / "league.toml").is_file():
        fail(f"--start {start}: no league.toml (not a league's folder)")
    f["scale"] = league_scale(bots, max(sizes), tables, seed, journal, journal_games,
                               quiet=as_json, start=start, start_replay=start_replay)
    if as_json:
        typer.echo(json.dumps(f))
        return
    print_figures("league at scale", f["scale"], scale_rows(f["scale"]), as_json=False)
    if not settling:
        out.print(f"(settling not simulated: more than {SETTLE_MAX_BOTS} bots; --settle to "
                  "run it)")
        return
    from rich.table import Table

    table = Table(title=f"league matchmaking benchmark: {bots} bots, sigma < {sigma}, "
                        f"{replicates} leagues per setting, {in_flight} table(s) in flight; "
                        f"join: games after the join; order: at the informative run's budget; "
                        f"cells: informative / random")
    for column in ("spread", "scenario", "players", f"games to sigma < {sigma}",
                   "random ÷ informative",
                   "games to clear pairs in order", "Kendall tau", "neighbours right",
                   "whole order right"):
        table.add_column(column, justify="left" if column == "scenario" else "right")
    for s in f["settings"]:
        info, rand = s["informative"], s["random"]
        table.add_row(
            f"{s['spread']:g}", s["scenario"], str(s["players"]),
            f"{games_cell(info)} / {games_cell(rand)}",
            ratio_cell(s),
            f"{mean_games_cell(info)} / {mean_games_cell(rand)}",
            f"{info['kendall_tau']:.2f} / {rand['kendall_tau']:.2f}",
            f"{info['adjacent_right']:.0%} / {rand['adjacent_right']:.0%}",
            f"{info['exact_order']:.0%} / {rand['exact_order']:.0%}")
    out.print(table)
    rates = ", ".join(f"{p}-player table {ms:.2f} ms" for p, ms in f["rate_milliseconds"].items())
    goal = "; ".join(
        f"spread {x:g}: {'met' if least >= 2 else 'not met'} (smallest {least:.2f})"
        for x in f["spreads"]
        for least in [min(s["ratio"] for s in f["settings"] if s["spread"] == x)])
    out.print(f"goal, random ÷ informative at least 2: {goal}. TrueSkill rate(): {rates}; "
              f"{f['games_played']:,} games played in {f['seconds']:.1f} s "
              f"({f['games_per_second']:,.0f} a second)")
