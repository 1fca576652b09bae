"""A Stone Age position drawn as SVG, for the replay page: the village and hunting grounds
with the people on them, the civilisation cards and building piles, and each player's board
(food, resources, tools used or not, fields, people, huts, cards, the score track).

A pure function of a saved position: a seat's observation, or the referee's saved state, which
is read back into a state and shown as the observation of a seat who saw everything. Elements
that stand for things carry data attributes (``data-person``, ``data-member``, ``data-hut``,
``data-card``, ``data-facedown``, ``data-tool``, ``data-field``), so what is drawn can be
counted against the position.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from arena.engine.api import Game
from arena.engine.drawing import escape
from arena.engine.stoneage.state import StoneAgeState
from arena.engine.stoneage.views import building_info, card_info

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#e6a100")
GOODS = (("food", "#c9a227"), ("wood", "#8c564b"), ("clay", "#d9825b"), ("stone", "#8d8d8d"),
         ("gold", "#e8c21a"))
WIDTH = 1000
BOARD_H = 178


def _text(x: float, y: float, text: str, size: int = 12, anchor: str = "start",
          extra: str = "") -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}"{extra}>'
            f"{escape(text)}</text>")


def _people(x: float, y: float, counts: list[int], width: float) -> str:
    """One disc per person on a place, in its seat's colour, in rows within ``width``."""
    out, i = [], 0
    per_row = max(1, int(width // 14))
    for seat, n in enumerate(counts):
        for _ in range(n):
            cx, cy = x + 7 + 14 * (i % per_row), y + 7 + 14 * (i // per_row)
            out.append(f'<circle data-person="{seat}" cx="{cx:g}" cy="{cy:g}" r="5.5" '
                       f'fill="{COLOURS[seat]}" stroke="#222" stroke-width="0.8"/>')
            i += 1
    return "".join(out)


def _card_label(card_id: int) -> tuple[str, str]:
    info = card_info(card_id)
    top = info["top"]
    effect = str(top["effect"]).replace("_", " ")
    if "amount" in top:
        effect += f" {top['amount']}"
    if "good" in top and top["effect"] != "food":
        effect += f" {top['good']}"
    bottom = info["bottom"]
    below = (str(bottom["symbol"]) if "symbol" in bottom
             else f"{bottom['count']}× {str(bottom['figure']).replace('_', ' ')}")
    return effect, below


def _building_label(building_id: int) -> str:
    b = building_info(building_id)
    if b["kind"] == "fixed":
        cost = " ".join(f"{n}{k[0]}" for k, n in b["cost"].items() if n)
        return f"{cost} = {b['points']}"
    if b["kind"] == "variable":
        return f"{b['count']} of {b['kinds']} kinds"
    return "1-7 any"


def _village(board: Mapping[str, Any]) -> list[str]:
    out = []
    w = WIDTH / len(board["people"])
    for i, name in enumerate(board["people"]):
        x = i * w
        out.append(f'<g data-place="{escape(name)}"><rect x="{x + 2:g}" y="2" width="{w - 4:g}" '
                   f'height="96" rx="6" fill="#eef3e6" stroke="#9aa68a"/>'
                   + _text(x + w / 2, 18, name.replace("_", " "), 12, "middle")
                   + _people(x + 6, 26, list(board["people"][name]), w - 12) + "</g>")
    return out


def _display(board: Mapping[str, Any], referee: Mapping[str, Any] | None) -> list[str]:
    out = []
    for i, slot in enumerate(board["cards"]):
        x = i * 122
        parts = [f'<g data-slot="{slot["slot"]}"><rect x="{x + 2}" y="106" width="118" '
                 'height="112" rx="6" fill="#f6efe0" stroke="#b19a6a"/>',
                 _text(x + 8, 122, f"card {slot['slot']} · cost {slot['cost']}", 11)]
        if slot["card"] is not None:
            top, below = _card_label(slot["card"])
            parts.append(f'<g data-card="{slot["card"]}">' + _text(x + 8, 140, top, 11)
                         + _text(x + 8, 156, below, 11, extra=' font-style="italic"') + "</g>")
        parts.append(_people(x + 6, 162, list(slot["people"]), 108) + "</g>")
        out.append("".join(parts))
    out.append('<g data-deck="">' + _text(4 * 122 + 6, 126, f"deck {board['deck_size']}", 12)
               + "</g>")
    x0 = 4 * 122 + 70
    w = (WIDTH - x0) / max(1, len(board["buildings"]))
    for pile in board["buildings"]:
        x = x0 + pile["pile"] * w
        parts = [f'<g data-pile="{pile["pile"]}"><rect x="{x + 2:g}" y="106" width="{w - 4:g}" '
                 'height="112" rx="6" fill="#e9e4f2" stroke="#8e84a8"/>',
                 _text(x + 8, 122, f"huts: {pile['remaining']} left", 11)]
        if pile["top"] is not None:
            parts.append(f'<g data-building="{pile["top"]}">'
                         + _text(x + 8, 140, _building_label(pile["top"]), 11) + "</g>")
        if referee is not None:
            under = referee["piles"][pile["pile"]][referee["pile_pos"][pile["pile"]] + 1:]
            parts.append(_text(x + 8, 156, f"then {len(under)} more", 10,
                               extra=' fill="#777"'))
        parts.append(_people(x + 6, 162, list(pile["people"]), w - 12) + "</g>")
        out.append("".join(parts))
    return out


def _player(p: Mapping[str, Any], x: float, y: float, to_act: bool) -> str:
    s = p["seat"]
    colour = COLOURS[s]
    out = [f'<g data-seat="{s}"><rect x="{x + 2:g}" y="{y:g}" width="{WIDTH / 2 - 4:g}" '
           f'height="{BOARD_H - 6}" rx="8" fill="#fafafa" stroke="{colour}" '
           f'stroke-width="{3 if to_act else 1.5}"/>',
           _text(x + 12, y + 20, f"Seat {s}", 15, extra=f' fill="{colour}" font-weight="700"'),
           f'<g data-score="{p["score"]}">'
           + _text(x + WIDTH / 2 - 12, y + 20, f"score track {p['score']}", 13, "end") + "</g>"]
    for i, (good, fill) in enumerate(GOODS):
        gx = x + 12 + i * 76
        out.append(f'<rect data-good="{good}" data-count="{p[good]}" x="{gx:g}" y="{y + 30:g}" '
                   f'width="14" height="14" fill="{fill}"/>'
                   + _text(gx + 18, y + 42, f"{p[good]} {good}", 11))
    tx = x + 12
    out.append(_text(tx, y + 64, "tools", 11))
    free = list(p["tools_unused"])  # the values of the tools not used this round
    for i, value in enumerate(p["tools"]):
        used = value not in free
        if not used:
            free.remove(value)
        out.append(f'<g data-tool="{value}" data-used="{int(used)}"><rect x="{tx + 36 + i * 24:g}" '
                   f'y="{y + 52:g}" width="20" height="16" rx="3" '
                   f'fill="{"#ddd" if used else "#6b8e23"}" stroke="#444"/>'
                   + _text(tx + 46 + i * 24, y + 64, str(value), 11, "middle") + "</g>")
    for i, value in enumerate(p["one_use_tools"]):
        out.append(f'<g data-tool="{value}" data-once="1"><circle cx="{tx + 120 + i * 20:g}" '
                   f'cy="{y + 60:g}" r="8" fill="#b5cf6b" stroke="#444"/>'
                   + _text(tx + 120 + i * 20, y + 64, str(value), 10, "middle") + "</g>")
    fx = x + 250
    out.append(_text(fx, y + 64, "fields", 11))
    for i in range(10):
        field = i < p["agriculture"]
        mark = f' data-field="{i + 1}"' if field else ""
        out.append(f'<rect{mark} '
                   f'x="{fx + 38 + i * 17:g}" y="{y + 52:g}" width="14" height="14" '
                   f'fill="{"#9acd32" if field else "#f0f0f0"}" stroke="#888"/>')
    out.append(_text(tx, y + 90, f"people {p['people']} ({p['people_to_place']} to place)", 11))
    for i in range(p["people"]):
        home = i < p["people_to_place"]
        out.append(f'<circle data-member="{s}" data-home="{int(home)}" '
                   f'cx="{tx + 150 + i * 13:g}" cy="{y + 86:g}" r="5" '
                   f'fill="{colour if home else "#fff"}" stroke="{colour}" stroke-width="1.5"/>')
    out.append(_text(tx, y + 114, f"huts {p['buildings']} ({p['building_points']} points)", 11))
    for i in range(p["buildings"]):
        hx = tx + 150 + i * 16
        out.append(f'<path data-hut="{s}" d="M{hx:g} {y + 116:g}h12v-8l-6-6l-6 6z" '
                   f'fill="#a0522d" stroke="#333" stroke-width="0.8"/>')
    cards = [(c, False) for c in p["cards"]] + [(c, True) for c in p.get("hidden_card_list", [])]
    out.append(_text(tx, y + 138, f"cards {len(p['cards']) + p['hidden_cards']}"
                     f" ({p['card_points']} points from tops)", 11))
    for i, (card, hidden) in enumerate(cards):
        cx = tx + 175 + (i % 17) * 17
        cy = y + 128 + (i // 17) * 22
        _, below = _card_label(card)
        mark = ' data-hidden="1"' if hidden else ""
        out.append(f'<rect data-card="{card}"{mark} x="{cx:g}" y="{cy:g}" width="14" '
                   f'height="19" rx="2" fill="{"#c7b8e0" if hidden else "#f6efe0"}" '
                   f'stroke="#7a6a4a"><title>{escape(below)}</title></rect>')
    unseen = p["hidden_cards"] - len(p.get("hidden_card_list", []))
    for i in range(unseen):
        cx = tx + 175 + ((len(cards) + i) % 17) * 17
        cy = y + 128 + ((len(cards) + i) // 17) * 22
        out.append(f'<rect data-facedown="{s}" x="{cx:g}" y="{cy:g}" width="14" height="19" '
                   'rx="2" fill="#555" stroke="#222"/>')
    out.append("</g>")
    return "".join(out)


def draw_parts(game: Game, position: Mapping[str, Any], seat: int | None) -> list[str]:
    """The SVG of ``position`` (seat ``seat``'s observation, or the referee's saved state) as
    its top-level pieces, which join to the picture."""
    referee = None
    if seat is None:
        referee = position
        state = game.state_from_dict(position)
        assert isinstance(state, StoneAgeState)
        obs = state.observation(0)
        for p, entry in enumerate(obs["players"]):
            entry["hidden_card_list"] = list(state._hidden[p])  # the referee sees them all
    else:
        obs = dict(position)
    players = obs["players"]
    rows = (len(players) + 1) // 2
    height = 228 + rows * BOARD_H + 24
    head = (f"round {obs['round']} · {obs['phase']} · start player {obs['start_player']}"
            + (" · seen by the referee" if seat is None else f" · seen by seat {seat}"))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
             f'width="{WIDTH}" height="{height}" font-family="system-ui,sans-serif" '
             f'data-game="stoneage" data-viewer="{"referee" if seat is None else seat}">',
             *_board(obs["board"], referee),
             f"<g>{_text(4, 240, head, 13)}</g>"]
    for i, p in enumerate(players):
        parts.append(_player_panel(p, (i % 2) * WIDTH / 2, 250 + (i // 2) * BOARD_H,
                                   obs["current_player"] == p["seat"]))
    parts.append("</svg>")
    return parts


#: Pieces drawn before, by what they show: the board is the same for every seat's view of a
#: step, and a seat's panel the same for most viewers and from one step to the next, so most
#: of a replay's pictures are pieces drawn already. Cleared when full.
_DRAWN: dict[str, Any] = {}
_DRAWN_KEPT = 20_000


def _remembered(key: str, make: Callable[[], Any]) -> Any:
    drawn = _DRAWN.get(key)
    if drawn is None:
        if len(_DRAWN) >= _DRAWN_KEPT:
            _DRAWN.clear()
        drawn = _DRAWN[key] = make()
    return drawn


def _player_panel(p: Mapping[str, Any], x: float, y: float, to_act: bool) -> str:
    """:func:`_player`, remembered."""
    return str(_remembered(f"panel {x:g} {y:g} {to_act} {p!r}", lambda: _player(p, x, y, to_act)))


def _board(board: Mapping[str, Any], referee: Mapping[str, Any] | None) -> list[str]:
    """The village and the display (with what the referee alone sees under the piles' tops),
    remembered."""
    under = None if referee is None else (referee["piles"], referee["pile_pos"])
    return list(_remembered(f"board {under!r} {board!r}",
                            lambda: (*_village(board), *_display(board, referee))))
