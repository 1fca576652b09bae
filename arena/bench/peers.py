"""A peer engine measured beside Arena's: random games in AgricolaBot's Python Agricola engine.

The peer (the public repository hunterwieman/AgricolaBot) is only ever *run*, never copied into
Arena: its engine package is extracted from the given repository into a temporary directory,
a small driver plays random games in a separate Python process with that directory on
``sys.path``, and the directory is removed afterwards. The peer needs numpy, which Arena's own
environment has (arena.stats uses it); ``python`` (or ``ARENA_PEER_PYTHON``) names another
interpreter to run it with.

The figures have the shape of :func:`arena.bench.engine.bench_engine`'s, so the two can be set side
by side and divided.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

#: The interpreter to run the peer with when none is given (before ``sys.executable``).
PYTHON_ENV = "ARENA_PEER_PYTHON"

#: What the driver needs from the repository: the engine package and the peer's own filter of
#: the actions its engine can apply (``tests/test_utils.py``, which its agents import too).
PEER_PATHS = ("agricola", "tests/__init__.py", "tests/test_utils.py")

#: The only player count the peer plays (its setup, board and state assume two players).
PEER_PLAYERS = 2

# The driver: argv is the extracted source, games, seed and the result file. It plays with the
# peer's own API: ``setup_env`` (the Family game when no card pool is given), ``legal_actions``
# filtered as the peer's random agent filters them, ``step``, and the environment's dealer for
# nature's round-card reveals, which are not decisions. Only play is timed, set-up included.
_DRIVER = r"""
import json, random, sys, time

src, games, seed, result = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]


def report(data):
    with open(result, "w") as f:
        json.dump(data, f)


sys.path.insert(0, src)
t0 = time.perf_counter()
try:
    from agricola.agents.base import decider_of
    from agricola.constants import Phase
    from agricola.engine import step
    from agricola.legality import legal_actions
    from agricola.setup import setup_env
    from tests.test_utils import filter_implemented
except Exception as exc:
    report({"error": f"cannot import the peer engine: {type(exc).__name__}: {exc}"})
    sys.exit(3)
import_seconds = time.perf_counter() - t0

decisions = steps = reveals = 0
setup_seconds = 0.0
modes, players = set(), set()
g = 0
t0 = time.perf_counter()
try:
    for g in range(games):
        rng = random.Random(seed + g)
        t1 = time.perf_counter()
        state, env = setup_env(seed + g)
        setup_seconds += time.perf_counter() - t1
        modes.add(state.mode.name)
        players.add(len(state.players))
        while state.phase is not Phase.BEFORE_SCORING:
            if decider_of(state) is None:
                state = step(state, env.resolve(state))
                reveals += 1
                continue
            actions = filter_implemented(legal_actions(state))
            if len(actions) >= 2:
                decisions += 1
            state = step(state, actions[rng.randrange(len(actions))])
            steps += 1
except Exception as exc:
    report({"error": f"the peer engine failed in game {g}: {type(exc).__name__}: {exc}"})
    sys.exit(3)
report({
    "seconds": time.perf_counter() - t0,
    "import_seconds": import_seconds,
    "setup_seconds": setup_seconds,
    "decisions": decisions,
    "steps": steps,
    "reveals": reveals,
    "modes": sorted(modes),
    "players": sorted(players),
})
"""


def peer_agricola(
    repo: Path, players: int, games: int, seed: int, python: str | None = None
) -> dict[str, Any]:
    """Play ``games`` random games in the peer's engine and measure it as ``bench_engine`` does.

    ``repo`` is the peer's repository: a bare git directory (its ``HEAD`` is run) or a checkout
    (its working files are run). Game ``g`` is set up with seed ``seed + g`` and its moves are
    drawn uniformly from the legal actions with ``random.Random(seed + g)``. The peer plays
    only the two-player game, so for any other ``players`` the closest configuration is run and
    ``"config"`` and ``"players"`` say so. The peer's states are immutable (a move returns a
    new state), so it has no clone and ``clone_microseconds`` is ``None``; nor has it a path
    that builds actions as dicts, so ``dict_path_decisions_per_second`` is ``None`` too.
    Nature's round-card reveals are applied but are not decisions.

    Besides ``bench_engine``'s keys: ``config`` (what ran), ``commit`` (the peer's, when known),
    ``requested_players``, ``steps_per_game`` (every move, one-answer ones included),
    ``setup_milliseconds`` (mean ``setup_env`` per game, within the timed play) and
    ``import_seconds`` (importing the peer, not timed). The peer memoizes its animal-housing
    frontier per farm shape for the life of its process; random play keeps meeting new shapes,
    so building those entries is a large, lasting share of its time (replaying the same games
    in a warm process is about three times faster). The figures include it, as Arena's include
    any warm-up of its own.

    Raises ``RuntimeError`` with a one-line message when the repository is missing or not the
    peer's, or when the peer cannot be imported or fails during a game.
    """
    if games < 1:
        raise RuntimeError("the peer benchmark needs at least one game")
    repo = Path(repo)
    if not repo.exists():
        raise RuntimeError(f"peer repository not found: {repo}")
    interpreter = python or os.environ.get(PYTHON_ENV) or sys.executable
    if os.sep in interpreter:  # the driver runs in the temporary directory; keep venv links
        interpreter = os.path.abspath(interpreter)
    with tempfile.TemporaryDirectory(prefix="arena-peer-") as tmp:
        src = Path(tmp) / "src"
        commit = _extract(repo, src)
        raw = _run_driver(interpreter, src, games, seed, Path(tmp))
    return _figures(raw, players, games, seed, commit)


def peer_ratios(arena: dict[str, Any], peer: dict[str, Any]) -> dict[str, float]:
    """Arena ÷ peer for games per second and decisions per second (above 1: Arena is faster).

    Games per second are recomputed from the games and the wall time, which are rounded less
    than the per-second figures."""
    arena_gps = arena["games"] / arena["seconds"]
    peer_gps = peer["games"] / peer["seconds"]
    return {
        "games_per_second": round(arena_gps / peer_gps, 2),
        "decisions_per_second": round(
            arena["decisions_per_second"] / peer["decisions_per_second"], 2
        ),
    }


def _is_bare_git(path: Path) -> bool:
    """True for a bare git directory (like the mirror's ``repo``)."""
    return path.is_dir() and (path / "HEAD").is_file() and (path / "objects").is_dir()


def _extract(repo: Path, dest: Path) -> str | None:
    """Copy the peer's engine from ``repo`` into ``dest``; return the commit run, if known."""
    if _is_bare_git(repo):
        return _extract_bare(repo, dest)
    if (repo / "agricola").is_dir():
        return _extract_checkout(repo, dest)
    raise RuntimeError(
        f"not an AgricolaBot repository (no agricola/ and not a bare git directory): {repo}"
    )


def _git(repo: Path, *args: str) -> bytes:
    """The output of a git command on the bare repository ``repo`` (RuntimeError if it fails)."""
    try:
        done = subprocess.run(
            ["git", f"--git-dir={repo}", *args], capture_output=True, check=False
        )
    except FileNotFoundError:
        raise RuntimeError(
            "git is needed to read a bare peer repository and was not found"
        ) from None
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines() or ["(no message)"]
        raise RuntimeError(f"git {args[0]} failed on {repo}: {lines[0]}")
    return done.stdout


def _extract_bare(repo: Path, dest: Path) -> str:
    """Unpack the engine's paths at ``HEAD`` of a bare repository into ``dest``."""
    commit = _git(repo, "rev-parse", "HEAD").decode().strip()
    archive = _git(repo, "archive", "--format=tar", commit, *PEER_PATHS)
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return commit


def _extract_checkout(repo: Path, dest: Path) -> str | None:
    """Copy the engine's paths from a checkout's working files into ``dest``."""
    for rel in PEER_PATHS:
        source, target = repo / rel, dest / rel
        if not source.exists():
            raise RuntimeError(f"not an AgricolaBot checkout, {rel} is missing: {repo}")
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    if (repo / ".git").exists():
        done = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, check=False
        )
        if done.returncode == 0:
            return done.stdout.decode().strip()
    return None


def _run_driver(python: str, src: Path, games: int, seed: int, tmp: Path) -> dict[str, Any]:
    """Run the driver in its own process (isolated: no PYTHONPATH, no user site, no current
    directory on ``sys.path``) and return what it reported."""
    result = tmp / "result.json"
    command = [python, "-I", "-c", _DRIVER, str(src), str(games), str(seed), str(result)]
    try:
        done = subprocess.run(command, cwd=tmp, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise RuntimeError(
            f"cannot start the peer's Python {python!r}: {exc.strerror}"
        ) from None
    if not result.exists():
        lines = done.stderr.strip().splitlines() or [f"exit code {done.returncode}"]
        raise RuntimeError(f"the peer driver stopped without figures: {lines[-1]}")
    raw: dict[str, Any] = json.loads(result.read_text())
    if "error" in raw:
        hint = f" (python: {python}; set {PYTHON_ENV} to one with numpy)" if (
            "cannot import" in raw["error"]
        ) else ""
        raise RuntimeError(raw["error"] + hint)
    return raw


def _figures(
    raw: dict[str, Any], players: int, games: int, seed: int, commit: str | None
) -> dict[str, Any]:
    """The driver's counts as ``bench_engine``'s figures, with the configuration that ran."""
    elapsed = raw["seconds"]
    modes = "/".join(m.lower() for m in raw["modes"])
    ran = raw["players"][0] if len(raw["players"]) == 1 else PEER_PLAYERS
    cards = " (no cards)" if modes == "family" else ""
    config = f"AgricolaBot {modes} game{cards}, {ran} players"
    if players != ran:
        config += f" (its only player count; {players} were asked for)"
    return {
        "game": "agricola (AgricolaBot peer)",
        "rules_version": f"AgricolaBot@{commit[:12]}" if commit else "AgricolaBot (checkout)",
        "commit": commit,
        "config": config,
        "players": ran,
        "requested_players": players,
        "games": games,
        "seed": seed,
        "seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 1),
        "decisions_per_second": round(raw["decisions"] / elapsed),
        "decisions_per_game": round(raw["decisions"] / games, 1),
        "clone_microseconds": None,
        "dict_path_decisions_per_second": None,
        "steps_per_game": round(raw["steps"] / games, 1),
        "setup_milliseconds": round(raw["setup_seconds"] / games * 1000, 2),
        "import_seconds": round(raw["import_seconds"], 3),
    }
