"""What a game yields, and what every floor above one game shares: the pairing that says which
game to play (its bots in seat order, its seed), and the outcome of a finished game (scores,
final ranks, how each seat's part ended).

One game knows nothing of tournaments, and the statistics nothing of how games are run; both
speak of games in these terms, which the schedulers, the journal, the ratings and the live view
read too. A seat rotation is here as well: a table played in each of its rotations on one seed
is a duplicate set, which the schedules make and the statistics resample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.protocol.messages import Termination


@dataclass(frozen=True)
class Pairing:
    """One game to play.

    ``index`` orders all games of a tournament (ratings are applied in this order, whatever
    order games finish in). ``bots`` names the bot in each seat, seat 0 first. Rotations of one
    table share ``table`` and ``seed``: with event-keyed chance every seat then sees the same
    dice whoever sits there (duplicate play).
    """

    game_id: str
    index: int
    round: int
    table: int
    bots: tuple[str, ...]
    seed: int


@dataclass(frozen=True)
class GameOutcome(Pairing):
    """The result of a finished game, after its pairing's fields: what the journal keeps, and
    what schedulers, ratings and the live view read. Built from a game record by
    :meth:`GameRecord.outcome <arena.runner.game.record.GameRecord.outcome>`.

    ``ranks`` are final ranks (1 = best; ties share; a failed seat is ranked last).
    ``terminations[s]`` is how seat s's part ended and ``details[s]`` says why, in words
    (empty for a seat that played the whole game).
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    terminations: tuple[Termination, ...]
    details: tuple[str, ...] = ()


def rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    """The cyclic seat rotations of a table: each bot sits in each seat exactly once."""
    t = tuple(table)
    return [t[i:] + t[:i] for i in range(len(t))]
