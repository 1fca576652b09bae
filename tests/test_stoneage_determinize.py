"""Building full Stone Age states from one seat's observation (for search bots)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.engine.stoneage import STONE_AGE, StoneAgeGame, StoneAgeState
from arena.engine.stoneage.components import BUILDINGS, CARDS
from arena.engine.testing import ConformanceError, check_determinization


def midgame(players: int, seed: int, steps: int) -> StoneAgeState:
    state = STONE_AGE.new_state(players, seed=seed)
    assert isinstance(state, StoneAgeState)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal:
            break
        state.apply_index(rng.randrange(state.num_legal()))
    assert not state.is_terminal
    return state


def test_every_card_and_tile_appears_exactly_once_in_a_determinized_state() -> None:
    state = midgame(4, 3, 400)
    for seat in range(4):
        d = STONE_AGE.determinize(state.observation(seat), random.Random(seat))
        assert isinstance(d, StoneAgeState)
        cards = [c for c in d._display if c >= 0] + list(d._deck[d._deck_pos:])
        cards += [c for p in range(4) for c in d._cards[p] + d._hidden[p]]
        assert sorted(cards) == list(range(len(CARDS)))  # every card in exactly one place
        tiles = [b for pile in d._piles for b in pile]
        assert len(tiles) == len(set(tiles)) and set(tiles) <= set(range(len(BUILDINGS)))


def test_what_the_seat_knows_is_kept_and_what_it_does_not_is_sampled() -> None:
    state = midgame(3, 11, 300)
    obs = state.observation(1)
    decks = set()
    for k in range(20):
        d = STONE_AGE.determinize(obs, random.Random(k))
        assert d.observation(1) == obs
        decks.add(d._deck[d._deck_pos:])
        assert d._hidden[1] == state._hidden[1]  # its own extra cards are known
        assert [p[: state._pile_pos[j] + 1] for j, p in enumerate(d._piles)] == [
            p[: state._pile_pos[j] + 1] for j, p in enumerate(state._piles)
        ]  # taken tiles and tops are public
    assert len(decks) > 15  # the deck's order is sampled, not copied


def test_other_seats_extra_cards_are_sampled_from_cards_the_seat_has_not_seen() -> None:
    state = midgame(2, 5, 200)
    data = state.to_dict()
    unseen = list(state._deck[state._deck_pos:])
    data["hidden"][0] = [unseen[0]]
    data["deck"] = list(state._deck[: state._deck_pos]) + unseen[1:]
    state = STONE_AGE.state_from_dict(data)
    assert isinstance(state, StoneAgeState)
    drawn = {STONE_AGE.determinize(state.observation(1), random.Random(k))._hidden[0]
             for k in range(30)}
    assert all(len(h) == 1 for h in drawn)
    assert len(drawn) > 5
    known = set(state.observation(1)["players"][1]["cards"]) | set(
        c["card"] for c in state.observation(1)["board"]["cards"] if c["card"] is not None
    )
    assert not any(h[0] in known for h in drawn)


def test_the_same_generator_gives_the_same_state() -> None:
    obs = midgame(4, 8, 250).observation(2)
    a = STONE_AGE.determinize(obs, random.Random(42)).to_dict()
    b = STONE_AGE.determinize(obs, random.Random(42)).to_dict()
    assert a == b


def test_an_observation_of_another_game_or_of_a_finished_game_is_refused() -> None:
    obs = midgame(2, 1, 10).observation(0)
    with pytest.raises(ValueError, match="not a stoneage"):
        STONE_AGE.determinize({**obs, "rules_version": "stoneage-0"}, random.Random(0))
    with pytest.raises(ValueError, match="over"):
        STONE_AGE.determinize({**obs, "phase": "game_over"}, random.Random(0))


class _ForgetfulGame(StoneAgeGame):
    """Broken on purpose: its determinized states forget the seat's food."""

    name = "forgetful"

    def determinize(self, observation: Any, rng: random.Random) -> StoneAgeState:
        state = super().determinize(observation, rng)
        state._goods[observation["seat"] * 5] += 1
        return state


def test_the_conformance_kit_catches_a_determinization_that_changes_what_the_seat_knows(
) -> None:
    with pytest.raises(ConformanceError, match="different observation"):
        check_determinization(_ForgetfulGame(), 2, [0])
