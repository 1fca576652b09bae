"""The peer engine benchmark (arena.bench.peers): clear errors always; real peer games only where
the peer's repository (the mirror, or ARENA_PEER_REPO) and a Python with numpy are at hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bench.peers import PEER_PATHS, peer_agricola, peer_ratios
from arena.cli.main import app

ROOT = Path(__file__).resolve().parent.parent
MIRROR = Path(
    os.environ.get("ARENA_PEER_REPO", "/work/.mirror/hunterwieman+AgricolaBot/repo")
)


def _peer_python() -> str | None:
    """A Python that can import numpy (the peer's one dependency): ARENA_PEER_PYTHON, the
    worktree's .venv-peer, or this one; None if none can."""
    candidates = [os.environ.get("ARENA_PEER_PYTHON"), str(ROOT / ".venv-peer/bin/python"),
                  sys.executable]
    for python in candidates:
        if python and Path(python).exists():
            done = subprocess.run([python, "-c", "import numpy"], capture_output=True)
            if done.returncode == 0:
                return python
    return None


PEER_PYTHON = _peer_python()
needs_peer = pytest.mark.skipif(
    not MIRROR.exists() or PEER_PYTHON is None,
    reason="needs the AgricolaBot repository (ARENA_PEER_REPO) and a Python with numpy "
    "(ARENA_PEER_PYTHON)",
)


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory of the test's own for the benchmark's temporary copies."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _broken_checkout(folder: Path) -> Path:
    """A checkout-shaped folder whose engine package fails to import."""
    for rel in PEER_PATHS:
        path = folder / rel
        if rel == "agricola":
            path.mkdir(parents=True)
            (path / "__init__.py").write_text("raise ImportError('boom')\n")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("")
    return folder


def test_a_missing_repository_is_one_clear_runtime_error(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="peer repository not found") as info:
        peer_agricola(tmp_path / "nowhere", 4, 2, 0)
    assert "\n" not in str(info.value)


def test_a_folder_that_is_not_the_peer_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="not an AgricolaBot repository"):
        peer_agricola(tmp_path, 4, 2, 0)


def test_an_import_failure_in_the_peer_is_one_line_and_leaves_no_copy(
    tmp_path: Path, private_tmp: Path
) -> None:
    repo = _broken_checkout(tmp_path / "repo")
    with pytest.raises(RuntimeError, match="cannot import the peer engine: ImportError: boom"
                       ) as info:
        peer_agricola(repo, 2, 1, 0, python=sys.executable)
    assert "\n" not in str(info.value)
    assert list(private_tmp.iterdir()) == []


def test_the_cli_reports_a_peer_failure_with_exit_code_2(tmp_path: Path) -> None:
    repo = _broken_checkout(tmp_path / "repo")
    r = CliRunner().invoke(app, ["bench", "engine", "--game", "agricola", "-n", "2", "-g", "1",
                                 "--peer", str(repo), "--peer-python", sys.executable, "--json"])
    assert r.exit_code == 2
    assert "cannot import the peer engine" in r.output


def test_ratios_divide_arena_by_the_peer() -> None:
    arena = {"games": 10, "seconds": 0.5, "decisions_per_second": 6000}
    peer = {"games": 10, "seconds": 2.0, "decisions_per_second": 1500}
    assert peer_ratios(arena, peer) == {"games_per_second": 4.0, "decisions_per_second": 4.0}
    arena["decisions_per_cpu_second"], peer["decisions_per_cpu_second"] = 9000, 1000
    assert peer_ratios(arena, peer)["decisions_per_cpu_second"] == 9.0


def checkout_of(repo: Path, paths: tuple[str, ...], folder: Path) -> Path:
    """``paths`` at ``HEAD`` of the bare repository ``repo``, as a checkout in ``folder``."""
    folder.mkdir()
    archive = subprocess.run(["git", f"--git-dir={repo}", "archive", "HEAD", *paths],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def _check_figures(f: dict[str, object], games: int) -> None:
    """Positive figures that agree with one another (within their rounding)."""
    gps, dps, dpg = f["games_per_second"], f["decisions_per_second"], f["decisions_per_game"]
    seconds = f["seconds"]
    assert isinstance(gps, float) and isinstance(dps, int) and isinstance(dpg, float)
    assert isinstance(seconds, float)
    assert gps > 0 and dps > 0 and dpg > 0 and seconds > 0
    assert f["games"] == games
    # games per second is rounded to 0.1: on a slow run (under one game a second) that is
    # more than 5% of it, so the rounding is allowed for besides
    assert gps == pytest.approx(games / seconds, rel=0.05, abs=0.05)
    assert dps == pytest.approx(dpg * games / seconds, rel=0.05)
    assert f["clone_microseconds"] is None
    cpu_rate, cpu = f["decisions_per_cpu_second"], f["cpu_seconds"]
    assert isinstance(cpu_rate, int) and isinstance(cpu, float) and cpu_rate > 0 and cpu > 0


@needs_peer
def test_peer_games_from_the_bare_repository(private_tmp: Path) -> None:
    f = peer_agricola(MIRROR, 4, 2, 7, python=PEER_PYTHON)
    _check_figures(f, 2)
    assert f["players"] == 2 and f["requested_players"] == 4 and f["seed"] == 7
    assert f["config"].startswith("AgricolaBot family game (no cards), 2 players")
    assert "4 were asked for" in f["config"]
    assert isinstance(f["commit"], str) and len(f["commit"]) == 40
    assert f["steps_per_game"] >= f["decisions_per_game"]
    assert list(private_tmp.iterdir()) == []


@needs_peer
def test_peer_games_from_a_checkout_are_the_same_games(tmp_path: Path) -> None:
    checkout = checkout_of(MIRROR, PEER_PATHS, tmp_path / "checkout")
    a = peer_agricola(checkout, 2, 1, 3, python=PEER_PYTHON)
    b = peer_agricola(MIRROR, 2, 1, 3, python=PEER_PYTHON)
    _check_figures(a, 1)
    assert a["config"] == "AgricolaBot family game (no cards), 2 players"
    assert a["decisions_per_game"] == b["decisions_per_game"]  # seeded: the same game
    assert a["commit"] is None


@needs_peer
def test_the_cli_nests_the_peer_and_the_ratios_in_its_json() -> None:
    r = CliRunner().invoke(app, ["bench", "engine", "--game", "agricola", "-n", "2", "-g", "2",
                                 "--peer", str(MIRROR), "--peer-python", str(PEER_PYTHON),
                                 "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["games"] == data["peer"]["games"] == 2
    assert data["peer"]["seed"] == data["seed"]
    assert data["peer"]["target_ratio"] == 40
    assert set(data["ratios"]) == {"games_per_second", "decisions_per_second",
                                   "decisions_per_cpu_second"}
    assert all(v > 0 for v in data["ratios"].values())
