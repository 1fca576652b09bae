"""A league run starts from its journal's rating checkpoint and history (arena.league.state):
the same ratings, counts, failure windows, newest games and floor watch as rating every game
again, on a journal with failures, retired, suspended, enabled and removed bot versions."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import deque
from pathlib import Path
from typing import Any

from test_league_ratings import _league
from typer.testing import CliRunner

from arena.bench.leaguescale import PLAYED_AFTER_START, write_journal
from arena.cli.bench_league import start_rows
from arena.cli.main import app
from arena.league.config import load_league
from arena.league.floor import FloorWatch
from arena.league.runner import League, league_table_pairings
from arena.league.state import RunState, _watch_from_history
from arena.league.store import LeagueJournal
from arena.protocol.messages import FAILURES, Termination
from arena.results import GameOutcome

BOTS = tuple(f"bot{i}@1" for i in range(8))


def _outcome(pairing: Any, rng: random.Random) -> GameOutcome:
    """A made-up result of ``pairing``: random scores (ties now and then), a seat failing
    one time in eight, ranked last."""
    seats = len(pairing.bots)
    ended = tuple(rng.choice(FAILURES) if rng.random() < 0.125 else Termination.OK
                  for _ in range(seats))
    scores = tuple(-1 if e != Termination.OK else rng.randrange(4) for e in ended)
    ranks = tuple(1 + sum(other > mine for other in scores) for mine in scores)
    return GameOutcome(pairing.game_id, pairing.index, pairing.round, pairing.table,
                       pairing.bots, pairing.seed, scores, ranks, ended)


def _play(journal: LeagueJournal, rng: random.Random, tables: int) -> None:
    """Issue and commit ``tables`` 3-player duplicate sets among the active versions, each
    set's games committed in a shuffled order (as several workers finish them)."""
    for _ in range(tables):
        active = [e.key for e in journal.entrants("active")]
        table, index = journal.next_table()
        pairings = league_table_pairings(table, index, rng.sample(active, 3), rng.randrange(99))
        journal.issue(pairings)
        rng.shuffle(pairings)
        for p in pairings:
            journal.record_result(_outcome(p, rng), f"games/{p.game_id}.json", 0.1)


def _assert_same(started: RunState, replayed: RunState) -> None:
    assert started.rated == replayed.rated
    assert started.tracker.standings().to_dict() == replayed.tracker.standings().to_dict()
    for bot in replayed.tracker.bots:
        assert started.tracker.rating(bot) == replayed.tracker.rating(bot)
    assert list(started.recent) == list(replayed.recent)
    assert started.recent.maxlen == replayed.recent.maxlen
    assert started.failures == replayed.failures
    assert started.games == replayed.games
    assert {b: (list(h), h.maxlen) for b, h in started.history.items()} == \
        {b: (list(h), h.maxlen) for b, h in replayed.history.items()}
    if replayed.floors is None:
        assert started.floors is None
    else:
        assert started.floors is not None
        assert started.floors._bots == replayed.floors._bots


def _check(journal: LeagueJournal, *windows: int, history: bool = True) -> None:
    """The two states agree at each of ``windows``, with and without the floor watch;
    ``history``: the floor watch is read from the rating history (not from every game rated
    again).

    Every game is rated again once, with the floor watch and the longest window: a shorter
    window's state is that one with each version's last games cut to the window, and the
    state without a floor watch is that one without it (the watch only reads the ratings).
    """
    games = journal.pairing_count("done")
    assert _watch_from_history(journal, FloorWatch(3), games) is history
    longest = RunState.replayed(journal, max(windows), True)
    for window in windows:
        for floors in (False, True):
            replayed = dataclasses.replace(
                longest, window=window, floors=longest.floors if floors else None,
                history={b: deque(h, maxlen=window) for b, h in longest.history.items()})
            _assert_same(RunState.started(journal, window, floors), replayed)


def test_a_run_starts_from_the_checkpoint_as_from_every_game_rated(tmp_path: Path) -> None:
    journal = _league(tmp_path, BOTS)
    rng = random.Random(7)
    try:
        _check(journal, 10, history=False)  # no game yet
        _play(journal, rng, 30)
        journal.set_status(BOTS[0], "retired")
        _play(journal, rng, 25)
        journal.set_status(BOTS[1], "suspended", "3 of its last 10 games ended in its failure")
        _play(journal, rng, 25)
        journal.set_status(BOTS[1], "active")
        _play(journal, rng, 20)
        assert journal.pairing_count("done") == 300
        _check(journal, 1, 4, 10, 300)
        # A removed version's games leave the rating history behind the games until the
        # next game is committed: the run then rates every game again, and after it, reads
        # the history written anew.
        journal.remove_entrant(BOTS[2])
        _check(journal, 10, history=False)
        _play(journal, rng, 5)
        _check(journal, 10)
        # The cut-down state _check compares with is the one rating again without the watch
        # and with a shorter window gives.
        _assert_same(RunState.started(journal, 4, False), RunState.replayed(journal, 4, False))
    finally:
        journal.close()


def test_the_league_runner_takes_that_state(tmp_path: Path) -> None:
    journal = _league(tmp_path, BOTS)
    _play(journal, random.Random(8), 40)
    journal.close()
    config = load_league(tmp_path / "league")
    for target in (None, 1.0):
        league = League(config, until_sigma=target)
        try:
            _assert_same(league.state, RunState.replayed(league.journal, config.suspend_window,
                                                         floors=target is not None))
            assert league.tracker is league.state.tracker and league.done_before == 120
        finally:
            league.journal.close()
            league.lock.release()


def test_bench_league_times_the_start_each_way_on_a_copy(tmp_path: Path) -> None:
    folder = tmp_path / "long"
    write_journal(folder, 12, 2, 60, seed=3)
    before = sorted(p.name for p in folder.iterdir())
    r = CliRunner().invoke(app, ["bench", "league", "--bots", "12", "--players", "2",
                                 "--no-settle", "--tables", "0", "--start", str(folder),
                                 "--json"])
    assert r.exit_code == 0, r.output
    start = json.loads(r.output)["scale"]["start"]
    assert [start[way]["games"] for way in ("checkpoint", "checkpoint_floors", "replay")] == \
        [60, 60, 60]
    assert all(start[way]["seconds"] > 0 for way in ("checkpoint", "replay"))
    assert sorted(p.name for p in folder.iterdir()) == before  # the league itself untouched
    # The runner started from the checkpoint then plays duplicate sets of two games each, its
    # peak memory read after them (never below the start's), beside the journal's size.
    played = start["played"]
    assert played["games"] == 60 and played["played_games"] == 2 * PLAYED_AFTER_START
    assert played["played_peak_rss_bytes"] >= played["peak_rss_bytes"] > 0
    assert start["journal_bytes"] > 0 and "played_games" not in start["checkpoint"]
    rows = start_rows(start)
    assert len(rows) == 4 and "processor ÷ from the checkpoint's" in rows[2][1]
    assert f"then {2 * PLAYED_AFTER_START} games played" in rows[3][0]
    assert "beside the journal's" in rows[3][1]
    lacking = CliRunner().invoke(app, ["bench", "league", "--no-settle", "--tables", "0",
                                       "--start", str(tmp_path)])
    assert lacking.exit_code != 0 and "no league.toml" in lacking.output
