"""Matchmaking: which table a league plays next, chosen for what it tells about the ratings.

The rule (in plain words):

1. With probability ``explore`` (:data:`EXPLORE` by default) the table is a uniformly random
   choice of ``players`` bots. These tables keep the field connected: without them a cluster
   of bots that only ever meet one another could drift apart from the rest unnoticed.
2. Otherwise the table is built around one focal bot, the one with the highest *need*: the
   variance (sigma²) its rating is expected to have once the games already issued to it have
   finished. A TrueSkill rating's precision (1 / sigma²) grows about linearly with the games
   played, each game adding a similar amount, and the starting rating is worth about one game
   (:data:`PRIOR_GAMES`); so a bot with ``games`` finished and ``pending`` issued games is
   expected to reach ``(games + 1 + pending) / (games + 1)`` times its present precision, and
   its need is ``sigma² * (games + 1) / (games + 1 + pending)``. A new bot (widest sigma, no
   games) therefore comes first, and a bot whose games are still running stops being picked
   for every table meanwhile. Equal needs go to the bot with fewer games, then to the seeded
   random generator.
3. The focal bot's opponents are drawn one at a time, without replacement, each with
   probability proportional to

       (match quality with the focal bot)²  ×  (its need / the focal bot's need)⁸

   The first factor is TrueSkill's two-player match quality (the draw probability,
   :func:`match_quality`), taken pair by pair with the focal bot and never for the whole
   table: a 4-player table's quality is small whoever sits at it and says little about which
   opponents inform the focal bot's rating. It is highest for bots near the focal bot in
   rating and bots whose rating is sure: a close game is the one whose result moves a rating
   most (TrueSkill shrinks a variance by a factor that is largest when the result was in
   doubt), while the favourite's expected win says almost nothing. The second factor is how
   much of a game's information goes to the opponent's own rating compared to the focal
   bot's (TrueSkill shrinks each player's variance sigma² by about sigma⁴ / c² times a
   factor both share, so the ratio of the shrinkages is the ratio of needs squared), taken
   to a higher power: it fills the table with the bots that also need games most, so that
   games are spread evenly and no seat is spent on a settled rating while others are still
   wide. Both at most 1 (the focal bot has the highest need), and a settled bot near the
   focal one is still drawn now and then.

   The powers (:data:`QUALITY_POWER`, :data:`NEED_POWER`) were chosen with ``arena bench
   league``: against quality × need ratio², they saved more games in every setting it
   measures (the whole field from the start and bots joining a settled league, fields of
   near equals and wider ones, 2- and 4-player tables), and again from the start with two
   other seeds.

The table is given in a canonical order (names sorted); the league plays every cyclic seat
rotation of it on one seed (a duplicate set). Everything is drawn from the caller's
``random.Random`` and entrants are read in name order, so the same entrants and generator
state give the same table. One call costs O(n log n + n * players) for n entrants (about
0.2 ms for 200). How many games the rule saves against random tables is measured by
``arena bench league`` (:mod:`arena.league.bench`).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.runner.ratings import TRUESKILL_BETA

#: Share of tables drawn uniformly at random (rule 1).
EXPLORE = 0.1
#: The power of the opponent's need ratio in its weight (rule 3).
NEED_POWER = 8.0
#: The power of the match quality in an opponent's weight (rule 3).
QUALITY_POWER = 2.0
#: What the starting rating is worth, in games (rule 2).
PRIOR_GAMES = 1.0
#: The smallest weight an opponent is drawn with: a match quality can underflow to zero for
#: ratings far apart, and every bot stays drawable.
_MIN_WEIGHT = 1e-12


@dataclass(frozen=True)
class Entrant:
    """What matchmaking knows of one bot version.

    ``games`` counts its finished games; ``pending`` its games issued and not finished yet
    (counted as if played, so one bot is not picked for every table while its games run).
    """

    name: str
    mu: float
    sigma: float
    games: int
    pending: int = 0


@dataclass(frozen=True)
class Choice:
    """A table to play, and why.

    ``bots`` are distinct names in canonical (sorted) order; ``reason`` is ``"focus"`` (built
    around ``focus``, the bot of highest need) or ``"explore"`` (a uniformly random table,
    ``focus`` None).
    """

    bots: tuple[str, ...]
    reason: str
    focus: str | None = None

    def describe(self) -> str:
        """The reason in words, as the league shows it."""
        if self.focus is None:
            return "explore: a random table"
        return f"focus: {self.focus} needs games most"


def need(entrant: Entrant) -> float:
    """The variance the entrant's rating is expected to have once its pending games are in
    (rule 2 of the module docstring)."""
    worth = entrant.games + PRIOR_GAMES
    return entrant.sigma * entrant.sigma * worth / (worth + entrant.pending)


def match_quality(a: Entrant, b: Entrant) -> float:
    """TrueSkill's two-player match quality (``TrueSkill.quality_1vs1`` of the league's
    environment), computed directly: the library builds matrices for it, which is far slower.

    It is the probability of a draw relative to the closest possible match: near 1 for equal,
    sure ratings, smaller for ratings apart or uncertain.
    """
    spread = 2 * TRUESKILL_BETA * TRUESKILL_BETA + a.sigma * a.sigma + b.sigma * b.sigma
    gap = a.mu - b.mu
    return math.sqrt(2 * TRUESKILL_BETA * TRUESKILL_BETA / spread) * math.exp(
        -gap * gap / (2 * spread))


def choose_table(entrants: Sequence[Entrant], players: int, rng: random.Random,
                 explore: float = EXPLORE) -> Choice:
    """The next table of ``players`` bots among ``entrants`` (the rule of the module
    docstring).

    Raises ValueError for fewer entrants than ``players``, fewer than two players, an
    ``explore`` outside [0, 1] or a name given twice.
    """
    if players < 2:
        raise ValueError(f"a table needs at least two players, not {players}")
    if not 0.0 <= explore <= 1.0:
        raise ValueError(f"explore must be from 0 to 1, not {explore}")
    if len(entrants) < players:
        raise ValueError(f"a table of {players} needs at least {players} entrants, "
                         f"and the league has {len(entrants)}")
    field = sorted(entrants, key=lambda e: e.name)
    for a, b in itertools.pairwise(field):
        if a.name == b.name:
            raise ValueError(f"entrant {a.name!r} is given twice")
    if rng.random() < explore:
        return Choice(tuple(sorted(rng.sample([e.name for e in field], players))), "explore")
    focal = _focal(field, rng)
    opponents = _draw_opponents(focal, [e for e in field if e.name != focal.name],
                                players - 1, rng)
    return Choice(tuple(sorted([focal.name, *opponents])), "focus", focal.name)


def _focal(field: list[Entrant], rng: random.Random) -> Entrant:
    """The entrant of highest need; equal needs to fewer games, then to the generator."""
    needs = [need(e) for e in field]
    top = max(needs)
    tied = [e for e, n in zip(field, needs, strict=True) if n == top]
    fewest = min(e.games for e in tied)
    tied = [e for e in tied if e.games == fewest]
    return tied[0] if len(tied) == 1 else rng.choice(tied)


def _draw_opponents(focal: Entrant, others: list[Entrant], count: int,
                    rng: random.Random) -> list[str]:
    """``count`` distinct names among ``others``, drawn one at a time with probability
    proportional to their weight (rule 3 of the module docstring)."""
    top = need(focal)
    weights = [max(match_quality(focal, e) ** QUALITY_POWER
                   * (need(e) / top if top > 0 else 1.0) ** NEED_POWER, _MIN_WEIGHT)
               for e in others]
    total = math.fsum(weights)
    chosen: list[str] = []
    for _ in range(count):
        target = rng.random() * total
        pick = len(weights) - 1
        running = 0.0
        for i, w in enumerate(weights):
            running += w
            if w > 0.0 and target < running:
                pick = i
                break
        while weights[pick] == 0.0:  # rounding ran past the end: the last one not yet drawn
            pick -= 1
        chosen.append(others[pick].name)
        total -= weights[pick]
        weights[pick] = 0.0
    return chosen
