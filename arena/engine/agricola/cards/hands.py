"""The hands of card mode: dealing them by chance key and sampling the unseen ones for a seat
(rulings C1, C2 and C8 of ``RULES.md``).

Each kind is shuffled by its own chance event, ``("hand", "occupation", n)`` for the
occupations usable with n players and ``("hand", "minor")`` for the minor improvements (the
same at every player count); seat p takes cards 7p..7p+6 of the shuffle. No key names a seat
or who sits there, so a seat rotation of a seed deals each seat the same hands (duplicate
play), as the stage cards are dealt (ruling B1). The cards dealt to nobody stay in the box.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from arena.engine.agricola.cards.deck import HAND_SIZE, minors_for, occupations_for
from arena.engine.chance import Chance

OCCUPATION_EVENT: Final = "occupation"
MINOR_EVENT: Final = "minor"


def pool(kind: str, players: int) -> tuple[str, ...]:
    """Every card id of ``kind`` ("occupation" or "minor") a ``players``-player game deals
    from, in deck order."""
    cards = occupations_for(players) if kind == OCCUPATION_EVENT else minors_for(players)
    return tuple(c.id for c in cards)


def event(kind: str, players: int) -> tuple[str | int, ...]:
    """The chance event that shuffles ``kind`` for ``players`` players."""
    if kind == OCCUPATION_EVENT:
        return ("hand", OCCUPATION_EVENT, players)
    return ("hand", MINOR_EVENT)


def deal(kind: str, players: int, chance: Chance) -> list[tuple[str, ...]]:
    """Each seat's hand of ``kind``, sorted, dealt from the shuffle of :func:`event`."""
    cards = pool(kind, players)
    perm = chance.permutation(event(kind, players), len(cards))
    return [tuple(sorted(cards[i] for i in perm[HAND_SIZE * p:HAND_SIZE * (p + 1)]))
            for p in range(players)]


def sample_hands(kind: str, players: int, seat: int, own: tuple[str, ...],
                 sizes: Sequence[int], known: Sequence[tuple[str, ...]],
                 visible: set[str], rng: random.Random) -> list[tuple[str, ...]]:
    """Hands of ``kind`` for every seat consistent with what ``seat`` sees (ruling C8):
    ``seat`` keeps ``own``; every other seat keeps the cards ``known`` to be in its hand
    (traveling cards passed to it) and gets the rest of its ``sizes`` from the cards nobody
    has seen (the pool less ``visible``: every card played, passed, known or in ``own``),
    drawn uniformly with ``rng``."""
    unseen = [c for c in pool(kind, players) if c not in visible]
    rng.shuffle(unseen)
    out = []
    for p in range(players):
        if p == seat:
            out.append(own)
            continue
        need = sizes[p] - len(known[p])
        if need < 0 or need > len(unseen):
            raise ValueError(f"seat {p}'s hand of {sizes[p]} cannot be dealt")
        out.append(tuple(sorted((*known[p], *unseen[:need]))))
        del unseen[:need]
    return out


__all__ = ["MINOR_EVENT", "OCCUPATION_EVENT", "deal", "event", "pool", "sample_hands"]
