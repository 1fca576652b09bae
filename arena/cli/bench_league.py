"""The figures of ``arena bench league`` (:mod:`arena.cli.bench`), as it prints them: the
settling leagues' cells, and the league at scale (:mod:`arena.bench.leaguescale`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.cli.common import err


def ratio_cell(setting: dict[str, Any]) -> str:
    """random ÷ informative; a lower bound when random tables hit the cap, unknown when
    informative ones did."""
    if not setting["informative"]["all_reached"]:
        return "? (capped)"
    return ("" if setting["random"]["all_reached"] else "≥ ") + f"{setting['ratio']:.2f}"


def games_cell(policy: dict[str, Any]) -> str:
    """The mean games until every sigma was under the threshold (capped: not in every
    league)."""
    return f"{policy['games_to_sigma']:,.0f}" + ("" if policy["all_reached"] else " (capped)")


def mean_games_cell(policy: dict[str, Any]) -> str:
    """The mean games until the clear pairs were in order, and in how many leagues if not
    in all of them."""
    mean = policy["games_to_order"]
    text = "never" if mean is None else f"{mean:,.0f}"
    if policy["order_reached"] < len(policy["games_to_sigma_each"]):
        text += f" ({policy['order_reached']} of {len(policy['games_to_sigma_each'])} leagues)"
    return text


def league_scale(bots: int, players: int, tables: int, seed: int, journal: Path | None,
                  journal_games: int, quiet: bool, start: Path | None = None,
                  start_replay: bool = True) -> dict[str, Any]:
    """The league at scale (:mod:`arena.bench.leaguescale`): table choice, the runner, with
    ``journal``, a long journal written and, with ``start``, the runner's start on that
    league (``start_replay``: also by rating every game again)."""
    from arena.bench.leaguescale import (
        choice_figures,
        runner_in_fresh_process,
        start_in_fresh_process,
        write_journal,
    )

    scale: dict[str, Any] = {"choice": choice_figures(bots, players, seed, choices=20)}
    if tables:
        scale["runner"] = runner_in_fresh_process(bots, players, tables, seed)
    if journal is not None:
        def said(games: int) -> None:
            if not quiet:
                err.print(f"journal: {games:,} games written")

        scale["journal"] = write_journal(journal, bots, players, journal_games, seed, said)
    if start is not None:
        scale["start"] = start_in_fresh_process(start, start_replay)
    return scale


def scale_rows(scale: dict[str, Any]) -> list[tuple[str, str]]:
    """The rows of the league-at-scale table."""
    c = scale["choice"]
    rows = [(f"table choice at {c['entrants']:,} entrants, {c['players']}-player tables "
             f"(median of {c['choices']})",
             f"{c['screened_ms']:.2f} ms (target ≤ {c['target_ms']:g} ms: "
             f"{'met' if c['met'] else 'not met'}; processor {c['screened_cpu_ms']:.2f} ms)"),
            ("the same choices computed in full (before the screening)",
             f"{c['full_ms']:.2f} ms (full ÷ screened × {c['speedup']:.1f}; "
             f"processor {c['full_cpu_ms']:.2f} ms)")]
    if "runner" in scale:
        r = scale["runner"]
        rows += [(f"league runner, {r['entrants']:,} versions: a table issued, journal "
                  "committed (median, most)",
                  f"{r['issue_ms_median']:.1f} ms, {r['issue_ms_max']:.1f} ms"),
                 ("league runner: the table's choice alone (median)",
                  f"{r['choice_ms_median']:.2f} ms (processor "
                  f"{r['choice_cpu_ms_median']:.2f} ms)"),
                 (f"league runner: its journal after {r['games']:,} games",
                  f"{r['journal_bytes'] / 2**20:.1f} MiB"),
                 ("league runner: peak memory (resident)",
                  f"{r['peak_rss_bytes'] / 2**20:.0f} MiB")]
    if "journal" in scale:
        j = scale["journal"]
        rows += [(f"journal written: {j['games']:,} games in {j['folder']}",
                  f"{j['journal_bytes'] / 2**20:.0f} MiB "
                  f"({j['journal_bytes'] / j['games']:.0f} bytes a game), "
                  f"{j['seconds']:.0f} s")]
        if "columns_seconds" in j:
            rows += [("its report's columns kept at the end, as a league run's stop keeps them",
                      f"{j['columns_seconds']:.2f} s (processor "
                      f"{j['columns_cpu_seconds']:.2f} s)")]
    if "start" in scale:
        rows += start_rows(scale["start"])
    return rows


def start_rows(start: dict[str, Any]) -> list[tuple[str, str]]:
    """The rows of the league runner's start, each way, and the replay ÷ the checkpoint."""
    shown = {"checkpoint": "from the rating checkpoint",
             "checkpoint_floors": "from the checkpoint, with --until-sigma's floor watch",
             "replay": "by rating every game again (before)"}
    rows = []
    for way, name in shown.items():
        if way in start:
            f = start[way]
            times = f["cpu_seconds"] / start["checkpoint"]["cpu_seconds"]
            ratio = (f"; processor ÷ from the checkpoint's × {times:.1f}" if way == "replay"
                     else "")
            rows.append((f"league runner's start, {f['games']:,} games, {name} (fresh process)",
                         f"{f['seconds']:.2f} s (processor {f['cpu_seconds']:.2f} s), peak "
                         f"{f['peak_rss_bytes'] / 2**20:.0f} MiB" + ratio))
    if "played" in start:
        f = start["played"]
        rows.append((f"league runner started on {f['games']:,} games from the checkpoint, then "
                     f"{f['played_games']:,} games played: peak memory (resident)",
                     f"{f['played_peak_rss_bytes'] / 2**20:.0f} MiB (at its start "
                     f"{f['peak_rss_bytes'] / 2**20:.0f} MiB), beside the journal's "
                     f"{start['journal_bytes'] / 2**20:.0f} MiB"))
    return rows
