"""The Stone Age engine's shortcuts for its decisions' choices must give exactly what the plain
definitions give: the payments a holding covers (picked with byte masks), the tool choices
(worked out once per remainder of the roll), the resolve keys of a set of places (from a bit
mask); and a loaded state, which rebuilds the fields that hold what the others do in another
form, plays on as the one saved."""

from __future__ import annotations

import itertools
import random

from arena.engine.stoneage import STONE_AGE
from arena.engine.stoneage.moves import KEY_FORMS, RESOLVE_KEYS, TOOLS, resolve_keys
from arena.engine.stoneage.payments import PAYMENT_TABLES, TABLE_CAPS, payment_keys
from arena.engine.stoneage.resolution import tool_options


def test_payment_keys_are_the_covered_payments_in_table_order() -> None:
    rng = random.Random(7)
    for table, payments in enumerate(PAYMENT_TABLES):
        cap = TABLE_CAPS[table]
        holdings = list(itertools.product(range(cap + 1), repeat=4))
        if len(holdings) > 300:
            holdings = [(cap,) * 4, (0,) * 4, *rng.sample(holdings, 300)]
        for h in holdings:
            for op in (3, 6):
                assert [KEY_FORMS[k] for k in payment_keys(op, table, *h)] == [
                    (op, x) for x in payments if all(x[i] <= h[i] for i in range(4))
                ], (table, h)


def _tool_options_by_definition(total: int, divisor: int, tools: tuple[int, ...],
                                one_use: tuple[int, ...]) -> list[tuple[object, ...]]:
    """Every distinct minimal choice of tools for the whole roll ``total`` (ruling T1)."""
    def subs(values: tuple[int, ...]) -> list[tuple[int, ...]]:
        return list(dict.fromkeys(
            c for r in range(len(values) + 1) for c in itertools.combinations(values, r)))
    options: list[tuple[object, ...]] = [(TOOLS, (), ())]
    for a in subs(tools):
        for b in subs(one_use):
            if a or b:
                gained = (total + sum(a) + sum(b)) // divisor
                if all((total + sum(a) + sum(b) - v) // divisor < gained for v in a + b):
                    options.append((TOOLS, a, b))
    return options


def test_tool_options_hold_for_every_roll_not_only_its_remainder() -> None:
    for tools in [(), (1,), (2, 1, 1), (3, 3, 2), (4, 4, 4)]:
        for one_use in [(), (2,), (4, 3), (4, 3, 2)]:
            for divisor in (2, 3, 4, 5, 6):
                for total in range(0, 61):
                    got = tool_options(total, divisor, tools, one_use)
                    assert [KEY_FORMS[k] for k in got] == \
                        _tool_options_by_definition(total, divisor, tools, one_use)


def test_resolve_keys_of_every_mask() -> None:
    for mask in range(1 << len(RESOLVE_KEYS)):
        assert resolve_keys(mask) == [k for k in RESOLVE_KEYS if mask >> KEY_FORMS[k][1] & 1]


def test_a_loaded_state_plays_on_exactly_as_the_one_saved() -> None:
    """A loaded state rebuilds the fields the save format leaves out (the occupied places'
    masks, the open card slots and piles): saved at every kind of decision, it plays the rest
    of the game as the original does."""
    for players in (2, 3, 4):
        rng = random.Random(players)
        state = STONE_AGE.new_state(players, seed=players)
        step = 0
        while not state.is_terminal:
            if step % 7 == 0:
                twin = STONE_AGE.state_from_dict(state.to_dict())
                twin_rng = random.Random(step)
                copy_rng = random.Random(step)
                copy = state.clone()
                while not copy.is_terminal:
                    assert twin.legal_keys() == copy.legal_keys()
                    i = copy_rng.randrange(copy.num_legal())
                    assert i == twin_rng.randrange(twin.num_legal())
                    copy.apply_index(i)
                    twin.apply_index(i)
                assert twin.to_dict() == copy.to_dict()
            state.apply_index(rng.randrange(state.num_legal()))
            step += 1


def test_action_of_gives_a_new_dict_equal_to_the_keys_own_for_every_decision() -> None:
    """action_of copies the dict kept for a key met before (the referee encodes each key's
    action once a game, and games come one after another): for every key of seeded games it
    equals the dict built from the key, in the same field order (the wire bytes follow it),
    and changing one it gave never reaches the next."""
    from arena.engine.stoneage.moves import key_to_action

    for players in (2, 4):
        rng = random.Random(players)
        state = STONE_AGE.new_state(players, seed=players)
        while not state.is_terminal:
            for key in state.legal_keys():
                built = key_to_action(key)
                given = state.action_of(key)
                assert given == built and list(given) == list(built)
                given["type"] = "changed"
                assert state.action_of(key) == built
            state.apply_index(rng.randrange(state.num_legal()))
