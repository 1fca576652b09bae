"""The Agricola game description."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Final

from arena.engine.agricola.board import Board, from_observation
from arena.engine.agricola.cards.spaces import CardBoard
from arena.engine.agricola.cards.state import CardState, determinize_cards
from arena.engine.agricola.cards.state import new_card_state as _new_card_state
from arena.engine.agricola.components import (
    MAX_PEOPLE,
    NUM_PLAYERS_MAX,
    NUM_PLAYERS_MIN,
    NUM_ROUNDS,
)
from arena.engine.agricola.state import AgricolaState
from arena.engine.agricola.tables import components
from arena.engine.api import Game
from arena.engine.chance import Chance

#: An upper bound on the sub-decisions of one space's action: 13 rooms, 4 stables, 13 sowings
#: or 15 pastures in two steps each, a free bake and what to keep after each pasture.
_PER_ACTION: Final = 1 + 2 * 15 + 15 + 2


class AgricolaGame(Game):
    """Agricola, Revised Edition, Family game, 1-4 players."""

    name = "agricola"
    title = "Agricola (Revised Edition, Family game)"
    rules_version = "agricola-family-1.0"
    min_players = NUM_PLAYERS_MIN
    max_players = NUM_PLAYERS_MAX

    def max_decisions(self, num_players: int) -> int:
        # Per round each player places at most 5 people, each followed by one space's action;
        # on harvest rounds each feeds and breeds once.
        return NUM_ROUNDS * num_players * (MAX_PEOPLE * _PER_ACTION + 2)

    def determinize(self, observation: Mapping[str, Any], rng: random.Random) -> AgricolaState:
        if not isinstance(observation, Mapping) or observation.get("game") != self.name:
            raise ValueError("not an Agricola observation")
        if observation.get("rules_version") != self.rules_version:
            raise ValueError(f"an observation of rules {observation.get('rules_version')!r}; "
                             f"this engine plays {self.rules_version!r}")
        if "cards" in observation:
            try:
                return determinize_cards(self, observation, rng)
            except (KeyError, TypeError, IndexError) as e:
                raise ValueError(f"not an Agricola observation: {e!r}") from e
        try:
            board = from_observation(observation["board"], rng)
        except (KeyError, TypeError) as e:
            raise ValueError(f"not an Agricola observation: {e!r}") from e
        return AgricolaState.from_data(self, observation, board)

    def components(self) -> dict[str, Any]:
        return components()

    def _new_state(self, num_players: int, chance: Chance,
                   options: dict[str, str]) -> AgricolaState:
        return AgricolaState.new(self, num_players, chance)

    def state_from_dict(self, data: Mapping[str, Any]) -> AgricolaState:
        if not isinstance(data, Mapping) or data.get("game") != self.name:
            raise ValueError("not an Agricola state")
        if data.get("rules_version") != self.rules_version:
            raise ValueError(f"a state of rules {data.get('rules_version')!r}; this engine "
                             f"plays {self.rules_version!r}")
        cls: type[AgricolaState] = AgricolaState
        board_cls = Board
        if "cards" in data:  # card mode (its state class, its board)
            cls, board_cls = CardState, CardBoard
        try:
            board = board_cls.from_dict(data["board"])
        except (KeyError, TypeError) as e:
            raise ValueError(f"not an Agricola state: {e!r}") from e
        return cls.from_data(self, data, board)


AGRICOLA = AgricolaGame()


def new_card_state(num_players: int, chance: Chance, draft: str = "deal") -> CardState:
    """A card-mode game at set-up (rulings C1-C8 of ``RULES.md``), until game options select
    card mode: hands dealt with ``chance``; ``draft`` "deal" ("app" is not built yet)."""
    return _new_card_state(AGRICOLA, num_players, chance, draft)
