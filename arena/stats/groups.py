"""Which bots the finishing orders can rate against each other at all.

Draw an arrow from bot A to bot B whenever A finished ahead of B, or level with it, in some
game. Bots that reach each other along the arrows form a *group* (a strongly connected
component). Between two groups the arrows all point one way, or there are none: every time
a bot of one group met a bot of the other, directly or through others, the first finished
ahead. Plackett–Luce's likelihood then grows without bound as the gap between the two groups
grows, so the gap has no finite estimate: a rating that crosses groups is held finite only by
the prior, and a bootstrap of it, whose every replicate keeps the same one-way record, gives
an interval as narrow as it is meaningless. Within a group the differences are finite.

A group *above* another is one the arrows lead down from, directly or through other groups;
two groups neither above the other (bots that never met, even through others) cannot be
compared. Groups are listed in an order that respects "above", the strongest first among
those free to come next.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: The most bots whose arrows :func:`groups_of_pairs` puts in a table of n x n to see whether
#: they are all one group.
TABLE_BOTS = 4096


@dataclass(frozen=True)
class Groups:
    """The bots' groups (indices into the bots, strongest first within a group) and which
    group is above which."""

    members: list[list[int]]
    of: list[int]  #: each bot's group
    above_pairs: frozenset[tuple[int, int]]  #: (g, h): group g is above group h

    @property
    def separated(self) -> bool:
        """Whether there is more than one group (some gap has no finite estimate)."""
        return len(self.members) > 1

    def above(self, i: int, j: int) -> bool | None:
        """Whether bot i's group is above bot j's: True, False (below), or None when they are
        in one group or cannot be compared."""
        g, h = self.of[i], self.of[j]
        if (g, h) in self.above_pairs:
            return True
        if (h, g) in self.above_pairs:
            return False
        return None


def _components(n: int, succ: list[list[int]]) -> list[list[int]]:
    """The strongly connected components of a directed graph (Kosaraju's two passes, without
    recursion)."""
    order: list[int] = []
    seen = [False] * n
    for root in range(n):
        if seen[root]:
            continue
        seen[root] = True
        stack = [(root, iter(succ[root]))]
        while stack:
            v, it = stack[-1]
            w = next(it, None)
            if w is None:
                stack.pop()
                order.append(v)
            elif not seen[w]:
                seen[w] = True
                stack.append((w, iter(succ[w])))
    pred: list[list[int]] = [[] for _ in range(n)]
    for v in range(n):
        for w in succ[v]:
            pred[w].append(v)
    comp = [-1] * n
    found: list[list[int]] = []
    for root in reversed(order):
        if comp[root] >= 0:
            continue
        comp[root] = len(found)
        members = [root]
        todo = [root]
        while todo:
            v = todo.pop()
            for w in pred[v]:
                if comp[w] < 0:
                    comp[w] = comp[root]
                    members.append(w)
                    todo.append(w)
        found.append(members)
    return found


def groups(n: int, ahead: Iterable[tuple[int, int]],
           strength: Callable[[int], float]) -> Groups:
    """The groups of bots 0..n-1 given the pairs (a, b) where a finished ahead of or level
    with b at least once; ``strength`` orders groups free to come next, and bots within one
    (strongest first)."""
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in set(ahead):
        if a != b:
            succ[a].append(b)
    for s in succ:
        s.sort()
    comps = [sorted(c, key=lambda i: (-strength(i), i)) for c in _components(n, succ)]
    of = [0] * n
    for g, members in enumerate(comps):
        for i in members:
            of[i] = g
    down: list[set[int]] = [set() for _ in comps]
    for v in range(n):
        for w in succ[v]:
            if of[v] != of[w]:
                down[of[v]].add(of[w])
    order = _ordered(comps, down, strength)
    rank = {g: k for k, g in enumerate(order)}
    reach = _reach([{rank[h] for h in down[g]} for g in order])
    return Groups([comps[g] for g in order], [rank[of[i]] for i in range(n)],
                  frozenset((g, h) for g, hs in enumerate(reach) for h in hs))


def groups_of_pairs(n: int, pairs: npt.NDArray[np.int64],
                    strength: Callable[[int], float]) -> Groups:
    """:func:`groups` of the pairs given as the rows of an array. When every bot reaches
    every other, found by two searches over a table of the arrows (a large field's usual
    case: a thousand bots and a million arrows made into lists took most of a second),
    the one group is given at once: what :func:`groups` gives it."""
    if 0 < n <= TABLE_BOTS:
        arrows = np.zeros((n, n), dtype=np.bool_)
        arrows[pairs[:, 0], pairs[:, 1]] = True
        if _reaches_all(arrows) and _reaches_all(arrows.T):
            return Groups([sorted(range(n), key=lambda i: (-strength(i), i))], [0] * n,
                          frozenset())
    return groups(n, ((a, b) for a, b in pairs.tolist()), strength)


def _reaches_all(arrows: npt.NDArray[np.bool_]) -> bool:
    """Whether every bot is reached from bot 0 along ``arrows`` (``arrows[a, b]``: an arrow
    from a to b): a search that takes each bot's row once."""
    seen = np.zeros(len(arrows), dtype=np.bool_)
    seen[0] = True
    frontier = seen.copy()
    while frontier.any():
        frontier = arrows[frontier].any(axis=0) & ~seen
        seen |= frontier
    return bool(seen.all())


def _ordered(comps: Sequence[list[int]], down: Sequence[set[int]],
             strength: Callable[[int], float]) -> list[int]:
    """The groups in an order that puts every group after those above it, the strongest (by
    its strongest bot) first among those free to come next."""
    waiting = [0] * len(comps)
    for hs in down:
        for h in hs:
            waiting[h] += 1

    def key(g: int) -> tuple[float, int]:
        return (-strength(comps[g][0]), comps[g][0])

    ready = [(key(g), g) for g in range(len(comps)) if not waiting[g]]
    heapq.heapify(ready)
    out: list[int] = []
    while ready:
        _, g = heapq.heappop(ready)
        out.append(g)
        for h in sorted(down[g]):
            waiting[h] -= 1
            if not waiting[h]:
                heapq.heappush(ready, (key(h), h))
    return out


def _reach(down: list[set[int]]) -> list[set[int]]:
    """Every group below each group, directly or not (the groups in order: arrows lead only
    to later ones)."""
    reach: list[set[int]] = [set() for _ in down]
    for g in reversed(range(len(down))):
        for h in down[g]:
            reach[g].add(h)
            reach[g] |= reach[h]
    return reach
