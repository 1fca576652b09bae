"""Stone Age payment tables, and the payments of a table that given holdings cover.

A payment is a (wood, clay, stone, gold) tuple. Table n (0..10) holds every way to pay n
resources (a card costing n, a feeding deficit of n); table ``BUILDING_TABLE0 + b`` every way to
pay for building b. :func:`payment_keys` picks the payments of a table that holdings cover
without a loop in Python: a table of the one-to-seven buildings has 329 payments, and filtering
them one by one was most of a decision's cost the first time a holding was met.
"""

from __future__ import annotations

from itertools import compress

from arena.engine.stoneage.components import BUILDING_PAYMENTS, COMPOSITIONS
from arena.engine.stoneage.moves import key_block
from arena.engine.stoneage.phases import Key, Pay

PAYMENT_TABLES: tuple[tuple[Pay, ...], ...] = COMPOSITIONS + BUILDING_PAYMENTS
BUILDING_TABLE0 = len(COMPOSITIONS)
#: The most of one resource a payment of each table uses: holding more changes nothing.
TABLE_CAPS = tuple(max((max(x) for x in table), default=0) for table in PAYMENT_TABLES)

#: table -> for each resource r, for each holding h of it (0..the table's cap), the payments
#: of the table that use at most h of r: one byte per payment, 1 or 0, read as one big number,
#: so that a bitwise "and" of four of them is the bytes of the payments that four holdings
#: cover. Made the first time a table is asked for.
_COVERED: dict[int, tuple[tuple[int, ...], ...]] = {}
#: (opcode, table) -> the keys of ``(opcode, payment)`` for the table's payments, in order.
_KEYS: dict[tuple[int, int], tuple[Key, ...]] = {}
#: (opcode, a table's payments) -> their keys, made together (``moves.key_block``): the tables
#: of equal payments (buildings of the same cost) share them. A payment in two tables that
#: differ (a card's and a building's) has a key in each.
_BLOCKS: dict[tuple[int, tuple[Pay, ...]], tuple[Key, ...]] = {}


def _covered(table: int) -> tuple[tuple[int, ...], ...]:
    payments = PAYMENT_TABLES[table]
    got = _COVERED[table] = tuple(
        tuple(int.from_bytes(bytes([x[r] <= h for x in payments]), "big")
              for h in range(TABLE_CAPS[table] + 1))
        for r in range(4)
    )
    return got


def payment_keys(op: int, table: int, w: int, c: int, s: int, g: int) -> list[Key]:
    """The keys of ``(op, payment)`` for the payments of ``PAYMENT_TABLES[table]`` that holdings
    ``(w, c, s, g)``, each at most the table's cap (``TABLE_CAPS``), cover, in the table's
    order."""
    covered = _COVERED.get(table) or _covered(table)
    keys = _KEYS.get((op, table))
    if keys is None:
        payments = PAYMENT_TABLES[table]
        keys = _BLOCKS.get((op, payments))
        if keys is None:
            keys = _BLOCKS[op, payments] = key_block(op, payments)
        _KEYS[op, table] = keys
    both = covered[0][w] & covered[1][c] & covered[2][s] & covered[3][g]
    return list(compress(keys, both.to_bytes(len(keys), "big")))
