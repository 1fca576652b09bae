"""A large field's report (:data:`arena.report.html.LARGE_FIELD`): Plackett–Luce intervals from
the curvature at the fit, and the per-bot charts for the top of the standings, with a line
saying so. Tested with the threshold passed in low, on a small synthetic journal, on both
sides of it."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from arena.bench.stats import write_journal
from arena.report.charts import rating_curves
from arena.report.html import LARGE_FIELD, build_report
from arena.runner.play.ratings import RatingTracker
from arena.runner.play.reading import read_progress
from arena.stats.choices import ChoiceData, choice_data, large_choice_data
from arena.stats.common import Z95
from arena.stats.groups import Groups
from arena.stats.plackett_luce import ELO_PER_THETA, PlackettLuce, plackett_luce
from arena.stats.synthetic import synthetic_bots, synthetic_outcomes


# Session scope: a test worker runs other modules' tests between this one's, and a module
# fixture would write the journal again after each such break.
@pytest.fixture(scope="session")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("large-field")
    write_journal(folder, 12, 3, 900, seed=5)
    return folder


def _page(folder: Path, large_field: int, shown: int = 5) -> str:
    progress = read_progress(folder, records=True, ratings=True)
    return build_report(progress, folder, folder / "report.html", True, replicates=20,
                        seed=0, large_field=large_field, shown=shown)


def test_past_the_threshold_the_charts_show_the_top_and_the_page_says_so(journal: Path) -> None:
    page = _page(journal, large_field=10, shown=5)
    progress = read_progress(journal, ratings=True)
    assert progress.ratings is not None
    top = [b.name for b in progress.ratings.standings().bots[:5]]
    note = re.search(r'<p class="note" id="shown">(.*?)</p>', page)
    assert note is not None
    assert "12 bots" in note.group(1) and "top 5" in note.group(1)
    assert "other 7 bots" in note.group(1) and "arena stats" in note.group(1)
    # The rating curves and score boxes are the top five's, in the standings' order.
    assert re.findall(r'<polyline class="rating" data-bot="([^"]+)"', page) == top[::-1]
    assert re.findall(r'<g class="box" data-bot="([^"]+)"', page) == top
    # The crosstable holds only pairs of the top five: 5 x 4 cells.
    cells = re.findall(r'<g class="cell" data-a="([^"]+)" data-b="([^"]+)"', page)
    assert len(cells) == 20 and {a for a, _ in cells} == set(top)
    # Every bot still has its strength, with an interval from the curvature.
    strengths = page[page.index('id="strengths-table"'):]
    assert strengths.count('<td class="l bot">') == 12
    assert "curvature of the log-posterior" in page and "bootstrap resamplings" not in page


def test_at_the_threshold_the_page_is_the_whole_fields_as_before(journal: Path) -> None:
    page = _page(journal, large_field=12)
    assert page == _page(journal, large_field=LARGE_FIELD)
    assert 'id="shown"' not in page and "20 bootstrap resamplings" in page
    assert len(re.findall(r'<g class="box" data-bot=', page)) == 12
    assert len(re.findall(r'<g class="cell" ', page)) == 12 * 11


def test_top_curves_are_the_full_curves_of_those_bots_read_or_replayed(journal: Path) -> None:
    progress = read_progress(journal, ratings=True)
    bots = progress.bots
    full, standings = rating_curves(bots, progress.outcomes, history=progress.history,
                                    rated=progress.ratings)
    for rated, history in ((progress.ratings, progress.history), (None, None)):
        top, top_standings = rating_curves(bots, progress.outcomes, history=history,
                                           rated=rated, top=4)
        assert top_standings == standings
        assert list(top.mu) == [b.name for b in standings.bots[:4]]
        assert top.games == full.games
        for b in top.mu:
            assert top.mu[b] == full.mu[b] and top.sigma[b] == full.sigma[b]


def test_curvature_intervals_agree_roughly_with_the_bootstrap() -> None:
    theta = synthetic_bots(6, 3)
    outcomes = synthetic_outcomes(theta, 4, 4000, 3)
    names = sorted(theta)
    boot = plackett_luce(outcomes, names, replicates=200, seed=1)
    curv = plackett_luce(outcomes, names, curvature=True)
    assert curv.replicates == 0 and curv.from_curvature and not boot.from_curvature
    assert np.allclose(curv.theta, boot.theta)
    assert not curv.separated
    for i in range(len(names)):
        b, c = boot.rating_interval(i), curv.rating_interval(i)
        assert b is not None and c is not None
        rating = curv.shown_rating(i)
        assert rating is not None and c.low < rating < c.high
        # The half-widths within a third of each other; the centres within a tenth of one.
        bw, cw = (b.high - b.low) / 2, (c.high - c.low) / 2
        assert 0.67 < cw / bw < 1.5, (i, b, c)
        assert abs((b.low + b.high) / 2 - (c.low + c.high) / 2) < 0.1 * bw + 1e-9
    pb, pc = boot.p_ahead_interval(0, 1), curv.p_ahead_interval(0, 1)
    p = curv.p_ahead(0, 1)
    assert pb is not None and pc is not None and p is not None
    assert pc.low < p < pc.high
    assert abs(pb.low - pc.low) < 0.03 and abs(pb.high - pc.high) < 0.03


def test_curvature_intervals_narrow_as_games_accumulate() -> None:
    theta = synthetic_bots(5, 8)
    names = sorted(theta)
    widths = []
    for games in (400, 4000):
        pl = plackett_luce(synthetic_outcomes(theta, 3, games, 8), names, curvature=True)
        ci = pl.rating_interval(0)
        assert ci is not None
        widths.append(ci.high - ci.low)
    assert widths[1] < widths[0] / 2  # ten times the games: about a third of the width


def test_a_replay_keeps_the_history_it_samples_from() -> None:
    """The replay behind top curves keeps a history that reads as the journal's would."""
    theta = synthetic_bots(5, 2)
    outcomes = synthetic_outcomes(theta, 2, 60, 2)
    tracker = RatingTracker(sorted(theta))
    tracker.add_all(outcomes)
    curves, standings = rating_curves(sorted(theta), outcomes, top=2)
    assert standings == tracker.standings()
    for bot in curves.mu:
        mu, sigma = tracker.rating(bot)
        assert curves.mu[bot][-1] == mu and curves.sigma[bot][-1] == sigma


@pytest.mark.parametrize("members", [[[0, 1, 2, 3, 4]], [[0, 3], [1, 2, 4]]])
def test_curvature_rating_sd_is_the_quadratic_form_of_the_centred_rating(
        members: list[list[int]]) -> None:
    rng = np.random.default_rng(4)
    a = rng.normal(size=(5, 5))
    cov = a @ a.T + np.eye(5)
    of = [next(g for g, m in enumerate(members) if i in m) for i in range(5)]
    pl = PlackettLuce([f"b{i}" for i in range(5)], rng.normal(size=5), np.empty((0, 5)), 10,
                      5, 0, 2.0, Groups(members, of, frozenset()), covariance=cov)
    for i in range(5):
        group = members[of[i]]
        w = np.zeros(5)
        w[group] -= 1 / len(group)
        w[i] += 1
        ci = pl.rating_interval(i)
        assert ci is not None
        half = Z95 * np.sqrt(w @ cov @ w) * ELO_PER_THETA
        assert ci.high - ci.low == pytest.approx(2 * half, rel=1e-9)


def _by_members(data: ChoiceData) -> tuple[dict[tuple[tuple[int, ...], int], float],
                                           dict[tuple[int, int], float]]:
    """A choice data's set and win entries keyed by what they are, not by their numbering."""
    cols = [tuple(int(m) for m in data.members[:, s] if m < data.n)
            for s in range(data.members.shape[1])]
    sets: dict[tuple[tuple[int, ...], int], float] = {}
    for s, d, w in zip(data.set_entry_set, data.set_entry_dup, data.set_entry_weight,
                       strict=True):
        sets[(cols[s], int(d))] = sets.get((cols[s], int(d)), 0.0) + float(w)
    wins = {(int(b), int(d)): float(w) for b, d, w in
            zip(data.win_entry_bot, data.win_entry_dup, data.win_entry_weight, strict=True)}
    return sets, wins


def test_the_large_fields_choices_are_the_game_by_game_ones() -> None:
    theta = synthetic_bots(9, 6)
    outcomes = synthetic_outcomes(theta, 4, 800, 6)
    # Some shared ranks, a three-player table, a bot seated twice, a bot not among the rated.
    outcomes[5] = dataclasses.replace(outcomes[5], ranks=(1, 1, 3, 4))
    outcomes[9] = dataclasses.replace(outcomes[9], ranks=(2, 1, 2, 2))
    o = outcomes[13]
    outcomes[13] = dataclasses.replace(o, bots=o.bots[:3], ranks=(3, 1, 2), scores=o.scores[:3],
                                       terminations=o.terminations[:3])
    outcomes[20] = dataclasses.replace(outcomes[20], bots=(*outcomes[20].bots[:3],
                                                           outcomes[20].bots[0]))
    outcomes[21] = dataclasses.replace(outcomes[21], bots=("stranger", *outcomes[21].bots[1:]))
    names = sorted(theta)
    slow, fast = choice_data(outcomes, names), large_choice_data(outcomes, names)
    assert (fast.games, fast.duplicate_sets) == (slow.games, slow.duplicate_sets)
    assert fast.ahead == slow.ahead and fast.met_sets == slow.met_sets
    (slow_sets, slow_wins), (fast_sets, fast_wins) = _by_members(slow), _by_members(fast)
    assert fast_wins.keys() == slow_wins.keys() and fast_sets.keys() == slow_sets.keys()
    assert all(fast_wins[k] == pytest.approx(w) for k, w in slow_wins.items())
    assert all(fast_sets[k] == pytest.approx(w) for k, w in slow_sets.items())
    assert np.allclose(plackett_luce(outcomes, names, replicates=0).theta,
                       plackett_luce(outcomes, names, curvature=True).theta, atol=1e-6)
