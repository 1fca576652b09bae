"""Stone Age's seeded dice take a shorter path than the generic chance source (one digest, its
bytes mapped and the rejected ones dropped in one call): they must be exactly its dice."""

from __future__ import annotations

from hashlib import blake2b

import pytest

from arena.engine.chance import ScriptedChance, SeededChance
from arena.engine.stoneage.dice import DICE_EVENT, roll


@pytest.mark.parametrize("seed", [0, 1, 13, 999_983, -7, 2**40, -(2**63)])
def test_seeded_dice_are_exactly_the_chance_sources(seed: int) -> None:
    chance = SeededChance(seed)
    for round_no in (1, 9, 100):
        for seat in range(5):
            for k in range(4):
                for n in (1, 2, 3, 7, 10):
                    assert roll(chance, round_no, seat, k, n) == chance.integers(
                        (DICE_EVENT, round_no, seat, k), n, 1, 6)


def test_more_dice_than_one_digest_holds_come_from_the_chance_source() -> None:
    chance = SeededChance(5)
    dice = roll(chance, 2, 1, 0, 40)  # 32 bytes give at most 32 faces: a second block is read
    assert dice == chance.integers((DICE_EVENT, 2, 1, 0), 40, 1, 6)
    assert len(dice) == 40 and set(dice) <= set(range(1, 7))


def test_rejected_bytes_are_skipped_as_the_chance_source_skips_them() -> None:
    # Find an event whose digest has a byte of 252..255 among the first ten, so the shorter
    # path must drop it to agree.
    chance = SeededChance(3)
    for k in range(200):
        digest = blake2b(b"3/dice/1/0/%d/0" % k, digest_size=32).digest()
        if any(b >= 252 for b in digest[:10]):
            break
    else:  # pragma: no cover - 200 events without one would be astonishing
        pytest.fail("no digest with a rejected byte among the first ten")
    assert roll(chance, 1, 0, k, 10) == chance.integers((DICE_EVENT, 1, 0, k), 10, 1, 6)


def test_other_chance_sources_are_asked_for_their_dice() -> None:
    chance = ScriptedChance([6, 5, 4])
    assert roll(chance, 1, 0, 0, 3) == (6, 5, 4)
