"""The doors: what an entrant reaches without breaking the sandbox's walls, through what the runner
does with what a build leaves behind. The hostile bots of ``bots/hostile`` (build-link,
build-fifo, build-deep) and folders made here attack each door for real: the ``arena`` command in
a process of its own under a timeout (a regression fails, never hangs), builds in the real
sandbox, real files and a real league journal. For each: no file of the organiser's changes
(compared byte for byte), nothing hangs, the attack is refused with one line naming what it
did, and a tournament holding the attacker is refused before any game.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_tournament_e2e import ARENA_WITH_DICERACE, EXAMPLES

from arena.engine import Game
from arena.runner.checkbot import check_bot
from arena.runner.clock import TimeControl
from arena.runner.sandbox import sandbox_problem
from arena.seeds import KEY_FILE_ENV, new_seed_key, seed_key_to_text

PROBLEM = sandbox_problem()
sandboxed = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")

HOSTILE = EXAMPLES.parent / "hostile"
RANDOM_PY = EXAMPLES / "random-py"
#: The longest any command here may take: a hang fails the test instead of stopping the suite.
TIMEOUT_S = 60.0
FAST = TimeControl(handshake_ms=10_000, decision_ms=2_000, bank_ms=30_000)


@dataclass
class Organiser:
    """An organiser's machine, in the test's folder: a seed key, a running tournament's journal
    and file, Arena's caches, and the entrants' folders, apart."""

    tmp: Path
    folder: Path  #: the organiser's own files
    key: Path
    journal: Path
    cache: Path
    entries: Path  #: where entrants' folders are put

    def files(self) -> dict[Path, bytes]:
        return {p: p.read_bytes() for p in (self.key, self.journal)}

    def env(self) -> dict[str, str]:
        return {**os.environ, KEY_FILE_ENV: str(self.key), "XDG_CACHE_HOME": str(self.cache)}

    def arena(self, *args: str) -> subprocess.CompletedProcess[str]:
        """An ``arena`` command (Dice Race registered) in a process group of its own, killed
        whole if it outlives :data:`TIMEOUT_S`, which fails the test."""
        proc = subprocess.Popen([sys.executable, "-c", ARENA_WITH_DICERACE, *args],
                                cwd=self.tmp, env=self.env(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            pytest.fail(f"arena {' '.join(args)} hung for more than {TIMEOUT_S:.0f} s")
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    def entry(self, bot: str) -> Path:
        """A copy of the hostile bot ``bot`` as an entrant hands it in."""
        folder = self.entries / bot
        shutil.copytree(HOSTILE / bot, folder)
        return folder

    def tournament(self, *bots: Path, **fields: str) -> Path:
        """A Dice Race tournament file of the organiser's with these bots, its output in
        ``new`` (another than the running tournament's)."""
        file = self.folder / "t.toml"
        lines = ['name = "doors"', 'game = "dicerace"', 'format = "round-robin"',
                 "players = 2", "seed = 3", 'output = "new"',
                 *(f"{k} = {json.dumps(v)}" for k, v in fields.items()),
                 *(f"[[bots]]\npath = {json.dumps(str(b))}" for b in bots)]
        file.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return file


@pytest.fixture
def organiser(tmp_path: Path) -> Organiser:
    folder = tmp_path / "organiser"
    (folder / "out").mkdir(parents=True)
    key = folder / "seed-key"
    key.write_text(seed_key_to_text(new_seed_key()) + "\n", encoding="ascii")
    journal = folder / "out" / "journal.sqlite"
    journal.write_bytes(b"SQLite format 3\x00" + bytes(range(256)))
    entries = tmp_path / "entries"
    entries.mkdir()
    return Organiser(tmp_path, folder, key, journal, tmp_path / "cache", entries)


def one_line(text: str) -> str:
    """The one line of an error message (no traceback, nothing else)."""
    lines = text.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in text, text
    return lines[0]


def nothing_cached(organiser: Organiser) -> None:
    """No built copy kept, and no work folder of a build left behind."""
    builds = organiser.cache / "arena" / "builds"
    assert not builds.exists() or list(builds.iterdir()) == [], list(builds.iterdir())


# ---------------------------------------------------------------- builds


@sandboxed
def test_a_build_that_leaves_the_marker_as_a_link_to_the_seed_key_overwrites_nothing(
    organiser: Organiser,
) -> None:
    """The build leaves ``.arena-built`` and ``.arena-unpacked`` as relative links to the
    organiser's seed key. The runner writes its marker beside the copy, not in it, and refuses
    a copy with links out of the bot's folders: check-bot fails the build naming the link,
    ``play`` refuses the bot, a tournament holding it and a victim stops before any game,
    and the key is what it was."""
    bot = organiser.entry("build-link")
    (bot / "targets.txt").write_text(f"{organiser.key}\n", encoding="utf-8")
    before = organiser.files()

    checked = organiser.arena("check-bot", str(bot), "--game", "dicerace",
                              "--log-dir", str(organiser.folder / "logs"))
    assert checked.returncode == 1, checked.stdout
    failed = [line for line in checked.stdout.splitlines() if line.startswith("FAIL")]
    assert len(failed) == 1 and failed[0].startswith("FAIL  build"), checked.stdout
    assert ".arena-built is a symbolic link to ../" in failed[0]
    assert f"leads out of the bot's folders (to {organiser.key})" in failed[0]
    log = (organiser.folder / "logs" / "build-hostile-build-link.log").read_text()
    assert "hostile[build-link]: left .arena-built -> ../" in log  # the attack was made

    played = organiser.arena("play", "dicerace", "--bot", str(bot),
                             "--log-dir", str(organiser.folder / "logs"))
    assert played.returncode == 2
    assert "hostile-build-link's build left what no bot's folder may hold: .arena-built" in (
        one_line(played.stderr))

    file = organiser.tournament(bot, RANDOM_PY)
    run = organiser.arena("run", str(file), "--plain")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "hostile-build-link's build left" in run.stdout + run.stderr
    assert not list((organiser.folder / "new").glob("games/*"))  # no game was played

    assert organiser.files() == before
    nothing_cached(organiser)


@sandboxed
def test_a_build_that_leaves_the_marker_as_a_fifo_hangs_nothing(organiser: Organiser) -> None:
    """A FIFO where the runner once wrote its marker made check-bot and play wait for ever:
    now each fails the build in seconds, naming the FIFO."""
    bot = organiser.entry("build-fifo")
    checked = organiser.arena("check-bot", str(bot), "--game", "dicerace",
                              "--log-dir", str(organiser.folder / "logs"))
    assert checked.returncode == 1, checked.stdout
    assert ("FAIL  build      hostile-build-fifo's build left what no bot's folder may hold: "
            ".arena-built is a FIFO (named pipe)") in checked.stdout
    played = organiser.arena("play", "dicerace", "--bot", str(bot),
                             "--log-dir", str(organiser.folder / "logs"))
    assert played.returncode == 2 and ".arena-built is a FIFO" in one_line(played.stderr)
    nothing_cached(organiser)


@sandboxed
def test_a_build_that_nests_thousands_of_folders_ends_in_one_line(
    organiser: Organiser,
) -> None:
    """3000 folders, each in the one before, are past any walk the runner makes (and past
    Python's recursion): the walk that gives the copy back stops at its bound, the build
    fails naming it, and the copy is removed however deep it is."""
    checked = organiser.arena("check-bot", str(HOSTILE / "build-deep"), "--game", "dicerace",
                              "--log-dir", str(organiser.folder / "logs"))
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "Traceback" not in checked.stdout + checked.stderr
    assert ("FAIL  build      hostile-build-deep's build left what no bot's folder may hold: "
            "its copy holds folders nested more than 64 deep") in checked.stdout
    nothing_cached(organiser)


def test_a_build_may_not_change_its_manifest(organiser: Organiser, dicerace: Game,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A build that rewrites bot.toml in its copy (to need more, say, for a runner that reads
    the copy's manifest again) is refused, sandboxed or not."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(organiser.cache))
    bot = organiser.entries / "rewriter"
    bot.mkdir()
    manifest = ('name = "rewriter"\nversion = "1"\nlanguage = "sh"\ncommand = ["true"]\n'
                'build = ["sh", "-c", "echo \'needs = [\\"/\\"]\' >> bot.toml"]\n')
    (bot / "bot.toml").write_text(manifest, encoding="utf-8")
    checks = check_bot(bot, dicerace, 1, FAST, organiser.folder / "logs", sandbox="none")
    assert [(c.name, c.passed) for c in checks] == [("manifest", True), ("build", False)]
    assert checks[1].detail == ("rewriter's build changed its bot.toml: a build may not "
                                "change its manifest")
    nothing_cached(organiser)
