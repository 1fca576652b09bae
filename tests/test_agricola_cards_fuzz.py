"""Random full card games (every card of the base deck in play, random deals or drafts) at 2-4
players, checked at every step: a position not over always offers a legal action, no goods go
negative, the cards are conserved (hands, played cards and the box hold each card of the game
once; after the draft the hands and played cards hold 14 per seat, a traveling minor passed
staying in some hand), and at intervals the saved form reads back to the same position and
``determinize`` keeps the observation of the seat to act. The players are random but lean
towards the cards (playing them, using them), so the effects are reached. The default run
takes a few seconds; ``--run-slow`` plays hundreds of games, every step saved and observed."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

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


def _check(state: CardState, n: int, deck: list[str]) -> None:
    assert all(min(g) >= 0 for g in state._goods)
    held = [c for p in range(n) for h in state.hands(p) for c in h]
    played = [c for p in range(n) for h in state.played(p) for c in h]
    box = [c for b in state.box() for c in b]
    assert Counter(held + played + box) == Counter(deck)
    if state.phase != "draft":
        assert len(held) + len(played) == 14 * n
    minors = set(pool("minor", n))
    assert all(c in minors and c not in box for c, _ in state.to_dict()["cards"]["passed"])


def play(games: int, save_every: int, seed0: int = 0) -> Counter[str]:
    """``games`` random card games, cycling player counts 2-4 and deal/draft; the counts of
    the action types taken."""
    seen: Counter[str] = Counter()
    for g in range(games):
        n, draft = 2 + g % 3, ("deal", "app")[g // 3 % 2]
        seed = seed0 + g
        state = AGRICOLA.new_state(n, seed=seed, options={"cards": "base", "draft": draft})
        assert isinstance(state, CardState)
        deck = [*pool("occupation", n), *pool("minor", n)]
        rng = random.Random(seed)
        steps = 0
        while not state.is_terminal:
            assert state.num_legal() >= 1, state
            if steps % save_every == 0:
                d = state.to_dict()
                back = AGRICOLA.state_from_dict(json.loads(json.dumps(d)))
                assert back.to_dict() == d and back.legal_actions() == state.legal_actions()
                seat = state.current_player
                assert seat is not None
                obs = state.observation(seat)
                assert AGRICOLA.determinize(obs, rng).observation(seat) == obs
            i = _choose(state, rng)
            seen[str(state.legal_actions()[i].get("type"))] += 1
            state.apply_index(i)
            steps += 1
            _check(state, n, deck)
        assert steps <= AGRICOLA.max_decisions(n)
        r = state.result()
        assert [sum(b.values()) for b in r.breakdown] == list(r.scores)
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
