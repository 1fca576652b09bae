"""Folders the runner did not write (arena.runner.game.trees): read without following a link or
opening a FIFO, walked within bounds, removed however deep, and checked for what no bot's folder
may hold. Real files; each test as an entrant or a build would lay the folder out."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from arena.runner.game.trees import (
    LINK,
    SPECIAL,
    TreeError,
    WalkLimits,
    check_program,
    read_small,
    remove_tree,
    walk,
)


def nest(folder: Path, depth: int) -> Path:
    """``depth`` folders, each in the one before, in ``folder``; the deepest."""
    os.makedirs(folder, exist_ok=True)
    here = os.open(folder, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=here)
        below = os.open("d", os.O_RDONLY, dir_fd=here)
        os.close(here)
        here = below
    os.close(here)
    return folder


def test_a_fifo_is_listed_never_opened_and_reading_one_or_a_link_is_refused_at_once(
    tmp_path: Path,
) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "secret").write_text("organiser's\n")
    (tmp_path / "link").symlink_to(tmp_path / "secret")
    [top] = list(walk(tmp_path))
    kinds = {e.name: e.kind for e in top.entries}
    assert kinds == {"pipe": SPECIAL, "secret": "file", "link": LINK}
    outcome: list[str] = []

    def read(name: str) -> None:
        try:
            read_small(tmp_path / name, 100)
        except TreeError as exc:
            outcome.append(exc.why)

    for name in ("pipe", "link"):
        reader = threading.Thread(target=read, args=(name,), daemon=True)
        reader.start()
        reader.join(5.0)
        assert not reader.is_alive(), f"reading {name} blocked"
    assert outcome == ["is a FIFO (named pipe), not a file",
                       "is a symbolic link, not a file of its own"]


def test_a_walk_never_enters_a_linked_folder_and_stops_at_its_bounds(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    tree = tmp_path / "tree"
    (tree / "real").mkdir(parents=True)
    (tree / "to-outside").symlink_to(outside)
    assert [f.path for f in walk(tree)] == ["", "real"]
    for name in range(10):
        (tree / "real" / f"f{name}").touch()
    with pytest.raises(TreeError, match="holds more than 8 entries"):
        list(walk(tree, WalkLimits(entries=8)))
    nest(tree / "real", 5)
    with pytest.raises(TreeError, match="holds folders nested more than 4 deep"):
        list(walk(tree, WalkLimits(depth=4)))


def test_a_tree_deeper_than_any_recursion_is_removed_and_no_link_in_it_followed(
    tmp_path: Path,
) -> None:
    """shutil.rmtree raised RecursionError on a build's copy nested 3000 deep."""
    kept = tmp_path / "organiser"
    kept.mkdir()
    (kept / "journal.sqlite").write_text("kept\n")
    tree = nest(tmp_path / "copy", 3000)
    (tree / "to-organiser").symlink_to(kept)
    os.mkfifo(tree / "pipe")
    remove_tree(tree)
    assert not tree.exists()
    assert (kept / "journal.sqlite").read_text() == "kept\n"


def test_a_link_is_judged_where_the_kernel_takes_it_not_by_its_text(tmp_path: Path) -> None:
    """``up`` leads to the bot's folder itself, so ``up/../secret`` reads as ``secret`` but
    leads to the folder above; links within stay allowed, dangling ones too."""
    bot = tmp_path / "bot"
    (bot / "sub").mkdir(parents=True)
    (tmp_path / "secret").write_text("organiser's\n")
    (bot / "sub" / "data").write_text("x\n")
    (bot / "data").symlink_to("sub/data")
    (bot / "later").symlink_to("sub/not-yet")
    (bot / "up").symlink_to(".")
    check_program([bot])
    (bot / "sneak").symlink_to("up/../secret")
    with pytest.raises(TreeError, match=r"sneak: is a symbolic link to up/\.\./secret, which "
                                        r"leads out of the bot's folders"):
        check_program([bot])
