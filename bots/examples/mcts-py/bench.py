"""The search against greedy-py, in-process: its strength, its speed, and where its time goes.

    python bots/examples/mcts-py/bench.py --game agricola --players 2 --ms 500 --games 100
    python bots/examples/mcts-py/bench.py --game agricola --option cards=base --players 2 ...

Plays ``--games`` games in-process, the search in one seat and greedy-py's policy for the game in
the others. Game ``g`` is played on seed ``--seed + g // players`` with the search in seat
``g % players``, so every seed is played from every seat (seat rotation). It prints:

- the search's results: wins (a shared first place counts a half), its win rate with a 95%
  Wilson interval, and its mean margin (its final score minus the best other seat's) with a
  95% interval;
- its speed: decisions per second, iterations per searched decision (placements), and, with
  ``--profile``, how an iteration's time splits between the engine (sampling worlds, cloning,
  applying actions with their legal actions, building observations) and the policy. Each timed
  call then adds a fraction of a microsecond of timer overhead to its line.

``--versus PATH`` plays every game a second time with another version of the search (the
``search.py`` at PATH, with the same ``search()`` signature), right after the first, so that
both meet the same seeds under the same load; it prints both versions' results and their
paired difference, game by game. ``--set NAME=VALUE`` changes one of the search's constants
for the run (``margin_scale`` and ``horizon`` are the game's entry in TUNING; ``horizon=none``
plays rollouts to the end); ``--versus-set`` the other
version's. So a setting is tuned against the current one with
``--versus search.py --versus-set ROOT_CANDIDATES=3``.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib.util
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import search

from arena.engine import Game, get_game


@dataclass
class Tally:
    """What one version of the search did over the games."""

    name: str
    margins: list[float] = field(default_factory=list)
    wins: list[float] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    per_search: list[int] = field(default_factory=list)
    decisions: int = 0
    deciding: float = 0.0
    searching: float = 0.0


class Timers:
    def __init__(self) -> None:
        self.active = False
        self.calls: dict[str, int] = {}
        self.seconds: dict[str, float] = {}

    def wrap(self, fn: Callable[..., Any], label: str) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if not self.active:
                return fn(*args, **kwargs)
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - start
                self.calls[label] = self.calls.get(label, 0) + 1

        return timed


@contextmanager
def timed(timers: Timers, game: Game, policy: ModuleType) -> Iterator[None]:
    """Time the engine's and the policy's calls (of this game's classes) while active."""
    state_class = type(game.new_state(game.min_players, seed=0))
    targets = [
        (type(game), "determinize", "engine: determinize (sample a world)"),
        (state_class, "clone", "engine: clone"),
        (state_class, "apply_index", "engine: apply an action (legal actions included)"),
        (state_class, "apply_key", "engine: apply an action (legal actions included)"),
        (state_class, "observation", "engine: build an observation"),
        (state_class, "result", "engine: result"),
        (policy, "choose", "policy: choose"),
        (policy, "preferences", "policy: preferences"),
    ]
    # What each owner defines itself (None: inherited, so the wrapper is removed afterwards).
    saved = [(owner, name, vars(owner).get(name)) for owner, name, _ in targets]
    for owner, name, label in targets:
        setattr(owner, name, timers.wrap(getattr(owner, name), label))
    try:
        yield
    finally:
        for owner, name, fn in saved:
            if fn is None:
                delattr(owner, name)
            else:
                setattr(owner, name, fn)


def load(path: Path) -> ModuleType:
    """Another version of search.py, loaded under its own module name."""
    spec = importlib.util.spec_from_file_location(f"search_{abs(hash(path))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def configure(module: ModuleType, game: str, settings: list[str]) -> str:
    """Apply ``NAME=VALUE`` settings to a search module; a description of them."""
    for setting in settings:
        name, _, text = setting.partition("=")
        tuning = module.TUNING.get(game, module.DEFAULT_TUNING)
        if name == "margin_scale":
            module.TUNING[game] = dataclasses.replace(tuning, margin_scale=float(text))
            continue
        if name == "horizon":  # a whole number of searched decisions, or none
            value = None if text.lower() == "none" else int(text)
            module.TUNING[game] = dataclasses.replace(tuning, horizon=value)
            continue
        old = getattr(module, name)  # AttributeError for a name the module does not have
        if isinstance(old, bool):
            setattr(module, name, text.lower() in ("1", "true", "yes"))
        else:
            setattr(module, name, type(old)(text))
    return " ".join(settings)


def play(game: Game, module: ModuleType, guide: search.Guide, players: int, seed: int, seat: int,
         args: argparse.Namespace, tally: Tally, timers: Timers | None = None) -> None:
    """One game: ``module``'s search in ``seat``, greedy-py's policy in the others."""
    state = game.new_state(players, seed=seed, options=args.options)
    rng = random.Random(seed * 1000 + seat)
    components = guide.components
    while not state.is_terminal:
        if state.current_player != seat:
            state.apply_index(guide.move(state))
            continue
        started = time.perf_counter()
        obs = state.observation(seat)
        legal = [state.action_of(k) for k in state.legal_keys()]
        if timers is not None:
            timers.active = True
        index, done = module.search(game, obs, legal, components, rng, args.ms / 1000,
                                    args.iterations)
        if timers is not None:
            timers.active = False
        took = time.perf_counter() - started
        tally.decisions += 1
        tally.deciding += took
        if done:
            tally.per_search.append(done)
            tally.searching += took
        state.apply_index(index)
    result = state.result()
    scores = result.scores
    tally.scores.append(scores[seat])
    tally.margins.append(scores[seat] - max(s for p, s in enumerate(scores) if p != seat))
    firsts = result.ranks.count(1)
    tally.wins.append(0.0 if result.ranks[seat] != 1 else 1.0 / firsts)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def mean_interval(values: list[float], z: float = 1.96) -> tuple[float, float]:
    """The mean and the half-width of its 95% normal interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, z * statistics.stdev(values) / math.sqrt(len(values))


def report(tally: Tally) -> None:
    n = len(tally.wins)
    wins = sum(tally.wins)
    low, high = wilson(wins, n)
    margin, half = mean_interval(tally.margins)
    print(f"{tally.name}: {n} games against greedy-py")
    print(f"  wins (ties count a half):                    {wins:6.1f}  "
          f"win rate {wins / n:.1%} (95% interval {low:.1%} .. {high:.1%})")
    print(f"  mean margin over the best other seat:      {margin:+8.2f}  (95% interval "
          f"{margin - half:+.2f} .. {margin + half:+.2f})")
    print(f"  mean score:                                  {statistics.fmean(tally.scores):6.1f}")
    print(f"  decisions per second (all of the search's):  {tally.decisions / tally.deciding:6.1f}")
    if tally.per_search:
        per = tally.per_search
        print(f"  searched decisions:                          {len(per):6d}")
        print(f"  iterations per searched decision (median, mean, 10th percentile): "
              f"{statistics.median(per):.0f} {statistics.fmean(per):.0f} "
              f"{sorted(per)[len(per) // 10]:.0f}")
        print(f"  iterations per second while searching:       "
              f"{sum(per) / tally.searching:6.0f}")


def profile(timers: Timers, tally: Tally) -> None:
    iterations = sum(tally.per_search)
    searching = tally.searching
    print(f"  time per iteration (us):                     {searching / iterations * 1e6:6.0f}")
    print("  where an iteration's time goes:")
    accounted = 0.0
    for label, seconds in sorted(timers.seconds.items(), key=lambda kv: -kv[1]):
        accounted += seconds
        print(f"    {label:52s} {seconds / iterations * 1e6:7.0f} us  "
              f"{seconds / searching:6.1%}  ({timers.calls[label] / iterations:5.1f} calls)")
    rest = searching - accounted
    label = "search bookkeeping, action dicts, the rest"
    print(f"    {label:52s} {rest / iterations * 1e6:7.0f} us  {rest / searching:6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="stoneage")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--ms", type=int, default=500, help="search time per searched decision")
    parser.add_argument("--iterations", type=int, default=None,
                        help="also stop each search after this many iterations")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option, e.g. --option cards=base --option draft=app")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--versus", type=Path, default=None,
                        help="another search.py to play the same games with, interleaved")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="change one of this search's constants for the run")
    parser.add_argument("--versus-set", action="append", default=[], metavar="NAME=VALUE",
                        help="change one of the other search's constants for the run")
    parser.add_argument("--profile", action="store_true",
                        help="time the engine's and the policy's calls (this version only)")
    args = parser.parse_args()
    args.options = dict(option.partition("=")[::2] for option in args.option)

    game = get_game(args.game)
    mine = Tally(f"this search {configure(search, args.game, args.set)}".strip())
    # After configure: the guide reads TUNING.
    guide = search.guide_for(game, game.components(args.options))
    other_module = load(args.versus.resolve()) if args.versus else None
    other = None
    if other_module is not None:
        settings = configure(other_module, args.game, args.versus_set)
        other = Tally(f"{args.versus} {settings}".strip())
    timers = Timers() if args.profile else None
    with timed(timers, game, guide.policy) if timers else _nothing():
        for g in range(args.games):
            seed, seat = args.seed + g // args.players, g % args.players
            play(game, search, guide, args.players, seed, seat, args, mine, timers)
            if other is not None:
                play(game, other_module, guide, args.players, seed, seat, args, other)
            if (g + 1) % 10 == 0:
                print(f"... {g + 1} games: {sum(mine.wins):.1f} wins, mean margin "
                      f"{statistics.fmean(mine.margins):+.2f}"
                      + ("" if other is None else f"; other {sum(other.wins):.1f} wins, mean "
                         f"margin {statistics.fmean(other.margins):+.2f}"), flush=True)

    budget = f"{args.ms} ms" + ("" if args.iterations is None else
                                f" or {args.iterations} iterations")
    options = "".join(f", {k}={v}" for k, v in args.options.items())
    print(f"{args.game}{options}, {args.players} players, {budget} a searched decision, "
          f"{args.games} games from seed {args.seed}")
    report(mine)
    if timers is not None:
        profile(timers, mine)
    if other is not None:
        report(other)
        diffs = [a - b for a, b in zip(mine.margins, other.margins, strict=True)]
        mean, half = mean_interval(diffs)
        print(f"this search minus the other, game by game: margin {mean:+.2f} (95% interval "
              f"{mean - half:+.2f} .. {mean + half:+.2f}), wins "
              f"{sum(mine.wins) - sum(other.wins):+.1f}")


@contextmanager
def _nothing() -> Iterator[None]:
    yield


if __name__ == "__main__":
    main()
