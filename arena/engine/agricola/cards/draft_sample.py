"""Determinizing a drafted game (ruling C11 of ``RULES.md``): a whole draft, and the hands it
leads to, consistent with everything one seat saw, drawn uniformly among such drafts.

Each pack is followed by where it was dealt (its origin o): at pass j seat (o + j) mod n takes
card x_j from it. What the seat saw of pack o fixes it piece by piece:

- before the seat first saw it, the cards taken (x_0 .. x_{f-1}) are unseen, as is the whole
  pack if it never reached the seat;
- between two sightings at passes a < b, the cards that left (the first sighting less what the
  seat took less the second sighting) went one to each seat that held the pack in between, in
  order: the b - a - 1 seats after this one; which card to whom is unknown;
- after its last sighting, what it left in the pack went one to each later holder so far, and
  the rest is still in the pack.

Cards known to have been drafted by a seat (it played them, or passed them on first as a
traveling minor) go to that seat's place in their segment, or, if this seat never saw them, to
one of that seat's unseen places. Every other card the seat never saw is dealt uniformly to
the unseen places; what is left over stays in the box.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.engine.agricola.cards.draft import FIELDS, KINDS, PASSES, Draft, hands_after
from arena.engine.agricola.cards.hands import pool

_PLAYED: tuple[str, str] = ("occupations", "minors")
_HAND: tuple[str, str] = ("hand_occupations", "hand_minors")


def sample_cards(obs: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """The full ``"cards"`` section of a state consistent with ``obs``, a drafted game's
    observation: a draft drawn uniformly among those that show the seat what it saw, and the
    hands that follow from it."""
    seat, n = obs["seat"], obs["num_players"]
    cards = obs["cards"]
    ps = cards["players"]
    view = cards["drafting"]
    k = view["pass"]
    seen = view["seen"]
    if [s["pass"] for s in seen] != list(range(min(k + 1, PASSES))) \
            or any(s["from"] != (seat - s["pass"]) % n for s in seen):
        raise ValueError("the draft's sightings do not follow the passes")
    passed = [(str(c), int(g)) for c, g in cards["passed"]]
    packs, picks = [], []
    for kind, field in enumerate(FIELDS):
        drafter: dict[str, int] = {}
        for q in range(n):
            for c in ps[q][_PLAYED[kind]]:
                drafter[c] = q
        for c, giver in reversed(passed):  # a traveling minor's first giver drafted it
            drafter[c] = giver
        # Cards taken from pack o so far: during the draft its holder's count (nothing is
        # played yet), all of them after it.
        counts = ([ps[(o + k) % n][_HAND[kind]] for o in range(n)] if k < PASSES
                  else [PASSES] * n)
        dealt, taken = _sample_kind(kind, field, n, seat, seen, counts, drafter, rng)
        packs.append(dealt)
        picks.append(taken)
    draft = Draft.from_dict(n, {"packs": {f: [list(p) for p in packs[i]]
                                          for i, f in enumerate(FIELDS)},
                                "picks": {f: [list(p) for p in picks[i]]
                                          for i, f in enumerate(FIELDS)}})
    hands = [hands_after([draft.drafted(kind, q) for q in range(n)],
                         [tuple(x[_PLAYED[kind]]) for x in ps],
                         passed if kind else [])
             for kind in range(len(KINDS))]
    return {
        "draft": cards["draft"],
        "players": [{"hand_occupations": list(hands[0][q]), "hand_minors": list(hands[1][q]),
                     "occupations": ps[q]["occupations"], "minors": ps[q]["minors"]}
                    for q in range(n)],
        "passed": cards["passed"],
        "drafting": draft.to_dict(),
    }


def _sample_kind(kind: int, field: str, n: int, seat: int, seen: list[Mapping[str, Any]],
                 counts: list[int], drafter: dict[str, int], rng: random.Random
                 ) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """One kind's packs (as dealt, sorted) and picks (in order) for every origin."""
    slots: list[list[str | None]] = [[None] * counts[o] for o in range(n)]
    rest: list[list[str]] = [[] for _ in range(n)]
    unseen_slots: list[tuple[int, int]] = []  # (origin, pass) whose card the seat never saw
    unseen_rest: list[int] = []  # an origin once per card left in a pack the seat never saw
    visible: set[str] = set()
    by_origin: dict[int, list[Mapping[str, Any]]] = {}
    for s in seen:
        by_origin.setdefault(s["from"], []).append(s)
        visible.update(s[field])
    for o in range(n):
        sights = by_origin.get(o, [])
        first = sights[0]["pass"] if sights else counts[o]
        unseen_slots += [(o, j) for j in range(first)]
        if not sights:
            unseen_rest += [o] * (PASSES - counts[o])
            continue
        for i, s in enumerate(sights):
            j, took = s["pass"], s["took"][kind]
            left = set(s[field]) - {took}
            if took is not None:
                slots[o][j] = took
            start = j + 1 if took is not None else j
            if i + 1 < len(sights):
                nxt = sights[i + 1]
                segment = sorted(left - set(nxt[field]))
                places = list(range(start, nxt["pass"]))
            else:
                segment = sorted(left)
                places = list(range(start, counts[o]))
            if len(segment) < len(places) or (i + 1 < len(sights)
                                              and len(segment) != len(places)):
                raise ValueError(f"pack {o}'s {field} lost cards its holders did not take")
            free = []
            for c in segment:
                q = drafter.get(c)
                if q is None:
                    free.append(c)
                    continue
                place = next((j for j in places if (o + j) % n == q), None)
                if place is None or slots[o][place] is not None:
                    raise ValueError(f"{c} cannot have been taken by seat {q}")
                slots[o][place] = c
            rng.shuffle(free)
            for j in places:
                if slots[o][j] is None:
                    slots[o][j] = free.pop()
            rest[o] += free
    unseen = [c for c in pool(KINDS[kind], n) if c not in visible]
    pinned = sorted(c for c in unseen if c in drafter and drafter[c] != seat)
    for c in pinned:
        q = drafter[c]
        spots = [(o, j) for o, j in unseen_slots if (o + j) % n == q]
        if not spots:
            raise ValueError(f"seat {q} cannot have drafted {c}")
        o, j = spots[rng.randrange(len(spots))]
        slots[o][j] = c
        unseen_slots.remove((o, j))
    free = [c for c in unseen if c not in drafter]
    rng.shuffle(free)
    if len(free) < len(unseen_slots) + len(unseen_rest):
        raise ValueError(f"too few unseen {field} for the packs")
    for o, j in unseen_slots:
        slots[o][j] = free.pop()
    for o in unseen_rest:
        rest[o].append(free.pop())
    taken = tuple(tuple(c for c in row if c is not None) for row in slots)
    if any(len(t) != counts[o] for o, t in enumerate(taken)):
        raise ValueError(f"the seat's own {field} disagree with its sightings")
    dealt = tuple(tuple(sorted((*taken[o], *rest[o]))) for o in range(n))
    return dealt, taken
