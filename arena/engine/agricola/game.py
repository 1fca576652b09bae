"""The Agricola game description."""

from __future__ import annotations

import random
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from arena.engine.agricola.board import Board, from_observation
from arena.engine.agricola.components import (
    HAND_SIZE,
    MAX_PEOPLE,
    NUM_PLAYERS_MAX,
    NUM_PLAYERS_MIN,
    NUM_ROUNDS,
)
from arena.engine.agricola.draw import draw_parts
from arena.engine.agricola.state import AgricolaState
from arena.engine.agricola.tables import components
from arena.engine.api import Game, OptionSpec
from arena.engine.chance import Chance

if TYPE_CHECKING:
    from arena.engine.agricola.cards.state import CardState

# Card mode's modules are imported when a card game is met: the Family game, and a process
# that only lists the games, does without them.

#: An upper bound on the sub-decisions of one space's action: 13 rooms, 4 stables, 13 sowings
#: or 15 pastures in two steps each, a free bake and what to keep after each pasture.
_PER_ACTION: Final = 1 + 2 * 15 + 15 + 2
#: The app's draft asks each seat for one occupation and one minor per pass but the last.
_DRAFT_PICKS: Final = 2 * (HAND_SIZE - 1)

#: Card mode's options (rulings C1-C11 of ``RULES.md``): ``cards`` "base" plays the full game
#: with the base deck, "none" the Family game; ``draft`` says how card mode's hands come.
CARD_OPTIONS: Final[Mapping[str, OptionSpec]] = MappingProxyType({
    "cards": OptionSpec(("none", "base"), "none",
                        "none: the Family game; base: occupations and minor improvements "
                        "(decks A and B)"),
    "draft": OptionSpec(("deal", "app"), "deal",
                        "card mode's hands: deal 7 + 7 (the rulebook), or app: draft them, "
                        "taking one of each and passing left; no effect without cards"),
})


class AgricolaGame(Game):
    """Agricola, Revised Edition, 1-4 players: the Family game, or with cards (options)."""

    name = "agricola"
    title = "Agricola (Revised Edition: Family game, or with cards)"
    rules_version = "agricola-family-1.0"
    min_players = NUM_PLAYERS_MIN
    max_players = NUM_PLAYERS_MAX

    def options_schema(self) -> Mapping[str, OptionSpec]:
        return CARD_OPTIONS

    def max_decisions(self, num_players: int) -> int:
        # Per round each player places at most 5 people, each followed by one space's action
        # (a card played is one of its sub-decisions); on harvest rounds each feeds and breeds
        # once; in card mode the draft's picks come first (a bound for every mode, as the
        # options are not known here).
        return num_players * (NUM_ROUNDS * (MAX_PEOPLE * _PER_ACTION + 2) + _DRAFT_PICKS)

    def determinize(self, observation: Mapping[str, Any], rng: random.Random) -> AgricolaState:
        if not isinstance(observation, Mapping) or observation.get("game") != self.name:
            raise ValueError("not an Agricola observation")
        if observation.get("rules_version") != self.rules_version:
            raise ValueError(f"an observation of rules {observation.get('rules_version')!r}; "
                             f"this engine plays {self.rules_version!r}")
        if "cards" in observation:
            from arena.engine.agricola.cards.state import determinize_cards
            try:
                return determinize_cards(self, observation, rng)
            except (KeyError, TypeError, IndexError) as e:
                raise ValueError(f"not an Agricola observation: {e!r}") from e
        try:
            board = from_observation(observation["board"], rng)
        except (KeyError, TypeError) as e:
            raise ValueError(f"not an Agricola observation: {e!r}") from e
        return AgricolaState.from_data(self, observation, board)

    def components(self, options: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The Family game's tables; in card mode (``cards`` "base") the card board's spaces
        and every card of the deck (:func:`~.cards.table.card_components`)."""
        if self.validate_options(options)["cards"] == "base":
            from arena.engine.agricola.cards.table import card_components
            return card_components()
        return components()

    def draw_parts(self, position: Mapping[str, Any], seat: int | None) -> list[str]:
        return draw_parts(position, seat)

    def _new_state(self, num_players: int, chance: Chance,
                   options: dict[str, str]) -> AgricolaState:
        if options.get("cards") == "base":
            from arena.engine.agricola.cards.state import new_card_state as _new_card_state
            return _new_card_state(self, num_players, chance, options.get("draft", "deal"))
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
            from arena.engine.agricola.cards.spaces import CardBoard
            from arena.engine.agricola.cards.state import CardState
            cls, board_cls = CardState, CardBoard
        try:
            board = board_cls.from_dict(data["board"])
        except (KeyError, TypeError) as e:
            raise ValueError(f"not an Agricola state: {e!r}") from e
        state = cls.from_data(self, data, board)
        _check_mode(state, data)
        return state


def _check_mode(state: AgricolaState, data: Mapping[str, Any]) -> None:
    """ValueError unless a saved state's options and its cards agree: card mode has its cards,
    the Family game none and no draft; a drafted game's options say "app" (solo: "app" deals,
    ruling C9)."""
    options = state.options
    if "cards" not in data:  # the Family game's state
        if data.get("phase") == "draft":
            raise ValueError("a Family game has no draft")
        if options.get("cards", "none") != "none":
            raise ValueError(f"a saved state's options {options} disagree with its cards")
        return
    if not options:  # options not declared: the saved cards say which game it is
        return
    from arena.engine.agricola.cards.state import CardState
    drafted = isinstance(state, CardState) and state.draft_mode() == "app"
    if options["cards"] != "base" or drafted != (options["draft"] == "app"
                                                 and state.num_players > 1):
        raise ValueError(f"a saved state's options {options} disagree with its cards")


AGRICOLA = AgricolaGame()


def new_card_state(num_players: int, chance: Chance, draft: str = "deal") -> CardState:
    """A card-mode game at set-up (rulings C1-C11 of ``RULES.md``) without going through the
    options: hands dealt with ``chance``, or drafted (``draft`` "app")."""
    from arena.engine.agricola.cards.state import new_card_state as _new_card_state
    state = _new_card_state(AGRICOLA, num_players, chance, draft)
    state._game_options = AGRICOLA.validate_options({"cards": "base", "draft": draft})
    return state
