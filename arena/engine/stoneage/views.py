"""Plain-data views of a Stone Age state: the per-seat observation and the full save format."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from arena.engine.chance import chance_from_dict
from arena.engine.stoneage.components import (
    B_FIXED,
    BUILDINGS,
    CARD0,
    CARDS,
    FIGURES,
    GOODS,
    NUM_PLACES,
    PILE0,
    PILE_SIZE,
    PLACE_NAMES,
    RESOURCES,
    SYMBOLS,
    TOOL_VALUES,
    payment_points,
)
from arena.engine.stoneage.state import (
    OVER,
    PD_BUILDING,
    PD_CARD,
    PD_FEED,
    PD_PICK,
    PD_TOOLS,
    PHASE_NAMES,
)

if TYPE_CHECKING:
    from arena.engine.stoneage.game import StoneAgeGame
    from arena.engine.stoneage.state import StoneAgeState


def card_info(card_id: int) -> dict[str, Any]:
    """A civilization card as plain data: its id, top effect and scoring bottom."""
    c = CARDS[card_id]
    top: dict[str, Any] = {"effect": c.top}
    if c.amount:
        top["amount"] = c.amount
    if c.top in ("food", "resource", "roll_two_dice"):
        top["good"] = GOODS[c.good]
    bottom: dict[str, Any] = (
        {"symbol": SYMBOLS[c.symbol]}
        if c.symbol >= 0
        else {"figure": FIGURES[c.figure], "count": c.figures}
    )
    return {"id": card_id, "top": top, "bottom": bottom}


def building_info(building_id: int) -> dict[str, Any]:
    """A building tile as plain data: its id, kind and cost rule."""
    b = BUILDINGS[building_id]
    if b.kind == B_FIXED:
        return {
            "id": building_id,
            "kind": b.kind,
            "cost": dict(zip(RESOURCES, b.cost, strict=True)),
            "points": payment_points(b.cost),
        }
    if b.kind == "variable":
        return {"id": building_id, "kind": b.kind, "count": b.size, "kinds": b.kinds}
    return {"id": building_id, "kind": b.kind, "min": 1, "max": 7}


def components() -> dict[str, Any]:
    """The static component tables: every card and building by id."""
    return {
        "cards": [card_info(i) for i in range(len(CARDS))],
        "buildings": [building_info(i) for i in range(len(BUILDINGS))],
    }


def _decision(s: StoneAgeState) -> dict[str, Any] | None:
    if s._phase == OVER:
        return None
    seat = s._cur
    pend = s._pend
    if pend is None:
        kind = "place" if s._phase == 0 else "resolve"
        return {"kind": kind, "seat": seat}
    k = pend[0]
    if k == PD_TOOLS:
        dice = list(pend[2])
        return {"kind": k, "seat": seat, "good": GOODS[pend[1]], "dice": dice, "sum": sum(dice)}
    if k == PD_CARD:
        slot = pend[1] - CARD0
        return {
            "kind": k, "seat": seat, "slot": slot + 1, "cost": slot + 1,
            "card": s._display[slot],
        }
    if k == PD_BUILDING:
        j = pend[1] - PILE0
        return {
            "kind": k, "seat": seat, "pile": j,
            "building": s._piles[j][s._pile_pos[j]],
        }
    if k == PD_PICK:
        return {"kind": k, "seat": seat, "dice": list(pend[1]), "buyer": pend[3]}
    if k == PD_FEED:
        return {"kind": k, "seat": seat, "deficit": pend[1]}
    raise AssertionError(f"unknown pending decision {pend!r}")  # pragma: no cover


def _counts(cards: tuple[int, ...]) -> tuple[dict[str, int], dict[str, int]]:
    """Culture symbols and figures on ``cards``, as fresh dicts. Only what the cards show
    appears: most entries would be zero, in every request."""
    culture, figures = _shared_counts(cards)
    return dict(culture), dict(figures)


@lru_cache(maxsize=20_000)
def _shared_counts(cards: tuple[int, ...]) -> tuple[dict[str, int], dict[str, int]]:
    """``_counts`` memoized (hands repeat a lot); never hand these dicts out."""
    culture: dict[str, int] = {}
    figures: dict[str, int] = {}
    for cid in cards:
        card = CARDS[cid]
        if card.symbol >= 0:
            name = SYMBOLS[card.symbol]
            culture[name] = culture.get(name, 0) + 1
        else:
            name = FIGURES[card.figure]
            figures[name] = figures.get(name, 0) + card.figures
    return culture, figures


def observation(s: StoneAgeState, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may know (ruling 12): all but the deck order, the buildings under
    each pile's top, the other seats' extra cards, and the game's seed.

    Cards and buildings are given by id (the game's ``components()`` table describes every id),
    with each player's culture symbols and figures counted over the cards this seat can see: its
    own extra cards included, other players' extra cards not.
    """
    n = s._n
    if type(seat) is not int or not 0 <= seat < n:
        raise ValueError(f"seat {seat!r} is not in 0..{n - 1}")
    placed = s._placed
    people = {
        PLACE_NAMES[q]: [placed[p * NUM_PLACES + q] for p in range(n)] for q in range(8)
    }
    cards = []
    for i in range(4):
        cid = s._display[i]
        cards.append({
            "slot": i + 1,
            "cost": i + 1,
            "card": cid if cid >= 0 else None,
            "people": [placed[p * NUM_PLACES + CARD0 + i] for p in range(n)],
        })
    buildings = []
    for j in range(n):
        pos = s._pile_pos[j]
        buildings.append({
            "pile": j,
            "remaining": PILE_SIZE - pos,
            "top": s._piles[j][pos] if pos < PILE_SIZE else None,
            "taken": list(s._piles[j][:pos]),  # bought tiles, in order: public
            "people": [placed[p * NUM_PLACES + PILE0 + j] for p in range(n)],
        })
    players = []
    goods = s._goods
    for p in range(n):
        b = p * 5
        known = s._cards[p] + s._hidden[p] if p == seat else s._cards[p]
        culture, figures = _counts(known)
        entry: dict[str, Any] = {
            "seat": p,
            "food": goods[b], "wood": goods[b + 1], "clay": goods[b + 2],
            "stone": goods[b + 3], "gold": goods[b + 4],
            "people": s._people[p],
            "people_to_place": s._avail[p],
            "agriculture": s._agri[p],
            "tools": list(TOOL_VALUES[s._step[p]]),
            "tools_unused": list(s._tfree[p]),
            "one_use_tools": list(s._one_use[p]),
            "any_two_resources": s._any2[p],
            "score": s.running_score(p),
            "building_points": s._build_pts[p],
            "card_points": s._top_pts[p],
            "penalties": s._penalties[p],
            "buildings": s._nbuild[p],
            "cards": list(s._cards[p]),
            "hidden_cards": len(s._hidden[p]),
            "culture": culture,
            "figures": figures,
        }
        if p == seat:
            entry["hidden_card_list"] = list(s._hidden[p])
        players.append(entry)
    return {
        "game": s._game.name,
        "rules_version": s._game.rules_version,
        "seat": seat,
        "num_players": n,
        "round": s._round,
        "phase": PHASE_NAMES[s._phase],
        "start_player": s._start,
        "current_player": s.current_player,
        "decision": _decision(s),
        "board": {
            "people": people,
            "cards": cards,
            "deck_size": len(s._deck) - s._deck_pos,
            "buildings": buildings,
        },
        "players": players,
    }


# ---------------------------------------------------------------------------- save format
_LIST_FIELDS = (
    "display", "pile_pos", "goods", "people", "avail", "agri", "step", "any2", "build_pts",
    "top_pts", "penalties", "nbuild", "placed", "total", "players_at", "rolls",
)
_TUPLE_LIST_FIELDS = ("tfree", "one_use", "cards", "hidden")
_INT_FIELDS = ("round", "start", "phase", "cur", "turn", "deck_pos")


def _plain(x: Any) -> Any:
    return [_plain(v) for v in x] if isinstance(x, tuple | list) else x


def _frozen(x: Any) -> Any:
    return tuple(_frozen(v) for v in x) if isinstance(x, list) else x


def state_to_dict(s: StoneAgeState) -> dict[str, Any]:
    """The complete state (hidden parts and chance source included) as plain data."""
    d: dict[str, Any] = {
        "game": s._game.name,
        "rules_version": s._game.rules_version,
        "num_players": s._n,
        "chance": s._chance.to_dict(),
        "deck": list(s._deck),
        "piles": [list(p) for p in s._piles],
        "pend": _plain(s._pend),
    }
    for f in _INT_FIELDS:
        d[f] = getattr(s, "_" + f)
    for f in _LIST_FIELDS:
        d[f] = list(getattr(s, "_" + f))
    for f in _TUPLE_LIST_FIELDS:
        d[f] = [list(t) for t in getattr(s, "_" + f)]
    return d


def state_from_dict(
    cls: type[StoneAgeState], game: StoneAgeGame, data: Mapping[str, Any]
) -> StoneAgeState:
    """Rebuild a state saved by :func:`state_to_dict`. ValueError if it is malformed."""
    if data.get("game") != game.name:
        raise ValueError(f"not a {game.name} state: game is {data.get('game')!r}")
    if data.get("rules_version") != game.rules_version:
        raise ValueError(
            f"state was saved under rules {data.get('rules_version')!r}, "
            f"this engine is {game.rules_version!r}"
        )
    try:
        s = cls.__new__(cls)
        s._game = game
        s._n = int(data["num_players"])
        s._chance = chance_from_dict(data["chance"])
        s._deck = tuple(int(c) for c in data["deck"])
        s._piles = tuple(tuple(int(b) for b in p) for p in data["piles"])
        s._pend = _frozen(data["pend"])
        for f in _INT_FIELDS:
            setattr(s, "_" + f, int(data[f]))
        for f in _LIST_FIELDS:
            setattr(s, "_" + f, [int(v) for v in data[f]])
        for f in _TUPLE_LIST_FIELDS:
            setattr(s, "_" + f, [tuple(int(v) for v in t) for t in data[f]])
        s._moves = s._pending_options()
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"malformed {game.name} state: {exc!r}") from exc
    return s
