"""``arena view``: one recorded game as a self-contained HTML page that steps through it.

The page is one file: inline styles, one inline script (``view_script.js`` beside this
module) and the game itself, a :class:`~arena.report.film.Film` as JSON, deflated and written
in base64, which the browser inflates with its own ``DecompressionStream``: no network and no
library. The same record gives the same page byte for byte.

Every string from the record (bot names, game ids, actions) reaches the page as data that
the script puts in as text, or through :func:`html.escape`; the pictures are the game's own
SVG (:meth:`arena.engine.api.Game.draw`), which escapes what it draws.
"""

from __future__ import annotations

import base64
import json
import zlib
from html import escape
from importlib.resources import files

from arena.report.film import film
from arena.runner.game.record import GameRecord

#: Written into every page; a page of another version is written again by ``arena report``.
VIEW_VERSION = "arena-view 1"

_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;
background:#fff;margin:0 auto;max-width:1500px;padding:12px 18px 40px}
h1{font-size:21px;margin:4px 0}p.note{color:#5a6375;margin:2px 0 8px}
.bar{display:flex;flex-wrap:wrap;gap:6px 10px;align-items:center;padding:6px 0;
position:sticky;top:0;background:#fff;z-index:2;border-bottom:1px solid #dde1e8}
.bar input[type=range]{flex:1 1 300px}button,select{font:inherit}
#where{font-weight:600;margin:6px 0}
.main{display:grid;grid-template-columns:minmax(0,1fr) 380px;gap:16px;align-items:start}
@media (max-width:1000px){.main{grid-template-columns:1fr}}
#board svg{display:block;max-width:100%;height:auto}
#board details{margin-left:14px}#board summary{cursor:pointer}#board .leaf{margin-left:14px}
#board .key{color:#5a6375}#board .v{font-family:ui-monospace,monospace}
code.action{display:block;white-space:pre-wrap;word-break:break-word;background:#f4f6f9;
padding:4px 6px;font-size:12px}
.bad{color:#b2182b;font-weight:600}.muted{color:#5a6375}
table{border-collapse:collapse;width:100%}th,td{padding:2px 6px;border-bottom:1px solid #eceff3;
text-align:right;vertical-align:top}th{background:#f4f6f9}.l{text-align:left}
td.parts{font-size:12px;color:#5a6375}tr.acting td{background:#fff6d5}
"""


def _script() -> str:
    return files("arena.report").joinpath("view_script.js").read_text(encoding="utf-8")


def view_page(record: GameRecord) -> str:
    """The replay page of ``record``; ValueError if the engine cannot replay it."""
    f = film(record)
    data = json.dumps(f.to_data(), separators=(",", ":"), ensure_ascii=False)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    packed = packer.compress(data.encode("utf-8")) + packer.flush()
    text = base64.b64encode(packed).decode("ascii")
    lines = "\n".join(text[i:i + 120] for i in range(0, len(text), 120))
    title = escape(f"{f.title}: {record.game_id}")
    seats = ", ".join(f"seat {s}: {escape(str(seat.get('bot', '?')))}"
                      for s, seat in enumerate(record.seats))
    options = "".join(f", {escape(k)} = {escape(v)}" for k, v in sorted(record.options.items()))
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta name="generator" content="{VIEW_VERSION}">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>{title}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{title}</h1>",
        f'<p class="note">{escape(record.game)} ({escape(record.rules_version)}{options}), '
        f"seed {record.seed}, {len(record.decisions)} decisions; {seats}. Keys: ← → step, "
        "Home/End, space plays or pauses.</p>",
        '<div class="bar"><button id="first" title="first step (Home)">|◀</button>'
        '<button id="prev" title="back one step (←)">◀</button>'
        '<button id="next" title="on one step (→)">▶</button>'
        '<button id="last" title="last step (End)">▶|</button>'
        '<input id="slider" type="range" min="0" max="0" value="0" aria-label="step">'
        '<button id="play" title="play or pause (space)">▶ play</button>'
        '<select id="speed" aria-label="speed"><option value="1">1 step/s</option>'
        '<option value="2">2 steps/s</option><option value="4" selected>4 steps/s</option>'
        '<option value="8">8 steps/s</option><option value="16">16 steps/s</option>'
        '<option value="32">32 steps/s</option></select>'
        '<label>seen by <select id="viewer"></select></label>'
        '<select id="round" aria-label="jump to a round"></select>'
        '<select id="seat" aria-label="seat"></select>'
        '<button id="seat-next">its next decision</button>'
        '<button id="failure">next failure</button></div>',
        '<div id="where"></div><div class="main"><div id="board"></div><div>'
        '<h3>Decision</h3><div id="decision"></div>'
        '<h3>Scores so far</h3><table id="scores"><thead><tr><th>Seat</th>'
        '<th class="l">Bot</th><th>Score</th><th class="l">Breakdown</th></tr></thead>'
        "<tbody></tbody></table></div></div>",
        f'<script type="application/octet-stream" id="film">\n{lines}\n</script>',
        f"<script>{_script()}</script></body></html>",
    ]) + "\n"
