"""``arena stats`` and ``arena compare``: a tournament's statistics with their uncertainty,
from its journal (see :mod:`arena.stats`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from arena.cli_common import err, fail, out
from arena.stats.common import Interval, rounded
from arena.stats.text import interval
from arena.stats.text import num as _num
from arena.stats.text import p_value as _p
from arena.stats.text import pct as _pct

Folder = Annotated[Path, typer.Argument(help="A tournament's output folder.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _read(folder: Path) -> tuple[str, list[str], list[Any]]:
    """The tournament's name, bots and finished games, or a one-line error."""
    from arena.runner.store import JournalError, read_progress

    try:
        progress = read_progress(folder)
    except JournalError as exc:
        fail(str(exc))
    if not progress.outcomes:
        fail(f"{folder}: no game has finished yet")
    return progress.name, progress.bots, progress.outcomes


def _played(folder: Path, which: str, bots: list[str], outcomes: list[Any]) -> str:
    """The bot that has played here that ``which`` names: itself, or in a league the one
    version of that name that has (said on stderr); or a one-line error."""
    from arena.league.store import versions_named

    played = {x for o in outcomes for x in o.bots}
    known = [x for x in dict.fromkeys([*bots, *sorted(played)]) if x in played]
    found = versions_named(which, known)
    if len(found) > 1:
        fail(f"{folder}: {which} has played here as {len(found)} versions: name one "
             f"({', '.join(found)})")
    if not found:
        fail(f"{folder}: no bot named {which!r} has played here (bots: {', '.join(known)})")
    if found[0] != which:
        err.print(f"{which}: {found[0]}, the one version of it that has played here",
                  markup=False)
    return found[0]


def _table(title: str, caption: str = "") -> Table:
    return Table(title=title, caption=caption or None, box=box.SIMPLE_HEAD,
                 title_justify="left", title_style="bold", caption_justify="left",
                 padding=(0, 1), pad_edge=False, collapse_padding=True)


def _ci(ci: Interval | None, digits: int = 1, scale: float = 1.0) -> str:
    """An interval as "low–high", dimmed (Rich markup)."""
    return f"[dim]{interval(ci, digits, scale)}[/]" if ci is not None else ""


def _with(value: str, ci: Interval | None, digits: int = 1, scale: float = 1.0) -> str:
    """A figure followed by its interval."""
    return f"{value} {_ci(ci, digits, scale)}".rstrip()


def stats(
    folder: Folder,
    bootstrap: Annotated[int, typer.Option(
        "--bootstrap", min=0, help="Bootstrap replicates of the Plackett–Luce fit.")] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap's resampling.")] = 0,
    as_json: AsJson = False,
) -> None:
    """Statistics with 95% intervals: Plackett–Luce strengths, each pair's head to head, and
    each seat's advantage. Also while a run is going, and from a read-only folder."""
    from arena.stats.summary import tournament_stats

    name, bots, outcomes = _read(folder)
    st = tournament_stats(outcomes, bots, replicates=bootstrap, seed=seed)
    if as_json:
        typer.echo(json.dumps(rounded({"name": name, **st.to_dict()})))
        return
    pl = st.plackett_luce
    t = _table(f"{name}: {st.games} games; Plackett–Luce strengths",
               f"Elo scale (400 log10 of the strength, centred). 95% intervals: {pl.replicates} "
               f"bootstrap resamplings of the {pl.duplicate_sets} duplicate sets (seed "
               f"{pl.seed}).")
    for col in ("#", "Bot", "Rating (95%)"):
        t.add_column(col, justify="left" if col == "Bot" else "right", no_wrap="(" not in col)
    for rank, i in enumerate(pl.order(), start=1):
        t.add_row(str(rank), escape(pl.bots[i]),
                  _with(_num(pl.rating(i)), pl.rating_interval(i)))
    out.print(t)
    index = {b: i for i, b in enumerate(pl.bots)}
    t = _table("Head to head",
               "G games together; A, B: times each finished ahead, = level. A%: how often A "
               "was ahead when one was (level finishes left out), Wilson 95% interval; p: "
               "exact sign test. PL%: P(A ahead of B) under the Plackett–Luce fit, bootstrap "
               "95% interval.")
    for n, col in enumerate(("A", "B", "G", "A", "B", "=", "A% (95%)", "p", "PL% (95%)")):
        # On a narrow terminal a figure's interval goes under it; counts are never cut.
        t.add_column(col, justify="left" if n < 2 else "right", no_wrap="(" not in col)
    for h in st.head_to_head:
        ia, ib = index.get(h.a), index.get(h.b)
        model = "-" if ia is None or ib is None else _with(
            _pct(pl.p_ahead(ia, ib)), pl.p_ahead_interval(ia, ib), 1, 100)
        t.add_row(escape(h.a), escape(h.b), str(h.games), str(h.ahead), str(h.behind),
                  str(h.level), _with(_pct(h.share), h.interval(), 1, 100), _p(h.p_value),
                  model)
    out.print(t)
    t = _table("Seats",
               "Per table size (k players) and seat (0 plays first). Win%: first place, shared "
               "or not, without a failure, Wilson 95% interval. Score, rank: mean, normal 95% "
               "interval.")
    for col in ("k", "Seat", "Games", "Win% (95%)", "Score (95%)", "Rank (95%)"):
        t.add_column(col, justify="right", no_wrap="(" not in col)
    for s in st.seats:
        t.add_row(str(s.players), str(s.seat), str(s.games),
                  _with(_pct(s.win_rate), s.win_interval(), 1, 100),
                  _with(_num(s.mean_score), s.score_interval()),
                  _with(_num(s.mean_rank, 2), s.rank_interval(), 2))
    out.print(t)


def compare(
    folder: Folder,
    a: Annotated[str, typer.Argument(help="A bot (the figures are from its side).")],
    b: Annotated[str, typer.Argument(help="The bot it is compared with.")],
    elo0: Annotated[float, typer.Option(
        "--elo0", help="The SPRT's H0: A is better by elo0.")] = 0.0,
    elo1: Annotated[float, typer.Option(
        "--elo1", help="The SPRT's H1: A is better by elo1.")] = 10.0,
    alpha: Annotated[float, typer.Option(help="The SPRT's false positive rate.")] = 0.05,
    beta: Annotated[float, typer.Option(help="The SPRT's false negative rate.")] = 0.05,
    model: Annotated[str, typer.Option(
        help="What elo0 and elo1 are: logistic or normalized (nElo) Elo.")] = "logistic",
    as_json: AsJson = False,
) -> None:
    """Bot A against bot B over their two-player games, counted by game pair (the two seat
    rotations of one table): Elo with a 95% interval, LOS, draw ratio, and an SPRT."""
    from arena.stats.match import match

    _, bots, outcomes = _read(folder)
    a, b = (_played(folder, bot, bots, outcomes) for bot in (a, b))
    try:
        m = match(outcomes, a, b)
        if m.games == 0:
            fail(f"{a} and {b} never met at a two-player table in {folder}; `arena stats` "
                 "compares bots at tables of any size")
        test = m.sprt(elo0, elo1, alpha, beta, model)  # type: ignore[arg-type]
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps(rounded({**m.to_dict(), "sprt": test.to_dict()})))
        return
    unit = (f"{m.pairs} pairs" if m.pairs else "no pairs: each game counted alone")
    t = _table(f"{escape(a)} vs {escape(b)}: {m.games} games, {unit}",
               "Intervals are 95%. Elo ± is half the interval's width, as fastchess prints it.")
    t.add_column("Figure", no_wrap=True)
    t.add_column("Value")
    ll, ld, mid, wd, ww = m.pentanomial
    t.add_row("Games (W-D-L)", f"{m.wins}-{m.draws}-{m.losses}")
    t.add_row("Pairs (LL LD WL+DD WD WW)", f"{ll} {ld} {mid} {wd} {ww}"
              + (f" ({m.unpaired} unpaired games left out)" if m.unpaired else ""))
    t.add_row("Score", _with(_pct(m.score, "%"), m.score_interval(), 1, 100))
    t.add_row("Elo", _with(f"{_num(m.elo)} ± {_num(m.elo_error)}", m.elo_interval()))
    t.add_row("nElo", _with(_num(m.nelo), m.nelo_interval()))
    t.add_row("LOS", _pct(m.los, "%"))
    t.add_row("Draws (games, pairs)", f"{_pct(m.draw_ratio, '%')}, {_pct(m.pair_draw_ratio, '%')}")
    verdict = {"H1": f"H1 accepted: {escape(a)} is better by {elo1:g} or more",
               "H0": f"H0 accepted: {escape(a)} is not better by more than {elo0:g}",
               "continue": "continue: play more"}[test.verdict]
    t.add_row("SPRT", f"{model} Elo [{elo0:g}, {elo1:g}], α {alpha:g}, β {beta:g}: LLR "
                      f"{test.llr:.2f} in ({test.lower:.2f}, {test.upper:.2f}): {verdict}")
    out.print(t)
