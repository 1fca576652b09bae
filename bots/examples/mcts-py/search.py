"""Information-set Monte Carlo tree search for Stone Age, guided by the greedy policy.

The search runs over *sampled worlds*: the engine's ``determinize`` turns what this seat knows
into a full state (deck order, hidden tiles, the others' extra cards, fresh future dice), so
chance is sampled, never chosen. The greedy policy of ``greedy-py`` is the search's model of
every move it does not search: the other seats' moves, its own minor decisions, and the rollout
to the end of the game. The final scores of the rollout give the reward.

The root holds the few actions the greedy policy likes best. Every sampled world is played once
from each of them (a *sweep*), so the candidates are always compared on the same deck, the same
hidden cards and the same dice: luck mostly cancels out of the comparison. Below each root
action grows a tree over this seat's later placements in the game, shared by all sampled worlds
(edges are action keys; an action not legal in a world is skipped there, and the exploration
term counts how often an action was available). A node branches into its own candidates only
after it has been visited enough times; until then the greedy policy moves for it.
"""

from __future__ import annotations

import math
import random
import sys
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from arena.engine import Game
from arena.engine.stoneage import StoneAgeState
from arena.engine.stoneage.components import NUM_PLACES, PILE0
from arena.engine.stoneage.moves import PLACE, RESOLVE, key_to_action, place_fields

# greedy-py's policy (a sibling example) is the prior, the opponent model and the rollout policy.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "greedy-py"))
import policy

ROOT_CANDIDATES = 5  # actions searched at the root: the greedy policy's favourites
TREE_CANDIDATES = 3  # actions a node below the root branches into
PER_PLACE = 2  # at most this many candidates put people on the same place
EXPAND_AFTER = 6  # a node below the root branches once it has had this many visits
EXPLORATION = 0.4
MARGIN_SCALE = 20.0  # points of lead over the best opponent worth a reward of about 0.73
PRUNE_EVERY = 3  # every this many sweeps the worst root candidate is dropped (0: never)
CONFIDENCE = 1.0  # another action replaces the policy's only if better by this many std errors
SEARCHED = frozenset({"place"})  # decision kinds searched; the policy answers the others

#: The greedy policy's resolution order by engine place: its order of place names, then the
#: place itself (card slots by cost). Two buildings also need their tiles: the policy decides.
_RESOLVE_RANK = tuple(
    (policy.RESOLVE_ORDER.index(place_fields(place)["place"]), place)
    for place in range(NUM_PLACES)
)

#: The action dict of a key, shared between calls (the policy only reads it).
_action = lru_cache(maxsize=None)(key_to_action)


class Node:
    """Statistics of one action in the tree, and the actions searched after it."""

    __slots__ = ("available", "children", "keys", "value", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.value = 0.0  # summed rewards of the searching seat
        self.available = 0  # how often this action was legal when its parent was reached
        self.keys: list[Any] | None = None  # this node's candidate keys, once it branches
        self.children: dict[Any, Node] = {}


def policy_index(state: StoneAgeState, components: dict[str, Any]) -> int:
    """The greedy policy's move in ``state``, for whichever seat is to act."""
    keys = state.legal_keys()
    if keys[0][0] == RESOLVE and sum(1 for k in keys if k[1] >= PILE0) < 2:
        # The policy's fixed resolution order, without building an observation.
        return min(range(len(keys)), key=lambda i: _RESOLVE_RANK[keys[i][1]])
    seat = state.current_player
    assert seat is not None
    return policy.choose(state.observation(seat), [_action(k) for k in keys], components)


def reward(state: StoneAgeState, seat: int) -> float:
    """In (0, 1): a logistic function of ``seat``'s lead over the best other seat."""
    scores = [state.score_now(p) for p in range(state.num_players)]
    lead = scores[seat] - max(s for p, s in enumerate(scores) if p != seat)
    return 1.0 / (1.0 + math.exp(-lead / MARGIN_SCALE))


def candidates(keys: list[Any], order: list[int], limit: int) -> list[int]:
    """The first ``limit`` indices of ``order``, at most PER_PLACE of them on one place."""
    picked: list[int] = []
    per_place: dict[Any, int] = {}
    for i in order:
        key = keys[i]
        where = key[1] if key[0] == PLACE else key
        if per_place.get(where, 0) < PER_PLACE:
            per_place[where] = per_place.get(where, 0) + 1
            picked.append(i)
            if len(picked) == limit:
                break
    return picked


def search(
    game: Game,
    observation: dict[str, Any],
    legal_actions: list[dict[str, Any]],
    components: dict[str, Any],
    rng: random.Random,
    seconds: float,
    max_iterations: int | None = None,
) -> tuple[int, int]:
    """The index of the action to play, and how many iterations (rollouts) were run.

    It starts no sweep it expects to end after ``seconds``; with ``max_iterations`` it also
    stops once it has run that many (rounded up to whole sweeps), so that a game played with
    the same seeds is played the same way unless the time runs out first.
    """
    order = policy.preferences(observation, legal_actions, components)
    if len(legal_actions) == 1 or observation["decision"]["kind"] not in SEARCHED:
        return order[0], 0
    seat = observation["seat"]
    sample = _sample(game, observation, rng)
    root = candidates(sample.legal_keys(), order, ROOT_CANDIDATES)
    if len(root) == 1:
        return root[0], 0
    nodes = [Node() for _ in root]
    rewards: list[list[float]] = [[] for _ in root]  # per candidate, per sweep it was in
    live = list(range(len(root)))  # the candidates still searched
    start = time.perf_counter()
    deadline = start + seconds
    iterations = sweeps = 0
    while True:
        for i in live:
            index, node = root[i], nodes[i]
            state = sample.clone()
            state.apply_index(index)
            path = [node]
            _play_out(state, path, seat, components)
            r = reward(state, seat)
            for n in path:
                n.visits += 1
                n.value += r
            rewards[i].append(r)
            iterations += 1
        sweeps += 1
        if PRUNE_EVERY and len(live) > 2 and sweeps % PRUNE_EVERY == 0:
            # The policy's own choice (candidate 0) stays: every other is compared with it.
            live.remove(min(live[1:], key=lambda i: (nodes[i].value, i)))
        now = time.perf_counter()
        if max_iterations is not None and iterations >= max_iterations:
            break
        if now + (now - start) / sweeps > deadline:
            break
        sample = _sample(game, observation, rng)
    best = max(live, key=lambda i: (nodes[i].value / nodes[i].visits, -i))
    return root[best if _better(rewards[best], rewards[0]) else 0], iterations


def _sample(game: Game, observation: dict[str, Any], rng: random.Random) -> StoneAgeState:
    """One world consistent with ``observation``, its hidden parts and future dice drawn."""
    state = game.determinize(observation, rng)
    assert isinstance(state, StoneAgeState)
    return state


def _better(mine: list[float], base: list[float]) -> bool:
    """Whether ``mine`` beats ``base`` by more than CONFIDENCE standard errors, compared sweep
    by sweep (the last len(mine) sweeps: a candidate is only ever dropped, never added)."""
    diffs = [a - b for a, b in zip(mine, base[len(base) - len(mine):], strict=True)]
    n = len(diffs)
    if n < 2:
        return False
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean > CONFIDENCE * math.sqrt(var / n)


def _play_out(
    state: StoneAgeState, path: list[Node], seat: int, components: dict[str, Any]
) -> None:
    """Play ``state`` to the end from the node ``path[-1]``: the tree chooses this seat's
    placements while it can, the greedy policy everything else. Nodes walked are appended to
    ``path``."""
    node = path[-1]
    while not state.is_terminal:
        keys = state.legal_keys()
        if (state.current_player != seat or keys[0][0] != PLACE
                or node.visits < EXPAND_AFTER):
            state.apply_index(policy_index(state, components))
            continue
        if node.keys is None:
            order = policy.preferences(state.observation(seat),
                                       [_action(k) for k in keys], components)
            node.keys = [keys[i] for i in candidates(keys, order, TREE_CANDIDATES)]
        best: Node | None = None
        best_key = None
        best_ucb = -1.0
        legal = set(keys)
        for key in node.keys:
            if key not in legal:
                continue
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = Node()
            child.available += 1
            ucb = (math.inf if child.visits == 0 else child.value / child.visits
                   + EXPLORATION * math.sqrt(math.log(child.available) / child.visits))
            if ucb > best_ucb:
                best, best_key, best_ucb = child, key, ucb
        if best is None:  # none of the node's candidates is legal in this world
            state.apply_index(policy_index(state, components))
            continue
        state.apply_key(best_key)
        path.append(best)
        node = best
