"""Scenario helpers for the Agricola game-state tests.

A position is built the way the brief recommends: take a new game's ``to_dict()``, edit the
round, the stage order, the piles, the occupants and each seat's holding, and load it with
``state_from_dict``. Farms are drawn with the farm's own legal moves (``farm(...)``), so a test
never hands the engine a farmyard the rules cannot reach. Actions are plain dicts, as a bot
sends them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from arena.engine import get_game
from arena.engine.agricola.board import PILE_ADD, PILE_GOOD
from arena.engine.agricola.components import (
    BOARD_SPACES,
    GOODS,
    MAJOR_KEYS,
    SPACE_ID,
    STAGE_CARDS,
    stage_of_round,
)
from arena.engine.agricola.farm import GRAIN as FARM_GRAIN
from arena.engine.agricola.farm import VEGETABLE as FARM_VEGETABLE
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.state import AgricolaState

GAME = get_game("agricola")


def new(n: int, seed: int = 0) -> AgricolaState:
    """A new ``n``-player game."""
    s = GAME.new_state(n, seed=seed)
    assert isinstance(s, AgricolaState)
    return s


def sid(key: str) -> int:
    """A space's id by its key."""
    return SPACE_ID[key]


def mid(key: str) -> int:
    """A major's id by its key."""
    return MAJOR_KEYS.index(key)


def order_with(*keys: str) -> list[int]:
    """A stage order (round r's card at index r - 1) with the named cards first in their
    stages, in the order given; the rest of each stage in the components' order."""
    wanted = [sid(k) for k in keys]
    order: list[int] = []
    for cards in STAGE_CARDS:
        first = [c for c in wanted if c in cards]
        order.extend(first + [c for c in cards if c not in first])
    return order


def farm(rooms: Iterable[int] = (), fields: Iterable[int] = (), stables: Iterable[int] = (),
         pastures: Iterable[Iterable[int]] = (), house: str = "wood",
         sown: Mapping[int, str] | None = None) -> Farm:
    """A farm built with legal moves: extra rooms and fields in the order given (each next to
    the last ones), stables, then pastures (one pasture per cell list, in order), the house
    renovated to ``house``, and ``sown`` fields (cell -> "grain" or "vegetable")."""
    f = Farm()
    for c in rooms:
        f.build_room(c)
    for c in fields:
        f.plough(c)
    for c in stables:
        f.build_stable(c)
    for cells in pastures:
        f.build_pasture(sum(1 << c for c in cells))
    for _ in range(("wood", "clay", "stone").index(house)):
        f.renovate()
    for c, crop in (sown or {}).items():
        f.sow(c, FARM_GRAIN if crop == "grain" else FARM_VEGETABLE)
    return f


def position(n: int = 2, *, rnd: int = 1, order: list[int] | None = None, start: int = 0,
             round_start: int | None = None, cur: int | None = None, phase: str = "place",
             seats: Mapping[int, Mapping[str, Any]] | None = None,
             piles: Mapping[str, int] | None = None,
             occupants: Iterable[tuple[str, int]] = (),
             majors_on_board: Iterable[int] | None = None,
             well: Iterable[tuple[int, int, int]] = (),
             decision: Mapping[str, Any] | None = None, seed: int = 0) -> AgricolaState:
    """A settled position in round ``rnd`` of an ``n``-player game.

    ``seats[p]`` may give ``goods`` (a dict; goods not named are 0), ``farm`` (a :class:`Farm`),
    ``majors`` (ids), ``people``, ``newborns``, ``home`` (people still to place; default all)
    and ``begging``. Unnamed seats keep a new game's holding. Each accumulation space in play
    holds one round's goods unless ``piles`` names it (by key). ``start`` holds the token;
    ``round_start`` (default ``start``) began the round; ``cur`` (default ``round_start``)
    acts. ``occupants`` are (space key, seat)."""
    d = GAME.new_state(n, seed=seed).to_dict()
    order = order if order is not None else order_with()
    b = d["board"]
    b["order"] = order
    b["round"] = d["round"] = rnd
    b["revealed"] = order[:rnd]
    b["hidden_cards"] = sorted(order[rnd:])
    b["spaces"] = list(BOARD_SPACES[n]) + order[:rnd]
    b["start_player"] = start
    named = {sid(k): v for k, v in (piles or {}).items()}
    b["accumulated"] = [
        [s, GOODS[PILE_GOOD[n][s]], named.get(s, PILE_ADD[n][s])]
        for s in b["spaces"] if PILE_GOOD[n][s] >= 0
    ]
    b["occupants"] = [[sid(k), p] for k, p in occupants]
    if majors_on_board is not None:
        b["majors"] = sorted(majors_on_board)
    b["well"] = [list(w) for w in well]
    rs = start if round_start is None else round_start
    d["round_start_player"] = rs
    d["phase"] = phase
    d["current_player"] = rs if cur is None else cur
    d["decision"] = dict(decision) if decision is not None else {"kind": phase}
    for p, spec in (seats or {}).items():
        pd = d["players"][p]
        if "goods" in spec:
            pd["goods"] = {g: spec["goods"].get(g, 0) for g in GOODS}
        if "farm" in spec:
            pd["farm"] = spec["farm"].to_dict()
        for name, field in (("majors", "majors"), ("people", "people"),
                            ("newborns", "newborns"), ("begging", "begging")):
            if name in spec:
                pd[field] = list(spec[name]) if name == "majors" else spec[name]
        pd["people_to_place"] = spec.get("home", pd["people"])
    s = GAME.state_from_dict(d)
    assert isinstance(s, AgricolaState)
    return s


def offered(s: AgricolaState) -> list[dict[str, Any]]:
    """The legal actions now."""
    return s.legal_actions()


def places(s: AgricolaState) -> list[str]:
    """The keys of the spaces the current player may place on (empty unless placing)."""
    from arena.engine.agricola.components import SPACE_KEYS

    return [SPACE_KEYS[a["space"]] for a in s.legal_actions() if a["type"] == "place"]


def types(s: AgricolaState) -> set[str]:
    """The action types offered now."""
    return {a["type"] for a in s.legal_actions()}


def place(s: AgricolaState, key: str) -> None:
    s.apply({"type": "place", "space": sid(key)})


def act(s: AgricolaState, typ: str, **kw: Any) -> None:
    s.apply({"type": typ, **kw})


def goods(s: AgricolaState, seat: int) -> dict[str, int]:
    return dict(zip(GOODS, s._goods[seat], strict=True))


def all_but(*owned: int) -> list[int]:
    """The majors on the board when ``owned`` are built."""
    return [m for m in range(10) if m not in owned]


def finished(players: list[dict[str, Any]]) -> AgricolaState:
    """A finished game (after round 14's harvest), one seat per holding: ``goods``, ``farm``,
    ``majors``, ``people`` (default 2) and ``begging``, as in :func:`position`."""
    n = len(players)
    d = GAME.new_state(n, seed=0).to_dict()
    order = d["board"]["order"]
    d["round"] = d["board"]["round"] = 14
    d["board"].update(revealed=order, hidden_cards=[], accumulated=[],
                      spaces=[*BOARD_SPACES[n], *order])
    d["phase"], d["current_player"], d["decision"] = "over", None, None
    taken: set[int] = set()
    for p, spec in enumerate(players):
        pd = d["players"][p]
        pd["goods"] = {g: spec.get("goods", {}).get(g, 0) for g in GOODS}
        pd["farm"] = spec.get("farm", Farm()).to_dict()
        pd["majors"] = list(spec.get("majors", []))
        taken |= set(pd["majors"])
        pd["people"] = spec.get("people", 2)
        pd["people_to_place"] = 0
        pd["begging"] = spec.get("begging", 0)
    d["board"]["majors"] = all_but(*taken)
    s = GAME.state_from_dict(d)
    assert isinstance(s, AgricolaState) and s.is_terminal
    return s


def stage_ok(order: list[int]) -> bool:
    """Whether every round's card belongs to that round's stage."""
    return all(order[r - 1] in STAGE_CARDS[stage_of_round(r) - 1] for r in range(1, 15))
