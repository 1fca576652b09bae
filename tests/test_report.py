"""`arena report`: the HTML page of a tournament, from real journals (a committed leaderboard,
small synthetic ones written through the journal), and loaded in headless Chromium."""

from __future__ import annotations

import json
import math
import re
import time
from html import unescape
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest
from chromium import CHROMIUM, Browser, SharedBrowser, browser, shared_browser
from typer.testing import CliRunner

from arena.cli.main import app
from arena.protocol.messages import Termination
from arena.report.charts import rating_curves
from arena.results import GameOutcome, Pairing
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.ratings import compute_standings
from arena.runner.play.reading import read_progress
from arena.stats.common import rounded
from arena.stats.match import match
from arena.stats.synthetic import synthetic_bots, synthetic_outcomes
from arena.stats.tables import head_to_head

__all__ = ["browser", "shared_browser"]  # the fixtures, shared with the other page tests

runner = CliRunner()
LEADERBOARDS = Path(__file__).resolve().parent.parent / "leaderboards"
SECTIONS = ("standings", "crosstable", "ratings", "scores", "strengths", "seats", "games")
HOSTILE = "<script>alert(1)</script>"


def write_journal(folder: Path, outcomes: list[GameOutcome], bots: list[str]) -> None:
    """A real journal of ``outcomes`` in ``folder`` (with an empty record file per game)."""
    journal = Journal(folder / JOURNAL)
    try:
        journal.bind({"name": "report-test", "game": "synthetic", "format": "round-robin",
                      "players": len(outcomes[0].bots) if outcomes else 2, "seed": 7,
                      "bots": [{"name": b} for b in bots]}, "synthetic")
        journal.add_pairings([Pairing(o.game_id, o.index, o.round, o.table, o.bots, o.seed)
                              for o in outcomes])
        (folder / "games").mkdir(exist_ok=True)
        for o in outcomes:
            (folder / "games" / f"{o.index}.json").write_text("{}")
            journal.record_result(o, f"games/{o.index}.json", 0.0)
    finally:
        journal.close()


def synthetic_games(bots: int, players: int, games: int, rename: dict[str, str] | None = None
                    ) -> tuple[list[str], list[GameOutcome]]:
    """A seeded synthetic tournament's bots and games, bots renamed by ``rename``."""
    theta = synthetic_bots(bots, seed=3)
    names = {b: (rename or {}).get(b, b) for b in sorted(theta)}
    outcomes = [GameOutcome(o.game_id, o.index, o.round, o.table,
                            tuple(names[b] for b in o.bots), o.seed, o.scores, o.ranks,
                            o.terminations)
                for o in synthetic_outcomes(theta, players, games, seed=3, seat_advantage=0.3)]
    return list(names.values()), outcomes


def synthetic(folder: Path, bots: int, players: int, games: int,
              rename: dict[str, str] | None = None) -> tuple[list[str], list[GameOutcome]]:
    """:func:`synthetic_games` written as a journal in ``folder``."""
    names, outcomes = synthetic_games(bots, players, games, rename)
    write_journal(folder, outcomes, names)
    return names, outcomes


def report(folder: Path, *extra: str, views: bool = False) -> str:
    """``arena report`` of ``folder`` (without the replay pages unless ``views``: a
    leaderboard's hundreds of games would each be replayed)."""
    r = runner.invoke(app, ["report", str(folder), "--bootstrap", "20", *extra,
                            "--views" if views else "--no-views"])
    assert r.exit_code == 0, r.output
    assert "wrote" in r.output
    return r.output


def test_report_of_a_leaderboard_has_every_section_and_bot_and_links_each_game_record(
        tmp_path: Path) -> None:
    folder = LEADERBOARDS / "search-4p"
    page_path = tmp_path / "elsewhere" / "page.html"
    page_path.parent.mkdir()
    report(folder, "-o", str(page_path))
    page = page_path.read_text(encoding="utf-8")
    progress = read_progress(folder, records=True)
    for section in SECTIONS:
        assert f'<h2 id="{section}">' in page
    for chart in ("crosstable-chart", "ratings-chart", "scores-chart", "seats-chart-4"):
        assert f'<svg class="chart" id="{chart}"' in page
    assert "<dd>stoneage</dd>" in page and "<dd>complete: 200 games</dd>" in page
    standings = page.split('id="standings"', 2)[2].split("</table>")[0]
    for bot in progress.bots:
        assert f">{bot}</td>" in standings
        assert f'<polyline class="rating" data-bot="{bot}"' in page
    links = re.findall(r'<a href="([^"]+)">([^<]+)</a>', page)
    assert len(links) == len(progress.outcomes) == 200
    for href, game_id in links:
        target = (page_path.parent / unquote(unescape(href))).resolve()
        assert target == (folder / progress.records[game_id]).resolve()
        assert target.is_file()
        assert json.loads(target.read_text())["game_id"] == game_id
    # No network: nothing is fetched from anywhere, the page is the only file.
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "<link" not in page and "@import" not in page


def test_the_same_journal_gives_the_same_page_and_the_default_place_is_the_folder(
        tmp_path: Path) -> None:
    synthetic(tmp_path, bots=4, players=2, games=40)
    report(tmp_path)
    first = (tmp_path / "report.html").read_bytes()
    report(tmp_path)
    assert (tmp_path / "report.html").read_bytes() == first
    assert b'<a href="games/0.json">g0000000</a>' in first


def test_crosstable_cells_are_the_head_to_head_counts(tmp_path: Path) -> None:
    bots, outcomes = synthetic(tmp_path, bots=5, players=3, games=90)
    report(tmp_path)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    cells = {(a, b): (int(x), int(y), int(z)) for a, b, x, y, z in re.findall(
        r'<g class="cell" data-a="([^"]*)" data-b="([^"]*)" data-ahead="(\d+)" '
        r'data-behind="(\d+)" data-level="(\d+)">', page)}
    pairs = head_to_head(outcomes, bots)
    assert len(pairs) == 10 and len(cells) == 20
    for h in pairs:
        assert cells[(h.a, h.b)] == (h.ahead, h.behind, h.level)
        assert cells[(h.b, h.a)] == (h.behind, h.ahead, h.level)
        share = f"{100 * h.ahead / h.decided:.0f}"
        cell = page.split(f'data-a="{h.a}" data-b="{h.b}"', 1)[1].split("</g>", 1)[0]
        assert f">{share}</text>" in cell and f"n={h.games}<" in cell


def test_rating_curves_end_at_the_standings_and_keep_few_points(tmp_path: Path) -> None:
    bots, outcomes = synthetic(tmp_path, bots=6, players=2, games=300)
    final = {b.name: b for b in compute_standings(bots, outcomes).bots}
    curves, standings = rating_curves(bots, outcomes, points=40)
    assert len(curves.games) <= 40 and curves.games[0] == 0 and curves.games[-1] == 300
    for b in bots:
        assert curves.mu[b][-1] == final[b].mu and curves.sigma[b][-1] == final[b].sigma
        assert curves.mu[b][0] == 25.0
    assert [s.name for s in standings.bots] == list(final)
    report(tmp_path)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    last = dict(re.findall(r'data-bot="([^"]+)" data-last-mu="([^"]+)"', page))
    assert {b: float(m) for b, m in last.items()} == {b: final[b].mu for b in bots}


def test_hostile_bot_names_and_game_ids_appear_escaped(tmp_path: Path) -> None:
    rename = {"bot-00": HOSTILE, "bot-01": 'a"b\'&c <i>'}
    bots, outcomes = synthetic_games(bots=3, players=2, games=12, rename=rename)
    hostile_id = '"><img src=x onerror=alert(2)>'
    first = outcomes[0]
    outcomes[0] = GameOutcome(hostile_id, first.index, first.round, first.table, first.bots,
                              first.seed, first.scores, first.ranks, first.terminations)
    write_journal(tmp_path, outcomes, bots)
    report(tmp_path)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.count("<script") == 1 and "alert(1)</script>" not in page
    assert "<img" not in page and "<i>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "a&quot;b&#x27;&amp;c &lt;i&gt;" in page
    assert "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;" in page


def test_failures_are_counted_and_shown(tmp_path: Path) -> None:
    bots = ["steady", "crasher"]
    outcomes = [GameOutcome(f"g{i}", i, 1, i, tuple(bots[(i + s) % 2] for s in range(2)), i,
                            (10, 0) if i % 2 == 0 else (0, 10), (1, 2) if i % 2 == 0 else (2, 1),
                            (Termination.OK, Termination.CRASH) if i % 2 == 0
                            else (Termination.CRASH, Termination.OK))
                for i in range(6)]
    write_journal(tmp_path, outcomes, bots)
    report(tmp_path)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert '<td title="6 crash">6</td>' in page
    assert "crasher 0 (2, crash)" in page
    assert "<dd>6 played of the 6 issued so far (no run has marked it complete)</dd>" in page


def test_clear_errors_for_a_missing_folder_no_journal_no_game_and_an_unwritable_output(
        tmp_path: Path) -> None:
    r = runner.invoke(app, ["report", str(tmp_path / "nope")])
    assert r.exit_code == 2 and "no such folder" in r.output
    r = runner.invoke(app, ["report", str(tmp_path)])
    assert r.exit_code == 2 and "no journal here" in r.output
    journal = Journal(tmp_path / JOURNAL)
    journal.bind({"name": "empty", "bots": [{"name": "a"}, {"name": "b"}]}, "nothing yet")
    journal.close()
    r = runner.invoke(app, ["report", str(tmp_path)])
    assert r.exit_code == 2 and "no game has finished yet" in r.output
    r = runner.invoke(app, ["report", str(LEADERBOARDS / "search-2p"), "--bootstrap", "0",
                            "-o", str(tmp_path / "missing" / "r.html")])
    assert r.exit_code == 2 and "cannot write" in r.output and "r.html" in r.output
    assert len(r.output.strip().splitlines()) <= 2
    assert not (LEADERBOARDS / "search-2p" / "report.html").exists()


# ---------------------------------------------------------------------- in the browser
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.is_file(),
    reason=f"{CHROMIUM} is missing (scripts/setup installs Debian's chromium when run as root)")

CHART_BOXES = ("JSON.stringify(Array.from(document.querySelectorAll('svg.chart'), function (e) {"
               " var r = e.getBoundingClientRect();"
               " return [e.id, r.left + scrollX, r.top + scrollY, r.width, r.height]; }))")


def drawn(pixels: np.ndarray) -> tuple[float, int]:
    """The share of pixels that are not the page's white, and how many colours there are."""
    flat = pixels.reshape(-1, 3)
    colours = np.unique(flat[:, 0].astype(np.int64) << 16 | flat[:, 1].astype(np.int64) << 8
                        | flat[:, 2])
    return float((flat != 255).any(axis=1).mean()), len(colours)


@needs_chromium
def test_the_page_loads_in_chromium_without_errors_and_its_charts_are_drawn(
        tmp_path: Path, browser: Browser) -> None:
    rename = {"bot-00": HOSTILE}
    synthetic(tmp_path, bots=6, players=4, games=200, rename=rename)
    report(tmp_path)
    browser.load((tmp_path / "report.html").as_uri())
    assert browser.problems() == []
    assert browser.evaluate("document.scripts.length") == 1
    boxes = json.loads(browser.evaluate(CHART_BOXES))
    assert [b[0] for b in boxes] == ["crosstable-chart", "ratings-chart", "scores-chart",
                                     "seats-chart-4"]
    for name, x, y, width, height in boxes:
        assert 150 < width <= 1240 and height > 100, name
        share, colours = drawn(browser.screenshot(x, y, width, height))
        # Every chart has lines, fills and text in several colours over most of its box.
        assert share > 0.3 and colours > 20, (name, share, colours)
    # The whole visible page is no blank either, and nothing is wider than the window.
    assert browser.evaluate("document.documentElement.scrollWidth") <= 1280
    # Sorting a table by a column is the page's one script: it works and throws nothing.
    browser.evaluate("document.querySelector('#standings th:nth-child(6)').click()")
    assert browser.problems() == []
    # A hostile name is text on the page, not a script that ran.
    assert HOSTILE in browser.evaluate("document.body.textContent")


@needs_chromium
def test_the_browser_check_catches_a_throwing_script_and_console_errors(
        tmp_path: Path, browser: Browser) -> None:
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><body><svg class="chart" id="c" width="10" '
                    'height="10"></svg><script>console.error("drawn wrong");</script>'
                    '<script>throw new Error("broken chart")</script></body></html>')
    browser.load(page.as_uri())
    problems = browser.problems()
    assert any("drawn wrong" in p for p in problems), problems
    assert any("broken chart" in p for p in problems), problems
    share, colours = drawn(browser.screenshot(0, 0, 200, 100))
    assert share == 0.0 and colours == 1


@needs_chromium
def test_a_fresh_page_of_the_shared_browser_has_none_of_the_last_pages_problems(
        tmp_path: Path, shared_browser: SharedBrowser) -> None:
    """The tests share one Chromium, each on a fresh page: what went wrong on the page before
    is not counted against the next, and the next page's own problems still are."""
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><body><script>console.error("old page");</script>'
                    "</body></html>")
    first = shared_browser.fresh()
    first.load(page.as_uri())
    assert any("old page" in p for p in first.problems())
    again = shared_browser.fresh()
    assert again is first and again.problems() == []
    fine = tmp_path / "fine.html"
    fine.write_text("<!DOCTYPE html><html><body><p>fine</p></body></html>")
    again.load(fine.as_uri())
    again.evaluate("setTimeout(function () { console.error('new page'); }, 0); 1")
    deadline = time.monotonic() + 10
    while not again.problems():
        assert time.monotonic() < deadline, "the new page's console error was not seen"
        time.sleep(0.02)
    assert all("old page" not in p for p in again.problems()), again.problems()
    assert any("new page" in p for p in again.problems()), again.problems()


def test_two_player_elo_is_what_arena_compare_figures(tmp_path: Path) -> None:
    folder = LEADERBOARDS / "search-2p"
    report(folder, "-o", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr><td class="l bot">([^<]+)</td><td class="l bot">([^<]+)</td>'
                      r"<td>(\d+)</td><td>(\d+)</td><td>(\d+)-(\d+)-(\d+)</td>"
                      r'<td data-v="([^"]*)">', page.split('id="elo-table"')[1])
    outcomes = read_progress(folder).outcomes
    assert len(rows) == 6
    for a, b, games, pairs, wins, draws, losses, elo in rows:
        m = match(outcomes, a, b)
        assert (int(games), int(pairs), int(wins), int(draws), int(losses)) == (
            m.games, m.pairs, m.wins, m.draws, m.losses)
        assert float(elo) == rounded(m.elo)  # six significant digits, as the files
    four = runner.invoke(app, ["report", str(LEADERBOARDS / "search-4p"), "--bootstrap", "0",
                               "--no-views", "-o", str(tmp_path / "r4.html")])
    assert four.exit_code == 0 and 'id="elo"' not in (tmp_path / "r4.html").read_text()


def test_past_the_games_listed_the_table_lists_the_most_recent_and_says_how_many_are_left_out(
        tmp_path: Path) -> None:
    _, outcomes = synthetic(tmp_path, bots=4, players=2, games=30)
    out = report(tmp_path, "--games-listed", "8")
    assert "30 games" in out
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    table = page.split('id="games-table"')[1]
    listed = re.findall(r'<a href="games/(\d+)\.json">', table)
    assert listed == [str(o.index) for o in outcomes[-8:]]
    assert "The last 8 of the 30 finished games" in page
    assert "22 earlier games left out" in page
    # Every section above the table still counts every game.
    assert "<dd>30 played of the 30 issued" in page and "TrueSkill after 30 rated games" in page
    # At the limit, nothing is left out and the table says so as it always did.
    report(tmp_path, "--games-listed", "30")
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "All 30 finished games" in page and "earlier games" not in page
    assert len(re.findall(r'<a href="games/\d+\.json">', page)) == 30


def test_a_sort_key_does_not_show_the_last_bits_a_matrix_library_may_change() -> None:
    """The same fit summed by one BLAS thread and by two gave these strengths (a million-game
    league's page): the page writes both the same."""
    from arena.report.html import _v

    assert _v(557.8086000077691) == _v(557.8086000077687) == "557.809"
    assert _v(368.18641513087033) == _v(368.1864151308705) == "368.186"
    assert _v(0.5) == "0.5" and _v(None) == _v(math.nan) == ""
    assert _v(math.inf) == "Infinity" and _v(-math.inf) == "-Infinity"
