"""The committed tournament files say what they do, and a file's results go where a user looks
for them: the demo's bots all play by the rules, the faulty-bot example fails each faulty bot
the way its comments say, every example writes under the repository's leaderboards/ whatever
the current directory, and a file without `output` writes beside itself. Real `arena run`
processes for the two examples a newcomer runs first."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_tournament_e2e import read_journal, signals_kept
from typer.testing import CliRunner

from arena.cli.main import app
from arena.runner.play.config import load_config

ROOT = Path(__file__).resolve().parent.parent
TOURNAMENTS = ROOT / "tournaments"
LEADERBOARDS = ROOT / "leaderboards"
#: Where the bots that misbehave on purpose live.
MISBEHAVING = (ROOT / "bots" / "faulty", ROOT / "bots" / "hostile")


def run(file: Path, out: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`arena run FILE --plain` into ``out``, from ``cwd``."""
    return subprocess.run([sys.executable, "-m", "arena", "run", str(file), "--plain",
                           "--output", str(out)], cwd=cwd, capture_output=True, text=True,
                          timeout=180)


def test_the_demo_is_the_round_robin_example_and_every_bot_in_it_plays_without_a_failure(
    tmp_path: Path,
) -> None:
    """The first tournament a newcomer sees (./demo, the README's first `arena run`) shows
    bots playing: none of its bots misbehaves on purpose, and none fails a game."""
    demo = (ROOT / "demo").read_text(encoding="utf-8")
    assert re.search(r"^exec .*arena run tournaments/round-robin\.toml ", demo, re.MULTILINE)
    assert "arena run tournaments/round-robin.toml" in (ROOT / "README.md").read_text()
    file = TOURNAMENTS / "round-robin.toml"
    config = load_config(file)
    for bot in config.bots:
        assert not any(bot.folder.is_relative_to(bad) for bad in MISBEHAVING), bot.folder

    r = run(file, tmp_path / "out", tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "24/24 games, complete" in r.stdout and "failures: none" in r.stdout
    standings = json.loads((tmp_path / "out" / "standings.json").read_text())["standings"]
    assert {b["name"] for b in standings["bots"]} == set(config.bot_names)
    assert all(not any(b["failures"].values()) for b in standings["bots"]), standings


def comments_table(file: Path) -> dict[str, str]:
    """The faulty-bot example's comment lines ``#   <bot>  <what it does>  <reason>``: each
    faulty bot's folder name and the termination reason the comments promise for it."""
    rows = re.findall(r"^#   (\S+)\s{2,}.+?\s{2,}(\w+)", file.read_text(encoding="utf-8"),
                      re.MULTILINE)
    return dict(rows)


def test_the_faulty_bot_example_fails_each_faulty_bot_as_its_comments_say(tmp_path: Path) -> None:
    """tournaments/faulty-bots.toml, named in the README: each faulty bot fails every game it
    plays with the termination reason the file's comments give it, and the well-behaved bots
    fail none."""
    file = TOURNAMENTS / "faulty-bots.toml"
    assert "tournaments/faulty-bots.toml" in (ROOT / "README.md").read_text(encoding="utf-8")
    promised = comments_table(file)
    config = load_config(file)
    faulty = {b.name: b.folder.name for b in config.bots
              if b.folder.is_relative_to(MISBEHAVING[0])}
    assert sorted(faulty.values()) == sorted(promised), (faulty, promised)

    r = run(file, tmp_path / "out", tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "16/16 games, complete" in r.stdout
    journal = read_journal(tmp_path / "out")
    seen: dict[str, set[str]] = {name: set() for name in config.bot_names}
    for gid, result in journal.results.items():
        bots = json.loads(journal.pairings[gid]["bots"])
        for bot, reason in zip(bots, json.loads(result["terminations"]), strict=True):
            seen[bot].add(reason)
    for name, folder in faulty.items():
        assert seen[name] == {promised[folder]}, (name, seen[name])
    for name in set(config.bot_names) - set(faulty):
        assert seen[name] == {"ok"}, (name, seen[name])


def test_every_example_writes_under_the_repositorys_leaderboards_wherever_it_is_run_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Run from anywhere, a committed tournament file writes in leaderboards/ of the
    repository: into its committed leaderboard, or into a folder git ignores."""
    monkeypatch.chdir(tmp_path)
    ignored = [line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()]
    assert "leaderboards/example-*/" in ignored
    files = sorted(TOURNAMENTS.glob("*.toml"))
    assert TOURNAMENTS / "faulty-bots.toml" in files
    for file in files:
        output = load_config(file).output.resolve()
        assert output.parent == LEADERBOARDS, (file.name, output)
        assert (output / "standings.json").is_file() or output.name.startswith("example-"), \
            file.name


def test_without_output_results_go_beside_the_file_whatever_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file that sets no `output` writes to leaderboards/<name> in its own folder, not under
    the current directory; `arena run --help` says so."""
    cups = tmp_path / "cups"
    cups.mkdir()
    file = cups / "spring.toml"
    file.write_text(
        'name = "spring"\ngame = "stoneage"\nformat = "round-robin"\nplayers = 2\nseed = 4\n'
        'concurrency = 1\nsandbox = "none"\n\n'
        f'[[bots]]\npath = "{ROOT / "bots/examples/random-py"}"\n\n'
        f'[[bots]]\npath = "{ROOT / "bots/examples/greedy-py"}"\n', encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert load_config(file).output.resolve() == cups / "leaderboards" / "spring"
    assert load_config(Path("../cups/spring.toml")).output.resolve() == \
        cups / "leaderboards" / "spring"

    with signals_kept():
        r = CliRunner().invoke(app, ["run", str(file), "--plain"])
    assert r.exit_code == 0, r.output
    assert (cups / "leaderboards" / "spring" / "standings.json").is_file()
    assert not (elsewhere / "leaderboards").exists()

    help_text = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output
    assert "leaderboards/NAME in the folder holding the file" in " ".join(help_text.split())
