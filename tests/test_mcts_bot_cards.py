"""The search bot's search on Agricola's card mode, in-process: from card positions (the
draft, a card played, a card decision pending before a placement) it builds worlds with
``determinize`` from the observation alone, the options carried along, and answers with a legal
index."""

from __future__ import annotations

import random

import pytest
from test_mcts_bot import search

from arena.engine import get_game

GAME = get_game("agricola")
COMPONENTS = GAME.components()


def test_determinized_card_worlds_keep_the_options_and_the_observation() -> None:
    state = GAME.new_state(2, seed=4, options={"cards": "base", "draft": "app"})
    guide = search.guide_for(GAME, COMPONENTS)
    rng = random.Random(0)
    for _ in range(60):  # into the draft, then into round 1
        state.apply_index(guide.move(state))
        seat = state.current_player
        obs = state.observation(seat)
        world = GAME.determinize(obs, rng)
        assert world.options == {"cards": "base", "draft": "app"}
        assert world.observation(seat) == obs


@pytest.mark.parametrize("draft", ["deal", "app"])
def test_the_search_answers_every_card_position(draft: str) -> None:
    """Games of the policy against itself (seeds in turn, until a card's optional clause has
    come up), the search asked (3 iterations) at every decision where a card is in play or a
    placement is to be made, whichever seat acts."""
    guide = search.guide_for(GAME, COMPONENTS)
    rng = random.Random(1)
    seen: set[str] = set()
    for seed in range(9, 15):
        state = GAME.new_state(2, seed=seed, options={"cards": "base", "draft": draft})
        step = 0
        while not state.is_terminal:
            seat = state.current_player
            obs, legal = state.observation(seat), state.legal_actions()
            types = {a["type"] for a in legal}
            card = types & {"draft", "use_card", "decline", "card_choice", "play_occupation",
                            "play_minor"}
            if card or (obs["decision"]["kind"] == "place" and step % 20 == 0):
                index, _ = search.search(GAME, obs, legal, COMPONENTS, rng, 5.0, 3)
                assert 0 <= index < len(legal)
                seen |= card
            step += 1
            state.apply_index(guide.move(state))
        if {"play_occupation", "use_card"} <= seen:
            break
    assert {"play_occupation", "use_card"} <= seen
    if draft == "app":
        assert "draft" in seen
