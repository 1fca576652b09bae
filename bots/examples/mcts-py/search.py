"""Information-set Monte Carlo tree search for any Arena game, guided by the game's greedy policy.

The search knows nothing of any game's rules. It uses the engine contract only: the game's
``determinize`` (a full state consistent with what this seat knows: the hidden parts drawn
from what the seat has not seen, and a fresh seed for future chance), ``clone``, the legal keys
and actions, ``apply_index``/``apply_key``, ``observation`` and, at the end of a game,
``result``. So chance and hidden information are sampled, never chosen.

What it knows of a game comes from greedy-py's policy for that game (``policies.policy_for``):
``preferences`` (every legal action, best first) picks the few actions worth searching, and
``choose`` is the model of every move the search does not search: the other seats' moves, this
seat's minor decisions, and the rollout to the end of the game. The final scores of the
rollout give the reward. The decisions searched are those offering an action of a type the
game's TUNING names ("place": where a person goes, in both games; in Agricola's card game also
which card to play and which to draft). They are told by the legal actions, not by the
observation's ``decision``, so a decision is searched however the game describes it.

Where whole rollouts are too long for the time (Agricola), TUNING may set a horizon: a
rollout stops once this seat has made that many placements after the root, and the reward
is taken from the policy's ``estimate`` of each seat's final score instead of the real one.

The root holds the few actions the policy likes best. Every sampled world is played once from
each of them (a *sweep*), so the candidates are always compared on the same hidden cards and
the same future chance: luck mostly cancels out of the comparison. When the time left cannot
pay for a whole sweep, the next one plays the policy's choice and the best others that fit:
where rollouts are long (early in an Agricola game, a sweep of five takes most of 200 ms) a
second sweep is what lets the search overrule the policy at all. Below each root action grows
a tree over this seat's later searched decisions in the game, shared by all sampled worlds
(edges are action keys; an action not legal in a world is skipped there, and the exploration
term counts how often an action was available). A node branches into its own candidates only
after it has been visited enough times; until then the policy moves for it.

The few things that differ between games are in TUNING, each with its reason.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.engine import Game, State

# greedy-py's policies (a sibling example) are the prior, the opponent model and the rollout.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "greedy-py"))
import policies

ROOT_CANDIDATES = 5  # actions searched at the root: the policy's favourites
TREE_CANDIDATES = 3  # actions a node below the root branches into
PER_CHOICE = 2  # at most this many candidates differ only in the game's amount field
EXPAND_AFTER = 6  # a node below the root branches once it has had this many visits
EXPLORATION = 0.4
PRUNE_EVERY = 3  # every this many sweeps the worst root candidate is dropped (0: never)
SHRINK = True  # when a whole sweep no longer fits in the time, sweep the best that fit
CONFIDENCE = 1.0  # another action replaces the policy's only if better by this many std errors
ACTION_CACHE = 200_000  # action dicts kept by key before the cache starts afresh


@dataclass(frozen=True)
class Tuning:
    """What the search must know of a game that the engine contract does not say."""

    #: Points of lead over the best other seat worth a reward of about 0.73 (the logistic's
    #: scale): the size of a typical final margin between good players, in the game's points.
    margin_scale: float
    #: The action field that only says how many (Stone Age's "people" on a place): candidates
    #: whose actions differ only in it are one choice, so that at most PER_CHOICE of them are
    #: searched and the rest of the budget goes to different choices. None: every action its own.
    amount: str | None = None
    #: The action types that make a decision searched (any legal action of one of them): the
    #: policy answers every other decision.
    searched: frozenset[str] = frozenset({"place"})
    #: A rollout stops when this seat is about to make its ``horizon``-th decision after the
    #: root that offers an action of type ``horizon_unit`` (a placement: the horizon is in
    #: rounds, roughly, and a draft before the first round is played out whole), and the
    #: reward comes from the policy's ``estimate(observation)`` (a seat's final score as the
    #: policy expects it) of every seat. None: rollouts play to the end and the reward comes
    #: from the real final scores.
    horizon: int | None = None
    horizon_unit: str = "place"


#: Stone Age: final margins between good players are tens of points (scores 100-250), and a
#: placement names a place and how many people go there. Agricola: scores run about -20..50
#: and games are won by a few points; a placement names its space only. Its card game adds
#: the choice of card to play (and to draft) to the placements searched. Rollouts stop after
#: AGRICOLA_HORIZON placements of this seat (about three rounds early on, two late): a whole
#: game's rollout takes tens of milliseconds early in a card game (about twice a Family game's),
#: which left time for one sweep of the candidates, never enough to overrule the policy.
AGRICOLA_HORIZON = 8
TUNING = {
    "stoneage": Tuning(margin_scale=20.0, amount="people"),
    "agricola": Tuning(margin_scale=8.0, horizon=AGRICOLA_HORIZON,
                       searched=frozenset({"place", "play_occupation", "play_minor", "draft"})),
}
DEFAULT_TUNING = Tuning(margin_scale=10.0)


class Guide:
    """A game's greedy policy and what the search keeps around it: the component tables it
    reads, the game's tuning, and the action dict of every key met so far (equal keys are equal
    actions in every state of a game, so each dict is built once; the policy only reads them)."""

    def __init__(self, game: Game, components: dict[str, Any]) -> None:
        self.game = game
        self.policy: ModuleType = policies.policy_for(game.name)
        self.components = components
        self.tuning = TUNING.get(game.name, DEFAULT_TUNING)
        #: The policy's estimate of a seat's final score, where the tuning cuts rollouts short.
        self.estimate = getattr(self.policy, "estimate", None) if self.tuning.horizon else None
        self._actions: dict[Hashable, dict[str, Any]] = {}

    def actions(self, state: State) -> list[dict[str, Any]]:
        """The legal actions of ``state`` as dicts, in the order of its legal keys."""
        cache = self._actions
        if len(cache) > ACTION_CACHE:
            cache.clear()
        out = []
        for key in state.legal_keys():
            action = cache.get(key)
            if action is None:
                action = cache[key] = state.action_of(key)
            out.append(action)
        return out

    def move(self, state: State) -> int:
        """The policy's move in ``state``, for whichever seat is to act."""
        seat = state.current_player
        assert seat is not None
        return int(self.policy.choose(state.observation(seat), self.actions(state),
                                      self.components))


_guides: dict[str, Guide] = {}


def guide_for(game: Game, components: dict[str, Any]) -> Guide:
    """The guide of ``game`` (made once per game; LookupError if greedy-py has no policy for it)."""
    guide = _guides.get(game.name)
    if guide is None or guide.game is not game:
        guide = _guides[game.name] = Guide(game, components)
    guide.components = components
    return guide


class Node:
    """Statistics of one action in the tree, and the actions searched after it."""

    __slots__ = ("available", "children", "keys", "value", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.value = 0.0  # summed rewards of the searching seat
        self.available = 0  # how often this action was legal when its parent was reached
        self.keys: list[Hashable] | None = None  # this node's candidate keys, once it branches
        self.children: dict[Hashable, Node] = {}


def reward(state: State, seat: int, guide: Guide) -> float:
    """In (0, 1): a logistic function of ``seat``'s final lead over the best other seat, in
    units of the game's margin scale. The final scores are the real ones once ``state`` is
    over, the policy's estimates of them before (a rollout cut at the horizon)."""
    if state.is_terminal:
        scores: list[float] = list(state.result().scores)
    else:
        assert guide.estimate is not None
        scores = [guide.estimate(state.observation(p)) for p in range(state.num_players)]
    lead = scores[seat] - max(s for p, s in enumerate(scores) if p != seat)
    return 1.0 / (1.0 + math.exp(-lead / guide.tuning.margin_scale))


def searched(actions: list[dict[str, Any]], types: frozenset[str]) -> bool:
    """Whether a decision offering ``actions`` is one the search searches."""
    return len(actions) > 1 and any(a["type"] in types for a in actions)


def candidates(
    actions: list[dict[str, Any]], order: list[int], limit: int, amount: str | None = None
) -> list[int]:
    """The first ``limit`` indices of ``order``, at most PER_CHOICE of them for actions that
    differ only in their ``amount`` field."""
    picked: list[int] = []
    per_choice: dict[Any, int] = {}
    for i in order:
        action = actions[i]
        if amount is not None and amount in action:
            choice: Any = tuple((k, v) for k, v in action.items() if k != amount)
            if per_choice.get(choice, 0) >= PER_CHOICE:
                continue
            per_choice[choice] = per_choice.get(choice, 0) + 1
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
    guide = guide_for(game, components)
    policy = guide.policy
    if not searched(legal_actions, guide.tuning.searched):
        return int(policy.choose(observation, legal_actions, components)), 0
    order = policy.preferences(observation, legal_actions, components)
    seat = observation["seat"]
    root = candidates(legal_actions, order, ROOT_CANDIDATES, guide.tuning.amount)
    if len(root) == 1:
        return root[0], 0
    nodes = [Node() for _ in root]
    rewards: list[list[float]] = [[] for _ in root]  # per candidate, per sweep it was in
    live = list(range(len(root)))  # the candidates still searched
    start = time.perf_counter()
    deadline = start + seconds
    iterations = sweeps = 0
    while True:
        sample = game.determinize(observation, rng)
        for i in live:
            node = nodes[i]
            state = sample.clone()
            state.apply_index(root[i])
            path = [node]
            _play_out(state, path, seat, guide)
            r = reward(state, seat, guide)
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
        fit = int((deadline - now) / ((now - start) / iterations))  # rollouts left in the time
        if fit < len(live):
            if not SHRINK or fit < 2:
                break
            # Too little time for a whole sweep: the policy's choice and the best others that
            # fit go on (a candidate played on a single world can never be chosen anyway).
            rest = sorted(live[1:], key=lambda i: (-nodes[i].value / nodes[i].visits, i))
            live = [live[0], *sorted(rest[:fit - 1])]
    best = max(live, key=lambda i: (nodes[i].value / nodes[i].visits, -i))
    return root[best if _better(rewards[best], rewards[0]) else 0], iterations


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


def _play_out(state: State, path: list[Node], seat: int, guide: Guide) -> None:
    """Play ``state`` from the node ``path[-1]`` to the end, or to the tuning's horizon: the
    tree chooses this seat's searched decisions while it can, the policy everything else.
    Nodes walked are appended to ``path``."""
    node = path[-1]
    policy, components = guide.policy, guide.components
    types, unit = guide.tuning.searched, guide.tuning.horizon_unit
    horizon = guide.tuning.horizon if guide.estimate is not None else None
    depth = 0  # this seat's decisions of the horizon's unit so far
    while not state.is_terminal:
        player = state.current_player
        assert player is not None
        obs = state.observation(player)
        actions = guide.actions(state)
        mine = player == seat and searched(actions, types)
        if horizon is not None and player == seat and any(a["type"] == unit for a in actions):
            depth += 1
            if depth >= horizon:
                return
        if not mine or node.visits < EXPAND_AFTER:
            state.apply_index(policy.choose(obs, actions, components))
            continue
        keys = state.legal_keys()
        if node.keys is None:
            order = policy.preferences(obs, actions, components)
            picked = candidates(actions, order, TREE_CANDIDATES, guide.tuning.amount)
            node.keys = [keys[i] for i in picked]
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
            state.apply_index(policy.choose(obs, actions, components))
            continue
        state.apply_key(best_key)
        path.append(best)
        node = best
