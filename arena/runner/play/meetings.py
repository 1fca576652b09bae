"""The head-to-head records a :class:`~arena.runner.play.ratings.RatingTracker` counts: for
each ordered pair of bots that sat at a table together, a's wins, losses and draws against b.

A league of a thousand bots has about a million such pairs. Read from a rating checkpoint, they
stay the text the checkpoint stored until something reads them (the crosstable, a state to
write, the state's size), so ``arena standings`` and ``arena league standings``, which print no
crosstable, never parse them. Games counted meanwhile are kept apart and added on parsing.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Sequence

from arena.results import GameOutcome
from arena.runner.play.standings import Crosstable, HeadToHead

#: Where a rating state (``RatingTracker.state``: JSON, its keys in this order) keeps its
#: records: ``"h2h":[[a,b,wins,losses,draws],...]``, the next key being ``"seats"``. Inside a
#: JSON string every quotation mark follows a backslash, so neither text occurs in a name.
_START = '"h2h":'
_END = '],"seats":'


def split_records(text: str) -> tuple[str, str] | None:
    """A rating state's text without its head-to-head records, and the records' text (a JSON
    list); None if ``text`` has no records where a state keeps them."""
    start = text.find(_START)
    end = text.find(_END, start)
    if start < 0 or end < 0 or text[start + len(_START)] != "[":
        return None
    return text[:start] + text[end + 2:], text[start + len(_START):end + 1]


class Meetings:
    """Each bot's record against every bot it met, by pair: ``[wins, losses, draws]``."""

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, list[int]]] = {}
        #: Records not parsed yet: a state's text of them and the bot names it numbers.
        self._packed: tuple[str, list[str]] | None = None
        #: Crosstables handed out and not made yet: made before the next game is counted.
        self._views: list[weakref.ref[Crosstable]] = []

    def add_bot(self, name: str) -> None:
        """Give ``name`` a row (it has met nobody yet)."""
        self._rows.setdefault(name, {})

    def load(self, text: str, names: list[str]) -> None:
        """Take a state's records (``text``, as :func:`split_records` gives it; ``names``: the
        state's bots, which the records number), to be parsed when first read. Every bot of
        ``names`` has its row already, and none has met another yet."""
        self._packed = (text, names)

    def count(self, o: GameOutcome) -> None:
        """Add the meetings of one game: a seat beats another when its rank is smaller."""
        self._settle_views()
        rows = self._rows
        for s, bot in enumerate(o.bots):
            rank, row = o.ranks[s], rows[bot]
            for s2, other in enumerate(o.bots):
                if s2 == s:
                    continue
                rec = row.get(other)
                if rec is None:
                    rec = row[other] = [0, 0, 0]
                r2 = o.ranks[s2]
                rec[0 if rank < r2 else 1 if rank > r2 else 2] += 1

    def rows(self) -> dict[str, dict[str, list[int]]]:
        """Every record, each bot's opponents in the order they first met (parsing a
        state's records now if they are not yet)."""
        if self._packed is not None:
            self._unpack(*self._packed)
        return self._rows

    @property
    def pairs(self) -> int:
        """How many ordered pairs met."""
        return sum(map(len, self.rows().values()))

    def crosstable(self, bots: Sequence[str]) -> Crosstable:
        """The records now as a crosstable, made when first read: ``bots``' rows in that
        order, each one's opponents sorted, bots that met nobody left out."""
        order = list(bots)

        def make() -> dict[str, dict[str, HeadToHead]]:
            rows = self.rows()
            return {a: {b: HeadToHead(*row[b]) for b in sorted(row)}
                    for a in order if (row := rows[a])}

        view = Crosstable(make)
        self._views.append(weakref.ref(view))
        return view

    def _settle_views(self) -> None:
        """Make every crosstable handed out and still in use from the records as they are."""
        if self._views:
            views, self._views = self._views, []
            for ref in views:
                view = ref()
                if view is not None:
                    view.rows()

    def _unpack(self, text: str, names: list[str]) -> None:
        # The state's records first, in its order, then the games counted since: a pair's
        # place is where it first met, as if every game had been counted here.
        later = self._rows
        rows: dict[str, dict[str, list[int]]] = {bot: {} for bot in later}
        try:
            for a, b, *rec in json.loads(text):
                rows[names[a]][names[b]] = rec
        except (ValueError, TypeError, IndexError, KeyError) as exc:
            raise ValueError(f"not a rating state's head-to-head records: {exc!r}") from None
        for bot, row in later.items():
            mine = rows[bot]
            for other, rec in row.items():
                have = mine.get(other)
                if have is None:
                    mine[other] = rec
                else:
                    have[0] += rec[0]
                    have[1] += rec[1]
                    have[2] += rec[2]
        self._rows, self._packed = rows, None
