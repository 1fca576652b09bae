"""Seeded random Stone Age games, pinned by a digest of everything a player or a referee sees:
a change to the engine that is meant to be only faster must leave every game exactly as it was.
If the rules change on purpose (a new rules version), the digest is replaced with the new one."""

from __future__ import annotations

import hashlib
import json
import random

from arena.engine.stoneage import STONE_AGE
from arena.engine.stoneage.moves import KEY_FORMS

#: The digest of the games below, as the engine played them when it was pinned.
TRACE_DIGEST = "b67b61e9e5863d677aeabcf95e272640848522d5df2450fb07ed149584725c89"


def trace_digest(games_per_count: int = 3) -> str:
    """A digest of seeded random games at 2, 3 and 4 players: at every decision the mover, the
    legal actions as dicts, the legal keys (as their forms, the tuples they stand for: the ints
    a process gives out depend on the order it met them in), the index chosen and the mover's
    observation; every 50 moves the saved state (and a clone playing the same move); at the
    end the result."""
    h = hashlib.sha256()
    for n in (2, 3, 4):
        for seed in range(games_per_count):
            rng = random.Random(1000 * n + seed)
            state = STONE_AGE.new_state(n, seed=seed)
            step = 0
            while not state.is_terminal:
                actions = state.legal_actions()
                keys = list(state.legal_keys())
                assert len(actions) == len(keys) == state.num_legal()
                assert actions == [state.action_of(k) for k in keys]
                i = rng.randrange(len(actions))
                seat = state.current_player
                assert seat is not None
                forms = [KEY_FORMS[k] for k in keys]
                h.update(json.dumps([seat, actions, repr(forms), i, state.observation(seat)],
                                    sort_keys=True).encode())
                if step % 50 == 0:
                    h.update(json.dumps(state.to_dict(), sort_keys=True).encode())
                    twin = state.clone()
                    twin.apply_index(i)
                state.apply_index(i)
                if step % 50 == 0:
                    assert twin.to_dict() == state.to_dict()
                step += 1
            h.update(json.dumps([state.result().to_dict(), state.to_dict()],
                                sort_keys=True).encode())
    return h.hexdigest()


def test_seeded_games_are_exactly_the_pinned_ones() -> None:
    assert trace_digest() == TRACE_DIGEST
