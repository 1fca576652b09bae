"""Stone Age action keys and their plain-dict form.

Inside the engine every action is a small tuple (its *key*): cheap to build, hashable, and
equal across states. :func:`key_to_action` turns a key into the dict a bot sees; the protocol
document lists every dict shape.

Key shapes (the first element is the opcode):

==============  =============================  ==========================================
opcode          key                            meaning
==============  =============================  ==========================================
``PLACE``       ``(PLACE, place, people)``     put ``people`` on ``place`` (0..15)
``RESOLVE``     ``(RESOLVE, place)``           resolve one's own ``place`` next
``TOOLS``       ``(TOOLS, tools, one_use)``    add these tool values to the roll
``PAY``         ``(PAY, (w, c, s, g))``        buy the card or building with this payment
``DECLINE``     ``(DECLINE,)``                 take the people back without buying
``CLAIM``       ``(CLAIM, (w, c, s, g))``      turn the "any 2 resources" card into these
``FEED``        ``(FEED, (w, c, s, g))``       cover the food deficit with these resources
``PENALTY``     ``(PENALTY,)``                 lose 10 points instead of covering the deficit
``PICK``        ``(PICK, face)``               take one die of dice-for-everyone
==============  =============================  ==========================================
"""

from __future__ import annotations

from typing import Any

from arena.engine.stoneage.components import (
    CARD0,
    CLAIMS,
    NUM_PLACES,
    PILE0,
    PLACE_NAMES,
    RESOURCES,
)

PLACE, RESOLVE, TOOLS, PAY, DECLINE, CLAIM, FEED, PENALTY, PICK = range(9)

#: PLACE_KEYS[place][people] is the key for putting ``people`` on ``place``.
PLACE_KEYS: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple((PLACE, place, k) for k in range(11)) for place in range(NUM_PLACES)
)
RESOLVE_KEYS: tuple[tuple[int, int], ...] = tuple((RESOLVE, place) for place in range(NUM_PLACES))
DECLINE_KEY = (DECLINE,)
PENALTY_KEY = (PENALTY,)
PICK_KEYS: tuple[tuple[int, int], ...] = tuple((PICK, face) for face in range(7))
#: Every way to turn the "any 2 resources" card into resources.
CLAIM_KEYS: list[tuple[Any, ...]] = [(CLAIM, c) for c in CLAIMS]


def place_fields(place: int) -> dict[str, Any]:
    """The dict fields naming a place: ``place`` plus ``slot`` (card) or ``pile`` (building).

    Card slots are numbered by their cost: slot 1 is the rightmost, costing 1 resource.
    """
    if place >= PILE0:
        return {"place": "building", "pile": place - PILE0}
    if place >= CARD0:
        return {"place": "card", "slot": place - CARD0 + 1}
    return {"place": PLACE_NAMES[place]}


def _resources(pay: tuple[int, int, int, int]) -> dict[str, int]:
    return dict(zip(RESOURCES, pay, strict=True))


def key_to_action(key: tuple[Any, ...]) -> dict[str, Any]:
    """The plain-dict action for ``key`` (a new dict every call)."""
    op = key[0]
    if op == PLACE:
        return {"type": "place", **place_fields(key[1]), "people": key[2]}
    if op == RESOLVE:
        return {"type": "resolve", **place_fields(key[1])}
    if op == TOOLS:
        return {"type": "use_tools", "tools": list(key[1]), "one_use_tools": list(key[2])}
    if op == PAY:
        return {"type": "pay", **_resources(key[1])}
    if op == DECLINE:
        return {"type": "decline"}
    if op == CLAIM:
        return {"type": "claim_two_resources", **_resources(key[1])}
    if op == FEED:
        return {"type": "feed_with_resources", **_resources(key[1])}
    if op == PENALTY:
        return {"type": "take_penalty"}
    if op == PICK:
        return {"type": "pick_die", "face": key[1]}
    raise ValueError(f"unknown action key {key!r}")
