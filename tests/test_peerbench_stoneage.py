"""The Stone Age peer benchmark (StoneAgeAI, in arena.bench.peers): clear errors always; real
peer games only where the peer's repository (the mirror, or ARENA_STONEAGE_PEER_REPO) and a
Python with numpy are at hand."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bench.peers import STONEAGE_PATHS, peer_engine, peer_stoneage
from arena.cli.main import app
from tests.test_peerbench import PEER_PYTHON, _check_figures, checkout_of, private_tmp

__all__ = ["private_tmp"]  # a fixture of the Agricola peer's tests, used here too

MIRROR = Path(os.environ.get("ARENA_STONEAGE_PEER_REPO",
                             "/work/.mirror/Kakaroto9000+StoneAgeAI/repo"))
AGRICOLA_MIRROR = Path(
    os.environ.get("ARENA_PEER_REPO", "/work/.mirror/hunterwieman+AgricolaBot/repo")
)
needs_peer = pytest.mark.skipif(
    not MIRROR.exists() or PEER_PYTHON is None,
    reason="needs the StoneAgeAI repository (ARENA_STONEAGE_PEER_REPO) and a Python with numpy "
    "(ARENA_PEER_PYTHON)",
)


def _checkout(folder: Path, game_py: str) -> Path:
    """A checkout-shaped folder whose game module is ``game_py`` (the others empty)."""
    folder.mkdir(parents=True)
    for rel in STONEAGE_PATHS:
        (folder / rel).write_text(game_py if rel == "game.py" else "")
    return folder


def test_a_folder_that_is_not_the_peer_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="not a StoneAgeAI repository"):
        peer_stoneage(tmp_path, 4, 2, 0)


def test_a_game_without_a_peer_is_refused() -> None:
    with pytest.raises(RuntimeError, match="no peer engine for chess: the peers are for "
                       "agricola and stoneage"):
        peer_engine("chess", Path("."), 2, 1, 0)


def test_an_import_failure_in_the_peer_is_one_line_and_leaves_no_copy(
    tmp_path: Path, private_tmp: Path
) -> None:
    repo = _checkout(tmp_path / "repo", "raise ImportError('boom')\n")
    with pytest.raises(RuntimeError, match="cannot import the peer engine: ImportError: boom"
                       ) as info:
        peer_stoneage(repo, 4, 1, 0, python=sys.executable)
    assert "\n" not in str(info.value)
    assert list(private_tmp.iterdir()) == []


def test_a_peer_that_fails_in_every_game_is_an_error(tmp_path: Path) -> None:
    game_py = ("class Game:\n"
               "    def start_game(self):\n"
               "        raise IndexError('no seats')\n")
    repo = _checkout(tmp_path / "repo", game_py)
    with pytest.raises(RuntimeError, match="failed in every game, first in game 0: IndexError"):
        peer_stoneage(repo, 4, 2, 0, python=sys.executable)


@pytest.mark.skipif(not AGRICOLA_MIRROR.exists(), reason="needs the AgricolaBot repository")
def test_the_other_games_peer_is_refused_by_name() -> None:
    with pytest.raises(RuntimeError,
                       match=r"not a StoneAgeAI repository \(action_system\.py, .*game\.py"):
        peer_stoneage(AGRICOLA_MIRROR, 4, 1, 0)


@needs_peer
def test_peer_games_from_the_bare_repository(private_tmp: Path) -> None:
    f = peer_stoneage(MIRROR, 2, 2, 7, python=PEER_PYTHON)
    _check_figures(f, 2)
    assert f["players"] == 4 and f["requested_players"] == 2 and f["seed"] == 7
    assert f["config"] == "StoneAgeAI game, 4 players (its only player count; 2 were asked for)"
    assert isinstance(f["commit"], str) and len(f["commit"]) == 40
    assert f["steps_per_game"] >= f["decisions_per_game"]
    assert f["failed_games"] == 0 and f["first_failure"] is None
    assert 1 <= f["rounds_per_game"] <= 51
    assert list(private_tmp.iterdir()) == []


@needs_peer
def test_peer_games_are_seeded(tmp_path: Path) -> None:
    checkout = checkout_of(MIRROR, STONEAGE_PATHS, tmp_path / "checkout")
    a = peer_stoneage(checkout, 4, 1, 3, python=PEER_PYTHON)
    b = peer_stoneage(MIRROR, 4, 1, 3, python=PEER_PYTHON)
    assert a["config"] == "StoneAgeAI game, 4 players"
    assert a["commit"] is None
    assert (a["steps_per_game"], a["decisions_per_game"]) == (
        b["steps_per_game"], b["decisions_per_game"])


@needs_peer
def test_the_cli_picks_the_stone_age_peer_and_prints_the_ratios() -> None:
    r = CliRunner().invoke(app, ["bench", "engine", "--game", "stoneage", "-g", "2",
                                 "--peer", str(MIRROR), "--peer-python", str(PEER_PYTHON),
                                 "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["peer"]["game"] == "stoneage (StoneAgeAI peer)"
    assert data["games"] == data["peer"]["games"] == 2
    assert data["players"] == data["peer"]["players"] == 4
    assert data["peer"]["target_ratio"] == 10
    assert all(v > 0 for v in data["ratios"].values())
    table = CliRunner().invoke(app, ["bench", "engine", "--game", "stoneage", "-g", "1",
                                     "--peer", str(MIRROR), "--peer-python", str(PEER_PYTHON)])
    assert table.exit_code == 0, table.output
    assert "peer: StoneAgeAI game, 4 players, 1 games" in table.output
    assert "Arena ÷ peer, decisions per second" in table.output
    assert "≥ 10" in table.output and "≥ 0.75" in table.output
