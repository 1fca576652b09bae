"""A bot's build step (`build = [...]` in its manifest): run once per content of its folder, in
a copy the bot then plays from, sandboxed, before any game and outside every clock. Real
processes; the build cache is the test's own folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_tournament_e2e import example, signals_kept, write_tournament
from typer.testing import CliRunner, Result

from arena.cli.main import app
from arena.runner.game.build import DONE, FILES, cache_root

#: The build writes the bot's entry point: without the build, the bot cannot start.
MAKE_ENTRY = ("printf 'import runpy\\nrunpy.run_path(\"play.py\", run_name=\"__main__\")\\n' "
              "> bot.py && echo built the entry point")


def invoke(*args: str) -> Result:
    with signals_kept():
        return CliRunner().invoke(app, list(args))


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def bot_with_build(tmp_path: Path, script: str, name: str = "built-py") -> Path:
    folder = tmp_path / "bots" / name
    folder.mkdir(parents=True)
    shutil.copy(example("random-py") / "bot.py", folder / "play.py")
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1.0"\nlanguage = "python"\n'
        f"build = {json.dumps(['sh', '-c', script])}\n"
        'command = ["{python}", "bot.py"]\n', encoding="utf-8")
    return folder


def copies(name: str = "built-py") -> list[Path]:
    return sorted(cache_root().glob(f"{name}-*"))


def test_check_bot_builds_once_per_content_and_the_bot_runs_from_its_copy(
    tmp_path: Path,
) -> None:
    folder = bot_with_build(tmp_path, MAKE_ENTRY)
    logs = tmp_path / "logs"
    r = invoke("check-bot", str(folder), "--log-dir", str(logs))
    assert r.exit_code == 0, r.output
    assert "pass  build" in r.output and "pass  game" in r.output
    [copy] = copies()
    # The copy in files/, the runner's marker beside it, where the build cannot write.
    assert (copy / FILES / "bot.py").is_file() and (copy / DONE).is_file()
    assert not (copy / FILES / DONE).exists()
    assert not (folder / "bot.py").exists()  # the bot's own folder is never written
    assert "built the entry point" in (logs / "build-built-py.log").read_text()
    done = (copy / DONE).stat().st_mtime_ns
    assert invoke("check-bot", str(folder), "--log-dir", str(logs)).exit_code == 0
    assert copies() == [copy] and (copy / DONE).stat().st_mtime_ns == done  # not rebuilt
    (folder / "play.py").write_text((folder / "play.py").read_text() + "\n# changed\n")
    assert invoke("check-bot", str(folder), "--log-dir", str(logs)).exit_code == 0
    assert len(copies()) == 2  # new content, new build


def test_a_failing_build_is_reported_with_its_log_and_leaves_no_copy(tmp_path: Path) -> None:
    folder = bot_with_build(tmp_path, "echo 'play.c:3: error: expected ;' >&2; exit 2")
    r = invoke("check-bot", str(folder), "--log-dir", str(tmp_path / "logs"))
    assert r.exit_code == 1
    flat = " ".join(r.output.split())
    assert "FAIL build" in flat and "exited with status 2" in flat
    assert "play.c:3: error: expected ;" in r.output
    assert copies() == [] and not list(cache_root().glob(".*"))


def test_a_sandboxed_build_writes_only_its_copy(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = bot_with_build(tmp_path, f"{MAKE_ENTRY}; echo x > {outside}/planted; "
                                      f"echo x > {tmp_path}/bots/built-py/planted; true")
    r = invoke("check-bot", str(folder), "--log-dir", str(tmp_path / "logs"))
    assert r.exit_code == 0, r.output
    assert list(outside.iterdir()) == [] and not (folder / "planted").exists()


def test_a_tournament_builds_its_bots_before_playing_and_reports_a_failed_build(
    tmp_path: Path,
) -> None:
    good = bot_with_build(tmp_path, MAKE_ENTRY)
    out = tmp_path / "out"
    file = write_tournament(tmp_path, "t.toml", name="builds", output=out,
                            bots=[good, example("random-py")])
    r = invoke("run", str(file), "--plain")
    assert r.exit_code == 0 and "2/2 games, complete" in r.output, r.output
    assert len(copies()) == 1
    broken = bot_with_build(tmp_path, "exit 3", name="broken-py")
    file = write_tournament(tmp_path, "t2.toml", name="builds2", output=tmp_path / "out2",
                            bots=[broken, example("random-py")])
    r = invoke("run", str(file), "--plain")
    assert r.exit_code == 2
    assert "broken-py's build (sh -c exit 3) exited with status 3" in " ".join(r.output.split())


def test_a_built_bot_still_reads_the_folders_it_needs(tmp_path: Path) -> None:
    """The built copy lives in the cache, away from the bot's folder: the folders its manifest
    ``needs`` (given relative to the bot's own folder) must still be found, and readable in the
    sandbox, when it plays from the copy."""
    shared = tmp_path / "bots" / "shared"
    shared.mkdir(parents=True)
    shutil.copy(example("random-py") / "bot.py", shared / "play.py")
    folder = tmp_path / "bots" / "built-needs"
    folder.mkdir()
    # The entry point finds the shared folder beside its own, as example bots do.
    script = ("printf 'import runpy, pathlib\\n"
              "here = pathlib.Path(__file__).resolve().parent.parent / \"shared\"\\n"
              "runpy.run_path(str(here / \"play.py\"), run_name=\"__main__\")\\n' "
              "> bot.py && echo built")
    (folder / "bot.toml").write_text(
        'name = "built-needs"\nversion = "1.0"\nlanguage = "python"\n'
        f"build = {json.dumps(['sh', '-c', script])}\n"
        'needs = ["../shared"]\ncommand = ["{python}", "bot.py"]\n', encoding="utf-8")
    r = invoke("check-bot", str(folder), "--log-dir", str(tmp_path / "logs"))
    assert r.exit_code == 0, r.output
    assert "pass  game" in r.output
    assert len(copies("built-needs")) == 1
