"""The conformance checks every game must pass.

Each check plays seeded random games through the public :class:`~arena.engine.api.State`
contract and raises :class:`ConformanceError` with the seed and the step on the first
violation. :func:`check_game` runs them all; the test suite runs it for every registered game.

The random choices come from private ``random.Random`` instances seeded by the caller, never
from a global generator.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Hashable, Iterable
from typing import Any

import msgpack

from arena.engine.api import Game, IllegalActionError, State

PLAIN_SCALARS = (str, int, float, bool, type(None))


class ConformanceError(AssertionError):
    """A game broke the engine contract."""


def _fail(game: Game, players: int, seed: int, step: int, what: str) -> ConformanceError:
    return ConformanceError(f"{game.name} {players}p seed {seed} step {step}: {what}")


def plain_data_problem(value: Any, path: str = "$") -> str | None:
    """None if ``value`` is plain data (dict with str keys, list, str, int, float, bool,
    None, nested), else a description of the first offending part."""
    if _is_plain(value):
        return None
    return _first_problem(value, path)


#: The exact types of plain scalars, for :func:`_is_plain`'s look-ups.
_PLAIN_SCALAR_TYPES = frozenset(PLAIN_SCALARS)


def _is_plain(value: Any) -> bool:
    """Whether ``value`` is plain data: :func:`_first_problem` would find nothing. The kit asks
    this of every observation, action and saved state it looks at, nearly always of plain
    data, so it walks the value without the path names that only a problem needs."""
    t = type(value)
    if t is list:
        items: Iterable[Any] = value
    elif t is dict:
        for k in value:
            if type(k) is not str:
                return False
        items = value.values()
    else:
        return t in _PLAIN_SCALAR_TYPES
    for v in items:  # a loop, not all(): a generator per list costs twice the time  # noqa: SIM110
        if type(v) not in _PLAIN_SCALAR_TYPES and not _is_plain(v):
            return False
    return True


def _first_problem(value: Any, path: str) -> str | None:
    """The description of the first part of ``value`` that is not plain data, named by its
    path from ``path``; None if there is none."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int | float):
        if type(value) not in PLAIN_SCALARS:
            return f"{path} is a {type(value).__name__}, not a plain scalar"
        return None
    if type(value) is list:
        for i, v in enumerate(value):
            problem = _first_problem(v, f"{path}[{i}]")
            if problem:
                return problem
        return None
    if type(value) is dict:
        for k, v in value.items():
            if type(k) is not str:
                return f"{path} has a non-string key {k!r}"
            problem = _first_problem(v, f"{path}.{k}")
            if problem:
                return problem
        return None
    return f"{path} is a {type(value).__name__}"


def random_playout(
    state: State, rng: random.Random, on_step: Callable[[State, int], None] | None = None
) -> list[int]:
    """Play ``state`` to the end with uniform random choices; return the chosen indices.

    ``on_step(state, step)`` is called before each decision.
    """
    choices: list[int] = []
    limit = state.game.max_decisions(state.num_players)
    while not state.is_terminal:
        if len(choices) >= limit:
            raise ConformanceError(
                f"{state.game.name}: no end after the declared maximum of {limit} decisions"
            )
        if on_step is not None:
            on_step(state, len(choices))
        i = rng.randrange(state.num_legal())
        choices.append(i)
        state.apply_index(i)
    return choices


def replay(game: Game, players: int, seed: int, choices: Iterable[int]) -> State:
    """A new game from ``seed`` with ``choices`` (legal-action indices) applied in order."""
    state = game.new_state(players, seed=seed)
    for i in choices:
        state.apply_index(i)
    return state


def check_playouts(game: Game, players: int, seeds: Iterable[int]) -> None:
    """Random games end within the declared maximum; every state keeps the invariants; every
    offered action applies; progress, if the game counts it, never goes back; the result is
    well formed; a key names the same action wherever it is offered (the referee encodes each
    key's action once and reuses it)."""
    named: dict[Hashable, dict[str, Any]] = {}
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_state(players, seed=seed)

        progress: list[int] = []

        def step(
            s: State, k: int, seed: int = seed, rng: random.Random = rng,
            progress: list[int] = progress, named: dict[Hashable, dict[str, Any]] = named,
        ) -> None:
            cur = s.current_player
            if cur is None or not 0 <= cur < players:
                raise _fail(game, players, seed, k, f"current player {cur!r} out of range")
            now = s.progress
            if now is not None:
                if type(now) is not int or (progress and now < progress[-1]):
                    raise _fail(game, players, seed, k, f"progress {now!r} is not a "
                                "non-decreasing int")
                progress.append(now)
            actions = s.legal_actions()
            if not actions:
                raise _fail(game, players, seed, k, "no legal action in a live state")
            keys = s.legal_keys()
            if len(keys) != len(actions):
                raise _fail(game, players, seed, k, "legal_keys and legal_actions differ")
            for key, a in zip(keys, actions, strict=True):
                first = named.setdefault(key, a)
                if first != a or s.action_of(key) != a:
                    raise _fail(game, players, seed, k, f"key {key!r} names {a!r} here but "
                                f"{first!r} before: equal keys must mean equal actions")
            for a in actions:
                if not isinstance(a.get("type"), str):
                    raise _fail(game, players, seed, k, f"action without a type: {a!r}")
                problem = plain_data_problem(a)
                if problem:
                    raise _fail(game, players, seed, k, f"action not plain data: {problem}")
            # Every offered action applies (checked on a sample of clones to bound cost).
            for a in rng.sample(actions, min(3, len(actions))):
                c = s.clone()
                try:
                    c.apply(a)
                except IllegalActionError as exc:
                    raise _fail(game, players, seed, k, f"offered {a!r} failed: {exc}") from exc

        random_playout(state, rng, step)
        if state.current_player is not None or state.legal_actions():
            raise _fail(game, players, seed, -1, "a finished game still offers actions")
        check_result(state, f"{game.name} {players}p seed {seed}")


def check_result(state: State, label: str) -> None:
    """The result of a finished game is consistent: ranks follow scores and tie-breaks, and
    each seat's breakdown adds up to its score."""
    r = state.result()
    n = state.num_players
    if not (len(r.scores) == len(r.ranks) == len(r.breakdown) == n):
        raise ConformanceError(f"{label}: result lengths differ from {n} seats")
    for s in range(n):
        if sum(r.breakdown[s].values()) != r.scores[s]:
            raise ConformanceError(f"{label}: seat {s} breakdown does not add up to its score")
        better = sum(
            1 for o in range(n) if (r.scores[o], r.tiebreak[o]) > (r.scores[s], r.tiebreak[s])
        )
        if r.ranks[s] != 1 + better:
            raise ConformanceError(f"{label}: seat {s} rank {r.ranks[s]}, expected {1 + better}")
    problem = plain_data_problem(r.to_dict())
    if problem:
        raise ConformanceError(f"{label}: result is not plain data: {problem}")


def check_determinism(game: Game, players: int, seeds: Iterable[int]) -> None:
    """The same seed and the same choices give the same game, decision by decision."""
    for seed in seeds:
        first = game.new_state(players, seed=seed)
        trace: list[Any] = []

        def record(s: State, k: int, trace: list[Any] = trace) -> None:
            trace.append(s.legal_actions())

        choices = random_playout(first, random.Random(seed), record)
        second = game.new_state(players, seed=seed)
        for k, i in enumerate(choices):
            if second.legal_actions() != trace[k]:
                raise _fail(game, players, seed, k, "replay offers different actions")
            second.apply_index(i)
        if first.to_dict() != second.to_dict() or first.result() != second.result():
            raise _fail(game, players, seed, len(choices), "replay ends in a different state")


def check_clone_and_serialization(game: Game, players: int, seeds: Iterable[int]) -> None:
    """Clones are independent and faithful; to_dict/from_dict round-trip exactly, and the
    restored state plays on identically."""
    for seed in seeds:
        rng = random.Random(seed * 7919 + 1)
        state = game.new_state(players, seed=seed)
        choices = random_playout(state.clone(), random.Random(seed))
        probes = set(rng.sample(range(len(choices)), min(12, len(choices))))
        for k, i in enumerate(choices):
            if k in probes:
                _probe(game, players, seed, k, state, choices[k:])
            state.apply_index(i)
        _probe(game, players, seed, len(choices), state, [])


def _probe(game: Game, players: int, seed: int, k: int, state: State, rest: list[int]) -> None:
    before = state.to_dict()
    problem = plain_data_problem(before)
    if problem:
        raise _fail(game, players, seed, k, f"to_dict is not plain data: {problem}")
    if json.loads(json.dumps(before)) != before:
        raise _fail(game, players, seed, k, "to_dict does not survive JSON")
    restored = game.state_from_dict(before)
    if restored.to_dict() != before:
        raise _fail(game, players, seed, k, "from_dict(to_dict()) is not the same state")
    if restored.legal_actions() != state.legal_actions():
        raise _fail(game, players, seed, k, "restored state offers different actions")
    clone = state.clone()
    for i in rest:
        clone.apply_index(i)
        restored.apply_index(i)
    if state.to_dict() != before:
        raise _fail(game, players, seed, k, "playing a clone changed the original")
    if clone.to_dict() != restored.to_dict():
        raise _fail(game, players, seed, k, "clone and restored state diverge")
    # An action that was not offered is refused and changes nothing.
    if not state.is_terminal:
        bogus = {"type": "__not_an_action__"}
        try:
            state.apply(bogus)
        except IllegalActionError:
            pass
        else:
            raise _fail(game, players, seed, k, "an unknown action was accepted")
        try:
            state.apply_index(state.num_legal())
        except IllegalActionError:
            pass
        else:
            raise _fail(game, players, seed, k, "an out-of-range index was accepted")
        if state.to_dict() != before:
            raise _fail(game, players, seed, k, "a refused action changed the state")


def check_observations(game: Game, players: int, seeds: Iterable[int]) -> None:
    """Observations are plain data that survive JSON and msgpack unchanged, for every seat."""
    for seed in seeds:
        state = game.new_state(players, seed=seed)
        rng = random.Random(seed + 17)

        def step(s: State, k: int, seed: int = seed, rng: random.Random = rng) -> None:
            if rng.random() < 0.1:
                for seat in range(players):
                    _check_observation(game, players, seed, k, s, seat)

        random_playout(state, random.Random(seed), step)
        for seat in range(players):
            _check_observation(game, players, seed, -1, state, seat)


def _check_observation(
    game: Game, players: int, seed: int, k: int, s: State, seat: int
) -> None:
    obs = s.observation(seat)
    problem = plain_data_problem(obs)
    if problem:
        raise _fail(game, players, seed, k, f"observation for seat {seat}: {problem}")
    if json.loads(json.dumps(obs)) != obs:
        raise _fail(game, players, seed, k, "observation does not survive JSON")
    if msgpack.unpackb(msgpack.packb(obs), strict_map_key=True) != obs:
        raise _fail(game, players, seed, k, "observation does not survive msgpack")


def check_determinization(game: Game, players: int, seeds: Iterable[int]) -> None:
    """For games that support it: a state built from a seat's observation shows that seat
    exactly the same observation, offers the same actions when that seat is to act, and plays
    on to the end. Skipped for a game without determinization."""
    for seed in seeds:
        state = game.new_state(players, seed=seed)
        rng = random.Random(seed * 31 + 7)
        try:
            game.determinize(state.observation(0), random.Random(0))
        except NotImplementedError:
            return

        def step(s: State, k: int, seed: int = seed, rng: random.Random = rng) -> None:
            if rng.random() >= 0.08:
                return
            for seat in range(players):
                obs = s.observation(seat)
                d = game.determinize(obs, random.Random(rng.getrandbits(32)))
                if d.observation(seat) != obs:
                    raise _fail(game, players, seed, k, f"determinized state shows seat {seat} "
                                "a different observation")
                if seat == s.current_player and d.legal_actions() != s.legal_actions():
                    raise _fail(game, players, seed, k, "determinized state offers different "
                                "actions to the seat to act")
            random_playout(d, random.Random(k))

        random_playout(state, random.Random(seed), step)


def check_options(game: Game, players: int, seeds: Iterable[int]) -> None:
    """Each value of each option reaches the state, which keeps its options, complete, through
    a clone, a save (which holds only those that differ from the defaults, and no ``options``
    key when none do) and a load, looked at every 25 steps of a random playout and at its
    end."""
    schema = game.options_schema()
    choices: list[dict[str, str]] = [{}] + [{name: value} for name, spec in sorted(schema.items())
                      for value in spec.values if value != spec.default]
    for seed in seeds:
        for raw in choices:
            want = game.validate_options(raw)
            state = game.new_state(players, seed=seed, options=raw)
            rng = random.Random(seed)
            for k in range(game.max_decisions(players) + 1):
                if k % 25 and not state.is_terminal:
                    state.apply_index(rng.randrange(state.num_legal()))
                    continue
                saved = state.to_dict()
                if state.options != want or state.clone().options != want:
                    raise _fail(game, players, seed, k, f"options {raw}: the state has "
                                f"{state.options}, its clone {state.clone().options}")
                if saved.get("options", {}) != game.canonical_options(want) or (
                        saved.get("options") == {}):
                    raise _fail(game, players, seed, k, f"options {raw}: saved as "
                                f"{saved.get('options')!r}")
                if game.state_from_dict(saved).options != want:
                    raise _fail(game, players, seed, k, f"options {raw}: lost on loading")
                if state.is_terminal:
                    break
                state.apply_index(rng.randrange(state.num_legal()))


def check_shared_actions(game: Game, seeds: Iterable[int]) -> None:
    """Where the game promises it (:attr:`Game.actions_shared_across_games`), a key names the
    same action in every game of the same options, whatever the player count and the seed:
    random games of each player count, of the defaults and of each other value of each option,
    looked at every decision. Nothing is checked for a game that does not promise it."""
    if not game.actions_shared_across_games:
        return
    schema = game.options_schema()
    choices: list[dict[str, str]] = [{}] + [{name: value} for name, spec in sorted(schema.items())
                      for value in spec.values if value != spec.default]
    seeds = list(seeds)
    for raw in choices:
        named: dict[Hashable, tuple[dict[str, Any], str]] = {}
        for players in range(game.min_players, game.max_players + 1):
            for seed in seeds:

                def step(s: State, k: int, seed: int = seed, players: int = players,
                         raw: dict[str, str] = raw,
                         named: dict[Hashable, tuple[dict[str, Any], str]] = named) -> None:
                    for key in s.legal_keys():
                        a = s.action_of(key)
                        first, where = named.setdefault(key, (a, f"{players}p seed {seed}"))
                        if first != a:
                            raise _fail(game, players, seed, k, f"options {raw}: key {key!r} "
                                        f"names {a!r} here but {first!r} in the game of "
                                        f"{where}: the game promises equal actions across "
                                        "games (actions_shared_across_games)")

                state = game.new_state(players, seed=seed, options=raw)
                random_playout(state, random.Random(seed), step)


def check_game(game: Game, seeds: Iterable[int] = range(3)) -> None:
    """Run every conformance check for every player count of ``game``."""
    seeds = list(seeds)
    for players in range(game.min_players, game.max_players + 1):
        check_playouts(game, players, seeds)
        check_determinism(game, players, seeds)
        check_clone_and_serialization(game, players, seeds)
        check_observations(game, players, seeds)
        check_determinization(game, players, seeds)
        check_options(game, players, seeds)
    check_shared_actions(game, seeds)
