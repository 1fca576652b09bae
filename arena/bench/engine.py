"""The engine's benchmark: random games played in this process, no referee and no wire."""

from __future__ import annotations

import random
import time
from typing import Any

from arena.engine import Game, State


def bench_engine(game: Game, players: int, games: int, seed: int) -> dict[str, Any]:
    """Play ``games`` random games in this process and measure the engine.

    Returns games per second, decisions per second (only decision points with at least two
    legal actions count), decisions per game, the mean cost of ``clone()`` on positions taken
    from the games, and, for comparison, the decision rate when every decision also builds the
    legal actions as dicts (the path a referee takes).
    """
    rng = random.Random(seed)
    decisions = 0
    samples: list[State] = []
    t0 = time.perf_counter()
    for g in range(games):
        state = game.new_state(players, seed=seed + g)
        step = 0
        while not state.is_terminal:
            k = state.num_legal()
            if k >= 2:
                decisions += 1
            if step % 97 == 0 and len(samples) < 400:
                samples.append(state)
                state = state.clone()
            state.apply_index(rng.randrange(k))
            step += 1
    elapsed = time.perf_counter() - t0

    reps = 50
    t1 = time.perf_counter()
    for s in samples:
        for _ in range(reps):
            s.clone()
    clone_us = (time.perf_counter() - t1) / (len(samples) * reps) * 1e6

    dict_games = max(1, games // 4)
    dict_decisions = 0
    t2 = time.perf_counter()
    for g in range(dict_games):
        state = game.new_state(players, seed=seed + g)
        while not state.is_terminal:
            actions = state.legal_actions()
            dict_decisions += 1
            state.apply_index(rng.randrange(len(actions)))
    dict_elapsed = time.perf_counter() - t2

    return {
        "game": game.name,
        "rules_version": game.rules_version,
        "players": players,
        "games": games,
        "seed": seed,
        "seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 1),
        "decisions_per_second": round(decisions / elapsed),
        "decisions_per_game": round(decisions / games, 1),
        "clone_microseconds": round(clone_us, 2),
        "dict_path_decisions_per_second": round(dict_decisions / dict_elapsed),
    }
