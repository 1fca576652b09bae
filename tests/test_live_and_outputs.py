"""The live view (a pure render of a snapshot) and the standings files."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.protocol.messages import FAILURES
from arena.results import GameOutcome
from arena.runner.play.live import (
    Snapshot,
    eta_seconds,
    format_duration,
    plain_line,
    render,
    standings_table,
)
from arena.runner.play.outputs import (
    CSV_COLUMNS,
    standings_json,
    standings_markdown,
    write_standings,
)
from arena.runner.play.ratings import compute_standings
from arena.runner.play.standings import Standings
from arena.stats.common import FIGURE_DIGITS, rounded

BOTS = ("greedy-py", "random-py", "slowpoke")


def game(index: int, bots: tuple[str, ...], ranks: tuple[int, ...], scores: tuple[int, ...],
         terminations: tuple[str, ...] | None = None) -> GameOutcome:
    return GameOutcome(
        game_id=f"r1-t{index}", index=index, round=1, table=index, bots=bots, seed=100 + index,
        scores=scores, ranks=ranks, terminations=terminations or ("ok",) * len(bots),
    )


GAMES = [
    game(0, ("greedy-py", "random-py", "slowpoke"), (1, 2, 3), (61, 40, 12),
         ("ok", "ok", "timeout")),
    game(1, ("random-py", "slowpoke", "greedy-py"), (2, 3, 1), (38, 20, 55)),
    game(2, ("slowpoke", "greedy-py", "random-py"), (3, 1, 2), (9, 70, 44),
         ("crash", "ok", "ok")),
    game(3, ("greedy-py", "random-py"), (1, 2), (48, 47)),
]


@pytest.fixture
def standings() -> Standings:
    return compute_standings(BOTS, GAMES)


def snapshot(standings: Standings, **changes: object) -> Snapshot:
    fields: dict[str, object] = {
        "name": "demo-cup",
        "game": "stoneage",
        "format": "round-robin",
        "standings": standings,
        "games_done": 12,
        "games_total": 140,
        "in_progress": [("r2-t7", ("random-py", "greedy-py"), 3.2)],
        "recent": list(reversed(GAMES)),
        "failures": standings.failure_totals(),
        "elapsed_s": 6.0,
        "void_retries": 0,
        "schedule": "round-robin of 3 bots, tables of 3, every rotation",
        "stopping": False,
    }
    fields.update(changes)
    return Snapshot(**fields)  # type: ignore[arg-type]


def printed(renderable: object) -> str:
    console = Console(record=True, width=120, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_render_shows_bots_counts_progress_and_eta_through_rich(standings: Standings) -> None:
    text = printed(render(snapshot(standings)))
    for name in BOTS:
        assert name in text
    assert "demo-cup" in text and "stoneage" in text and "round-robin of 3 bots" in text
    # 6 s for 12 games -> 0.5 s a game, 128 games left -> 64 s
    assert "12/140 8.6% eta 1m04s" in text
    assert "r2-t7" in text and "random-py · greedy-py" in text and "3s" in text
    assert "r1-t3" in text and "✗timeout" in text
    assert "timeout 1" in text and "crash 1" in text and "void retries" not in text
    leader = standings.bots[0]
    assert leader.name == "greedy-py"
    assert f"{leader.mu:.1f}±{leader.sigma:.1f}" in text
    assert f"{leader.conservative:.1f}" in text
    lines = [ln for ln in text.splitlines() if ln.lstrip().startswith("1 ")]
    assert lines and "greedy-py" in lines[0] and " 4 " in lines[0]  # rank 1, 4 games, 4 wins
    assert "Stopping" not in text


def test_render_is_a_pure_function_of_the_snapshot(standings: Standings) -> None:
    snap = snapshot(standings)
    assert printed(render(snap)) == printed(render(snap))


def test_render_handles_an_unknown_total_a_fresh_start_and_a_stop(standings: Standings) -> None:
    text = printed(render(snapshot(standings, games_total=None, stopping=True, void_retries=2)))
    assert "12/?" in text
    assert "Stopping: finishing the games in progress (Ctrl-C again to abandon them)" in text
    assert "void retries 2" in text
    again = printed(render(snapshot(standings, stopping=True, abandoning=True)))
    assert "Stopping: abandoning the games in progress" in again and "Ctrl-C again" not in again
    empty = compute_standings(BOTS, [])
    text = printed(render(snapshot(empty, games_done=0, in_progress=[], recent=[],
                                   failures={}, elapsed_s=0.0)))
    assert "0/140 0.0% eta --" in text
    assert "none yet" in text
    for name in BOTS:
        assert name in text


def test_plain_line_gives_progress_leader_and_nonzero_failures(standings: Standings) -> None:
    leader = standings.bots[0]
    line = plain_line(snapshot(standings))
    assert line == (f"[12/140] 8.6% eta 1m04s | leader greedy-py {leader.conservative:.1f} | "
                    "failures: timeout 1 crash 1 | running 1")
    empty = compute_standings(BOTS, [])
    line = plain_line(snapshot(empty, games_done=0, games_total=None, in_progress=[],
                               failures={}, void_retries=3, stopping=True))
    assert line == "[0/?] | leader - | failures: none | void retries 3 | stopping"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0s"), (44.6, "45s"), (62, "1m02s"), (3599, "59m59s"), (7500, "2h05m"), (-3, "0s")],
)
def test_durations_are_short_and_readable(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


META = {"name": "demo-cup", "game": "stoneage", "format": "round-robin",
        "schedule": "round-robin of 3 bots", "seed": 1234, "games": 4, "complete": True}


def test_write_standings_writes_three_files_matching_the_standings(
        tmp_path: Path, standings: Standings) -> None:
    folder = tmp_path / "leaderboards" / "demo-cup"
    paths = write_standings(folder, standings, META)
    assert [p.name for p in paths] == ["standings.json", "standings.csv", "standings.md"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in paths)  # no temps

    doc = json.loads((folder / "standings.json").read_text())
    assert doc["meta"] == META
    assert doc["standings"] == rounded(standings.to_dict())

    with (folder / "standings.csv").open(newline="") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == CSV_COLUMNS
        rows = list(reader)
    assert [r["bot"] for r in rows] == [b.name for b in standings.bots]
    for rank, (row, b) in enumerate(zip(rows, standings.bots, strict=True), start=1):
        assert int(row["rank"]) == rank
        assert float(row["mu"]) == pytest.approx(b.mu, abs=1e-4)
        assert float(row["sigma"]) == pytest.approx(b.sigma, abs=1e-4)
        assert float(row["conservative"]) == pytest.approx(b.conservative, abs=1e-4)
        assert (int(row["games"]), int(row["wins"])) == (b.games, b.wins)
        assert float(row["mean_rank"]) == pytest.approx(b.mean_rank, abs=1e-4)
        assert float(row["mean_score_se"]) == pytest.approx(b.mean_score_se, abs=1e-4)
        assert {k: int(row[k]) for k in FAILURES} == b.failures
    assert rows[-1]["bot"] == "slowpoke" and rows[-1]["timeout"] == "1"

    md = (folder / "standings.md").read_text()
    assert "| Rank | Bot | Conservative | Mu | Sigma | Games | Wins |" in md
    for b in standings.bots:
        assert f"| {b.name} |" in md
    assert "demo-cup" in md and "Master seed: 1234" in md and "round-robin of 3 bots" in md
    assert "## Head to head" in md and "## Seats" in md
    h = standings.head_to_head("greedy-py", "slowpoke")
    assert f"{h.wins}-{h.losses}-{h.draws}" == "3-0-0"
    assert "| **greedy-py** | — | 4-0-0 | 3-0-0 |" in md
    assert "| 0 | 4 | 2 | 50.0% |" in md  # seat 0: greedy won games 0 and 3


def test_write_standings_replaces_earlier_files(tmp_path: Path, standings: Standings) -> None:
    write_standings(tmp_path, compute_standings(BOTS, GAMES[:1]), {**META, "games": 1})
    write_standings(tmp_path, standings, META)
    doc = json.loads((tmp_path / "standings.json").read_text())
    assert doc["meta"]["games"] == 4
    assert doc["standings"]["games"] == 4
    assert len((tmp_path / "standings.csv").read_text().splitlines()) == 1 + len(BOTS)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "standings.csv", "standings.json", "standings.md"]


def test_standings_files_get_the_usual_permissions_not_private_ones(tmp_path: Path) -> None:
    import os
    import stat

    from arena.runner.play.outputs import write_standings
    from arena.runner.play.ratings import compute_standings

    umask = os.umask(0o022)
    try:
        paths = write_standings(tmp_path, compute_standings(["a", "b"], []), {"name": "t"})
    finally:
        os.umask(umask)
    assert [stat.S_IMODE(p.stat().st_mode) for p in paths] == [0o644] * 3


def test_at_80_by_24_progress_eta_and_failures_are_in_view_and_whole(
    standings: Standings,
) -> None:
    """Rich's live display cuts what does not fit from the bottom: the lines that always
    matter come first, and each fits 80 columns without being cut."""
    console = Console(record=True, width=80, height=24, color_system=None)
    busy = snapshot(standings, in_progress=[(f"r1-t{i}", ("random-py", "greedy-py"), 1.0)
                                            for i in range(8)])
    console.print(render(busy))
    lines = console.export_text().splitlines()[:24]
    top = "\n".join(lines[:6])
    assert "12/140 8.6% eta 1m04s" in top and "elapsed 6s" in top
    assert "Failures: timeout 1 · crash 1" in top
    assert all(len(line) <= 80 for line in lines)
    assert not any("…" in line for line in lines[:6])


def test_after_a_resume_the_eta_follows_this_runs_pace(standings: Standings) -> None:
    # 100 games were done before this run; it did 10 more in 20 s: 30 left take 60 s.
    resumed = snapshot(standings, games_done=110, games_total=140, elapsed_s=20.0,
                       done_before=100)
    assert eta_seconds(resumed) == pytest.approx(60.0)
    assert eta_seconds(snapshot(standings, games_done=100, done_before=100)) is None


def test_a_score_that_includes_the_fallbacks_points_is_marked(standings: Standings) -> None:
    text = printed(standings_table(standings))
    slowpoke = next(line for line in text.splitlines() if "slowpoke" in line)
    greedy = next(line for line in text.splitlines() if "greedy-py" in line)
    assert "*" in slowpoke and "*" not in greedy
    assert "includes points the built-in player scored" in " ".join(text.split())


def test_standings_json_does_not_depend_on_the_last_digits_of_a_figure(
        standings: Standings) -> None:
    """A figure whose last bits differ (another CPU, BLAS or numpy sums in another order)
    writes the same standings.json: every float keeps FIGURE_DIGITS significant digits."""
    from arena.stats.summary import tournament_stats

    st = tournament_stats(GAMES, BOTS, replicates=50)

    def nudged(value: Any) -> Any:
        if isinstance(value, float):
            return math.nextafter(value, math.inf) if math.isfinite(value) and value else value
        if isinstance(value, dict):
            return {k: nudged(v) for k, v in value.items()}
        if isinstance(value, list):
            return [nudged(v) for v in value]
        return value

    class Nudged:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def to_dict(self) -> dict[str, Any]:
            return nudged(self.inner.to_dict())  # type: ignore[no-any-return]

    plain = standings_json(standings, META, st)
    assert standings_json(Nudged(standings), META, Nudged(st)) == plain  # type: ignore[arg-type]
    doc = json.loads(plain)
    low = doc["statistics"]["head_to_head"][0]["interval"][0]
    assert 0 < low == float(f"{low:.{FIGURE_DIGITS}g}")
    assert doc["standings"]["bots"][0]["mu"] == rounded(standings.bots[0].mu)
    assert rounded(1 / 3) == 0.333333 and rounded(123456.7) == 123457.0
    assert rounded({"a": [2.0, 7, None, "x", 1e-30 / 3]}) == {"a": [2.0, 7, None, "x",
                                                                    3.33333e-31]}


def test_standings_files_carry_the_statistics_with_their_intervals(
        tmp_path: Path, standings: Standings) -> None:
    """With the statistics, standings.json holds them as ``arena stats --json`` gives them,
    and standings.md shows each figure beside its 95% interval: the Plackett–Luce strengths,
    each pair's head to head, the two-player matches (game 3 is the only two-player game) and
    the seats per table size."""
    from arena.stats.summary import tournament_stats

    st = tournament_stats(GAMES, BOTS, replicates=50)
    write_standings(tmp_path, standings, META, st)
    doc = json.loads((tmp_path / "standings.json").read_text())
    assert doc["statistics"] == json.loads(json.dumps(rounded(st.to_dict())))
    assert [m["a"] + "/" + m["b"] for m in doc["statistics"]["matches"]] == [
        "greedy-py/random-py"]

    md = (tmp_path / "standings.md").read_text()
    pl = st.plackett_luce
    assert pl.separated  # each bot finished ahead of the next in every game
    for i in pl.order():
        assert (f"| {pl.bots[i]} | {pl.groups.of[i] + 1} | no finite estimate (alone in its "
                "group) | – |") in md
    mixed = [*GAMES, game(4, ("slowpoke", "random-py", "greedy-py"), (1, 2, 3), (50, 40, 30))]
    pl = tournament_stats(mixed, BOTS, replicates=50).plackett_luce
    assert not pl.separated  # slowpoke once finished ahead of both others
    md_mixed = standings_markdown(compute_standings(BOTS, mixed), META,
                                  tournament_stats(mixed, BOTS, replicates=50))
    for i in pl.order():
        ci = pl.rating_interval(i)
        assert ci is not None
        assert (f"| {pl.bots[i]} | {pl.rating(i):.1f} | [{ci.low:.1f}, {ci.high:.1f}] |"
                in md_mixed)
    pair = next(h for h in st.head_to_head if {h.a, h.b} == {"greedy-py", "slowpoke"})
    ci = pair.interval()
    assert (f"| {pair.a} | {pair.b} | {pair.games} | {pair.ahead} | {pair.behind} | "
            f"{pair.level} | {100 * pair.share:.1f} | [{100 * ci.low:.1f}, "
            f"{100 * ci.high:.1f}] |") in md
    assert "## Two-player matches" in md
    assert "| greedy-py | random-py | 1 | 1-0-0 | 0 0 0 0 0 (1 unpaired) |" in md
    seat = next(f for f in st.seats if (f.players, f.seat) == (3, 0))
    win = seat.win_interval()
    assert (f"| 3 | 0 | 3 | {100 * seat.win_rate:.1f} | [{100 * win.low:.1f}, "
            f"{100 * win.high:.1f}] |") in md

    three_player_only = tournament_stats(GAMES[:3], BOTS, replicates=10)
    write_standings(tmp_path, standings, META, three_player_only)
    assert "## Two-player matches" not in (tmp_path / "standings.md").read_text()
    assert json.loads((tmp_path / "standings.json").read_text())["statistics"]["matches"] == []
