"""The replay page (``arena view``, :mod:`arena.report.film`, :mod:`arena.report.view`):
what it holds of a game, step by step and viewer by viewer, without a browser."""

from __future__ import annotations

import base64
import json
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner
from viewing import AGRICOLA_2P, STONE_AGE_4P, played

from arena.cli.main import app
from arena.engine.testing import DiceRaceGame
from arena.report.film import film, split_svg
from arena.report.pages import page_path
from arena.report.view import view_page
from arena.runner.game.clock import Clock, TimeControl
from arena.runner.game.record import GameRecord
from arena.runner.game.replay import states

runner = CliRunner()


def film_data(page: str) -> dict[str, Any]:
    """The game a page holds, as its script reads it."""
    packed = page.split('id="film">', 1)[1].split("</script>", 1)[0]
    data: dict[str, Any] = json.loads(zlib.decompress(base64.b64decode("".join(packed.split())),
                                                      -15))
    return data


def test_a_drawing_is_cut_at_its_top_level_elements_and_joins_back() -> None:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9"><g id="a"><rect/>'
           '<g><circle r="1"/></g></g>\n<text x="1">a &gt; b</text><rect x="2"/></svg>')
    parts = split_svg(svg)
    assert "".join(parts) == svg
    assert parts[1] == '<g id="a"><rect/><g><circle r="1"/></g></g>'
    assert parts[2:] == ['\n<text x="1">a &gt; b</text>', '<rect x="2"/>', "</svg>"]
    for bad in ("<svg><g></svg>", "<div></div>", "<svg></g><g></svg>", "text"):
        assert split_svg(bad) == [bad]


def test_view_writes_one_page_that_needs_nothing_else_and_is_the_same_every_time(
        tmp_path: Path) -> None:
    target = tmp_path / "deep" / "game.html"
    result = runner.invoke(app, ["view", str(AGRICOLA_2P), "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert str(target) in result.output and "KiB" in result.output
    page = target.read_text(encoding="utf-8")
    assert page == view_page(GameRecord.load(AGRICOLA_2P))
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "<link" not in page and "@import" not in page and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    data = film_data(page)
    record = GameRecord.load(AGRICOLA_2P)
    assert len(data["steps"]) == len(record.decisions) + 1
    assert data["viewers"] == ["Referee", "Seat 0: greedy-py", "Seat 1: random-py"]
    assert all(len(shown) == len(data["steps"]) for shown in data["shown"])


def test_view_says_what_is_wrong_with_a_file(tmp_path: Path) -> None:
    (tmp_path / "not.json").write_text("{}")
    for path, words in ((tmp_path / "none.json", "no such file"),
                        (tmp_path / "not.json", "not an Arena game record")):
        result = runner.invoke(app, ["view", str(path)])
        assert result.exit_code == 2 and words in result.output, result.output
    record = json.loads(AGRICOLA_2P.read_text())
    record["decisions"][3][1] = 999
    (tmp_path / "bad.json").write_text(json.dumps(record))
    result = runner.invoke(app, ["view", str(tmp_path / "bad.json")])
    assert result.exit_code == 2 and "cannot replay it" in result.output, result.output


def test_each_step_has_the_decision_its_options_the_scores_and_the_bank() -> None:
    record = GameRecord.load(STONE_AGE_4P)
    f = film(record)
    assert len(f.steps) == len(record.decisions) + 1 and "decision" not in f.steps[0]
    clocks = [Clock(TimeControl.from_dict(record.time_control)) for _ in range(4)]
    for k, state in states(record):
        d = record.decisions[k]
        clocks[d.seat].charge(d.ms)
        step = f.steps[k + 1]
        assert step["decision"] == {"seat": d.seat, "choice": d.choice,
                                    "options": state.num_legal(), "ms": d.ms, "by": d.by,
                                    "action": d.action,
                                    "bank_ms": round(clocks[d.seat].bank_ms)}
        assert f.steps[k]["to_act"] == d.seat
    end = f.steps[-1]
    assert end["to_act"] is None and end["round"] == record.rounds
    assert [sum(b.values()) for b in end["breakdown"]] == record.result["scores"]


def test_a_failure_shows_where_the_fallback_took_over() -> None:
    record = played("stoneage", 2, seed=5, failing=1, fail_at=7)
    f = film(record)
    first = next(k for k, d in enumerate(record.decisions) if d.by == "fallback")
    flagged = [k for k, s in enumerate(f.steps) if "failures" in s]
    assert flagged == [first + 1]
    assert "seat 1 (bot-1) failed: timeout: no answer in 5050 ms" in f.steps[first + 1][
        "failures"][0]
    banks = [s["decision"]["bank_ms"] for s in f.steps[1:] if s["decision"]["seat"] == 1]
    assert len(set(banks[7:])) == 1  # a fallback's decisions cost the bank nothing


def test_a_game_that_does_not_draw_itself_shows_its_data_and_a_seat_sees_its_own(
        dicerace: DiceRaceGame) -> None:
    record = played("dicerace", 3, seed=11)
    f = film(record)
    assert not f.drawn and f.viewers[0] == "Referee"
    for k, state in states(record):
        referee = json.loads(f.parts[f.frames[f.shown[0][k]][0]])
        assert referee == json.loads(json.dumps(state.to_dict()))
        for seat in range(3):
            seen = json.loads(f.parts[f.frames[f.shown[seat + 1][k]][0]])
            assert seen == json.loads(json.dumps(state.observation(seat)))
        if k > 6:
            break


def test_the_same_record_gives_the_same_page() -> None:
    record = played("agricola", 2, seed=3)
    assert view_page(record) == view_page(GameRecord.from_dict(json.loads(record.to_json())))


@pytest.mark.parametrize(("record", "page"), [
    ("games/r1.json", "views/games/r1.html"),
    ("../../etc/x.json", "views/etc/x.html"),
    ("/abs/y.json", "views/abs/y.html"),
])
def test_a_page_stays_under_views_beside_the_report(tmp_path: Path, record: str,
                                                     page: str) -> None:
    assert page_path(tmp_path / "report.html", record) == tmp_path / page


def test_the_report_writes_each_games_page_beside_it_and_links_it(tmp_path: Path) -> None:
    from test_report import write_journal

    from arena.protocol.messages import Termination
    from arena.results import GameOutcome

    records = [played("agricola", 2, seed=s) for s in (1, 2)]
    outcomes = [GameOutcome(r.game_id, i, 1, i, ("bot-0", "bot-1"), r.seed,
                            tuple(r.result["scores"]), tuple(r.ranks),
                            (Termination.OK, Termination.OK))
                for i, r in enumerate(records)]
    write_journal(tmp_path, outcomes, ["bot-0", "bot-1"])
    (tmp_path / "games" / "0.json").write_text(records[0].to_json())  # the other stays "{}"
    result = runner.invoke(app, ["report", str(tmp_path), "--bootstrap", "5"])
    assert result.exit_code == 0, result.output
    assert "1 games have no replay page" in result.output and "1 replay pages" in result.output
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert re.findall(r'<a class="view" href="([^"]+)">', page) == ["views/games/0.html"]
    written = tmp_path / "views" / "games" / "0.html"
    assert written.read_text(encoding="utf-8") == view_page(records[0])
    # A page that is current is not written again; a newer record's is.
    before = written.stat().st_mtime_ns
    assert runner.invoke(app, ["report", str(tmp_path), "--bootstrap", "5"]).exit_code == 0
    assert written.stat().st_mtime_ns == before
    # --no-views writes none, but links those that are there.
    written.unlink()
    assert runner.invoke(app, ["report", str(tmp_path), "--no-views"]).exit_code == 0
    assert not written.exists()
    assert 'class="view"' not in (tmp_path / "report.html").read_text(encoding="utf-8")
