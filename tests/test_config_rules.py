"""Each rule of a tournament's settings is checked in one place: a tournament file, the
library's ``make_scheduler`` and the command line's options that override the file meet the
same check and say the same line; and what the command line overrides is in the typed
configuration the tournament (or league) is built from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_tournament_e2e import signals_kept
from typer.testing import CliRunner

from arena.cli.main import app
from arena.runner.play.config import ConfigError, load_config
from arena.runner.play.schedule import make_scheduler, scheduler_for
from arena.runner.play.schedule.shape import MAX_SCHEDULE_GAMES, ScheduleError
from arena.runner.play.settings import Overrides

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bots" / "examples"
cli = CliRunner()

#: The example bots' names, each the name of its folder.
RANDOM, GREEDY, JS = "random-py", "greedy-py", "random-js"


def tournament(folder: Path, bots: tuple[str, ...] = (RANDOM, GREEDY), **fields: Any) -> Path:
    """A 2-player round-robin of the example ``bots`` in ``folder``/t.toml, ``fields`` added
    or changed (None: left out)."""
    values: dict[str, Any] = {"name": "rules", "game": "stoneage", "format": "round-robin",
                              "players": 2, "seed": 1, "output": str(folder / "out"), **fields}
    lines = [f"{k} = {_toml(v)}" for k, v in values.items() if v is not None]
    lines += [f'\n[[bots]]\npath = "{EXAMPLES / b}"' for b in bots]
    file = folder / "t.toml"
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return file


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def file_error(file: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(file)
    return str(caught.value)


#: (rule, the tournament file's fields and bots, the field named)
SCHEDULE_RULES: list[tuple[str, dict[str, Any], tuple[str, ...], str]] = [
    ("a known format", {"format": "knockout"}, (RANDOM, GREEDY), "format"),
    ("at least one round", {"rounds": 0}, (RANDOM, GREEDY), "rounds"),
    ("unique bot names", {}, (RANDOM, RANDOM), "bots"),
    ("bots enough for a table", {"players": 3}, (RANDOM, GREEDY), "bots"),
    ("no cap on a swiss", {"format": "swiss", "max_games": 4}, (RANDOM, GREEDY), "max_games"),
    ("a cap of at least a table", {"max_games": 1}, (RANDOM, GREEDY), "max_games"),
    ("candidates only in a gauntlet", {"candidates": [GREEDY]}, (RANDOM, GREEDY),
     "candidates"),
    ("a gauntlet has candidates", {"format": "gauntlet"}, (RANDOM, GREEDY, JS), "candidates"),
    ("candidates among the bots", {"format": "gauntlet", "candidates": ["zed"]},
     (RANDOM, GREEDY, JS), "candidates"),
    ("a field for the candidates", {"format": "gauntlet", "candidates": [GREEDY, JS],
                                    "players": 3}, (RANDOM, GREEDY, JS), "players"),
    ("a schedule that fits", {"rounds": MAX_SCHEDULE_GAMES}, (RANDOM, GREEDY), "rounds"),
]


@pytest.mark.parametrize(("rule", "fields", "bots", "field"), SCHEDULE_RULES,
                         ids=[r[0] for r in SCHEDULE_RULES])
def test_a_schedule_rule_says_the_same_from_the_file_and_from_make_scheduler(
    tmp_path: Path, rule: str, fields: dict[str, Any], bots: tuple[str, ...], field: str
) -> None:
    file = tournament(tmp_path, bots, **fields)
    settings = {"format": "round-robin", "players": 2, "rounds": 1, **fields}
    with pytest.raises(ScheduleError) as caught:
        make_scheduler(settings["format"], bots, settings["players"], 1, settings["rounds"],
                       None, settings.get("max_games"), settings.get("candidates", ()))
    assert caught.value.field == field
    assert file_error(file) == f"{file}: '{field}' {caught.value.problem}"


#: (option, its value, the file's field and value that say the same)
OVERRIDES = [
    ("--games", "1", {"max_games": 1}),
    ("--seed", "-3", {"seed": -3}),
    ("--concurrency", "0", {"concurrency": 0}),
    ("--decision-ms", "-5", {}),
]


@pytest.mark.parametrize(("option", "value", "fields"), OVERRIDES,
                         ids=[o[0] for o in OVERRIDES])
def test_an_option_is_held_to_the_file_s_rule_with_the_file_s_message(
    tmp_path: Path, option: str, value: str, fields: dict[str, Any]
) -> None:
    """The same bad value, written in the file or given as the option, is refused with the
    same line: the option is put into the file's data before it is validated."""
    file = tournament(tmp_path, **fields)
    if option == "--decision-ms":
        file.write_text(file.read_text() + "\n[time_control]\ndecision_ms = -5\n")
    from_file = file_error(file)
    tournament(tmp_path)
    with signals_kept():
        r = cli.invoke(app, ["run", str(file), "--plain", option, value])
    assert r.exit_code == 2, r.output
    assert from_file in r.output.replace("\n", ""), r.output
    assert not (tmp_path / "out").exists()


def recorded(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[Any]:
    """The configurations ``module.name`` (a tournament's or a league's class) is built from,
    in place of running it: a stand-in records each and stops the run with an error."""
    from arena.runner.play.tournament import TournamentError

    given: list[Any] = []

    def stand_in(config: Any, *args: Any, **kwargs: Any) -> None:
        given.append(config)
        raise TournamentError("built")

    monkeypatch.setattr(module, name, stand_in)
    return given


def test_the_run_options_are_in_the_config_the_tournament_is_built_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena.runner.play.tournament as tournament_module

    given = recorded(monkeypatch, tournament_module, "Tournament")
    file = tournament(tmp_path, (RANDOM, GREEDY, JS), seed=None, concurrency=2)
    elsewhere = tmp_path / "elsewhere"
    with signals_kept():
        r = cli.invoke(app, ["run", str(file), "--plain", "--games", "4", "--seed", "9",
                             "-j", "1", "--no-sandbox", "--output", str(elsewhere),
                             "--decision-ms", "700", "--bank-ms", "9000",
                             "--executor", "local"])
    assert r.exit_code == 2 and "built" in r.output, r.output
    (config,) = given
    assert (config.max_games, config.seed, config.concurrency, config.sandbox) == \
        (4, 9, 1, "none")
    assert config.output == elsewhere.resolve()
    assert (config.time_control.decision_ms, config.time_control.bank_ms) == (700, 9000)
    assert config.executor.kind == "local"
    # The capped schedule is the one the run plays: 4 of the 6 games of 3 bots in pairs.
    assert config.schedule.size == 4
    assert scheduler_for(config.schedule, config.seed).fixed_total == 4
    assert config == load_config(file, Overrides(
        output=elsewhere, seed=9, max_games=4, decision_ms=700, bank_ms=9000,
        executor="local", concurrency=1, no_sandbox=True))


def test_the_league_run_options_are_in_the_config_the_league_is_built_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena.league.runner as league_module

    given = recorded(monkeypatch, league_module, "League")
    league = tmp_path / "league"
    league.mkdir()
    (league / "league.toml").write_text('game = "stoneage"\nplayers = 2\nconcurrency = 3\n'
                                        '[executor]\nkind = "dask"\naddress = "tcp://h:1"\n',
                                        encoding="utf-8")
    with signals_kept():
        r = cli.invoke(app, ["league", "run", str(league), "--plain", "-j", "1",
                             "--executor", "local"])
    assert r.exit_code == 2 and "built" in r.output, r.output
    (config,) = given
    assert config.concurrency == 1 and config.executor.kind == "local"
    with signals_kept():
        r = cli.invoke(app, ["league", "run", str(league), "--plain", "-j", "0"])
    assert r.exit_code == 2, r.output
    assert f"{league / 'league.toml'}: 'concurrency' must be 1..64, got 0" in r.output
    assert len(given) == 1  # refused before anything was built
