"""Properties over many random Stone Age games.

Holdings never go negative and capacities are never exceeded at any step; every game ends;
final scores recomputed independently from the final observations equal the reported ones;
a replay from seed + decisions is exact; an observation is unchanged by anything its seat may
not know. The default run covers 150 games at each player count; ``--run-slow`` covers 5,000.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.engine.stoneage import STONE_AGE, StoneAgeState
from arena.engine.stoneage.components import (
    CARD0,
    FIELD,
    HUT,
    NUM_PLACES,
    PILE0,
    RESOURCE_PLACE_CAPACITY,
    TOOL_MAKER,
)
from arena.engine.testing import random_playout, replay

DIVISOR_VALUE = {"wood": 3, "clay": 4, "stone": 5, "gold": 6}


def check_invariants(s: StoneAgeState) -> None:
    """Every holding non-negative, every cap and capacity respected. (Called before every
    decision of every game here, so it reads each list once and uses min, max and slices
    instead of a generator per check.)"""
    n = s.num_players
    assert min(s._goods) >= 0, s._goods
    people, agri, step, avail, any2 = s._people, s._agri, s._step, s._avail, s._any2
    placed_all = s._placed
    for p in range(n):
        assert 5 <= people[p] <= 10
        assert 0 <= agri[p] <= 10
        assert 0 <= step[p] <= 12
        assert 0 <= avail[p] <= people[p]
        assert any2[p] >= 0
        placed = placed_all[p * NUM_PLACES : (p + 1) * NUM_PLACES]
        assert min(placed) >= 0
        assert sum(placed) + avail[p] <= people[p]
        # None negative (above), so "every one placed is 1" is "the most placed is 1".
        assert max(placed[TOOL_MAKER:]) <= 1 or placed[HUT] == 2
        assert placed[HUT] in (0, 2)
    if s._phase == 0:  # during placement the board totals are live
        total = s._total
        assert max(total[1:5]) <= RESOURCE_PLACE_CAPACITY  # the four resource places
        if n < 4:
            assert max(s._players_at[1:5]) <= n - 1
        assert total[TOOL_MAKER] <= 1 and total[HUT] in (0, 2) and total[FIELD] <= 1
        if n < 4:
            assert (total[TOOL_MAKER] != 0) + (total[HUT] != 0) + (total[FIELD] != 0) <= 2
        assert max(total[CARD0 : PILE0 + 4]) <= 1
    assert len(s._display) == 4
    assert min(s._pile_pos) >= 0 and max(s._pile_pos) <= 7
    if not s.is_terminal:
        assert s.num_legal() >= 2  # forced decisions are applied at once (E1)


def recompute_score(obs: dict[str, Any], seat: int) -> int:
    """Final score of ``seat`` from its own final observation, written independently."""
    me = obs["players"][seat]
    from arena.engine.stoneage.views import card_info

    cards = [card_info(i) for i in me["cards"] + me["hidden_card_list"]]
    symbols: dict[str, int] = {}
    figures = {"farmer": 0, "tool_maker": 0, "hut_builder": 0, "shaman": 0}
    for c in cards:
        bottom = c["bottom"]
        if "symbol" in bottom:
            symbols[bottom["symbol"]] = symbols.get(bottom["symbol"], 0) + 1
        else:
            figures[bottom["figure"]] += bottom["count"]
    assert me["culture"] == symbols
    assert me["figures"] == {k: v for k, v in figures.items() if v}
    sets = [sum(1 for v in symbols.values() if v >= k) for k in (1, 2)]
    return (
        me["score"]
        + sum(x * x for x in sets)
        + figures["farmer"] * me["agriculture"]
        + figures["tool_maker"] * sum(me["tools"])
        + figures["hut_builder"] * me["buildings"]
        + figures["shaman"] * me["people"]
        + sum(me[r] for r in DIVISOR_VALUE)
        + 2 * me["any_two_resources"]
    )


def perturb_hidden(s: StoneAgeState, seat: int, rng: random.Random) -> StoneAgeState:
    """A state that differs from ``s`` only in what ``seat`` cannot know."""
    d = s.to_dict()
    unseen = d["deck"][d["deck_pos"] :]
    # Other seats' extra cards are unknown to ``seat``: swap them with unseen deck cards.
    for p in range(s.num_players):
        if p != seat:
            for i in range(len(d["hidden"][p])):
                j = rng.randrange(len(unseen) + 1)
                if j < len(unseen):
                    d["hidden"][p][i], unseen[j] = unseen[j], d["hidden"][p][i]
    rng.shuffle(unseen)
    d["deck"][d["deck_pos"] :] = unseen
    for j, pile in enumerate(d["piles"]):
        below = pile[d["pile_pos"][j] + 1 :]
        rng.shuffle(below)
        pile[d["pile_pos"][j] + 1 :] = below
    d["chance"] = {"kind": "seeded", "seed": rng.randrange(10**9)}
    out = STONE_AGE.state_from_dict(d)
    assert isinstance(out, StoneAgeState)
    return out


def run_games(players: int, seeds: range) -> None:
    for seed in seeds:
        state = STONE_AGE.new_state(players, seed=seed)
        assert isinstance(state, StoneAgeState)
        choices = random_playout(state, random.Random(seed), lambda s, k: check_invariants(s))
        check_invariants(state)
        result = state.result()
        for seat in range(players):
            assert recompute_score(state.observation(seat), seat) == result.scores[seat]
        if seed % 10 == 0:
            again = replay(STONE_AGE, players, seed, choices)
            assert again.to_dict() == state.to_dict()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_every_invariant_and_score_as_recomputed(players: int) -> None:
    run_games(players, range(150))


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_random_games_keep_every_invariant_and_score_as_recomputed(players: int) -> None:
    run_games(players, range(1000, 6000))


def check_hidden_information(players: int, seeds: range) -> int:
    checked = 0
    for seed in seeds:
        rng = random.Random(seed)
        state = STONE_AGE.new_state(players, seed=seed)
        assert isinstance(state, StoneAgeState)
        while not state.is_terminal:
            if rng.random() < 0.05 or any(state._hidden):
                seat = rng.randrange(players)
                other = perturb_hidden(state, seat, rng)
                assert other.observation(seat) == state.observation(seat)
                checked += 1
            state.apply_index(rng.randrange(state.num_legal()))
    return checked


@pytest.mark.parametrize("players", [2, 4])
def test_observations_do_not_change_with_anything_the_seat_cannot_know(players: int) -> None:
    assert check_hidden_information(players, range(30)) > 250


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_observations_of_many_games_do_not_change_with_what_the_seat_cannot_know(
        players: int) -> None:
    assert check_hidden_information(players, range(1000, 1500)) > 4000


def test_hidden_perturbation_really_changes_the_hidden_parts() -> None:
    # Guards the test above: the perturbed state differs, yet the observation does not.
    state = STONE_AGE.new_state(4, seed=3)
    assert isinstance(state, StoneAgeState)
    other = perturb_hidden(state, 0, random.Random(1))
    assert other.to_dict()["deck"] != state.to_dict()["deck"]
    assert other.observation(0) == state.observation(0)


def test_every_random_game_ends_within_the_round_limit() -> None:
    from arena.engine.stoneage.state import MAX_ROUNDS

    rounds = []
    for seed in range(300):
        state = STONE_AGE.new_state(2, seed=seed)
        random_playout(state, random.Random(seed))
        rounds.append(state.round)
    assert max(rounds) < MAX_ROUNDS
