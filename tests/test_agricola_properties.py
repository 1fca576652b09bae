"""Properties over many random Agricola games at 1-4 players.

After every step: no negative goods, 2 to 5 people, at most 15 fences and 4 stables, a
farmyard the rules can reach (it survives ``Farm.from_dict(f.to_dict())``, which checks rooms
joined to the house, fields joined together, pastures joined, every fence enclosing
something), animals that fit between decisions, each major in exactly one place, things that
never go back (begging, people, rooms, fields, stables, fences), the saved form and the
observation read back to the same position, ``determinize`` keeping all that a seat sees.
Every legal action tried on a copy applies, and an action that is not offered is refused
without a change. Every game ends after round 14's harvest with a result whose breakdown adds
up, within ``max_decisions``.

The players are random but biased towards doing things (growing, building, fencing, taking
animals), so that the deep parts of the rules are reached; the run asserts that they were.
The default run is short; ``--run-slow`` plays thousands of games.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from agri import GAME, new

from arena.engine.agricola.components import (
    BOAR,
    CATTLE,
    GOODS,
    HARVEST_ROUNDS,
    MAX_FENCES,
    MAX_PEOPLE,
    MAX_STABLES,
    SHEEP,
    SPACE_KEYS,
)
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.parts import options
from arena.engine.agricola.scoring import SCORE_KEYS
from arena.engine.agricola.state import AgricolaState
from arena.engine.agricola.usable import DECIDING_PARTS
from arena.engine.api import IllegalActionError, competition_ranks

#: How much a biased player likes each kind of action (others 1).
LIKES = {"stop": 0.3, "build_room": 6.0, "family_growth": 8.0, "build_major": 3.0,
         "pasture": 3.0, "pasture_from": 3.0, "sow": 3.0, "plough": 2.0, "build_stable": 2.0}
#: How much it likes placing on each space (others 1).
LIKES_SPACE = {"basic_wish_for_children": 10.0, "urgent_wish_for_children": 10.0,
               "farm_expansion": 4.0, "fencing": 4.0, "major_improvement": 3.0,
               "house_redevelopment": 3.0, "farm_redevelopment": 3.0, "sheep_market": 3.0,
               "pig_market": 3.0, "cattle_market": 3.0, "forest": 2.0, "clay_pit": 2.0,
               "grain_utilization": 2.0, "cultivation": 2.0}


def choose(s: AgricolaState, rng: random.Random, bias: float) -> int:
    """A legal action's index: uniform with probability 1 - bias, else weighted by LIKES; at
    feeding the least begging first."""
    actions = s.legal_actions()
    if rng.random() >= bias:
        return rng.randrange(len(actions))
    if s.phase == "feed":
        return 0 if rng.random() < 0.8 else rng.randrange(len(actions))
    weights = []
    for a in actions:
        if a["type"] == "place":
            weights.append(LIKES_SPACE.get(SPACE_KEYS[a["space"]], 1.0))
        else:
            weights.append(LIKES.get(a["type"], 1.0))
    return rng.choices(range(len(actions)), weights)[0]


class Seen:
    """What the games reached, to show that the invariants were exercised."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def note(self, s: AgricolaState, action: dict[str, Any]) -> None:
        c = self.counts
        c[f"type:{action['type']}"] += 1
        c[f"phase:{s.phase}"] += 1
        for p in range(s.num_players):
            f = s._farms[p]
            if s._people[p] == MAX_PEOPLE:
                c["five people"] += 1
            if f.fences_built() == MAX_FENCES:
                c["15 fences"] += 1
            if f.num_stables() == MAX_STABLES:
                c["4 stables"] += 1
            if f.fenced_stables():
                c["fenced stable"] += 1
            if f.material == 2:
                c["stone house"] += 1
            if s._goods[p][CATTLE]:
                c["cattle"] += 1


def farm_ok(f: Farm) -> None:
    assert f.fences_built() <= MAX_FENCES
    assert f.num_stables() <= MAX_STABLES
    again = Farm.from_dict(f.to_dict())  # raises on a farm the rules cannot reach
    assert again == f
    assert again.pastures == f.pastures
    assert f.rooms & (1 << 5) and f.rooms & (1 << 10)
    assert not f.rooms & f.fields and not (f.rooms | f.fields) & f.pastured()
    assert f.unused_spaces() == 15 - f.used().bit_count()


def check(s: AgricolaState) -> dict[str, Any]:
    """The invariants of one settled position; returns its saved form."""
    n = s.num_players
    d = s.to_dict()
    owned: list[int] = []
    for p in range(n):
        g = s._goods[p]
        assert len(g) == len(GOODS) and min(g) >= 0, (p, g)
        assert 2 <= s._people[p] <= MAX_PEOPLE
        assert 0 <= s._newborns[p] <= s._people[p] - 2
        assert 0 <= s._home[p] <= s._people[p] - s._newborns[p]
        assert s._begging[p] >= 0
        f = s._farms[p]
        farm_ok(f)
        asking_keep = s.phase == "action" and s.current_player == p and d["decision"]["keep"]
        if not asking_keep:  # animals always fit between decisions
            assert f.fits(g[SHEEP], g[BOAR], g[CATTLE]), (p, g[7:], f)
        owned.extend(s._majors[p])
        assert list(s._majors[p]) == sorted(set(s._majors[p]))
    on_board = d["board"]["majors"]
    assert sorted(owned + on_board) == list(range(10))  # each major in one place
    if s.is_terminal:
        assert s.current_player is None and s.legal_actions() == []
        return d
    assert s.current_player == d["decision"]["seat"]
    keys = s.legal_keys()
    assert len(keys) >= 2  # a single legal action is applied at once
    assert len(set(keys)) == len(keys)
    assert d["round"] == s.round
    if s.phase == "place":
        assert s._home[s._cur] > 0
        # P1, by the slow road: a free space is offered exactly when one of its deciding
        # parts has a legal sub-action (the state uses a faster, cached test).
        h, b = s.holding(s._cur), s._board
        usable = [sp for sp in b.free_spaces()
                  if any(options(part, h, b, sp, 0) for part in DECIDING_PARTS[sp])]
        assert [a["space"] for a in s.legal_actions()] == sorted(usable)  # by space id
    return d


def check_saving(s: AgricolaState, rng: random.Random) -> None:
    """The saved form and every seat's observation read back to the same position."""
    d = s.to_dict()
    assert json.loads(json.dumps(d)) == d
    back = GAME.state_from_dict(d)
    assert back.to_dict() == d
    assert back.legal_actions() == s.legal_actions()
    for seat in range(s.num_players):
        obs = s.observation(seat)
        assert "order" not in obs["board"]
        sample = GAME.determinize(obs, random.Random(rng.random()))
        assert sample.observation(seat) == obs
        assert sample.legal_actions() == s.legal_actions()
        order = sample.to_dict()["board"]["order"]
        assert order[: s.round] == d["board"]["order"][: s.round]
        assert sorted(order[s.round:]) == sorted(d["board"]["order"][s.round:])


def monotone(before: dict[str, Any], after: dict[str, Any]) -> None:
    """What never goes back: the round, begging, people; rooms, fields, stables, fences."""
    assert after["round"] >= before["round"]
    for b, a in zip(before["players"], after["players"], strict=True):
        assert a["begging"] >= b["begging"] and a["people"] >= b["people"]
        for part in ("rooms", "stables", "fences"):
            assert set(a["farm"][part]) >= set(b["farm"][part])
        assert {c for c, _, _ in a["farm"]["fields"]} >= {c for c, _, _ in b["farm"]["fields"]}
        houses = ("wood", "clay", "stone")
        assert houses.index(a["farm"]["house"]) >= houses.index(b["farm"]["house"])


def acted(before: dict[str, Any], after: dict[str, Any]) -> None:
    """S3: a person placed carries out at least one sub-action. When the action ended on
    placing (nothing left to choose), the placing seat's goods, farm, majors or family
    changed, or a pile was taken (animals taken may all be let go). Not checked when the
    placement ended the work phase (the harvest may eat the food just taken; the next
    round's preparation refills the piles)."""
    seat = before["current_player"]
    if after["phase"] == "action" and after["current_player"] == seat:
        return  # the action goes on: its sub-decisions come next
    if after["phase"] != "place" or after["round"] != before["round"]:
        return  # the work phase is over: a harvest or a new round changes goods and piles
    b, a = before["players"][seat], after["players"][seat]
    changed = [k for k in ("goods", "farm", "majors", "people") if a[k] != b[k]]
    took = before["board"]["accumulated"] != after["board"]["accumulated"]
    assert changed or took, (before["decision"], a)


def finish_a_sample(s: AgricolaState, rng: random.Random) -> None:
    """A state sampled from a seat's observation plays on to a result like any other."""
    if s.is_terminal:
        return
    sample = GAME.determinize(s.observation(s._cur), random.Random(rng.random()))
    while not sample.is_terminal:
        sample.apply_index(rng.randrange(sample.num_legal()))
    assert sample.progress == 14 and len(sample.result().scores) == s.num_players


def try_every_action(s: AgricolaState, rng: random.Random, limit: int) -> None:
    """Every legal action (at most ``limit``, sampled) applies on a copy and leaves a
    position that keeps the invariants; the original is untouched; an action that is not
    offered is refused without a change."""
    before = s.to_dict()
    n = s.num_legal()
    picks = range(n) if n <= limit else rng.sample(range(n), limit)
    for i in picks:
        c = s.clone()
        c.apply_index(i)
        check(c)
    bogus = {"type": "place", "space": 4}  # a Lessons space: never usable
    with pytest.raises(IllegalActionError):
        s.apply(bogus)
    with pytest.raises(IllegalActionError):
        s.apply_index(n)
    assert s.to_dict() == before


def play(n: int, seed: int, seen: Seen, *, tries: int, try_rate: float,
         save_every: int) -> AgricolaState:
    """One checked game; returns the final state. At a ``try_rate`` share of the steps, up to
    ``tries`` legal actions are tried on copies; the saved form and the observations are read
    back every ``save_every`` decisions."""
    rng = random.Random(seed * 7919 + n)
    bias = rng.choice([0.0, 0.7, 0.9, 1.0])
    s = new(n, seed=seed)
    decisions = 0
    check(s)
    while not s.is_terminal:
        if decisions % save_every == 0:
            check_saving(s, rng)
        if rng.random() < try_rate:
            try_every_action(s, rng, tries)
        before = s.to_dict()
        i = choose(s, rng, bias)
        action = s.legal_actions()[i]
        seen.note(s, action)
        if s.phase in ("feed", "breed"):
            assert s.round in HARVEST_ROUNDS
        if rng.random() < 0.5:
            s.apply(action)  # as a bot would
        else:
            s.apply_index(i)
        decisions += 1
        after = check(s)
        monotone(before, after)
        if action["type"] == "place":
            acted(before, after)
        if decisions == 40:
            finish_a_sample(s, rng)
    assert decisions <= GAME.max_decisions(n)
    assert s.round == 14 and s.phase == "over"
    check_result(s)
    return s


def check_result(s: AgricolaState) -> None:
    r = s.result()
    n = s.num_players
    assert len(r.scores) == len(r.ranks) == len(r.breakdown) == len(r.tiebreak) == n
    for p in range(n):
        assert tuple(r.breakdown[p]) == SCORE_KEYS
        assert sum(r.breakdown[p].values()) == r.scores[p]
        assert s.observation(p)["players"][p]["score"] == r.scores[p]
        g = s._goods[p]
        assert r.tiebreak[p] == g[0] + g[1] + g[2] + g[3]
        assert r.breakdown[p]["begging"] == -3 * s._begging[p]
        assert r.breakdown[p]["people"] == 3 * s._people[p]
    assert r.ranks == competition_ranks(list(zip(r.scores, r.tiebreak, strict=True)))


def run(games: int, *, tries: int, try_rate: float, save_every: int) -> Seen:
    seen = Seen()
    for k in range(games):
        play(k % 4 + 1, k // 4, seen, tries=tries, try_rate=try_rate, save_every=save_every)
    return seen


#: What the runs must reach for their invariants to mean something (a family of five, all 15
#: fences, all 4 stables, a stone house, a keep decision, a bake, a breeding choice...).
REACHED = ["five people", "15 fences", "4 stables", "fenced stable", "stone house", "cattle",
           "type:keep", "type:bake", "type:build_major", "type:pasture", "type:build_room",
           "type:feed", "phase:breed", "type:sow", "type:gain", "type:stop"]


def test_random_games_keep_every_invariant() -> None:
    """20 games, 5 at each player count: every step checked; at a quarter of the steps up
    to 8 legal actions tried on copies; saving and observations every fourth decision (the
    slow run below plays 2000, each step tried and saved)."""
    seen = run(20, tries=8, try_rate=0.25, save_every=4)
    missing = [k for k in REACHED if not seen.counts[k]]
    assert not missing, (missing, seen.counts)


@pytest.mark.slow
def test_many_random_games_keep_every_invariant() -> None:
    """2000 games: every step checked, saved and observed; up to 12 actions tried at each."""
    seen = run(2000, tries=12, try_rate=1.0, save_every=1)
    missing = [k for k in REACHED if not seen.counts[k]]
    assert not missing, (missing, seen.counts)


def test_a_replay_from_seed_and_choices_is_exact() -> None:
    """The game is a function of its seed and the choices made: replaying the indices gives
    the same position at every step."""
    for n in (1, 2, 3, 4):
        rng = random.Random(n)
        a = new(n, seed=99)
        picks = []
        while not a.is_terminal:
            i = choose(a, rng, 0.8)
            picks.append(i)
            a.apply_index(i)
        b = new(n, seed=99)
        for i in picks:
            b.apply_index(i)
        assert b.to_dict() == a.to_dict() and b.result() == a.result()


def test_a_clone_is_independent() -> None:
    s = new(3, seed=4)
    rng = random.Random(4)
    for _ in range(30):
        s.apply_index(choose(s, rng, 0.9))
    c = s.clone()
    before = s.to_dict()
    while not c.is_terminal:
        c.apply_index(choose(c, rng, 0.9))
    assert s.to_dict() == before
