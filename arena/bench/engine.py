"""The engine's benchmark: random games played in this process, no referee and no wire."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any

from arena.engine import Game, State
from arena.protocol.packing import packer_for

#: The least share of the engine's decision rate that the referee's path (legal keys, their
#: actions packed for the request) should keep.
REFEREE_PATH_TARGET = 0.75


def bench_engine(game: Game, players: int, games: int, seed: int,
                 options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Play ``games`` random games with ``options`` (None: the game's defaults) in this
    process and measure the engine.

    Returns the options played (complete, as ``game.validate_options`` gives them), games per
    second, decisions per second (only decision points with at least two
    legal actions count), decisions per game, the mean CPU time of ``clone()`` on positions
    taken from the games, and, for comparison, the decision rate when every decision also builds the
    legal actions as dicts (the path a referee takes). The decision rates are also given per
    second of this process's CPU time (``*_per_cpu_second``, with ``cpu_seconds``): on a busy
    machine they vary far less than the rates per second of wall time. ``dict_path_to_engine``
    is the dict path's rate ÷ the engine's, per CPU second; ``referee_path_to_engine`` the same
    for the path a referee takes (the legal keys, and their actions packed as a request carries
    them, each action encoded once a game, or once a process where the referee keeps its
    encodings across games: see ``packer_for``).
    """
    run = _RandomGames(game, players, seed, options)
    run.play(games)
    return run.figures()


def bench_against_defaults(game: Game, players: int, games: int, seed: int,
                           options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """:func:`bench_engine` with ``options`` and with the game's defaults, the same games each,
    played in halves in the order options, defaults, defaults, options: a load that rises or
    falls during the run, and whatever one half warms for the next (the engine's memos), then
    fall on both alike."""
    with_options = _RandomGames(game, players, seed, options)
    defaults = _RandomGames(game, players, seed, None)
    half = games // 2
    for run, n in ((with_options, half), (defaults, half), (defaults, games - half),
                   (with_options, games - half)):
        run.play(n)
    return with_options.figures(), defaults.figures()


class _RandomGames:
    """Random games of one game and options, played a batch at a time (the games and the
    random choices are the same however they are batched), and their figures."""

    def __init__(self, game: Game, players: int, seed: int,
                 options: Mapping[str, Any] | None) -> None:
        self.game, self.players, self.seed = game, players, seed
        self.played = game.validate_options(options)
        self.rng = random.Random(seed)
        self.games = self.decisions = 0
        self.elapsed = self.cpu = 0.0
        self.samples: list[State] = []

    def play(self, games: int) -> None:
        game, rng, samples = self.game, self.rng, self.samples
        decisions = 0
        t0 = time.perf_counter()
        c0 = time.process_time()
        for g in range(self.games, self.games + games):
            state = game.new_state(self.players, seed=self.seed + g, options=self.played)
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
        self.elapsed += time.perf_counter() - t0
        self.cpu += time.process_time() - c0
        self.games += games
        self.decisions += decisions

    def figures(self) -> dict[str, Any]:
        """The figures of the games played so far, with the clone cost and the dict path
        measured now."""
        game, rng, samples = self.game, self.rng, self.samples
        games, decisions, elapsed, cpu = self.games, self.decisions, self.elapsed, self.cpu
        # In CPU time: another job on the machine moves the wall time of so short a call a
        # great deal.
        reps = 50
        t1 = time.process_time()
        for s in samples:
            for _ in range(reps):
                s.clone()
        clone_us = (time.process_time() - t1) / (len(samples) * reps) * 1e6

        dict_games = max(1, games // 4)
        dict_decisions = 0
        t2 = time.perf_counter()
        c2 = time.process_time()
        for g in range(dict_games):
            state = game.new_state(self.players, seed=self.seed + g, options=self.played)
            while not state.is_terminal:
                actions = state.legal_actions()
                dict_decisions += 1
                state.apply_index(rng.randrange(len(actions)))
        dict_elapsed = time.perf_counter() - t2
        dict_cpu = time.process_time() - c2

        # The referee's own path: each decision's legal keys, their actions packed as its
        # request carries them (an ActionPacker: each action encoded once). The packer is the
        # referee's (packer_for): a new one each game, or for a game that promises its keys
        # name the same actions in every game, the one kept across this process's games.
        referee_decisions = 0
        c3 = time.process_time()
        for g in range(dict_games):
            packer = packer_for(game, self.played)
            state = game.new_state(self.players, seed=self.seed + g, options=self.played)
            while not state.is_terminal:
                keys = state.legal_keys()
                packer.pack(keys, state.action_of)
                referee_decisions += 1
                state.apply_index(rng.randrange(len(keys)))
        referee_cpu = time.process_time() - c3

        return {
            "game": game.name,
            "rules_version": game.rules_version,
            "players": self.players,
            "options": self.played,
            "games": games,
            "seed": self.seed,
            "seconds": round(elapsed, 3),
            "games_per_second": round(games / elapsed, 1),
            "decisions_per_second": round(decisions / elapsed),
            "decisions_per_game": round(decisions / games, 1),
            "clone_microseconds": round(clone_us, 2),
            "dict_path_decisions_per_second": round(dict_decisions / dict_elapsed),
            "cpu_seconds": round(cpu, 3),
            "decisions_per_cpu_second": round(decisions / cpu),
            "dict_path_decisions_per_cpu_second": round(dict_decisions / dict_cpu),
            "dict_path_to_engine": round(dict_decisions / dict_cpu / (decisions / cpu), 2),
            "referee_path_decisions_per_cpu_second": round(referee_decisions / referee_cpu),
            "referee_path_to_engine": round(
                referee_decisions / referee_cpu / (decisions / cpu), 2),
        }


def to_defaults(figures: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, float]:
    """``figures`` ÷ ``defaults`` (the same game with its default options, in the same run):
    games and decisions per second (above 1: faster than the defaults), and the clone()
    cost (above 1: dearer). Games per second come from the games and the wall time, which are
    rounded less than the per-second figures; games per CPU second from the process's CPU
    time, which another job on the machine moves far less than the wall time (the two halves
    run one after the other, and the load may change in between)."""
    return {
        "games_per_second": round(figures["games"] / figures["seconds"]
                                  / (defaults["games"] / defaults["seconds"]), 2),
        "games_per_cpu_second": round(figures["games"] / figures["cpu_seconds"]
                                      / (defaults["games"] / defaults["cpu_seconds"]), 2),
        "decisions_per_second": round(
            figures["decisions_per_second"] / defaults["decisions_per_second"], 2),
        "clone_microseconds": round(
            figures["clone_microseconds"] / defaults["clone_microseconds"], 2),
    }
