"""The base deck as bot authors read it, made from the card data so it cannot drift from it:
the card table of ``docs/agricola.md`` (:func:`markdown_table`) and every card as plain data
(:func:`card_data`).

``python -m arena.engine.agricola.cards.table`` prints the table (a test holds the page's
equal to it); ``--json`` prints the cards as one JSON list instead.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final

from arena.engine.agricola.cards.card import Card, Clause, Kind, Moment
from arena.engine.agricola.cards.minors import MINORS
from arena.engine.agricola.cards.occupations import OCCUPATIONS
from arena.engine.agricola.cards.spaces import CARD_SPACES, SIDE_JOB
from arena.engine.agricola.tables import family_components, space_info

#: Every card of the base deck: the occupations, then the minor improvements, by deck and
#: printed number.
CARDS: Final[tuple[Card, ...]] = (*OCCUPATIONS, *MINORS)

#: A moment as the table names it.
MOMENT_WORDS: Final[Mapping[Moment, str]] = {
    Moment.ON_PLAY: "on play",
    Moment.SPACE_USED: "space used",
    Moment.SUB_ACTION: "sub-action",
    Moment.ROUND_START: "round start",
    Moment.RETURN_HOME: "returning home",
    Moment.FIELD_PHASE: "field phase",
    Moment.FEEDING: "feeding",
    Moment.BEFORE_SCORING: "before scoring",
    Moment.COST: "cost",
    Moment.CAPACITY: "capacity",
    Moment.SCORING: "scoring",
    Moment.ANYTIME: "any time",
}

#: The table's header: one row a card.
HEADER: Final = ("| id | name | kind | cost | prerequisite | points | players | traveling | "
                 "effect |\n|---|---|---|---|---|---|---|---|---|")


def _goods(amounts: Mapping[str, int]) -> str:
    return " + ".join(f"{n} {good}" for good, n in amounts.items())


def cost_words(card: Card) -> str:
    """A minor's cost in words ("2 wood", "1 clay + 1 food per person", "free"); "—" for an
    occupation (its cost is the Lessons space's food)."""
    if card.kind is Kind.OCCUPATION:
        return "—"
    parts = [_goods(card.cost)] if card.cost else []
    if card.cost_per_person:
        parts.append(f"{_goods(card.cost_per_person)} per person")
    return " + ".join(parts) or "free"


def clause_words(clause: Clause) -> str:
    """One clause: its moment in bold ("may" when its owner may decline it), then its text."""
    when = MOMENT_WORDS[clause.moment] + (", may" if clause.optional else "")
    return f"**{when}**: {clause.text}"


def table_row(card: Card) -> str:
    kind = "occupation" if card.kind is Kind.OCCUPATION else "minor"
    cells = (
        card.id, card.name, kind, cost_words(card),
        card.prerequisite.words() if card.prerequisite else "—",
        str(card.points) if card.points else "—",
        f"{card.min_players}+" if card.kind is Kind.OCCUPATION else "—",
        "yes" if card.traveling else "—",
        " ".join(clause_words(c) for c in card.clauses),
    )
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def markdown_table() -> str:
    """The card table of ``docs/agricola.md``: the header, then a row for every card."""
    return "\n".join((HEADER, *(table_row(c) for c in CARDS)))


def card_data(card: Card) -> dict[str, Any]:
    """``card``'s printed facts and its effect as plain data (the shape the page shows)."""
    pre = card.prerequisite
    return {
        "id": card.id,
        "name": card.name,
        "kind": card.kind.value,
        "cost": dict(card.cost),
        "cost_per_person": dict(card.cost_per_person),
        "prerequisite": None if pre is None else {
            "count": pre.count.value, "low": pre.low, "high": pre.high, "words": pre.words()},
        "points": card.points,
        "min_players": card.min_players,
        "traveling": card.traveling,
        "clauses": [{"moment": c.moment.value, "optional": c.optional, "text": c.text}
                    for c in card.clauses],
    }


@lru_cache(maxsize=1)
def _card_components() -> dict[str, Any]:
    family = family_components()
    return {
        **family,
        "spaces": [space_info(i, CARD_SPACES) for i in range(len(CARD_SPACES))],
        "board_spaces": {n: [s for s in ids if s != SIDE_JOB]
                         for n, ids in family["board_spaces"].items()},
        "cards": [card_data(c) for c in CARDS],
    }


def card_components() -> dict[str, Any]:
    """Card mode's ``game_start.components``: the Family game's tables with the card board's
    spaces (Lessons alive, Meeting Place without food, the minor improvements of Basic Wish,
    Major Improvement and House Redevelopment; Side Job in no player count's printed spaces)
    and ``cards``, every card of the base deck as :func:`card_data` gives it (a fresh copy each
    call: callers may change it)."""
    return copy.deepcopy(_card_components())


def main(argv: list[str]) -> str:
    """What ``python -m`` prints: the table, or with ``--json`` every card's data."""
    if argv == ["--json"]:
        return json.dumps([card_data(c) for c in CARDS], indent=1)
    if argv:
        raise SystemExit("usage: python -m arena.engine.agricola.cards.table [--json]")
    return markdown_table()


if __name__ == "__main__":
    sys.stdout.write(main(sys.argv[1:]) + "\n")


__all__ = ["CARDS", "card_components", "card_data", "markdown_table"]
