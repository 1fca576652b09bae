"""The greedy example bot's Agricola policy in card mode (occupations and minor improvements):
played in-process against the real engine with the options ``cards=base`` and ``draft`` dealt
or drafted, fed what the referee sends.

It answers every card decision (a card played and how its food is raised, an optional clause
used or declined, a choice inside a card, a draft pick) with a legal index, plays cards, and
beats random players."""

from __future__ import annotations

import copy
import random
import statistics
from functools import cache
from typing import Any

from test_greedy_agricola import COMPONENTS, policy

from arena.engine import get_game

GAME = get_game("agricola")
CARD_TYPES = {"play_occupation", "play_minor", "use_card", "decline", "card_choice", "draft"}


def _options(seed: int) -> dict[str, str]:
    return {"cards": "base", "draft": "app" if seed % 2 else "deal"}


def test_legal_deterministic_and_consistent_at_card_decisions() -> None:
    """Mixed greedy/random card games at 1-4 players: every answer is a legal index, the same
    when asked twice, ``choose`` first in ``preferences``, the arguments untouched."""
    kinds: set[str] = set()
    card_types: set[str] = set()
    for players in (1, 2, 3, 4):
        for seed in range(2):
            state = GAME.new_state(players, seed=seed, options=_options(seed + players))
            rng = random.Random(seed * 10 + players)
            while not state.is_terminal:
                seat = state.current_player
                assert seat is not None
                obs = state.observation(seat)
                legal = state.legal_actions()
                kinds.add(obs["decision"]["kind"])
                types = {a["type"] for a in legal} & CARD_TYPES
                card_types |= types
                obs_copy, legal_copy = copy.deepcopy(obs), copy.deepcopy(legal)
                index = policy.choose(obs, legal, COMPONENTS)
                assert type(index) is int and 0 <= index < len(legal)
                if types:
                    order = policy.preferences(obs, legal, COMPONENTS)
                    assert sorted(order) == list(range(len(legal))) and order[0] == index
                    assert policy.choose(obs, legal, COMPONENTS) == index
                assert obs == obs_copy and legal == legal_copy
                if rng.random() < 0.5:
                    index = rng.randrange(len(legal))
                state.apply_index(index)
    assert {"place", "action", "feed", "breed", "draft"} <= kinds
    assert {"play_occupation", "play_minor", "use_card", "decline", "draft"} <= card_types


def test_a_food_cost_is_paid_without_conversions_when_it_can_be() -> None:
    obs_state = GAME.new_state(2, seed=3, options={"cards": "base", "draft": "deal"})
    obs = obs_state.observation(0)
    card = obs["cards"]["hand_occupations"][0]
    legal = [{"type": "play_occupation", "card": card, "convert": [1, 0, 0, 0, 0]},
             {"type": "play_occupation", "card": card},
             {"type": "play_occupation", "card": card, "convert": [0, 1, 0, 0, 0]}]
    obs["decision"] = {"kind": "action", "seat": 0, "space": -1}
    obs["players"][0]["goods"].update(food=3, grain=1, vegetable=1)
    assert policy.preferences(obs, legal, COMPONENTS)[0] == 1
    obs["players"][0]["goods"]["food"] = 0
    # No food: the grain goes before the vegetable (worth more in the model).
    assert policy.choose(obs, [legal[0], legal[2]], COMPONENTS) == 0


def _play(seed: int, greedy_seat: int) -> tuple[Any, int]:
    state = GAME.new_state(2, seed=seed, options=_options(seed))
    rng = random.Random(seed * 10 + greedy_seat)
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        legal = state.legal_actions()
        if seat == greedy_seat:
            index = policy.choose(state.observation(seat), legal, COMPONENTS)
        else:
            index = rng.randrange(len(legal))
        state.apply_index(index)
    mine = state.observation(greedy_seat)["cards"]["players"][greedy_seat]
    return state.result(), len(mine["occupations"]) + len(mine["minors"])


@cache
def _stats(seeds: int) -> dict[str, float]:
    wins, margins, played = 0, [], []
    for seed in range(seeds):
        for seat in range(2):
            result, cards = _play(seed, seat)
            wins += result.ranks[seat] == 1
            margins.append(result.scores[seat] - result.scores[1 - seat])
            played.append(cards)
    return {"games": 2 * seeds, "win_rate": wins / (2 * seeds),
            "mean_margin": statistics.mean(margins), "mean_cards": statistics.mean(played)}


def test_greedy_beats_random_in_two_player_card_games() -> None:
    """20 games (10 seeds, both seats, dealt and drafted hands): it wins all but at most one,
    by a wide margin, and plays cards."""
    stats = _stats(10)
    assert stats["win_rate"] >= 19 / 20, stats
    assert stats["mean_margin"] >= 25, stats
    assert stats["mean_cards"] >= 2, stats
