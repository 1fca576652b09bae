"""The committed tournament files say what they do: the demo's bots all play by the rules, and
the faulty-bot example fails each faulty bot the way its comments say. Real `arena run`
processes for the two examples a newcomer runs first."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from test_tournament_e2e import read_journal

from arena.runner.config import load_config

ROOT = Path(__file__).resolve().parent.parent
TOURNAMENTS = ROOT / "tournaments"
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
