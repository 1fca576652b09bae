"""Card mode's skeleton: dealing, the card spaces, playing cards for their cost, scoring,
what a seat sees and determinization (rulings C1-C8 of the Agricola RULES.md)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from arena.engine.agricola.cards.deck import BY_ID, HAND_SIZE
from arena.engine.agricola.cards.hands import deal, pool
from arena.engine.agricola.cards.spaces import (
    LESSONS,
    LESSONS_3P,
    LESSONS_4P,
    MAJOR_IMPROVEMENT,
    MEETING_PLACE,
    MOST_LESSONS_COST,
    lessons_cost,
)
from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.components import FOOD, GOODS, GRAIN, SPACE_ID
from arena.engine.agricola.game import AGRICOLA, new_card_state
from arena.engine.agricola.state import AgricolaState
from arena.engine.chance import SeededChance


def _state(n: int = 2, seed: int = 1) -> CardState:
    return new_card_state(n, SeededChance(seed))


def _set(s: CardState, seat: int, *, occ: tuple[str, ...] | None = None,
         minors: tuple[str, ...] | None = None, food: int | None = None,
         **goods: int) -> None:
    """Give ``seat`` a hand and goods, and offer the decision again."""
    if occ is not None:
        s._hand_o[seat] = tuple(sorted(occ))
    if minors is not None:
        s._hand_m[seat] = tuple(sorted(minors))
    g = list(s._goods[seat])
    if food is not None:
        g[FOOD] = food
    for name, n in goods.items():
        g[GOODS.index(name)] = n
    s._goods[seat] = tuple(g)
    s._moves, s._pays = s._options()


def _places(s: CardState) -> set[int]:
    return {a["space"] for a in s.legal_actions() if a["type"] == "place"}


# --- dealing ------------------------------------------------------------------------------------

def test_deal_is_determined_by_the_seed_and_sized() -> None:
    a, b = _state(3, 5), _state(3, 5)
    assert [a.hands(p) for p in range(3)] == [b.hands(p) for p in range(3)]
    assert [a.hands(p) for p in range(3)] != [_state(3, 6).hands(p) for p in range(3)]
    for p in range(3):
        occ, mins = a.hands(p)
        assert len(occ) == len(mins) == HAND_SIZE


def test_a_seat_gets_the_same_cards_whoever_sits_there() -> None:
    # The keys name no seat: seat p's minors are the same at every player count, and the
    # deal is the same function of the seed for every seating.
    chance = SeededChance(11)
    two, four = deal("minor", 2, chance), deal("minor", 4, chance)
    assert two == four[:2]
    assert deal("occupation", 4, chance) == deal("occupation", 4, SeededChance(11))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_player_markers_remove_occupations(n: int) -> None:
    allowed = set(pool("occupation", n))
    assert all(BY_ID[c].min_players <= max(n, 1) for c in allowed)
    for seed in range(20):
        s = _state(n, seed)
        for p in range(n):
            assert set(s.hands(p)[0]) <= allowed
    if n < 4:
        assert any(BY_ID[c].min_players == 4 for c in pool("occupation", 4)) \
            and not any(BY_ID[c].min_players == 4 for c in allowed)


# --- the card spaces ----------------------------------------------------------------------------

def test_lessons_costs() -> None:
    assert [lessons_cost(LESSONS, k) for k in range(4)] == [0, 1, 1, 1]
    assert [lessons_cost(LESSONS_3P, k) for k in range(4)] == [2, 2, 2, 2]
    assert [lessons_cost(LESSONS_4P, k) for k in range(4)] == [1, 1, 2, 2]
    # Card mode's placement check takes a supply of this much food to pay any Lessons space.
    spaces = (LESSONS, LESSONS_3P, LESSONS_4P)
    assert max(lessons_cost(s, k) for s in spaces for k in range(16)) == MOST_LESSONS_COST


def test_spaces_in_play_by_player_count() -> None:
    assert LESSONS in _places(_state(2)) and SPACE_ID["side_job"] not in _places(_state(2))
    assert {LESSONS, LESSONS_3P} <= _places(_state(3))
    assert {LESSONS, LESSONS_4P} <= _places(_state(4))
    assert LESSONS_4P not in _places(_state(3))


def test_lessons_needs_a_card_and_the_food() -> None:
    s = _state(3)
    _set(s, 0, occ=(), food=5)
    assert LESSONS not in _places(s)
    occ = s.hands(1)[0][:2]
    _set(s, 0, occ=occ, food=0, grain=0)
    assert LESSONS in _places(s)  # the first is free
    assert LESSONS_3P not in _places(s)  # 2 food missing
    _set(s, 0, grain=2)  # raw grain pays
    assert LESSONS_3P in _places(s)
    s.apply({"type": "place", "space": LESSONS_3P})
    acts = s.legal_actions()
    assert acts == [{"type": "play_occupation", "card": c, "convert": [2, 0, 0, 0, 0]}
                    for c in sorted(occ)]
    s.apply(acts[0])
    assert s.played(0)[0] == (sorted(occ)[0],)
    assert s._goods[0][GRAIN] == 0 and s._goods[0][FOOD] == 0


def test_meeting_place_gives_the_token_then_a_minor() -> None:
    s = _state(2)
    _set(s, 0, minors=("A016", "A012"), clay=0, food=0)  # Rammed Clay costs nothing
    assert MEETING_PLACE in _places(s)
    s.apply({"type": "place", "space": MEETING_PLACE})
    assert s._board.start_player == 0
    assert s.legal_actions() == [{"type": "play_minor", "card": "A016"}, {"type": "stop"}]
    s.apply({"type": "play_minor", "card": "A016"})
    assert s.played(0)[1] == ("A016",) and s.hands(0)[1] == ("A012",)
    assert s.current_player == 1


def test_major_improvement_is_a_major_or_a_minor() -> None:
    s = _state(2)
    # Major Improvement revealed, and free
    s._board._spaces = (*s._board._spaces, MAJOR_IMPROVEMENT)
    s._board._free |= 1 << MAJOR_IMPROVEMENT
    _set(s, 0, minors=("A012",), clay=0)
    assert MAJOR_IMPROVEMENT not in _places(s)  # nothing affordable
    _set(s, 0, clay=2)
    s.apply({"type": "place", "space": MAJOR_IMPROVEMENT})
    acts = s.legal_actions()
    assert {"type": "play_minor", "card": "A012"} in acts
    assert {"type": "build_major", "major": 0, "pay": "goods"} in acts
    s.apply({"type": "build_major", "major": 0, "pay": "goods"})
    assert s.current_player == 1  # one or the other, not both


def test_a_traveling_minor_passes_left() -> None:
    s = _state(3)
    s._board._spaces = (*s._board._spaces, MAJOR_IMPROVEMENT)
    s._board._free |= 1 << MAJOR_IMPROVEMENT
    _set(s, 0, minors=("A005",), food=1, clay=0)  # Clay Embankment: 1 food, traveling
    s.apply({"type": "place", "space": MAJOR_IMPROVEMENT})
    assert "A005" in s.hands(1)[1] and s.played(0)[1] == ()
    assert s.known_in_hand(1) == ("A005",)
    assert s.observation(2)["cards"]["players"][1]["known_in_hand"] == ["A005"]


def test_cost_and_prerequisite_refusals() -> None:
    s = _state(2)
    s._board._spaces = (*s._board._spaces, MAJOR_IMPROVEMENT)
    s._board._free |= 1 << MAJOR_IMPROVEMENT
    _set(s, 0, minors=("A024",), wood=1)  # Threshing Board: 2 occupations needed
    assert MAJOR_IMPROVEMENT not in _places(s)
    s._occs[0] = tuple(s.hands(1)[0][:2])
    s._hand_o[1] = s._hand_o[1][2:]
    _set(s, 0, wood=0)  # cost 1 wood not met
    assert MAJOR_IMPROVEMENT not in _places(s)
    _set(s, 0, wood=1)
    assert MAJOR_IMPROVEMENT in _places(s)


def test_card_points_are_scored() -> None:
    s = _state(2)
    base = s.breakdown(0)
    assert base["cards"] == 0
    s._minors[0] = ("A024", "A026")  # 1 point each
    s._hand_m[0] = tuple(c for c in s._hand_m[0] if c not in ("A024", "A026"))
    assert s.breakdown(0)["cards"] == 2
    fam = AGRICOLA.new_state(2, seed=1)
    assert isinstance(fam, AgricolaState)
    assert "cards" not in fam.to_dict() and "cards" not in fam.breakdown(0)


# --- what a seat sees ---------------------------------------------------------------------------

def _playout(n: int, seed: int, on_step: Any = None) -> CardState:
    s = _state(n, seed)
    rng = random.Random(seed)
    steps = 0
    while not s.is_terminal:
        k = s.num_legal()
        assert k >= 1, "a position without legal actions"
        if on_step is not None:
            on_step(s, steps)
        s.apply_index(rng.randrange(k))
        steps += 1
        for g in s._goods:
            assert min(g) >= 0
        _check_conserved(s)
    return s


def _check_conserved(s: CardState) -> None:
    for kind, i in (("occupation", 0), ("minor", 1)):
        held = [c for p in range(s.num_players) for c in s.hands(p)[i]]
        played = [c for p in range(s.num_players) for c in s.played(p)[i]]
        every = held + played + list(s.box()[i])
        assert sorted(every) == sorted(pool(kind, s.num_players))


def test_hands_are_hidden_and_determinize_agrees() -> None:
    rng = random.Random(3)

    def step(s: CardState, k: int) -> None:
        if k % 17:
            return
        for seat in range(s.num_players):
            obs = s.observation(seat)
            text = json.dumps(obs)
            assert "seed" not in text and "order" not in obs["board"]
            for p in range(s.num_players):
                if p != seat:
                    hidden = set(s.hands(p)[0]) | set(s.hands(p)[1])
                    hidden -= set(s.known_in_hand(p))
                    assert not any(f'"{c}"' in text for c in hidden)
            d = AGRICOLA.determinize(obs, rng)
            assert isinstance(d, CardState)
            assert d.observation(seat) == obs
            assert d.hands(seat) == s.hands(seat)

    _playout(3, 4, step)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_random_card_games_end_with_cards_conserved(n: int) -> None:
    for seed in range(3):
        s = _playout(n, seed)
        r = s.result()
        assert all("cards" in b for b in r.breakdown)


def test_saved_card_states_round_trip() -> None:
    rng = random.Random(0)
    s = _state(4, 2)
    for _ in range(60):
        s.apply_index(rng.randrange(s.num_legal()))
        d = s.to_dict()
        back = AGRICOLA.state_from_dict(json.loads(json.dumps(d)))
        assert isinstance(back, CardState) and back.to_dict() == d
        assert back.legal_actions() == s.legal_actions()
    c = s.clone()
    c.apply_index(0)
    assert s.to_dict() != c.to_dict() or s.num_legal() == 1


def test_family_states_hold_no_cards() -> None:
    s = AGRICOLA.new_state(2, seed=3)
    assert "cards" not in s.to_dict() and "cards" not in s.observation(0)


def test_a_waiting_card_decision_is_the_observations_decision() -> None:
    """While a card decision waits, ``decision`` names it, its seat the one asked, with the
    decision it interrupted under it; the saved form and determinize read it back."""
    game = AGRICOLA
    rng = random.Random(0)
    found = 0
    for seed in range(20):
        state = game.new_state(3, seed=seed, options={"cards": "base"})
        while not state.is_terminal and found < 3:
            seat = state.current_player
            obs = state.observation(seat)
            dec = obs["decision"]
            assert dec["seat"] == seat
            if obs["cards"]["pending"]:
                p_seat, card, tag, data = obs["cards"]["pending"][0]
                assert dec == {"kind": "card", "seat": p_seat, "card": card or None, "tag": tag,
                               "data": data, "under": dec["under"]}
                assert dec["under"]["seat"] == obs["cards"]["turn"]
                assert obs["phase"] == dec["under"]["kind"]
                assert game.state_from_dict(state.to_dict()).to_dict() == state.to_dict()
                assert game.determinize(obs, rng).observation(seat) == obs
                found += dec["under"]["seat"] != seat
            state.apply_index(rng.randrange(state.num_legal()))
        if found >= 3:
            break
    assert found >= 3  # card decisions of a seat other than the placing one came up


@pytest.mark.parametrize(("card", "tag", "good"), [
    ("B123", "pay", "food"), ("A090", "plough", "food"), ("A092", "adopt", "food"),
    ("B109", "paper", "wood")])
def test_a_question_to_pay_is_dropped_when_the_payment_has_gone(
        card: str, tag: str, good: str) -> None:
    """A card that may pay is asked while the seat has the goods; if they are spent before the
    answer (an any-time purchase, such as Grocer's, answered first), the question goes too,
    instead of an answer that cannot pay. With the goods there it is asked."""
    state = new_card_state(2, SeededChance(5))
    seat = state.current_player
    d = json.loads(json.dumps(state.to_dict()))
    d["cards"]["pending"] = [[seat, card, tag, []]]
    d["cards"]["players"][seat]["occupations"].append(card)  # all four are occupations
    index = GOODS.index(good)
    for amount, asked in ((0, False), (3, True)):
        d["players"][seat]["goods"][good] = amount
        s = AGRICOLA.state_from_dict(d)
        uses = [a for a in s.legal_actions() if a.get("card") == card and a["type"] == "use_card"]
        assert bool(uses) == asked, (amount, s.legal_actions()[:3])
        assert s._goods[seat][index] == amount
