"""What the schedulers share: argument checks, seat balancing, balanced subsets of tables.

Everything here is a pure function of its arguments (randomness comes from a
``random.Random`` seeded by the caller through ``derive_seed``), so the schedulers built on it
stay deterministic.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Sequence
from itertools import combinations, permutations

from arena.results import GameOutcome, Pairing, rotations
from arena.seeds import derive_seed

MIN_PLAYERS = 2
MAX_PLAYERS = 4


# --- argument checks -------------------------------------------------------------------------


def check_names(names: Sequence[str], what: str) -> tuple[str, ...]:
    """The names as a tuple; raises ValueError for a bare string, an empty or non-string name,
    or a duplicate."""
    if isinstance(names, str):
        raise ValueError(f"{what} must be a list of bot names, not the string {names!r}")
    out = tuple(names)
    for name in out:
        if not isinstance(name, str) or not name:
            raise ValueError(f"{what}: every bot name must be a non-empty string, got {name!r}")
    dups = sorted({n for n in out if out.count(n) > 1})
    if dups:
        raise ValueError(f"{what}: duplicate bot names: {', '.join(dups)}")
    return out


def check_players(players: int) -> int:
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"players must be an integer, got {players!r}")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(
            f"players must be between {MIN_PLAYERS} and {MAX_PLAYERS} per table, got {players}"
        )
    return players


def check_rounds(rounds: int) -> int:
    if isinstance(rounds, bool) or not isinstance(rounds, int):
        raise ValueError(f"rounds must be an integer, got {rounds!r}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    return rounds


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    return seed


def check_max_games(max_games: int | None, games_per_table: int) -> int | None:
    if max_games is None:
        return None
    if isinstance(max_games, bool) or not isinstance(max_games, int):
        raise ValueError(f"max_games must be an integer, got {max_games!r}")
    if max_games < games_per_table:
        raise ValueError(
            f"max_games must be at least {games_per_table} (one table's games), got {max_games}"
        )
    return max_games


# --- seats -----------------------------------------------------------------------------------


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


def spread(values: Iterable[int]) -> str:
    vals = list(values)
    return f"{min(vals)}-{max(vals)}" if vals else "0-0"


def bot_and_pair_counts(
    tables: Iterable[tuple[Sequence[str], int]],
) -> tuple[dict[str, int], dict[frozenset[str], int]]:
    """Games per bot and games per pair of bots that shared a table, from ``(bots, games)``:
    each table's bots and how many games it is played."""
    games: dict[str, int] = {}
    meets: dict[frozenset[str], int] = {}
    for bots, n in tables:
        for b in bots:
            games[b] = games.get(b, 0) + n
        for a, b in combinations(bots, 2):
            key = frozenset((a, b))
            meets[key] = meets.get(key, 0) + n
    return games, meets


# --- balanced subsets ------------------------------------------------------------------------


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


# --- fixed schedules of whole tables (round-robin, gauntlet) ---------------------------------


def shape_text(tables: str, players: int, rotate: bool, games: int) -> str:
    """E.g. "35 tables x 4 rotations = 140 games" for ``tables`` "35 tables"."""
    if rotate:
        return f"{tables} x {players} rotations = {games} games"
    return f"{tables} x 1 game (seats balanced) = {games} games"


class FixedSchedule:
    """A schedule fixed from the start, whatever the outcomes: the tables of ``universe``
    played ``rounds`` times (repeats), or a balanced subset of that when it has more than
    ``max_games`` games.

    Only the tables of one repeat are held (and the subset's, computed once); the pairings of a
    repeat are derived when asked for, so memory does not grow with ``rounds``. All pairings
    are of round 1 (the schedule is one round however it is issued): table numbers, indices and
    seeds run on through the repeats, and the ids name the repeat and the table in it:
    r002-t0003-s1 is repeat 2's third table, tables put in a seeded order per repeat.

    The subset is ``max_games // games per table`` whole tables: as many full repeats of the
    universe as fit, then one ``balanced_subset`` (see there for ``classes``) as the last.
    """

    KIND: str
    players: int
    seed: int
    rounds: int
    rotate: bool
    max_games: int | None
    #: Whether a subset of the full schedule is played (``max_games``).
    subset: bool
    #: Tables in one repeat of the universe.
    tables_total: int
    #: Repeats played (the last one partial for a subset), and their tables in all.
    repeats: int
    tables: int
    #: The schedule's games (the protocol's: this schedule is fixed from the start).
    fixed_total: int

    @property
    def planned_total(self) -> int:
        """The protocol's: the schedule's games, all known from the start."""
        return self.fixed_total

    def _plan(self, universe: Sequence[tuple[str, ...]], classes: dict[str, int]) -> None:
        """Choose the repeats' tables: whole repeats of ``universe``, and for a subset a last,
        partial one."""
        self._universe = list(universe)
        self.tables_total = len(self._universe)
        self._per_table = self.players if self.rotate else 1
        full = self.rounds * self.tables_total * self._per_table
        self.subset = self.max_games is not None and full > self.max_games
        self._last: list[tuple[str, ...]] = []
        if self.max_games is not None and self.subset:
            self._whole, part = divmod(self.max_games // self._per_table, self.tables_total)
            if part:
                rng = random.Random(derive_seed(self.seed, self.KIND, "subset"))
                self._last = balanced_subset(self._universe, part, classes, rng)
        else:
            self._whole = self.rounds
        self.repeats = self._whole + (1 if self._last else 0)
        self.tables = self._whole * self.tables_total + len(self._last)
        self.fixed_total = self.tables * self._per_table
        # Seats without rotation depend on every earlier seating: the balancer as it stands
        # after the first ``_seated`` repeats.
        self._balancer = SeatBalancer()
        self._seated = 0

    def _issue_repeat(self, rep: int) -> list[Pairing]:
        """Repeat ``rep``'s pairings (1 = the first), with the balancer (without rotation) as
        it stands after the repeats before it; updates it."""
        order = list(self._universe if rep <= self._whole else self._last)
        random.Random(derive_seed(self.seed, self.KIND, "order", rep)).shuffle(order)
        before = (rep - 1) * self.tables_total  # tables of earlier repeats (all full ones)
        pairings = issue(
            ((1, before + k, t) for k, t in enumerate(order, start=1)),
            rotate=self.rotate,
            seed=self.seed,
            kind=self.KIND,
            first_index=before * self._per_table,
            balancer=self._balancer,
        )
        return [
            dataclasses.replace(
                p, game_id=f"r{rep:03d}-t{p.table - before:04d}-s{p.game_id.rsplit('-s', 1)[1]}"
            )
            for p in pairings
        ]

    def repeat(self, rep: int) -> list[Pairing]:
        """The pairings of repeat ``rep`` (1 = the first, up to ``repeats``). In order the
        repeats cost one repeat's work each; out of order, without rotation, the seatings of
        the repeats before are derived again."""
        if not 1 <= rep <= self.repeats:
            raise ValueError(f"no repeat {rep}: the schedule has {self.repeats}")
        if self.rotate:
            return self._issue_repeat(rep)
        if self._seated >= rep:
            self._balancer, self._seated = SeatBalancer(), 0
        while True:
            pairings = self._issue_repeat(self._seated + 1)
            self._seated += 1
            if self._seated == rep:
                return pairings

    def _shape(self) -> str:
        """How many tables, rotations and games; for a subset, of how many tables."""
        if self.subset:
            label = (f"balanced subset: {self.tables} of {self.rounds * self.tables_total} "
                     f"tables (max_games {self.max_games})")
        elif self.rounds > 1:
            label = f"{self.rounds} rounds x {self.tables_total} tables"
        else:
            label = f"{self.tables} tables"
        return shape_text(label, self.players, self.rotate, self.fixed_total)

    def _counts(self) -> tuple[dict[str, int], dict[frozenset[str], int]]:
        """Games per bot and per pair of bots over the whole schedule."""
        return bot_and_pair_counts(
            [(t, self._whole * self._per_table) for t in self._universe]
            + [(t, self._per_table) for t in self._last]
        )

    def pairings(self) -> list[Pairing]:
        """The whole schedule, every repeat in order (for small schedules: it is all held)."""
        return [p for rep in range(1, self.repeats + 1) for p in self.repeat(rep)]

    def next_round(self, finished: Sequence[GameOutcome], issued: int = 0) -> list[Pairing] | None:
        """The games from index ``issued`` to the end of its repeat, or None when ``issued``
        covers the schedule. ``finished`` is not read: the schedule is fixed."""
        if issued >= self.fixed_total:
            return None
        rep = issued // (self.tables_total * self._per_table) + 1
        return [p for p in self.repeat(rep) if p.index >= issued]


def check_table_settings(
    players: int, seed: int, rounds: int, rotate: bool
) -> tuple[int, int, int, bool]:
    """The settings every scheduler takes, checked: players, seed, rounds, rotate."""
    return check_players(players), check_seed(seed), check_rounds(rounds), bool(rotate)
