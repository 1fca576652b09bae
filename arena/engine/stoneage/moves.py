"""Stone Age action keys and their plain-dict form.

Inside the engine every action is named by a small int (its *key*): cheap to hash, which the
referee does for every key of every request, and equal across states and games. Each key
stands for a tuple, its *form* (``KEY_FORMS[key]``), whose first element is the opcode;
:func:`code_of` gives a form's key, made the first time the form is met (the keys a process
gives out follow the order forms were first met in, so they are not to be stored or sent: the
wire carries indices and action dicts). :func:`key_to_action` turns a key into the dict a bot
sees; the protocol document lists every dict shape.

Key forms (the first element is the opcode):

==============  =============================  ==========================================
opcode          form                           meaning
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

The placements are made first, so that ``(PLACE, place, people)`` is key
``place * 11 + people`` and every key below ``PLACE_KEYS_END`` is a placement; then the
resolves, up to ``RESOLVE_KEYS_END``. A payment table's keys are made together
(:func:`key_block`), so one payment may have a key in each of two tables.
"""

from __future__ import annotations

import threading
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

#: KEY_FORMS[key]: the form of each key given out so far (see :func:`code_of`).
KEY_FORMS: list[tuple[Any, ...]] = []
#: form -> key: the inverse of ``KEY_FORMS``.
_KEY_OF: dict[tuple[Any, ...], int] = {}


_GIVING = threading.Lock()


def code_of(form: tuple[Any, ...]) -> int:
    """The key of ``form``: the one given before for an equal form, else the next int (under
    a lock, so two threads never give one int to two forms; the engine's own tables call this
    only when they are first filled)."""
    key = _KEY_OF.get(form)
    if key is None:
        with _GIVING:
            key = _KEY_OF.get(form)
            if key is None:
                KEY_FORMS.append(form)
                key = _KEY_OF[form] = len(KEY_FORMS) - 1
    return key


def key_block(op: int, args: Sequence[Any]) -> tuple[int, ...]:
    """New keys for the forms ``(op, arg)`` of each of ``args``, in order, given out together
    without looking for equal forms given before (a payment table's, when first met: looking
    would cost more than the rest of its fill). So an action may have more than one key (a
    payment for a card and the same for a building), though a key never names two actions."""
    with _GIVING:
        first = len(KEY_FORMS)
        KEY_FORMS.extend([(op, a) for a in args])
        return tuple(range(first, len(KEY_FORMS)))


#: PLACE_KEYS[place][people] is the key for putting ``people`` on ``place``.
PLACE_KEYS: tuple[tuple[int, ...], ...] = tuple(
    tuple(code_of((PLACE, place, k)) for k in range(11)) for place in range(NUM_PLACES)
)
#: Every key below this is a placement's (they were given out first).
PLACE_KEYS_END = NUM_PLACES * 11
assert PLACE_KEYS[-1][-1] == PLACE_KEYS_END - 1
#: PLACE_RUNS[place][m] is the keys for putting 1..m people on ``place``.
PLACE_RUNS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(keys[1 : m + 1] for m in range(11)) for keys in PLACE_KEYS
)
RESOLVE_KEYS: tuple[int, ...] = tuple(code_of((RESOLVE, place)) for place in range(NUM_PLACES))
#: The resolve keys come next: ``(RESOLVE, place)`` is key ``PLACE_KEYS_END + place``.
RESOLVE_KEYS_END = PLACE_KEYS_END + NUM_PLACES
assert RESOLVE_KEYS[-1] == RESOLVE_KEYS_END - 1
#: RESOLVE_LISTS[mask]: the keys for resolving the places of ``mask`` (bit q: place q), in
#: place order, for each mask met so far (see :func:`resolve_keys`). Shared lists: never
#: modify one.
RESOLVE_LISTS: dict[int, list[int]] = {}
DECLINE_KEY = code_of((DECLINE,))
PENALTY_KEY = code_of((PENALTY,))
PICK_KEYS: tuple[int, ...] = tuple(code_of((PICK, face)) for face in range(7))
#: Not using tools: the first key of every tools decision, and of no other.
NO_TOOLS_KEY = code_of((TOOLS, (), ()))
#: Every way to turn the "any 2 resources" card into resources.
CLAIM_KEYS: list[int] = [code_of((CLAIM, c)) for c in CLAIMS]


#: _RESOLVE_BYTE[i][m]: the resolve keys of places 8 * i + j for each bit j of the byte m.
_RESOLVE_BYTE: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(RESOLVE_KEYS[8 * i + j] for j in range(8) if m >> j & 1) for m in range(256))
    for i in range(NUM_PLACES // 8)
)


def resolve_keys(mask: int) -> list[int]:
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


def key_to_action(key: int) -> dict[str, Any]:
    """The plain-dict action for ``key`` (a new dict every call)."""
    form = KEY_FORMS[key]
    op = form[0]
    if op == PLACE:
        return {"type": "place", **place_fields(form[1]), "people": form[2]}
    if op == RESOLVE:
        return {"type": "resolve", **place_fields(form[1])}
    if op == TOOLS:
        return tools_actions((key,))[0]
    if op == PAY:
        return {"type": "pay", **_resources(form[1])}
    if op == DECLINE:
        return {"type": "decline"}
    if op == CLAIM:
        return {"type": "claim_two_resources", **_resources(form[1])}
    if op == FEED:
        return {"type": "feed_with_resources", **_resources(form[1])}
    if op == PENALTY:
        return {"type": "take_penalty"}
    if op == PICK:
        return {"type": "pick_die", "face": form[1]}
    raise ValueError(f"unknown action key form {form!r}")  # pragma: no cover


#: The dict of every key met so far, but ``TOOLS`` keys (whose dicts hold lists), to be
#: copied: a copy is a new dict of the same immutable values, made faster than building it.
#: The keys are bounded (places, payments and feedings of at most a few resources).
_ACTION_DICTS: dict[int, dict[str, Any]] = {}


def _first_action(key: int) -> dict[str, Any]:
    """``key_to_action(key)``, remembering the dict for later copies unless it holds lists."""
    action = key_to_action(key)
    if KEY_FORMS[key][0] != TOOLS:
        _ACTION_DICTS[key] = action.copy()
    return action


def action_of_key(key: int) -> dict[str, Any]:
    """``key_to_action(key)``: a copy of the dict kept for ``key`` when it was met before (in
    any game of this process: a key names the same action in every state), else built."""
    got = _ACTION_DICTS.get(key)
    return got.copy() if got is not None else _first_action(key)


def tools_actions(keys: Sequence[int]) -> list[dict[str, Any]]:
    """The dicts of ``TOOLS`` keys, built (their lists are new every time)."""
    forms = KEY_FORMS
    return [{"type": "use_tools", "tools": [*forms[k][1]], "one_use_tools": [*forms[k][2]]}
            for k in keys]


#: The dict of a key met before (KeyError for any other), and a dict's copy: the two steps of
#: :func:`actions_of` where every key is known, which run in C.
known_action = _ACTION_DICTS.__getitem__
copy_action = dict.copy


def actions_of(keys: Sequence[int]) -> list[dict[str, Any]]:
    """``[key_to_action(k) for k in keys]``: new dicts equal to those. Where every key's dict
    is known they are copies, made in a loop that runs in C (a state's ``legal_actions``
    takes that path itself and comes here for the others)."""
    if keys and keys[0] == NO_TOOLS_KEY:  # a tools decision: its dicts are built every time
        return tools_actions(keys)
    try:
        return list(map(copy_action, map(known_action, keys)))
    except KeyError:
        return list(map(action_of_key, keys))
