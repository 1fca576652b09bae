"""Card mode's options (``cards``, ``draft``: ``CARD_OPTIONS`` of the Agricola game), offered by
the public game: the Family game stays the default and saves as before, the options reach the
engine, the conformance kit passes on the public game (its options played by the kit) and on
card games dealt and drafted at every player count (test-only subclasses whose default is card
mode, never registered), and random card games end within ``max_decisions``."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from types import MappingProxyType

import pytest

from arena.engine import get_game
from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.game import AGRICOLA, CARD_OPTIONS, AgricolaGame
from arena.engine.agricola.state import AgricolaState
from arena.engine.api import OptionSpec
from arena.engine.testing import check_game


def _card_game(draft: str) -> AgricolaGame:
    """A game whose default is card mode with ``draft``: the kit plays its defaults."""
    schema = MappingProxyType({
        "cards": OptionSpec(("none", "base"), "base"),
        "draft": OptionSpec(("deal", "app"), draft),
    })

    class _Cards(AgricolaGame):
        def options_schema(self) -> Mapping[str, OptionSpec]:
            return schema

    return _Cards()


OFFERED = AGRICOLA


def test_the_public_game_offers_card_mode() -> None:
    assert AGRICOLA.options_schema() == CARD_OPTIONS
    assert get_game("agricola").options_schema() == CARD_OPTIONS
    assert set(CARD_OPTIONS) == {"cards", "draft"}
    assert all(spec.description for spec in CARD_OPTIONS.values())
    assert CARD_OPTIONS["cards"].default == "none" and CARD_OPTIONS["draft"].default == "deal"


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_the_default_options_are_the_family_game_saved_as_before(n: int) -> None:
    plain = AGRICOLA.new_state(n, seed=3)
    named = AGRICOLA.new_state(n, seed=3, options={"cards": "none", "draft": "deal"})
    assert isinstance(plain, AgricolaState) and not isinstance(plain, CardState)
    assert named.to_dict() == plain.to_dict() and "options" not in plain.to_dict()
    assert plain.options == {"cards": "none", "draft": "deal"}


@pytest.mark.parametrize("draft", ["deal", "app"])
def test_card_options_build_a_card_game_that_keeps_them(draft: str) -> None:
    state = OFFERED.new_state(3, seed=5, options={"cards": "base", "draft": draft})
    assert isinstance(state, CardState)
    assert state.phase == ("draft" if draft == "app" else "place")
    want = {"cards": "base", "draft": draft}
    assert state.options == want and state.clone().options == want
    assert state.observation(1)["options"] == want
    saved = state.to_dict()
    assert saved["options"] == OFFERED.canonical_options(want)
    assert saved["cards"]["draft"] == draft
    back = OFFERED.state_from_dict(json.loads(json.dumps(saved)))
    assert back.options == want and back.to_dict() == saved
    guess = OFFERED.determinize(state.observation(2), random.Random(0))
    assert guess.options == want and guess.observation(2) == state.observation(2)


def test_a_saved_state_whose_options_disagree_with_its_cards_is_refused() -> None:
    card = OFFERED.new_state(2, seed=5, options={"cards": "base", "draft": "app"}).to_dict()
    with pytest.raises(ValueError, match="disagree"):
        OFFERED.state_from_dict({**card, "options": {"cards": "base"}})
    with pytest.raises(ValueError, match="disagree"):
        OFFERED.state_from_dict({**card, "options": {"draft": "app"}})
    family = OFFERED.new_state(2, seed=5).to_dict()
    with pytest.raises(ValueError, match="disagree"):
        OFFERED.state_from_dict({**family, "options": {"cards": "base"}})
    assert AGRICOLA.state_from_dict(card).to_dict() == card


def test_the_conformance_kit_passes_on_the_public_game() -> None:
    check_game(AGRICOLA, seeds=range(2))  # Family by default; check_options plays the others


@pytest.mark.parametrize("draft", ["deal", "app"])
def test_the_conformance_kit_passes_on_card_games(draft: str) -> None:
    check_game(_card_game(draft), seeds=range(3))  # 1-4 players


@pytest.mark.parametrize("draft", ["deal", "app"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_random_card_games_end_within_max_decisions(draft: str, n: int) -> None:
    game = _card_game(draft)
    bound = game.max_decisions(n)
    for seed in range(6):
        state = game.new_state(n, seed=seed)
        rng = random.Random(seed)
        decisions = 0
        while not state.is_terminal:
            state.apply_index(rng.randrange(state.num_legal()))
            decisions += 1
        assert decisions <= bound
