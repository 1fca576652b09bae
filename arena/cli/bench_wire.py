"""``arena bench protocol`` and ``arena bench game``: the referee's cost against the wire's
(:mod:`arena.bench.protocol`, :mod:`arena.bench.game`); :mod:`arena.cli.bench` lists them."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import AsJson, Seed, fail, game_named, print_figures, sandbox_mode

#: Whether the bots run sandboxed (as in a tournament) or not.
Sandboxed = Annotated[bool, typer.Option(
    "--sandbox/--no-sandbox", help="Run the bots sandboxed, over the sandbox's ipc endpoints "
    "(the bare path is loopback TCP either way).")]


def bench_protocol_cmd(
    games_: Annotated[int, typer.Option("--games", "-g", help="Games to play.")] = 4,
    seed: Seed = 0, as_json: AsJson = False, sandbox: Sandboxed = True,
) -> None:
    """Referee round trip with a Python SDK bot against a bare pyzmq ping-pong of the same
    messages, measured in the same run: both medians and their ratio."""
    from arena.bench.protocol import bench_protocol

    if games_ < 1:
        fail("--games must be at least 1")
    g = game_named("stoneage")
    figures = bench_protocol(g, games_, seed, sandbox_mode(sandbox))
    endpoint = "sandboxed, ipc" if sandbox else "unsandboxed, tcp"
    print_figures(
        f"protocol benchmark: {figures['round_trips']} round trips, requests of "
        f"{figures['mean_request_bytes']} bytes on average (bot {endpoint}; pinned to core "
        f"{figures['pinned_core']})",
        figures,
        [
            ("referee + Python SDK bot, median round trip",
             f"{figures['referee_median_ms'] * 1000:.0f} µs"),
            ("bare pyzmq ping-pong, median round trip",
             f"{figures['bare_median_ms'] * 1000:.0f} µs"),
            ("ratio", f"{figures['ratio']:.2f}"),
        ],
        as_json,
    )


def bench_game_cmd(
    players: Annotated[int, typer.Option("--players", "-n")] = 4,
    games_: Annotated[int, typer.Option("--games", "-g", help="Games to play.")] = 10,
    seed: Seed = 0, as_json: AsJson = False, sandbox: Sandboxed = True,
) -> None:
    """Whole refereed Stone Age games of random Python SDK bots against the wire's floor (the
    same requests, encoded beforehand, to bare pyzmq echo peers), in the same run: time per
    decision for both and their ratio, beside the target (at most 2)."""
    from arena.bench.game import bench_game

    if games_ < 1:
        fail("--games must be at least 1")
    g = game_named("stoneage")
    if not g.min_players <= players <= g.max_players:
        fail(f"--players must be {g.min_players}-{g.max_players} for {g.name}")
    figures = bench_game(g, players, games_, seed, sandbox_mode(sandbox))
    endpoint = "sandboxed, ipc" if sandbox else "unsandboxed, tcp"
    print_figures(
        f"refereed games: {games_} {players}-player games, {figures['decisions']} decisions "
        f"(bots {endpoint}; pinned to core {figures['pinned_core']})",
        figures,
        [
            ("refereed game, per decision", f"{figures['refereed_ms_per_decision'] * 1000:.0f} µs"),
            ("the wire's floor, per decision",
             f"{figures['floor_ms_per_decision'] * 1000:.0f} µs"),
            ("ratio (target: at most 2)", f"{figures['ratio']:.2f}"),
        ],
        as_json,
    )
