"""Games are plugins: installed ones come from entry points, loaded on first use."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.engine import GamePluginError, UnknownGameError, get_game, list_games, registry
from arena.engine.stoneage import STONE_AGE


def _installed(monkeypatch: pytest.MonkeyPatch, *specs: tuple[str, str]) -> None:
    """Pretend that exactly these ``(name, "module:attr")`` games are installed, with a fresh
    registry that has not loaded anything yet."""
    points = [EntryPoint(name, value, registry.ENTRY_POINT_GROUP) for name, value in specs]

    def fake(group: str) -> list[EntryPoint]:
        assert group == registry.ENTRY_POINT_GROUP
        return points

    monkeypatch.setattr(registry, "entry_points", fake)
    monkeypatch.setattr(registry, "_GAMES", {})
    monkeypatch.setattr(registry, "_installed_loaded", False)


def test_stone_age_is_installed_through_its_entry_point() -> None:
    assert get_game("stoneage") is STONE_AGE
    assert STONE_AGE in list_games()


def test_the_generic_engine_package_does_not_import_any_game() -> None:
    import arena.engine

    assert "STONE_AGE" not in vars(arena.engine)


def test_installed_games_are_loaded_lazily_on_first_lookup(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _installed(monkeypatch, ("stoneage", "arena.engine.stoneage:STONE_AGE"))
    assert registry._GAMES == {}
    assert [g.name for g in list_games()] == ["stoneage"]


def test_a_lookup_by_name_loads_that_game_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that plays one game does not import the others: asked for Stone Age, the
    registry leaves another installed game unloaded, even one that would fail to load; the
    list of every game loads them all and names the one that fails."""
    _installed(monkeypatch, ("stoneage", "arena.engine.stoneage:STONE_AGE"),
               ("broken", "arena.no_such_game:GAME"))
    assert get_game("stoneage") is STONE_AGE
    assert list(registry._GAMES) == ["stoneage"]
    with pytest.raises(GamePluginError, match="'broken'"):
        list_games()
    with pytest.raises(GamePluginError, match="'broken'"):
        get_game("agricola")  # not found: the broken plugin is named first


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("arena.no_such_game:GAME", "ModuleNotFoundError"),
        ("arena.engine.stoneage:NO_SUCH_NAME", "AttributeError"),
        ("arena.engine.stoneage.components:CARDS", "not an arena Game"),
    ],
)
def test_a_broken_entry_point_is_named_in_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, spec: str, problem: str
) -> None:
    _installed(monkeypatch, ("broken", spec))
    for lookup in (list_games, lambda: get_game("stoneage")):
        with pytest.raises(GamePluginError, match="'broken'") as info:
            lookup()
        assert spec in str(info.value) and problem in str(info.value)
        assert isinstance(info.value, UnknownGameError)


def test_an_entry_point_must_be_named_after_its_game(monkeypatch: pytest.MonkeyPatch) -> None:
    _installed(monkeypatch, ("stone", "arena.engine.stoneage:STONE_AGE"))
    with pytest.raises(GamePluginError, match="names must match"):
        list_games()


def test_arena_games_reports_a_broken_plugin_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _installed(monkeypatch, ("broken", "arena.no_such_game:GAME"))
    r = CliRunner().invoke(app, ["games"])
    assert r.exit_code == 2
    assert "broken" in r.output and "arena.no_such_game:GAME" in r.output
    assert "Traceback" not in r.output
