"""The board of card mode: the same space ids as the Family game, with the card-game branches
back (ref A3, A4, A5; seed アクションF, G) and the Family variant's changes undone.

- Lessons spaces can be used: play 1 occupation from the hand for the space's food (ruling C3
  of ``RULES.md``: the base Lessons first free then 1 food; at 3 players the second Lessons 2
  food; at 4 players the second Lessons 1 food for a player's first two occupations, 2 after).
- Meeting Place: the starting-player token, and afterwards optionally 1 minor improvement; it
  accumulates nothing.
- Major Improvement: 1 major or 1 minor improvement.
- Basic Wish for Children: family growth, and afterwards optionally 1 minor improvement.
- House Redevelopment: renovation, and afterwards optionally 1 major or minor improvement.
- No Side Job tile.
"""

from __future__ import annotations

from typing import Final

from arena.engine.agricola.board import DEAD, PILE_ADD, PILE_GOOD, Board
from arena.engine.agricola.components import (
    AND_THEN,
    BOARD_SPACES,
    BUILD_MAJOR,
    FAMILY_GROWTH,
    MAJOR_OR_MINOR,
    MINOR_IMPROVEMENT,
    NUM_PLAYERS_MAX,
    OCCUPATION,
    ONE,
    RENOVATE,
    SPACE_ID,
    SPACES,
    STARTING_PLAYER,
    Part,
    Space,
)

MEETING_PLACE: Final = SPACE_ID["meeting_place"]
LESSONS: Final = SPACE_ID["lessons"]
LESSONS_3P: Final = SPACE_ID["lessons_3p"]
LESSONS_4P: Final = SPACE_ID["lessons_4p"]
MAJOR_IMPROVEMENT: Final = SPACE_ID["major_improvement"]
SIDE_JOB: Final = SPACE_ID["side_job"]
#: Every Lessons space, by id.
LESSONS_SPACES: Final = (LESSONS, LESSONS_3P, LESSONS_4P)

#: The most food any Lessons space costs (:func:`lessons_cost`; a test holds it).
MOST_LESSONS_COST: Final = 2

_PLAY_OCCUPATION: Final = Part(OCCUPATION, limit=1)
_PLAY_MINOR: Final = Part(MINOR_IMPROVEMENT, limit=1)
_MAJOR_OR_MINOR: Final = Part(MAJOR_OR_MINOR, limit=1)
#: The Family game's "build 1 major", which the major half of "major or minor" carries out.
BUILD_ONE_MAJOR: Final = Part(BUILD_MAJOR, limit=1)


def lessons_cost(space: int, occupations: int) -> int:
    """The food a player with ``occupations`` in front of them pays to play one more on
    Lessons space ``space`` (ref A3, A5; seed: first free, then 1 food)."""
    if space == LESSONS:
        return 1 if occupations else 0
    if space == LESSONS_3P:
        return 2
    if space == LESSONS_4P:
        return 1 if occupations < 2 else 2
    raise ValueError(f"space {space} is not a Lessons space")


def _card_space(s: Space) -> Space:
    key = s.key
    if key in ("lessons", "lessons_3p", "lessons_4p"):
        return s._replace(parts=(_PLAY_OCCUPATION,), combine=ONE, dead=False, removed=())
    if key == "meeting_place":
        return s._replace(parts=(Part(STARTING_PLAYER), _PLAY_MINOR), combine=AND_THEN,
                          accumulates=(), removed=())
    if key == "major_improvement":
        return s._replace(parts=(_MAJOR_OR_MINOR,), removed=())
    if key == "basic_wish_for_children":
        return s._replace(parts=(Part(FAMILY_GROWTH), _PLAY_MINOR), combine=AND_THEN,
                          removed=())
    if key == "house_redevelopment":
        return s._replace(parts=(Part(RENOVATE), _MAJOR_OR_MINOR), removed=())
    return s


#: The spaces of card mode, by the Family game's ids.
CARD_SPACES: Final[tuple[Space, ...]] = tuple(_card_space(s) for s in SPACES)
#: The spaces whose parts card mode changes (all others are the Family game's).
CHANGED: Final = frozenset(i for i, (a, b) in enumerate(zip(SPACES, CARD_SPACES, strict=True))
                           if a != b)

_CARD_PILE_GOOD: Final = tuple(
    tuple(-1 if s == MEETING_PLACE else g for s, g in enumerate(row)) for row in PILE_GOOD)
_CARD_PILE_ADD: Final = tuple(
    tuple(0 if s == MEETING_PLACE else a for s, a in enumerate(row)) for row in PILE_ADD)
_CARD_PRINTED: Final = tuple(tuple(s for s in row if s != SIDE_JOB) for row in BOARD_SPACES)
_CARD_DEAD: Final = tuple(False if s in LESSONS_SPACES else d for s, d in enumerate(DEAD))
assert len(_CARD_PRINTED) == NUM_PLAYERS_MAX + 1


class CardBoard(Board):
    """The shared board of card mode: Lessons alive, Meeting Place without food, no Side
    Job. Everything else (the stage cards and their shuffle, the Well, the majors) is the
    Family game's board."""

    __slots__ = ()

    PILE_GOOD = _CARD_PILE_GOOD
    PILE_ADD = _CARD_PILE_ADD
    PRINTED = _CARD_PRINTED
    DEAD = _CARD_DEAD


__all__ = ["BUILD_ONE_MAJOR", "CARD_SPACES", "CHANGED", "LESSONS", "LESSONS_3P", "LESSONS_4P",
           "LESSONS_SPACES", "MAJOR_IMPROVEMENT", "MEETING_PLACE", "MOST_LESSONS_COST", "CardBoard",
           "lessons_cost"]
