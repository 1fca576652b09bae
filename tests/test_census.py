"""What a sandboxed bot can learn of the host: the hostile census (``bots/hostile/census``)
logs everything it finds from inside a real sandbox, in a real game, and this test holds what
it found to the README's security model (Sandbox and security, "What a bot can learn of the
host").

The census runs from a temporary folder of the test's, with a folder it needs beside its own,
so that the runner's temporary folders, the repository, the virtual environment and the
user's home are all places it must not name. Skipped, with the reason, where bwrap cannot
start a sandbox.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest
from test_hostile import RANDOM_PY, log_of, reasons, said, sandboxed_game

from arena.engine import Game
from arena.runner.game.checkbot import check_bot
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.sandbox import (
    BOT_USER,
    HOSTNAME,
    INSIDE_BOT,
    INSIDE_ENDPOINT_DIR,
    etc_shown,
    sandbox_problem,
)
from arena.runner.game.sandbox_python import INSIDE_ARENA, python_view

PROBLEM = sandbox_problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")

ROOT = Path(__file__).resolve().parent.parent
CENSUS = ROOT / "bots" / "hostile" / "census"
FAST = TimeControl(handshake_ms=10_000, decision_ms=2_000, bank_ms=30_000)
#: The file systems the kernel makes for the sandbox itself (its root, /tmp, /proc, /dev):
#: their mounts name no host folder.
KERNEL_MOUNTS = {"tmpfs", "proc", "devtmpfs", "devpts", "mqueue", "sysfs"}
#: The variables a bot's environment may hold (README: "a clean environment").
ENVIRONMENT = {"ARENA_ENDPOINT", "ARENA_TOKEN", "ARENA_PROTOCOL", "ARENA_SEED", "PATH", "HOME",
               "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "LD_LIBRARY_PATH",
               "PWD"}


def census_beside_a_folder_it_needs(tmp_path: Path) -> Path:
    """A copy of the census in ``tmp_path/organiser/bots/census``, needing ``../lib``."""
    folder = tmp_path / "organiser" / "bots" / "census"
    folder.mkdir(parents=True)
    shutil.copy(CENSUS / "bot.py", folder)
    (folder.parent / "lib").mkdir()
    (folder.parent / "lib" / "shared.txt").write_text("shared\n", encoding="utf-8")
    manifest = (CENSUS / "bot.toml").read_text(encoding="utf-8") + 'needs = ["../lib"]\n'
    (folder / "bot.toml").write_text(manifest, encoding="utf-8")
    return folder


def host_paths(tmp_path: Path) -> list[str]:
    """What the bot must not name: the repository, the virtual environment, the Python it was
    made from (if outside /usr), the test's and the runner's temporary folders, and anything
    in the user's home."""
    paths = [str(ROOT), sys.prefix, str(tmp_path), os.path.join(tempfile.gettempdir(), "arena-"),
             str(Path.home()) + "/"]
    base = Path(os.path.realpath(sys.base_prefix))
    return paths + ([] if base.is_relative_to("/usr") else [str(base)])


def mounts(lines: list[str]) -> list[tuple[str, str, str]]:
    """(source folder as the kernel names it, mount point, file system) of each mountinfo
    line (``ID PARENT MAJOR:MINOR ROOT POINT OPTIONS ... - FSTYPE SOURCE ...``)."""
    found = []
    for line in lines:
        before, after = line.split(" - ", 1)
        fields = before.split()
        found.append((fields[3], fields[4], after.split()[0]))
    return found


def shown_sources(folder: Path) -> dict[str, str]:
    """{host folder or file: why it is shown} of every bind the README lists: the system's
    trees and /etc files, {python}'s runtime, and the bot's folder and the folder it needs."""
    shown = {"/usr": "system"}
    shown.update({str(p): "system" for p in map(Path, ("/bin", "/sbin", "/lib", "/lib32",
                                                        "/lib64"))
                  if p.is_dir() and not p.is_symlink()})
    shown.update({os.path.realpath(path): "etc" for path in etc_shown()})
    shown.update({source: "runtime" for source, _ in python_view().binds})
    shown.update({str(folder): "bot", str(folder.parent / "lib"): "bot"})
    return shown


def test_the_census_names_no_host_folder_but_its_mounts_sources_and_learns_what_is_listed(
    dicerace: Game, tmp_path: Path,
) -> None:
    folder = census_beside_a_folder_it_needs(tmp_path)
    played = sandboxed_game(dicerace, [BotManifest.load(folder), BotManifest.load(RANDOM_PY)],
                            tmp_path / "logs")
    assert reasons(played.record) == ["ok", "ok"], played.record.terminations
    lines = said(log_of(tmp_path / "logs", "hostile-census"), "census")
    assert lines[-1] == "census done", lines[-5:]
    seen: dict[str, list[str]] = defaultdict(list)
    for line in lines:
        what, _, value = line.partition(" ")
        seen[what].append(value)

    # No host path anywhere (its command lines, working directory, environment, /etc, what
    # its Python says, every folder it can list), but in the sources of its mounts.
    hidden = host_paths(tmp_path)
    named = [line for line in lines if not line.startswith("mountinfo ")
             and any(path in line for path in hidden)]
    assert not named, named
    assert seen["cwd"] == [f"{INSIDE_BOT}/census"]  # laid out as on the host: census, lib
    assert seen["cmdline"] == [f"{python_view().program} bot.py"]
    assert seen["init-cmdline"][0].endswith(seen["cmdline"][0])
    assert "--ro-bind" not in seen["init-cmdline"][0]
    system = [n for n in ("bin", "sbin", "lib", "lib32", "lib64") if os.path.lexists(f"/{n}")]
    assert seen["listing"][0].split() == ["/:", *sorted([
        *system, "usr", "etc", "proc", "dev", "tmp", "run", INSIDE_BOT[1:], INSIDE_ARENA[1:]])]
    assert f"{INSIDE_BOT}: census lib" in seen["listing"]
    env = dict(v.split("=", 1) for v in seen["env"])
    assert set(env) <= ENVIRONMENT
    program = python_view().program  # its python on PATH is the one it runs on
    assert program.startswith("/usr/") or env["PATH"].startswith(f"{Path(program).parent}:")

    # Its own host name and accounts: root, itself and nobody; localhost.
    assert seen["hostname"] == [HOSTNAME]
    sysname, nodename, release, *_ = seen["uname"][0].split()
    assert nodename == HOSTNAME
    uid = seen["id"][0].split()[0]
    for name, others in (("passwd", "nobody"), ("group", "nogroup")):
        names = [entry.split(":")[0] for entry in seen[name]]  # (nobody's id may be its own)
        assert names[:2] == ["root", BOT_USER] and names[2:] in ([], [others]), names
    assert f"uid={seen['passwd'][1].split(':')[2]}" == uid
    assert all(entry.split()[0] in ("127.0.0.1", "::1") for entry in seen["hosts"])

    # What is left, as the README lists it: the kernel's release, the boot id and the load
    # of the machine; the referee's user id (its pid is outside the bot's namespace) ...
    assert (sysname, release) == (os.uname().sysname, os.uname().release)
    boot_id = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert seen["boot-id"] == [boot_id]
    assert len(seen["loadavg"][0].split()) == 5
    assert seen["peer"] == [f"pid=0 uid={os.getuid()} gid={os.getgid()}"]
    # ... and the host folders bound into the sandbox, which mountinfo names: each a source
    # the README lists, and every one of those shown, at a neutral mount point.
    shown = shown_sources(folder)
    found: dict[str, str] = {}
    for source, point, fstype in mounts(seen["mountinfo"]):
        if fstype in KERNEL_MOUNTS:
            continue
        if point == INSIDE_ENDPOINT_DIR:
            found[source] = "endpoint"
            continue
        why = [w for s, w in shown.items() if s == source or s.endswith(source)]
        assert why, f"{source} is bound at {point}, and the README does not list it"
        found[source] = why[0]
        assert not any(path in point for path in hidden), point
    assert sorted(found.values()) == sorted([*shown.values(), "endpoint"]), found


def test_check_bot_passes_the_census(dicerace: Game, tmp_path: Path) -> None:
    """It only reads: nothing it does shows outside its sandbox."""
    checks = check_bot(CENSUS, dicerace, 1, FAST, tmp_path, sandbox="bwrap")
    assert all(c.passed for c in checks), checks
    assert "census done" in said(log_of(tmp_path, "hostile-census"), "census")
