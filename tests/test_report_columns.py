"""A large field's report from its games as columns (:mod:`arena.stats.columns`,
:mod:`arena.runner.play.columns`): the same aggregates as the game-by-game figures, and the same
page, tested with the large-field threshold passed in low on small synthetic journals that
hold shared ranks, a bot seated twice, a three-player table among four-player ones and a bot
the tournament does not name."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from arena.report.charts import bot_scores
from arena.report.html import build_report
from arena.results import GameOutcome, Pairing
from arena.runner.play import columns as runner_columns
from arena.runner.play.columns import duplicate_sets, first_seen
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.reading import read_progress, read_report
from arena.stats.choices import large_choice_data
from arena.stats.columns import (
    GameColumns,
    column_choice_data,
    column_head_to_head,
    column_scores,
    column_seats,
    columns_of,
    two_player_games,
)
from arena.stats.summary import matches
from arena.stats.synthetic import synthetic_bots, synthetic_outcomes
from arena.stats.tables import head_to_head, seats


def _odd_games(players: int, games: int, seed: int, rated: bool = False
              ) -> tuple[list[str], list[GameOutcome]]:
    """Synthetic games with the rare cases mixed in: shared ranks, a smaller table, and
    unless ``rated`` (the ratings refuse them), a bot seated twice and a bot not among the
    named ones."""
    theta = synthetic_bots(9, seed)
    outcomes = synthetic_outcomes(theta, players, games, seed)
    outcomes[5] = dataclasses.replace(outcomes[5], ranks=(1, 1, *outcomes[5].ranks[2:]))
    o = outcomes[9]
    outcomes[9] = dataclasses.replace(o, ranks=tuple(2 if r > 1 else 1 for r in o.ranks))
    if players > 2:
        o = outcomes[13]
        outcomes[13] = dataclasses.replace(
            o, bots=o.bots[:-1], ranks=tuple(sorted(o.ranks[:-1])), scores=o.scores[:-1],
            terminations=o.terminations[:-1])
    if rated:
        return sorted(theta), outcomes
    o = outcomes[20]
    outcomes[20] = dataclasses.replace(o, bots=(*o.bots[:-1], o.bots[0]))
    o = outcomes[21]
    outcomes[21] = dataclasses.replace(o, bots=("stranger", *o.bots[1:]))
    return sorted(theta), outcomes


@pytest.mark.parametrize("players", [2, 4])
def test_the_columns_give_the_game_by_game_aggregates(players: int) -> None:
    names, outcomes = _odd_games(players, 600, 3)
    cols = columns_of(outcomes, names)
    assert cols.bots == [*names, "stranger"]
    assert cols.games == len(outcomes) and cols.table(20) == outcomes[20].bots
    assert column_seats(cols) == seats(outcomes)
    order = [*names[::-1], "stranger"]
    assert column_head_to_head(cols, order) == head_to_head(outcomes, order)
    top = names[2:7]
    assert column_head_to_head(cols, top) == head_to_head(outcomes, top)
    assert column_scores(cols, top) == bot_scores(outcomes, top)
    assert column_scores(cols, ["nobody"]) == {"nobody": []}
    # The same matches from the two-player games of the top, as tournament_stats takes them.
    two = [o for o in outcomes if len(o.bots) == 2 and all(b in top for b in o.bots)]
    assert matches(two_player_games(cols, top), top) == matches(two, top)
    # The same choices, bit for bit (the same array operations on the same numbers).
    slow, fast = large_choice_data(outcomes, names), column_choice_data(cols, names)
    for f in dataclasses.fields(slow):
        a, b = getattr(slow, f.name), getattr(fast, f.name)
        assert (np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b), f.name


def test_a_bot_seated_twice_meets_itself_as_game_by_game() -> None:
    game = GameOutcome("g0", 0, 0, 0, ("a", "b", "a"), 1, (3, 2, 5), (2, 3, 1),
                       ("ok", "ok", "ok"))  # type: ignore[arg-type]
    cols = columns_of([game, game], ["a", "b"])
    found = column_head_to_head(cols, ["a", "b"])
    assert found == head_to_head([game, game], ["a", "b"])
    assert [(h.a, h.b, h.ahead, h.behind, h.level) for h in found] == [
        ("a", "a", 2, 0, 0), ("a", "b", 4, 0, 0)]


def _journal(folder: Path, outcomes: list[GameOutcome], names: list[str], league: bool) -> None:
    """A journal of ``outcomes`` with its rating checkpoint and history, as a league or a
    tournament keeps them."""
    journal = Journal(folder / JOURNAL)
    try:
        journal.bind({"name": "columns", "game": "synthetic", "players": 4,
                      **({"kind": "league"} if league else {}),
                      "bots": [{"name": b} for b in names]}, "synthetic games")
        journal.keep_ratings = False
        journal.add_pairings([Pairing(o.game_id, o.index, o.round, o.table, o.bots, o.seed)
                              for o in outcomes])
        # A league rates its games as they finish: not in the order issued.
        finished = outcomes[::-1] if league else outcomes
        for o in finished:
            journal.record_result(o, f"games/{o.game_id}.json", 0.0)
        tracker = RatingTracker(names)
        tracker.log = []
        tracker.add_all(journal.rated_outcomes())
        journal.write_checkpoint(tracker)
    finally:
        journal.close()


@pytest.mark.parametrize("league", [False, True])
def test_the_page_from_columns_is_the_page_from_every_game(tmp_path: Path,
                                                           league: bool) -> None:
    names, outcomes = _odd_games(4, 500, 7, rated=True)
    _journal(tmp_path, outcomes, names, league)
    full = read_progress(tmp_path, records=True, ratings=True)
    progress, cols = read_report(tmp_path, large_field=5, listed=40)
    assert isinstance(cols, GameColumns)
    assert len(progress.outcomes) == 40 and progress.outcomes == full.outcomes[-40:]
    assert progress.records == {o.game_id: full.records[o.game_id] for o in progress.outcomes}
    assert progress.history == full.history and progress.history is not None
    # The columns read from SQLite are those of every game read as objects.
    made = columns_of(full.outcomes, full.bots)
    for f in dataclasses.fields(made):
        a, b = getattr(made, f.name), getattr(cols, f.name)
        assert (np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b), f.name
    page = build_report(progress, tmp_path, tmp_path / "report.html", True, seed=3,
                        games_listed=40, large_field=5, shown=4, columns=cols)
    assert page == build_report(full, tmp_path, tmp_path / "report.html", True, seed=3,
                                games_listed=40, large_field=5, shown=4)
    assert 'id="shown"' in page and "The last 40 of the 500 finished games" in page


def test_a_field_at_the_threshold_reads_every_game(tmp_path: Path) -> None:
    names, outcomes = _odd_games(4, 200, 2, rated=True)
    _journal(tmp_path, outcomes, names, league=True)
    progress, cols = read_report(tmp_path, large_field=9, listed=40)
    assert cols is None and len(progress.outcomes) == 200
    full = read_progress(tmp_path, records=True, ratings=True)
    assert dataclasses.replace(progress, ratings=None) == dataclasses.replace(full, ratings=None)
    assert progress.ratings is not None and full.ratings is not None
    assert progress.ratings.standings() == full.ratings.standings()


def test_first_seen_is_the_order_of_first_places_also_far_into_the_seats() -> None:
    rng = np.random.default_rng(5)
    seats = rng.integers(-1, 40, size=300_000)
    seats[seats == 7] = 3
    seats[250_000] = 7  # first seen past several prefixes
    present, first = np.unique(seats[seats >= 0], return_index=True)
    assert np.array_equal(first_seen(seats, 50), present[np.argsort(first, kind="stable")])
    assert first_seen(seats, 50)[-1] == 7 and len(first_seen(seats[:0], 50)) == 0


def test_duplicate_sets_of_rows_whose_hashes_collide_are_the_rows_sets(
        monkeypatch: pytest.MonkeyPatch) -> None:
    names, outcomes = _odd_games(4, 300, 8)
    cols = columns_of(outcomes, names)
    inside = cols.seat_bot >= 0
    rounds = np.array([o.round for o in outcomes])
    tables = np.array([o.table for o in outcomes])
    seeds = np.array([o.seed for o in outcomes])
    hashed = duplicate_sets(rounds, tables, seeds, cols.seat_bot, inside)
    assert np.array_equal(hashed, cols.dup) and len(set(hashed.tolist())) > 1
    monkeypatch.setattr(runner_columns, "_row_hash",
                        lambda keys: np.zeros(len(keys), dtype=np.uint64))
    assert np.array_equal(duplicate_sets(rounds, tables, seeds, cols.seat_bot, inside), hashed)
