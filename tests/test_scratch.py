"""Private folders that a process killed outright does not leave for good: each is locked by
the process that made it, and the next process that makes one sweeps those whose maker is gone
(:mod:`arena.protocol.scratch`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.protocol import scratch

PREFIX = "arena-test-scratch-"

#: A process that makes a private folder, says where, then waits to be stopped.
MAKER = """
import sys, time
from arena.protocol import scratch
print(scratch.private_folder(sys.argv[1], sys.argv[2]), flush=True)
time.sleep(60)
"""


def start_maker(parent: Path) -> tuple[subprocess.Popen[str], Path]:
    proc = subprocess.Popen([sys.executable, "-c", MAKER, PREFIX, str(parent)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def test_a_killed_makers_folder_is_swept_and_a_living_ones_is_not(tmp_path: Path) -> None:
    dead, dead_folder = start_maker(tmp_path)
    alive, alive_folder = start_maker(tmp_path)
    try:
        (dead_folder / "d1").mkdir()
        (dead_folder / "d1" / "arena.sock").write_text("")
        os.kill(dead.pid, signal.SIGKILL)  # no clean-up runs
        dead.wait(10)
        assert dead_folder.is_dir()
        assert scratch.sweep(str(tmp_path), PREFIX) == [str(dead_folder)]
        assert not dead_folder.exists()
        assert (alive_folder / scratch.LOCK_NAME).is_file()
        assert scratch.sweep(str(tmp_path), PREFIX) == []
    finally:
        alive.kill()
        alive.wait(10)
    assert scratch.sweep(str(tmp_path), PREFIX) == [str(alive_folder)]


def test_a_folder_is_removed_by_its_maker_and_its_own_is_never_swept(tmp_path: Path) -> None:
    path = scratch.private_folder(PREFIX, str(tmp_path))
    try:
        assert os.stat(path).st_mode & 0o777 == 0o700
        assert sorted(os.listdir(path)) == [scratch.LOCK_NAME]
        assert scratch.sweep(str(tmp_path), PREFIX) == []
    finally:
        scratch.remove(path)
    assert not os.path.exists(path)
    assert path not in scratch._held


def test_a_folder_without_a_lock_is_swept_only_once_it_is_old(tmp_path: Path) -> None:
    """Its maker may be between making it and locking it, or be a version without locks."""
    young, old = tmp_path / f"{PREFIX}young", tmp_path / f"{PREFIX}old"
    young.mkdir()
    old.mkdir()
    (old / "d1").mkdir()
    an_hour_ago = time.time() - scratch.GRACE_S - 5
    os.utime(old, (an_hour_ago, an_hour_ago))
    assert scratch.sweep(str(tmp_path), PREFIX) == [str(old)]
    assert young.is_dir() and not old.exists()


def test_what_is_not_such_a_folder_is_left_alone(tmp_path: Path) -> None:
    """Another prefix, a file, a link to a folder, and a lock file that is a link: a sweeper
    follows no link and removes nothing it cannot tell is abandoned."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious").write_text("x")
    other = tmp_path / "other-prefix"
    other.mkdir()
    (tmp_path / f"{PREFIX}file").write_text("x")
    (tmp_path / f"{PREFIX}link").symlink_to(elsewhere)
    linked = tmp_path / f"{PREFIX}linked-lock"
    linked.mkdir()
    (linked / scratch.LOCK_NAME).symlink_to(elsewhere / "precious")
    long_ago = time.time() - 10 * scratch.GRACE_S
    for path in (other, elsewhere, linked):
        os.utime(path, (long_ago, long_ago))
    assert scratch.sweep(str(tmp_path), PREFIX) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["elsewhere", "other-prefix", f"{PREFIX}file", f"{PREFIX}link", f"{PREFIX}linked-lock"])
    assert (elsewhere / "precious").read_text() == "x"


def test_a_process_sweeps_a_prefix_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(scratch, "sweep", lambda parent, prefix: calls.append((parent, prefix)))
    monkeypatch.setattr(scratch, "_swept", set())
    made = [scratch.private_folder(PREFIX, str(tmp_path)) for _ in range(3)]
    try:
        assert calls == [(str(tmp_path), PREFIX)]
        assert len(set(made)) == 3
    finally:
        for path in made:
            scratch.remove(path)
