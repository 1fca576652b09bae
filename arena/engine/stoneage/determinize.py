"""Build a full Stone Age state from one seat's observation (for search bots).

What a seat cannot know (ruling 12): the deck's order, the tiles under each pile's top, and the
cards other seats drew with the extra-card effect. Those are sampled uniformly from what the
seat has not seen; everything else is read from the observation. Future dice come from a fresh
seed drawn from the caller's generator.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.engine.api import Game
from arena.engine.chance import SeededChance
from arena.engine.stoneage.components import (
    BUILDINGS,
    CARD0,
    CARDS,
    GOODS,
    NUM_PLACES,
    PILE0,
    PILE_SIZE,
    PLACE_NAMES,
    TOOL_VALUES,
)
from arena.engine.stoneage.phases import (
    FEEDING,
    PD_BUILDING,
    PD_CARD,
    PD_FEED,
    PD_PICK,
    PD_TOOLS,
    PHASE_NAMES,
    PLACEMENT,
)
from arena.engine.stoneage.state import StoneAgeState


def determinize(game: Game, obs: Mapping[str, Any], rng: random.Random) -> StoneAgeState:
    """See :meth:`arena.engine.api.Game.determinize`.

    The sampled position is written in the state's save format and loaded through
    :meth:`StoneAgeState.from_dict`, so this module needs nothing of the state but that format.
    """
    if obs.get("game") != game.name or obs.get("rules_version") != game.rules_version:
        raise ValueError(f"not a {game.name} {game.rules_version} observation")
    if obs["phase"] == "game_over":
        raise ValueError("the game is over: there is nothing left to decide")
    n = obs["num_players"]
    seat = obs["seat"]
    board = obs["board"]
    players = obs["players"]
    chance = SeededChance(rng.getrandbits(63))
    start = obs["start_player"]
    phase = PHASE_NAMES.index(obs["phase"])
    cur = obs["current_player"]

    # Cards: the seat knows the display, every bought card and its own extra cards.
    display = [-1 if c["card"] is None else c["card"] for c in board["cards"]]
    own_hidden = list(players[seat]["hidden_card_list"])
    seen = {c for c in display if c >= 0} | {c for p in players for c in p["cards"]}
    unseen = [c for c in range(len(CARDS)) if c not in seen and c not in own_hidden]
    rng.shuffle(unseen)
    hidden: list[list[int]] = []
    for p, entry in enumerate(players):
        if p == seat:
            hidden.append(own_hidden)
        else:
            k = entry["hidden_cards"]
            hidden.append(unseen[:k])
            del unseen[:k]
    if len(unseen) != board["deck_size"]:
        raise ValueError("the observation's cards do not add up")

    # Buildings: tops and taken tiles are public; the rest of each pile is sampled.
    piles = board["buildings"]
    visible = {b for pile in piles for b in pile["taken"]} | {
        pile["top"] for pile in piles if pile["top"] is not None
    }
    hidden_tiles = [b for b in range(len(BUILDINGS)) if b not in visible]
    rng.shuffle(hidden_tiles)
    built: list[list[int]] = []
    for pile in piles:
        below = pile["remaining"] - 1 if pile["top"] is not None else 0
        tiles = [*pile["taken"], *([pile["top"]] if pile["top"] is not None else []),
                 *hidden_tiles[:below]]
        del hidden_tiles[:below]
        if len(tiles) != PILE_SIZE:
            raise ValueError("the observation's building piles do not add up")
        built.append(tiles)

    # People on the board (during placement, the totals and player counts follow from them).
    placed = [0] * (NUM_PLACES * n)
    for q, name in enumerate(PLACE_NAMES):
        for p, k in enumerate(board["people"][name]):
            placed[p * NUM_PLACES + q] = k
    for i, slot in enumerate(board["cards"]):
        for p, k in enumerate(slot["people"]):
            placed[p * NUM_PLACES + CARD0 + i] = k
    for j, pile in enumerate(piles):
        for p, k in enumerate(pile["people"]):
            placed[p * NUM_PLACES + PILE0 + j] = k

    pend = _pending(obs, n)
    turn = (cur - start) % n if phase != PLACEMENT else 0
    if pend is not None and pend[0] == PD_PICK:
        turn = (pend[3] - start) % n  # resolution goes on with the buyer
    if phase == FEEDING and pend is None:  # pragma: no cover - feeding always asks
        raise ValueError("a feeding observation without a feeding decision")

    # Players: all public.
    return StoneAgeState.from_dict(game, {
        "game": game.name,
        "rules_version": game.rules_version,
        "num_players": n,
        "chance": chance.to_dict(),
        "deck": unseen,
        "piles": built,
        "pend": pend,
        "round": obs["round"],
        "start": start,
        "phase": phase,
        "cur": cur,
        "turn": turn,
        "deck_pos": 0,
        "display": display,
        "pile_pos": [len(pile["taken"]) for pile in piles],
        "goods": [p[g] for p in players for g in GOODS],
        "people": [p["people"] for p in players],
        "avail": [p["people_to_place"] for p in players],
        "agri": [p["agriculture"] for p in players],
        "step": [TOOL_VALUES.index(tuple(p["tools"])) for p in players],
        "any2": [p["any_two_resources"] for p in players],
        "build_pts": [p["building_points"] for p in players],
        "top_pts": [p["card_points"] for p in players],
        "penalties": [p["penalties"] for p in players],
        "nbuild": [p["buildings"] for p in players],
        "placed": placed,
        "total": [sum(placed[p * NUM_PLACES + q] for p in range(n)) for q in range(NUM_PLACES)],
        "players_at": [sum(1 for p in range(n) if placed[p * NUM_PLACES + q])
                       for q in range(NUM_PLACES)],
        "rolls": [0] * n,
        "tfree": [p["tools_unused"] for p in players],
        "one_use": [p["one_use_tools"] for p in players],
        "cards": [p["cards"] for p in players],
        "hidden": hidden,
    })


def _pending(obs: Mapping[str, Any], n: int) -> Any:
    d = obs["decision"]
    kind = d["kind"]
    if kind in ("place", "resolve"):
        return None
    if kind == PD_TOOLS:
        return (PD_TOOLS, GOODS.index(d["good"]), tuple(d["dice"]), -1)
    if kind == PD_CARD:
        return (PD_CARD, CARD0 + d["slot"] - 1)
    if kind == PD_BUILDING:
        return (PD_BUILDING, PILE0 + d["pile"])
    if kind == PD_PICK:
        buyer, cur = d["buyer"], obs["current_player"]
        order = [(buyer + i) % n for i in range(n)]
        return (PD_PICK, tuple(d["dice"]), tuple(order[order.index(cur) + 1 :]), buyer)
    if kind == PD_FEED:
        return (PD_FEED, d["deficit"])
    raise ValueError(f"unknown decision {kind!r}")
