"""Swiss: each round, bots with similar tournament points meet, avoiding repeat meetings."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from arena.results import GameOutcome, Pairing
from arena.runner.play.schedule.seats import SeatBalancer, issue
from arena.seeds import derive_seed

KIND = "swiss"


def table_sizes(bots: int, players: int) -> list[int]:
    """The sizes of one round's tables, top first: as many full tables of ``players`` as
    possible, then any smaller tables (never under 2 players). With 2-player tables and an odd
    number of bots, one bot sits out (a bye), so the sizes cover ``bots - 1``."""
    full, rest = divmod(bots, players)
    if players == 2 or rest == 0:
        return [players] * full
    if rest >= 2:
        return [players] * full + [rest]
    # One bot left over: break one full table into players - 1 and 2 (players >= 3 here).
    return [players] * (full - 1) + [players - 1, 2]


def placement_points2(ranks: Sequence[int]) -> list[int]:
    """Twice each seat's placement points: at a k-player table place p (1 = best) scores
    k - p, and seats tied on rank share the average of the places they span (so twice the
    points is always a whole number). Works for both 1,1,3 and 1,1,2 styles of tied ranks."""
    k = len(ranks)
    order = sorted(range(k), key=lambda s: ranks[s])
    out = [0] * k
    i = 0
    while i < k:
        j = i
        while j + 1 < k and ranks[order[j + 1]] == ranks[order[i]]:
            j += 1
        # Places i+1 .. j+1 score k-1-i .. k-1-j; twice their average is the sum of the ends.
        shared = (k - 1 - i) + (k - 1 - j)
        for pos in range(i, j + 1):
            out[order[pos]] = shared
        i = j + 1
    return out


@dataclass
class _History:
    """What a round's pairing needs from the games finished so far."""

    points2: dict[str, int]
    games: dict[str, int]
    byes: dict[str, int]
    seats: dict[str, list[int]]
    met: dict[frozenset[str], int] = field(default_factory=dict)


class Swiss:
    """A Swiss tournament of ``rounds`` rounds at tables of ``players`` (2, 3 or 4).

    Round 1 seats the bots in a seeded shuffle. Before each later round the bots are sorted
    by tournament points (placement points per game, see ``placement_points2``, summed over
    their games), then by fewer games, then by a seeded order; tables are filled from the top
    (``table_sizes``); then a deterministic local search swaps bots between tables, first
    neighbouring ones and wider only while repeat meetings remain, lowering lexicographically
    (pairs at a table that met before, their earlier meetings, the score spread within
    tables: the sum of the point differences of each table's pairs).

    With 2-player tables and an odd number of bots, the lowest-placed bot among those with
    the fewest byes sits the round out and is credited a draw's points for the games it missed
    (half a point a game).

    Seats: with ``rotate`` every table is played in all its cyclic rotations (one seed), the
    rotation starting from the table's best-placed bot; without it, one game per table with the
    seating that puts each bot in the seats it has sat in least (``SeatBalancer``).

    A round's pairings are computed only from the outcomes passed to ``next_round``, so a
    resumed run asking again gets the same answer. Game ids are ``r{round:03d}-t{table:04d}-
    s{rotation}``, tables numbered from 1 at the top; indices continue across rounds.

    The arguments are trusted: they are a ``ScheduleShape``'s (``schedule.shape``), which
    holds them to the rules (unique names, enough bots for a table, ...).
    """

    def __init__(
        self,
        bots: Sequence[str],
        players: int,
        seed: int,
        rounds: int,
        rotate: bool = False,
    ) -> None:
        self.bots = tuple(bots)
        self.players, self.seed, self.rounds, self.rotate = players, seed, rounds, rotate
        self.sizes = table_sizes(len(self.bots), self.players)
        self.has_bye = sum(self.sizes) < len(self.bots)
        self.games_per_round = sum(self.sizes) if self.rotate else len(self.sizes)
        #: Every round has the same tables, so the whole tournament's games are known.
        self.planned_total = self.rounds * self.games_per_round
        order = list(self.bots)
        random.Random(derive_seed(self.seed, KIND, "order")).shuffle(order)
        self._seeded = {b: i for i, b in enumerate(order)}

    # --- the protocol ---------------------------------------------------------------------

    #: Not fixed: each round is paired from the outcomes of the rounds before.
    fixed_total: int | None = None

    def next_round(self, finished: Sequence[GameOutcome], issued: int = 0) -> list[Pairing] | None:
        """The next round's games, from the outcomes of every earlier round, or None after
        the last round. The round is one after the latest round among ``finished`` (``issued``
        is not read).

        Raises ValueError for an outcome naming a bot that is not in this tournament.
        """
        rnd = 1 + max((o.round for o in finished), default=0)
        if rnd > self.rounds:
            return None
        hist = self._history(finished, rnd)
        standing = sorted(
            self.bots, key=lambda b: (-hist.points2[b], hist.games[b], self._seeded[b])
        )
        if self.has_bye:
            fewest = min(hist.byes.values())
            bye = next(b for b in reversed(standing) if hist.byes[b] == fewest)
            standing.remove(bye)
        tables: list[list[str]] = []
        start = 0
        for size in self.sizes:
            tables.append(standing[start : start + size])
            start += size
        if rnd > 1:
            tables = _improve(tables, hist.points2, hist.met)
            if _repeat_pairs(tables, hist.met):
                # The swaps got stuck: look for a repeat-free seating by backtracking, and
                # polish that.
                fresh = _repeat_free(standing, self.sizes, hist.met)
                if fresh is not None:
                    tables = _improve(fresh, hist.points2, hist.met)
        place = {b: i for i, b in enumerate(standing)}
        ordered = [tuple(sorted(t, key=place.__getitem__)) for t in tables]
        numbered = [(rnd, i, t) for i, t in enumerate(ordered, start=1)]
        return issue(
            numbered,
            rotate=self.rotate,
            seed=self.seed,
            kind=KIND,
            first_index=(rnd - 1) * self.games_per_round,
            balancer=None if self.rotate else SeatBalancer(hist.seats),
        )

    def describe(self) -> str:
        """E.g. "swiss, 10 bots, 4-player tables (4+4+2), 5 rounds x 3 games = 15 games", or
        with rotation "..., 5 rounds x 3 tables in all rotations (10 games) = 50 games"."""
        sizes = "+".join(map(str, self.sizes))
        if self.rotate:
            each = f"{len(self.sizes)} tables in all rotations ({self.games_per_round} games)"
        else:
            each = f"{self.games_per_round} games"
        text = (
            f"{KIND}, {len(self.bots)} bots, {self.players}-player tables ({sizes}), "
            f"{self.rounds} rounds x {each} = {self.rounds * self.games_per_round} games"
        )
        return text + (", one bye a round" if self.has_bye else "")

    # --- internals ------------------------------------------------------------------------

    def _history(self, finished: Sequence[GameOutcome], rnd: int) -> _History:
        hist = _History(
            points2=dict.fromkeys(self.bots, 0),
            games=dict.fromkeys(self.bots, 0),
            byes=dict.fromkeys(self.bots, 0),
            seats={b: [0] * self.players for b in self.bots},
        )
        tables: dict[tuple[int, int], set[str]] = {}
        present: dict[int, set[str]] = {r: set() for r in range(1, rnd)}
        for o in finished:
            unknown = [b for b in o.bots if b not in hist.points2]
            if unknown:
                raise ValueError(
                    f"game {o.game_id} names bots not in this tournament: {', '.join(unknown)}"
                )
            if len(o.ranks) != len(o.bots):
                raise ValueError(
                    f"game {o.game_id} has {len(o.ranks)} ranks for {len(o.bots)} seats"
                )
            for seat, (bot, pts) in enumerate(zip(o.bots, placement_points2(o.ranks), strict=True)):
                hist.points2[bot] += pts
                hist.games[bot] += 1
                hist.seats[bot][seat] += 1
            tables.setdefault((o.round, o.table), set()).update(o.bots)
            present.setdefault(o.round, set()).update(o.bots)
        for members in tables.values():
            for a, b in combinations(sorted(members), 2):
                key = frozenset((a, b))
                hist.met[key] = hist.met.get(key, 0) + 1
        if self.has_bye:
            # A bye is worth a draw in each game the bot's table would have played.
            per_game = self.players - 1  # twice the average placement points of a game
            bye_points = per_game * (self.players if self.rotate else 1)
            for r in range(1, rnd):
                for bot in self.bots:
                    if bot not in present[r]:
                        hist.byes[bot] += 1
                        hist.points2[bot] += bye_points
        return hist


Cost = tuple[int, int, int]


def _improve(
    tables: list[list[str]], points2: dict[str, int], met: dict[frozenset[str], int]
) -> list[list[str]]:
    """Swap bots between tables while that lowers the summed cost (repeat pairs, earlier
    meetings of those pairs, score spread), lexicographically; at each step the best swap
    (first found among equals) is made. Swaps are between neighbouring tables, widening by one
    table at a time only while repeat pairs remain."""
    tabs = [list(t) for t in tables]

    def cost(t: Sequence[str]) -> Cost:
        repeats = weight = spread = 0
        for a, b in combinations(t, 2):
            m = met.get(frozenset((a, b)), 0)
            if m:
                repeats += 1
                weight += m
            spread += abs(points2[a] - points2[b])
        return repeats, weight, spread

    costs = [cost(t) for t in tabs]
    n = len(tabs)
    for reach in range(1, n):
        while True:
            best: tuple[Cost, int, int, int, int] | None = None
            for i in range(n):
                for j in range(i + 1, min(i + reach, n - 1) + 1):
                    before = _add(costs[i], costs[j])
                    for x in range(len(tabs[i])):
                        for y in range(len(tabs[j])):
                            ti = [*tabs[i][:x], tabs[j][y], *tabs[i][x + 1 :]]
                            tj = [*tabs[j][:y], tabs[i][x], *tabs[j][y + 1 :]]
                            delta = _sub(_add(cost(ti), cost(tj)), before)
                            if delta < (0, 0, 0) and (best is None or delta < best[0]):
                                best = (delta, i, j, x, y)
            if best is None:
                break
            _, i, j, x, y = best
            tabs[i][x], tabs[j][y] = tabs[j][y], tabs[i][x]
            costs[i], costs[j] = cost(tabs[i]), cost(tabs[j])
        if sum(c[0] for c in costs) == 0:
            break
    return tabs


def _add(a: Cost, b: Cost) -> Cost:
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


def _sub(a: Cost, b: Cost) -> Cost:
    return a[0] - b[0], a[1] - b[1], a[2] - b[2]


def _repeat_pairs(tables: Sequence[Sequence[str]], met: dict[frozenset[str], int]) -> int:
    return sum(1 for t in tables for a, b in combinations(t, 2) if frozenset((a, b)) in met)


def _repeat_free(
    standing: Sequence[str],
    sizes: Sequence[int],
    met: dict[frozenset[str], int],
    budget: int = 20_000,
) -> list[list[str]] | None:
    """Tables of ``sizes`` with no pair that met before, or None if there is none or
    ``budget`` placements did not find one (a deterministic limit, not a clock).

    Depth-first search: the next bot placed is the one with the fewest tables it can still
    join (ties: the best-placed), trying the highest table first; empty tables of one size are
    interchangeable, so only the first of them is tried.
    """
    tables: list[list[str]] = [[] for _ in sizes]
    unplaced = list(standing)
    left = budget

    def options(bot: str) -> list[int]:
        out: list[int] = []
        empty_sizes: set[int] = set()
        for i, t in enumerate(tables):
            if len(t) == sizes[i] or (not t and sizes[i] in empty_sizes):
                continue
            if not t:
                empty_sizes.add(sizes[i])
            if not any(frozenset((bot, other)) in met for other in t):
                out.append(i)
        return out

    def place() -> bool:
        nonlocal left
        if not unplaced:
            return True
        bot, opts = unplaced[0], options(unplaced[0])
        for other in unplaced[1:]:
            if not opts:
                return False
            o = options(other)
            if len(o) < len(opts):
                bot, opts = other, o
        k = unplaced.index(bot)
        del unplaced[k]
        for i in opts:
            left -= 1
            if left < 0:
                break
            tables[i].append(bot)
            if place():
                return True
            tables[i].pop()
        unplaced.insert(k, bot)
        return False

    return tables if place() else None
