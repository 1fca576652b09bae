"""Seats at a table: whose turn each bot takes, and the pairings a table's games make.

Pure functions of their arguments: randomness comes from a ``random.Random`` the caller seeds
through ``derive_seed``, so the schedules built on them stay deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from itertools import permutations

from arena.results import Pairing, rotations
from arena.seeds import derive_seed


class SeatBalancer:
    """Assigns seats at a table so that each bot's seat history stays as even as possible.

    ``counts[bot][seat]`` is how often the bot has sat in the seat. A table's seating is the
    permutation that puts its bots in the seats they have sat in least (smallest total of those
    counts); among equals, the one giving seat 0 to whoever has sat there least, then seat 1,
    and so on; remaining ties go to ``rng`` order.
    """

    def __init__(self, counts: dict[str, list[int]] | None = None) -> None:
        self.counts: dict[str, list[int]] = {
            bot: list(c) for bot, c in (counts or {}).items()
        }

    def _count(self, bot: str, seat: int) -> int:
        c = self.counts.get(bot)
        return c[seat] if c is not None and seat < len(c) else 0

    def seat(self, table: Sequence[str], rng: random.Random) -> tuple[str, ...]:
        """The seating for ``table`` (seat 0 first); records it in the history."""
        perms = list(permutations(table))
        rng.shuffle(perms)
        best = min(
            perms,
            key=lambda p: (
                sum(self._count(b, s) for s, b in enumerate(p)),
                tuple(self._count(b, s) for s, b in enumerate(p)),
            ),
        )
        self.record(best)
        return best

    def record(self, seating: Sequence[str]) -> None:
        for s, b in enumerate(seating):
            c = self.counts.setdefault(b, [])
            if len(c) <= s:
                c.extend([0] * (s + 1 - len(c)))
            c[s] += 1


# --- tables to pairings ----------------------------------------------------------------------


def issue(
    tables: Iterable[tuple[int, int, tuple[str, ...]]],
    *,
    rotate: bool,
    seed: int,
    kind: str,
    first_index: int,
    balancer: SeatBalancer | None = None,
) -> list[Pairing]:
    """Pairings for ``(round, table number, bots)`` triples, in order.

    With ``rotate``, each table is played once per cyclic rotation of the given seat order, all
    rotations sharing the table's seed; without it, one game with seats from ``balancer``.
    Game ids are ``r{round:03d}-t{table:04d}-s{rotation}``; indices count up from
    ``first_index``. ``balancer`` (default: a fresh one) is updated with the seatings it gives.
    """
    out: list[Pairing] = []
    seats = balancer if balancer is not None else SeatBalancer()
    for rnd, number, table in tables:
        game_seed = derive_seed(seed, kind, rnd, number)
        if rotate:
            seatings = rotations(table)
        else:
            rng = random.Random(derive_seed(seed, kind, "seats", rnd, number))
            seatings = [seats.seat(table, rng)]
        for rot, bots in enumerate(seatings):
            out.append(
                Pairing(
                    game_id=f"r{rnd:03d}-t{number:04d}-s{rot}",
                    index=first_index + len(out),
                    round=rnd,
                    table=number,
                    bots=bots,
                    seed=game_seed,
                )
            )
    return out
