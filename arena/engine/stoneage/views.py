"""What a seat sees of a Stone Age state: the per-seat observation, and the component tables
that observations refer to by id."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

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
from arena.engine.stoneage.phases import (
    OVER,
    PD_BUILDING,
    PD_CARD,
    PD_FEED,
    PD_PICK,
    PD_TOOLS,
    PHASE_NAMES,
)
from arena.engine.stoneage.state_base import StoneAgeStateBase


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


class ObservationView(StoneAgeStateBase):
    """The per-seat observation of a state."""

    __slots__ = ()

    def observation(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know (ruling 12): all but the deck order, the buildings under
        each pile's top, the other seats' extra cards, and the game's seed.

        Cards and buildings are given by id (the game's ``components()`` table describes every id),
        with each player's culture symbols and figures counted over the cards this seat can see: its
        own extra cards included, other players' extra cards not.
        """
        n = self._n
        if type(seat) is not int or not 0 <= seat < n:
            raise ValueError(f"seat {seat!r} is not in 0..{n - 1}")
        placed = self._placed  # seat p's people on place q at p * NUM_PLACES + q
        people = {PLACE_NAMES[q]: placed[q::NUM_PLACES] for q in range(8)}
        cards = []
        for i in range(4):
            cid = self._display[i]
            cards.append({
                "slot": i + 1,
                "cost": i + 1,
                "card": cid if cid >= 0 else None,
                "people": placed[CARD0 + i::NUM_PLACES],
            })
        buildings = []
        for j in range(n):
            pos = self._pile_pos[j]
            buildings.append({
                "pile": j,
                "remaining": PILE_SIZE - pos,
                "top": self._piles[j][pos] if pos < PILE_SIZE else None,
                "taken": list(self._piles[j][:pos]),  # bought tiles, in order: public
                "people": placed[PILE0 + j::NUM_PLACES],
            })
        players = []
        goods = self._goods
        for p in range(n):
            b = p * 5
            known = self._cards[p] + self._hidden[p] if p == seat else self._cards[p]
            culture, figures = _counts(known)
            entry: dict[str, Any] = {
                "seat": p,
                "food": goods[b], "wood": goods[b + 1], "clay": goods[b + 2],
                "stone": goods[b + 3], "gold": goods[b + 4],
                "people": self._people[p],
                "people_to_place": self._avail[p],
                "agriculture": self._agri[p],
                "tools": list(TOOL_VALUES[self._step[p]]),
                "tools_unused": list(self._tfree[p]),
                "one_use_tools": list(self._one_use[p]),
                "any_two_resources": self._any2[p],
                "score": self.running_score(p),
                "building_points": self._build_pts[p],
                "card_points": self._top_pts[p],
                "penalties": self._penalties[p],
                "buildings": self._nbuild[p],
                "cards": list(self._cards[p]),
                "hidden_cards": len(self._hidden[p]),
                "culture": culture,
                "figures": figures,
            }
            if p == seat:
                entry["hidden_card_list"] = list(self._hidden[p])
            players.append(entry)
        return {
            "game": self._game.name,
            "rules_version": self._game.rules_version,
            "seat": seat,
            "num_players": n,
            "round": self._round,
            "phase": PHASE_NAMES[self._phase],
            "start_player": self._start,
            "current_player": self.current_player,
            "decision": self._decision(),
            "board": {
                "people": people,
                "cards": cards,
                "deck_size": len(self._deck) - self._deck_pos,
                "buildings": buildings,
            },
            "players": players,
        }

    def _decision(self) -> dict[str, Any] | None:
        """The decision now asked for, as plain data (None when the game is over)."""
        if self._phase == OVER:
            return None
        seat = self._cur
        pend = self._pend
        if pend is None:
            kind = "place" if self._phase == 0 else "resolve"
            return {"kind": kind, "seat": seat}
        k = pend[0]
        if k == PD_TOOLS:
            dice = list(pend[2])
            return {"kind": k, "seat": seat, "good": GOODS[pend[1]], "dice": dice, "sum": sum(dice)}
        if k == PD_CARD:
            slot = pend[1] - CARD0
            return {
                "kind": k, "seat": seat, "slot": slot + 1, "cost": slot + 1,
                "card": self._display[slot],
            }
        if k == PD_BUILDING:
            j = pend[1] - PILE0
            return {
                "kind": k, "seat": seat, "pile": j,
                "building": self._piles[j][self._pile_pos[j]],
            }
        if k == PD_PICK:
            return {"kind": k, "seat": seat, "dice": list(pend[1]), "buyer": pend[3]}
        if k == PD_FEED:
            return {"kind": k, "seat": seat, "deficit": pend[1]}
        raise AssertionError(f"unknown pending decision {pend!r}")  # pragma: no cover
