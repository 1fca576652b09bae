"""The search bot: information-set MCTS (search.py) behind Arena's Python SDK, for every game
greedy-py has a policy for (Stone Age and Agricola): the game is named in ``game_start``.

Strength comes from the command line, set in bot.toml: ``--ms N`` (the most time a decision may
take) or ``--iterations N`` (a fixed number of iterations per decision, for reproducible play).
Whatever it is told, a decision never takes more than half the time the referee allows for it,
nor more than a 25th of the bank left.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from search import guide_for, search

from arena.engine import Game, get_game
from arena.protocol.client import Bot, run

#: The most milliseconds a searched decision takes, by game, unless ``--ms`` says otherwise.
#: Agricola's rollouts are long (a card game's twice a Family game's), so it needs more time
#: for the search to overrule the policy; Stone Age is strong at 200 ms.
DEFAULT_MS = {"stoneage": 200, "agricola": 500}
FALLBACK_MS = 500


class SearchBot(Bot):
    name = "mcts-py"
    version = "2.1"

    def __init__(self, ms: int | None, iterations: int | None) -> None:
        self.given_ms = ms
        self.ms = ms or DEFAULT_MS["stoneage"]
        self.iterations = iterations
        self.game: Game = get_game("stoneage")
        self.rng = random.Random(0)
        self.components: dict[str, Any] = self.game.components()

    def on_game_start(self, info: dict[str, Any]) -> None:
        self.game = get_game(info["game"])
        self.components = info["components"]
        self.rng = random.Random(info["bot_seed"])
        self.ms = self.given_ms or DEFAULT_MS.get(info["game"], FALLBACK_MS)
        # The game's policy now, so that a game without one fails at the start, not mid-game.
        guide_for(self.game, self.components)

    def choose(
        self, observation: dict[str, Any], legal_actions: list[dict[str, Any]], time_left_ms: int
    ) -> int:
        budget_ms = min(time_left_ms / 2, self.time_bank_ms / 25)
        if self.iterations is None:
            budget_ms = min(budget_ms, self.ms)
        index, _ = search(self.game, observation, legal_actions, self.components, self.rng,
                          budget_ms / 1000, self.iterations)
        return index


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Information-set MCTS bot for Stone Age and Agricola.")
    parser.add_argument("--ms", type=int, default=None,
                        help="most milliseconds per searched decision (by game if not given: "
                        + ", ".join(f"{g} {ms}" for g, ms in DEFAULT_MS.items()) + ")")
    parser.add_argument("--iterations", type=int, default=None,
                        help="a fixed number of iterations per decision instead of a time")
    args = parser.parse_args()
    run(SearchBot(args.ms, args.iterations))


if __name__ == "__main__":
    main()
