"""What a game yields, and what every floor above one game shares: the pairing that says which
game to play (its bots in seat order, its seed), each seat's result as the referee gives it,
and the outcome of a finished game (the pairing with its seats' results after it).

One game knows nothing of tournaments, and the statistics nothing of how games are run; both
speak of games in these terms, which the schedulers, the journal, the ratings and the live view
read too. A seat rotation is here as well: a table played in each of its rotations on one seed
is a duplicate set, which the schedules make and the statistics resample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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
class SeatResult:
    """How one seat's part of a game ended, as the referee judged it.

    ``bot`` is the name the seat's bot played under (``"builtin"`` for a built-in player);
    ``score`` its final score and ``rank`` its final rank (1 = best; ties share; a seat whose
    bot failed is ranked last); ``termination`` how its part ended and ``detail`` what
    happened, in words (empty for a seat that played the whole game).
    """

    bot: str
    score: int
    rank: int
    termination: Termination
    detail: str = ""


@dataclass(frozen=True)
class GameOutcome(Pairing):
    """The result of a finished game, after its pairing's fields: what the journal keeps, and
    what schedulers, ratings and the live view read, a column per field with an entry per
    seat. Built with :meth:`of` from the seats' results, where the game's record is written.

    ``ranks`` are final ranks (1 = best; ties share; a failed seat is ranked last).
    ``terminations[s]`` is how seat s's part ended and ``details[s]`` says why, in words
    (empty for a seat that played the whole game).
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    terminations: tuple[Termination, ...]
    details: tuple[str, ...] = ()

    @classmethod
    def of(cls, pairing: Pairing, seats: Sequence[SeatResult]) -> GameOutcome:
        """The outcome of the game ``pairing`` issued, from its seats' results in seat order.

        Raises ValueError if they are not that game's: another number of seats, or another
        bot in a seat.
        """
        played = tuple(s.bot for s in seats)
        if played != pairing.bots:
            raise ValueError(f"game {pairing.game_id} seats {', '.join(pairing.bots)}, but "
                             f"its result is for {', '.join(played) or 'no seat'}")
        return cls(pairing.game_id, pairing.index, pairing.round, pairing.table, pairing.bots,
                   pairing.seed, tuple(s.score for s in seats), tuple(s.rank for s in seats),
                   tuple(s.termination for s in seats), tuple(s.detail for s in seats))

    def to_list(self) -> list[Any]:
        """Its fields as plain JSON-safe data, in order (:meth:`from_list` reads them)."""
        return [self.game_id, self.index, self.round, self.table, self.bots, self.seed,
                self.scores, self.ranks, [str(t) for t in self.terminations], self.details]

    @classmethod
    def from_list(cls, d: Sequence[Any]) -> GameOutcome:
        game_id, index, rnd, table, bots, seed, scores, ranks, terms, details = d
        return cls(game_id, index, rnd, table, tuple(bots), seed, tuple(scores), tuple(ranks),
                   tuple(Termination(t) for t in terms), tuple(details))


def rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    """The cyclic seat rotations of a table: each bot sits in each seat exactly once."""
    t = tuple(table)
    return [t[i:] + t[:i] for i in range(len(t))]
