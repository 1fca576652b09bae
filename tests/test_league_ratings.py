"""arena.league.runner.LeagueRatings: a league's ratings followed as its journal grows (a real
SQLite journal), always what reading the whole journal gives."""

from __future__ import annotations

import json
import random
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app
from arena.league.config import load_league
from arena.league.runner import LeagueRatings, league_ratings
from arena.league.store import LeagueJournal
from arena.runner.schedule.base import Pairing
from arena.stats.synthetic import play_table

BOTS = ("a@1", "b@1", "c@1", "d@1")


def _league(tmp_path: Path) -> LeagueJournal:
    folder = tmp_path / "league"
    r = CliRunner().invoke(app, ["league", "init", str(folder), "--game", "stoneage"])
    assert r.exit_code == 0, r.output
    journal = LeagueJournal(load_league(folder))
    for key in BOTS:
        name, version = key.split("@")
        journal.add_entrant(name, version, "0" * 12, f"bots/{name}")
    return journal


def _play(journal: LeagueJournal, rng: random.Random, tables: int,
          bots: tuple[str, ...] = BOTS) -> None:
    """Issue and finish ``tables`` 2-player duplicate sets of ``bots``, as a league commits
    them."""
    theta = {b: i * 0.5 for i, b in enumerate(BOTS)}
    for _ in range(tables):
        table, index = journal.next_table()
        games = play_table(theta, rng.sample(bots, 2), rng, table, index)
        journal.issue([Pairing(o.game_id, o.index, table, table, o.bots, o.seed) for o in games])
        for o in games:
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
