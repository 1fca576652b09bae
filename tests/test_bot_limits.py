"""A manifest's [limits] against what the host allows: refused at load with a message naming the
file, the field, the value and the host's bound; and a limit the child still cannot set is a
BotStartError naming it, never subprocess's bare "Exception occurred in preexec_fn"."""

from __future__ import annotations

import dataclasses
import resource
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.runner.game.botlog import BotLog
from arena.runner.game.manifest import (
    MAX_CPU_SECONDS,
    MAX_MEMORY_MB,
    MIN_OPEN_FILES,
    BotManifest,
    HostLimits,
    Limits,
    ManifestError,
    limit_problems,
)
from arena.runner.game.processes import BotProcess, BotStartError
from arena.runner.play.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parent.parent
RANDOM_PY = ROOT / "bots" / "examples" / "random-py"
UNCAPPED = HostLimits(None, None, None)


def hard_nofile() -> int:
    return resource.getrlimit(resource.RLIMIT_NOFILE)[1]


def bot_with_limits(folder: Path, limits: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(
        'name = "limited"\nversion = "1.0"\nlanguage = "python"\n'
        f'command = ["{{python}}", "{RANDOM_PY / "bot.py"}"]\n\n[limits]\n{limits}\n'
    )
    return folder


def test_the_default_limits_fit_an_uncapped_host_and_this_one() -> None:
    assert limit_problems(Limits(), UNCAPPED) == []
    assert limit_problems(Limits(), HostLimits.current()) == []


def test_open_files_over_the_hard_limit_names_the_value_and_the_host_limit() -> None:
    [(field, problem)] = limit_problems(Limits(open_files=30000), HostLimits(None, None, 20000))
    assert field == "open_files"
    assert "30000" in problem and "at most 20000" in problem and "RLIMIT_NOFILE" in problem


def test_open_files_must_leave_the_bot_enough_to_run() -> None:
    [(field, problem)] = limit_problems(Limits(open_files=3), UNCAPPED)
    assert field == "open_files" and f"at least {MIN_OPEN_FILES}" in problem
    assert limit_problems(Limits(open_files=MIN_OPEN_FILES), UNCAPPED) == []


def test_memory_is_checked_against_the_hard_address_space_limit_in_mib() -> None:
    host = HostLimits(4096 * 1024 * 1024, None, None)
    assert limit_problems(Limits(memory_mb=4096), host) == []
    [(field, problem)] = limit_problems(Limits(memory_mb=4097), host)
    assert field == "memory_mb" and "4097" in problem and "at most 4096" in problem
    assert "RLIMIT_AS" in problem


def test_cpu_seconds_leaves_room_for_the_bots_hard_limit_five_seconds_above() -> None:
    host = HostLimits(None, 100, None)
    assert limit_problems(Limits(cpu_seconds=95), host) == []
    [(field, problem)] = limit_problems(Limits(cpu_seconds=96), host)
    assert field == "cpu_seconds" and "at most 95" in problem and "RLIMIT_CPU" in problem


def test_absurd_values_are_refused_even_on_an_uncapped_host() -> None:
    problems = dict(limit_problems(
        Limits(memory_mb=MAX_MEMORY_MB + 1, cpu_seconds=MAX_CPU_SECONDS + 1, open_files=10**9),
        UNCAPPED,
    ))
    assert set(problems) == {"memory_mb", "cpu_seconds", "open_files"}
    assert all("over the maximum" in p for p in problems.values())


def test_loading_a_manifest_over_the_host_limit_fails_naming_file_field_and_bound(
    tmp_path: Path,
) -> None:
    folder = bot_with_limits(tmp_path / "bot", f"open_files = {hard_nofile() + 1}")
    with pytest.raises(ManifestError) as caught:
        BotManifest.load(folder)
    message = str(caught.value)
    assert str(folder / "bot.toml") in message
    assert f"limits.open_files = {hard_nofile() + 1}" in message
    assert f"at most {hard_nofile()}" in message


def test_a_huge_memory_mb_is_refused_at_load(tmp_path: Path) -> None:
    folder = bot_with_limits(tmp_path / "bot", "memory_mb = 99999999999")
    with pytest.raises(ManifestError, match=r"limits\.memory_mb = 99999999999 is over"):
        BotManifest.load(folder)


def test_check_bot_reports_the_limit_as_a_failed_manifest_check(tmp_path: Path) -> None:
    folder = bot_with_limits(tmp_path / "bot", f"open_files = {hard_nofile() + 1}")
    r = CliRunner().invoke(app, ["check-bot", str(folder), "--log-dir", str(tmp_path / "logs")])
    assert r.exit_code == 1
    assert "FAIL" in r.output and "manifest" in r.output and "open_files" in r.output
    assert not (tmp_path / "logs").exists(), "nothing may start"


def test_play_refuses_the_bot_before_any_start(tmp_path: Path) -> None:
    folder = bot_with_limits(tmp_path / "bot", "memory_mb = 99999999999")
    r = CliRunner().invoke(app, ["play", "stoneage", "--bot", str(folder), "-n", "2"])
    assert r.exit_code == 2
    assert "limits.memory_mb" in r.output


def test_a_tournament_file_names_the_bot_and_its_limit(tmp_path: Path) -> None:
    folder = bot_with_limits(tmp_path / "bot", f"open_files = {hard_nofile() + 1}")
    toml = tmp_path / "t.toml"
    toml.write_text(
        'name = "t"\ngame = "stoneage"\nformat = "round-robin"\nplayers = 2\nseed = 1\n'
        f'[[bots]]\npath = "{folder}"\n[[bots]]\npath = "{RANDOM_PY}"\n'
    )
    with pytest.raises(ConfigError, match=r"bots\[0\].*limits\.open_files"):
        load_config(toml)


def test_a_limit_the_child_cannot_set_is_a_start_error_naming_it(tmp_path: Path) -> None:
    # Past validation (a manifest built by hand): the child's setrlimit fails.
    manifest = dataclasses.replace(BotManifest.load(RANDOM_PY),
                                   limits=Limits(open_files=hard_nofile() + 1))
    log = BotLog(tmp_path / "bot.log")
    try:
        with pytest.raises(BotStartError) as caught:
            BotProcess(manifest, {}, log)
    finally:
        log.close()
    message = str(caught.value)
    assert f"limits.open_files = {hard_nofile() + 1}" in message
    assert "preexec_fn" not in message


def test_a_default_limit_the_host_cannot_give_says_it_is_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(HostLimits, "current",
                        classmethod(lambda cls: HostLimits(1024 * 1024 * 1024, None, None)))
    with pytest.raises(ManifestError, match=r"limits\.memory_mb = 2048 .*at most 1024.*default"):
        BotManifest.load(RANDOM_PY)
