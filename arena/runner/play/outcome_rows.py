"""A journal's finished games as :class:`~arena.results.GameOutcome` values, from the rows
of its query of results and pairings (``game_id, idx, round, tbl, bots, seed, scores, ranks,
terminations, details`` after the result's number, the JSON columns as text), read as
plain tuples."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from arena.protocol.messages import Termination
from arena.results import GameOutcome

#: The columns' places in a row.
GAME_ID, IDX, ROUND, TABLE, BOTS, SEED, SCORES, RANKS, TERMINATIONS, DETAILS = range(1, 11)


def outcomes_of(rows: Sequence[tuple[Any, ...]]) -> list[GameOutcome]:
    """The game of each row. The scores are
    parsed as one array of every row's (one parse instead of one a game: most of the reading
    of a large journal); the tables, ranks and terminations, which a large journal repeats,
    once for each text seen (their tuples are immutable, so games alike share them). Raises
    ValueError for a row that is no game this version can read (a termination reason it does
    not know, a column that is not JSON)."""
    known = {t.value: t for t in Termination}

    def ended(ts: list[str]) -> tuple[Termination, ...]:
        return tuple(known[t] if t in known else Termination(t) for t in ts)

    def column(at: int, make: Callable[[Any], Any] = tuple) -> list[Any]:
        seen: dict[str, Any] = {}
        out = []
        for r in rows:
            text = r[at]
            value = seen.get(text)
            if value is None:
                value = seen[text] = make(json.loads(text))
            out.append(value)
        return out

    bots, ranks, terms = column(BOTS), column(RANKS), column(TERMINATIONS, ended)
    scores = json.loads("[" + ",".join(r[SCORES] for r in rows) + "]")
    details = json.loads("[" + ",".join(r[DETAILS] for r in rows) + "]")
    return [GameOutcome(r[GAME_ID], r[IDX], r[ROUND], r[TABLE], b, r[SEED],
                        tuple(sc), ra, te, tuple(de))
            for r, b, sc, ra, te, de in zip(rows, bots, scores, ranks, terms, details,
                                            strict=True)]
