"""Balanced subsets of tables: which tables to play when a schedule is capped by ``max_games``.

A greedy construction, then a local search that evens out games per bot and meetings per pair.
Deterministic given the ``random.Random`` the caller seeds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def balanced_subset(
    universe: Sequence[tuple[str, ...]],
    count: int,
    classes: dict[str, int],
    rng: random.Random,
) -> list[tuple[str, ...]]:
    """``count`` distinct tables of ``universe``, chosen so that bots of one class play equally
    often (counts differ by at most one) and pairs meet as evenly as the search finds.

    ``classes`` maps each bot to its class; the universe must be closed under replacing a bot
    of a table by another bot of the same class that is not at the table (every combination
    for a round-robin; candidate and field bots kept apart for a gauntlet), and in it every bot
    of a class sits at equally many tables, and every pair of given classes meets equally often.
    Deterministic given ``rng``'s state. The result keeps the universe's spelling of each table.

    Method: a greedy construction (least-played bots first, then fewest earlier meetings),
    then a local search that replaces one bot of a table by another of its class (or swaps two
    bots between two tables) while that lowers (sum of squared games per bot, sum of squared
    meetings per pair), lexicographically. Such a replacement always exists while two bots of a
    class differ by two or more, so the search ends with per-class counts within one.
    """
    total = len(universe)
    if not 0 <= count <= total:
        raise ValueError(f"cannot choose {count} of {total} tables")
    if count * 2 > total:
        # The complement of a balanced subset is balanced (the full universe is uniform), and
        # the smaller side is quicker to build.
        dropped = set(balanced_subset(universe, total - count, classes, rng))
        return [t for t in universe if t not in dropped]
    return _Search(universe, classes, rng).run(count)


class _Search:
    def __init__(
        self, universe: Sequence[tuple[str, ...]], classes: dict[str, int], rng: random.Random
    ) -> None:
        names = sorted({b for t in universe for b in t}, key=lambda b: (classes[b], b))
        order = list(range(len(names)))
        rng.shuffle(order)
        # Bots are numbered in a seeded order, so index order is the tie-break everywhere.
        self.names = [names[i] for i in order]
        self.num = {b: i for i, b in enumerate(self.names)}
        n = len(self.names)
        self.spelling = {frozenset(self.num[b] for b in t): t for t in universe}
        self.universe = list(self.spelling)
        rng.shuffle(self.universe)
        self.cls = [classes[b] for b in self.names]
        self.same_class = [[j for j in range(n) if self.cls[j] == self.cls[i]] for i in range(n)]
        self.cnt = [0] * n
        self.meet = [[0] * n for _ in range(n)]
        self.tables: list[frozenset[int]] = []
        self.chosen: set[frozenset[int]] = set()
        self.tables_of: list[set[int]] = [set() for _ in range(n)]
        self.cursor = 0

    def run(self, count: int) -> list[tuple[str, ...]]:
        for _ in range(count):
            self._add(self._greedy_table())
        while self._improve():
            pass
        return [self.spelling[t] for t in self.tables]

    # bookkeeping

    def _add(self, t: frozenset[int]) -> None:
        i = len(self.tables)
        for a in t:
            self.cnt[a] += 1
            self.tables_of[a].add(i)
            for b in t:
                if a != b:
                    self.meet[a][b] += 1
        self.tables.append(t)
        self.chosen.add(t)

    def _replace(self, i: int, a: int, b: int) -> None:
        t = self.tables[i]
        new = (t - {a}) | {b}
        for x in t - {a}:
            self.meet[a][x] -= 1
            self.meet[x][a] -= 1
            self.meet[b][x] += 1
            self.meet[x][b] += 1
        self.cnt[a] -= 1
        self.cnt[b] += 1
        self.tables_of[a].discard(i)
        self.tables_of[b].add(i)
        self.chosen.discard(t)
        self.chosen.add(new)
        self.tables[i] = new

    # construction

    def _greedy_table(self) -> frozenset[int]:
        # Fill the seat classes of a universe table's shape, least-played bots first, then
        # fewest meetings with the bots already placed.
        shape = sorted(self.cls[b] for b in self.universe[0])
        table: list[int] = []
        for c in shape[:-1]:
            table.append(min(self._pool(c, table), key=lambda b: self._greedy_key(b, table)))
        # The last seat: the best bot whose table is still free.
        for b in sorted(self._pool(shape[-1], table), key=lambda b: self._greedy_key(b, table)):
            t = frozenset([*table, b])
            if t in self.spelling and t not in self.chosen:
                return t
        # Rare (late in a dense subset): any free table; the local search evens it out.
        while self.universe[self.cursor] in self.chosen:
            self.cursor += 1
        return self.universe[self.cursor]

    def _pool(self, c: int, table: list[int]) -> list[int]:
        return [b for b in range(len(self.names)) if self.cls[b] == c and b not in table]

    def _greedy_key(self, b: int, table: list[int]) -> tuple[int, int, int]:
        return (self.cnt[b], sum(self.meet[b][x] for x in table), b)

    # local search

    def _pair_delta(self, t: frozenset[int], a: int, b: int) -> int:
        """Change of the sum of squared meetings when ``a`` leaves ``t`` and ``b`` joins."""
        return sum(2 * (self.meet[b][x] - self.meet[a][x]) + 2 for x in t if x != a)

    def _improve(self) -> bool:
        """One pass over the chosen tables, at most one change per table; True if any."""
        improved = False
        for i in range(len(self.tables)):
            if self._improve_table(i):
                improved = True
        return improved

    def _improve_table(self, i: int) -> bool:
        t = self.tables[i]
        for a in sorted(t):
            for b in self.same_class[a]:
                if b in t:
                    continue
                new = (t - {a}) | {b}
                if new in self.chosen or new not in self.spelling:
                    continue
                dbot = 2 * (self.cnt[b] - self.cnt[a]) + 2
                dpair = self._pair_delta(t, a, b)
                if dbot < 0 or (dbot == 0 and dpair < 0):
                    self._replace(i, a, b)
                    return True
                # A swap is only tried where its first half does not already cost (a cheap
                # filter that keeps large subsets fast).
                if dpair <= 0 and self._swap(i, a, b, dpair):
                    return True
        return False

    def _swap(self, i: int, a: int, b: int, dpair1: int) -> bool:
        """Try ``a`` -> ``b`` at table ``i`` together with ``b`` -> ``a`` at another table, so
        games per bot stay the same; apply it if meetings get more even."""
        t1 = self.tables[i]
        others1 = t1 - {a}
        for j in sorted(self.tables_of[b]):
            t2 = self.tables[j]
            if a in t2:
                continue
            new2 = (t2 - {b}) | {a}
            if new2 in self.chosen or new2 not in self.spelling:
                continue
            # Meetings of t2's other bots with a and b after the first replacement.
            dpair2 = sum(
                2 * ((self.meet[a][x] - (x in others1)) - (self.meet[b][x] + (x in others1))) + 2
                for x in t2
                if x != b
            )
            if dpair1 + dpair2 < 0:
                self._replace(i, a, b)
                self._replace(j, b, a)
                return True
        return False
