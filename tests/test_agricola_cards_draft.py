"""Card mode's app draft (option draft=app, rulings C9-C11 of the Agricola RULES.md): the packs,
the picks, passing left, what each seat sees, and determinizing consistently with the packs a
seat saw, during the draft and after it."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest

from arena.engine.agricola.cards.deck import HAND_SIZE
from arena.engine.agricola.cards.draft import FIELDS, Draft
from arena.engine.agricola.cards.hands import deal, pool
from arena.engine.agricola.cards.state import CardState
from arena.engine.agricola.game import AGRICOLA, new_card_state
from arena.engine.chance import SeededChance


def _draft(n: int, seed: int) -> CardState:
    return new_card_state(n, SeededChance(seed), "app")


def _through_draft(s: CardState, rng: random.Random) -> int:
    """Random picks until round 1 begins; the number of decisions asked."""
    asked = 0
    while s.phase == "draft":
        s.apply_index(rng.randrange(s.num_legal()))
        asked += 1
    return asked


def _sample_states(n: int, seed: int, every: float = 0.15, after: int = 60):
    """Positions of a random drafted game: most of the draft's, then some of round 1 on."""
    s = _draft(n, seed)
    rng = random.Random(seed)
    steps = 0
    while not s.is_terminal and steps < 200 + after:
        if s.phase == "draft" or rng.random() < every:
            yield s
        s.apply_index(rng.randrange(s.num_legal()))
        steps += 1
    yield s


# --- the draft ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4])
def test_packs_are_the_deal_and_every_seat_ends_with_seven_and_seven(n: int) -> None:
    for seed in range(4):
        s = _draft(n, seed)
        assert s.phase == "draft" and s.round == 0 and s.current_player == 0
        assert s._draft is not None
        assert list(s._draft.packs[0]) == deal("occupation", n, SeededChance(seed))
        assert list(s._draft.packs[1]) == deal("minor", n, SeededChance(seed))
        asked = _through_draft(s, random.Random(seed))
        # Every pass but the last asks each seat twice; the last card is taken at once.
        assert asked == 2 * (HAND_SIZE - 1) * n
        assert s.round == 1 and s.phase == "place"
        dealt = [set(c for p in s._draft.packs[k] for c in p) for k in range(2)]
        for p in range(n):
            occ, minors = s.hands(p)
            assert len(occ) == len(minors) == HAND_SIZE
            assert set(occ) <= dealt[0] and set(minors) <= dealt[1]
        assert sorted(c for p in range(n) for c in s.hands(p)[0]) == sorted(dealt[0])


def test_seats_take_in_order_occupation_then_minor_and_packs_go_left() -> None:
    s = _draft(3, 7)
    order = []
    first_pack = list(s._draft.pack(0, 0))  # type: ignore[union-attr]
    for _ in range(6):  # the first pass
        dec = s.observation(0)["decision"]
        order.append((dec["seat"], dec["pick"]))
        s.apply_index(0)
    assert order == [(0, "occupation"), (0, "minor"), (1, "occupation"), (1, "minor"),
                     (2, "occupation"), (2, "minor")]
    # Seat 0 took the first of its pack; seat 1 now holds the rest of it (the left-hand
    # neighbour, the way traveling minors go), and sees where it came from.
    seen = s.observation(1)["cards"]["drafting"]["seen"]
    assert seen[1]["from"] == 0 and seen[1]["occupations"] == first_pack[1:]
    # Seat 0 takes next from the pack seat 2 was dealt.
    assert s.observation(0)["cards"]["drafting"]["seen"][1]["from"] == 2
    assert s.legal_actions() == [{"type": "draft", "card": c}
                                 for c in s._draft.pack(0, 2)]  # type: ignore[union-attr]
    assert s.observation(0)["cards"]["hand_occupations"] == first_pack[:1]


def test_a_seat_rotation_drafts_from_the_same_packs() -> None:
    # The packs are dealt by the deal's keys, which name no seat: whoever sits at seat p is
    # given pack p (and, for the same seed, the same hand under the deal).
    for n in (2, 3, 4):
        a, b = _draft(n, 5), _draft(n, 5)
        assert a._draft == b._draft
        assert [s for p in range(n) for s in a._draft.packs[0][p]] == [  # type: ignore[union-attr]
            c for h in deal("occupation", n, SeededChance(5)) for c in h]


def test_a_solo_draft_is_the_deal() -> None:
    drafted, dealt = _draft(1, 3), new_card_state(1, SeededChance(3))
    assert drafted.phase == "place"
    assert drafted.options["draft"] == "app" and dealt.options["draft"] == "deal"
    assert {**drafted.to_dict(), "options": None} == {**dealt.to_dict(), "options": None}
    assert drafted.draft_mode() == "deal"


# --- what a seat sees ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_seat_sees_its_packs_and_no_other_hand(n: int) -> None:
    for s in _sample_states(n, 11):
        for seat in range(n):
            obs = s.observation(seat)
            text = json.dumps(obs)
            assert "seed" not in text and "order" not in obs["board"]
            shown = {c for v in obs["cards"]["drafting"]["seen"] for f in FIELDS for c in v[f]}
            for p in range(n):
                if p == seat:
                    continue
                hidden = set(s.hands(p)[0]) | set(s.hands(p)[1])
                hidden -= set(s.known_in_hand(p)) | shown
                assert not any(f'"{c}"' in text for c in hidden)


def test_the_sightings_record_the_packs_as_they_arrived_and_what_was_taken() -> None:
    s = _draft(2, 4)
    _through_draft(s, random.Random(4))
    seen = s.observation(1)["cards"]["drafting"]["seen"]
    assert [v["pass"] for v in seen] == list(range(HAND_SIZE))
    assert [v["from"] for v in seen] == [1, 0, 1, 0, 1, 0, 1]
    for v in seen:
        assert len(v["occupations"]) == len(v["minors"]) == HAND_SIZE - v["pass"]
        assert v["took"][0] in v["occupations"] and v["took"][1] in v["minors"]
    assert sorted(v["took"][0] for v in seen) == list(s.hands(1)[0])


# --- determinizing ------------------------------------------------------------------------------

def _gaps(seen: list[dict[str, Any]], field: str, kind: int, n: int, seat: int
          ) -> list[tuple[set[str], list[int]]]:
    """What a seat knows of a pack's travels: per segment after one of its sightings, the
    cards that left the pack and the seats that held it meanwhile."""
    out = []
    by_origin: dict[int, list[dict[str, Any]]] = {}
    for v in seen:
        by_origin.setdefault(v["from"], []).append(v)
    for sights in by_origin.values():
        for a, b in itertools.pairwise(sights):
            gone = set(a[field]) - {a["took"][kind]} - set(b[field])
            out.append((gone, [(seat + i) % n for i in range(1, b["pass"] - a["pass"])]))
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_determinize_keeps_the_observation_and_the_packs_history(n: int) -> None:
    for seed in range(6):
        for k, s in enumerate(_sample_states(n, seed, every=0.05)):
            if k % 3:
                continue
            for seat in range(n):
                obs = s.observation(seat)
                d = AGRICOLA.determinize(obs, random.Random(seed * 1000 + k))
                assert isinstance(d, CardState) and d._draft is not None
                assert d.observation(seat) == obs
                assert d.hands(seat) == s.hands(seat)
                if seat == s.current_player:
                    assert d.legal_actions() == s.legal_actions()
                # Each card the seat passed on went to one of the seats that held the pack
                # before it came back, one each.
                for kind, field in enumerate(FIELDS):
                    for gone, holders in _gaps(obs["cards"]["drafting"]["seen"], field, kind,
                                               n, seat):
                        got = [set(d._draft.drafted(kind, q)) & gone for q in holders]
                        assert all(len(g) == 1 for g in got) and set().union(*got) == gone
                # Played cards were drafted by their players.
                for q in range(n):
                    for kind in range(2):
                        assert set(d.played(q)[kind]) <= set(d._draft.drafted(kind, q))
                back = AGRICOLA.state_from_dict(json.loads(json.dumps(d.to_dict())))
                assert back.to_dict() == d.to_dict()


def test_determinize_spreads_what_a_seat_passed_over_the_seats_that_could_hold_it() -> None:
    # Three seats after the first two passes: seat 0 saw pack 0 at pass 0 and the pack from
    # seat 2 at pass 1. What it left in pack 0 went to seat 1 (one card) at pass 1, and the
    # rest is in front of seat 2 now; the cards seat 0 never saw are anywhere unseen.
    s = _draft(3, 2)
    for _ in range(2 * 2 * 3):
        s.apply_index(0)
    obs = s.observation(0)
    passed_on = set(obs["cards"]["drafting"]["seen"][0]["occupations"]) - set(s.hands(0)[0])
    where: Counter[tuple[str, int]] = Counter()
    for i in range(300):
        d = AGRICOLA.determinize(obs, random.Random(i))
        assert isinstance(d, CardState) and d._draft is not None
        for c in passed_on:
            holder = next((q for q in range(3) if c in d.hands(q)[0]), None)
            assert holder in (1, None)  # seat 1 took one; the rest is still in the pack
            where[c, -1 if holder is None else holder] += 1
        assert len(set(d.hands(1)[0]) & passed_on) == 1
    assert all(where[c, 1] > 40 and where[c, -1] > 40 for c in passed_on)


def test_a_determinized_game_deals_only_cards_the_seat_never_saw_to_unseen_places() -> None:
    s = _draft(4, 9)
    rng = random.Random(9)
    _through_draft(s, rng)
    for _ in range(150):
        s.apply_index(rng.randrange(s.num_legal()))
    every_o = set(pool("occupation", 4))
    for seat in range(4):
        obs = s.observation(seat)
        shown = {c for v in obs["cards"]["drafting"]["seen"] for c in v["occupations"]}
        for i in range(20):
            d = AGRICOLA.determinize(obs, random.Random(i))
            assert isinstance(d, CardState) and d._draft is not None
            drafted = [c for q in range(4) for c in d._draft.drafted(0, q)]
            assert len(drafted) == len(set(drafted)) == 4 * HAND_SIZE
            assert shown <= set(drafted) <= every_o  # the packs are empty after the draft
            for q in range(4):  # a card seat saw and is not in its own hand went to another
                assert not (set(d.hands(q)[0]) & set(s.hands(seat)[0])) or q == seat


# --- saving -------------------------------------------------------------------------------------

def test_drafted_states_round_trip_and_refuse_a_tampered_draft() -> None:
    for s in _sample_states(3, 2, every=0.05):
        d = s.to_dict()
        back = AGRICOLA.state_from_dict(json.loads(json.dumps(d)))
        assert isinstance(back, CardState) and back.to_dict() == d
        assert back.legal_actions() == s.legal_actions()
    d = _draft(3, 2).to_dict()
    d["cards"]["drafting"]["picks"]["occupations"][1] = [
        d["cards"]["drafting"]["packs"]["occupations"][1][0]]
    with pytest.raises(ValueError):
        AGRICOLA.state_from_dict(d)
    s = _draft(2, 2)
    _through_draft(s, random.Random(0))
    d = s.to_dict()
    p0, p1 = d["cards"]["players"][0], d["cards"]["players"][1]
    p0["hand_minors"][0], p1["hand_minors"][0] = p1["hand_minors"][0], p0["hand_minors"][0]
    with pytest.raises(ValueError, match="draft"):
        AGRICOLA.state_from_dict(d)


def test_draft_from_dict_refuses_picks_out_of_seat_order() -> None:
    draft = Draft.deal(2, SeededChance(1))
    good = draft.pick(0, 0, draft.packs[0][0][0]).to_dict()
    assert Draft.from_dict(2, good).to_dict() == good
    # seat 0's first card taken from seat 1's pack
    bad = Draft(2, draft.packs, (((), (draft.packs[0][1][0],)), ((), ())))
    with pytest.raises(ValueError, match="seat order"):
        Draft.from_dict(2, bad.to_dict())
