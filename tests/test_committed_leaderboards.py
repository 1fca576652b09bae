"""The committed leaderboards hold what they claim: every game record replays through today's
engine to its recorded result, the journal agrees with the records, the standings files are what
the journal's results give, and the search bot's evidence meets its bar."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from arena.results import GameOutcome
from arena.runner.game.record import GameRecord, verify
from arena.runner.play.journal import Journal
from arena.runner.play.ratings import compute_standings
from arena.stats import plackett_luce as pl
from arena.stats.common import rounded

LEADERBOARDS = Path(__file__).resolve().parent.parent / "leaderboards"
COMMITTED = ["reference", "search-4p", "search-2p", "agricola-2p", "agricola-cards-2p"]


def _journal_outcomes(name: str) -> tuple[dict, list[GameOutcome]]:
    journal = Journal(LEADERBOARDS / name / "journal.sqlite", readonly=True)
    try:
        return journal.meta(), journal.outcomes()
    finally:
        journal.close()


@pytest.mark.parametrize("name", COMMITTED)
def test_every_record_replays_and_matches_the_journal(name: str) -> None:
    _, outcomes = _journal_outcomes(name)
    records = sorted((LEADERBOARDS / name / "games").glob("*.json"))
    assert len(records) == len(outcomes) > 0
    by_id = {o.game_id: o for o in outcomes}
    for path in records:
        record = GameRecord.load(path)
        report = verify(record)
        assert report.ok, f"{path.name}: {report.problems}"
        outcome = by_id[record.game_id]
        assert outcome.seed == record.seed
        assert list(outcome.bots) == [s["bot"] for s in record.seats]
        assert list(outcome.ranks) == record.ranks
        assert list(outcome.scores) == record.result["scores"]


@pytest.mark.parametrize("name", COMMITTED)
def test_the_standings_file_is_what_the_journal_gives(name: str) -> None:
    _, outcomes = _journal_outcomes(name)
    saved = json.loads((LEADERBOARDS / name / "standings.json").read_text())
    bots = [b["name"] for b in saved["standings"]["bots"]]
    fresh = compute_standings(bots, outcomes)
    assert [b.name for b in fresh.bots] == bots
    for line, kept in zip(fresh.bots, saved["standings"]["bots"], strict=True):
        assert rounded(line.mu) == kept["mu"] and rounded(line.sigma) == kept["sigma"]
        assert line.games == kept["games"]


@pytest.mark.parametrize(("name", "players", "games"), [("search-4p", 4, 200),
                                                         ("search-2p", 2, 200),
                                                         ("agricola-2p", 2, 200),
                                                         ("agricola-cards-2p", 2, 200)])
def test_the_search_bot_ranks_first_well_clear_of_greedy(name: str, players: int,
                                                          games: int) -> None:
    """Issue bar: at least 200 games with seat rotation, the search bot first with a mu gap over
    greedy-py of more than 3 sigma (their sigmas combined), and no failures of its own."""
    saved = json.loads((LEADERBOARDS / name / "standings.json").read_text())
    assert saved["meta"]["players"] == players and saved["meta"]["games"] >= games
    assert saved["meta"]["complete"]
    lines = {b["name"]: b for b in saved["standings"]["bots"]}
    first = saved["standings"]["bots"][0]
    assert first["name"] == "mcts-py"
    mcts, greedy = lines["mcts-py"], lines["greedy-py"]
    combined = (mcts["sigma"] ** 2 + greedy["sigma"] ** 2) ** 0.5
    assert mcts["mu"] - greedy["mu"] > 3 * combined
    assert all(count == 0 for count in mcts["failures"].values())


def run_again(name: str, tmp_path: Path) -> Path:
    """Run the committed tournament file ``name`` against a copy of its finished journal and
    records (without its standings files), in ``tmp_path``; the copy's folder, which the run
    must have found complete."""
    from arena.runner.play.config import load_config
    from arena.runner.play.tournament import Tournament

    root = LEADERBOARDS.parent
    (tmp_path / "tournaments").mkdir()
    shutil.copy(root / "tournaments" / f"{name}.toml", tmp_path / "tournaments")
    (tmp_path / "bots").symlink_to(root / "bots")
    kept = tmp_path / "leaderboards" / name
    shutil.copytree(LEADERBOARDS / name, kept, ignore=shutil.ignore_patterns("standings.*"))
    config = load_config(tmp_path / "tournaments" / f"{name}.toml")
    result = Tournament(config).run()
    assert result.complete and result.games_done == len(_journal_outcomes(name)[1])
    return kept


@pytest.mark.parametrize("name", COMMITTED)
def test_running_a_finished_tournament_again_writes_the_same_standings_byte_for_byte(
    name: str, tmp_path: Path
) -> None:
    """The committed tournament file, run against a copy of its finished journal, plays nothing,
    leaves the journal as it was and writes standings files identical to the committed ones: the
    journal, the ratings and the writers still agree with what was published."""
    kept = run_again(name, tmp_path)
    for suffix in ("json", "csv", "md"):
        written = (kept / f"standings.{suffix}").read_bytes()
        assert written == (LEADERBOARDS / name / f"standings.{suffix}").read_bytes(), suffix
    # Nothing was written to the journal either: in a fresh clone the run leaves git clean.
    assert (kept / "journal.sqlite").read_bytes() == (
        LEADERBOARDS / name / "journal.sqlite").read_bytes()


def summed_otherwise(data: pl.ChoiceData) -> pl.ChoiceData:
    """The same choices, summed in another order: the choice sets renumbered (a seeded
    permutation), each set's members listed in reverse, and the entries of the sets' counts and
    of the bots' wins listed in another order. Every figure of the fit is the same sum of the
    same terms, taken in another order, as another CPU or BLAS might."""
    rng = np.random.default_rng(24)
    order = rng.permutation(data.members.shape[1])
    renumbered = np.argsort(order)  # a set's new number, by its old one
    members = data.members[::-1, order]
    sets = rng.permutation(len(data.set_entry_set))
    wins = rng.permutation(len(data.win_entry_bot))
    return dataclasses.replace(
        data, members=members,
        pair_index=members[:, None, :] * (data.n + 1) + members[None, :, :],
        set_entry_set=renumbered[data.set_entry_set][sets],
        set_entry_dup=data.set_entry_dup[sets], set_entry_weight=data.set_entry_weight[sets],
        win_entry_bot=data.win_entry_bot[wins], win_entry_dup=data.win_entry_dup[wins],
        win_entry_weight=data.win_entry_weight[wins])


def perturb_the_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, every Plackett–Luce fit sums :func:`summed_otherwise`, and its strengths
    come out a few units in the last place off (2e-15 of each), as on another CPU."""
    choice_data, fit = pl.choice_data, pl.fit
    monkeypatch.setattr(pl, "choice_data", lambda *a: summed_otherwise(choice_data(*a)))
    monkeypatch.setattr(pl, "fit", lambda *a, **k: fit(*a, **k) * (1 + 2e-15))


@pytest.mark.parametrize("name", COMMITTED)
def test_the_standings_do_not_move_when_the_fits_last_digits_do(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Plackett–Luce figures of the standings files are the same bytes whatever the order
    of the fit's sums and wherever its last digits land: the figures move (most of the
    bootstrap's do), the files do not."""
    _, outcomes = _journal_outcomes(name)
    bots = sorted({b for o in outcomes for b in o.bots})
    before = pl.plackett_luce(outcomes, bots)
    perturb_the_fit(monkeypatch)
    after = pl.plackett_luce(outcomes, bots)
    moved = int(np.count_nonzero(after.samples != before.samples))
    assert moved > after.samples.size // 2, "the perturbation moves the figures"
    assert np.allclose(after.samples, before.samples, rtol=0, atol=1e-12)
    kept = run_again(name, tmp_path)
    assert (kept / "standings.json").read_bytes() == (
        LEADERBOARDS / name / "standings.json").read_bytes()
