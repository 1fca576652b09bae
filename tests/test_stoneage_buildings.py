"""Building tiles: the 28 tiles, the piles at set-up, fixed, variable and one-to-seven costs,
points, declining, and the next tile of a pile.

Sources: the rules text (seed 000), the reference page (tile list, set-up) and the engine's
RULES.md (E1: a decision with one legal action is applied at once; E3; E6: payments offered).
"""

from __future__ import annotations

from collections import Counter
from itertools import product
from typing import Any

import pytest
from sa import new_game, offered, place, player, with_player

from arena.engine.stoneage import STONE_AGE, StoneAgeState
from arena.engine.stoneage.components import BUILDINGS
from arena.engine.stoneage.views import building_info

# --------------------------------------------------------------------------------- helpers
Mix = tuple[int, int, int, int]
VALUE = (3, 4, 5, 6)  # wood, clay, stone, gold


def start(players: int = 2, *, piles: tuple[tuple[int, ...], ...] = (), **seat0: Any
          ) -> StoneAgeState:
    """Round 1 placement with seat 0 to place. Every seat has one person and agriculture 1, so
    feeding is free (gain 1 food, eat 1); ``seat0`` sets more of seat 0's fields."""
    state = new_game(players, piles=piles)
    for seat in range(players):
        state = with_player(state, seat, people=1, agri=1)
    return with_player(state, 0, **seat0) if seat0 else state


def build_on(tile: int, **seat0: Any) -> StoneAgeState:
    """Seat 0 (one person) places on pile 0 whose top is ``tile``; seat 1 takes the field. The
    state is then at seat 0's building decision (or past it if only decline was legal)."""
    state = start(piles=((tile,),), **seat0)
    place(state, "building", pile=0)
    place(state, "field")
    return state


def pays(state: StoneAgeState) -> list[Mix]:
    return [(a["wood"], a["clay"], a["stone"], a["gold"]) for a in offered(state, "pay")]


def pay(state: StoneAgeState, w: int = 0, c: int = 0, s: int = 0, g: int = 0) -> None:
    state.apply({"type": "pay", "wood": w, "clay": c, "stone": s, "gold": g})


def resources(state: StoneAgeState, seat: int = 0) -> Mix:
    p = player(state, seat)
    return (p["wood"], p["clay"], p["stone"], p["gold"])


def holding(have: Mix) -> dict[str, int]:
    return dict(zip(("wood", "clay", "stone", "gold"), have, strict=True))


def points(mix: Mix) -> int:
    return sum(n * v for n, v in zip(mix, VALUE, strict=True))


def all_mixes(total: int, have: Mix = (9, 9, 9, 9)) -> set[Mix]:
    r = range(total + 1)
    return {
        m for m in product(r, r, r, r)
        if sum(m) == total and all(x <= h for x, h in zip(m, have, strict=True))
    }


def kinds(mix: Mix) -> int:
    return sum(1 for x in mix if x)


def pile_view(state: StoneAgeState, pile: int, seat: int = 0) -> dict[str, Any]:
    result: dict[str, Any] = state.observation(seat)["board"]["buildings"][pile]
    return result


def assert_top(state: StoneAgeState, pile: int, tile: int, seat: int = 0) -> None:
    """Pile ``pile`` shows ``tile`` face up to ``seat``: the observation names its id, and the
    game's table describes that id as ``tile``."""
    top = pile_view(state, pile, seat)["top"]
    assert type(top) is int and top == tile, top
    assert STONE_AGE.components()["buildings"][top] == building_info(tile)


def tiles_of(kind: str) -> list[int]:
    return [i for i in range(len(BUILDINGS)) if building_info(i)["kind"] == kind]


def fixed_tile(cost: Mix) -> int:
    for i in tiles_of("fixed"):
        info = building_info(i)["cost"]
        if (info["wood"], info["clay"], info["stone"], info["gold"]) == cost:
            return i
    raise LookupError(cost)


def variable_tile(count: int, n_kinds: int) -> int:
    for i in tiles_of("variable"):
        info = building_info(i)
        if (info["count"], info["kinds"]) == (count, n_kinds):
            return i
    raise LookupError((count, n_kinds))


ONE_TO_SEVEN = tiles_of("one_to_seven")[0]

# ------------------------------------------------------------------------- component data
# The reference page: fixed cost (wood, clay, stone, gold) -> (points, copies).
REFERENCE_FIXED = {
    (2, 1, 0, 0): (10, 1),
    (2, 0, 1, 0): (11, 1),
    (1, 2, 0, 0): (11, 1),
    (2, 0, 0, 1): (12, 1),
    (1, 0, 2, 0): (13, 1),
    (0, 2, 1, 0): (13, 1),
    (0, 2, 0, 1): (14, 1),
    (0, 1, 2, 0): (14, 1),
    (0, 0, 2, 1): (16, 1),
    (1, 1, 1, 0): (12, 2),
    (1, 1, 0, 1): (13, 2),
    (1, 0, 1, 1): (14, 2),
    (0, 1, 1, 1): (15, 2),
}


def test_there_are_28_building_tiles() -> None:
    assert len(BUILDINGS) == 28
    assert Counter(building_info(i)["kind"] for i in range(28)) == {
        "fixed": 17, "variable": 8, "one_to_seven": 3,
    }


def test_the_17_fixed_tiles_have_the_listed_costs_and_points() -> None:
    seen: Counter[tuple[Mix, int]] = Counter()
    for i in tiles_of("fixed"):
        info = building_info(i)
        cost = info["cost"]
        seen[((cost["wood"], cost["clay"], cost["stone"], cost["gold"]), info["points"])] += 1
    expected = Counter({(cost, pts): copies for cost, (pts, copies) in REFERENCE_FIXED.items()})
    assert sum(expected.values()) == 17
    assert seen == expected


def test_fixed_tile_points_are_the_values_of_their_cost() -> None:
    for cost, (pts, _) in REFERENCE_FIXED.items():
        assert points(cost) == pts
        assert building_info(fixed_tile(cost))["points"] == pts


def test_eight_variable_tiles_ask_four_or_five_resources_of_exactly_one_to_four_kinds() -> None:
    rules = Counter(
        (building_info(i)["count"], building_info(i)["kinds"]) for i in tiles_of("variable")
    )
    assert rules == {(n, k): 1 for n in (4, 5) for k in (1, 2, 3, 4)}


def test_three_tiles_take_one_to_seven_resources() -> None:
    tiles = tiles_of("one_to_seven")
    assert len(tiles) == 3
    for i in tiles:
        assert (building_info(i)["min"], building_info(i)["max"]) == (1, 7)


# -------------------------------------------------------------------------------- set-up
@pytest.mark.parametrize("players", [2, 3, 4])
def test_set_up_uses_as_many_piles_of_seven_as_players(players: int) -> None:
    state = new_game(players)
    piles = state.observation(0)["board"]["buildings"]
    assert len(piles) == players
    assert [p["remaining"] for p in piles] == [7] * players
    building_places = sorted(
        a["pile"] for a in offered(state, "place") if a["place"] == "building"
    )
    assert building_places == list(range(players))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_only_the_top_tile_of_each_pile_is_face_up(players: int) -> None:
    order = [(j * 7 + 3) % 28 for j in range(players)]
    state = new_game(players, piles=[[t] for t in order])
    for seat in range(players):
        obs = state.observation(seat)
        piles = obs["board"]["buildings"]
        assert [p["top"] for p in piles] == order
        assert all(type(p["top"]) is int for p in piles)
        table = STONE_AGE.components()["buildings"]
        assert [table[p["top"]] for p in piles] == [building_info(t) for t in order]
        assert all(set(p) == {"pile", "remaining", "top", "taken", "people"} for p in piles)
        assert all(p["taken"] == [] for p in piles)  # only bought tiles are ever listed


# --------------------------------------------------------------------------- fixed cost
@pytest.mark.parametrize("cost", list(REFERENCE_FIXED), ids=str)
def test_fixed_building_costs_exactly_its_printed_resources_and_scores_its_value(
    cost: Mix,
) -> None:
    state = build_on(fixed_tile(cost), wood=3, clay=3, stone=3, gold=3)
    assert state.observation(0)["decision"]["kind"] == "buy_building"
    assert pays(state) == [cost]
    assert {a["type"] for a in state.legal_actions()} == {"pay", "decline"}
    pay(state, *cost)
    assert player(state, 0)["score"] == REFERENCE_FIXED[cost][0]
    assert player(state, 0)["buildings"] == 1
    assert resources(state) == tuple(3 - x for x in cost)


def test_rules_example_two_wood_one_clay_building_scores_ten_points() -> None:
    state = build_on(fixed_tile((2, 1, 0, 0)), wood=2, clay=1)
    assert pays(state) == [(2, 1, 0, 0)]
    pay(state, w=2, c=1)
    assert player(state, 0)["score"] == 10
    assert resources(state) == (0, 0, 0, 0)


def test_a_fixed_building_cannot_be_paid_with_other_resources_even_of_higher_value() -> None:
    tile = fixed_tile((2, 1, 0, 0))
    state = build_on(tile, wood=1, clay=5, stone=5, gold=5)
    # Only decline was legal: applied at once (E1), the round is over.
    assert state.round == 2
    assert player(state, 0)["buildings"] == 0
    assert resources(state) == (1, 5, 5, 5)
    assert_top(state, 0, tile)


# ------------------------------------------------------------------------ variable cost
VARIABLE_COUNTS = [
    (4, 1, 4), (4, 2, 18), (4, 3, 12), (4, 4, 1),
    (5, 1, 4), (5, 2, 24), (5, 3, 24), (5, 4, 4),
]


@pytest.mark.parametrize(("count", "n_kinds", "ways"), VARIABLE_COUNTS)
def test_variable_building_offers_every_payment_of_its_count_and_exact_number_of_kinds(
    count: int, n_kinds: int, ways: int
) -> None:
    state = build_on(variable_tile(count, n_kinds), wood=5, clay=5, stone=5, gold=5)
    offered_pays = pays(state)
    assert len(offered_pays) == ways
    assert len(set(offered_pays)) == ways
    assert set(offered_pays) == {m for m in all_mixes(count) if kinds(m) == n_kinds}


def test_four_resources_of_two_kinds_paid_with_one_wood_and_three_stone_scores_18() -> None:
    state = build_on(variable_tile(4, 2), wood=1, stone=3)
    assert pays(state) == [(1, 0, 3, 0)]
    pay(state, w=1, s=3)
    assert player(state, 0)["score"] == 18  # 3 + 5 * 3
    assert resources(state) == (0, 0, 0, 0)
    assert player(state, 0)["buildings"] == 1


@pytest.mark.parametrize(
    ("count", "n_kinds", "paid"),
    [
        (4, 2, (1, 0, 3, 0)),
        (4, 2, (0, 2, 0, 2)),
        (4, 1, (4, 0, 0, 0)),
        (4, 4, (1, 1, 1, 1)),
        (5, 1, (0, 0, 0, 5)),
        (5, 3, (3, 1, 1, 0)),
        (5, 4, (1, 1, 1, 2)),
    ],
    ids=str,
)
def test_variable_building_scores_the_value_of_what_was_paid(
    count: int, n_kinds: int, paid: Mix
) -> None:
    state = build_on(variable_tile(count, n_kinds), wood=5, clay=5, stone=5, gold=5)
    pay(state, *paid)
    assert player(state, 0)["score"] == points(paid)
    assert resources(state) == tuple(5 - x for x in paid)


def test_variable_building_payments_are_limited_to_what_the_buyer_holds() -> None:
    state = build_on(variable_tile(5, 2), wood=3, stone=2, gold=4)
    have = (3, 0, 2, 4)
    assert set(pays(state)) == {m for m in all_mixes(5, have) if kinds(m) == 2}
    assert set(pays(state)) == {(3, 0, 2, 0), (3, 0, 0, 2), (2, 0, 0, 3), (1, 0, 0, 4),
                                (0, 0, 2, 3), (0, 0, 1, 4)}


def test_variable_building_needs_exactly_its_number_of_kinds() -> None:
    # Four wood cannot pay "4 resources of 2 kinds"; only decline is left (E1).
    tile = variable_tile(4, 2)
    state = build_on(tile, wood=4)
    assert state.round == 2
    assert player(state, 0)["buildings"] == 0
    assert resources(state) == (4, 0, 0, 0)
    assert_top(state, 0, tile)


def test_variable_building_needs_exactly_its_number_of_resources() -> None:
    # Three of a kind and more kinds than asked: neither pays "5 resources of 1 kind".
    state = build_on(variable_tile(5, 1), wood=4, clay=4, stone=4, gold=4)
    assert state.round == 2
    assert player(state, 0)["buildings"] == 0
    assert resources(state) == (4, 4, 4, 4)


# ---------------------------------------------------------------------------- one to seven
def test_one_to_seven_building_offers_every_mix_of_one_to_seven_resources() -> None:
    state = build_on(ONE_TO_SEVEN, wood=9, clay=9, stone=9, gold=9)
    offered_pays = pays(state)
    expected = {m for t in range(1, 8) for m in all_mixes(t)}
    assert len(expected) == 4 + 10 + 20 + 35 + 56 + 84 + 120
    assert len(offered_pays) == len(expected)
    assert set(offered_pays) == expected


def test_one_to_seven_building_offers_only_affordable_mixes() -> None:
    have = (2, 1, 0, 3)
    state = build_on(ONE_TO_SEVEN, **holding(have))
    expected = {m for t in range(1, 8) for m in all_mixes(t, have)}
    assert len(expected) == 3 * 2 * 4 - 1
    assert set(pays(state)) == expected
    assert len(pays(state)) == len(expected)


@pytest.mark.parametrize(
    "paid", [(1, 0, 0, 0), (0, 0, 0, 7), (2, 2, 2, 1), (0, 1, 0, 0)], ids=str
)
def test_one_to_seven_building_scores_the_value_of_what_was_paid(paid: Mix) -> None:
    state = build_on(ONE_TO_SEVEN, wood=7, clay=7, stone=7, gold=7)
    pay(state, *paid)
    assert player(state, 0)["score"] == points(paid)
    assert resources(state) == tuple(7 - x for x in paid)


def test_one_to_seven_building_never_takes_more_than_seven() -> None:
    state = build_on(ONE_TO_SEVEN, gold=9)
    assert sorted(pays(state)) == [(0, 0, 0, g) for g in range(1, 8)]


# ------------------------------------------------------------------ declining, next tile
def test_declining_a_building_leaves_the_tile_on_top_of_its_pile() -> None:
    tile = fixed_tile((1, 1, 1, 0))
    state = build_on(tile, wood=2, clay=2, stone=2)
    state.apply({"type": "decline"})
    assert_top(state, 0, tile)
    assert pile_view(state, 0)["remaining"] == 7
    assert resources(state) == (2, 2, 2, 0)
    assert player(state, 0)["score"] == 0
    assert player(state, 0)["buildings"] == 0


def test_buying_a_building_reveals_the_next_tile_of_the_pile() -> None:
    first, second = fixed_tile((1, 1, 1, 0)), variable_tile(4, 4)
    state = start(piles=((first, second),), wood=1, clay=1, stone=1)
    place(state, "building", pile=0)
    place(state, "field")
    assert_top(state, 0, first)
    pay(state, 1, 1, 1)
    assert_top(state, 0, second)
    assert pile_view(state, 0)["remaining"] == 6
    assert_top(state, 0, second, seat=1)


def test_nobody_can_place_on_the_revealed_tile_in_the_same_round() -> None:
    first, second = fixed_tile((1, 1, 1, 0)), fixed_tile((2, 1, 0, 0))
    other = fixed_tile((0, 0, 2, 1))  # pile 1: seat 0 cannot pay for it
    state = start(piles=((first, second), (other,)), people=3, wood=3, clay=2, stone=1)
    place(state, "building", pile=0)  # seat 0
    place(state, "field")  # seat 1, who is then done
    place(state, "building", pile=1)  # seat 0
    place(state, "tool_maker")  # seat 0
    assert state.observation(0)["phase"] == "resolution"
    state.apply({"type": "resolve", "place": "building", "pile": 0})
    pay(state, 1, 1, 1)
    # Seat 0 can afford the revealed 2 wood + 1 clay tile, but has nobody on it this round.
    assert_top(state, 0, second)
    assert pile_view(state, 0)["people"] == [0, 0]
    resolvable = offered(state, "resolve")
    assert {"type": "resolve", "place": "building", "pile": 0} not in resolvable
    assert len(resolvable) == 2
    state.apply({"type": "resolve", "place": "tool_maker"})
    # Pile 1 was left, resolved and declined at once (E1); the round ended, pile 0 untouched.
    assert state.round == 2
    assert player(state, 0)["buildings"] == 1
    assert_top(state, 0, second)
    # Next round the revealed tile takes people again.
    assert state.current_player == 1
    assert {"type": "place", "place": "building", "pile": 0, "people": 1} in offered(
        state, "place"
    )


def test_a_player_may_place_on_a_building_they_cannot_afford_and_only_decline() -> None:
    tile = fixed_tile((0, 0, 2, 1))
    state = start(piles=((tile,),), stone=1, gold=1)
    assert {"type": "place", "place": "building", "pile": 0, "people": 1} in offered(
        state, "place"
    )
    place(state, "building", pile=0)
    place(state, "field")
    # The only legal action, decline, was applied at once (E1): no decision was asked.
    assert state.round == 2
    assert state.observation(0)["phase"] == "placement"
    assert player(state, 0)["buildings"] == 0
    assert player(state, 0)["score"] == 0
    assert resources(state) == (0, 0, 1, 1)
    assert_top(state, 0, tile)
    assert pile_view(state, 0)["remaining"] == 7
