"""Stone Age's dice, drawn from the game's event-keyed chance source.

The k-th roll of seat ``s`` in round ``r`` is the event ``("dice", r, s, k)``: a seat's dice
depend only on the seed, the round, the seat and how often that seat rolled this round, so
replaying a seed with the seats rotated gives every seat the same dice (duplicate play).
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Any

from arena.engine.chance import Chance, SeededChance

#: The first part of every dice event's key.
DICE_EVENT = "dice"

# Seeded dice, derived as SeededChance.integers derives them, in fewer steps: the first digest
# of "{seed}/dice/{round}/{seat}/{k}/0" (32 bytes), whose bytes below 252 give the faces
# (byte % 6 + 1) in order and whose others are rejected. ``bytes.translate`` maps and drops
# them in one call. The dice come from the generic path when that block holds too few faces
# (more than 22 bytes rejected) or the chance is another kind. A 4-player game rolls about 240
# times: the generic path (key text, its cache, a loop over the bytes) cost 5-8% of a random
# game's time more than this one. tests/test_stoneage_dice.py holds the two equal.
#
# The hash of "{seed}/dice/" is taken once per seed and copied for each roll (a copy of a hash
# that has read the prefix, then the rest, gives the digest of the whole text): the last seed's
# is kept, and a game rolls with one seed throughout.
_DIGEST_SIZE = 32
_FACE_OF_BYTE = bytes(b % 6 + 1 if b < 252 else 0 for b in range(256))
_REJECTED_BYTES = bytes(range(252, 256))
_last_seed: tuple[int, Any] = (0, blake2b(b"0/dice/", digest_size=_DIGEST_SIZE))


def roll(chance: Chance, round_no: int, seat: int, k: int, n: int) -> tuple[int, ...]:
    """``n`` six-sided dice (1..6) for the k-th roll of ``seat`` in ``round_no``."""
    global _last_seed
    if type(chance) is SeededChance:
        seed, prefix = _last_seed
        if seed != chance.seed:
            seed = chance.seed
            prefix = blake2b(b"%d/dice/" % seed, digest_size=_DIGEST_SIZE)
            _last_seed = (seed, prefix)
        h = prefix.copy()
        h.update(b"%d/%d/%d/0" % (round_no, seat, k))
        faces = h.digest().translate(_FACE_OF_BYTE, _REJECTED_BYTES)
        if len(faces) >= n:
            return tuple(faces[:n])
    return chance.integers((DICE_EVENT, round_no, seat, k), n, 1, 6)


#: The shuffle events of a new game.
DECK_SHUFFLE: tuple[str] = ("deck",)
BUILDING_SHUFFLE: tuple[str] = ("buildings",)
