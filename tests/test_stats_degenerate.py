"""Records too one-sided or too uniform for the usual figures: every pair won, lost or split,
bots that always finished ahead of others. Each place that prints figures (the statistics
themselves, `arena stats`, `arena compare`, standings.md and .json, the HTML report) says what
is known instead of an estimate that is none; and `arena compare` on a real tournament with an
SPRT tests what the tournament tested."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from test_report import write_journal
from test_tournament_e2e import ROOT, Runs, runs
from typer.testing import CliRunner

from arena.cli.main import app
from arena.protocol.messages import Termination
from arena.results import GameOutcome
from arena.runner.play.outputs import standings_json, standings_markdown
from arena.runner.play.ratings import compute_standings
from arena.stats import text
from arena.stats.common import Interval, alike_interval
from arena.stats.groups import groups
from arena.stats.match import Match, elo_from_score, match
from arena.stats.plackett_luce import plackett_luce
from arena.stats.summary import tournament_stats

__all__ = ["runs"]

runner = CliRunner()
OK = Termination.OK


def pair_games(a: str, b: str, sets: int, a_wins: tuple[bool, bool], start: int = 0,
               table: int = 0) -> list[GameOutcome]:
    """``sets`` duplicate sets of a against b, each both seat orders on one seed; a wins the
    first game of each set (a in seat 0) if ``a_wins[0]``, the second if ``a_wins[1]``."""
    games = []
    for s in range(sets):
        t = table + s
        for k, (bots, won) in enumerate((((a, b), a_wins[0]), ((b, a), a_wins[1]))):
            i = start + 2 * s + k
            a_rank = 1 if won else 2
            ranks = (a_rank, 3 - a_rank) if bots[0] == a else (3 - a_rank, a_rank)
            games.append(GameOutcome(f"g{i}", i, 1, t, bots, 100 + t, (0, 0), ranks, (OK, OK)))
    return games


def penta(counts: tuple[int, int, int, int, int]) -> Match:
    return Match("a", "b", wins=0, draws=0, losses=0, pentanomial=counts, unpaired=0)


# ---------------------------------------------------------------------------- the bound


@pytest.mark.parametrize("n", [1, 8, 17, 200])
def test_the_bound_of_a_uniform_record_is_where_it_becomes_too_unlikely(n: int) -> None:
    """n values all at 1: a mean s makes that at most s^n likely, so the bound is the s where
    s^n is 5%. All at c in (0, 1): at most ((1 - s) / (1 - c))^n above c and (s / c)^n below,
    2.5% each side."""
    won = alike_interval(1.0, n)
    assert won.high == 1.0 and won.low ** n == pytest.approx(0.05)
    lost = alike_interval(0.0, n)
    assert lost.low == 0.0 and (1 - lost.high) ** n == pytest.approx(0.05)
    split = alike_interval(0.5, n)
    assert (2 * (1 - split.high)) ** n == pytest.approx(0.025)
    assert (2 * split.low) ** n == pytest.approx(0.025)
    three_quarters = alike_interval(0.75, n)
    assert ((1 - three_quarters.high) / 0.25) ** n == pytest.approx(0.025)
    assert (three_quarters.low / 0.75) ** n == pytest.approx(0.025)


# ---------------------------------------------------------------------------- two players


def test_a_match_won_in_every_pair_has_no_finite_elo_but_a_lower_bound() -> None:
    m = penta((0, 0, 0, 0, 8))
    ci = m.elo_interval()
    assert m.elo == math.inf and ci is not None
    assert ci.high == math.inf and ci.low == pytest.approx(elo_from_score(0.05 ** (1 / 8)))
    assert ci.low == pytest.approx(137.1, abs=0.05)
    assert m.nelo is None and m.nelo_interval() is None  # no spread to normalise by
    assert text.elo_text(m) == "won every pair: no finite estimate; at least 137.1 at 95%"
    assert text.elo_cells(m) == ("no finite estimate (won every pair)", "at least 137.1")
    d = m.to_dict()
    assert d["elo"] is None and d["elo_interval"][1] is None
    assert d["elo_interval"][0] == pytest.approx(137.1, abs=0.05)
    assert "+∞ ±" not in text.elo_text(m)


def test_a_match_lost_in_every_game_without_pairs_has_an_upper_bound() -> None:
    m = Match("a", "b", wins=0, draws=0, losses=12, pentanomial=(0, 0, 0, 0, 0), unpaired=12)
    ci = m.elo_interval()
    assert m.unit == "game" and m.elo == -math.inf and ci is not None
    assert ci.low == -math.inf and ci.high == pytest.approx(elo_from_score(1 - 0.05 ** (1 / 12)))
    assert text.elo_text(m) == (f"lost every game: no finite estimate; at most "
                                f"{text.num(ci.high)} at 95%")


def test_a_match_whose_every_pair_was_split_has_an_interval_not_zero() -> None:
    """Every pair split 1-1: Elo 0, and an interval as wide as 10 uniform pairs allow, not the
    normal interval's 0 ± 0."""
    m = penta((0, 0, 10, 0, 0))
    ci = m.elo_interval()
    assert m.elo == 0.0 and ci is not None
    half = elo_from_score(1 - (0.025 ** (1 / 10)) / 2)
    assert ci.low == pytest.approx(-half) and ci.high == pytest.approx(half)
    assert m.elo_error == pytest.approx(half) and half > 100
    assert text.elo_text(m) == f"0.0 ± {half:.1f} [-{half:.1f}, {half:.1f}]"
    assert m.nelo is None


def test_negative_ranges_print_unambiguously() -> None:
    assert text.interval(Interval(-436.6, -336.0)) == "[-436.6, -336.0]"
    assert text.bracket(Interval(-1.0, 2.0)) == "[-1.0, 2.0]"
    assert text.one_sided(Interval(137.1, math.inf)) == "at least 137.1"
    assert text.one_sided(Interval(-math.inf, -5.0)) == "at most -5.0"
    assert text.num(-0.04) == "0.0"


# ---------------------------------------------------------------------------- Plackett–Luce


def test_groups_follow_who_finished_ahead_of_whom() -> None:
    """a and b beat each other, both always beat c, c always beats d; e and f only met each
    other, and level: {a, b} above {c} above {d}, {e, f} comparable with nothing."""
    ahead = [(0, 1), (1, 0), (0, 2), (1, 2), (2, 3), (4, 5), (5, 4)]
    found = groups(6, ahead, strength=lambda i: -i)
    assert [sorted(g) for g in found.members] == [[0, 1], [2], [3], [4, 5]]
    assert found.above(0, 3) is True and found.above(3, 1) is False
    assert found.above(0, 1) is None and found.above(0, 4) is None


def test_two_bots_one_of_which_always_won_get_no_finite_rating() -> None:
    """The 17-0 of a real SPRT run: 8 won pairs and a last unpaired game."""
    games = pair_games("greedy", "random", 8, (True, True))
    games.append(GameOutcome("g16", 16, 1, 8, ("greedy", "random"), 108, (0, 0), (1, 2),
                             (OK, OK)))
    pl = plackett_luce(games, ["greedy", "random"], replicates=50)
    assert pl.separated and pl.shown_rating(0) is None and pl.rating_interval(0) is None
    assert pl.p_ahead(0, 1) == 1.0 and pl.p_ahead(1, 0) == 0.0
    ci = pl.p_ahead_interval(0, 1)
    assert ci is not None and ci.high == 1.0 and ci.low == pytest.approx(0.05 ** (1 / 9))
    d = pl.to_dict()
    assert d["groups"] == [["greedy"], ["random"]]
    assert [(b["group"], b["rating"], b["interval"]) for b in d["bots"]] == [
        (1, None, None), (2, None, None)]
    assert text.rating_cells(pl, 0) == ("no finite estimate (alone in its group)", "–")


def test_ratings_in_separated_groups_are_centred_within_each_group() -> None:
    """Sets of three games: top-a finishes ahead of top-b in two games of most sets and in
    one game of every third set, and low-a and low-b likewise; both top bots always finish
    ahead of both low bots."""
    games: list[GameOutcome] = []
    for s in range(12):
        base = 3 * s
        seed = 1000 + s
        for k, bots in enumerate((("top-a", "top-b", "low-a", "low-b"),
                                  ("top-b", "low-a", "low-b", "top-a"),
                                  ("low-a", "low-b", "top-a", "top-b"))):
            order = ["top-a", "top-b", "low-a", "low-b"] if k < (1 if s % 3 == 0 else 2) \
                else ["top-b", "top-a", "low-b", "low-a"]
            ranks = tuple(order.index(b) + 1 for b in bots)
            games.append(GameOutcome(f"g{base + k}", base + k, 1, s, bots, seed, (0,) * 4,
                                     ranks, (OK,) * 4))
    names = ["top-a", "top-b", "low-a", "low-b"]
    pl = plackett_luce(games, names, replicates=40)
    assert [[pl.bots[i] for i in g] for g in pl.groups.members] == [["top-a", "top-b"],
                                                                    ["low-a", "low-b"]]
    top_a, top_b, low_a, low_b = (pl.shown_rating(i) for i in range(4))
    assert top_a is not None and top_b is not None and low_a is not None and low_b is not None
    assert top_a == pytest.approx(-top_b) and low_a == pytest.approx(-low_b) and top_a > 0
    within = pl.rating_interval(0)
    assert within is not None and within.low < top_a < within.high
    p = pl.p_ahead(0, 1)
    assert p is not None and p == pytest.approx(20 / 36, abs=0.02)  # 4 x 1 + 8 x 2 of 36
    assert pl.p_ahead(1, 2) == 1.0
    bound = pl.p_ahead_interval(1, 2)
    assert bound is not None and bound.low == pytest.approx(0.05 ** (1 / 12))
    note = text.groups_note(pl)
    assert "2 groups (1 top-a, top-b; 2 low-a, low-b)" in note
    assert "no finite estimate" in note


def test_bots_that_never_met_even_through_others_are_not_compared() -> None:
    games = pair_games("a", "b", 3, (True, False)) + pair_games("c", "d", 3, (True, False),
                                                               start=6, table=3)
    pl = plackett_luce(games, ["a", "b", "c", "d"], replicates=0)
    assert pl.separated and pl.p_ahead(0, 2) is None and pl.p_ahead_interval(0, 2) is None
    assert pl.p_ahead(0, 1) == pytest.approx(0.5, abs=1e-6)


# ---------------------------------------------------------------------------- where it shows


def degenerate_folder(tmp_path: Path) -> tuple[Path, list[GameOutcome]]:
    """A journal of three bots: strong won every pair from both others, and mid and weak split
    every pair."""
    games = (pair_games("strong", "mid", 6, (True, True))
             + pair_games("strong", "weak", 6, (True, True), start=12, table=6)
             + pair_games("mid", "weak", 6, (True, False), start=24, table=12))
    write_journal(tmp_path, games, ["strong", "mid", "weak"])
    return tmp_path, games


def test_stats_says_what_is_known_and_shows_the_elo_table_and_the_los_matrix(
    tmp_path: Path
) -> None:
    folder, _ = degenerate_folder(tmp_path)
    r = runner.invoke(app, ["stats", str(folder), "--bootstrap", "20"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    shown = " ".join(r.output.split())
    assert "+∞ ±" not in shown and "±  -" not in shown and "–-" not in shown
    assert "won every pair: no finite estimate; at least" in shown
    assert "The bots fall into 2 groups (1 strong; 2 mid, weak)" in shown
    assert "no finite estimate (alone in its group)" in shown
    split = next(line for line in lines if line.lstrip().startswith("mid") and "6-0-6" in line)
    assert "0.0 ±" in split and "0.0 ± 0.0" not in split
    los = lines.index(next(line for line in lines if line.startswith("LOS matrix")))
    rows = [line.split() for line in lines[los + 4:los + 7]]
    assert [row[:2] for row in rows] == [["1", "strong"], ["2", "mid"], ["3", "weak"]]
    assert rows[0][2:] == ["100.0", "100.0"] and rows[1][2:] == ["0.0", "50.0"]


def test_compare_says_a_clean_sweep_has_no_finite_elo(tmp_path: Path) -> None:
    folder, _ = degenerate_folder(tmp_path)
    r = runner.invoke(app, ["compare", str(folder), "strong", "mid"])
    assert r.exit_code == 0, r.output
    shown = " ".join(r.output.split())
    assert "won every pair: no finite estimate; at least" in shown
    assert "+∞ ± -" not in shown and "nElo undefined" in shown
    r = runner.invoke(app, ["compare", str(folder), "mid", "weak", "--json"])
    d = json.loads(r.output)
    assert d["elo"] == 0.0 and d["elo_interval"][0] < -100 < 100 < d["elo_interval"][1]
    assert d["nelo"] is None


def test_the_standings_files_and_the_report_say_it_too(tmp_path: Path) -> None:
    folder, games = degenerate_folder(tmp_path)
    bots = ["strong", "mid", "weak"]
    st = tournament_stats(games, bots, replicates=20)
    standings = compute_standings(bots, games)
    md = standings_markdown(standings, {"name": "t"}, st)
    assert "| 1 | strong | 1 | no finite estimate (alone in its group) | – |" in md
    assert "| no finite estimate (won every pair) | at least " in md
    assert "+∞" not in md
    doc = json.loads(standings_json(standings, {"name": "t"}, st))["statistics"]
    first = doc["plackett_luce"]["bots"][0]
    assert first == {"name": "strong", "group": 1, "rating": None, "interval": None}
    sweep = next(m for m in doc["matches"] if (m["a"], m["b"]) == ("strong", "mid"))
    assert sweep["elo"] is None and sweep["elo_interval"][1] is None
    assert sweep["elo_interval"][0] > 0
    r = runner.invoke(app, ["report", str(folder), "--bootstrap", "20"])
    assert r.exit_code == 0, r.output
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert "won every pair" in page and "at least " in page and "alone in its group" in page
    assert "+∞ ±" not in page and "–-" not in page


def test_a_match_through_the_pairing_code_keeps_its_record() -> None:
    m = match(pair_games("a", "b", 4, (True, True)), "a", "b")
    assert m.pentanomial == (0, 0, 0, 0, 4) and m.alike and m.unit == "pair"


# ---------------------------------------------------------------------------- compare's SPRT


def test_compare_tests_with_the_tournaments_own_sprt(tmp_path: Path, runs: Runs) -> None:
    """tournaments/sprt.toml tests elo 0 against 200: its run accepts H1, and so does compare,
    saying whose settings it used; an option given overrides one of them."""
    out = tmp_path / "sprt"
    run = runs.complete(ROOT / "tournaments" / "sprt.toml", "--output", str(out))
    assert run.rc == 0, run.text
    assert "SPRT H1 accepted" in run.stdout
    r = runner.invoke(app, ["compare", str(out), "greedy-py", "random-py"])
    assert r.exit_code == 0, r.output
    shown = " ".join(r.output.split())
    assert "logistic Elo [0, 200], α 0.05, β 0.05 (the tournament's own [stop] sprt)" in shown
    assert "H1 accepted: greedy-py is better by 200 or more" in shown
    r = runner.invoke(app, ["compare", str(out), "greedy-py", "random-py", "--elo1", "300",
                            "--json"])
    sprt = json.loads(r.output)["sprt"]
    assert (sprt["elo0"], sprt["elo1"]) == (0, 300)
    assert sprt["settings_from"] == {"elo0": "tournament", "elo1": "option",
                                     "alpha": "tournament", "beta": "tournament",
                                     "model": "tournament"}
