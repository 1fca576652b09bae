"""In-process games between built-in random players (no bot processes)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from arena.engine import Game, GameResult, State


def random_player_rng(seed: int) -> random.Random:
    """The generator of the built-in random players of a game with ``seed``.

    Private and seeded from the game seed (never the global generator), so the same seed
    always gives the same game.
    """
    return random.Random(f"arena/random-players/{seed}")


@dataclass(frozen=True)
class LocalGame:
    """A finished in-process game: its seed, the decisions taken and the final state."""

    game: Game
    seed: int
    choices: tuple[int, ...]
    state: State

    @property
    def result(self) -> GameResult:
        return self.state.result()

    def summary(self) -> dict[str, Any]:
        """The game as plain data: game, rules version, seed, rounds and the players."""
        result = self.result
        summary: dict[str, Any] = {
            "game": self.game.name,
            "rules_version": self.game.rules_version,
            "seed": self.seed,
        }
        rounds = getattr(self.state, "round", None)
        if rounds is not None:
            summary["rounds"] = rounds
        summary["decisions"] = len(self.choices)
        summary["players"] = [
            {
                "seat": s,
                "player": "random",
                "score": result.scores[s],
                "rank": result.ranks[s],
                "breakdown": dict(result.breakdown[s]),
            }
            for s in range(self.state.num_players)
        ]
        return summary


def play_random_game(game: Game, players: int, seed: int) -> LocalGame:
    """Play one game of ``game`` with a built-in random player in every seat."""
    rng = random_player_rng(seed)
    state = game.new_state(players, seed=seed)
    choices: list[int] = []
    while not state.is_terminal:
        i = rng.randrange(state.num_legal())
        choices.append(i)
        state.apply_index(i)
    return LocalGame(game, seed, tuple(choices), state)
