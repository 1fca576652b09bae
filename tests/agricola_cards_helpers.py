"""What the card-mode tests share: a new game whose hands hold some cards first, and a random
playout that checks the invariants of card mode at every step (saves, determinize, goods,
every card in exactly one place, the final breakdown)."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Collection

from arena.engine.agricola.cards.hands import pool
from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.game import AGRICOLA, new_card_state
from arena.engine.chance import SeededChance

#: Chooses the index to play in a playout.
Chooser = Callable[[CardState, random.Random], int]
#: One scenario of a card's clause, asserting as it runs.
Row = Callable[[], None]
#: Scenarios by (card, what): a clause's moment (it fires) or "quiet" (it must not).
Rows = dict[tuple[str, str], Row]


def registrar(table: Rows) -> Callable[[str, str], Callable[[Row], Row]]:
    """The decorator a scenario file registers its rows in ``table`` with: ``@row(card,
    what)``; a (card, what) registered twice is a mistake in the file."""
    def row(card: str, what: str) -> Callable[[Row], Row]:
        def wrap(f: Row) -> Row:
            assert (card, what) not in table, (card, what)
            table[(card, what)] = f
            return f
        return wrap
    return row


def load(d: dict) -> CardState:
    """The card-mode state a saved form describes."""
    s = AGRICOLA.state_from_dict(d)
    assert isinstance(s, CardState)
    return s


def stacked(n: int, seed: int, first: Collection[str]) -> CardState:
    """A new dealt game of ``n`` seats whose hands hold the cards of ``first`` (of the game's
    deck) before any other, each group shuffled by ``seed``."""
    d = json.loads(json.dumps(new_card_state(n, SeededChance(seed)).to_dict()))
    rng = random.Random(seed)
    for kind, key in (("occupation", "hand_occupations"), ("minor", "hand_minors")):
        cards = [c for c in pool(kind, n) if c in first]
        rest = [c for c in pool(kind, n) if c not in first]
        rng.shuffle(cards)
        rng.shuffle(rest)
        deck = cards + rest
        for p in range(n):
            d["cards"]["players"][p][key] = sorted(deck[p * 7:(p + 1) * 7])
    return load(d)


def random_index(state: CardState, rng: random.Random) -> int:
    return rng.randrange(state.num_legal())


def play_out(state: CardState, rng: random.Random, save_every: int,
             choose: Chooser = random_index,
             check: Callable[[CardState], None] | None = None) -> int:
    """Play ``state`` to the end with ``choose``, checking at every step that an action is
    offered, no seat holds negative goods and every card of the game is in exactly one hand,
    played pile or the box (and ``check``, if given); every ``save_every`` steps that the saved
    form reads back the same with the same actions and that determinize keeps the observation;
    at the end that the breakdowns add up to the scores. Returns the steps played."""
    n = state.num_players
    deck = Counter([*pool("occupation", n), *pool("minor", n)])
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
        state.apply_index(choose(state, rng))
        steps += 1
        assert all(min(g) >= 0 for g in state._goods)
        held = [c for p in range(n) for h in (*state.hands(p), *state.played(p)) for c in h]
        assert Counter(held + [c for b in state.box() for c in b]) == deck
        if check is not None:
            check(state)
    r = state.result()
    assert [sum(b.values()) for b in r.breakdown] == list(r.scores)
    return steps
