"""The standings files of a tournament: ``standings.json``, ``standings.csv``, ``standings.md``.

``standings.json`` is the complete, machine-readable record (full float precision);
``standings.csv`` is one row per bot for spreadsheets (floats to 4 decimals, a standard error
or mean that does not exist yet is an empty cell); ``standings.md`` is for people (the table,
the crosstable, the seat win rates and what the tournament was).

Every file is written atomically (a temporary file in the same folder, flushed to disk, then
renamed over the old one), so a reader such as ``arena standings`` running beside a live
tournament sees either the previous version or the new one, never half a file.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.protocol.messages import FAILURES, Termination
from arena.runner.ratings import Standings
from arena.runner.storage import write_atomic

JSON_NAME = "standings.json"
CSV_NAME = "standings.csv"
MD_NAME = "standings.md"
#: Version of the standings.json layout; bump on an incompatible change.
FORMAT_VERSION = 1

CSV_COLUMNS: tuple[str, ...] = (
    "rank", "bot", "mu", "sigma", "conservative", "games", "rated_games", "wins", "win_rate",
    "mean_rank", "mean_rank_se", "mean_score", "mean_score_se", *FAILURES,
)

#: How the Markdown names the well-known meta keys, in the order it lists them.
META_LABELS: tuple[tuple[str, str], ...] = (
    ("name", "Tournament"),
    ("game", "Game"),
    ("format", "Format"),
    ("schedule", "Schedule"),
    ("seed", "Master seed"),
    ("games", "Games"),
)

_FAILURE_HEADERS = {
    Termination.TIMEOUT: "Timeouts", Termination.CRASH: "Crashes", Termination.ILLEGAL: "Illegal",
    Termination.PROTOCOL: "Protocol",
}


def write_standings(folder: Path, standings: Standings, meta: Mapping[str, Any]) -> list[Path]:
    """Write the three standings files into ``folder`` (created if missing), atomically.

    ``meta`` describes the tournament (plain data; the keys of :data:`META_LABELS` are shown
    by name in the Markdown, any others after them). Returns the paths written: JSON, CSV,
    Markdown. Raises OSError if the folder cannot be written, TypeError/ValueError if
    ``meta`` is not JSON-serialisable.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    contents = (
        (JSON_NAME, standings_json(standings, meta)),
        (CSV_NAME, standings_csv(standings)),
        (MD_NAME, standings_markdown(standings, meta)),
    )
    paths = []
    for name, text in contents:
        path = folder / name
        write_atomic(path, text)
        paths.append(path)
    return paths


def run_complete(folder: Path, games: int) -> bool:
    """Whether a run finished the tournament in ``folder``: its standings file says so, for
    these ``games`` (a file from before later games were added does not count)."""
    try:
        meta = json.loads((folder / JSON_NAME).read_text(encoding="utf-8"))["meta"]
        return meta.get("complete") is True and meta.get("games") == games
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def standings_json(standings: Standings, meta: Mapping[str, Any]) -> str:
    """The text of ``standings.json``: ``{"format_version", "meta", "standings"}``."""
    doc = {"format_version": FORMAT_VERSION, "meta": dict(meta), "standings": standings.to_dict()}
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def standings_csv(standings: Standings) -> str:
    """The text of ``standings.csv``: a header of :data:`CSV_COLUMNS`, one row per bot."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rank, b in enumerate(standings.bots, start=1):
        writer.writerow([
            rank, b.name, _num(b.mu), _num(b.sigma), _num(b.conservative), b.games,
            b.rated_games, b.wins, _num(b.win_rate), _num(b.mean_rank), _num(b.mean_rank_se),
            _num(b.mean_score), _num(b.mean_score_se), *(b.failures[k] for k in FAILURES),
        ])
    return buf.getvalue()


def standings_markdown(standings: Standings, meta: Mapping[str, Any]) -> str:
    """The text of ``standings.md``: what was played, the standings table, the crosstable
    (row bot's wins-losses-draws against the column bot) and the seat win rates."""
    title = meta.get("name", "tournament")
    out = [f"# Standings: {_cell(title)}", ""]
    shown = set()
    for key, label in META_LABELS:
        if key in meta:
            out.append(f"- {label}: {_cell(meta[key])}")
            shown.add(key)
    out.extend(f"- {key}: {_cell(value)}" for key, value in meta.items() if key not in shown)
    rating = standings.rating
    out.append(
        f"- Ratings: TrueSkill (mu {rating['mu']:g}, sigma {rating['sigma']:.3f}, "
        f"beta {rating['beta']:.3f}, tau {rating['tau']:.4f}, "
        f"draw probability {rating['draw_probability']:g}); "
        f"ranked by the conservative rating mu - 3 sigma"
    )
    if standings.rated_games != standings.games:
        out.append(f"- Ratings include {standings.rated_games} of {standings.games} games "
                   "(the rest wait for an earlier game to finish)")
    out.append("")

    head = ["Rank", "Bot", "Conservative", "Mu", "Sigma", "Games", "Wins", "Win rate",
            "Mean rank", "Mean score", *(_FAILURE_HEADERS[k] for k in FAILURES)]
    out.extend(_table_head(head, right_from=2))
    for rank, b in enumerate(standings.bots, start=1):
        out.append(_row([
            str(rank), _cell(b.name), f"{b.conservative:.2f}", f"{b.mu:.2f}", f"{b.sigma:.2f}",
            str(b.games), str(b.wins), _pct(b.win_rate),
            _pm(b.mean_rank, b.mean_rank_se, 2), _pm(b.mean_score, b.mean_score_se, 1),
            *(str(b.failures[k]) for k in FAILURES),
        ]))

    names = [b.name for b in standings.bots]
    out += ["", "## Head to head", "",
            "Wins-losses-draws of the row bot against the column bot, over every game in which "
            "both sat (a beats b when it finishes ahead of b).", ""]
    out.extend(_table_head(["", *(_cell(n) for n in names)], right_from=1))
    for a in names:
        cells = [f"**{_cell(a)}**"]
        for other in names:
            h = standings.crosstable.get(a, {}).get(other)
            cells.append("—" if a == other or h is None else f"{h.wins}-{h.losses}-{h.draws}")
        out.append(_row(cells))

    out += ["", "## Seats", "",
            "How often the bot in each seat (seat 0 plays first) won its game.", ""]
    out.extend(_table_head(["Seat", "Games", "Wins", "Win rate"], right_from=1))
    for s in standings.seat_stats:
        out.append(_row([str(s.seat), str(s.games), str(s.wins), _pct(s.win_rate)]))
    return "\n".join(out) + "\n"


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.4f}"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _pm(mean: float | None, se: float | None, digits: int) -> str:
    if mean is None:
        return "–"
    return f"{mean:.{digits}f}" + ("" if se is None else f" ± {se:.{digits}f}")


def _cell(value: object) -> str:
    """Text safe inside a Markdown table cell."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table_head(head: list[str], right_from: int) -> list[str]:
    align = ["---" if i < right_from else "---:" for i in range(len(head))]
    return [_row(head), _row(align)]

