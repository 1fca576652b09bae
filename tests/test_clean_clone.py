"""Following the README leaves a clone as git found it: what its commands write into the
checkout is either a committed file written again byte for byte (a committed tournament's
standings) or the user's own output, which .gitignore names.

The commands run for real in a git repository made of the checkout's tracked files as they are
now (what a fresh clone of this state holds), and `git status` must then say nothing. The
tournaments whose output is not committed (the examples, ./demo's) are not played: their output
folders are checked to be ignored, as are the files of the commands that need more than this
test should (the cluster's keys and certificates, a game of bots' logs)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.runner.play.config import load_config

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: Commands of the README, as it says them, that are run besides its tournaments: each writes
#: where its README form does (the game of bots, `--record game.json`, is played by the
#: built-in players: the same record file, without the JavaScript bot's packages).
RUN = [
    "arena play stoneage --players 4 --seed 42",
    "arena league init leagues/sa2 --game stoneage --players 2",
]
#: What other commands of the README write into the checkout, by a command the README says.
IGNORED = {
    "--record game.json": ["game.json"],
    "arena check-bot bots/examples/greedy-py": ["arena-logs/greedy-py-1.log"],
    "-keyout ca.key -out ca.pem": ["ca.key", "ca.pem", "ca.srl"],
    '-keyout "$name.key" -out "$name.csr"': [
        f"{name}.{kind}" for name in ("scheduler", "worker1", "organiser")
        for kind in ("key", "csr", "pem")],
}


def readme_commands() -> list[str]:
    """The commands of the README's shell blocks, continued lines joined, without comments."""
    text = "\n".join(re.findall(r"```bash\n(.*?)```", README, re.DOTALL))
    lines = (re.sub(r"(^|\s+)#.*$", "", line) for line in text.replace("\\\n", " ").splitlines())
    return [" ".join(line.split()) for line in lines if line.strip()]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True)
    return done.stdout


def as_cloned(tmp_path: Path) -> Path:
    """A git repository holding the checkout's tracked files as they are now, committed."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    clone = tmp_path / "clone"
    names = [n for n in git(ROOT, "ls-files", "-z").split("\0") if n]
    present = [n for n in names if os.path.lexists(ROOT / n)]
    for name in present:
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, clone / name, follow_symlinks=False)
    git(clone, "init", "-q")
    subprocess.run(["git", "-C", str(clone), "add", "-f", "--pathspec-from-file=-",
                    "--pathspec-file-nul"], input="\0".join(present), text=True, check=True)
    git(clone, "-c", "user.name=arena", "-c", "user.email=arena@localhost", "commit", "-q",
        "-m", "as cloned")
    return clone


def arena(clone: Path, command: str) -> subprocess.Popen[str]:
    """``command`` (``arena ...``) started in ``clone``, as a user would run it there."""
    return subprocess.Popen([sys.executable, "-m", "arena", *command.split()[1:]], cwd=clone,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def succeed(*procs: subprocess.Popen[str]) -> None:
    for proc in procs:
        output, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"{proc.args}: {output}"


def test_following_the_readme_leaves_the_clone_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = readme_commands()
    assert all(c in commands for c in RUN)
    clone = as_cloned(tmp_path)
    monkeypatch.chdir(clone)  # where an output folder the file does not name goes
    committed, others = [], []
    for command in dict.fromkeys(commands):
        if re.fullmatch(r"arena run tournaments/[\w.-]+\.toml", command):
            output = load_config(clone / command.split()[-1]).output
            output = (clone / output).resolve().relative_to(clone.resolve())
            tracked = git(clone, "ls-files", str(output))
            (committed if tracked else others).append((command, output))
    assert {str(o) for _, o in committed} >= {"leaderboards/reference", "leaderboards/search-4p"}
    assert {"arena run tournaments/round-robin.toml"} <= {c for c, _ in others}  # ./demo's
    succeed(*(arena(clone, c) for c, _ in committed), *(arena(clone, c) for c in RUN),
            arena(clone, "arena play stoneage --seed 3 --record game.json"),
            arena(clone, "arena report leaderboards/reference --no-views"))
    succeed(arena(clone, "arena replay game.json"))
    assert (clone / "game.json").is_file() and (clone / "leagues" / "sa2").is_dir()
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""
    # The replay pages a report writes beside it (their writing is tested with the report).
    written = [str(output / "journal.sqlite") for _, output in others]
    written.append("leaderboards/reference/views/r001-t0001-s0.html")
    for said, paths in IGNORED.items():
        assert said in README, said
        written += paths
    ignored = subprocess.run(["git", "-C", str(clone), "check-ignore", "--no-index", *written],
                             capture_output=True, text=True, check=False).stdout.split()
    assert sorted(ignored) == sorted(written)
