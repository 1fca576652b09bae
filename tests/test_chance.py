"""Chance sources: seeded, keyed by event, scripted for tests, never global."""

from __future__ import annotations

import random
from collections import Counter
from hashlib import blake2b

import pytest

from arena.engine import ScriptedChance, SeededChance, chance_from_dict
from arena.engine.chance import _draw_width, key_text
from arena.engine.stoneage import STONE_AGE
from arena.engine.stoneage.dice import roll
from arena.runner.game.referee import play_random_game


def test_the_same_seed_and_event_always_give_the_same_dice() -> None:
    a, b = SeededChance(42), SeededChance(42)
    assert roll(a, 3, 1, 2, 7) == roll(b, 3, 1, 2, 7)
    assert len(roll(a, 1, 0, 0, 10)) == 10


def test_dice_depend_on_the_event_not_on_the_order_of_asking() -> None:
    a, b = SeededChance(7), SeededChance(7)
    first = [roll(a, 1, s, k, 5) for s in range(4) for k in range(3)]
    second = [roll(b, 1, s, k, 5) for s in reversed(range(4)) for k in reversed(range(3))]
    assert first == list(reversed(second))


def test_different_events_and_seeds_give_different_dice() -> None:
    c = SeededChance(1)
    rolls = {roll(c, r, s, k, 6) for r in range(1, 5) for s in range(4) for k in range(4)}
    assert len(rolls) == 64  # 64 events of six dice: a collision would be a keying bug
    assert roll(SeededChance(1), 1, 0, 0, 8) != roll(SeededChance(2), 1, 0, 0, 8)


def test_seeded_dice_are_uniform_over_one_to_six() -> None:
    c = SeededChance(2024)
    counts = Counter(d for k in range(3000) for d in roll(c, 1, 0, k, 4))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    expected = 12000 / 6
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, 7))
    assert chi2 < 20.5  # p = 0.001 for 5 degrees of freedom; the seed is fixed, so no flake


def test_permutations_are_permutations_and_keyed_by_name() -> None:
    c = SeededChance(5)
    deck = c.permutation(("deck",), 36)
    assert sorted(deck) == list(range(36))
    assert deck == SeededChance(5).permutation(("deck",), 36)
    assert deck != c.permutation(("buildings",), 36)


def test_seed_must_be_an_integer() -> None:
    with pytest.raises(TypeError):
        SeededChance("1")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        SeededChance(True)


def test_scripted_dice_come_in_order_and_repeat_for_the_same_event() -> None:
    c = ScriptedChance([1, 2, 3, 4, 5, 6])
    assert roll(c, 1, 0, 0, 2) == (1, 2)
    assert roll(c, 1, 1, 0, 3) == (3, 4, 5)
    assert roll(c, 1, 0, 0, 2) == (1, 2)  # remembered: a clone asking again sees the same dice
    assert c.remaining == 1
    with pytest.raises(IndexError, match="exhausted"):
        roll(c, 1, 2, 0, 2)


def test_scripted_chance_refuses_impossible_dice_and_orders() -> None:
    with pytest.raises(ValueError):
        ScriptedChance([0, 7])
    with pytest.raises(ValueError, match="permutation"):
        ScriptedChance(orders={"deck": [0, 0, 1]}).permutation(("deck",), 3)
    assert ScriptedChance().permutation(("deck",), 4) == [0, 1, 2, 3]


def test_chance_sources_round_trip_through_plain_data() -> None:
    s = ScriptedChance([3, 3, 6], {"deck": [1, 0]})
    roll(s, 2, 1, 0, 1)
    back = chance_from_dict(s.to_dict())
    assert back.to_dict() == s.to_dict()
    assert roll(back, 2, 1, 0, 1) == (3,)
    assert roll(chance_from_dict(SeededChance(9).to_dict()), 1, 0, 0, 3) == roll(SeededChance(
        9
    ), 1, 0, 0, 3)
    with pytest.raises(ValueError, match="unknown chance"):
        chance_from_dict({"kind": "dice-tower"})


def test_playing_games_never_touches_the_global_random_generator() -> None:
    random.seed(1234)
    before = random.getstate()
    for seed in range(5):
        play_random_game(STONE_AGE, 4, seed)
    assert random.getstate() == before


def test_rotated_seats_see_the_same_dice_for_the_same_seed() -> None:
    # Duplicate play: the dice of seat s depend only on (seed, round, s, k).
    a = STONE_AGE.new_state(3, seed=77)
    b = STONE_AGE.new_state(3, seed=77)
    assert roll(a._chance, 4, 2, 1, 5) == roll(b._chance, 4, 2, 1, 5)


def _old_dice(seed: int, round_no: int, seat: int, k: int, n: int) -> tuple[int, ...]:
    """Stone Age's dice as the engine derived them before chance was keyed generically."""
    key = f"{seed}/dice/{round_no}/{seat}/{k}".encode()
    out: list[int] = []
    block = 0
    while len(out) < n:
        digest = blake2b(key + b"/" + str(block).encode(), digest_size=32).digest()
        for b in digest:
            if b < 252:
                out.append(b % 6 + 1)
                if len(out) == n:
                    break
        block += 1
    return tuple(out)


def _old_permutation(seed: int, key: str, n: int) -> list[int]:
    digest = blake2b(f"{seed}/shuffle/{key}".encode(), digest_size=32).digest()
    order = list(range(n))
    random.Random(int.from_bytes(digest, "big")).shuffle(order)
    return order


@pytest.mark.parametrize("seed", [0, 1, 77, 2**40 + 3, -5])
def test_seeded_dice_and_shuffles_are_exactly_those_of_the_old_formula(seed: int) -> None:
    # Committed games replay from their seeds: the bytes behind every die and shuffle are fixed.
    c = SeededChance(seed)
    for round_no in (1, 2, 17):
        for seat in range(4):
            for k in range(3):
                # 40 dice need more than one digest block, so the block counter is covered too.
                for n in (1, 2, 7, 40):
                    assert roll(c, round_no, seat, k, n) == _old_dice(seed, round_no, seat, k, n)
    for name, size in (("deck", 36), ("buildings", 28)):
        assert c.permutation((name,), size) == _old_permutation(seed, name, size)


@pytest.mark.parametrize("faces", [1, 2, 3, 5, 6, 7, 20, 100, 255, 256, 257, 1000, 70000])
def test_integers_cover_any_range_uniformly_by_rejection(faces: int) -> None:
    c = SeededChance(3)
    draws = c.integers(("test", faces), 4000, 10, 9 + faces)
    assert all(10 <= d <= 9 + faces for d in draws)
    if faces <= 7:
        counts = Counter(draws)
        assert set(counts) == set(range(10, 10 + faces))
        assert max(counts.values()) - min(counts.values()) < 4000 / faces / 4


def test_rejection_limit_is_the_largest_multiple_of_the_range_that_fits() -> None:
    assert _draw_width(6) == (1, 252)
    assert _draw_width(256) == (1, 256)
    assert _draw_width(7) == (1, 252)
    assert _draw_width(257) == (2, 65536 - 65536 % 257)
    with pytest.raises(ValueError):
        _draw_width(0)


def test_event_keys_must_be_unambiguous() -> None:
    c = SeededChance(1)
    assert key_text(("dice", 3, 1, 0)) == "dice/3/1/0"
    for bad in ((), ("a/b",), (1.5,), (True,)):
        with pytest.raises(ValueError):
            c.integers(bad, 1, 1, 6)  # type: ignore[arg-type]


def test_scripted_values_outside_the_asked_range_are_refused() -> None:
    c = ScriptedChance([5, 2])
    with pytest.raises(ValueError, match=r"not in 1\.\.4"):
        c.integers(("d4",), 1, 1, 4)
    assert ScriptedChance([5], faces=8).integers(("d8",), 1, 1, 8) == (5,)


def test_the_state_rolls_exactly_the_dice_of_the_stone_age_dice_events() -> None:
    # The state spells the dice event out on its hot path; it must stay dice.roll's event.
    state = STONE_AGE.new_state(2, seed=13)
    state._round = 5
    state._rolls = [0, 2]
    assert state._roll(1, 4) == roll(SeededChance(13), 5, 1, 2, 4)
    assert state._rolls == [0, 3]
