"""Stone Age's dice, drawn from the game's event-keyed chance source.

The k-th roll of seat ``s`` in round ``r`` is the event ``("dice", r, s, k)``: a seat's dice
depend only on the seed, the round, the seat and how often that seat rolled this round, so
replaying a seed with the seats rotated gives every seat the same dice (duplicate play).
"""

from __future__ import annotations

from arena.engine.chance import Chance

#: The first part of every dice event's key.
DICE_EVENT = "dice"


def roll(chance: Chance, round_no: int, seat: int, k: int, n: int) -> tuple[int, ...]:
    """``n`` six-sided dice (1..6) for the k-th roll of ``seat`` in ``round_no``."""
    return chance.integers((DICE_EVENT, round_no, seat, k), n, 1, 6)


#: The shuffle events of a new game.
DECK_SHUFFLE: tuple[str] = ("deck",)
BUILDING_SHUFFLE: tuple[str] = ("buildings",)
