"""The live view of a running tournament: a pure function from a snapshot to a renderable.

The tournament loop builds a :class:`Snapshot` whenever something changes and hands
``render(snapshot)`` to ``rich.live.Live.update``; without a terminal it prints
``plain_line(snapshot)`` instead. Nothing here reads the clock, the journal or any global state:
the same snapshot always renders the same way, which is what makes the view testable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rich import box
from rich.console import Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from arena.protocol.messages import FAILURES, Termination
from arena.results import GameOutcome
from arena.runner.play.standings import Standings

#: A game in progress: (game id, bots seat by seat, seconds it has been running).
Running = tuple[str, tuple[str, ...], float]

#: At most this many games in progress / recent results are listed.
MAX_IN_PROGRESS = 8
MAX_RECENT = 5
#: At most this many of the run's notices are shown, the latest: a long run that replaced many
#: workers would otherwise push the standings off the screen.
MAX_NOTICES = 3
#: The progress bar's width: with its label it fits an 80-column terminal.
BAR_WIDTH = 30

_FAILURE_SHORT = {
    Termination.TIMEOUT: "T/O", Termination.CRASH: "Crash", Termination.ILLEGAL: "Illegal",
    Termination.PROTOCOL: "Proto",
}


@dataclass(frozen=True)
class Snapshot:
    """What the live view shows at one moment.

    ``games_total`` is the best known total (a Swiss tournament may not know it exactly yet;
    None when there is no estimate at all). ``in_progress`` lists the running games, ``recent``
    the last finished ones, newest first. ``failures`` counts bot failures per kind over the
    whole run (e.g. ``standings.failure_totals()``); ``void_retries`` counts games replayed
    because the runner's own machinery failed. ``stopping`` is set once a stop was requested,
    ``abandoning`` once a second one abandons the games in progress; ``waiting`` while no
    worker can take a game; ``notices``, what the executor said about its workers during the
    run (a cluster's worker left out), oldest first.
    """

    name: str
    game: str
    format: str
    standings: Standings
    games_done: int
    games_total: int | None
    in_progress: Sequence[Running] = ()
    recent: Sequence[GameOutcome] = ()
    failures: Mapping[str, int] = field(default_factory=dict)
    elapsed_s: float = 0.0
    void_retries: int = 0
    schedule: str = ""
    stopping: bool = False
    abandoning: bool = False
    done_before: int = 0  #: games already done when this run began (a resume): not its pace
    waiting: bool = False  #: games are left, but no worker can take one (a cluster's are gone)
    notices: Sequence[str] = ()
    stop_rule: str = ""  #: the stopping rule's state, one short line ("" without a rule)


def format_duration(seconds: float) -> str:
    """A short duration: ``45s``, ``1m02s``, ``2h05m``."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def eta_seconds(snapshot: Snapshot) -> float | None:
    """Seconds left at this run's pace (elapsed / games this run finished × games left), or
    None when this run has finished none yet or the total is unknown. Games finished before a
    resume took none of this run's time, so they do not count for the pace."""
    done, total = snapshot.games_done, snapshot.games_total
    this_run = done - snapshot.done_before
    if total is None or this_run <= 0:
        return None
    return snapshot.elapsed_s / this_run * max(total - done, 0)


def _progress_text(snapshot: Snapshot) -> str:
    done, total = snapshot.games_done, snapshot.games_total
    if total is None:
        return f"{done}/?"
    pct = 100.0 * done / total if total else 100.0
    eta = eta_seconds(snapshot)
    return f"{done}/{total} {pct:.1f}% eta {'--' if eta is None else format_duration(eta)}"


def _failure_items(failures: Mapping[str, int]) -> list[tuple[str, int]]:
    kinds = [*FAILURES, *sorted(k for k in failures if k not in FAILURES)]
    return [(k, failures.get(k, 0)) for k in kinds]


def plain_line(snapshot: Snapshot) -> str:
    """One line of progress for non-terminal output, e.g.
    ``[12/140] 8.6% eta 1m02s | leader greedy-py 31.2 | failures: timeout 1``."""
    done, total = snapshot.games_done, snapshot.games_total
    head = f"[{done}/{'?' if total is None else total}]"
    rest = _progress_text(snapshot).split(" ", 1)
    parts = [head + (" " + rest[1] if len(rest) > 1 else "")]
    if snapshot.stop_rule:
        parts.append(snapshot.stop_rule)
    leader = snapshot.standings.bots[0] if snapshot.standings.bots else None
    if leader is not None and snapshot.standings.games > 0:
        parts.append(f"leader {leader.name} {leader.conservative:.1f}")
    else:
        parts.append("leader -")
    nonzero = [f"{k} {n}" for k, n in _failure_items(snapshot.failures) if n]
    parts.append("failures: " + (" ".join(nonzero) if nonzero else "none"))
    if snapshot.void_retries:
        parts.append(f"void retries {snapshot.void_retries}")
    if snapshot.in_progress:
        parts.append(f"running {len(snapshot.in_progress)}")
    if snapshot.waiting:
        parts.append("waiting for workers")
    if snapshot.stopping:
        parts.append("stopping")
    return " | ".join(parts)


def _pm(mean: float | None, se: float | None, digits: int) -> str:
    if mean is None:
        return "–"
    if round(mean, digits) == 0:
        mean = 0.0  # no "-0"
    return f"{mean:.{digits}f}" + ("" if se is None else f"±{se:.{digits}f}")


def standings_table(standings: Standings, title: str = "Standings") -> Table:
    """The standings as a Rich table: rank, bot, conservative rating, mu ± sigma, games, wins,
    mean rank and mean score (± standard error) and the failures by kind, compact enough for an
    80-column terminal."""
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left",
                  title_style="bold", padding=(0, 1), pad_edge=False, collapse_padding=True,
                  caption="μ-3σ: conservative TrueSkill rating. G games, W wins. Rank, score: "
                          "mean ± s.e.",
                  caption_justify="left")
    table.add_column("#", justify="right")
    table.add_column("Bot", style="bold", no_wrap=True)
    table.add_column("μ-3σ", justify="right", style="cyan", no_wrap=True)
    table.add_column("μ±σ", justify="right", no_wrap=True)
    table.add_column("G", justify="right", no_wrap=True)
    table.add_column("W", justify="right", no_wrap=True)
    table.add_column("Rank", justify="right", no_wrap=True)
    table.add_column("Score", justify="right", no_wrap=True)
    table.add_column("Failures", no_wrap=True)
    marked = False
    for rank, b in enumerate(standings.bots, start=1):
        failures = ", ".join(
            f"{_FAILURE_SHORT[k]} {b.failures[k]}" for k in FAILURES if b.failures[k]
        )
        score = _pm(b.mean_score, b.mean_score_se, 0)
        if failures and b.mean_score is not None:
            score += "*"  # its games include points the fallback scored after it failed
            marked = True
        table.add_row(
            str(rank), b.name, f"{b.conservative:.1f}", f"{b.mu:.1f}±{b.sigma:.1f}",
            str(b.games), str(b.wins), _pm(b.mean_rank, b.mean_rank_se, 2), score,
            Text(failures or "-", style="red" if failures else "dim"),
        )
    if marked:
        table.caption = (f"{table.caption} *: includes points the built-in player scored in "
                         "the seat after the bot failed.")
    return table


def _in_progress_table(running: Sequence[Running]) -> RenderableType:
    if not running:
        return Text("In progress: none", style="dim")
    table = Table(title=f"In progress ({len(running)})", box=box.SIMPLE_HEAD,
                  title_justify="left", title_style="bold")
    table.add_column("Game")
    table.add_column("Seats", overflow="fold")
    table.add_column("Running", justify="right")
    for game_id, bots, seconds in running[:MAX_IN_PROGRESS]:
        table.add_row(game_id, " · ".join(bots), format_duration(seconds))
    if len(running) > MAX_IN_PROGRESS:
        table.add_row("…", f"{len(running) - MAX_IN_PROGRESS} more", "")
    return table


def _result_text(o: GameOutcome) -> Text:
    text = Text()
    order = sorted(range(len(o.bots)), key=lambda s: (o.ranks[s], s))
    for i, s in enumerate(order):
        if i:
            text.append("  ")
        text.append(f"{o.ranks[s]}. ")
        text.append(o.bots[s], style="bold" if o.ranks[s] == 1 else "")
        text.append(f" {o.scores[s]}")
        if o.terminations[s] != Termination.OK:
            text.append(f" ✗{o.terminations[s]}", style="red")
    return text


def _recent_table(recent: Sequence[GameOutcome]) -> RenderableType:
    if not recent:
        return Text("Recent results: none yet", style="dim")
    table = Table(title="Recent results", box=box.SIMPLE_HEAD, title_justify="left",
                  title_style="bold")
    table.add_column("Game")
    table.add_column("Finishing order (rank. bot score)", overflow="fold")
    for o in recent[:MAX_RECENT]:
        table.add_row(o.game_id, _result_text(o))
    return table


def _failures_text(snapshot: Snapshot) -> Text:
    """The failure counters that are not zero (short enough for one line), or "none"."""
    text = Text("Failures: ", style="bold")
    items = [(f"{kind} {n}", "red") for kind, n in _failure_items(snapshot.failures) if n]
    if snapshot.void_retries:
        items.append((f"void retries {snapshot.void_retries}", "yellow"))
    if not items:
        text.append("none", style="dim")
    for i, (item, style) in enumerate(items):
        if i:
            text.append(" · ")
        text.append(item, style=style)
    return text


def _progress(snapshot: Snapshot) -> RenderableType:
    done, total = snapshot.games_done, snapshot.games_total
    label = Text(f"{_progress_text(snapshot)} · elapsed {format_duration(snapshot.elapsed_s)}")
    if total is None:
        return label
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=BAR_WIDTH)
    grid.add_column()
    # An explicit total keeps ProgressBar static (it only animates, reading the clock, when
    # the total is unknown), so rendering stays a pure function of the snapshot.
    grid.add_row(ProgressBar(total=max(total, 1), completed=min(done, max(total, 1)),
                             width=BAR_WIDTH), label)
    return grid


def render(snapshot: Snapshot) -> RenderableType:
    """The whole live view: a heading, the progress bar with ETA and the failure counters,
    then the standings table, the games in progress and the recent results. What always
    matters comes first: a terminal too short for the whole view cuts it from the bottom."""
    heading = Text()
    heading.append(snapshot.name, style="bold")
    heading.append(f" · {snapshot.game} · {snapshot.format}")
    if snapshot.schedule:
        heading.append(f"\n{snapshot.schedule}", style="dim")
    parts: list[RenderableType] = [heading, _progress(snapshot)]
    if snapshot.stop_rule:
        parts.append(Text(f"Stop rule: {snapshot.stop_rule}"))
    parts.append(_failures_text(snapshot))
    if snapshot.stopping:
        # The view says it, not a line printed beside it: anything written to the terminal
        # while the view is live leaves a second copy of the view behind.
        parts.append(Text("Stopping: abandoning the games in progress…" if snapshot.abandoning
                          else "Stopping: finishing the games in progress (Ctrl-C again to "
                          "abandon them)…", style="bold yellow"))
    if snapshot.waiting and not snapshot.stopping:
        parts.append(Text("Waiting for workers: none is connected to take a game (start one "
                          "with `arena worker`)…", style="bold yellow"))
    earlier = len(snapshot.notices) - MAX_NOTICES
    if earlier > 0:
        parts.append(Text(f"{earlier} earlier notice{'s' if earlier > 1 else ''}, then:",
                          style="dim"))
    parts += [Text(notice, style="yellow") for notice in snapshot.notices[-MAX_NOTICES:]]
    standings = snapshot.standings
    parts.append(standings_table(standings))
    if standings.rated_games != standings.games:
        parts.append(Text(f"Ratings include {standings.rated_games} of {standings.games} "
                          "games (the rest wait for an earlier game).", style="dim"))
    parts += [_in_progress_table(snapshot.in_progress), _recent_table(snapshot.recent)]
    return Group(*parts)
