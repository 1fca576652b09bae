"""An Agricola position drawn as SVG, for the replay page: the action spaces in play with
their occupants and goods, the revealed round cards, the major improvements left, and each
farmyard (rooms by material, fields and their crops, fences, pastures, stables, the animals
where they live); in card mode, each player's played cards and hand sizes.

A pure function of a saved position (a seat's observation or the referee's saved state, which
have the same shape). Elements that stand for things carry data attributes (``data-person``,
``data-room``, ``data-field``, ``data-fence``, ``data-pasture``, ``data-stable``,
``data-animal``, ``data-major``, ``data-occupation``, ``data-minor``), so what is drawn can be
counted against the position.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from arena.engine.agricola.components import MAJORS, SPACES
from arena.engine.drawing import escape

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#e6a100", "#9467bd")
ROOMS = {"wood": "#c8a165", "clay": "#d9825b", "stone": "#9a9a9a"}
ANIMALS = {"sheep": "#ffffff", "boar": "#333333", "cattle": "#8b4513"}
GOODS = ("wood", "clay", "reed", "stone", "grain", "vegetable", "food")
WIDTH, CELL, COLS, ROWS = 1000, 54, 5, 3
FARM_W = WIDTH / 2


def _text(x: float, y: float, text: str, size: int = 11, anchor: str = "start",
          extra: str = "") -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}"{extra}>'
            f"{escape(text)}</text>")


@cache
def _space_name(space: int) -> str:
    return str(SPACES[space].name) if 0 <= space < len(SPACES) else f"space {space}"


def _major_name(major: int) -> str:
    return str(MAJORS[major].name) if 0 <= major < len(MAJORS) else f"major {major}"


def _board(board: Mapping[str, Any]) -> tuple[list[str], float]:
    out = []
    occupants: dict[int, list[int]] = {}
    for space, seat in board["occupants"]:
        occupants.setdefault(space, []).append(seat)
    goods: dict[int, list[str]] = {}
    for space, good, n in board["accumulated"]:
        if n:
            goods.setdefault(space, []).append(f"{n} {good}")
    revealed = {space: i + 1 for i, space in enumerate(board["revealed"])}
    w, h = WIDTH / 8, 62
    for i, space in enumerate(board["spaces"]):
        x, y = (i % 8) * w, (i // 8) * h
        card = space in revealed
        mark = f' data-round="{revealed[space]}"' if card else ""
        parts = [f'<g data-space="{space}"{mark}><rect x="{x + 2:g}" y="{y + 2:g}" '
                 f'width="{w - 4:g}" height="{h - 4}" rx="5" '
                 f'fill="{"#fdf3d8" if card else "#eef3e6"}" stroke="#9aa68a"/>',
                 _text(x + 6, y + 15, _space_name(space), 10, extra=' font-weight="600"')]
        if card:
            parts.append(_text(x + w - 6, y + 15, f"r{revealed[space]}", 9, "end",
                               ' fill="#8a6d1d"'))
        if space in goods:
            parts.append(_text(x + 6, y + 30, ", ".join(goods[space]), 10))
        for j, seat in enumerate(occupants.get(space, [])):
            parts.append(f'<circle data-person="{seat}" cx="{x + 12 + 14 * j:g}" '
                         f'cy="{y + 45:g}" r="6" fill="{COLOURS[seat % 5]}" stroke="#222"/>')
        parts.append("</g>")
        out.append("".join(parts))
    y = ((len(board["spaces"]) + 7) // 8) * h + 4
    majors = ['<g data-majors="">'
              + _text(4, y + 12, "Majors left:", 11, extra=' font-weight="600"')]
    for j, major in enumerate(board["majors"]):
        x = 80 + (j % 6) * 150
        majors.append(f'<g data-major="{major}">'
                      + _text(x, y + 12 + (j // 6) * 14, _major_name(major), 10) + "</g>")
    majors.append("</g>")
    out.append("".join(majors))
    hidden = board.get("hidden_cards", [])
    if hidden:
        out.append("<g>" + _text(WIDTH - 4, y + 30 + 14 * ((len(board["majors"]) - 1) // 6),
                                 f"{len(hidden)} round cards to come", 10, "end") + "</g>")
    return out, y + 14 * ((len(board["majors"]) + 5) // 6) + 16


def _cell_xy(cell: int) -> tuple[float, float]:
    r, c = divmod(cell, COLS)
    return c * CELL, r * CELL


def _edge(edge: int) -> tuple[float, float, float, float]:
    """The line of fence edge ``edge`` (horizontal 0-19, vertical 20-37) in the farm's frame."""
    if edge < 20:
        r, c = divmod(edge, COLS)
        return c * CELL, r * CELL, (c + 1) * CELL, r * CELL
    r, c = divmod(edge - 20, COLS + 1)
    return c * CELL, r * CELL, c * CELL, (r + 1) * CELL


def _homes(farm: Mapping[str, Any], pastures: Sequence[Sequence[int]],
           herd: Mapping[str, int]) -> list[tuple[list[int], str, int]]:
    """Where the animals live: (cells, kind, count) for each pasture given a kind, each
    unfenced stable and the house pet, the most animals placed (the pastures' kinds tried in
    every way); any left over come last with no cells."""
    stables = set(farm["stables"])
    fenced = {c for p in pastures for c in p}
    caps = [2 * len(p) << len(stables & set(p)) for p in pastures]
    kinds = [k for k in ANIMALS if herd.get(k, 0)]
    best: tuple[int, tuple[str, ...]] = (-1, ())
    choices: Any = (itertools.product(kinds or ["sheep"], repeat=len(pastures))
                    if len(pastures) <= 7 else  # too many to try: the kinds in turn
                    [tuple((kinds or ["sheep"])[i % max(1, len(kinds))]
                           for i in range(len(pastures)))])
    for pick in choices:
        kept = sum(min(herd.get(k, 0), sum(c for c, q in zip(caps, pick, strict=True) if q == k))
                   for k in ANIMALS)
        if kept > best[0]:
            best = (kept, tuple(pick))
    left = dict(herd)
    out: list[tuple[list[int], str, int]] = []
    for cells, cap, kind in zip(pastures, caps, best[1], strict=True):
        n = min(cap, left.get(kind, 0))
        left[kind] = left.get(kind, 0) - n
        out.append((list(cells), kind, n))
    spots = [[c] for c in sorted(stables - fenced)]
    if farm["rooms"]:
        spots.append([farm["rooms"][0]])  # the house pet
    for spot in spots:
        for kind in ANIMALS:
            if left.get(kind, 0):
                out.append((spot, kind, 1))
                left[kind] -= 1
                break
    out.extend(([], k, n) for k, n in left.items() if n > 0)
    return out


def _farm(p: Mapping[str, Any], cards: Mapping[str, Any] | None, x0: float, y0: float,
          to_act: bool) -> str:
    s = p["seat"]
    farm, goods = p["farm"], p["goods"]
    colour = COLOURS[s % 5]
    gx, gy = x0 + 10, y0 + 28
    out = [f'<g data-seat="{s}"><rect x="{x0 + 2:g}" y="{y0:g}" width="{FARM_W - 4:g}" '
           f'height="{_farm_height(cards) - 6}" rx="8" fill="#fafafa" stroke="{colour}" '
           f'stroke-width="{3 if to_act else 1.5}"/>',
           _text(x0 + 10, y0 + 19, f"Seat {s}", 14,
                 extra=f' fill="{colour}" font-weight="700"'),
           _text(x0 + FARM_W - 12, y0 + 19, f"score {p.get('score', '?')}", 12, "end")]
    for cell in range(COLS * ROWS):
        cx, cy = _cell_xy(cell)
        out.append(f'<rect x="{gx + cx + 1:g}" y="{gy + cy + 1:g}" width="{CELL - 2}" '
                   f'height="{CELL - 2}" fill="#e4efd4" stroke="#c9d6b6"/>')
    for i, cells in enumerate(p["pastures"]):
        for cell in cells:
            cx, cy = _cell_xy(cell)
            out.append(f'<rect data-pasture="{i}" x="{gx + cx + 1:g}" y="{gy + cy + 1:g}" '
                       f'width="{CELL - 2}" height="{CELL - 2}" fill="#b9e08f"/>')
    for cell in farm["rooms"]:
        cx, cy = _cell_xy(cell)
        out.append(f'<rect data-room="{escape(farm["house"])}" x="{gx + cx + 3:g}" '
                   f'y="{gy + cy + 3:g}" width="{CELL - 6}" height="{CELL - 6}" rx="3" '
                   f'fill="{ROOMS.get(farm["house"], "#ccc")}" stroke="#555"/>')
    for cell, crop, n in farm["fields"]:
        cx, cy = _cell_xy(cell)
        out.append(f'<rect data-field="{escape(str(crop or ""))}" x="{gx + cx + 3:g}" '
                   f'y="{gy + cy + 3:g}" width="{CELL - 6}" height="{CELL - 6}" '
                   'fill="#a67c52" stroke="#6b4f2f"/>')
        for j in range(n):
            fill = "#f2d16b" if crop == "grain" else "#f28c28"
            out.append(f'<circle data-{escape(str(crop))}="1" '
                       f'cx="{gx + cx + 10 + (j % 4) * 11:g}" '
                       f'cy="{gy + cy + 12 + (j // 4) * 12:g}" r="4" fill="{fill}" '
                       'stroke="#333" stroke-width="0.6"/>')
    for cell in farm["stables"]:
        cx, cy = _cell_xy(cell)
        out.append(f'<path data-stable="1" d="M{gx + cx + CELL - 18:g} {gy + cy + CELL - 4:g}'
                   'h14v-9l-7-6l-7 6z" fill="#7f5539" stroke="#333" stroke-width="0.8"/>')
    herd = {k: goods.get(k, 0) for k in ANIMALS}
    spare = 0
    for cells, kind, n in _homes(farm, p["pastures"], herd):
        for j in range(n):
            if cells:
                cx, cy = _cell_xy(cells[j % len(cells)])
                k = j // len(cells)
                ax, ay = gx + cx + 9 + (k % 4) * 10, gy + cy + 30 + (k // 4) * 9 % 20
            else:
                ax, ay = gx + 10 + spare * 10, gy + ROWS * CELL + 10
                spare += 1
            out.append(f'<circle data-animal="{kind}" cx="{ax:g}" cy="{ay:g}" r="4" '
                       f'fill="{ANIMALS[kind]}" stroke="#222" stroke-width="0.8"/>')
    for edge in farm["fences"]:
        x1, y1, x2, y2 = _edge(edge)
        out.append(f'<line data-fence="{edge}" x1="{gx + x1:g}" y1="{gy + y1:g}" '
                   f'x2="{gx + x2:g}" y2="{gy + y2:g}" stroke="#5a3a1a" stroke-width="4" '
                   'stroke-linecap="round"/>')
    tx = gx + COLS * CELL + 12
    lines = [f"{goods.get(g, 0)} {g}" for g in GOODS]
    lines += [f"{goods.get(k, 0)} {k}" for k in ANIMALS]
    lines.append(f"people {p['people']} (+{p.get('newborns', 0)} new), "
                 f"{p.get('people_to_place', 0)} to place")
    if p.get("begging"):
        lines.append(f"begging cards {p['begging']}")
    for j, line in enumerate(lines):  # the goods and animals in two columns, then a line each
        lx, row = (tx + (j % 2) * 95, j // 2) if j < 10 else (tx, j - 5)
        out.append(_text(lx, gy + 10 + row * 14, line, 10))
    for j, major in enumerate(p["majors"]):
        out.append(f'<g data-major="{major}" data-owner="{s}">'
                   + _text(tx, gy + 122 + j * 12, _major_name(major), 10,
                           extra=' font-style="italic"') + "</g>")
    if cards is not None:
        out.append(_cards(cards, gx, gy + ROWS * CELL + 22))
    out.append("</g>")
    return "".join(out)


def _cards(cards: Mapping[str, Any], x: float, y: float) -> str:
    """Played occupations and minor improvements, and the hand (its cards where the viewer
    sees them, else its size)."""
    out = []
    for j, (kind, ids) in enumerate((("occupation", cards["occupations"]),
                                     ("minor", cards["minors"]))):
        row = [f'<g data-{kind}="{c}">'
               f'<rect x="{x + 80 + i * 26:g}" y="{y + j * 20 - 11:g}" width="24" height="15" '
               f'rx="2" fill="{"#f7e3b5" if kind == "occupation" else "#d8e8f5"}" '
               f'stroke="#777"/>{_text(x + 92 + i * 26, y + j * 20, str(c), 9, "middle")}</g>'
               for i, c in enumerate(ids)]
        out.append(_text(x, y + j * 20, f"{kind}s {len(ids)}", 10) + "".join(row))
    hand = cards["hand"]
    seen = " ".join(str(c) for c in hand["cards"]) if hand["cards"] is not None else ""
    out.append(f'<g data-hand="{hand["occupations"]},{hand["minors"]}">'
               + _text(x, y + 40, f"hand: {hand['occupations']} occupations, {hand['minors']} "
                                  f"minors{' (' + seen + ')' if seen else ''}", 10) + "</g>")
    return "".join(out)


def _farm_height(cards: Mapping[str, Any] | None) -> int:
    return 28 + ROWS * CELL + (78 if cards is not None else 28)


def _seat_cards(position: Mapping[str, Any], seat: int | None) -> list[dict[str, Any] | None]:
    """Each player's cards as drawn, from either shape of the ``cards`` section (None for a
    Family game)."""
    n = len(position["players"])
    section = position.get("cards")
    if not isinstance(section, Mapping):
        return [None] * n
    out: list[dict[str, Any] | None] = []
    for p, entry in enumerate(section.get("players", [])):
        if seat is None:  # the referee's saved state holds every hand
            occs, minors = list(entry["hand_occupations"]), list(entry["hand_minors"])
            hand = {"occupations": len(occs), "minors": len(minors), "cards": occs + minors}
        elif p == seat:
            occs = list(section.get("hand_occupations", []))
            minors = list(section.get("hand_minors", []))
            hand = {"occupations": len(occs), "minors": len(minors), "cards": occs + minors}
        else:
            hand = {"occupations": entry["hand_occupations"], "minors": entry["hand_minors"],
                    "cards": None}
        out.append({"occupations": entry["occupations"], "minors": entry["minors"],
                    "hand": hand})
    return out + [None] * (n - len(out))


def draw_parts(position: Mapping[str, Any], seat: int | None) -> list[str]:
    """The SVG of ``position`` (seat ``seat``'s observation, or the referee's saved state) as
    its top-level pieces, which join to the picture."""
    board, players = position["board"], position["players"]
    cards = _seat_cards(position, seat)
    parts, y = _board(board)
    head = (f"round {position['round']} · {position['phase']}"
            + (" · seen by the referee" if seat is None else f" · seen by seat {seat}"))
    parts.append(f"<g>{_text(4, y + 4, head, 12)}</g>")
    y += 12
    tall = _farm_height(cards[0])
    for i, p in enumerate(players):
        parts.append(_farm(p, cards[i], (i % 2) * FARM_W, y + (i // 2) * tall,
                           position.get("current_player") == p["seat"]))
    height = y + ((len(players) + 1) // 2) * tall + 8
    return [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height:g}" '
            f'width="{WIDTH}" height="{height:g}" font-family="system-ui,sans-serif" '
            f'data-game="agricola" data-viewer="{"referee" if seat is None else seat}">',
            *parts, "</svg>"]
