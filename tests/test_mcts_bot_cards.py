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


@pytest.mark.parametrize(("draft", "first_seed"), [("deal", 9), ("app", 11)])
def test_the_search_answers_every_card_position(draft: str, first_seed: int) -> None:
    """Games of the policy against itself (seeds in turn, until a card's optional clause has
    come up), the search asked (3 iterations) at every decision where a card is in play or a
    placement is to be made, whichever seat acts, until every kind wanted has been searched."""
    wanted = {"play_occupation", "use_card"} | ({"draft"} if draft == "app" else set())
    guide = search.guide_for(GAME, COMPONENTS)
    rng = random.Random(1)
    seen: set[str] = set()
    for seed in range(first_seed, first_seed + 6):
        state = GAME.new_state(2, seed=seed, options={"cards": "base", "draft": draft})
        step = 0
        while not state.is_terminal and not wanted <= seen:
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
    assert wanted <= seen, seen


def test_card_plays_are_searched_with_rollouts_cut_at_the_horizon() -> None:
    """In the card game the choice of card to play is searched like a placement (told by the
    legal actions' types, whatever the observation's ``decision`` says), and a rollout cut at
    the tuning's horizon is rewarded from the policy's estimates: in (0, 1)."""
    guide = search.guide_for(GAME, COMPONENTS)
    assert guide.estimate is not None and search.TUNING["agricola"].horizon
    rng = random.Random(2)
    for seed in range(20, 30):
        state = GAME.new_state(2, seed=seed, options={"cards": "base"})
        while not state.is_terminal:
            seat = state.current_player
            obs, legal = state.observation(seat), state.legal_actions()
            plays = [a for a in legal if a["type"] in ("play_occupation", "play_minor")]
            if plays and len(legal) > 1:
                index, iterations = search.search(GAME, obs, legal, COMPONENTS, rng, 60.0, 4)
                assert 0 <= index < len(legal) and iterations >= 4
                world = GAME.determinize(obs, rng)
                assert not world.is_terminal
                assert 0.0 < search.reward(world, seat, guide) < 1.0
                return
            state.apply_index(guide.move(state))
    raise AssertionError("no card play with a choice in ten games")
