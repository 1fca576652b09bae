"""Random full card games (every card of the base deck in play, random deals or drafts) at 2-4
players, checked at every step: a position not over always offers a legal action, no goods go
negative, the cards are conserved (hands, played cards and the box hold each card of the game
once; after the draft the hands and played cards hold 14 per seat, a traveling minor passed
staying in some hand), and at intervals the saved form reads back to the same position and
``determinize`` keeps the observation of the seat to act. The players are random but lean
towards the cards (playing them, using them), so the effects are reached. The default run
takes a few seconds; ``--run-slow`` plays hundreds of games, every step saved and observed."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from agricola_cards_helpers import play_out

from arena.engine.agricola.cards.hands import pool
from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.game import AGRICOLA

#: Action types a biased player prefers (a card played or used, something built).
_KEEN = frozenset({"play_occupation", "play_minor", "use_card", "card_choice", "build_room",
                   "renovate", "pasture_from", "pasture", "build_major"})


def _choose(state: CardState, rng: random.Random) -> int:
    acts = state.legal_actions()
    keen = [i for i, a in enumerate(acts) if a.get("type") in _KEEN]
    if keen and rng.random() < 0.7:
        return rng.choice(keen)
    return rng.randrange(len(acts))


def _check(state: CardState) -> None:
    """Beyond the playout's invariants: 7 + 7 cards a seat once the hands are complete, and
    every traveling minor passed is in a hand or played, never in the box."""
    n = state.num_players
    if state.phase != "draft":
        assert sum(len(h) for p in range(n) for h in (*state.hands(p), *state.played(p))) \
            == 14 * n
    minors, box = set(pool("minor", n)), {c for b in state.box() for c in b}
    assert all(c in minors and c not in box for c, _ in state.to_dict()["cards"]["passed"])


def play(games: int, save_every: int, seed0: int = 0) -> Counter[str]:
    """``games`` random card games, cycling player counts 2-4 and deal/draft; the counts of
    the action types taken."""
    seen: Counter[str] = Counter()

    def choose(state: CardState, rng: random.Random) -> int:
        i = _choose(state, rng)
        seen[str(state.legal_actions()[i].get("type"))] += 1
        return i

    for g in range(games):
        n, draft = 2 + g % 3, ("deal", "app")[g // 3 % 2]
        seed = seed0 + g
        state = AGRICOLA.new_state(n, seed=seed, options={"cards": "base", "draft": draft})
        assert isinstance(state, CardState)
        steps = play_out(state, random.Random(seed), save_every, choose, _check)
        assert steps <= AGRICOLA.max_decisions(n)
    return seen


def test_random_card_games_keep_every_invariant() -> None:
    seen = play(12, save_every=5)
    assert seen["play_occupation"] and seen["play_minor"] and seen["use_card"]


@pytest.mark.slow
def test_many_random_card_games_keep_every_invariant() -> None:
    seen = play(300, save_every=1, seed0=1000)
    for typ in ("play_occupation", "play_minor", "use_card", "card_choice", "pasture",
                "build_room", "renovate", "draft"):
        assert any(k.startswith(typ) for k in seen), (typ, seen)
