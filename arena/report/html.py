"""``arena report``: one self-contained HTML page of a tournament, from its journal.

The page needs nothing but itself: the styles are inline, every chart is an SVG drawn here,
and the only script sorts the tables when a heading is clicked. It shows the standings, a
crosstable heat map, each bot's TrueSkill rating over the games, the distribution of each
bot's final scores, the Plackett–Luce strengths and seat advantage with their intervals (the
figures of ``arena stats``), and every game linked to its record.

Every string from the journal (bot names, game ids, the tournament's name) is untrusted: it
goes through :func:`html.escape` on its way into the page. Links to records are relative to
the page's own folder, so the folder and its page can be moved together. The same journal
gives the same page byte for byte: nothing in it comes from the clock or a global generator.

The TrueSkill replay is the cost of a large journal (the same as ``arena standings``); the
rating curves keep at most :data:`CURVE_POINTS` samples per bot whatever the games.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from urllib.parse import quote

from arena.protocol.messages import Termination
from arena.results import GameOutcome
from arena.runner.play.journal import Progress
from arena.runner.play.ratings import RatingTracker, Standings
from arena.stats import text
from arena.stats.common import Interval
from arena.stats.match import Match
from arena.stats.summary import TournamentStats, tournament_stats
from arena.stats.tables import HeadToHead

Scale = Callable[[float], float]

#: The most samples of each bot's rating curve.
CURVE_POINTS = 500

#: Line colours (a colour-blind-safe categorical set); past them the dash pattern changes.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
DASHES = ("", "6 3", "2 3", "10 3 2 3")

_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;
background:#fff;margin:0 auto;max-width:1240px;padding:16px 20px 48px}
h1{font-size:24px;margin:8px 0 4px}h2{font-size:19px;margin:32px 0 8px;
border-bottom:1px solid #dde1e8;padding-bottom:4px}
p.note{color:#5a6375;margin:4px 0 10px;max-width:1000px}
dl.meta{display:grid;grid-template-columns:max-content auto;gap:2px 16px;margin:8px 0}
dl.meta dt{color:#5a6375}dl.meta dd{margin:0}
table{border-collapse:collapse;margin:6px 0}
th,td{padding:3px 9px;border-bottom:1px solid #eceff3;text-align:right;white-space:nowrap}
th{background:#f4f6f9;font-weight:600;position:sticky;top:0}
th.l,td.l{text-align:left}td.bot{max-width:260px;overflow:hidden;text-overflow:ellipsis}
table.sortable th{cursor:pointer}table.sortable th:hover{background:#e6eaf0}
.ci{color:#7a8294;font-size:12px}
svg.chart{display:block;max-width:100%;height:auto;margin:6px 0;background:#fff}
svg text{font-family:system-ui,sans-serif;fill:#1d2330}
ul.legend{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:4px 18px}
ul.legend li{display:flex;align-items:center;gap:6px}
details summary{cursor:pointer;color:#2a5db0;margin:6px 0}
.games td{padding:1px 8px;font-size:13px;text-align:left}.games td:first-child{text-align:right}
"""

_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var up = th.getAttribute("data-dir") !== "up";
      th.setAttribute("data-dir", up ? "up" : "down");
      function key(row) {
        var cell = row.cells[col];
        var v = cell ? (cell.getAttribute("data-v") || cell.textContent) : "";
        var n = parseFloat(v);
        return isNaN(n) ? v.toLowerCase() : n;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var c = (typeof x === typeof y) ? (x < y ? -1 : x > y ? 1 : 0)
                                         : (typeof x === "number" ? -1 : 1);
        return up ? c : -c;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


@dataclass(frozen=True)
class RatingCurves:
    """Each bot's TrueSkill mu and sigma after ``games[k]`` games, for every sample k."""

    games: list[int]
    mu: dict[str, list[float]]
    sigma: dict[str, list[float]]


def rating_curves(bots: Sequence[str], outcomes: Sequence[GameOutcome],
                  points: int = CURVE_POINTS) -> tuple[RatingCurves, Standings]:
    """Replay ``outcomes`` in journal order through the standings' TrueSkill, sampling every
    bot's rating at most ``points`` times (evenly over the games, the last game always), and
    the standings after all of them (one replay gives both)."""
    tracker = RatingTracker(bots)
    n = len(outcomes)
    step = max(1, math.ceil(n / max(1, points - 1)))
    curves = RatingCurves([0], {b: [] for b in bots}, {b: [] for b in bots})
    for b in bots:
        mu, sigma = tracker.rating(b)
        curves.mu[b].append(mu)
        curves.sigma[b].append(sigma)
    for k, o in enumerate(outcomes, start=1):
        tracker.add(o)
        if k % step == 0 or k == n:
            curves.games.append(k)
            for b in bots:
                mu, sigma = tracker.rating(b)
                curves.mu[b].append(mu)
                curves.sigma[b].append(sigma)
    return curves, tracker.standings()


def build_report(progress: Progress, folder: Path, output: Path, complete: bool,
                 replicates: int = 200, seed: int = 0) -> str:
    """The page of the tournament whose journal gave ``progress`` (read with its records),
    to be written at ``output``: record links are relative to ``output``'s folder."""
    outcomes = progress.outcomes
    bots = list(dict.fromkeys([*progress.bots, *(b for o in outcomes for b in o.bots)]))
    curves, standings = rating_curves(bots, outcomes)
    stats = tournament_stats(outcomes, bots, replicates=replicates, seed=seed)
    order = [s.name for s in standings.bots]
    colours = {b: i for i, b in enumerate(order)}
    title = escape(progress.name or folder.name)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>{title}: tournament report</title><style>{_STYLE}</style></head><body>",
        f"<h1>{title}</h1>",
        _header(progress, complete),
        _standings(standings),
        _crosstable(stats.head_to_head, order),
        _ratings(curves, order, colours),
        _scores(outcomes, order, colours),
        _strengths(stats),
        _elo(stats.matches),
        _seats(stats),
        _games(outcomes, progress.records, folder, output),
        f"<script>{_SCRIPT}</script></body></html>",
    ]
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------------- formatting
def _num(x: float | None, digits: int = 1) -> str:
    if x is None or math.isnan(x):
        return "–"
    if math.isinf(x):
        return "+∞" if x > 0 else "−∞"
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _ci(ci: Interval | None, digits: int = 1, scale: float = 1.0) -> str:
    return "" if ci is None else f' <span class="ci">{text.bracket(ci, digits, scale)}</span>'


def _v(x: float | None) -> str:
    """A figure as the table sorting reads it (empty when there is none)."""
    if x is None or math.isnan(x):
        return ""
    return repr(x) if math.isfinite(x) else ("Infinity" if x > 0 else "-Infinity")


def _f(x: float) -> str:
    """A coordinate: short, and the same text for the same value."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _short(name: str, width: int) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round values spanning [low, high], about ``count`` of them."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    return [k * step for k in range(first, last + 1)]


def _tick_label(x: float) -> str:
    return f"{x:g}" if abs(x) < 1e6 else f"{x:.2g}"


def _style(i: int) -> tuple[str, str]:
    """Bot ``i``'s line colour and dash pattern."""
    return PALETTE[i % len(PALETTE)], DASHES[(i // len(PALETTE)) % len(DASHES)]


def _legend(order: Sequence[str], colours: dict[str, int]) -> str:
    items = []
    for b in order:
        colour, dash = _style(colours[b])
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        items.append(f'<li><svg width="30" height="10" aria-hidden="true"><line x1="0" y1="5" '
                     f'x2="30" y2="5" stroke="{colour}" stroke-width="3"{dash_attr}/></svg>'
                     f"{escape(b)}</li>")
    return f'<ul class="legend">{"".join(items)}</ul>'


# ---------------------------------------------------------------------- sections
def _header(progress: Progress, complete: bool) -> str:
    ident = progress.identity
    games = len(progress.outcomes)
    if complete:
        state = f"complete: {games} games"
    elif progress.total is not None:
        state = f"{games} of {progress.total} games played (not complete)"
    else:
        state = (f"{games} played of the {progress.issued} issued so far (no run has marked "
                 "it complete)")
    seed = ident.get("seed")
    rows = [("Game", ident.get("game")), ("Format", ident.get("format")),
            ("Players per table", ident.get("players")), ("Bots", len(progress.bots)),
            ("Games", state),
            ("Master seed", "drawn in secret" if seed is None else seed)]
    cells = "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>"
                    for k, v in rows if v is not None)
    return f'<dl class="meta">{cells}</dl>'


def _standings(st: Standings) -> str:
    head = ("#", "Bot", "mu", "sigma", "mu − 3σ", "Games", "Wins", "Win %", "Mean score",
            "Failures")
    rows = []
    for rank, b in enumerate(st.bots, start=1):
        fails = b.failure_total
        detail = ", ".join(f"{n} {k}" for k, n in b.failures.items() if n)
        rows.append(
            f"<tr><td>{rank}</td><td class=\"l bot\" title=\"{escape(b.name)}\">"
            f"{escape(b.name)}</td><td>{b.mu:.2f}</td><td>{b.sigma:.2f}</td>"
            f"<td>{b.conservative:.2f}</td><td>{b.games}</td><td>{b.wins}</td>"
            f"<td>{_pct(b.win_rate)}</td><td>{_num(b.mean_score)}</td>"
            f"<td title=\"{escape(detail)}\">{fails}</td></tr>")
    return (f'<h2 id="standings">Standings</h2><p class="note">TrueSkill after '
            f"{st.rated_games} rated games, ranked by the conservative rating mu − 3σ. A win is "
            f"a first place (shared or not) without a failure.</p>"
            f"{_table(head, rows, 'standings', left=(1,))}")


def _table(head: Sequence[str], rows: Sequence[str], ident: str,
           left: Sequence[int] = ()) -> str:
    ths = "".join(f'<th class="l">{escape(h)}</th>' if i in left else f"<th>{escape(h)}</th>"
                  for i, h in enumerate(head))
    return (f'<table class="sortable" id="{ident}"><thead><tr>{ths}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def _heat(share: float) -> str:
    """Red (always behind) through white (level) to blue (always ahead)."""
    t = max(-1.0, min(1.0, 2 * share - 1))
    target = (33, 102, 172) if t > 0 else (178, 24, 43)
    a = abs(t)
    r, g, b = (round(255 + (c - 255) * a) for c in target)
    return f"#{r:02x}{g:02x}{b:02x}"


def _crosstable(pairs: Sequence[HeadToHead], order: Sequence[str]) -> str:
    n = len(order)
    index = {b: i for i, b in enumerate(order)}
    cells: dict[tuple[int, int], HeadToHead] = {}
    for pair in pairs:
        cells[(index[pair.a], index[pair.b])] = pair
        cells[(index[pair.b], index[pair.a])] = pair.flipped()
    size = max(26, min(70, 900 // max(1, n)))
    label_w = 12 + 7 * min(24, max((len(b) for b in order), default=1))
    top = label_w * 0.72 + 10
    width = label_w + n * size + top
    height = top + n * size + 10
    out = [f'<svg class="chart" id="crosstable-chart" viewBox="0 0 {_f(width)} {_f(height)}" '
           f'width="{_f(width)}" height="{_f(height)}" role="img" '
           f'aria-label="Crosstable heat map">']
    font = 11 if size >= 40 else 9
    for i, b in enumerate(order):
        y = top + i * size + size / 2
        out.append(f'<text x="{_f(label_w - 6)}" y="{_f(y + 4)}" text-anchor="end" '
                   f'font-size="12"><title>{escape(b)}</title>{escape(_short(b, 24))}</text>')
        x = label_w + i * size + size / 2
        out.append(f'<text transform="translate({_f(x + 4)},{_f(top - 6)}) rotate(-45)" '
                   f'font-size="12"><title>{escape(b)}</title>{escape(_short(b, 24))}</text>')
    for i in range(n):
        for j in range(n):
            x, y = label_w + j * size, top + i * size
            h = cells.get((i, j))
            if i == j or h is None:
                fill = "#eceff3" if i == j else "#f8f9fb"
                out.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{size}" height="{size}" '
                           f'fill="{fill}" stroke="#fff"/>')
                continue
            share = h.share
            ci = h.interval()
            tip = (f"{h.a} vs {h.b}: {h.games} games, {h.a} ahead {h.ahead}, behind "
                   f"{h.behind}, level {h.level}; ahead in {_pct(share)} of decided games "
                   f"(Wilson 95% {_pct(ci.low)}–{_pct(ci.high)})")
            out.append(
                f'<g class="cell" data-a="{escape(h.a)}" data-b="{escape(h.b)}" '
                f'data-ahead="{h.ahead}" data-behind="{h.behind}" data-level="{h.level}">'
                f"<title>{escape(tip)}</title>"
                f'<rect x="{_f(x)}" y="{_f(y)}" width="{size}" height="{size}" '
                f'fill="{_heat(0.5 if share is None else share)}" stroke="#fff"/>')
            dark = share is not None and abs(2 * share - 1) > 0.6
            colour = ' style="fill:#fff"' if dark else ""
            label = "–" if share is None else f"{100 * share:.0f}"
            if size >= 40:
                out.append(f'<text x="{_f(x + size / 2)}" y="{_f(y + size / 2)}" '
                           f'text-anchor="middle" font-size="{font + 1}"{colour}>{label}</text>'
                           f'<text x="{_f(x + size / 2)}" y="{_f(y + size / 2 + 13)}" '
                           f'text-anchor="middle" font-size="{font - 1}"{colour}>'
                           f"n={h.games}</text></g>")
            else:
                out.append(f'<text x="{_f(x + size / 2)}" y="{_f(y + size / 2 + 3)}" '
                           f'text-anchor="middle" font-size="{font}"{colour}>{label}</text></g>')
    out.append("</svg>")
    scale = "".join(
        f'<span style="display:inline-block;width:34px;text-align:center;background:'
        f'{_heat(s / 10)};color:{"#fff" if abs(s - 5) > 3 else "#1d2330"}">{10 * s}</span>'
        for s in range(11))
    return ('<h2 id="crosstable">Crosstable</h2><p class="note">Each cell: how often the '
            "row's bot finished ahead of the column's, in percent of the games where one of "
            "the two was ahead (level finishes left out)" +
            (", and n, the games they played together" if size >= 40 else "") +
            ". Hover a cell for the counts and the Wilson 95% interval.</p>"
            f"{''.join(out)}<p class=\"note\">Behind {scale} ahead</p>")


def _frame(width: float, height: float, left: float, right: float, top: float, bottom: float,
           xs: tuple[float, float], ys: tuple[float, float], xlabel: str, ylabel: str,
           ident: str, aria: str, x_ticks: bool = True,
           y_ticks: bool = True) -> tuple[list[str], Scale, Scale]:
    """An SVG chart's opening, axes, grid and labels, and its x and y scales."""
    x0, x1 = xs
    y0, y1 = ys
    pw, ph = width - left - right, height - top - bottom

    def sx(v: float) -> float:
        return left + (v - x0) / ((x1 - x0) or 1) * pw

    def sy(v: float) -> float:
        return top + ph - (v - y0) / ((y1 - y0) or 1) * ph

    out = [f'<svg class="chart" id="{ident}" viewBox="0 0 {_f(width)} {_f(height)}" '
           f'width="{_f(width)}" height="{_f(height)}" role="img" aria-label="{escape(aria)}">',
           f'<rect x="{_f(left)}" y="{_f(top)}" width="{_f(pw)}" height="{_f(ph)}" '
           f'fill="#fbfcfd" stroke="#c9cfd8"/>']
    for t in _ticks(y0, y1) if y_ticks else []:
        out.append(f'<line x1="{_f(left)}" x2="{_f(left + pw)}" y1="{_f(sy(t))}" '
                   f'y2="{_f(sy(t))}" stroke="#e3e7ed"/><text x="{_f(left - 6)}" '
                   f'y="{_f(sy(t) + 4)}" text-anchor="end" font-size="11">{_tick_label(t)}</text>')
    for t in _ticks(x0, x1, 8) if x_ticks else []:
        out.append(f'<line y1="{_f(top + ph)}" y2="{_f(top + ph + 4)}" x1="{_f(sx(t))}" '
                   f'x2="{_f(sx(t))}" stroke="#8a93a3"/><text x="{_f(sx(t))}" '
                   f'y="{_f(top + ph + 17)}" text-anchor="middle" font-size="11">'
                   f"{_tick_label(t)}</text>")
    out.append(f'<text x="{_f(left + pw / 2)}" y="{_f(height - 6)}" text-anchor="middle" '
               f'font-size="12">{escape(xlabel)}</text>')
    out.append(f'<text transform="translate(14,{_f(top + ph / 2)}) rotate(-90)" '
               f'text-anchor="middle" font-size="12">{escape(ylabel)}</text>')
    return out, sx, sy


def _ratings(curves: RatingCurves, order: Sequence[str], colours: dict[str, int]) -> str:
    lows = [m - s for b in order for m, s in zip(curves.mu[b], curves.sigma[b], strict=True)]
    highs = [m + s for b in order for m, s in zip(curves.mu[b], curves.sigma[b], strict=True)]
    ys = (math.floor(min(lows)), math.ceil(max(highs)))
    xs = (0.0, float(max(1, curves.games[-1])))
    out, sx, sy = _frame(1180, 440, 58, 16, 12, 42, xs, ys, "Games played",
                         "TrueSkill mu", "ratings-chart", "Ratings over the games")
    g = curves.games
    for b in reversed(order):
        colour, _ = _style(colours[b])
        mu, sigma = curves.mu[b], curves.sigma[b]
        upper = " ".join(f"{_f(sx(x))},{_f(sy(m + s))}" for x, m, s in zip(g, mu, sigma,
                                                                           strict=True))
        lower = " ".join(f"{_f(sx(x))},{_f(sy(m - s))}" for x, m, s in
                         reversed(list(zip(g, mu, sigma, strict=True))))
        out.append(f'<polygon points="{upper} {lower}" fill="{colour}" fill-opacity="0.10" '
                   f'stroke="none"/>')
    for b in reversed(order):
        colour, dash = _style(colours[b])
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        mu = curves.mu[b]
        points = " ".join(f"{_f(sx(x))},{_f(sy(m))}" for x, m in zip(g, mu, strict=True))
        out.append(f'<polyline class="rating" data-bot="{escape(b)}" data-last-mu="{mu[-1]!r}" '
                   f'points="{points}" fill="none" stroke="{colour}" stroke-width="2"'
                   f"{dash_attr}><title>{escape(b)}: mu {mu[-1]:.2f} ± "
                   f"{curves.sigma[b][-1]:.2f}</title></polyline>")
    out.append("</svg>")
    return ('<h2 id="ratings">Ratings over the games</h2><p class="note">Each bot\'s TrueSkill '
            "mu after each game (the line) and mu ± σ (the shaded band), replayed in journal "
            f"order; sampled at {len(g)} points.</p>{''.join(out)}{_legend(order, colours)}")


def _quantile(values: Sequence[int], q: float) -> float:
    """The q-quantile of sorted ``values`` (linear between neighbours)."""
    pos = q * (len(values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def _scores(outcomes: Sequence[GameOutcome], order: Sequence[str],
            colours: dict[str, int]) -> str:
    scores: dict[str, list[int]] = {b: [] for b in order}
    for o in outcomes:
        for b, s in zip(o.bots, o.scores, strict=True):
            scores[b].append(s)
    played = [b for b in order if scores[b]]
    every = [s for b in played for s in scores[b]]
    lo, hi = min(every), max(every)
    pad = max(1.0, (hi - lo) * 0.03)
    row = 26
    left = 12 + 7 * min(24, max(len(b) for b in played))
    height = 12 + row * len(played) + 42
    out, sx, _ = _frame(1180, height, left, 16, 12, 42, (lo - pad, hi + pad), (0, 0),
                        "Final score", "", "scores-chart", "Score distributions",
                        y_ticks=False)
    for k, b in enumerate(played):
        values = sorted(scores[b])
        colour, _ = _style(colours[b])
        y = 12 + row * k + row / 2
        q1, med, q3 = (_quantile(values, q) for q in (0.25, 0.5, 0.75))
        mean = sum(values) / len(values)
        tip = (f"{b}: {len(values)} games, min {values[0]}, quartiles {q1:g} / {med:g} / "
               f"{q3:g}, max {values[-1]}, mean {mean:.1f}")
        out.append(f'<g class="box" data-bot="{escape(b)}"><title>{escape(tip)}</title>'
                   f'<text x="{_f(left - 6)}" y="{_f(y + 4)}" text-anchor="end" '
                   f'font-size="12">{escape(_short(b, 24))}</text>'
                   f'<line x1="{_f(sx(values[0]))}" x2="{_f(sx(values[-1]))}" y1="{_f(y)}" '
                   f'y2="{_f(y)}" stroke="{colour}" stroke-width="1.5"/>'
                   f'<rect x="{_f(sx(q1))}" y="{_f(y - 8)}" width="{_f(max(1.5, sx(q3) - sx(q1)))}"'
                   f' height="16" fill="{colour}" fill-opacity="0.35" stroke="{colour}"/>'
                   f'<line x1="{_f(sx(med))}" x2="{_f(sx(med))}" y1="{_f(y - 8)}" '
                   f'y2="{_f(y + 8)}" stroke="#1d2330" stroke-width="2"/>'
                   f'<circle cx="{_f(sx(mean))}" cy="{_f(y)}" r="3.5" fill="#fff" '
                   f'stroke="#1d2330"/></g>')
    out.append("</svg>")
    return ('<h2 id="scores">Score distributions</h2><p class="note">Each bot\'s final scores: '
            "the whiskers span the lowest to the highest, the box the middle half (quartiles), "
            "the bar is the median and the circle the mean. Hover a row for the figures.</p>"
            + "".join(out))


def _strengths(stats: TournamentStats) -> str:
    pl = stats.plackett_luce
    rows = []
    for rank, i in enumerate(pl.order(), start=1):
        rating, within = text.rating_cells(pl, i)
        group = f"<td>{pl.groups.of[i] + 1}</td>" if pl.separated else ""
        ci = "" if within == "–" else f' <span class="ci">{within}</span>'
        rows.append(f'<tr><td>{rank}</td><td class="l bot">{escape(pl.bots[i])}</td>{group}'
                    f'<td data-v="{_v(pl.shown_rating(i))}">{escape(rating)}{ci}</td></tr>')
    head = ("#", "Bot", "Group", "Rating (95%)") if pl.separated else ("#", "Bot", "Rating (95%)")
    return ('<h2 id="strengths">Plackett–Luce strengths</h2><p class="note">Fitted to the '
            "finishing orders, on the Elo scale (400 log10 of the strength, centred), so two "
            "bots' difference reads as a two-player Elo difference. 95% intervals: "
            f"{pl.replicates} bootstrap resamplings of the {pl.duplicate_sets} duplicate sets "
            f"(seed {pl.seed}). {escape(text.groups_note(pl))}</p>"
            + _table(head, rows, "strengths-table", left=(1,)))


def _elo(matches: Sequence[Match]) -> str:
    """Each pair's two-player Elo, as ``arena compare`` figures it (the statistics' matches;
    nothing without two-player games)."""
    rows = []
    for m in matches:
        elo, within = text.elo_cells(m)
        rows.append(
            f'<tr><td class="l bot">{escape(m.a)}</td><td class="l bot">{escape(m.b)}</td>'
            f"<td>{m.games}</td><td>{m.pairs}</td><td>{m.wins}-{m.draws}-{m.losses}</td>"
            f'<td data-v="{_v(m.elo)}">{escape(elo)} <span class="ci">{escape(within)}</span>'
            f'</td><td data-v="{_v(m.los)}">{_pct(m.los)}</td></tr>')
    if not rows:
        return ""
    return ('<h2 id="elo">Two-player Elo</h2><p class="note">Each pair that met at two-player '
            "tables, from the first bot's side, counted by game pair (the two seat rotations "
            "of one deal) as <code>arena compare</code> does: Elo ± half its 95% interval "
            "(the interval after it; a pair won or lost in every game pair has no finite "
            "Elo, only a one-sided bound), and LOS, the likelihood that the first is "
            "stronger.</p>"
            + _table(("A", "B", "Games", "Pairs", "W-D-L", "Elo (95%)", "LOS"), rows,
                     "elo-table", left=(0, 1)))


def _seats(stats: TournamentStats) -> str:
    sizes = sorted({s.players for s in stats.seats})
    parts = ['<h2 id="seats">Seat advantage</h2><p class="note">Per table size and seat (0 '
             "plays first). Win rate: a first place, shared or not, without a failure, with its "
             "Wilson 95% interval (the bars and whiskers; the dashed line is 1/k, no advantage). "
             "Mean score and rank with normal 95% intervals.</p>"]
    for k in sizes:
        seats = [s for s in stats.seats if s.players == k]
        bar = 56
        width = 70 + bar * k + 20
        out, _, sy = _frame(width, 240, 52, 14, 12, 42, (0, 1), (0, 1), "Seat",
                            "Win rate", f"seats-chart-{k}", f"Win rate per seat, {k} players",
                            x_ticks=False)
        for s in seats:
            cx = 52 + bar * s.seat + bar / 2
            rate = s.win_rate or 0.0
            ci = s.win_interval()
            colour, _ = _style(s.seat)
            out.append(f'<g class="seat"><title>seat {s.seat}: win rate {_pct(s.win_rate)} '
                       f"(95% {_pct(ci.low)}–{_pct(ci.high)}), {s.games} games</title>"
                       f'<rect x="{_f(cx - bar * 0.3)}" y="{_f(sy(rate))}" '
                       f'width="{_f(bar * 0.6)}" height="{_f(sy(0) - sy(rate))}" '
                       f'fill="{colour}" fill-opacity="0.75"/>'
                       f'<line x1="{_f(cx)}" x2="{_f(cx)}" y1="{_f(sy(ci.low))}" '
                       f'y2="{_f(sy(ci.high))}" stroke="#1d2330" stroke-width="1.5"/>'
                       f'<line x1="{_f(cx - 6)}" x2="{_f(cx + 6)}" y1="{_f(sy(ci.low))}" '
                       f'y2="{_f(sy(ci.low))}" stroke="#1d2330"/>'
                       f'<line x1="{_f(cx - 6)}" x2="{_f(cx + 6)}" y1="{_f(sy(ci.high))}" '
                       f'y2="{_f(sy(ci.high))}" stroke="#1d2330"/>'
                       f'<text x="{_f(cx)}" y="{_f(240 - 25)}" text-anchor="middle" '
                       f'font-size="11">{s.seat}</text></g>')
        out.append(f'<line x1="52" x2="{_f(52 + bar * k)}" y1="{_f(sy(1 / k))}" '
                   f'y2="{_f(sy(1 / k))}" stroke="#d62728" stroke-dasharray="5 4"/></svg>')
        rows = [f"<tr><td>{s.seat}</td><td>{s.games}</td>"
                f'<td data-v="{_v(s.win_rate)}">{_pct(s.win_rate)}{_ci(s.win_interval(), 1, 100)}'
                f'</td><td data-v="{_v(s.mean_score)}">{_num(s.mean_score)}'
                f'{_ci(s.score_interval())}</td><td data-v="{_v(s.mean_rank)}">'
                f"{_num(s.mean_rank, 2)}{_ci(s.rank_interval(), 2)}</td></tr>" for s in seats]
        parts.append(f"<h3>{k} players</h3>"
                     '<div style="display:flex;gap:28px;align-items:flex-start;flex-wrap:wrap">'
                     f"{''.join(out)}"
                     + _table(("Seat", "Games", "Win % (95%)", "Score (95%)", "Rank (95%)"),
                              rows, f"seats-table-{k}") + "</div>")
    return "".join(parts)


def record_link(folder: Path, record: str, output: Path) -> str:
    """The URL of a game record (``record`` relative to the tournament ``folder``) as seen
    from a page written at ``output``."""
    target = os.path.abspath(folder / record)
    rel = os.path.relpath(target, os.path.dirname(os.path.abspath(output)))
    return quote(rel.replace(os.sep, "/"))


def _games(outcomes: Sequence[GameOutcome], records: dict[str, str], folder: Path,
           output: Path) -> str:
    rows = []
    for o in outcomes:
        record = records.get(o.game_id)
        gid = escape(o.game_id)
        cell = f'<a href="{escape(record_link(folder, record, output))}">{gid}</a>' if record \
            else gid
        seats = ", ".join(
            f"{escape(b)} {s} ({r}{'' if t == Termination.OK else ', ' + escape(str(t))})"
            for b, s, r, t in zip(o.bots, o.scores, o.ranks, o.terminations, strict=True))
        rows.append(f"<tr><td>{o.index}<td>{cell}<td>{seats}")
    return (f'<h2 id="games">Games</h2><details{" open" if len(rows) <= 50 else ""}>'
            f"<summary>All {len(rows)} finished games, each linked to its record</summary>"
            '<p class="note">Seats in order: bot, final score and (rank, and how its part '
            'ended if not normally).</p><table class="games" id="games-table"><thead><tr>'
            '<th>#</th><th class="l">Game</th><th class="l">Seats: bot score (rank)</th></tr>'
            f"</thead><tbody>{''.join(rows)}</tbody></table></details>")
