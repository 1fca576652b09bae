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

from collections.abc import Sequence
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
#: PLACE_RUNS[place][m] is the keys for putting 1..m people on ``place``.
PLACE_RUNS: tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...] = tuple(
    tuple(keys[1 : m + 1] for m in range(11)) for keys in PLACE_KEYS
)
RESOLVE_KEYS: tuple[tuple[int, int], ...] = tuple((RESOLVE, place) for place in range(NUM_PLACES))
#: RESOLVE_LISTS[mask]: the keys for resolving the places of ``mask`` (bit q: place q), in
#: place order, for each mask met so far (see :func:`resolve_keys`). Shared lists: never
#: modify one.
RESOLVE_LISTS: dict[int, list[tuple[int, int]]] = {}
DECLINE_KEY = (DECLINE,)
PENALTY_KEY = (PENALTY,)
PICK_KEYS: tuple[tuple[int, int], ...] = tuple((PICK, face) for face in range(7))
#: Every way to turn the "any 2 resources" card into resources.
CLAIM_KEYS: list[tuple[Any, ...]] = [(CLAIM, c) for c in CLAIMS]


#: _RESOLVE_BYTE[i][m]: the resolve keys of places 8 * i + j for each bit j of the byte m.
_RESOLVE_BYTE: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(
    tuple(tuple(k for k in RESOLVE_KEYS[8 * i : 8 * i + 8] if m >> (k[1] - 8 * i) & 1)
          for m in range(256))
    for i in range(NUM_PLACES // 8)
)


def resolve_keys(mask: int) -> list[tuple[int, int]]:
    """``RESOLVE_LISTS[mask]``, made the first time it is asked for."""
    got = RESOLVE_LISTS.get(mask)
    if got is None:
        got = RESOLVE_LISTS[mask] = [*_RESOLVE_BYTE[0][mask & 255], *_RESOLVE_BYTE[1][mask >> 8]]
    return got


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
        return tools_actions((key,))[0]
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


#: The dict of every key met so far, but ``TOOLS`` keys (whose dicts hold lists), to be
#: copied: a copy is a new dict of the same immutable values, made faster than building it.
#: The keys are bounded (places, payments and feedings of at most a few resources).
_ACTION_DICTS: dict[tuple[Any, ...], dict[str, Any]] = {}


def _first_action(key: tuple[Any, ...]) -> dict[str, Any]:
    """``key_to_action(key)``, remembering the dict for later copies unless it holds lists."""
    action = key_to_action(key)
    if key[0] != TOOLS:
        _ACTION_DICTS[key] = action.copy()
    return action


def action_of_key(key: tuple[Any, ...]) -> dict[str, Any]:
    """``key_to_action(key)``: a copy of the dict kept for ``key`` when it was met before (in
    any game of this process: a key names the same action in every state), else built."""
    got = _ACTION_DICTS.get(key)
    return got.copy() if got is not None else _first_action(key)


def tools_actions(keys: Sequence[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """The dicts of ``TOOLS`` keys, built (their lists are new every time)."""
    return [{"type": "use_tools", "tools": [*a], "one_use_tools": [*b]} for _, a, b in keys]


#: The dict of a key met before (KeyError for any other), and a dict's copy: the two steps of
#: :func:`actions_of` where every key is known, which run in C.
known_action = _ACTION_DICTS.__getitem__
copy_action = dict.copy


def actions_of(keys: Sequence[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """``[key_to_action(k) for k in keys]``: new dicts equal to those. Where every key's dict
    is known they are copies, made in a loop that runs in C (a state's ``legal_actions``
    takes that path itself and comes here for the others)."""
    if keys and keys[0][0] == TOOLS:  # a tools decision: its dicts are built every time
        return tools_actions(keys)
    try:
        return list(map(copy_action, map(known_action, keys)))
    except KeyError:
        return list(map(action_of_key, keys))
