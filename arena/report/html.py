"""``arena report``: one self-contained HTML page of a tournament, from its journal.

The page needs nothing but itself: the styles are inline, every chart is an SVG drawn here,
and the only script sorts the tables when a heading is clicked. It shows the standings, a
crosstable heat map, each bot's TrueSkill rating over the games, the distribution of each
bot's final scores, the Plackett–Luce strengths and seat advantage with their intervals (the
figures of ``arena stats``), and every game linked to its record (past
:data:`GAMES_LISTED` games, the most recent ones, the page saying how many it leaves out).

Every string from the journal (bot names, game ids, the tournament's name) is untrusted: it
goes through :func:`html.escape` on its way into the page. Links to records are relative to
the page's own folder, so the folder and its page can be moved together. The same journal
gives the same page byte for byte: nothing in it comes from the clock or a global generator.

The ratings and their curves come from the journal's rating checkpoint and history when they
agree with its games (else from a TrueSkill replay, the same numbers); the rating curves keep
at most :data:`~arena.report.charts.CURVE_POINTS` samples per bot whatever the games. What
grows with the games is reading them and the statistics' passes over them: a large field's
games are read as columns of numbers (:mod:`arena.stats.columns`) and counted with array
operations, only the games listed made into objects.

A field of more than :data:`LARGE_FIELD` bots (a large league) is shown in part: its
crosstable, rating curves, score distributions and two-player Elo are the top :data:`SHOWN`
bots' of the standings, a line on the page says so, and its Plackett–Luce intervals come from
the curvature at the fit, not a bootstrap. The page of a smaller field is as it always was.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from urllib.parse import quote

from arena.protocol.messages import Termination
from arena.report.charts import (
    bot_scores,
    column_rating_curves,
    coord,
    frame,
    line_style,
    rating_curves,
    ratings_chart,
    scores_chart,
    shorten,
)
from arena.results import GameOutcome
from arena.runner.play.column_cache import LARGE_FIELD as KEPT_FIELD
from arena.runner.play.journal import Progress
from arena.runner.play.standings import Standings
from arena.stats import text
from arena.stats.columns import GameColumns, column_scores
from arena.stats.common import Interval, rounded
from arena.stats.match import Match
from arena.stats.summary import TournamentStats, column_stats, tournament_stats
from arena.stats.tables import HeadToHead

#: The most games the report's table lists (the most recent): a table of every game of a
#: journal of a million would be a page of hundreds of megabytes that no browser opens.
GAMES_LISTED = 1000
#: A field of more bots than this is a *large field*: its Plackett–Luce intervals come from
#: the curvature at the fit instead of a bootstrap (each bootstrap replicate is a solve over
#: every bot: minutes at a thousand bots), and its crosstable, rating curves, score
#: distributions and two-player Elo show only the top :data:`SHOWN` bots of the standings (a
#: crosstable of a thousand bots is a million cells). Every committed leaderboard and every
#: tournament of the tests is far below it, and their pages are as they were.
LARGE_FIELD = KEPT_FIELD  # 100: the columns a league run keeps are of such a field
#: The bots of a large field that its per-bot charts and tables show: the top of the standings.
SHOWN = 30

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


def listed_games(outcomes: Sequence[GameOutcome], limit: int = GAMES_LISTED
                 ) -> Sequence[GameOutcome]:
    """The games the report's table lists: every one up to ``limit``, past it the most recent
    ``limit`` (the last in journal order)."""
    if limit < 1:
        raise ValueError(f"the games listed must be 1 or more, got {limit}")
    return outcomes if len(outcomes) <= limit else outcomes[len(outcomes) - limit:]


def build_report(progress: Progress, folder: Path, output: Path, complete: bool,
                 replicates: int = 200, seed: int = 0,
                 pages: Mapping[str, Path] | None = None,
                 games_listed: int = GAMES_LISTED, large_field: int = LARGE_FIELD,
                 shown: int = SHOWN, columns: GameColumns | None = None) -> str:
    """The page of the tournament whose journal gave ``progress`` (read with its records),
    to be written at ``output``: record links are relative to ``output``'s folder, and so are
    the links to the games' replay ``pages`` (game id -> file; a game without one has none).
    The games' table lists at most ``games_listed`` games (:func:`listed_games`) and says
    how many it leaves out. A field of more than ``large_field`` bots is shown as a large one
    (:data:`LARGE_FIELD`), its top ``shown`` bots in the per-bot charts.

    ``columns``: a large field's games as columns (:func:`read_report` gives them when its
    rating history is of those games); with them, ``progress.outcomes`` needs only the games
    the table lists (the most recent), and the figures are counted from the columns: the same
    page."""
    outcomes = progress.outcomes
    games = len(outcomes) if columns is None else columns.games
    if columns is not None:
        found = (None if progress.ratings is None or progress.history is None else
                 column_rating_curves(columns, progress.history, progress.ratings, shown))
        if found is None:
            raise ValueError("the journal's rating history is not of the games given")
        bots, large = columns.bots, True
        curves, standings = found
        order = [s.name for s in standings.bots]
        top = order[:shown]
        stats = column_stats(columns, set(top), seed=seed)
        scores = column_scores(columns, top)
    else:
        bots = list(dict.fromkeys([*progress.bots, *(b for o in outcomes for b in o.bots)]))
        large = len(bots) > large_field
        curves, standings = rating_curves(bots, outcomes, history=progress.history,
                                          rated=progress.ratings,
                                          top=shown if large else None)
        order = [s.name for s in standings.bots]
        top = order[:shown] if large else order
        stats = tournament_stats(outcomes, bots, replicates=replicates, seed=seed,
                                 curvature=large, pairs_among=set(top) if large else None)
        scores = bot_scores(outcomes, top)
    colours = {b: i for i, b in enumerate(order)}
    title = escape(progress.name or folder.name)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>{title}: tournament report</title><style>{_STYLE}</style></head><body>",
        f"<h1>{title}</h1>",
        _header(progress, games, complete),
        _standings(standings),
        *([_shown_note(len(order), len(top))] if large else []),
        _crosstable(stats.head_to_head, top),
        ratings_chart(curves, top, colours),
        scores_chart(scores, top, colours),
        _strengths(stats),
        _elo(stats.matches),
        _seats(stats),
        _games(games, listed_games(outcomes, games_listed), progress.records, folder,
               output, pages or {}),
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
    """A figure as the table sorting reads it (empty when there is none), to the six
    significant digits the standings files keep: its last bits may depend on the machine's
    matrix library (how many threads sum its products), and the page must not."""
    if x is None or math.isnan(x):
        return ""
    return repr(rounded(x)) if math.isfinite(x) else ("Infinity" if x > 0 else "-Infinity")


# ---------------------------------------------------------------------- sections
def _header(progress: Progress, games: int, complete: bool) -> str:
    ident = progress.identity
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


def _shown_note(bots: int, shown: int) -> str:
    """What a large field's page leaves out of its per-bot charts, and where it is."""
    return (f'<p class="note" id="shown">A large field: {bots} bots. The crosstable, the '
            f"ratings over the games, the score distributions and the two-player Elo show the "
            f"top {shown} of the standings; the other {bots - shown} bots are in the standings "
            "above and the strengths below, and every pair's figures are in "
            "<code>arena stats</code>. The strengths' intervals come from the curvature of the "
            "fit, not a bootstrap.</p>")


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
    out = [f'<svg class="chart" id="crosstable-chart" viewBox="0 0 {coord(width)} {coord(height)}" '
           f'width="{coord(width)}" height="{coord(height)}" role="img" '
           f'aria-label="Crosstable heat map">']
    font = 11 if size >= 40 else 9
    for i, b in enumerate(order):
        y = top + i * size + size / 2
        out.append(f'<text x="{coord(label_w - 6)}" y="{coord(y + 4)}" text-anchor="end" '
                   f'font-size="12"><title>{escape(b)}</title>{escape(shorten(b, 24))}</text>')
        x = label_w + i * size + size / 2
        out.append(f'<text transform="translate({coord(x + 4)},{coord(top - 6)}) rotate(-45)" '
                   f'font-size="12"><title>{escape(b)}</title>{escape(shorten(b, 24))}</text>')
    for i in range(n):
        for j in range(n):
            x, y = label_w + j * size, top + i * size
            h = cells.get((i, j))
            if i == j or h is None:
                fill = "#eceff3" if i == j else "#f8f9fb"
                out.append(f'<rect x="{coord(x)}" y="{coord(y)}" width="{size}" height="{size}" '
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
                f'<rect x="{coord(x)}" y="{coord(y)}" width="{size}" height="{size}" '
                f'fill="{_heat(0.5 if share is None else share)}" stroke="#fff"/>')
            dark = share is not None and abs(2 * share - 1) > 0.6
            colour = ' style="fill:#fff"' if dark else ""
            label = "–" if share is None else f"{100 * share:.0f}"
            if size >= 40:
                out.append(f'<text x="{coord(x + size / 2)}" y="{coord(y + size / 2)}" '
                           f'text-anchor="middle" font-size="{font + 1}"{colour}>{label}</text>'
                           f'<text x="{coord(x + size / 2)}" y="{coord(y + size / 2 + 13)}" '
                           f'text-anchor="middle" font-size="{font - 1}"{colour}>'
                           f"n={h.games}</text></g>")
            else:
                out.append(f'<text x="{coord(x + size / 2)}" y="{coord(y + size / 2 + 3)}" '
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
    intervals = (
        "normal, from the curvature of the log-posterior at the fit (its observed "
        f"information inverted; {pl.duplicate_sets} duplicate sets)" if pl.from_curvature else
        f"{pl.replicates} bootstrap resamplings of the {pl.duplicate_sets} duplicate sets "
        f"(seed {pl.seed})")
    return ('<h2 id="strengths">Plackett–Luce strengths</h2><p class="note">Fitted to the '
            "finishing orders, on the Elo scale (400 log10 of the strength, centred), so two "
            "bots' difference reads as a two-player Elo difference. 95% intervals: "
            f"{intervals}. {escape(text.groups_note(pl))}</p>"
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
        out, _, sy = frame(width, 240, 52, 14, 12, 42, (0, 1), (0, 1), "Seat",
                            "Win rate", f"seats-chart-{k}", f"Win rate per seat, {k} players",
                            x_ticks=False)
        for s in seats:
            cx = 52 + bar * s.seat + bar / 2
            rate = s.win_rate or 0.0
            ci = s.win_interval()
            colour, _ = line_style(s.seat)
            out.append(f'<g class="seat"><title>seat {s.seat}: win rate {_pct(s.win_rate)} '
                       f"(95% {_pct(ci.low)}–{_pct(ci.high)}), {s.games} games</title>"
                       f'<rect x="{coord(cx - bar * 0.3)}" y="{coord(sy(rate))}" '
                       f'width="{coord(bar * 0.6)}" height="{coord(sy(0) - sy(rate))}" '
                       f'fill="{colour}" fill-opacity="0.75"/>'
                       f'<line x1="{coord(cx)}" x2="{coord(cx)}" y1="{coord(sy(ci.low))}" '
                       f'y2="{coord(sy(ci.high))}" stroke="#1d2330" stroke-width="1.5"/>'
                       f'<line x1="{coord(cx - 6)}" x2="{coord(cx + 6)}" y1="{coord(sy(ci.low))}" '
                       f'y2="{coord(sy(ci.low))}" stroke="#1d2330"/>'
                       f'<line x1="{coord(cx - 6)}" x2="{coord(cx + 6)}" y1="{coord(sy(ci.high))}" '
                       f'y2="{coord(sy(ci.high))}" stroke="#1d2330"/>'
                       f'<text x="{coord(cx)}" y="{coord(240 - 25)}" text-anchor="middle" '
                       f'font-size="11">{s.seat}</text></g>')
        out.append(f'<line x1="52" x2="{coord(52 + bar * k)}" y1="{coord(sy(1 / k))}" '
                   f'y2="{coord(sy(1 / k))}" stroke="#d62728" stroke-dasharray="5 4"/></svg>')
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


class _Links:
    """The relative URL of a file as seen from a page written at ``output``; the relative
    path of each folder is figured once (it is most of the cost of a link, and a
    tournament's records share a folder)."""

    def __init__(self, output: Path) -> None:
        self.base = os.path.dirname(os.path.abspath(output))
        self.folders: dict[str, str] = {}

    def __call__(self, target: Path) -> str:
        head, tail = os.path.split(os.path.abspath(target))
        rel = self.folders.get(head)
        if rel is None:
            rel = self.folders[head] = os.path.relpath(head, self.base)
        path = tail if rel == os.curdir else os.path.join(rel, tail)
        return quote(path.replace(os.sep, "/"))


def _games(games: int, listed: Sequence[GameOutcome],
           records: dict[str, str], folder: Path, output: Path,
           pages: Mapping[str, Path]) -> str:
    link = _Links(output)
    rows = []
    for o in listed:
        record = records.get(o.game_id)
        gid = escape(o.game_id)
        cell = f'<a href="{escape(link(folder / record))}">{gid}</a>' if record else gid
        seats = ", ".join(
            f"{escape(b)} {s} ({r}{'' if t == Termination.OK else ', ' + escape(str(t))})"
            for b, s, r, t in zip(o.bots, o.scores, o.ranks, o.terminations, strict=True))
        page = pages.get(o.game_id)
        watch = (f'<a class="view" href="{escape(link(page))}">replay</a>'
                 if page is not None else "")
        rows.append(f"<tr><td>{o.index}<td>{cell}<td>{watch}<td>{seats}")
    left_out = games - len(listed)
    summary = (f"All {len(rows)} finished games, each linked to its record and its replay page"
               if not left_out else
               f"The last {len(rows)} of the {games} finished games, each linked to its "
               f"record and its replay page ({left_out} earlier games left out)")
    note = ("" if not left_out else
            f" The {left_out} earlier games are left out of this list (a list of every game "
            "would be a page too large to open); their figures are in every section above, "
            "and each game's record is still in the tournament's folder.")
    return (f'<h2 id="games">Games</h2><details{" open" if len(rows) <= 50 else ""}>'
            f"<summary>{summary}</summary>"
            '<p class="note">Seats in order: bot, final score and (rank, and how its part '
            "ended if not normally). A replay page steps through the game decision by "
            f"decision (<code>arena view</code> writes one for any record).{note}</p>"
            '<table class="games" id="games-table"><thead><tr>'
            '<th>#</th><th class="l">Game</th><th class="l">Replay</th>'
            '<th class="l">Seats: bot score (rank)</th></tr>'
            f"</thead><tbody>{''.join(rows)}</tbody></table></details>")
