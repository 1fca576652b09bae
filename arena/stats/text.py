"""Figures as text, the same in every place that prints them (``arena stats``, ``arena
compare``, ``standings.md``, the HTML report): a missing or undefined figure is "-", an
unbounded one ±∞, and an interval is "[low, high]", which stays clear when an end is negative.

A figure that is no estimate says what is known instead: a match won or lost in every pair
has no finite Elo, only a one-sided bound ("won every pair: no finite estimate; at least 137.1
at 95%"), and bots in different Plackett–Luce groups have no finite rating gap.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from arena.stats.common import Interval

if TYPE_CHECKING:
    from arena.stats.match import Match
    from arena.stats.plackett_luce import PlackettLuce


def num(x: float | None, digits: int = 1) -> str:
    """``x`` to ``digits`` decimals; "-" for None or NaN, "+∞"/"-∞" for infinities."""
    if x is None or math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+∞" if x > 0 else "-∞"
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text  # no "-0.0"


def pct(x: float | None, sign: str = "") -> str:
    """A proportion as a percentage to one decimal (``sign``: "%" or nothing after it)."""
    return "-" if x is None else f"{100 * x:.1f}{sign}"


def p_value(p: float) -> str:
    """A p-value: three decimals, or scientific notation under 0.001."""
    return f"{p:.1e}" if p < 0.001 else f"{p:.3f}"


def interval(ci: Interval | None, digits: int = 1, scale: float = 1.0) -> str:
    """An interval as "[low, high]" (each end times ``scale``), or "" for none."""
    return "" if ci is None else bracket(ci, digits, scale)


def bracket(ci: Interval | None, digits: int = 1, scale: float = 1.0) -> str:
    """An interval as "[low, high]" (clear when an end is negative), or "–" for none."""
    if ci is None:
        return "–"
    return f"[{num(ci.low * scale, digits)}, {num(ci.high * scale, digits)}]"


def one_sided(ci: Interval, digits: int = 1) -> str:
    """What an interval with one unbounded end says: "at least X" or "at most X"."""
    if math.isinf(ci.high) and math.isfinite(ci.low):
        return f"at least {num(ci.low, digits)}"
    if math.isinf(ci.low) and math.isfinite(ci.high):
        return f"at most {num(ci.high, digits)}"
    return bracket(ci, digits)


def _all_alike(m: Match) -> str:
    """How a match with no finite Elo went: "won every pair" or "lost every game"."""
    return f"{'won' if (m.score or 0) > 0.5 else 'lost'} every {m.unit}"


def elo_cells(m: Match) -> tuple[str, str]:
    """A match's Elo as two cells, the figure (with fastchess's ±) and its 95% interval;
    without a finite Elo, what the record was and the one-sided bound."""
    elo, ci = m.elo, m.elo_interval()
    if elo is None or ci is None:
        return "-", "–"
    if math.isinf(elo):
        return f"no finite estimate ({_all_alike(m)})", one_sided(ci)
    err = m.elo_error
    shown = num(elo) if err is None or math.isinf(err) else f"{num(elo)} ± {num(err)}"
    return shown, bracket(ci)


def elo_text(m: Match) -> str:
    """A match's Elo in one line: "105.3 ± 107.3 [8.0, 222.5]", or without a finite Elo
    "won every pair: no finite estimate; at least 286.0 at 95%"."""
    elo, ci = m.elo, m.elo_interval()
    if elo is not None and ci is not None and math.isinf(elo):
        return f"{_all_alike(m)}: no finite estimate; {one_sided(ci)} at 95%"
    shown, within = elo_cells(m)
    return shown if within == "–" else f"{shown} {within}"


def rating_cells(pl: PlackettLuce, i: int) -> tuple[str, str]:
    """Bot i's Plackett–Luce rating and its interval as shown: centred on its group when the
    bots are separated, and "alone in its group" when there is nothing to rate it against."""
    rating = pl.shown_rating(i)
    if rating is None:
        return "no finite estimate (alone in its group)", "–"
    return num(rating), bracket(pl.rating_interval(i))


def groups_note(pl: PlackettLuce) -> str:
    """What a table of ratings in several groups means ("" for one group)."""
    if not pl.separated:
        return ""
    listed = "; ".join(f"{k} {', '.join(pl.bots[i] for i in g)}"
                       for k, g in enumerate(pl.groups.members, start=1))
    return (f"The bots fall into {len(pl.groups.members)} groups ({listed}): whenever bots of "
            "two groups met, directly or through others, the bot of the earlier group finished "
            "ahead, so the gap between groups has no finite estimate. Ratings are centred "
            "within each group; across groups P(A ahead of B) is 100% in the fit's limit, "
            "with a one-sided 95% bound from the duplicate sets in which both sat.")
