"""The head-to-head records of the ratings, kept unparsed from a checkpoint and made into a
crosstable only when read: every reading gives what counting every game would, in the same
order, and a crosstable shows the games counted when its standings were taken."""

from __future__ import annotations

import json
import pickle

import pytest

from arena.runner.play.meetings import split_records
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.standings import Crosstable, HeadToHead
from arena.stats.synthetic import synthetic_bots, synthetic_outcomes


def _trackers(games: int = 300, at: int = 150) -> tuple[RatingTracker, RatingTracker, list]:
    theta = synthetic_bots(7, 3)
    outcomes = synthetic_outcomes(theta, 4, games, 3)
    whole = RatingTracker(list(theta))
    whole.add_all(outcomes)
    half = RatingTracker(list(theta))
    half.add_all(outcomes[:at])
    return whole, half, outcomes


def test_games_counted_before_the_records_are_parsed_give_the_same_state() -> None:
    whole, half, outcomes = _trackers()
    again = RatingTracker.from_state(half.state(), list(reversed(whole.bots)))
    again.add_all(outcomes[150:])  # counted apart, then added to the stored records
    crosstable = again.standings().crosstable
    assert isinstance(crosstable, Crosstable)
    assert crosstable == whole.standings().crosstable
    assert json.loads(again.state()) == json.loads(RatingTracker.from_state(
        whole.state(), list(reversed(whole.bots))).state())
    same_order = RatingTracker.from_state(half.state(), whole.bots)
    same_order.add_all(outcomes[150:])
    assert same_order.state() == whole.state()
    assert same_order.size == whole.size


def test_a_crosstable_shows_the_games_of_its_standings() -> None:
    whole, half, outcomes = _trackers()
    early = RatingTracker.from_state(half.state(), whole.bots)
    before = early.standings()
    dropped = early.standings()
    del dropped  # no longer read: not made when the next game is counted
    early.add_all(outcomes[150:])
    assert dict(before.crosstable) == half.standings().crosstable.rows()
    assert before.crosstable != early.standings().crosstable
    assert early.standings().crosstable == whole.standings().crosstable


def test_a_crosstable_reads_as_and_pickles_as_a_plain_dict() -> None:
    whole, _, _ = _trackers(60, 60)
    table = whole.standings().crosstable
    assert isinstance(table, Crosstable)
    plain = pickle.loads(pickle.dumps(table))
    assert type(plain) is dict and plain == table and len(plain) == len(table)
    a = next(iter(table))
    assert a in table and "nobody" not in table
    assert all(isinstance(h, HeadToHead) for h in table[a].values())
    assert repr(table).startswith("Crosstable({")


def test_a_state_is_split_at_its_records_only() -> None:
    _, half, _ = _trackers(40, 40)
    text = half.state()
    rest, records = split_records(text)  # type: ignore[misc]
    assert json.loads(records) == json.loads(text)["h2h"]
    assert json.loads(rest) == {k: v for k, v in json.loads(text).items() if k != "h2h"}
    assert split_records('{"version":1,"bots":[]}') is None
    with pytest.raises(ValueError, match="not a rating state"):
        RatingTracker.from_state('{"version":1,"bots":["\\"h2h\\":[1],\\"seats\\":"]}')
