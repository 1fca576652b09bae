"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS) for Stone Age.

Each iteration samples one full state consistent with what this seat knows (the engine's
``determinize``: deck order, hidden tiles, the others' extra cards, and fresh future dice),
then walks one tree shared by all samples. Tree edges are action keys, equal across samples;
an action not legal in a sample is simply not considered there, and UCB uses how often each
action was *available* instead of the parent's visit count. Chance is never chosen: dice are
inside the sampled state. Every seat picks its moves in the tree by its own reward, so the
search models opponents who also play to win.

After the tree, a short rollout with a cheap policy better than uniform random (it buys when it
can pay, feeds instead of taking the penalty, uses tools) plays on to the end of the next round,
and a value estimate turns the position into a reward per seat.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from arena.engine import Game
from arena.engine.stoneage import StoneAgeState
from arena.engine.stoneage.moves import FEED, PAY, PENALTY, TOOLS

EXPLORATION = 0.7
ROLLOUT_ROUNDS = 1  # rollouts stop at the end of the round after this one
MARGIN_SCALE = 15.0  # points of lead worth about 0.73 of a win


class Node:
    __slots__ = ("available", "children", "value", "visits")

    def __init__(self) -> None:
        self.children: dict[Any, Node] = {}
        self.visits = 0
        self.value = 0.0  # summed rewards of the seat that chose the edge into this node
        self.available = 0  # how often this edge's action was legal at its parent


def rollout_index(state: StoneAgeState, rng: random.Random) -> int:
    """A cheap policy: buy, feed and use tools when possible; otherwise uniform."""
    keys = state.legal_keys()
    op = keys[0][0]
    if op == PAY:  # payments come first, then decline (and claims)
        if rng.random() < 0.9:
            return rng.choice([i for i, k in enumerate(keys) if k[0] == PAY])
    elif op in (FEED, PENALTY):
        feeds = [i for i, k in enumerate(keys) if k[0] == FEED]
        if feeds:
            return rng.choice(feeds)
    elif op == TOOLS and len(keys) > 1:
        return len(keys) - 1  # the choice adding the most
    return rng.randrange(len(keys))


def evaluate(state: StoneAgeState) -> list[float]:
    """Reward per seat in [0, 1]: a projected final score, compared with the best opponent."""
    n = state.num_players
    rounds_left = _rounds_left(state)
    projected = []
    for p in range(n):
        score = float(state.score_now(p))
        g = state.goods(p)
        # Resources are worth more in buildings than the one point each they score now.
        score += 0.6 * (2 * g[1] + 3 * g[2] + 4 * g[3] + 5 * g[4])
        people, agri = state.people(p), state.agriculture(p)
        score += rounds_left * (2.2 * people + 1.0 * agri + 0.5 * sum(state.tool_values(p)))
        # A family that cannot be fed will pay 10 points a round.
        if g[0] + agri < people:
            score -= 5.0
        projected.append(score)
    rewards = []
    for p in range(n):
        best_other = max(projected[q] for q in range(n) if q != p)
        rewards.append(1.0 / (1.0 + math.exp(-(projected[p] - best_other) / MARGIN_SCALE)))
    return rewards


def _rounds_left(state: StoneAgeState) -> float:
    if state.is_terminal:
        return 0.0
    low = min(state.tiles_left())
    return max(0.0, min(low * 1.5, state.deck_left() / (1 + 0.5 * state.num_players)))


def search(
    game: Game,
    observation: dict[str, Any],
    legal_actions: list[dict[str, Any]],
    rng: random.Random,
    seconds: float,
    max_iterations: int | None = None,
) -> tuple[int, int]:
    """The index of the action to play, and how many iterations were run."""
    if len(legal_actions) == 1:
        return 0, 0
    root = Node()
    deadline = time.perf_counter() + seconds
    root_keys: list[Any] = []
    iterations = 0
    while True:
        if max_iterations is not None and iterations >= max_iterations:
            break
        if max_iterations is None and time.perf_counter() >= deadline:
            break
        state = game.determinize(observation, rng)
        assert isinstance(state, StoneAgeState)
        if not root_keys:
            root_keys = list(state.legal_keys())
        _iterate(state, root, rng)
        iterations += 1
    best = max(range(len(root_keys)),
               key=lambda i: (root.children[root_keys[i]].visits
                              if root_keys[i] in root.children else -1))
    return best, iterations


def _iterate(state: StoneAgeState, root: Node, rng: random.Random) -> None:
    node = root
    path: list[tuple[Node, int]] = []  # (child node, seat that chose it)
    stop_round = state.round + ROLLOUT_ROUNDS
    while not state.is_terminal:
        keys = state.legal_keys()
        seat = state.current_player
        assert seat is not None
        untried = []
        for k in keys:
            child = node.children.get(k)
            if child is None:
                untried.append(k)
            else:
                child.available += 1
        if untried:
            k = rng.choice(untried)
            child = Node()
            child.available = 1
            node.children[k] = child
            path.append((child, seat))
            state.apply_key(k)
            break
        best_key, best_ucb = keys[0], -1.0
        for k in keys:
            c = node.children[k]
            ucb = c.value / c.visits + EXPLORATION * math.sqrt(math.log(c.available + 1) / c.visits)
            if ucb > best_ucb:
                best_key, best_ucb = k, ucb
        node = node.children[best_key]
        path.append((node, seat))
        state.apply_key(best_key)
    while not state.is_terminal and state.round <= stop_round:
        state.apply_index(rollout_index(state, rng))
    rewards = evaluate(state)
    for child, seat in path:
        child.visits += 1
        child.value += rewards[seat]
