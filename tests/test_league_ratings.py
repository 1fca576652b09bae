"""A league's ratings from its journal (a real SQLite file): arena.league.runner.LeagueRatings
followed as the journal grows, always what reading the whole journal gives, and every command
that reads a league folder rating its games as the league does, a bot version removed or not."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from html import unescape
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app
from arena.league.config import load_league
from arena.league.state import LeagueRatings, league_ratings
from arena.league.store import LeagueJournal
from arena.results import Pairing
from arena.stats.synthetic import play_table

BOTS = ("a@1", "b@1", "c@1", "d@1")


def _league(tmp_path: Path, bots: tuple[str, ...] = BOTS) -> LeagueJournal:
    """A league of ``bots`` entered straight into its journal (no validation game)."""
    folder = tmp_path / "league"
    r = CliRunner().invoke(app, ["league", "init", str(folder), "--game", "stoneage"])
    assert r.exit_code == 0, r.output
    journal = LeagueJournal(load_league(folder))
    for key in bots:
        name, version = key.split("@")
        journal.add_entrant(name, version, "0" * 12, f"bots/{name}")
    return journal


def _play(journal: LeagueJournal, rng: random.Random, tables: int,
          bots: tuple[str, ...] = BOTS, last_first: bool = False) -> None:
    """Issue and finish ``tables`` 2-player duplicate sets of ``bots``, as a league commits
    them (``last_first``: each table's last game finished first, as on several workers)."""
    theta = {b: i * 0.5 for i, b in enumerate(bots)}
    for _ in range(tables):
        table, index = journal.next_table()
        games = play_table(theta, rng.sample(bots, 2), rng, table, index)
        journal.issue([Pairing(o.game_id, o.index, table, table, o.bots, o.seed) for o in games])
        for o in reversed(games) if last_first else games:
            journal.record_result(o, f"games/{o.game_id}.json", 0.1)


def _same(ratings: LeagueRatings, journal: LeagueJournal) -> bool:
    fresh, outcomes = league_ratings(journal)
    return ratings.games == len(outcomes) and json.dumps(
        ratings.tracker.standings().to_dict()) == json.dumps(fresh.standings().to_dict())


def test_the_ratings_follow_the_journal_reading_only_what_is_new(tmp_path: Path) -> None:
    journal = _league(tmp_path)
    rng = random.Random(1)
    try:
        ratings = LeagueRatings()
        assert ratings.update(journal) == [] and ratings.games == 0
        _play(journal, rng, 5)
        assert len(ratings.update(journal)) == 10 and _same(ratings, journal)
        _play(journal, rng, 3)
        added = ratings.update(journal)
        assert [o.game_id for o in added] == [o.game_id for o in journal.outcomes(True)[10:]]
        assert _same(ratings, journal)
        assert ratings.update(journal) == []  # nothing new: nothing read
    finally:
        journal.close()


def test_games_removed_from_the_journal_are_noticed_and_everything_is_read_again(
        tmp_path: Path) -> None:
    journal = _league(tmp_path)
    rng = random.Random(2)
    try:
        _play(journal, rng, 6)
        ratings = LeagueRatings()
        ratings.update(journal)
        last = journal.outcomes(True)[-1].bots
        # the last games' bot version removed, then new games committed: their results may
        # take the numbers the removed ones had
        journal.remove_entrant(last[0])
        _play(journal, rng, 2, tuple(b for b in BOTS if b != last[0]))
        ratings.update(journal)
        assert _same(ratings, journal)
        assert last[0] not in {b for o in journal.outcomes(True) for b in o.bots}
    finally:
        journal.close()


def _invoke(*args: str) -> str:
    r = CliRunner().invoke(app, list(args))
    assert r.exit_code == 0, r.output
    return r.output


def _watched(folder: Path) -> str:
    """What `arena league standings --watch` shows first, through a pipe (a real process)."""
    proc = subprocess.Popen([sys.executable, "-m", "arena", "league", "standings", str(folder),
                             "--watch"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        shown = ""
        assert proc.stdout is not None
        while "score: mean" not in shown and time.monotonic() < deadline:
            shown += proc.stdout.readline()
        os.kill(proc.pid, signal.SIGINT)
        proc.wait(10)
        return shown
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_every_command_rates_the_games_left_after_a_removal_as_the_league_does(
        tmp_path: Path) -> None:
    journal = _league(tmp_path)
    try:
        # Results committed out of the order the games were issued, and the first game's bot
        # version removed: the indices left start late and have gaps.
        _play(journal, random.Random(3), 16, last_first=True)
        gone = journal.outcomes()[0].bots[0]
        journal.remove_entrant(gone)
        left = journal.outcomes(True)
    finally:
        journal.close()
    folder = tmp_path / "league"
    league = json.loads(_invoke("league", "standings", str(folder), "--json"))
    ratings = league["standings"]
    assert league["games"] == ratings["rated_games"] == len(left) > 10
    bots = {b["name"]: b for b in ratings["bots"]}
    assert gone not in bots and len(bots) == 3

    table = json.loads(_invoke("standings", str(folder), "--json"))
    assert table["games"] == table["rated_games"] == len(left)
    assert {k: table[k] for k in ratings} == ratings

    _invoke("report", str(folder), "--bootstrap", "5", "-o", str(tmp_path / "page.html"))
    page = unescape((tmp_path / "page.html").read_text(encoding="utf-8"))
    assert f"TrueSkill after {len(left)} rated games" in page
    shown = dict(re.findall(r'<td class="l bot" title="([^"]+)">[^<]*</td>'
                            r"<td>([-\d.]+)</td><td>[-\d.]+</td>", page))
    assert shown == {b: f"{bots[b]['mu']:.2f}" for b in bots}
    sigmas = re.findall(r'title="[^"]+">[^<]*</td><td>[-\d.]+</td><td>([-\d.]+)</td>', page)
    assert sorted(sigmas) == sorted(f"{b['sigma']:.2f}" for b in bots.values())

    assert json.loads(_invoke("stats", str(folder), "--json", "--bootstrap", "5"))["games"] \
        == len(left)
    a, b = left[-1].bots
    met = sum(set(o.bots) == {a, b} for o in left)
    assert json.loads(_invoke("compare", str(folder), a, b, "--json"))["games"] == met

    watched = _watched(folder)
    assert f"league: {len(left)} games" in watched
    for name, bot in bots.items():
        assert re.search(rf"{re.escape(name)}\s.*{bot['mu']:.1f}±{bot['sigma']:.1f}", watched), \
            watched
