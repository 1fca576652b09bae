"""`arena stats`, `arena compare` and `arena bench stats` on the committed leaderboards and on
small synthetic journals."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.bench.stats import write_journal
from arena.cli.main import app
from arena.runner.play.journal import JOURNAL, Journal

runner = CliRunner()
LEADERBOARDS = Path(__file__).resolve().parent.parent / "leaderboards"


def test_compare_finds_the_search_bot_better_than_greedy_with_an_interval_above_zero() -> None:
    r = runner.invoke(app, ["compare", str(LEADERBOARDS / "search-2p"), "mcts-py", "greedy-py",
                            "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["pairs"] == 17 and sum(d["pentanomial"]) == 17 and d["unpaired"] == 0
    assert d["games"] == 34 and d["wins"] + d["draws"] + d["losses"] == 34
    assert d["elo_interval"][0] > 0 and d["elo"] > d["elo_interval"][0]
    assert d["los"] > 0.99
    assert d["sprt"]["model"] == "logistic" and d["sprt"]["verdict"] in ("H1", "continue")


def test_compare_prints_the_figures_and_the_sprt() -> None:
    r = runner.invoke(app, ["compare", str(LEADERBOARDS / "agricola-2p"), "greedy-py",
                            "mcts-py", "--elo0", "-50", "--elo1", "0", "--model", "normalized"])
    assert r.exit_code == 0, r.output
    for text in ("greedy-py vs mcts-py", "Elo", "nElo", "LOS", "SPRT", "normalized"):
        assert text in r.output
    # greedy-py lost 33 of 34 games: H0 (not better than -50 normalised Elo) is accepted.
    assert "H0 accepted" in r.output


def test_compare_refuses_unknown_bots_tables_and_bad_sprt_settings() -> None:
    folder = str(LEADERBOARDS / "search-2p")
    r = runner.invoke(app, ["compare", folder, "mcts-py", "nobody"])
    assert r.exit_code == 2 and "no bot named 'nobody'" in r.output
    r = runner.invoke(app, ["compare", str(LEADERBOARDS / "search-4p"), "mcts-py", "greedy-py"])
    assert r.exit_code == 2 and "never met at a two-player table" in r.output
    r = runner.invoke(app, ["compare", folder, "mcts-py", "greedy-py", "--elo0", "5",
                            "--elo1", "5"])
    assert r.exit_code == 2 and "elo0 must be below elo1" in r.output
    r = runner.invoke(app, ["compare", folder, "mcts-py", "greedy-py", "--model", "bayes"])
    assert r.exit_code == 2 and "logistic or normalized" in r.output
    r = runner.invoke(app, ["compare", folder, "mcts-py", "greedy-py", "--model",
                            "normalized", "--elo1", "400"])
    assert r.exit_code == 2 and "cannot test nElo 0 against 400" in r.output
    assert "Traceback" not in r.output


def test_stats_json_on_four_player_tables_is_deterministic() -> None:
    args = ["stats", str(LEADERBOARDS / "search-4p"), "--json", "--bootstrap", "40"]
    first, again = runner.invoke(app, args), runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert first.output == again.output
    d = json.loads(first.output)
    assert d["games"] == 200 and d["bots"][:2] == ["mcts-py", "greedy-py"]
    pl = d["plackett_luce"]
    assert pl["replicates"] == 40 and pl["duplicate_sets"] == 50
    assert pl["bots"][0]["name"] == "mcts-py"
    lo, hi = pl["p_ahead"]["mcts-py"]["greedy-py"]["interval"]
    assert 0.5 < lo < pl["p_ahead"]["mcts-py"]["greedy-py"]["p"] < hi
    assert len(d["head_to_head"]) == 6
    top = d["head_to_head"][0]
    ahead = behind = 0  # counted again from the game records
    for path in (LEADERBOARDS / "search-4p" / "games").glob("*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        rank = {seat["bot"]: r for seat, r in zip(record["seats"], record["ranks"], strict=True)}
        ahead += rank["mcts-py"] < rank["greedy-py"]
        behind += rank["mcts-py"] > rank["greedy-py"]
    assert (top["a"], top["b"], top["ahead"], top["behind"]) == (
        "mcts-py", "greedy-py", ahead, behind)
    assert ahead + behind == 200 and ahead > behind
    assert [(s["players"], s["seat"]) for s in d["seats"]] == [(4, 0), (4, 1), (4, 2), (4, 3)]


def test_stats_prints_the_three_tables() -> None:
    r = runner.invoke(app, ["stats", str(LEADERBOARDS / "search-2p"), "--bootstrap", "20"])
    assert r.exit_code == 0, r.output
    for text in ("Plackett–Luce", "Head to head", "Seats", "mcts-py", "duplicate sets"):
        assert text in r.output


def test_stats_of_a_folder_without_a_journal_or_games_is_one_error(tmp_path: Path) -> None:
    r = runner.invoke(app, ["stats", str(tmp_path)])
    assert r.exit_code == 2 and "no journal" in r.output
    journal = Journal(tmp_path / JOURNAL)
    journal.bind({"name": "empty"}, "nothing yet")
    journal.close()
    for args in (["stats", str(tmp_path)], ["compare", str(tmp_path), "a", "b"]):
        r = runner.invoke(app, args)
        assert r.exit_code == 2 and "no game has finished yet" in r.output


def test_stats_on_a_synthetic_journal(tmp_path: Path) -> None:
    assert write_journal(tmp_path, bots=5, players=3, games=300, seed=2) == 300
    r = runner.invoke(app, ["stats", str(tmp_path), "--json", "--bootstrap", "10"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["games"] == 300 and d["plackett_luce"]["duplicate_sets"] == 100
    assert len(d["head_to_head"]) == 10


def test_bench_stats_reports_every_run_and_the_growth() -> None:
    r = runner.invoke(app, ["bench", "stats", "--games", "400", "--bots", "4", "--bots", "6",
                            "--bootstrap", "3", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert [(x["bots"], x["games"]) for x in d["runs"]] == [(4, 40), (4, 400), (6, 40), (6, 400)]
    assert set(d["growth"]) == {"4 bots, 400 / 40 games", "6 bots, 400 / 40 games",
                                "40 games, 6 / 4 bots", "400 games, 6 / 4 bots"}
    assert all(x["total_seconds"] > 0 for x in d["runs"])
    r = runner.invoke(app, ["bench", "stats", "--bots", "3", "--players", "4"])
    assert r.exit_code == 2 and "--bots must be at least" in r.output


def test_stats_on_an_80_column_terminal_cuts_no_figure() -> None:
    """Piped or on a narrow terminal (80 columns), the tables wrap an interval under its figure
    rather than cutting counts to "…"."""
    from arena.cli.common import out

    made = out._width  # None: the output's own width
    out.width = 80
    try:
        r = CliRunner().invoke(app, ["stats", str(LEADERBOARDS / "search-4p"), "--bootstrap", "20"])
    finally:
        out._width = made
    assert r.exit_code == 0, r.output
    assert "…" not in r.output
    assert all(len(line) <= 80 for line in r.output.splitlines())
