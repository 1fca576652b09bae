"""Scenario helpers for Stone Age rule tests.

Build a position with scripted dice and a chosen deck/building order, edit any field through the
save format, and act with plain dicts, the same way a bot would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from arena.engine import ScriptedChance
from arena.engine.stoneage import STONE_AGE, StoneAgeState
from arena.engine.stoneage.components import BUILDINGS, CARDS, PILE_SIZE


def order_with(first: Iterable[int], size: int) -> list[int]:
    """A permutation of range(size) starting with ``first``, the rest ascending."""
    head = list(first)
    return head + [i for i in range(size) if i not in head]


def new_game(
    players: int,
    dice: Iterable[int] = (),
    display: Iterable[int] = (),
    deck: Iterable[int] = (),
    piles: Iterable[Iterable[int]] = (),
) -> StoneAgeState:
    """A new game with scripted dice.

    ``display`` lists the card ids for slots 1..4 (slot 1 costs 1), ``deck`` the card ids that
    follow them from the top of the deck; ``piles`` gives, per pile, the building ids from the
    top down (unlisted positions are filled with unused ids).
    """
    cards = order_with([*display, *deck], len(CARDS))
    pile_lists = [list(p) for p in piles]
    used = {b for p in pile_lists for b in p}
    spare = iter(b for b in range(len(BUILDINGS)) if b not in used)
    buildings: list[int] = []
    for j in range(4):
        chosen = pile_lists[j] if j < len(pile_lists) else []
        buildings += chosen + [next(spare) for _ in range(PILE_SIZE - len(chosen))]
    chance = ScriptedChance(list(dice), {"deck": cards, "buildings": buildings})
    state = STONE_AGE.new_state(players, chance=chance)
    assert isinstance(state, StoneAgeState)
    return state


def edit(state: StoneAgeState, change: Callable[[dict[str, Any]], None]) -> StoneAgeState:
    """A copy of ``state`` with ``change`` applied to its save-format dict."""
    data = state.to_dict()
    change(data)
    new = STONE_AGE.state_from_dict(data)
    assert isinstance(new, StoneAgeState)
    return new


GOOD_INDEX = {"food": 0, "wood": 1, "clay": 2, "stone": 3, "gold": 4}


def with_player(state: StoneAgeState, seat: int, **fields: Any) -> StoneAgeState:
    """Set a player's goods (food/wood/clay/stone/gold), ``people``, ``agri``, tool ``step``,
    ``one_use`` (tuple of values), ``any2``, ``cards``/``hidden`` (card ids) or ``nbuild``.

    Only use this at the start of a round's placement (people to place follow ``people``).
    """

    def change(d: dict[str, Any]) -> None:
        from arena.engine.stoneage.components import TOOL_VALUES

        for key, value in fields.items():
            if key in GOOD_INDEX:
                d["goods"][seat * 5 + GOOD_INDEX[key]] = value
            elif key == "people":
                d["people"][seat] = value
                d["avail"][seat] = value
            elif key == "step":
                d["step"][seat] = value
                d["tfree"][seat] = list(TOOL_VALUES[value])
            elif key in ("one_use", "cards", "hidden"):
                d[key][seat] = list(value)
            elif key in ("agri", "any2", "nbuild", "build_pts", "top_pts", "penalties"):
                d[key][seat] = value
            else:
                raise KeyError(f"unknown player field {key!r}")

    return edit(state, change)


def act(state: StoneAgeState, type: str, **fields: Any) -> None:
    """Apply the action ``{"type": type, **fields}``; raises IllegalActionError if not offered."""
    state.apply({"type": type, **fields})


def offered(state: StoneAgeState, type: str | None = None) -> list[dict[str, Any]]:
    """The legal actions, optionally only those of one type."""
    return [a for a in state.legal_actions() if type is None or a["type"] == type]


def player(state: StoneAgeState, seat: int) -> dict[str, Any]:
    """The public record of ``seat`` as its own observation shows it."""
    return state.observation(seat)["players"][seat]


def place(state: StoneAgeState, where: str, people: int = 1, **extra: Any) -> None:
    """Shorthand for a placement action."""
    act(state, "place", place=where, **extra, people=people)


def card_id(top: str, **match: Any) -> int:
    """The first card id whose top effect is ``top`` and whose fields match ``match``."""
    for i, c in enumerate(CARDS):
        if c.top == top and all(getattr(c, k) == v for k, v in match.items()):
            return i
    raise LookupError(f"no card with top {top!r} {match!r}")
