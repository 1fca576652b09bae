"""Bots shipped to a cluster's workers (arena.runner.cluster.shipping): packed on the organiser's
machine, unpacked once per package on a worker, complete or not at all, with their modes and the
folders they need."""

from __future__ import annotations

import io
import os
import shutil
import stat
import tarfile
import threading
from pathlib import Path

import pytest
from test_tournament_e2e import EXAMPLES

from arena.runner.cluster.shipping import ShippingError, pack, unpack, unpacked
from arena.runner.game.digest import package_key
from arena.runner.game.manifest import BotManifest


def a_bot(folder: Path, name: str = "exec-bot") -> Path:
    """A bot whose command is an executable script of its own folder."""
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\nlanguage = "sh"\ncommand = ["./start", "{{python}}"]\n',
        encoding="utf-8")
    start = folder / "start"
    start.write_text('#!/bin/sh\nexec "$1" -c "print(42)"\n', encoding="utf-8")
    start.chmod(0o755)
    (folder / "data.txt").write_text("plain\n", encoding="utf-8")
    (folder / "data.txt").chmod(0o644)
    (folder / "sub").mkdir()
    (folder / "sub" / "nested.txt").write_text("deep\n", encoding="utf-8")
    return folder


def test_an_executable_file_arrives_executable_and_the_rest_as_it_was(tmp_path: Path) -> None:
    bot = BotManifest.load(a_bot(tmp_path / "src" / "exec-bot"))
    package = pack(bot)
    files = unpack(tmp_path / "cache", package.key, package.data)
    there = files / package.folder
    assert stat.S_IMODE((there / "start").stat().st_mode) == 0o755
    assert os.access(there / "start", os.X_OK)
    assert stat.S_IMODE((there / "data.txt").stat().st_mode) == 0o644
    assert (there / "sub" / "nested.txt").read_text(encoding="utf-8") == "deep\n"
    assert BotManifest.load(there).command == bot.command
    # The sandbox's bot, a user of its own under root, can read its way in.
    for folder in (files.parent, files, there):
        assert stat.S_IMODE(folder.stat().st_mode) & 0o005 == 0o005, folder


def test_the_folders_a_bot_needs_arrive_beside_it(tmp_path: Path) -> None:
    """mcts-py needs ../greedy-py: unpacked, its manifest finds greedy-py inside the package."""
    mcts = BotManifest.load(EXAMPLES / "mcts-py")
    package = pack(mcts)
    assert package.folder == "mcts-py"
    files = unpack(tmp_path / "cache", package.key, package.data)
    there = BotManifest.load(files / package.folder)
    assert there.needs == ((files / "greedy-py").resolve(),)
    assert (files / "greedy-py" / "policy.py").read_bytes() == (
        EXAMPLES / "greedy-py" / "policy.py").read_bytes()


def test_a_changed_bot_gets_a_new_key_and_a_folder_of_its_own(tmp_path: Path) -> None:
    folder = a_bot(tmp_path / "src" / "exec-bot")
    first = pack(BotManifest.load(folder))
    assert package_key(BotManifest.load(folder)) == first.key  # the same files, the same key
    (folder / "data.txt").write_text("changed\n", encoding="utf-8")
    second = pack(BotManifest.load(folder))
    assert second.key != first.key
    cache = tmp_path / "cache"
    old, new = (unpack(cache, p.key, p.data) for p in (first, second))
    assert old != new
    assert first.folder == second.folder == "."  # needing nothing, the bot is the package
    assert (old / "data.txt").read_text(encoding="utf-8") == "plain\n"
    assert (new / "data.txt").read_text(encoding="utf-8") == "changed\n"


def test_the_same_files_laid_out_otherwise_get_another_key(tmp_path: Path) -> None:
    """Where the needed folder sits is part of the program (its manifest finds it there)."""
    for place in ("a", "b"):
        shutil.copytree(EXAMPLES / "greedy-py", tmp_path / place / "greedy-py")
        shutil.copytree(EXAMPLES / "mcts-py", tmp_path / place / "x" / "mcts-py")
        manifest = tmp_path / place / "x" / "mcts-py" / "bot.toml"
        manifest.write_text(manifest.read_text(encoding="utf-8").replace(
            '"../greedy-py"', '"../../greedy-py"'), encoding="utf-8")
    (tmp_path / "b" / "x").rename(tmp_path / "b" / "y")
    keys = {package_key(BotManifest.load(tmp_path / p / x / "mcts-py"))
            for p, x in (("a", "x"), ("b", "y"))}
    assert len(keys) == 2


def test_byte_code_caches_stay_behind_and_links_stay_links(tmp_path: Path) -> None:
    folder = a_bot(tmp_path / "src" / "exec-bot")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"junk")
    (folder / "stray.pyc").write_bytes(b"junk")
    (folder / "link.txt").symlink_to("data.txt")
    package = pack(BotManifest.load(folder))
    there = unpack(tmp_path / "cache", package.key, package.data) / package.folder
    assert not (there / "__pycache__").exists() and not (there / "stray.pyc").exists()
    assert (there / "link.txt").is_symlink() and os.readlink(there / "link.txt") == "data.txt"


def test_a_package_is_unpacked_once_whoever_asks_at_the_same_time(tmp_path: Path) -> None:
    package = pack(BotManifest.load(a_bot(tmp_path / "src" / "exec-bot")))
    cache = tmp_path / "cache"
    assert unpacked(cache, package.key) is None
    got: list[Path] = []
    threads = [threading.Thread(target=lambda: got.append(unpack(cache, package.key,
                                                                 package.data)))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(got)) == 1 and unpacked(cache, package.key) == got[0]
    assert sorted(p.name for p in cache.iterdir()) == [package.key]  # no work folder left
    # Once there, the archive is not read again.
    assert unpack(cache, package.key, b"not an archive") == got[0]


def test_a_damaged_archive_or_one_reaching_outside_leaves_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with pytest.raises(ShippingError, match="cannot unpack"):
        unpack(cache, "k1", b"not an archive")
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as tar:
        info = tarfile.TarInfo("escape")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(info)
    with pytest.raises(ShippingError, match="cannot unpack"):
        unpack(cache, "k2", evil.read_bytes())
    assert list(cache.iterdir()) == []


def test_nothing_is_unpacked_through_a_link_the_archive_holds(tmp_path: Path) -> None:
    """``a`` links to the archive's own top, so ``a/x`` lands inside: tarfile's filter lets it
    through (and, in Python before 3.11.13, links built to outrun its check); the archive is
    refused whole."""
    archive = tmp_path / "through.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        link = tarfile.TarInfo("a")
        link.type, link.linkname = tarfile.SYMTYPE, "."
        tar.addfile(link)
        data = tarfile.TarInfo("a/x")
        tar.addfile(data, io.BytesIO(b""))
    cache = tmp_path / "cache"
    with pytest.raises(ShippingError, match="'a/x' lies behind the link 'a'"):
        unpack(cache, "k3", archive.read_bytes())
    assert list(cache.iterdir()) == []
