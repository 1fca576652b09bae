"""``arena serve``: the live page of a tournament's folder, its JSON and event stream, the
replay pages it makes, the paths it refuses, that it writes nothing, and in Chromium, a game
that finishes while the page is open showing on it."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from chromium import CHROMIUM, Browser, browser, shared_browser
from serving import served
from typer.testing import CliRunner

from arena.cli.main import app

__all__ = ["browser", "shared_browser"]  # the fixtures, shared with the other page tests

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "leaderboards" / "reference"
EXAMPLES = ROOT / "bots" / "examples"

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.is_file(),
    reason=f"{CHROMIUM} is missing (scripts/setup installs Debian's chromium when run as root)")


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder`` with its size and modification time."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


def get(url: str) -> tuple[int, str, str]:
    """Status, content type and text of ``url`` (an error status is returned, not raised)."""
    try:
        with urllib.request.urlopen(url, timeout=20) as reply:
            return reply.status, reply.headers["Content-Type"], reply.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"] or "", exc.read().decode()


def raw_status(url: str, path: str) -> int:
    """The status of ``path`` sent as it is (urllib and browsers fold ``..`` away first)."""
    where = urlsplit(url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=20)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    """A copy of a committed, finished tournament as a clone has it: without the -wal, -shm,
    lock and logs that earlier reads and runs in this checkout may have left beside it."""
    folder = tmp_path / "reference"
    shutil.copytree(REFERENCE, folder, ignore=shutil.ignore_patterns(
        "*.sqlite-wal", "*.sqlite-shm", ".arena-lock", "logs"))
    assert not list(folder.glob("journal.sqlite-*"))
    return folder


def test_the_state_the_page_and_a_replay_of_a_finished_tournament(finished: Path) -> None:
    before = listing(finished)
    with served(finished) as url:
        status, kind, text = get(url + "state.json")
        assert status == 200 and kind.startswith("application/json")
        state = json.loads(text)
        assert (state["kind"], state["name"], state["game"]) == ("tournament", "reference",
                                                                 "stoneage")
        assert state["games"] == state["total"] == 60 and state["complete"] is True
        assert state["running"] is False and state["in_play"] == [] and state["error"] == ""
        # The standings are `arena standings --json`'s, row for row.
        printed = json.loads(CliRunner().invoke(app, ["standings", str(finished),
                                                      "--json"]).output)
        assert [(b["name"], b["mu"], b["games"], b["wins"]) for b in state["standings"]] == [
            (b["name"], b["mu"], b["games"], b["wins"]) for b in printed["bots"]]
        assert len(state["finished"]) == 60
        game = state["finished"][0]
        assert set(game) == {"game_id", "bots", "scores", "ranks", "ended"}
        assert len(game["bots"]) == len(game["scores"]) == len(game["ranks"]) == 2

        status, kind, page = get(url)
        assert status == 200 and kind.startswith("text/html") and "/events" in page
        status, kind, replay = get(f"{url}games/{game['game_id']}")
        assert status == 200 and kind.startswith("text/html")
        assert 'content="arena-view' in replay and game["game_id"] in replay
        assert get(f"{url}games/{game['game_id']}")[2] == replay  # from memory the second time

        # The event stream opens with the snapshot.
        with urllib.request.urlopen(url + "events", timeout=20) as stream:
            assert stream.headers["Content-Type"] == "text/event-stream"
            first = stream.readline().decode()
        assert first.startswith("data: ") and json.loads(first[6:])["games"] == 60
    assert listing(finished) == before  # nothing written, no -wal or -shm made


def test_no_game_and_no_path_out_of_the_folder_is_served(finished: Path) -> None:
    with served(finished) as url:
        assert get(url + "games/r999-t0001-s0")[0] == 404
        for path in ("/games/../journal.sqlite", "/games/..%2Fjournal.sqlite",
                     "/games/%2E%2E/journal.sqlite", "/journal.sqlite", "/games/",
                     "/games/games%2Fr001-t0001-s0.json", "/../standings.json"):
            assert raw_status(url, path) == 404, path


def test_a_record_path_that_leads_out_of_the_folder_is_not_followed(finished: Path) -> None:
    secret = finished.parent / "secret.json"
    secret.write_text("{}")
    db = sqlite3.connect(finished / "journal.sqlite")
    db.execute("UPDATE results SET record = '../secret.json' WHERE game_id = 'r001-t0001-s0'")
    db.commit()
    db.close()
    with served(finished) as url:
        assert get(url + "games/r001-t0001-s0")[0] == 404
        assert get(url + "games/r001-t0001-s1")[0] == 200


def test_a_folder_that_is_no_tournament_is_one_line(tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["serve", str(tmp_path), "--port", "0"])
    assert r.exit_code == 2 and "no journal.sqlite here" in r.output
    assert len(r.output.strip().splitlines()) <= 2
    r = CliRunner().invoke(app, ["serve", str(tmp_path / "nowhere")])
    assert r.exit_code == 2 and "no such folder" in r.output


def _tournament(tmp_path: Path, rounds: int) -> tuple[Path, Path]:
    out = tmp_path / "out"
    file = tmp_path / "live.toml"
    file.write_text(
        f'name = "live"\ngame = "stoneage"\nformat = "round-robin"\nplayers = 2\n'
        f'rounds = {rounds}\nseed = 5\nconcurrency = 1\noutput = "{out}"\n'
        f'[[bots]]\npath = "{EXAMPLES / "random-py"}"\n'
        f'[[bots]]\npath = "{EXAMPLES / "greedy-py"}"\n')
    return file, out


def _finished_at(out: Path) -> dict[str, float]:
    db = sqlite3.connect(f"file:{out / 'journal.sqlite'}?mode=ro", uri=True)
    try:
        return dict(db.execute("SELECT game_id, finished_at FROM results").fetchall())
    except sqlite3.OperationalError:  # the run has not made its tables yet
        return {}
    finally:
        db.close()


SHOWN = ("JSON.stringify(Array.from(document.querySelectorAll('#finished a'), "
         "function (a) { return a.getAttribute('href'); }))")


@needs_chromium
def test_the_page_shows_a_game_finished_after_it_was_opened_while_arena_run_writes(
        tmp_path: Path, browser: Browser) -> None:
    file, out = _tournament(tmp_path, rounds=3)  # 6 games, one at a time
    run = subprocess.Popen([sys.executable, "-m", "arena", "run", str(file), "--plain"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not (out / "journal.sqlite").is_file():
            assert run.poll() is None and time.monotonic() < deadline, "no journal"
            time.sleep(0.05)
        with served(out) as url:
            browser.load(url)
            while not browser.evaluate("document.body.dataset.version"):  # the first snapshot
                assert time.monotonic() < deadline, "the page showed nothing"
                time.sleep(0.05)
            first = json.loads(browser.evaluate(SHOWN))
            opened = time.time()
            late: list[str] = []
            while not late:
                assert time.monotonic() < deadline, "no game finished after the page opened"
                late = [h for h in json.loads(browser.evaluate(SHOWN)) if h not in first]
                time.sleep(0.05)
            seen = time.time()
            ended = _finished_at(out)[late[0].rsplit("/", 1)[1]]
            print(f"shown {seen - ended:.2f} s after the game finished")
            assert ended > opened - 0.5  # it did finish after the page was open
            assert seen - ended < 3.0, f"shown {seen - ended:.2f} s after it finished"
            assert browser.evaluate(f"document.querySelector('a[href=\"{late[0]}\"]')"
                                    ".closest('tr').className") == "fresh"
            progress = browser.evaluate("document.getElementById('progress').textContent")
            # Running, unless the game seen was the last (on a loaded machine it may be).
            assert progress.endswith("of 6 games, running") or progress.endswith(
                "6 of 6 games, complete"), progress
            assert browser.problems() == []
            browser.load(url.rstrip("/") + late[0])  # its link opens its replay
            assert browser.evaluate("document.querySelector('meta[name=generator]').content"
                                    ).startswith("arena-view")
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
