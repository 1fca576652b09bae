"""Peer engines measured beside Arena's: random games in public Python engines of its games.

Two peers: AgricolaBot's Agricola engine (hunterwieman/AgricolaBot) and StoneAgeAI's Stone Age
engine (Kakaroto9000/StoneAgeAI). A peer is only ever *run*, never copied into Arena: its engine
is extracted from the given repository into a temporary directory, a small driver plays random
games in a separate Python process with that directory on ``sys.path``, and the directory is
removed afterwards. Both peers need numpy, which Arena's own environment has (arena.stats uses
it); ``python`` (or ``ARENA_PEER_PYTHON``) names another interpreter to run them with.

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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The interpreter to run the peer with when none is given (before ``sys.executable``).
PYTHON_ENV = "ARENA_PEER_PYTHON"

#: What the AgricolaBot driver needs from the repository: the engine package and the peer's own
#: filter of the actions its engine can apply (``tests/test_utils.py``, which its agents import).
PEER_PATHS = ("agricola", "tests/__init__.py", "tests/test_utils.py")

#: The only player count AgricolaBot plays (its setup, board and state assume two players).
PEER_PLAYERS = 2

#: What the StoneAgeAI driver needs: the engine's modules (its agent and model need torch and
#: are left out).
STONEAGE_PATHS = (
    "action_system.py", "area.py", "building.py", "card.py", "decks.py", "game.py",
    "player.py", "utility.py",
)

#: The only player count StoneAgeAI plays (its game always seats four).
STONEAGE_PLAYERS = 4

# The drivers: argv is the extracted source, games, seed and the result file; each reports
# one JSON object (or {"error": ...}) to the result file. Only play is timed, set-up included.
# Each starts with _DRIVER_START, then imports the peer (indented, inside its try), then
# _DRIVER_IMPORTED.
_DRIVER_START = r"""
import json, random, sys, time

src, games, seed, result = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]


def report(data):
    with open(result, "w") as f:
        json.dump(data, f)


def report_play(**counts):
    # the play's wall and CPU time (from t0 and c0, set when play starts) and its counts
    report({"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
            "import_seconds": import_seconds, "setup_seconds": setup_seconds, **counts})


sys.path.insert(0, src)
t0 = time.perf_counter()
try:
"""
_DRIVER_IMPORTED = r"""except Exception as exc:
    report({"error": f"cannot import the peer engine: {type(exc).__name__}: {exc}"})
    sys.exit(3)
import_seconds = time.perf_counter() - t0
"""

# AgricolaBot: plays with the peer's own API: ``setup_env`` (the Family game when no card pool
# is given), ``legal_actions`` filtered as the peer's random agent filters them, ``step``, and
# the environment's dealer for nature's round-card reveals, which are not decisions.
_AGRICOLA_DRIVER = _DRIVER_START + r"""    from agricola.agents.base import decider_of
    from agricola.constants import Phase
    from agricola.engine import step
    from agricola.legality import legal_actions
    from agricola.setup import setup_env
    from tests.test_utils import filter_implemented
""" + _DRIVER_IMPORTED + r"""
decisions = steps = reveals = 0
setup_seconds = 0.0
modes, players = set(), set()
g = 0
t0 = time.perf_counter()
c0 = time.process_time()
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
report_play(decisions=decisions, steps=steps, reveals=reveals, modes=sorted(modes),
            players=sorted(players))
"""

# StoneAgeAI: plays with the peer's own API: ``Game().start_game()``, the legal-action mask
# ``get_mask()`` and ``play_step(index)`` until ``game_end``. The peer draws its chance (the
# shuffles, the first player, the dice) from Python's global generator, which is seeded per
# game; moves are drawn from a generator of their own. The engine prints a debug line on every
# buy-or-skip decision: the driver replaces the engine module's ``print`` with a no-op, so the
# figures measure play, not writing to a pipe. The peer raises now and then in a game (in
# about 1 game of 150, an index error when a player holds a fourth one-use tool): such a game
# ends there, its moves so far count like any others, and the games that failed are reported.
_STONEAGE_DRIVER = _DRIVER_START + r"""    import game as peer
    from game import Game
    from numpy import flatnonzero
""" + _DRIVER_IMPORTED + r"""peer.print = lambda *args, **kwargs: None

decisions = steps = rounds = failed = 0
first_failure = None
setup_seconds = 0.0
players = set()
t0 = time.perf_counter()
c0 = time.process_time()
for g in range(games):
    rng = random.Random(seed + g)
    random.seed(f"chance/{seed + g}")
    try:
        t1 = time.perf_counter()
        game = Game()
        game.start_game()
        setup_seconds += time.perf_counter() - t1
        players.add(len(game.players))
        while not game.game_end:
            legal = flatnonzero(game.get_mask())
            if len(legal) >= 2:
                decisions += 1
            game.play_step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        rounds += game.round
    except Exception as exc:  # the peer's own bugs end a game now and then
        failed += 1
        if first_failure is None:
            first_failure = f"game {g}: {type(exc).__name__}: {exc}"
if failed == games:
    report({"error": f"the peer engine failed in every game, first in {first_failure}"})
    sys.exit(3)
report_play(decisions=decisions, steps=steps, rounds=rounds, players=sorted(players),
            failed_games=failed, first_failure=first_failure)
"""


@dataclass(frozen=True)
class Peer:
    """A public engine of one of Arena's games, and how to run it."""

    name: str  #: the repository's name, as the figures call the peer
    game: str  #: the Arena game it is measured beside
    paths: tuple[str, ...]  #: what the driver needs from the repository
    players: int  #: the only player count it plays
    driver: str  #: the driver's source (see above)
    #: a one-line description of what ran, from the driver's report
    describe: Callable[[dict[str, Any]], str]
    #: the least Arena ÷ peer for decisions per second that Arena's engine aims to keep
    target: float

    @property
    def a_name(self) -> str:
        """The name with its article, for messages ("an AgricolaBot")."""
        return ("an " if self.name[0] in "AEIOU" else "a ") + self.name


def _agricola_config(raw: dict[str, Any]) -> str:
    modes = "/".join(m.lower() for m in raw["modes"])
    cards = " (no cards)" if modes == "family" else ""
    return f"AgricolaBot {modes} game{cards}"


AGRICOLABOT = Peer("AgricolaBot", "agricola", PEER_PATHS, PEER_PLAYERS, _AGRICOLA_DRIVER,
                   _agricola_config, target=40)
STONEAGEAI = Peer("StoneAgeAI", "stoneage", STONEAGE_PATHS, STONEAGE_PLAYERS, _STONEAGE_DRIVER,
                  lambda raw: "StoneAgeAI game", target=10)

#: The peer of each game that has one, by Arena's game name.
PEERS = {peer.game: peer for peer in (AGRICOLABOT, STONEAGEAI)}


def peer_engine(game: str, repo: Path, players: int, games: int, seed: int,
                python: str | None = None) -> dict[str, Any]:
    """:func:`peer_agricola` or :func:`peer_stoneage`, by Arena's game name (RuntimeError for a
    game without a peer)."""
    if game not in PEERS:
        raise RuntimeError(
            f"no peer engine for {game}: the peers are for {' and '.join(sorted(PEERS))}"
        )
    return _run_peer(PEERS[game], repo, players, games, seed, python)


def peer_agricola(
    repo: Path, players: int, games: int, seed: int, python: str | None = None
) -> dict[str, Any]:
    """Play ``games`` random games in AgricolaBot's engine and measure it as ``bench_engine``
    does.

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
    return _run_peer(AGRICOLABOT, repo, players, games, seed, python)


def peer_stoneage(
    repo: Path, players: int, games: int, seed: int, python: str | None = None
) -> dict[str, Any]:
    """Play ``games`` random games in StoneAgeAI's engine and measure it as ``bench_engine``
    does.

    ``repo`` is as for :func:`peer_agricola`. Game ``g`` seeds the peer's chance (Python's
    global generator in the peer's process, which it draws its shuffles, first player and dice
    from) with ``"chance/{seed + g}"``, and its moves are drawn uniformly from the legal actions
    of the peer's mask with ``random.Random(seed + g)``. The peer always seats four players, so
    for any other ``players`` its four-player game runs and ``"config"`` and ``"players"`` say
    so. A game ends when the peer says so (its end conditions, or its 50-round limit). The
    peer changes its game in place and has no copy of it, so ``clone_microseconds`` is
    ``None``; nor has it a path that builds actions as dicts, so
    ``dict_path_decisions_per_second`` is ``None`` too.

    The peer has bugs of its own that now and then raise in the middle of a game: that game
    ends there and the next one starts; its moves until then count like any others (they
    were played). ``failed_games`` counts those games and ``first_failure`` names the first
    (``None`` when none failed).

    The keys are :func:`peer_agricola`'s (``setup_milliseconds`` is ``Game()`` and
    ``start_game()``), plus ``rounds_per_game`` (of the games that finished),
    ``failed_games`` and ``first_failure``. Raises ``RuntimeError`` as :func:`peer_agricola`
    does, and when the peer failed in every game.
    """
    return _run_peer(STONEAGEAI, repo, players, games, seed, python)


def _run_peer(peer: Peer, repo: Path, players: int, games: int, seed: int,
              python: str | None) -> dict[str, Any]:
    """Extract ``peer`` from ``repo``, run its driver in a process of its own, and return its
    figures."""
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
        commit = _extract(peer, repo, src)
        raw = _run_driver(peer, interpreter, src, games, seed, Path(tmp))
    return _figures(peer, raw, players, games, seed, commit)


def peer_ratios(arena: dict[str, Any], peer: dict[str, Any]) -> dict[str, float]:
    """Arena ÷ peer for games per second and decisions per second (above 1: Arena is faster),
    and for decisions per CPU second when both figures have it.

    Games per second are recomputed from the games and the wall time, which are rounded less
    than the per-second figures."""
    arena_gps = arena["games"] / arena["seconds"]
    peer_gps = peer["games"] / peer["seconds"]
    ratios = {
        "games_per_second": round(arena_gps / peer_gps, 2),
        "decisions_per_second": round(
            arena["decisions_per_second"] / peer["decisions_per_second"], 2
        ),
    }
    if "decisions_per_cpu_second" in arena and "decisions_per_cpu_second" in peer:
        ratios["decisions_per_cpu_second"] = round(
            arena["decisions_per_cpu_second"] / peer["decisions_per_cpu_second"], 2
        )
    return ratios


def _is_bare_git(path: Path) -> bool:
    """True for a bare git directory (like the mirror's ``repo``)."""
    return path.is_dir() and (path / "HEAD").is_file() and (path / "objects").is_dir()


def _extract(peer: Peer, repo: Path, dest: Path) -> str | None:
    """Copy the peer's engine from ``repo`` into ``dest``; return the commit run, if known."""
    if _is_bare_git(repo):
        return _extract_bare(peer, repo, dest)
    if (repo / peer.paths[0]).exists():
        return _extract_checkout(peer, repo, dest)
    raise RuntimeError(
        f"not {peer.a_name} repository (no {peer.paths[0]} and not a bare git directory): {repo}"
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


def _extract_bare(peer: Peer, repo: Path, dest: Path) -> str:
    """Unpack the engine's paths at ``HEAD`` of a bare repository into ``dest``."""
    commit = _git(repo, "rev-parse", "HEAD").decode().strip()
    listed = _git(repo, "ls-tree", "--name-only", commit, *peer.paths).decode().splitlines()
    missing = [rel for rel in peer.paths if rel not in listed]
    if missing:
        raise RuntimeError(f"not {peer.a_name} repository ({', '.join(missing)} missing at "
                           f"HEAD): {repo}")
    archive = _git(repo, "archive", "--format=tar", commit, *peer.paths)
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return commit


def _extract_checkout(peer: Peer, repo: Path, dest: Path) -> str | None:
    """Copy the engine's paths from a checkout's working files into ``dest``."""
    for rel in peer.paths:
        source, target = repo / rel, dest / rel
        if not source.exists():
            raise RuntimeError(f"not {peer.a_name} checkout, {rel} is missing: {repo}")
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


def _run_driver(
    peer: Peer, python: str, src: Path, games: int, seed: int, tmp: Path
) -> dict[str, Any]:
    """Run the driver in its own process (isolated: no PYTHONPATH, no user site, no current
    directory on ``sys.path``) and return what it reported."""
    result = tmp / "result.json"
    command = [python, "-I", "-c", peer.driver, str(src), str(games), str(seed), str(result)]
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
    peer: Peer, raw: dict[str, Any], players: int, games: int, seed: int, commit: str | None
) -> dict[str, Any]:
    """The driver's counts as ``bench_engine``'s figures, with the configuration that ran."""
    elapsed = raw["seconds"]
    ran = raw["players"][0] if len(raw["players"]) == 1 else peer.players
    config = f"{peer.describe(raw)}, {ran} players"
    if players != ran:
        config += f" (its only player count; {players} were asked for)"
    figures = {
        "game": f"{peer.game} ({peer.name} peer)",
        "rules_version": f"{peer.name}@{commit[:12]}" if commit else f"{peer.name} (checkout)",
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
        "cpu_seconds": round(raw["cpu_seconds"], 3),
        "decisions_per_cpu_second": round(raw["decisions"] / raw["cpu_seconds"]),
        "clone_microseconds": None,
        "dict_path_decisions_per_second": None,
        "steps_per_game": round(raw["steps"] / games, 1),
        "setup_milliseconds": round(raw["setup_seconds"] / games * 1000, 2),
        "import_seconds": round(raw["import_seconds"], 3),
        "target_ratio": peer.target,
    }
    if "rounds" in raw:
        finished = games - raw["failed_games"]
        figures["rounds_per_game"] = round(raw["rounds"] / finished, 1)
        figures["failed_games"] = raw["failed_games"]
        figures["first_failure"] = raw["first_failure"]
    return figures
