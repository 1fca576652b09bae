"""A digest of random card-mode games: every legal-action list, the seat to act and the choice
made, at 2-4 players with both drafts, from fixed seeds. Work on the card engine's speed must
leave it exactly as it is; a change of the rules changes it on purpose (then write down the
new digest with the ruling that changed)."""

from __future__ import annotations

import hashlib
import json
import random

from arena.engine.agricola.game import AGRICOLA

#: (games, digest) of :func:`transcript`.
GAMES = 12
DIGEST = "d0708e96fae0ac8b"


def transcript(games: int) -> str:
    """The digest of ``games`` random games: game g has 2 + g % 3 seats, the app's draft on
    odd g, seed 500 + g, and its choices from random.Random(g)."""
    h = hashlib.sha256()
    for g in range(games):
        options = AGRICOLA.validate_options({"cards": "base", "draft": ("deal", "app")[g % 2]})
        state = AGRICOLA.new_state(2 + g % 3, seed=500 + g, options=options)
        rng = random.Random(g)
        while not state.is_terminal:
            actions = state.legal_actions()
            i = rng.randrange(len(actions))
            h.update(json.dumps([state.current_player, actions, i], sort_keys=True).encode())
            state.apply_index(i)
        h.update(json.dumps(state.to_dict(), sort_keys=True).encode())
    return h.hexdigest()[:16]


def test_random_card_games_play_as_they_always_did() -> None:
    assert transcript(GAMES) == DIGEST
