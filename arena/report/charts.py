"""The report's charts, drawn as SVG text: each bot's rating over the games, the spread of
its final scores, and the frame, scales, line styles and legend that every chart of the page
shares. Coordinates are written short and the same for the same value, so that the same
journal draws the same page byte for byte."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from arena.results import GameOutcome
from arena.runner.play.columns import history_agrees
from arena.runner.play.history import LastSeats, sample_points, searched_seats
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.standings import TRUESKILL_MU, TRUESKILL_SIGMA, Standings
from arena.runner.play.trueskill_update import readback
from arena.stats.columns import GameColumns

Scale = Callable[[float], float]

#: The most samples of each bot's rating curve.
CURVE_POINTS = 500

#: Line colours (a colour-blind-safe categorical set); past them the dash pattern changes.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
DASHES = ("", "6 3", "2 3", "10 3 2 3")


@dataclass(frozen=True)
class RatingCurves:
    """Each bot's TrueSkill mu and sigma after ``games[k]`` games, for every sample k."""

    games: list[int]
    mu: dict[str, list[float]]
    sigma: dict[str, list[float]]


def rating_curves(bots: Sequence[str], outcomes: Sequence[GameOutcome],
                  points: int = CURVE_POINTS, history: Sequence[tuple[str, str]] | None = None,
                  rated: RatingTracker | None = None,
                  top: int | None = None) -> tuple[RatingCurves, Standings]:
    """Replay ``outcomes`` in journal order through the standings' TrueSkill, sampling every
    bot's rating at most ``points`` times (evenly over the games, the last game always), and
    the standings after all of them (one replay gives both).

    Given the journal's rating ``history`` of these games and its ratings after them
    (``rated``, its bots those given), nothing is replayed: the samples are read from the
    history, the standings from ``rated``; the same numbers bit for bit.

    With ``top``, only the first ``top`` bots of the final standings are sampled (a large
    field's curves): without a history the replay keeps one, so that the standings are known
    before the samples are read from it."""
    if not (rated is not None and history is not None and rated.bots == list(bots)
            and rated.games == len(history) == len(outcomes)
            and all(g == o.game_id for (g, _), o in zip(history, outcomes, strict=True))):
        if top is None:
            return _replayed_curves(bots, outcomes, points)
        rated = RatingTracker(bots)
        rated.log = []
        rated.add_all(outcomes)
        history = [(o.game_id, json.dumps(made)) for o, made in rated.log]
    standings = rated.standings()
    shown = list(bots) if top is None else [b.name for b in standings.bots[:top]]
    return _curves_of(shown, len(outcomes), _walked_back(shown, lambda g: outcomes[g].bots),
                      history, points), standings


def column_rating_curves(cols: GameColumns, history: Sequence[tuple[str, str]],
                         rated: RatingTracker, top: int,
                         points: int = CURVE_POINTS) -> tuple[RatingCurves, Standings] | None:
    """:func:`rating_curves` of a large field's games given as columns, its top ``top`` bots',
    from the journal's rating history; None when the history and ratings are not of these
    games (then every game is replayed, as :func:`rating_curves` does)."""
    if not history_agrees(cols, history, rated):
        return None
    standings = rated.standings()
    shown = [b.name for b in standings.bots[:top]]
    return _curves_of(shown, cols.games, searched_seats(shown, cols), history,
                      points), standings


def _walked_back(bots: Sequence[str], table_of: Callable[[int], Sequence[str]]) -> LastSeats:
    """Each bot's last seat found by walking back from the sample to the one before (the
    games' tables, seat 0 first, read with ``table_of``): only those games are read."""
    asked = set(bots)

    def last_seats(before: int, k: int) -> dict[str, tuple[int, int]]:
        latest: dict[str, tuple[int, int]] = {}
        for g in range(k - 1, before - 1, -1):
            table = table_of(g)
            for seat in range(len(table) - 1, -1, -1):  # the last seat if it sat twice
                if table[seat] in asked:
                    latest.setdefault(table[seat], (g, seat))
            if len(latest) == len(asked):
                break
        return latest

    return last_seats


def _replayed_curves(bots: Sequence[str], outcomes: Sequence[GameOutcome],
                     points: int) -> tuple[RatingCurves, Standings]:
    """:func:`rating_curves` by replaying every game, sampling as it goes."""
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


def _curves_of(bots: Sequence[str], n: int, last_seats: LastSeats,
               history: Sequence[tuple[str, str]], points: int) -> RatingCurves:
    """:func:`rating_curves`' samples of ``n`` games from a rating history (each game's seats'
    new mu and sigma as made), each sample read as the tracker reads a rating made of them.

    A sample needs each bot's rating as its last game before it left it (``last_seats``):
    only those games' history is read (a bot that did not play since the sample before keeps
    its rating), not every game's."""
    made = dict.fromkeys(bots, (TRUESKILL_MU, TRUESKILL_SIGMA))
    curves = RatingCurves([], {b: [] for b in bots}, {b: [] for b in bots})

    def sample(k: int) -> None:
        curves.games.append(k)
        for b in bots:
            mu, sigma = readback(*made[b])
            curves.mu[b].append(mu)
            curves.sigma[b].append(sigma)

    sample(0)
    before = 0
    for k in sample_points(n, points):
        for bot, (g, seat) in last_seats(before, k).items():
            mu, sigma = json.loads(history[g][1])[seat]
            made[bot] = (mu, sigma)
        sample(k)
        before = k
    return curves


def coord(x: float) -> str:
    """A coordinate: short, and the same text for the same value."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def shorten(name: str, width: int) -> str:
    """``name`` cut to ``width`` characters, an ellipsis last if it was cut."""
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


def line_style(i: int) -> tuple[str, str]:
    """Bot ``i``'s line colour and dash pattern."""
    return PALETTE[i % len(PALETTE)], DASHES[(i // len(PALETTE)) % len(DASHES)]


def _legend(order: Sequence[str], colours: dict[str, int]) -> str:
    items = []
    for b in order:
        colour, dash = line_style(colours[b])
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        items.append(f'<li><svg width="30" height="10" aria-hidden="true"><line x1="0" y1="5" '
                     f'x2="30" y2="5" stroke="{colour}" stroke-width="3"{dash_attr}/></svg>'
                     f"{escape(b)}</li>")
    return f'<ul class="legend">{"".join(items)}</ul>'



def frame(width: float, height: float, left: float, right: float, top: float, bottom: float,
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

    out = [f'<svg class="chart" id="{ident}" viewBox="0 0 {coord(width)} {coord(height)}" '
           f'width="{coord(width)}" height="{coord(height)}" role="img" '
           f'aria-label="{escape(aria)}">',
           f'<rect x="{coord(left)}" y="{coord(top)}" width="{coord(pw)}" height="{coord(ph)}" '
           f'fill="#fbfcfd" stroke="#c9cfd8"/>']
    for t in _ticks(y0, y1) if y_ticks else []:
        out.append(f'<line x1="{coord(left)}" x2="{coord(left + pw)}" y1="{coord(sy(t))}" '
                   f'y2="{coord(sy(t))}" stroke="#e3e7ed"/><text x="{coord(left - 6)}" '
                   f'y="{coord(sy(t) + 4)}" text-anchor="end" font-size="11">'
                   f"{_tick_label(t)}</text>")
    for t in _ticks(x0, x1, 8) if x_ticks else []:
        out.append(f'<line y1="{coord(top + ph)}" y2="{coord(top + ph + 4)}" x1="{coord(sx(t))}" '
                   f'x2="{coord(sx(t))}" stroke="#8a93a3"/><text x="{coord(sx(t))}" '
                   f'y="{coord(top + ph + 17)}" text-anchor="middle" font-size="11">'
                   f"{_tick_label(t)}</text>")
    out.append(f'<text x="{coord(left + pw / 2)}" y="{coord(height - 6)}" text-anchor="middle" '
               f'font-size="12">{escape(xlabel)}</text>')
    out.append(f'<text transform="translate(14,{coord(top + ph / 2)}) rotate(-90)" '
               f'text-anchor="middle" font-size="12">{escape(ylabel)}</text>')
    return out, sx, sy


def ratings_chart(curves: RatingCurves, order: Sequence[str], colours: dict[str, int]) -> str:
    lows = [m - s for b in order for m, s in zip(curves.mu[b], curves.sigma[b], strict=True)]
    highs = [m + s for b in order for m, s in zip(curves.mu[b], curves.sigma[b], strict=True)]
    ys = (math.floor(min(lows)), math.ceil(max(highs)))
    xs = (0.0, float(max(1, curves.games[-1])))
    out, sx, sy = frame(1180, 440, 58, 16, 12, 42, xs, ys, "Games played",
                         "TrueSkill mu", "ratings-chart", "Ratings over the games")
    g = curves.games
    for b in reversed(order):
        colour, _ = line_style(colours[b])
        mu, sigma = curves.mu[b], curves.sigma[b]
        upper = " ".join(f"{coord(sx(x))},{coord(sy(m + s))}" for x, m, s in zip(g, mu, sigma,
                                                                           strict=True))
        lower = " ".join(f"{coord(sx(x))},{coord(sy(m - s))}" for x, m, s in
                         reversed(list(zip(g, mu, sigma, strict=True))))
        out.append(f'<polygon points="{upper} {lower}" fill="{colour}" fill-opacity="0.10" '
                   f'stroke="none"/>')
    for b in reversed(order):
        colour, dash = line_style(colours[b])
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        mu = curves.mu[b]
        points = " ".join(f"{coord(sx(x))},{coord(sy(m))}" for x, m in zip(g, mu, strict=True))
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


def bot_scores(outcomes: Sequence[GameOutcome], order: Sequence[str]) -> dict[str, list[int]]:
    """Each bot of ``order``'s final scores, game by game."""
    scores: dict[str, list[int]] = {b: [] for b in order}
    for o in outcomes:
        for b, s in zip(o.bots, o.scores, strict=True):
            kept = scores.get(b)  # a bot not in ``order`` is not drawn
            if kept is not None:
                kept.append(s)
    return scores


def scores_chart(scores: dict[str, list[int]], order: Sequence[str],
                 colours: dict[str, int]) -> str:
    """The distribution of each bot of ``order``'s ``scores`` (:func:`bot_scores`)."""
    played = [b for b in order if scores[b]]
    every = [s for b in played for s in scores[b]]
    lo, hi = min(every), max(every)
    pad = max(1.0, (hi - lo) * 0.03)
    row = 26
    left = 12 + 7 * min(24, max(len(b) for b in played))
    height = 12 + row * len(played) + 42
    out, sx, _ = frame(1180, height, left, 16, 12, 42, (lo - pad, hi + pad), (0, 0),
                        "Final score", "", "scores-chart", "Score distributions",
                        y_ticks=False)
    for k, b in enumerate(played):
        values = sorted(scores[b])
        colour, _ = line_style(colours[b])
        y = 12 + row * k + row / 2
        q1, med, q3 = (_quantile(values, q) for q in (0.25, 0.5, 0.75))
        mean = sum(values) / len(values)
        tip = (f"{b}: {len(values)} games, min {values[0]}, quartiles {q1:g} / {med:g} / "
               f"{q3:g}, max {values[-1]}, mean {mean:.1f}")
        out.append(f'<g class="box" data-bot="{escape(b)}"><title>{escape(tip)}</title>'
                   f'<text x="{coord(left - 6)}" y="{coord(y + 4)}" text-anchor="end" '
                   f'font-size="12">{escape(shorten(b, 24))}</text>'
                   f'<line x1="{coord(sx(values[0]))}" x2="{coord(sx(values[-1]))}" '
                   f'y1="{coord(y)}" y2="{coord(y)}" stroke="{colour}" stroke-width="1.5"/>'
                   f'<rect x="{coord(sx(q1))}" y="{coord(y - 8)}" '
                   f'width="{coord(max(1.5, sx(q3) - sx(q1)))}" height="16" fill="{colour}" '
                   f'fill-opacity="0.35" stroke="{colour}"/>'
                   f'<line x1="{coord(sx(med))}" x2="{coord(sx(med))}" y1="{coord(y - 8)}" '
                   f'y2="{coord(y + 8)}" stroke="#1d2330" stroke-width="2"/>'
                   f'<circle cx="{coord(sx(mean))}" cy="{coord(y)}" r="3.5" fill="#fff" '
                   f'stroke="#1d2330"/></g>')
    out.append("</svg>")
    return ('<h2 id="scores">Score distributions</h2><p class="note">Each bot\'s final scores: '
            "the whiskers span the lowest to the highest, the box the middle half (quartiles), "
            "the bar is the median and the circle the mean. Hover a row for the figures.</p>"
            + "".join(out))
