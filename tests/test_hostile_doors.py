"""The doors: what an entrant reaches without breaking the sandbox's walls, through what the runner
does with what a build leaves behind, what it shows a bot on its manifest's ``needs``, and what
it reads in a submitted folder. The hostile bots of ``bots/hostile`` (build-link, build-fifo,
build-deep, needs-*) and folders made here attack each door for real: the ``arena`` command in
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
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_tournament_e2e import ARENA_WITH_DICERACE, EXAMPLES

from arena.engine import Game
from arena.runner.game import build
from arena.runner.game.checkbot import check_bot
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest, ManifestError
from arena.runner.game.needs import NeedsRule
from arena.runner.game.sandbox import sandbox_problem
from arena.runner.play.config import ConfigError, load_config
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
def test_a_build_that_fills_the_disk_is_stopped_at_its_cap_and_leaves_nothing(
    organiser: Organiser, dicerace: Game, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its build writes zeros into its copy until the disk is full: the runner watches the
    disk's free space and stops it once it wrote more than a build may (a small cap here), in
    moments; the copy goes, and with it what it wrote."""
    monkeypatch.setattr(build, "BUILD_DISK_BYTES", 64 << 20)
    monkeypatch.setenv("XDG_CACHE_HOME", str(organiser.cache))
    free = shutil.disk_usage(organiser.folder).free
    checks = check_bot(HOSTILE / "build-disk", dicerace, 1, TimeControl(), organiser.folder,
                       sandbox="bwrap")
    failed = [c for c in checks if not c.passed]
    assert [c.name for c in failed] == ["build"], checks
    detail = failed[0].detail
    assert detail.startswith("hostile-build-disk's build (sh -c "), detail
    assert ("wrote more than 64 MiB to disk (a build may write at most 64 MiB, and half the "
            "free space it found), and was stopped") in detail, detail
    assert "hostile[build-disk]: filling the disk" in (
        organiser.folder / "build-hostile-build-disk.log").read_text()
    nothing_cached(organiser)
    assert shutil.disk_usage(organiser.folder).free > free - (32 << 20)  # all of it is gone


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
    checks = check_bot(bot, dicerace, 1, FAST, organiser.folder / "logs", sandbox="none",
                       entering=NeedsRule())
    assert [(c.name, c.passed) for c in checks] == [("manifest", True), ("build", False)]
    assert checks[1].detail == ("rewriter's build changed its bot.toml: a build may not "
                                "change its manifest")
    nothing_cached(organiser)


# ---------------------------------------------------------------- needs


@pytest.mark.parametrize(("bot", "entry", "why"), [
    ("needs-climb", "'../..'", "is outside"),
    ("needs-root", "'/'", "must be a path relative to the bot's folder"),
    ("needs-absolute", "'/root'", "must be a path relative to the bot's folder"),
    ("needs-journal", "'../../../leaderboards'", "is outside"),
])
def test_needs_that_climb_are_refused_before_anything_starts(
    bot: str, entry: str, why: str, organiser: Organiser,
) -> None:
    """check-bot fails the manifest naming the entry; a tournament holding the bot and a
    victim stops with one line naming the file, the bot and the entry, before any game (its
    output folder is not even made)."""
    checked = organiser.arena("check-bot", str(HOSTILE / bot), "--game", "dicerace",
                              "--log-dir", str(organiser.folder / "logs"))
    assert checked.returncode == 1
    (line,) = [line for line in checked.stdout.splitlines() if line.startswith("FAIL")]
    assert line.startswith(f"FAIL  manifest   {HOSTILE / bot / 'bot.toml'}: needs {entry}: ")
    assert why in line
    file = organiser.tournament(HOSTILE / bot, RANDOM_PY)
    run = organiser.arena("run", str(file), "--plain")
    assert run.returncode == 2
    line = one_line(run.stderr)
    assert f"{file}: 'bots[0]' {HOSTILE / bot / 'bot.toml'}: needs {entry}: " in line
    assert not (organiser.folder / "new").exists()


def spy(organiser: Organiser, where: str, needs: list[str]) -> Path:
    """A bot at ``where`` in the organiser's folder needing ``needs`` (and its own parent's
    hostile.py, to snoop with)."""
    folder = organiser.folder / where
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        f'name = "spy"\nversion = "1"\nlanguage = "python"\n'
        f'command = ["{{python}}", "bot.py"]\nneeds = {json.dumps(needs)}\n', encoding="utf-8")
    return folder


def test_needs_within_widens_the_bound_but_never_to_the_journal_or_the_seed_key(
    organiser: Organiser, dicerace: Game, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The organiser lets bots reach the whole tournament folder (``needs_within = "."``);
    still, no bot may be shown the running tournament's output folder (its journal holds every
    seed and the seed key), a folder inside it, or the seed-key file's folder. What stays
    within the bound and away from them is accepted."""
    shared = organiser.folder / "shared"
    shared.mkdir()
    allowed = spy(organiser, "bots/a/ok", ["../../../shared"])
    assert load_config(organiser.tournament(allowed, RANDOM_PY, needs_within=".")).bots[0].needs \
        == (shared.resolve(),)
    for where, needs, why in [
        ("bots/b/journal", ["../../../new"], "holds the tournament's output folder"),
        ("bots/c/games", ["../../../new/games"], "is inside the tournament's output folder"),
        ("bots/d/above", ["../../.."], "holds the tournament's output folder"),
    ]:
        (organiser.folder / "new" / "games").mkdir(parents=True, exist_ok=True)
        bot = spy(organiser, where, needs)
        with pytest.raises(ConfigError) as refused:
            load_config(organiser.tournament(bot, RANDOM_PY, needs_within="."))
        assert f"'bots[0]' {bot / 'bot.toml'}: needs {needs[0]!r}: " in str(refused.value)
        assert why in str(refused.value), str(refused.value)
    # The seed key's folder: refused wherever a manifest is read, bound or none.
    monkeypatch.setenv(KEY_FILE_ENV, str(organiser.key))
    keyed = spy(organiser, "bots/f/key", ["../../.."])
    with pytest.raises(ManifestError, match=r"needs '\.\./\.\./\.\.': .* holds the seed-key"):
        BotManifest.load(keyed)


def test_needs_within_on_the_command_line_lets_a_bot_reach_further(
    organiser: Organiser,
) -> None:
    """check-bot refuses a bot needing a folder two levels up, unless --needs-within names a
    folder holding it; the log folder is guarded all the same."""
    (organiser.folder / "shared").mkdir()
    bot = spy(organiser, "bots/a/far", ["../../../shared"])
    logs = ["--log-dir", str(organiser.tmp / "logs"), "--no-sandbox", "--game", "dicerace"]
    refused = organiser.arena("check-bot", str(bot), *logs)
    assert "FAIL  manifest" in refused.stdout and "needs '../../../shared'" in refused.stdout
    widened = organiser.arena("check-bot", str(bot), *logs, "--needs-within",
                              str(organiser.folder))
    assert "pass  manifest" in widened.stdout, widened.stdout
    guarded = organiser.arena("check-bot", str(bot), "--log-dir", str(organiser.folder / "shared"),
                              "--no-sandbox", "--game", "dicerace", "--needs-within",
                              str(organiser.folder))
    assert "FAIL  manifest" in guarded.stdout and "holds the log folder" in guarded.stdout


def test_check_bot_and_play_guard_their_log_folder_and_record(
    organiser: Organiser, dicerace: Game,
) -> None:
    """A bot whose needs hold the log folder (where other bots' logs are written) is refused
    by check-bot, and one needing the folder of play's game record by play."""
    bot = spy(organiser, "bots/reader", [".."])
    checks = check_bot(bot, dicerace, 1, FAST, organiser.folder / "bots" / "logs",
                       sandbox="none", entering=NeedsRule())
    assert [(c.name, c.passed) for c in checks] == [("manifest", False)]
    assert "needs '..': " in checks[0].detail and "holds the log folder" in checks[0].detail
    played = organiser.arena("play", "dicerace", "--bot", str(bot), "--record",
                             str(organiser.folder / "bots" / "game.json"),
                             "--log-dir", str(organiser.folder / "logs"), "--no-sandbox")
    assert played.returncode == 2
    assert "needs '..': " in one_line(played.stderr) and "holds the game record" in played.stderr


# ---------------------------------------------------------------- submitted folders


def league(organiser: Organiser) -> Path:
    folder = organiser.folder / "league"
    made = organiser.arena("league", "init", str(folder), "--game", "dicerace",
                           "--players", "2")
    assert made.returncode == 0, made.stderr
    return folder


def entrants(folder: Path) -> list[str]:
    with sqlite3.connect(folder / "journal.sqlite") as db:
        return [row[0] for row in db.execute("SELECT name FROM entrants")]


def random_entry(organiser: Organiser, name: str) -> Path:
    """random-py as an entrant hands it in, under ``name``."""
    folder = organiser.entries / name
    shutil.copytree(RANDOM_PY, folder)
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('"random-py"', f'"{name}"'))
    return folder


def test_league_add_refuses_links_out_of_the_bots_folder_in_one_line_and_keeps_links_within(
    organiser: Organiser,
) -> None:
    """A link to an absolute path and one climbing out of the folder made ``league add`` end
    in a traceback (the archive of its snapshot refused them); they are refused as the bot is
    read, one line naming the link, and nothing enters. Links within the folder (to a file, to
    a folder) are kept as links in the snapshot."""
    folder = league(organiser)
    absolute = random_entry(organiser, "abs-link")
    (absolute / "hosts").symlink_to("/etc/hosts")
    climbing = random_entry(organiser, "out-link")
    (climbing / "key").symlink_to(os.path.relpath(organiser.key, climbing))
    for bot, why in ((absolute, "hosts: is a symbolic link to the absolute path /etc/hosts"),
                     (climbing, "key: is a symbolic link to ../../organiser/seed-key, which "
                                "leads out of the bot's folders")):
        added = organiser.arena("league", "add", str(folder), str(bot))
        assert added.returncode == 2, added.stdout + added.stderr
        assert why in one_line(added.stderr)
    climbing_needs = organiser.arena("league", "add", str(folder), str(HOSTILE / "needs-climb"))
    assert climbing_needs.returncode == 2
    assert "needs '../..': " in one_line(climbing_needs.stderr)
    assert entrants(folder) == [] and not (folder / "bots").exists()

    within = random_entry(organiser, "in-links")
    (within / "sub").mkdir()
    (within / "sub" / "data.txt").write_text("x\n")
    (within / "data").symlink_to("sub/data.txt")
    (within / "folder").symlink_to("sub")
    added = organiser.arena("league", "add", str(folder), str(within))
    assert added.returncode == 0, added.stdout + added.stderr
    assert entrants(folder) == ["in-links"]
    (snapshot,) = (folder / "bots" / "in-links").glob("*/files")
    assert os.readlink(snapshot / "data") == "sub/data.txt"
    assert os.readlink(snapshot / "folder") == "sub"


def test_a_fifo_in_a_submitted_folder_is_refused_not_read(organiser: Organiser) -> None:
    """Reading the folder for its digest opened the FIFO and waited for ever (league add, a
    build's key); it is refused in one line as the bot is read."""
    folder = league(organiser)
    bot = random_entry(organiser, "with-fifo")
    os.mkfifo(bot / "pipe")
    added = organiser.arena("league", "add", str(folder), str(bot))
    assert added.returncode == 2
    assert f"{bot / 'pipe'}: is a FIFO (named pipe)" in one_line(added.stderr)
    assert entrants(folder) == []
    checked = organiser.arena("check-bot", str(bot), "--game", "dicerace",
                              "--log-dir", str(organiser.folder / "logs"), "--no-sandbox")
    assert checked.returncode == 1 and "FAIL  manifest" in checked.stdout
    assert "pipe: is a FIFO (named pipe)" in checked.stdout


def test_a_manifest_that_is_a_link_to_an_organiser_file_is_not_read(
    organiser: Organiser,
) -> None:
    """bot.toml as a link to the organiser's tournament file: read by the runner (as root:
    any file) and its values echoed in the error; now refused unread."""
    (organiser.folder / "t.toml").write_text('name = "the organiser\'s secret"\n')
    bot = organiser.entries / "linked"
    bot.mkdir()
    (bot / "bot.toml").symlink_to(organiser.folder / "t.toml")
    checked = organiser.arena("check-bot", str(bot), "--game", "dicerace",
                              "--log-dir", str(organiser.folder / "logs"))
    assert checked.returncode == 1
    assert "is a symbolic link, not a file of its own" in checked.stdout
    assert "secret" not in checked.stdout
