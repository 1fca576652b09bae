"""The Stone Age game description."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.engine.api import Game
from arena.engine.chance import Chance
from arena.engine.stoneage.determinize import determinize
from arena.engine.stoneage.draw import draw_parts
from arena.engine.stoneage.phases import MAX_ROUNDS
from arena.engine.stoneage.state import StoneAgeState
from arena.engine.stoneage.views import components


class StoneAgeGame(Game):
    """Stone Age, base game, 2-4 players."""

    name = "stoneage"
    title = "Stone Age (base game)"
    rules_version = "stoneage-1.0"
    min_players = 2
    max_players = 4
    #: Every key's action is a function of the key alone (moves.key_to_action).
    actions_shared_across_games = True

    def max_decisions(self, num_players: int) -> int:
        # Per player and round at most 10 placements, 4 decisions for each of up to 10 places
        # (resolve, tools or payment, a claim), 2 for feeding; plus the other players' picks of
        # up to 4 dice-for-everyone cards.
        per_round = num_players * (10 + 40 + 2) + 4 * num_players
        return MAX_ROUNDS * per_round

    def determinize(self, observation: Mapping[str, Any], rng: random.Random) -> StoneAgeState:
        return determinize(self, observation, rng)

    def draw_parts(self, position: Mapping[str, Any], seat: int | None) -> list[str]:
        return draw_parts(self, position, seat)

    def components(self, options: Mapping[str, str] | None = None) -> dict[str, Any]:
        self.validate_options(options)  # the tables are the same whatever the options
        return components()

    def _new_state(self, num_players: int, chance: Chance,
                   options: dict[str, str]) -> StoneAgeState:
        return StoneAgeState.new(self, num_players, chance)

    def state_from_dict(self, data: Mapping[str, Any]) -> StoneAgeState:
        return StoneAgeState.from_dict(self, data)


STONE_AGE = StoneAgeGame()
