"""``arena stats`` and ``arena compare``: a tournament's statistics with their uncertainty,
from its journal (see :mod:`arena.stats`).

``compare`` runs its SPRT with the tournament's own settings when its file has an SPRT in
``[stop]`` (the journal keeps them), so that it tests what the run tested; an option given
overrides one setting, and the table says where each came from."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from arena.cli.common import err, fail, out

if TYPE_CHECKING:
    from rich.table import Table

    from arena.runner.play.journal import Progress
    from arena.stats.common import Interval
    from arena.stats.summary import TournamentStats

Folder = Annotated[Path, typer.Argument(help="A tournament's output folder.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _read(folder: Path) -> Progress:
    """The tournament's progress with at least one finished game, or a one-line error."""
    from arena.runner.play.journal import JournalError
    from arena.runner.play.reading import read_progress

    try:
        progress = read_progress(folder)
    except JournalError as exc:
        fail(str(exc))
    if not progress.outcomes:
        fail(f"{folder}: no game has finished yet")
    return progress


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


def _table(title: str) -> Table:
    from rich import box
    from rich.table import Table

    return Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", title_style="bold",
                 padding=(0, 1), pad_edge=False, collapse_padding=True)


def _print(table: Table, note: str) -> None:
    """A table and its note under it, a paragraph of its own: as a caption, Rich would wrap
    it to the table's width, even where nothing else is wrapped (a pipe)."""
    out.print(table)
    out.print(note, style="table.caption", markup=False)
    out.print()


def _ci(ci: Interval | None, digits: int = 1, scale: float = 1.0) -> str:
    """An interval as "[low, high]", dimmed (Rich markup)."""
    from arena.stats.text import interval

    return f"[dim]{escape(interval(ci, digits, scale))}[/]" if ci is not None else ""


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
    """Statistics with 95% intervals: Plackett–Luce strengths, each pair's head to head, each
    two-player pair's Elo and the LOS matrix, and each seat's advantage. Also while a run is
    going, and from a read-only folder."""
    from arena.stats.common import rounded
    from arena.stats.summary import tournament_stats

    progress = _read(folder)
    st = tournament_stats(progress.outcomes, progress.bots, replicates=bootstrap, seed=seed)
    if as_json:
        typer.echo(json.dumps(rounded({"name": progress.name, **st.to_dict()})))
        return
    _print(*_strengths(progress.name, st))
    _print(*_head_to_head(st))
    if st.matches:
        _print(*_matches(st))
        _print(*_los_matrix(st))
    _print(*_seats(st))


def _strengths(name: str, st: TournamentStats) -> tuple[Table, str]:
    from arena.stats import text

    pl = st.plackett_luce
    t = _table(f"{escape(name)}: {st.games} games; Plackett–Luce strengths")
    note = (f"Elo scale (400 log10 of the strength, centred). 95% intervals: {pl.replicates} "
            f"bootstrap resamplings of the {pl.duplicate_sets} duplicate sets (seed "
            f"{pl.seed}). {text.groups_note(pl)}").rstrip()
    cols = ("#", "Bot", "Group", "Rating (95%)") if pl.separated else ("#", "Bot", "Rating (95%)")
    for col in cols:
        t.add_column(col, justify="left" if col == "Bot" else "right", no_wrap="(" not in col)
    for rank, i in enumerate(pl.order(), start=1):
        rating, within = text.rating_cells(pl, i)
        group = [str(pl.groups.of[i] + 1)] if pl.separated else []
        t.add_row(str(rank), escape(pl.bots[i]), *group,
                  rating if within == "–" else f"{rating} [dim]{within}[/]")
    return t, note


def _head_to_head(st: TournamentStats) -> tuple[Table, str]:
    from arena.stats import text

    pl = st.plackett_luce
    index = {b: i for i, b in enumerate(pl.bots)}
    t = _table("Head to head")
    note = ("G games together; A, B: times each finished ahead, = level. A%: how often A "
            "was ahead when one was (level finishes left out), Wilson 95% interval; p: "
            "exact sign test. PL%: P(A ahead of B) under the Plackett–Luce fit, bootstrap "
            "95% interval (across groups, a one-sided bound).")
    for n, col in enumerate(("A", "B", "G", "A", "B", "=", "A% (95%)", "p", "PL% (95%)")):
        # On a narrow terminal a figure's interval goes under it; counts are never cut.
        t.add_column(col, justify="left" if n < 2 else "right", no_wrap="(" not in col)
    for h in st.head_to_head:
        ia, ib = index.get(h.a), index.get(h.b)
        model = "-" if ia is None or ib is None else _with(
            text.pct(pl.p_ahead(ia, ib)), pl.p_ahead_interval(ia, ib), 1, 100)
        t.add_row(escape(h.a), escape(h.b), str(h.games), str(h.ahead), str(h.behind),
                  str(h.level), _with(text.pct(h.share), h.interval(), 1, 100),
                  text.p_value(h.p_value), model)
    return t, note


def _matches(st: TournamentStats) -> tuple[Table, str]:
    from arena.stats import text

    t = _table("Two-player Elo")
    note = ("Each pair's two-player games from A's side, counted by game pair (the two seat "
            "orders of one table), as `arena compare` counts them: Elo ± half its 95% "
            "interval, the interval, and LOS, the likelihood that A is stronger.")
    for n, col in enumerate(("A", "B", "Games", "W-D-L", "Pairs", "Elo (95%)", "LOS")):
        t.add_column(col, justify="left" if n < 2 else "right", no_wrap=n != 5)
    for m in st.matches:
        t.add_row(escape(m.a), escape(m.b), str(m.games), f"{m.wins}-{m.draws}-{m.losses}",
                  str(m.pairs), escape(text.elo_text(m)), text.pct(m.los, "%"))
    return t, note


def _los_matrix(st: TournamentStats) -> tuple[Table, str]:
    """LOS of each row's bot over each column's (numbered as the rows), as ordo prints it."""
    from arena.stats import text

    shown = [b for b in st.bots if any(b in (m.a, m.b) for m in st.matches)]
    los: dict[tuple[str, str], float | None] = {}
    for m in st.matches:
        los[(m.a, m.b)] = m.los
        los[(m.b, m.a)] = None if m.los is None else 1 - m.los
    t = _table("LOS matrix")
    t.add_column("#", justify="right")
    t.add_column("Bot", no_wrap=True)
    for k in range(1, len(shown) + 1):
        t.add_column(str(k), justify="right", no_wrap=True)
    for k, a in enumerate(shown, start=1):
        cells = ["" if a == b else text.pct(los.get((a, b))) for b in shown]
        t.add_row(str(k), escape(a), *cells)
    return t, ("P(the row's bot is stronger than the column's), in percent, from their "
               "two-player games; - where they never met.")


def _seats(st: TournamentStats) -> tuple[Table, str]:
    from arena.stats import text

    t = _table("Seats")
    note = ("Per table size (k players) and seat (0 plays first). Win%: first place, shared "
            "or not, without a failure, Wilson 95% interval. Score, rank: mean, normal 95% "
            "interval.")
    for col in ("k", "Seat", "Games", "Win% (95%)", "Score (95%)", "Rank (95%)"):
        t.add_column(col, justify="right", no_wrap="(" not in col)
    for s in st.seats:
        t.add_row(str(s.players), str(s.seat), str(s.games),
                  _with(text.pct(s.win_rate), s.win_interval(), 1, 100),
                  _with(text.num(s.mean_score), s.score_interval()),
                  _with(text.num(s.mean_rank, 2), s.rank_interval(), 2))
    return t, note


def compare(
    folder: Folder,
    a: Annotated[str, typer.Argument(help="A bot (the figures are from its side).")],
    b: Annotated[str, typer.Argument(help="The bot it is compared with.")],
    elo0: Annotated[float | None, typer.Option(
        "--elo0", help="The SPRT's H0: A is better by elo0. Default: the tournament's "
                       "[stop] sprt, else 0.")] = None,
    elo1: Annotated[float | None, typer.Option(
        "--elo1", help="The SPRT's H1: A is better by elo1. Default: the tournament's, "
                       "else 10.")] = None,
    alpha: Annotated[float | None, typer.Option(
        help="The SPRT's false positive rate. Default: the tournament's, else 0.05.")] = None,
    beta: Annotated[float | None, typer.Option(
        help="The SPRT's false negative rate. Default: the tournament's, else 0.05.")] = None,
    model: Annotated[str | None, typer.Option(
        help="What elo0 and elo1 are: logistic or normalized (nElo) Elo. Default: the "
             "tournament's, else logistic.")] = None,
    as_json: AsJson = False,
) -> None:
    """Bot A against bot B over their two-player games, counted by game pair (the two seat
    rotations of one table): Elo with a 95% interval, LOS, draw ratio, and an SPRT, by default
    with the settings of the tournament's own SPRT if its file has one."""
    from arena.stats import text
    from arena.stats.common import rounded
    from arena.stats.match import match

    progress = _read(folder)
    a, b = (_played(folder, bot, progress.bots, progress.outcomes) for bot in (a, b))
    settings, sources = sprt_settings(progress, {"elo0": elo0, "elo1": elo1, "alpha": alpha,
                                                 "beta": beta, "model": model})
    try:
        m = match(progress.outcomes, a, b)
        if m.games == 0:
            fail(f"{a} and {b} never met at a two-player table in {folder}; `arena stats` "
                 "compares bots at tables of any size")
        test = m.sprt(**settings)
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps(rounded({**m.to_dict(),
                                       "sprt": {**test.to_dict(), "settings_from": sources}})))
        return
    unit = (f"{m.pairs} pairs" if m.pairs else "no pairs: each game counted alone")
    caption = "Intervals are 95%. Elo ± is half the interval's width, as fastchess prints it."
    if m.alike and m.elo is not None and math.isfinite(m.elo):
        caption += (f" Every {m.unit} scored the same: the interval holds whatever the spread "
                    "of results, which so uniform a record cannot show.")
    t = _table(f"{escape(a)} vs {escape(b)}: {m.games} games, {unit}")
    t.add_column("Figure", no_wrap=True)
    t.add_column("Value")
    ll, ld, mid, wd, ww = m.pentanomial
    t.add_row("Games (W-D-L)", f"{m.wins}-{m.draws}-{m.losses}")
    t.add_row("Pairs (LL LD WL+DD WD WW)", f"{ll} {ld} {mid} {wd} {ww}"
              + (f" ({m.unpaired} unpaired games left out)" if m.unpaired else ""))
    t.add_row("Score", _with(text.pct(m.score, "%"), m.score_interval(), 1, 100))
    t.add_row("Elo", escape(text.elo_text(m)))
    t.add_row("nElo", _with(text.num(m.nelo), m.nelo_interval()) if m.nelo is not None
              else f"undefined: every {m.unit} scored the same, no spread to scale by")
    t.add_row("LOS", text.pct(m.los, "%"))
    t.add_row("Draws (games, pairs)",
              f"{text.pct(m.draw_ratio, '%')}, {text.pct(m.pair_draw_ratio, '%')}")
    t.add_row("SPRT", _sprt_text(test, a, sources))
    _print(t, caption)


def sprt_settings(progress: Progress, given: dict[str, Any]) -> tuple[dict[str, Any],
                                                                      dict[str, str]]:
    """The SPRT's settings: each one given (not None), else the tournament's own (its file's
    ``[stop] sprt``, which the journal keeps), else compare's default; and where each came
    from ("option", "tournament" or "default")."""
    from arena.runner.play.stop import SPRT_MODELS, SprtRule

    stop = progress.identity.get("stop")
    own = stop.get("sprt") if isinstance(stop, dict) else None
    own = own if isinstance(own, dict) else {}
    settings: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key, default in dataclasses.asdict(SprtRule()).items():
        kept = own.get(key)
        valid = (kept in SPRT_MODELS if key == "model"
                 else type(kept) in (int, float))
        if given.get(key) is not None:
            settings[key], sources[key] = given[key], "option"
        elif valid:
            settings[key], sources[key] = kept, "tournament"
        else:
            settings[key], sources[key] = default, "default"
    return settings, sources


#: Where the SPRT's settings came from, said of all of them, and of some.
_ALL_FROM = {"option": "as given", "tournament": "the tournament's own [stop] sprt",
             "default": "compare's defaults"}
_SOME_FROM = {"option": "given", "tournament": "from the tournament's [stop] sprt",
              "default": "by default"}


def _sprt_text(test: Any, a: str, sources: dict[str, str]) -> str:
    """The SPRT's row (Rich markup): its settings and where they came from, the LLR and the
    verdict."""
    verdict = {"H1": f"H1 accepted: {a} is better by {test.elo1:g} or more",
               "H0": f"H0 accepted: {a} is not better by more than {test.elo0:g}",
               "continue": "continue: play more"}[test.verdict]
    kinds = list(dict.fromkeys(sources.values()))
    origin = _ALL_FROM[kinds[0]] if len(kinds) == 1 else "; ".join(
        f"{', '.join(k for k, v in sources.items() if v == kind)} {_SOME_FROM[kind]}"
        for kind in kinds)
    return escape(f"{test.model} Elo [{test.elo0:g}, {test.elo1:g}], α {test.alpha:g}, β "
                  f"{test.beta:g} ({origin}): LLR {test.llr:.2f} in ({test.lower:.2f}, "
                  f"{test.upper:.2f}): {verdict}")
