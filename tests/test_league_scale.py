"""``arena bench league`` at scale (arena.bench.leaguescale): table choice screened and in
full, the league runner over a real journal in a fresh process, and a long journal written
with the journal's own methods; and the league journal's index for the next table."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from arena.bench.leaguescale import synthetic_field
from arena.cli.main import app
from arena.league.config import load_league
from arena.league.store import NEXT_TABLE, LeagueJournal

runner = CliRunner()


def test_bench_league_at_scale_prints_its_figures_and_writes_a_journal(tmp_path: Path) -> None:
    folder = tmp_path / "long"
    r = runner.invoke(app, ["bench", "league", "--bots", "12", "--players", "2", "--no-settle",
                            "--tables", "3", "--journal", str(folder), "--journal-games", "41",
                            "--json"])
    assert r.exit_code == 0, r.output
    f = json.loads(r.output)
    assert "settings" not in f  # --no-settle
    choice, run, written = f["scale"]["choice"], f["scale"]["runner"], f["scale"]["journal"]
    assert choice["entrants"] == 12 and choice["screened_ms"] > 0 and choice["full_ms"] > 0
    assert choice["target_ms"] == 10.0
    assert run["games"] == 6 and run["tables"] == 3  # 3 duplicate sets of 2 rotations
    assert run["journal_bytes"] > 0 and run["peak_rss_bytes"] > 10 * 2**20
    assert written["games"] == 40  # whole duplicate sets
    assert written["journal_bytes"] == (folder / "journal.sqlite").stat().st_size > 0
    journal = LeagueJournal(load_league(folder), readonly=True)
    assert journal.pairing_count("done") == 40 == journal.pairing_count()
    assert len(journal.entrants("active")) == 12
    assert len({p.table for p in journal.pairings()}) == 20
    shown = runner.invoke(app, ["league", "standings", str(folder)])
    assert shown.exit_code == 0 and "synthetic-0011@1" in shown.output, shown.output
    again = runner.invoke(app, ["bench", "league", "--bots", "12", "--players", "2",
                                "--no-settle", "--tables", "0", "--journal", str(folder)])
    assert again.exit_code != 0 and "does not exist yet" in again.output


def test_the_synthetic_field_is_seeded_and_has_new_bots() -> None:
    field = synthetic_field(50, 3)
    assert field == synthetic_field(50, 3) != synthetic_field(50, 4)
    assert sum(e.games == 0 for e in field) == 5


def test_the_next_table_is_read_through_an_index(tmp_path: Path) -> None:
    (tmp_path / "league.toml").write_text('game = "stoneage"\nplayers = 2\n', encoding="utf-8")
    LeagueJournal(load_league(tmp_path)).close()
    db = sqlite3.connect(tmp_path / "journal.sqlite")
    for query in NEXT_TABLE:
        plan = " ".join(str(row) for row in db.execute("EXPLAIN QUERY PLAN " + query))
        assert "SEARCH pairings USING" in plan and "SCAN" not in plan, (query, plan)
