"""Figures as text, the same in every place that prints them (``arena stats``, ``arena
compare``, ``standings.md``): a missing or undefined figure is "-", an unbounded one ±∞, and
an interval is "low–high"."""

from __future__ import annotations

import math

from arena.stats.common import Interval


def num(x: float | None, digits: int = 1) -> str:
    """``x`` to ``digits`` decimals; "-" for None or NaN, "+∞"/"-∞" for infinities."""
    if x is None or math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+∞" if x > 0 else "-∞"
    return f"{x:.{digits}f}"


def pct(x: float | None, sign: str = "") -> str:
    """A proportion as a percentage to one decimal (``sign``: "%" or nothing after it)."""
    return "-" if x is None else f"{100 * x:.1f}{sign}"


def p_value(p: float) -> str:
    """A p-value: three decimals, or scientific notation under 0.001."""
    return f"{p:.1e}" if p < 0.001 else f"{p:.3f}"


def interval(ci: Interval | None, digits: int = 1, scale: float = 1.0) -> str:
    """An interval as "low–high" (each end times ``scale``), or "" for none."""
    if ci is None:
        return ""
    return f"{num(ci.low * scale, digits)}–{num(ci.high * scale, digits)}"


def bracket(ci: Interval | None, digits: int = 1, scale: float = 1.0) -> str:
    """An interval as "[low, high]" (clear when an end is negative), or "–" for none."""
    if ci is None:
        return "–"
    return f"[{num(ci.low * scale, digits)}, {num(ci.high * scale, digits)}]"
