"""``arena bench league``: how many games informative matchmaking saves against random tables.

A league of synthetic bots of known log-strength theta (:mod:`arena.stats.synthetic`) is
played table by table under each policy:

- ``informative``: :func:`~arena.league.matchmaking.choose_table` picks the table;
- ``random``: a uniformly random table of the bots in the league.

Both play every table as a duplicate set by the same model
(:func:`~arena.stats.synthetic.play_table`) and rate the set's games in order with TrueSkill,
as the league does (:class:`~arena.runner.play.ratings.RatingTracker`). A run stops once every bot's
sigma is under the threshold (its figure: the games played until then) and the ratings have
put every clearly apart pair of bots (log-strengths :data:`CLEAR_GAP` apart or more) in the
right order (the games until that first happened), or at a cap. And the order at a common
budget: where the informative run first had every sigma under the threshold, each policy's mu
order is compared with the true theta order (Kendall tau, the share of neighbours in the true
order that are ordered right, and whether the whole order is right: rare, since neighbours
can be nearly equal).

The bots' log-strengths are drawn from N(0, spread²). A spread of 1 is a field of near equals
(neighbours about 160 Elo apart on average); the example bots span far more (random-py to
mcts-py is about 1,000 Elo in the committed leaderboards: a spread of about 2.5), and there a
random table is more often a foregone conclusion, which tells the ratings little.

Scenarios: ``start`` has the whole field from the first game; ``join`` starts with half of it
and the other half joins once the first half's sigmas are all under the threshold (a settled
league receiving new bots, the league's real use), and counts the games after the join (for
both figures).

By default each table is rated before the next is chosen; with ``in_flight`` above 1 that
many tables are issued before the oldest is rated, as a league playing several at once does,
so matchmaking sees pending games. TrueSkill's ``rate`` is most of the cost (it is timed and
reported).
"""

from __future__ import annotations

import itertools
import random
import statistics
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.league.matchmaking import EXPLORE, Entrant, choose_table
from arena.results import GameOutcome
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.trueskill_update import rate, readback
from arena.stats.synthetic import play_table, synthetic_bots

POLICIES = ("informative", "random")
SCENARIOS = ("start", "join")
#: The synthetic game: seat 0's edge over the last seat, and each seat's luck, in theta units
#: (as ``arena bench stats`` plays it).
SEAT_ADVANTAGE = 0.2
LUCK = 0.5
#: A run that has not brought every sigma under the threshold after this many games per bot
#: stops there (its figure is then that many games, and it is flagged).
MAX_GAMES_PER_BOT = 500
#: Two bots whose log-strengths differ by this much are clearly apart (the stronger wins a
#: two-player game 62 times in 100): the order the ratings should get right.
CLEAR_GAP = 0.5


@dataclass
class Run:
    """One simulated league under one policy."""

    games_to_sigma: int = 0
    reached: bool = False
    join_games: int = 0
    games_to_order: int | None = None
    played: int = 0
    order: dict[str, float] = field(default_factory=dict)


def order_figures(mu: dict[str, float], theta: dict[str, float]) -> dict[str, float]:
    """How well the mu order recovers the true theta order: Kendall tau (1: the same order,
    -1: reversed), the share of neighbours in the true order that mu orders the same way, and
    1.0 or 0.0 for the whole order right."""
    truth = sorted(theta, key=lambda b: theta[b])
    agree = 0
    pairs = 0
    for i, a in enumerate(truth):
        for b in truth[i + 1:]:
            pairs += 1
            agree += 1 if mu[a] < mu[b] else -1
    neighbours = sum(mu[a] < mu[b] for a, b in itertools.pairwise(truth))
    return {"kendall_tau": agree / pairs,
            "adjacent_right": neighbours / (len(truth) - 1),
            "exact_order": float(neighbours == len(truth) - 1)}


def clear_pairs(theta: dict[str, float]) -> list[tuple[str, str]]:
    """The pairs (weaker, stronger) whose true log-strengths differ by at least
    :data:`CLEAR_GAP`: the order the ratings should get right."""
    ranked = sorted(theta, key=lambda b: theta[b])
    return [(a, b) for i, a in enumerate(ranked) for b in ranked[i + 1:]
            if theta[b] - theta[a] >= CLEAR_GAP]


class _League:
    """A simulated league's state: ratings, games finished and issued per bot, the tables in
    flight (issued, not yet rated) and who has joined."""

    def __init__(self, theta: dict[str, float], players: int, sigma: float, seed: int,
                 join: bool) -> None:
        self.theta = theta
        self.players = players
        self.sigma = sigma
        self.names = sorted(theta)
        self.active = self.names[: (len(self.names) + 1) // 2] if join else self.names
        self.waiting = self.names[len(self.active):]
        self.play_rng = random.Random(f"play-{seed}")
        self.pick_rng = random.Random(f"pick-{seed}")
        self.tracker = RatingTracker(self.names)
        self.finished = dict.fromkeys(self.names, 0)
        self.pending = dict.fromkeys(self.names, 0)
        self.in_flight: deque[list[GameOutcome]] = deque()
        self.tables = 0
        self.issued = 0
        self.rated = 0

    def issue(self, policy: str, explore: float) -> None:
        """Choose the next table by ``policy`` and play it; it is rated by :meth:`finish`."""
        if policy == "informative":
            entrants = [Entrant(b, *self.tracker.rating(b), self.finished[b], self.pending[b])
                        for b in self.active]
            table = choose_table(entrants, self.players, self.pick_rng, explore, self.sigma).bots
        else:
            table = tuple(sorted(self.pick_rng.sample(self.active, self.players)))
        self.tables += 1
        games = play_table(self.theta, table, self.play_rng, self.tables, self.issued,
                           SEAT_ADVANTAGE, LUCK)
        self.issued += len(games)
        for b in table:
            self.pending[b] += len(games)
        self.in_flight.append(games)

    def finish(self) -> None:
        """Rate the oldest table in flight (tables finish in the order they were issued)."""
        games = self.in_flight.popleft()
        self.tracker.add_all(games)
        self.rated += len(games)
        for b in games[0].bots:
            self.pending[b] -= len(games)
            self.finished[b] += len(games)

    def settled(self) -> bool:
        """Whether every bot in the league has its sigma under the threshold."""
        return all(self.tracker.rating(b)[1] < self.sigma for b in self.active)


def simulate(theta: dict[str, float], players: int, policy: str, seed: int, sigma: float,
             join: bool, budget: int | None = None, explore: float = EXPLORE,
             in_flight: int = 1) -> Run:
    """One league under ``policy`` until every sigma is under ``sigma`` and the clear pairs
    are all in order (or the cap); the order figures are taken when ``budget`` games have
    been rated (None: when the sigmas got there). ``in_flight`` tables are issued before the
    oldest is rated, as a league playing that many at once does: their games are pending."""
    league = _League(theta, players, sigma, seed, join)
    pairs = clear_pairs(theta)
    run = Run()
    while league.rated < MAX_GAMES_PER_BOT * len(theta) and not (
            run.reached and run.order and run.games_to_order is not None):
        while len(league.in_flight) < in_flight:
            league.issue(policy, explore)
        league.finish()
        mu = {b: league.tracker.rating(b)[0] for b in league.names}
        if not run.reached and league.settled():
            if league.waiting:
                league.active, league.waiting = league.names, []
                run.join_games = league.rated
            else:
                run.reached = True
                run.games_to_sigma = league.rated - run.join_games
        if (run.games_to_order is None and not league.waiting
                and all(mu[a] < mu[b] for a, b in pairs)):
            run.games_to_order = league.rated - run.join_games
        if not run.order and (league.rated >= budget if budget is not None else run.reached):
            run.order = order_figures(mu, theta)
    if not run.reached:
        run.games_to_sigma = league.rated - run.join_games
    if not run.order:
        run.order = order_figures({b: league.tracker.rating(b)[0] for b in league.names},
                                  theta)
    run.played = league.rated
    return run


def rate_milliseconds(players: int, repeats: int = 200) -> float:
    """Milliseconds one TrueSkill ``rate`` of a ``players`` table takes here."""
    table = [readback(25.0 + i, 3.0) for i in range(players)]
    ranks = list(range(players))
    start = time.perf_counter()
    for _ in range(repeats):
        rate(table, ranks)
    return (time.perf_counter() - start) / repeats * 1000


def bench_setting(bots: int, players: int, scenario: str, sigma: float, replicates: int,
                  seed: int, explore: float = EXPLORE, in_flight: int = 1,
                  spread: float = 1.0) -> dict[str, Any]:
    """Both policies over ``replicates`` leagues (bots and games seeded per replicate): mean
    games until every sigma is under ``sigma``, random ÷ informative, and the order figures
    at the informative run's budget. ``spread``: the standard deviation of the bots'
    log-strengths (1: a field of near equals; 2 and more: one like the example bots')."""
    runs: dict[str, list[Run]] = {p: [] for p in POLICIES}
    for r in range(replicates):
        theta = {b: spread * t for b, t in synthetic_bots(bots, seed * 1000 + r).items()}
        join = scenario == "join"
        first = simulate(theta, players, "informative", seed * 1000 + r, sigma, join,
                         explore=explore, in_flight=in_flight)
        runs["informative"].append(first)
        runs["random"].append(simulate(theta, players, "random", seed * 1000 + r, sigma, join,
                                       budget=first.games_to_sigma + first.join_games,
                                       in_flight=in_flight))
    figures: dict[str, Any] = {"scenario": scenario, "players": players, "spread": spread}
    for policy, done in runs.items():
        figures[policy] = {
            "games_to_sigma": statistics.fmean(x.games_to_sigma for x in done),
            "games_to_sigma_each": [x.games_to_sigma for x in done],
            "all_reached": all(x.reached for x in done),
            "games_to_order": (statistics.fmean(ordered) if (ordered := [
                x.games_to_order for x in done if x.games_to_order is not None]) else None),
            "order_reached": len(ordered),
            **{k: statistics.fmean(x.order[k] for x in done) for k in done[0].order},
        }
    figures["games_played"] = sum(x.played for done in runs.values() for x in done)
    figures["ratio"] = (figures["random"]["games_to_sigma"]
                        / figures["informative"]["games_to_sigma"])
    return figures


def bench_league(bots: int, players: Sequence[int], sigma: float, replicates: int, seed: int,
                 explore: float = EXPLORE, in_flight: int = 1,
                 spreads: Sequence[float] = (1.0,)) -> dict[str, Any]:
    """Every scenario at every spread of strengths and table size, the time it took, and
    TrueSkill's cost."""
    start = time.perf_counter()
    settings = [bench_setting(bots, p, s, sigma, replicates, seed, explore, in_flight, spread)
                for spread in spreads for s in SCENARIOS for p in players]
    seconds = time.perf_counter() - start
    played = sum(s["games_played"] for s in settings)
    return {"bots": bots, "sigma": sigma, "replicates": replicates, "seed": seed,
            "spreads": list(spreads),
            "explore": explore, "in_flight": in_flight, "settings": settings,
            "seconds": seconds,
            "games_played": played, "games_per_second": played / seconds,
            "rate_milliseconds": {str(p): rate_milliseconds(p) for p in players},
            "min_ratio": min(s["ratio"] for s in settings),
            "goal_met": all(s["ratio"] >= 2.0 for s in settings)}
