"""How fast the search runs, and where an iteration's time goes.

    python bots/examples/mcts-py/bench.py --players 4 --ms 200 --games 2

Plays ``--games`` games in-process (the search in one seat, greedy-py's policy in the others),
then prints the search's decisions per second, iterations per search, the cost of one
iteration, and how that cost splits between the engine (sampling worlds, cloning, applying
actions with their legal actions, building observations) and the greedy policy. Each timed call
adds a fraction of a microsecond of timer overhead to its line.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import search

from arena.engine import get_game
from arena.engine.stoneage import StoneAgeState
from arena.engine.stoneage.game import StoneAgeGame

#: (owner, attribute, line of the report)
TIMED = [
    (StoneAgeGame, "determinize", "engine: determinize (sample a world)"),
    (StoneAgeState, "clone", "engine: clone"),
    (StoneAgeState, "apply_index", "engine: apply an action (legal actions included)"),
    (StoneAgeState, "apply_key", "engine: apply an action (legal actions included)"),
    (StoneAgeState, "observation", "engine: build an observation"),
    (search.policy, "choose", "policy: choose"),
    (search.policy, "preferences", "policy: preferences"),
]


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
def timed(timers: Timers) -> Iterator[None]:
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in TIMED]
    for owner, name, label in TIMED:
        setattr(owner, name, timers.wrap(getattr(owner, name), label))
    try:
        yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--ms", type=int, default=200, help="search time per placement")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    game = get_game("stoneage")
    components = game.components()
    timers = Timers()
    decisions = searches = iterations = 0
    deciding = searching = 0.0
    per_search: list[int] = []
    with timed(timers):
        for g in range(args.games):
            state = game.new_state(args.players, seed=args.seed + g)
            assert isinstance(state, StoneAgeState)
            seat = g % args.players
            rng = random.Random(args.seed + g)
            while not state.is_terminal:
                if state.current_player != seat:
                    state.apply_index(search.policy_index(state, components))
                    continue
                started = time.perf_counter()
                obs = state.observation(seat)
                legal = [state.action_of(k) for k in state.legal_keys()]
                timers.active = True
                index, done = search.search(game, obs, legal, components, rng, args.ms / 1000)
                timers.active = False
                took = time.perf_counter() - started
                decisions += 1
                deciding += took
                if done:
                    searches += 1
                    iterations += done
                    searching += took
                    per_search.append(done)
                state.apply_index(index)

    print(f"{args.players} players, {args.ms} ms a placement, {args.games} games")
    print(f"  decisions per second (all of the search bot's): {decisions / deciding:10.1f}")
    print(f"  searched decisions (placements):               {searches:10d}")
    print(f"  iterations per search (median, mean):      {statistics.median(per_search):6.0f}"
          f" {statistics.mean(per_search):6.0f}")
    print(f"  iterations per second while searching:         {iterations / searching:10.0f}")
    print(f"  time per iteration (us):                       {searching / iterations * 1e6:10.0f}")
    print("  where an iteration's time goes:")
    accounted = 0.0
    for label, seconds in sorted(timers.seconds.items(), key=lambda kv: -kv[1]):
        accounted += seconds
        print(f"    {label:52s} {seconds / iterations * 1e6:7.0f} us  "
              f"{seconds / searching:6.1%}  ({timers.calls[label] / iterations:5.1f} calls)")
    rest = searching - accounted
    label = "search bookkeeping, action dicts, the rest"
    print(f"    {label:52s} {rest / iterations * 1e6:7.0f} us  {rest / searching:6.1%}")


if __name__ == "__main__":
    main()
