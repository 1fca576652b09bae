"""Synthetic tournaments of known strengths: for the statistics' tests and benchmark.

Bots ``bot-00``, ``bot-01``, ... get log-strengths theta drawn from N(0, 1). Each table is a
random choice of ``players`` bots (or, through :func:`play_table`, one chosen by the caller),
played once per cyclic seat rotation with one seed (a duplicate set, as a round-robin with
seat rotation plays it). In a game every seat's
performance is its bot's theta, plus ``seat_advantage * (players - 1 - seat) / (players - 1)``
(seat 0 the most), plus the table's luck for that seat (N(0, ``luck``), the same in every
rotation: duplicate dice), plus Gumbel noise; the order of performances is the finishing
order and the score is a rounded multiple of the performance. With no seat advantage and no
luck the orders are exactly Plackett–Luce with strengths exp(theta) (the Gumbel-max trick).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from arena.protocol.messages import Termination
from arena.results import GameOutcome, rotations


def synthetic_bots(n: int, seed: int) -> dict[str, float]:
    """``n`` bot names and their log-strengths theta, seeded."""
    rng = random.Random(f"bots-{seed}")
    return {f"bot-{i:02d}": rng.gauss(0.0, 1.0) for i in range(n)}


def play_table(theta: dict[str, float], bots: Sequence[str], rng: random.Random, table: int,
               first_index: int, seat_advantage: float = 0.0,
               luck: float = 0.0) -> list[GameOutcome]:
    """One duplicate set: the table ``bots`` played once per cyclic seat rotation on one seed,
    as games ``first_index``, ``first_index + 1``, ... of table number ``table``.

    Shared by the random tables of :func:`synthetic_outcomes` and the tables a league's
    matchmaking chooses (:mod:`arena.bench.league`), so both play by the same model.
    """
    players = len(bots)
    ok = (Termination.OK,) * players
    table_seed = rng.getrandbits(63)
    seat_luck = [rng.gauss(0.0, luck) if luck else 0.0 for _ in range(players)]
    out: list[GameOutcome] = []
    for seating in rotations(bots):
        perf = [theta[b] + seat_luck[s]
                + seat_advantage * (players - 1 - s) / (players - 1)
                - math.log(max(rng.expovariate(1.0), 1e-300))
                for s, b in enumerate(seating)]
        scores = tuple(round(100 * p) for p in perf)
        ranks = tuple(1 + sum(x > sc for x in scores) for sc in scores)
        i = first_index + len(out)
        out.append(GameOutcome(f"g{i:07d}", i, 1, table, seating, table_seed, scores,
                               ranks, ok))
    return out


def synthetic_outcomes(theta: dict[str, float], players: int, games: int, seed: int,
                       seat_advantage: float = 0.0, luck: float = 0.0) -> list[GameOutcome]:
    """``games`` games, rounded down to whole duplicate sets of ``players`` rotations, among
    the bots of ``theta`` at tables of ``players``, seeded."""
    rng = random.Random(seed)
    names = sorted(theta)
    out: list[GameOutcome] = []
    table = 0
    while len(out) + players <= games:
        table += 1
        out += play_table(theta, rng.sample(names, players), rng, table, len(out),
                          seat_advantage, luck)
    return out
