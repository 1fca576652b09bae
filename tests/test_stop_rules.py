"""Stopping rules (``[stop]``): the file's checks, the rule's state over games built by hand,
and real tournaments (real bot processes, ZeroMQ and SQLite) that stop once the rule decides,
record why, and keep the decision through a rerun and a SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from test_live_and_outputs import BOTS, GAMES, snapshot
from test_tournament_e2e import (
    Runs,
    example,
    random_py_twin,
    read_journal,
    runs,
    schedule_of,
    standings_doc,
    wait_until,
    write_tournament,
)
from typer.testing import CliRunner

from arena.cli.main import app
from arena.results import GameOutcome
from arena.runner.play.config import ConfigError, load_config
from arena.runner.play.journal import JOURNAL, Journal, JournalError
from arena.runner.play.live import plain_line, render
from arena.runner.play.ratings import compute_standings
from arena.runner.play.stop import IntervalsRule, SprtRule, StopRule, StopWatch
from arena.stats.common import rounded
from arena.stats.match import Sprt, sprt

__all__ = ["runs"]  # the fixture, shared with the tournament's end-to-end tests

GREEDY, RANDOM = "greedy-py", "random-py"


def with_stop(file: Path, *lines: str) -> Path:
    """``file`` with a ``[stop]`` table of ``lines`` appended."""
    file.write_text(file.read_text(encoding="utf-8") + "\n[stop]\n" + "\n".join(lines) + "\n",
                    encoding="utf-8")
    return file


# ---------------------------------------------------------------------------- the file


def two_bots(tmp_path: Path, **fields: Any) -> Path:
    return write_tournament(tmp_path, "t.toml", name="t", **{"output": tmp_path / "out",
                            "bots": [example(GREEDY), example(RANDOM)], **fields})


def three_bots(tmp_path: Path, **fields: Any) -> Path:
    return write_tournament(tmp_path, "t.toml", name="t", **{
        "output": tmp_path / "out",
        "bots": [example(GREEDY), example(RANDOM), random_py_twin(tmp_path)], **fields})


BAD: dict[str, tuple[str, dict[str, Any], list[str], str]] = {
    # case: (bots, file fields, [stop] lines, the end of the one-line message)
    "empty": ("two", {}, [], "'stop' must give one rule: sprt = { ... } (two players) or "
                             "intervals = { ... }"),
    "both": ("two", {}, ["sprt = {}", "intervals = {}"], "'stop' must give one rule: sprt = "
                                                         "{ ... } (two players) or intervals "
                                                         "= { ... }"),
    "unknown": ("two", {}, ["sprt = {}", "when = 3"], "'stop' has unknown field(s): when "
                                                      "(known: intervals, sprt)"),
    "own cap": ("two", {}, ["sprt = {}", "max_games = 200"],
                "'stop.max_games' is not a stop field: the schedule's size is the cap (set "
                "'max_games' or 'rounds' at the top of the file)"),
    "swiss": ("two", {"format": "swiss"}, ["intervals = {}"],
              "'stop' does not apply to a swiss tournament: it pairs bots by their results, "
              "so the pairs a rule looks at need not meet"),
    "not a table": ("two", {}, ["sprt = 3"], "'stop.sprt' must be a table, e.g. { alpha = "
                                             "..., beta = ..., elo0 = ..., elo1 = ..., model "
                                             "= ... }"),
    "sprt key": ("two", {}, ["sprt = { elo2 = 5 }"], "'stop.sprt' has unknown field(s): elo2 "
                                                     "(known: alpha, beta, elo0, elo1, model)"),
    "tables of 3": ("three", {"players": 3}, ["sprt = {}"],
                    "'stop.sprt' needs two-player tables (players = 2), not 3"),
    "three bots": ("three", {}, ["sprt = {}"],
                   "'stop.sprt' needs a round-robin of exactly two bots (the first named is "
                   "tested against the second) or a gauntlet; this one has 3"),
    "no rotation": ("two", {"seat_rotation": False}, ["sprt = {}"],
                    "'stop.sprt' needs seat_rotation = true: it counts game pairs, the two "
                    "seats of one table"),
    "elo order": ("two", {}, ["sprt = { elo0 = 10, elo1 = 0 }"],
                  "'stop.sprt' elo0 must be below elo1, got 10 and 0"),
    "elo text": ("two", {}, ['sprt = { elo1 = "10" }'],
                 "'stop.sprt.elo1' must be a number, got '10'"),
    "alpha": ("two", {}, ["sprt = { alpha = 0.5 }"],
              "'stop.sprt.alpha' must be between 0 and 0.5, got 0.5"),
    "beta": ("two", {}, ["sprt = { beta = 0 }"],
             "'stop.sprt.beta' must be between 0 and 0.5, got 0"),
    "model": ("two", {}, ['sprt = { model = "bayes" }'],
              "'stop.sprt.model' must be one of logistic, normalized, got 'bayes'"),
    "not computable": ("two", {}, ['sprt = { elo1 = 400, model = "normalized" }'],
                       "'stop.sprt' cannot compute the normalized likelihood ratio of elo0 0 "
                       "against elo1 400: choose bounds nearer zero"),
    "confidence": ("two", {}, ["intervals = { confidence = 1 }"],
                   "'stop.intervals.confidence' must be between 0.5 and 1, got 1"),
    "min games": ("two", {}, ["intervals = { min_games = 0 }"],
                  "'stop.intervals.min_games' must be a whole number >= 1, got 0"),
    "interval key": ("two", {}, ["intervals = { level = 0.9 }"],
                     "'stop.intervals' has unknown field(s): level (known: confidence, "
                     "min_games)"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_stop_section_is_one_line_naming_the_field(tmp_path: Path, case: str) -> None:
    bots, fields, lines, message = BAD[case]
    file = with_stop((two_bots if bots == "two" else three_bots)(tmp_path, **fields), *lines)
    with pytest.raises(ConfigError) as err:
        load_config(file)
    text = str(err.value)
    assert "\n" not in text
    assert text.startswith(f"{file}: ") and text.endswith(message), text


def test_a_good_stop_section_is_the_rule_and_part_of_the_identity(tmp_path: Path) -> None:
    plain = load_config(two_bots(tmp_path))
    assert plain.stop is None and "stop" not in plain.identity()  # as before rules existed
    file = with_stop(two_bots(tmp_path), 'sprt = { elo0 = -5, elo1 = 5, model = "normalized" }')
    config = load_config(file)
    assert config.stop == StopRule(sprt=SprtRule(-5.0, 5.0, 0.05, 0.05, "normalized"))
    assert config.identity()["stop"] == {"sprt": {"elo0": -5.0, "elo1": 5.0, "alpha": 0.05,
                                                  "beta": 0.05, "model": "normalized"}}
    gauntlet = with_stop(three_bots(tmp_path, format="gauntlet", candidates=[GREEDY]),
                         "intervals = {}")
    assert load_config(gauntlet).stop == StopRule(intervals=IntervalsRule(0.99, 40))


# ---------------------------------------------------------------------------- the rule's state


def outcome(index: int, round_: int, table: int, bots: tuple[str, ...],
            ranks: tuple[int, ...]) -> GameOutcome:
    return GameOutcome(f"r{round_}-t{table}-s{index}", index, round_, table, bots,
                       1000 * round_ + table, tuple(10 - r for r in ranks), ranks,
                       ("ok",) * len(bots))  # type: ignore[arg-type]


#: A's ranks, and B's, for A's points in a game: a win, a draw (a shared rank), a loss.
RANKS = {1.0: (1, 2), 0.5: (1, 1), 0.0: (2, 1)}


def pair(index: int, table: int, a: str, b: str,
         points: tuple[float, float]) -> list[GameOutcome]:
    """The two games of one table, ``a`` in seat 0 then in seat 1, with A's ``points`` in
    each."""
    ra, rb = RANKS[float(points[0])]
    first = outcome(index, 1, table, (a, b), (ra, rb))
    ra, rb = RANKS[float(points[1])]
    return [first, outcome(index + 1, 1, table, (b, a), (rb, ra))]


def feed(watch: StopWatch, games: Iterable[GameOutcome]) -> int | None:
    """Add the games one by one until the rule decides, as a tournament does; the number of
    games then (None if it never did)."""
    for n, g in enumerate(games, start=1):
        watch.add(g)
        if watch.decided():
            return n
    return None


def test_the_sprt_decides_at_the_game_that_completes_the_deciding_pair() -> None:
    """Pairs of greedy-py against random-py in the pattern below (pentanomial classes: 4 WW,
    3 WD, 2 WL, 0 LL). The generalized LLR of the pentanomial counts (arena.stats.match.sprt)
    first reaches Wald's upper bound ln(0.95 / 0.05) = 2.944 at the 11th pair (LLR 3.136;
    2.680 at the 10th), and falls below it again at the 13th, an LL pair: the watch decides at
    the 11th pair's second game, never at a pair's first (half a pair counts for nothing),
    with each pair's second game arriving late and out of order."""
    rule = SprtRule(elo0=0, elo1=200)
    pattern = [4, 4, 0, 4, 2, 4, 4, 3, 4, 4, 4, 4, 0]
    points = {4: (1.0, 1.0), 3: (1.0, 0.5), 2: (1.0, 0.0), 0: (0.0, 0.0)}
    counts = [0] * 5
    llrs = []
    for k in pattern:
        counts[k] += 1
        llrs.append(sprt(counts, 0, 200).llr)
    assert [round(x, 3) for x in llrs[9:]] == [2.680, 3.136, 3.585, 2.651]
    deciding = 11
    games = []
    for n, k in enumerate(pattern):
        games += pair(2 * n, n + 1, GREEDY, RANDOM, points[k])
    # Each pair's second game a pair late: games 1, 3, 2, 5, 4, ...
    order = [games[0]] + [g for k in range(len(pattern))
                          for g in (games[2 * k + 2:2 * k + 3] + games[2 * k + 1:2 * k + 2])]
    watch = StopWatch(StopRule(sprt=rule), [GREEDY, RANDOM])
    at = feed(watch, order)
    assert at == 2 * deciding + 1  # the 11th pair's second game, after the 12th pair's first
    record = watch.record(schedule_ended=False)
    assert record["verdict"] == "H1 accepted" and record["rule"] == "sprt"
    assert record["schedule_ended"] is False
    test = record["sprt"][0]
    assert test["bot"] == GREEDY and test["against"] == [RANDOM]
    assert test["pentanomial"] == [1, 0, 1, 1, 8] and test["verdict"] == "H1"
    assert test["llr"] == pytest.approx(3.136, abs=1e-3)
    assert test["lower"] == pytest.approx(-2.944438979) and test["upper"] == pytest.approx(
        2.944438979)
    json.dumps(record, allow_nan=False)  # the journal and standings.json take it as it is
    # The 13th pair, LL, would take the LLR back below the bound: the test ended at its
    # decision, and later games do not reopen it.
    for g in order[at:]:
        watch.add(g)
    assert watch.decided() and watch.record(schedule_ended=False)["sprt"] == record["sprt"]


def test_the_sprt_accepts_h0_when_the_first_named_bot_is_the_weaker() -> None:
    watch = StopWatch(StopRule(sprt=SprtRule(elo0=0, elo1=200)), [RANDOM, GREEDY])
    games = [g for n in range(20) for g in pair(2 * n, n + 1, GREEDY, RANDOM, (1, 1))]
    at = feed(watch, games)
    # LL pairs from random-py's side. A score of 0 is further from elo1 = 200 than 1 is from
    # elo0 = 0, so H0 needs fewer of them than H1 needs WW pairs (8).
    assert at == 10
    assert sprt([5, 0, 0, 0, 0], 0, 200).verdict == "H0"
    assert sprt([4, 0, 0, 0, 0], 0, 200).verdict == "continue"
    assert watch.record(schedule_ended=False)["verdict"] == "H0 accepted"


def test_a_gauntlets_sprt_pools_each_candidates_pairs_and_waits_for_every_candidate() -> None:
    """Candidates c1 (wins every game) and c2 (one each every pair), field f1, f2: c1's pairs
    against both are pooled into one test; the rule waits for c2, whose WL pairs drift to H0
    (a score of one half is nearer elo0 = 0 than elo1 = 200)."""
    watch = StopWatch(StopRule(sprt=SprtRule(elo0=0, elo1=200)), ["c1", "c2", "f1", "f2"],
                      candidates=["c1", "c2"])
    games: list[GameOutcome] = []
    for n in range(40):
        games += pair(4 * n, 2 * n + 1, "c1", "f1" if n % 2 else "f2", (1, 1))
        games += pair(4 * n + 2, 2 * n + 2, "c2", "f1", (1, 0))
    at = feed(watch, games)
    # c2's test decides at its 5th WL pair (game 20), c1's at its 8th WW pair (game 30).
    assert sprt([0, 0, 5, 0, 0], 0, 200).verdict == "H0"
    assert sprt([0, 0, 4, 0, 0], 0, 200).verdict == "continue"
    assert sprt([0, 0, 0, 0, 8], 0, 200).verdict == "H1"
    assert sprt([0, 0, 0, 0, 7], 0, 200).verdict == "continue"
    assert at == 30
    record = watch.record(schedule_ended=False)
    assert record["verdict"] == "every candidate's SPRT decided"
    c1, c2 = record["sprt"]
    assert (c1["bot"], c1["against"], c1["verdict"]) == ("c1", ["f1", "f2"], "H1")
    # c2 went on playing while c1's test went on; its test ended at its decision
    assert c1["pentanomial"] == [0, 0, 0, 0, 8] and c2["pentanomial"] == [0, 0, 5, 0, 0]
    assert c2["verdict"] == "H0"


def test_the_intervals_rule_waits_for_every_pair_and_its_minimum() -> None:
    """Three bots at three-player tables, always finishing a, b, c: each pair is n ahead, 0
    behind after n games. Wilson's lower end at n of n is n / (n + z^2) (the interval's
    formula with p = 1), z^2 = 6.635 at 99%: above one half from n = 7 on. A level finish
    (a shared rank) counts towards min_games, not towards the interval."""
    rule = IntervalsRule(confidence=0.99, min_games=9)
    assert rule.z ** 2 == pytest.approx(6.6349, abs=1e-4)
    games = [outcome(n, 1, n, ("a", "b", "c"), (1, 2, 3)) for n in range(12)]
    games[3] = outcome(3, 1, 3, ("a", "b", "c"), (1, 1, 3))  # a and b level
    watch = StopWatch(StopRule(intervals=rule), ["a", "b", "c"])
    at = feed(watch, games)
    # a-c and b-c: 9 games, 9 ahead, from the 9th game; a-b: 7 of 7 decided at its 8th game,
    # but 9 games together only at the 9th too.
    assert at == 9
    watch2 = StopWatch(StopRule(intervals=IntervalsRule(0.99, 1)), ["a", "b", "c"])
    assert feed(watch2, games) == 8  # a-b's 7th decided game is the 8th game
    assert watch2.status() == "intervals: 3 of 3 pairs decided (99%, min 1 games)"
    record = watch.record(schedule_ended=False)
    assert record["verdict"] == "every interval excludes parity"
    assert (record["pairs"], record["decided"], record["undecided"]) == (3, 3, [])


def test_a_gauntlets_intervals_ignore_the_field_among_itself() -> None:
    watch = StopWatch(StopRule(intervals=IntervalsRule(0.95, 1)), ["f1", "c", "f2"],
                      candidates=["c"])
    games = [outcome(n, 1, n, ("f1", "f2", "c"), (1, 1, 1) if n == 0 else (2, 3, 1))
             for n in range(8)]
    # c against f1, f2: 0 of 1 decided games, then ahead in each; f1-f2 always level (ignored)
    at = feed(watch, games)
    assert at == next(n for n in range(1, 9) if (n - 1) / (n - 1 + 1.959964 ** 2) > 0.5)
    assert watch.record(schedule_ended=False)["pairs"] == 2


def test_a_record_at_the_schedules_end_names_what_was_undecided() -> None:
    watch = StopWatch(StopRule(intervals=IntervalsRule(0.99, 4)), ["a", "b", "c"])
    feed(watch, [outcome(n, 1, n, ("a", "b", "c"), (1, 2 + n % 2, 3 - n % 2))
                 for n in range(10)])
    record = watch.record(schedule_ended=True)
    assert record["verdict"] == "undecided: the schedule ended before the intervals decided"
    assert [(u["a"], u["b"], u["ahead"], u["behind"]) for u in record["undecided"]] == [
        ("b", "c", 5, 5)]
    assert record["summary"] == ("the schedule ended (10 games) before the intervals decided: "
                                 "2 of 3 pairs decided (99% Wilson, at least 4 games a pair)")


def test_past_a_hundred_pairs_an_sprt_is_looked_at_every_hundredth() -> None:
    """Balanced pairs (a score of one half: LLR 0 between symmetric hypotheses) for 300
    pairs, then won pairs until the test decides: a look
    after each of the first 100 pairs, then once the pairs grew by a hundredth of their number
    since the last look. The decision comes at the first look at or past the pair where the
    LLR crosses the bound, and the figures recorded are that look's."""
    looks: list[tuple[int, ...]] = []

    @dataclass(frozen=True)
    class Counted(SprtRule):
        def test(self, counts: Sequence[float]) -> Sprt:
            looks.append(tuple(int(c) for c in counts))
            return super().test(counts)

    watch = StopWatch(StopRule(sprt=Counted(elo0=-50, elo1=50)), [GREEDY, RANDOM])
    balanced = [(1.0, 1.0), (0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (0.0, 0.5)]
    kinds = [balanced[n % 5] for n in range(300)] + [(1.0, 1.0)] * 300
    games = [g for n, k in enumerate(kinds) for g in pair(2 * n, n + 1, GREEDY, RANDOM, k)]
    at = feed(watch, games)
    assert at is not None and at % 2 == 0
    # Where the LLR first crosses, looking after every pair, and the looks made:
    counts, crossing, last, expected_looks = [0] * 5, None, 0, []
    classes = {(1.0, 1.0): 4, (0.0, 0.0): 0, (1.0, 0.0): 2, (1.0, 0.5): 3, (0.0, 0.5): 1}
    for n, k in enumerate(kinds, start=1):
        counts[classes[k]] += 1
        if crossing is None and sprt(counts, -50, 50).verdict != "continue":
            crossing = n
        if n - last >= max(1, n // 100):
            expected_looks.append(tuple(counts))
            last = n
    assert crossing is not None
    assert looks == expected_looks[:len(looks)] and len(looks) < crossing
    decided_at = sum(looks[-1])
    assert at == 2 * decided_at and crossing <= decided_at <= crossing * 1.01 + 1
    # one a pair up to 200 pairs, one every 2 up to 300, then every 3
    assert decided_at > 300 and len(looks) == 200 + 50 + (decided_at - 300) // 3
    assert watch.record(schedule_ended=False)["sprt"][0]["pentanomial"] == list(looks[-1])


def test_the_sprt_is_computed_a_few_hundred_times_over_thousands_of_pairs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Computing an SPRT is a look's whole cost (a fraction of a millisecond, more for the
    normalised model): over 2,000 pairs it is computed about 430 times, at every pair up to
    199 and then once the pairs grew by a hundredth, so the later games cost less than the
    first, however long a run goes. Neither rule decides on balanced results."""
    # Pairs of every class but in balance, a score of one half: H0 elo -10 and H1 elo 10 are
    # equally likely, the LLR stays 0 and the rule never decides.
    points = [(1.0, 1.0), (0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (0.0, 0.5)]
    games = [g for n in range(2_000) for g in pair(2 * n, n + 1, GREEDY, RANDOM, points[n % 5])]
    looked_at: list[int] = []  # the pairs counted at each computation
    test = SprtRule.test
    monkeypatch.setattr(SprtRule, "test",
                        lambda self, counts: looked_at.append(int(sum(counts)))
                        or test(self, counts))
    for rule in (StopRule(sprt=SprtRule(-10, 10)),
                 StopRule(intervals=IntervalsRule(0.99, 10**9))):
        watch = StopWatch(rule, [GREEDY, RANDOM])
        for g in games:
            watch.add(g)
        assert not watch.decided()
    assert looked_at[:199] == list(range(1, 200))
    assert 400 < len(looked_at) < 460
    assert sum(p > 1_000 for p in looked_at) < sum(p <= 1_000 for p in looked_at) / 2


# ---------------------------------------------------------------------------- the live view


def test_the_live_view_shows_the_rules_state_and_still_fits_80_by_24() -> None:
    standings = compute_standings(BOTS, GAMES)
    watch = StopWatch(StopRule(sprt=SprtRule(elo0=0, elo1=10)), ["greedy-py", "random-py"])
    feed(watch, [g for n in range(6) for g in pair(2 * n, n + 1, GREEDY, RANDOM, (1, 1))])
    state = watch.status()
    assert state.startswith("SPRT LLR ") and "(-2.94, 2.94)" in state
    assert state.endswith("H0 elo≤0 H1 elo≥10 · 6 pairs")
    s = sprt([0, 0, 0, 0, 6], 0, 10)
    assert f"LLR {s.llr:.2f} " in state
    # the gauge: the LLR a little above the middle of its bounds
    assert "[····|····]" in state
    console = Console(record=True, width=80, height=24, color_system=None)
    busy = snapshot(standings, stop_rule=state,
                    in_progress=[(f"r1-t{i}", ("random-py", "greedy-py"), 1.0) for i in range(8)])
    console.print(render(busy))
    lines = console.export_text().splitlines()[:24]
    top = "\n".join(lines[:7])
    assert "12/140 8.6% eta 1m04s" in top and "Failures: timeout 1 · crash 1" in top
    assert f"Stop rule: {state}" in top
    assert all(len(line) <= 80 for line in lines)
    assert f"| {state} |" in plain_line(busy)
    gauntlet = StopWatch(StopRule(sprt=SprtRule()), ["c1", "c2", "f"], candidates=["c1", "c2"])
    assert gauntlet.status() == "SPRT 0 of 2 decided · c1 LLR - H0 elo≤0 H1 elo≥10"
    # A state too long for one line wraps under itself; what always matters stays in view.
    long_state = ("SPRT 3 of 12 decided · a-candidate-with-a-long-name LLR -12.34 (-2.94, "
                  "2.94) [|········] H0 nElo≤-2.5 H1 nElo≥2.5")
    console = Console(record=True, width=80, height=24, color_system=None)
    console.print(render(snapshot(standings, stop_rule=long_state)))
    lines = console.export_text().splitlines()[:24]
    top = "\n".join(lines[:8])
    assert "12/140 8.6% eta 1m04s" in top and "Failures: timeout 1 · crash 1" in top
    assert "a-candidate-with-a-long-name" in top and all(len(line) <= 80 for line in lines)


# ---------------------------------------------------------------------------- real runs


def journal_bytes(folder: Path) -> bytes:
    """The journal's file, everything committed in it (a run's last write is checkpointed
    when it closes it; a reader may leave an empty write-ahead log beside it)."""
    assert not (folder / f"{JOURNAL}-wal").is_file() or not (
        folder / f"{JOURNAL}-wal").stat().st_size
    return (folder / JOURNAL).read_bytes()


def sprt_match(tmp_path: Path, name: str) -> Path:
    """greedy-py against random-py, 20 rounds (40 games) at most, until the SPRT of elo 0
    against 200 decides: greedy-py wins every game, and 8 won pairs decide (see above)."""
    file = write_tournament(tmp_path, f"{name}.toml", name=name, output=tmp_path / name,
                            bots=[example(GREEDY), example(RANDOM)], rounds=20)
    return with_stop(file, "sprt = { elo0 = 0, elo1 = 200 }")


def check_stopped_by_sprt(out: Path) -> dict[str, Any]:
    view = read_journal(out)
    stopped = view.meta["stopped_by"]
    assert stopped["verdict"] == "H1 accepted"
    assert stopped["sprt"][0]["pentanomial"] == [0, 0, 0, 0, 8]
    # Decided at the 8th pair's second game, the other worker's game perhaps done before it.
    assert stopped["games"] in (16, 17)
    # Nothing withdrawn was played, everything handed out was: 16 to 18 games, all done.
    assert {row["status"] for row in view.pairings.values()} == {"done"}
    assert 16 <= len(view.done) <= 18 and view.meta["games_total"] == len(view.done)
    doc = standings_doc(out)
    assert doc["meta"]["complete"] is True and doc["meta"]["games"] == len(view.done)
    assert doc["meta"]["stopped_by"] == rounded(stopped)
    config_bots = (GREEDY, RANDOM)
    assert doc["standings"] == json.loads(json.dumps(
        rounded(compute_standings(config_bots, view.outcomes()).to_dict())))
    return stopped


def test_a_match_stops_when_the_sprt_decides_and_a_rerun_plays_nothing(
    tmp_path: Path, runs: Runs
) -> None:
    file = sprt_match(tmp_path, "sprt")
    out = tmp_path / "sprt"
    run = runs.complete(file)
    assert run.rc == 0, run.text
    games = len(read_journal(out).done)
    assert f"sprt: {games}/{games} games, complete" in run.stdout
    assert "stopped by its rule: SPRT H1 accepted after" in run.stdout
    assert "SPRT LLR" in run.stdout  # the plain progress lines show the rule's state
    stopped = check_stopped_by_sprt(out)
    shown = " ".join(CliRunner().invoke(app, ["standings", str(out)]).output.split())
    assert f"complete, {games} games" in shown
    assert f"Stopped by its rule: {stopped['summary']}" in shown
    md = (out / "standings.md").read_text(encoding="utf-8")
    assert f"- Stopped by its rule: {stopped['summary']}" in md
    saved = json.loads((out / "standings.json").read_text())
    assert saved["meta"]["stopped_by"] == rounded(stopped)
    as_json = CliRunner().invoke(app, ["standings", str(out), "--json"])
    assert json.loads(as_json.output)["stopped_by"] == rounded(stopped)

    before = journal_bytes(out)
    again = runs.complete(file)
    assert again.rc == 0, again.text
    assert f"sprt: {games}/{games} games, complete" in again.stdout
    assert journal_bytes(out) == before

    check_a_game_in_progress_at_a_kill_after_the_decision_is_finished(file, out, runs)
    check_a_decision_the_kill_kept_from_the_journal_is_made_on_resume(file, out, runs)
    check_a_rebuilt_journal_keeps_the_decision(file, out, runs)


def check_a_game_in_progress_at_a_kill_after_the_decision_is_finished(
    file: Path, out: Path, runs: Runs
) -> None:
    """The journal of a run killed after the decision with its last game in progress (made
    from the finished run's: that game's result taken out; a real kill catches a game in
    progress only most of the time): the resume plays that game and nothing else, and ends
    where the uninterrupted run did."""
    before = read_journal(out)
    last = max(before.done, key=lambda gid: before.pairings[gid]["idx"])
    journal = Journal(out / JOURNAL)
    try:
        journal.db.execute("DELETE FROM results WHERE game_id = ?", (last,))
        journal.db.execute("UPDATE pairings SET status = 'scheduled' WHERE game_id = ?", (last,))
    finally:
        journal.close()
    resumed = runs.complete(file)
    assert resumed.rc == 0, resumed.text
    assert "resuming sprt" in resumed.stdout
    after = read_journal(out)
    assert after.pairings[last]["started"] == before.pairings[last]["started"] + 1
    assert after.meta["stopped_by"] == before.meta["stopped_by"]
    assert list(after.pairings) == list(before.pairings)
    for gid, row in before.results.items():
        assert {k: after.results[gid][k] for k in ("scores", "ranks", "terminations")} == {
            k: row[k] for k in ("scores", "ranks", "terminations")}


def test_a_decision_survives_a_sigkill_and_the_resume_only_finishes_what_was_handed_out(
    tmp_path: Path, runs: Runs
) -> None:
    file = sprt_match(tmp_path, "killed")
    out = tmp_path / "killed"
    run = runs.start(file)

    def decided() -> dict[str, Any] | None:
        try:
            db = sqlite3.connect(f"file:{out / JOURNAL}?mode=ro", uri=True, timeout=10)
            try:
                row = db.execute("SELECT value FROM meta WHERE key = 'stopped_by'").fetchone()
            finally:
                db.close()
        except sqlite3.Error:
            return None
        return None if row is None else dict(json.loads(row[0]))

    stopped = wait_until("the SPRT decided", decided, 60, run)
    os.kill(run.pid, signal.SIGKILL)
    run.proc.wait(timeout=10)
    runs.kill_leftovers()
    killed = read_journal(out)
    handed_out = {gid for gid, row in killed.pairings.items() if row["started"]}
    # Every game not handed out was withdrawn with the decision, in one transaction.
    assert set(killed.pairings) == handed_out

    resumed = runs.complete(file)
    assert resumed.rc == 0, resumed.text
    final = read_journal(out)
    assert set(final.pairings) == set(killed.pairings)  # nothing new issued
    assert final.meta["stopped_by"] == stopped  # the decision as it was made
    check_stopped_by_sprt(out)
    for gid in killed.done:
        assert final.results[gid] == killed.results[gid]


def check_a_decision_the_kill_kept_from_the_journal_is_made_on_resume(
    file: Path, out: Path, runs: Runs
) -> None:
    """The journal of a run killed after the deciding game was committed and before the
    decision was (made from a finished run's: its decision taken out, the games it withdrew
    issued again): the next run decides from the journal's games, withdraws those games and
    plays nothing."""
    done = read_journal(out).done
    journal = Journal(out / JOURNAL)
    try:
        journal.db.execute("DELETE FROM meta WHERE key = 'stopped_by'")
        journal.add_pairings([p for p in schedule_of(file)[:len(done) + 4]
                              if p.game_id not in done])
        assert journal.pairing_count() == len(done) + 4
    finally:
        journal.close()
    (out / "standings.json").unlink()

    again = runs.complete(file)
    assert again.rc == 0, again.text
    view = read_journal(out)
    assert view.done == done and set(view.pairings) == done
    assert view.meta["stopped_by"]["verdict"] == "H1 accepted"
    assert view.meta["stopped_by"]["games"] == len(done)
    assert standings_doc(out)["meta"]["stopped_by"] == rounded(view.meta["stopped_by"])


def check_a_rebuilt_journal_keeps_the_decision(file: Path, out: Path, runs: Runs) -> None:
    """A lost journal rebuilt from the records: the rule decides again over them, the
    decision is recorded and nothing is left to play."""
    before = read_journal(out)
    for side in ("", "-wal", "-shm"):
        Path(f"{out / JOURNAL}{side}").unlink(missing_ok=True)
    r = CliRunner().invoke(app, ["rebuild", str(file)])
    assert r.exit_code == 0, r.output
    assert f"{len(before.done)} games restored from their records, 0 to play" in " ".join(
        r.output.split())
    rebuilt = read_journal(out)
    assert rebuilt.done == before.done and set(rebuilt.pairings) == before.done
    stopped = rebuilt.meta["stopped_by"]
    # decided in schedule order: at the game that completes the 8th won pair
    assert stopped["verdict"] == before.meta["stopped_by"]["verdict"] == "H1 accepted"
    assert stopped["games"] == 16 and stopped["sprt"][0]["pentanomial"] == [0, 0, 0, 0, 8]
    assert rebuilt.meta["games_total"] == len(before.done)
    again = runs.complete(file)
    assert again.rc == 0, again.text
    assert read_journal(out).done == before.done  # nothing played
    assert standings_doc(out)["meta"]["stopped_by"] == rounded(stopped)


def test_a_changed_rule_is_another_tournament_once_a_game_was_played(tmp_path: Path) -> None:
    from arena.runner.play.tournament import Tournament

    file = with_stop(two_bots(tmp_path, sandbox="none"), "sprt = { elo1 = 20 }")
    Tournament(load_config(file)).lock.release()  # no game played: the file may change
    file.write_text(file.read_text().replace("elo1 = 20", "elo1 = 30"))
    t = Tournament(load_config(file))
    assert t.journal.rebound == ["stop"]
    p = schedule_of(file)[0]
    t.journal.add_pairings([p])
    t.journal.record_result(GameOutcome(p.game_id, p.index, p.round, p.table, p.bots, p.seed,
                                        (9, 8), (1, 2), ("ok", "ok")),  # type: ignore[arg-type]
                            "x", 0.1)
    t.journal.close()
    t.lock.release()
    file.write_text(file.read_text().replace("elo1 = 30", "elo1 = 40"))
    with pytest.raises(JournalError, match="differs in: stop"):
        Tournament(load_config(file))


def test_a_gauntlet_stops_once_every_candidates_intervals_exclude_parity(
    tmp_path: Path, runs: Runs
) -> None:
    """greedy-py against random-py and its twin at two-player tables: greedy-py finishes
    ahead every game, and at 95% 4 of 4 is enough (4 / (4 + 1.96^2) > 1/2); the minimum of 6
    games a pair decides, after 12 games of the 40 if they are played in the schedule's order
    (a worker may take a later game whose bots it keeps first, so perhaps a few more)."""
    out = tmp_path / "gauntlet"
    file = write_tournament(tmp_path, "g.toml", name="g", output=out, format="gauntlet",
                            candidates=[GREEDY], rounds=10,
                            bots=[example(GREEDY), example(RANDOM), random_py_twin(tmp_path)])
    with_stop(file, "intervals = { confidence = 0.95, min_games = 6 }")
    run = runs.complete(file)
    assert run.rc == 0, run.text
    view = read_journal(out)
    stopped = view.meta["stopped_by"]
    assert stopped["verdict"] == "every interval excludes parity"
    assert (stopped["pairs"], stopped["decided"]) == (2, 2)
    assert 12 <= stopped["games"] <= 20
    # the other worker's game, if one was in progress, finished; none was issued after
    assert stopped["games"] <= len(view.done) <= stopped["games"] + 1
    assert set(view.pairings) == view.done
    assert "stopped by its rule: every interval excludes parity after" in run.stdout
    assert standings_doc(out)["meta"]["complete"] is True


def test_a_rule_undecided_at_the_schedules_end_says_so(tmp_path: Path, runs: Runs) -> None:
    """The schedule's size is the cap: random-py and its twin never part at 99% within their
    4 games together (4 of 4 would need 4 / (4 + 2.576^2) > 1/2), so the whole schedule is
    played and the record names what was undecided."""
    out = tmp_path / "cap"
    file = with_stop(three_bots(tmp_path, rounds=2, output=out),
                     "intervals = { confidence = 0.99, min_games = 2 }")
    run = runs.complete(file)
    assert run.rc == 0, run.text
    assert "t: 12/12 games, complete" in run.stdout
    assert "stopped by its rule: the schedule ended (12 games) before the intervals" in run.stdout
    view = read_journal(out)
    stopped = view.meta["stopped_by"]
    assert stopped["verdict"] == "undecided: the schedule ended before the intervals decided"
    assert stopped["schedule_ended"] is True
    assert stopped["games"] == len(view.done) == 12
    assert {(u["a"], u["b"]) for u in stopped["undecided"]} >= {(RANDOM, "random-py-twin")}
    assert standings_doc(out)["meta"]["stopped_by"] == rounded(stopped)
    before = journal_bytes(out)
    assert runs.complete(file).rc == 0
    assert journal_bytes(out) == before
