"""Card mode's options (``cards``, ``draft``: ``CARD_OPTIONS`` of the Agricola game): not offered
by the public game until card effects are carried out, so these tests declare them on test-only
subclasses, never registered. Through them: the options reach the engine, the conformance kit
passes on card games dealt and drafted at every player count, and random card games end within
``max_decisions``."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from types import MappingProxyType

import pytest

from arena.engine import get_game
from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.game import AGRICOLA, CARD_OPTIONS, OFFER_CARDS, AgricolaGame
from arena.engine.agricola.state import AgricolaState
from arena.engine.api import OptionSpec
from arena.engine.testing import check_game


class _Offered(AgricolaGame):
    """The game as it will be once it offers card mode (the Family game by default)."""

    def options_schema(self) -> Mapping[str, OptionSpec]:
        return CARD_OPTIONS


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


OFFERED = _Offered()


@pytest.mark.skipif(OFFER_CARDS, reason="the card options are switched on (OFFER_CARDS)")
def test_the_public_game_does_not_offer_card_mode_yet() -> None:
    assert not OFFER_CARDS
    assert AGRICOLA.options_schema() == {} and get_game("agricola").options_schema() == {}
    with pytest.raises(ValueError, match="has no option 'cards'"):
        AGRICOLA.new_state(2, seed=1, options={"cards": "base"})
    assert set(CARD_OPTIONS) == {"cards", "draft"}
    assert CARD_OPTIONS["cards"].default == "none" and CARD_OPTIONS["draft"].default == "deal"


@pytest.mark.skipif(OFFER_CARDS, reason="the card options are switched on (OFFER_CARDS)")
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_the_default_options_are_the_family_game_saved_as_before(n: int) -> None:
    plain, offered = AGRICOLA.new_state(n, seed=3), OFFERED.new_state(n, seed=3)
    assert isinstance(offered, AgricolaState) and not isinstance(offered, CardState)
    assert offered.to_dict() == plain.to_dict() and "options" not in plain.to_dict()
    assert plain.options == {} and "options" not in plain.observation(0)
    assert offered.options == {"cards": "none", "draft": "deal"}


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


@pytest.mark.skipif(OFFER_CARDS, reason="the card options are switched on (OFFER_CARDS)")
def test_a_saved_state_whose_options_disagree_with_its_cards_is_refused() -> None:
    card = OFFERED.new_state(2, seed=5, options={"cards": "base", "draft": "app"}).to_dict()
    with pytest.raises(ValueError, match="disagree"):
        OFFERED.state_from_dict({**card, "options": {"cards": "base"}})
    with pytest.raises(ValueError, match="disagree"):
        OFFERED.state_from_dict({**card, "options": {"draft": "app"}})
    family = OFFERED.new_state(2, seed=5).to_dict()
    with pytest.raises(ValueError, match="disagree"):
        OFFERED.state_from_dict({**family, "options": {"cards": "base"}})
    with pytest.raises(ValueError, match="no option"):  # the public game takes none yet
        AGRICOLA.state_from_dict(card)


def test_the_conformance_kit_passes_with_the_card_options_declared() -> None:
    check_game(OFFERED, seeds=range(2))  # Family by default; check_options plays the others


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
