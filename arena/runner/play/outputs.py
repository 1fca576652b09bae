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
from typing import TYPE_CHECKING, Any

from arena.protocol.messages import FAILURES, Termination
from arena.runner.game.disk import write_atomic
from arena.runner.play.journal import Progress
from arena.runner.play.ratings import compute_standings
from arena.runner.play.standings import Standings
from arena.stats import text
from arena.stats.common import rounded

if TYPE_CHECKING:  # the statistics (numpy) are imported by those that compute them
    from arena.stats.summary import TournamentStats

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


def write_standings(folder: Path, standings: Standings, meta: Mapping[str, Any],
                    statistics: TournamentStats | None = None) -> list[Path]:
    """Write the three standings files into ``folder`` (created if missing), atomically.

    ``meta`` describes the tournament (plain data; the keys of :data:`META_LABELS` are shown
    by name in the Markdown, any others after them). ``statistics``, the figures with their
    uncertainty (:func:`arena.stats.summary.tournament_stats`), go into the JSON and the
    Markdown. Returns the paths written: JSON, CSV, Markdown. Raises OSError if the folder
    cannot be written, TypeError/ValueError if ``meta`` is not JSON-serialisable.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    contents = (
        (JSON_NAME, standings_json(standings, meta, statistics)),
        (CSV_NAME, standings_csv(standings)),
        (MD_NAME, standings_markdown(standings, meta, statistics)),
    )
    paths = []
    for name, body in contents:
        path = folder / name
        write_atomic(path, body)
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


def standings_data(folder: Path, progress: Progress,
                   table: Standings | None = None) -> dict[str, Any]:
    """A tournament's standings as one JSON-ready object (``arena standings --json``), from
    its journal's ``progress``: name, games finished, issued and scheduled (``total``, None
    when only the issued are known), whether a run completed it, why its stopping rule
    stopped it (``stopped_by``, only when it did), and the standings' own keys. ``table``:
    the standings when read already, else the progress's ratings' (read with ``ratings``),
    else those of its games rated anew."""
    if table is None:
        table = (progress.ratings.standings() if progress.ratings is not None
                 else compute_standings(progress.bots, progress.outcomes))
    games = table.games
    stopped = {} if progress.stopped_by is None else {"stopped_by": progress.stopped_by}
    return {"name": progress.name, "games": games, "issued": progress.issued,
            "total": progress.total, "complete": run_complete(folder, games), **stopped,
            **table.to_dict()}


def standings_json(standings: Standings, meta: Mapping[str, Any],
                   statistics: TournamentStats | None = None) -> str:
    """The text of ``standings.json``: ``{"format_version", "meta", "standings"}``, and
    ``"statistics"`` when given (the object ``arena stats --json`` prints, less the name).
    Figures keep :data:`~arena.stats.common.FIGURE_DIGITS` significant digits, so the same
    journal gives the same file on any machine."""
    doc = {"format_version": FORMAT_VERSION, "meta": dict(meta), "standings": standings.to_dict()}
    if statistics is not None:
        doc["statistics"] = statistics.to_dict()
    return json.dumps(rounded(doc), indent=2, allow_nan=False) + "\n"


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


def standings_markdown(standings: Standings, meta: Mapping[str, Any],
                       statistics: TournamentStats | None = None) -> str:
    """The text of ``standings.md``: what was played, the standings table, the crosstable
    (row bot's wins-losses-draws against the column bot) and the seat win rates; with
    ``statistics``, also the Plackett–Luce strengths, each pair's head to head and two-player
    match figures, and the seats' figures, all with 95% intervals."""
    title = meta.get("name", "tournament")
    out = [f"# Standings: {_cell(title)}", ""]
    shown = set()
    for key, label in META_LABELS:
        if key in meta:
            out.append(f"- {label}: {_cell(meta[key])}")
            shown.add(key)
    stopped = meta.get("stopped_by")
    if isinstance(stopped, Mapping) and "summary" in stopped:  # the full record is the JSON's
        out.append(f"- Stopped by its rule: {_cell(stopped['summary'])}")
        shown.add("stopped_by")
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

    if statistics is not None:
        out += _statistics_markdown(statistics)
        return "\n".join(out) + "\n"
    out += ["", "## Seats", "",
            "How often the bot in each seat (seat 0 plays first) won its game.", ""]
    out.extend(_table_head(["Seat", "Games", "Wins", "Win rate"], right_from=1))
    for s in standings.seat_stats:
        out.append(_row([str(s.seat), str(s.games), str(s.wins), _pct(s.win_rate)]))
    return "\n".join(out) + "\n"


def _statistics_markdown(st: TournamentStats) -> list[str]:
    """The Markdown sections of the figures with their 95% intervals."""
    pl = st.plackett_luce
    out = ["", "## Strength (Plackett–Luce)", "",
           "Strengths fitted to the finishing orders, on an Elo scale (400 log10 of the "
           f"strength, centred). 95% intervals: {pl.replicates} bootstrap resamplings of the "
           f"{pl.duplicate_sets} duplicate sets (seed {pl.seed}). {text.groups_note(pl)}"
           .rstrip(), ""]
    group = ["Group"] if pl.separated else []
    out.extend(_table_head(["Rank", "Bot", *group, "Rating", "95% interval"], right_from=2))
    for rank, i in enumerate(pl.order(), start=1):
        shown = [str(pl.groups.of[i] + 1)] if pl.separated else []
        out.append(_row([str(rank), _cell(pl.bots[i]), *shown, *text.rating_cells(pl, i)]))

    index = {b: i for i, b in enumerate(pl.bots)}
    out += ["", "### Pairs", "",
            "For each pair that met: games together, how often each finished ahead of the "
            "other and level; A ahead: the share of the decided ones, with its Wilson 95% "
            "interval and the exact sign test's p; Plackett–Luce: P(A ahead of B) under the "
            "fit, with its bootstrap 95% interval (across groups, a one-sided bound).", ""]
    out.extend(_table_head(["A", "B", "Games", "A ahead", "B ahead", "Level", "A ahead %",
                            "95% interval", "p", "Plackett–Luce %", "95% interval"],
                           right_from=2))
    for h in st.head_to_head:
        ia, ib = index.get(h.a), index.get(h.b)
        model = ["-", "–"]
        if ia is not None and ib is not None:
            model = [text.pct(pl.p_ahead(ia, ib)),
                     text.bracket(pl.p_ahead_interval(ia, ib), 1, 100)]
        out.append(_row([
            _cell(h.a), _cell(h.b), str(h.games), str(h.ahead), str(h.behind), str(h.level),
            text.pct(h.share), text.bracket(h.interval(), 1, 100), text.p_value(h.p_value),
            *model,
        ]))

    if st.matches:
        out += ["", "## Two-player matches", "",
                "Each pair's two-player games from A's side, counted by game pair (the two "
                "seat orders of one table and seed), as chess engine testers count them: "
                "Elo with its 95% interval (one-sided when every pair was won or lost: "
                "then there is no finite estimate), likelihood of superiority (LOS), draws. "
                "`arena compare` runs an SPRT on them.", ""]
        out.extend(_table_head(["A", "B", "Games", "W-D-L", "Pairs (LL LD WL+DD WD WW)",
                                "Score %", "Elo", "95% interval", "LOS %", "Draws %"],
                               right_from=2))
        for m in st.matches:
            out.append(_row([
                _cell(m.a), _cell(m.b), str(m.games), f"{m.wins}-{m.draws}-{m.losses}",
                " ".join(map(str, m.pentanomial))
                + (f" ({m.unpaired} unpaired)" if m.unpaired else ""),
                text.pct(m.score), *text.elo_cells(m),
                text.pct(m.los), text.pct(m.draw_ratio),
            ]))

    out += ["", "## Seats", "",
            "Per table size and seat (seat 0 plays first): how often the seat won (first "
            "place, shared or not, without a failure; Wilson 95% interval) and its mean score "
            "and rank (normal 95% intervals).", ""]
    out.extend(_table_head(["Players", "Seat", "Games", "Win rate %", "95% interval",
                            "Mean score", "95% interval", "Mean rank", "95% interval"],
                           right_from=0))
    for f in st.seats:
        out.append(_row([
            str(f.players), str(f.seat), str(f.games), text.pct(f.win_rate),
            text.bracket(f.win_interval(), 1, 100), text.num(f.mean_score),
            text.bracket(f.score_interval()), text.num(f.mean_rank, 2),
            text.bracket(f.rank_interval(), 2),
        ]))
    return out


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

