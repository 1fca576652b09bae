"""Hidden information (ruling 12) and the shape of observations.

Ruling 12: "the deck order and the buildings under each pile's top are hidden from everyone; a
card taken with the extra-card effect is known only to its owner. Everything else (cards bought
from the display, tools, food, resources, people, scores) is public."
RULES.md: "An observation shows everything but: the deck order (only its size), the tiles under
each pile's top (only how many remain), the cards other players took with the extra-card effect
(only how many), and the seed."

Hidden parts are checked by building two states that differ only in them and comparing the
observations, which must then be equal.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sa import act, edit, new_game, place, player, with_player

from arena.engine.stoneage import STONE_AGE, StoneAgeState
from arena.engine.stoneage.components import BUILDINGS, CARDS, T_EXTRA_CARD

DISPLAY = [10, 11, 12, 13]  # food cards: 7, 5, 3 and 1 food
EXTRA = next(i for i, c in enumerate(CARDS) if c.top == T_EXTRA_CARD)


def all_observations(g: StoneAgeState) -> list[dict[str, Any]]:
    return [g.observation(s) for s in range(g.num_players)]


def keys_anywhere(x: Any) -> set[str]:
    if isinstance(x, dict):
        return set(x) | {k for v in x.values() for k in keys_anywhere(v)}
    if isinstance(x, list):
        return {k for v in x for k in keys_anywhere(v)}
    return set()


def assert_plain(x: Any, path: str = "obs") -> None:
    if isinstance(x, dict):
        for k, v in x.items():
            assert type(k) is str, f"{path}: key {k!r} is not a str"
            assert_plain(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            assert_plain(v, f"{path}[{i}]")
    else:
        assert x is None or type(x) in (str, int, bool), f"{path}: {type(x).__name__} {x!r}"


# --------------------------------------------------------------------------------- deck


def test_the_deck_order_is_not_in_any_observation_only_its_size() -> None:
    a = new_game(2, display=DISPLAY)
    b = new_game(2, display=DISPLAY, deck=[35, 34, 33, 5, 0])
    assert a.to_dict()["deck"] != b.to_dict()["deck"]
    assert all_observations(a) == all_observations(b)
    assert a.observation(0)["board"]["deck_size"] == 36 - 4


def test_the_deck_size_counts_the_cards_left_to_draw() -> None:
    g = new_game(2, display=DISPLAY)
    g = edit(g, lambda d: d.update(deck_pos=30))
    assert g.observation(1)["board"]["deck_size"] == 6


# ------------------------------------------------------------------------------ buildings


def test_only_the_top_of_each_building_pile_is_shown_and_how_many_remain() -> None:
    a = new_game(2, piles=[[0, 1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12, 13]])
    b = new_game(2, piles=[[0, 25, 24, 23, 22, 21, 20], [7, 19, 18, 17, 16, 15, 14]])
    assert a.to_dict()["piles"] != b.to_dict()["piles"]
    assert all_observations(a) == all_observations(b)
    piles = a.observation(0)["board"]["buildings"]
    assert [(p["pile"], p["top"], p["remaining"]) for p in piles] == [(0, 0, 7), (1, 7, 7)]


def test_a_pile_top_shows_its_cost_and_points() -> None:
    g = new_game(2, piles=[[0]])
    top = g.observation(1)["board"]["buildings"][0]["top"]
    assert BUILDINGS[0].cost == (2, 1, 0, 0)
    assert type(top) is int and top == 0
    tile = STONE_AGE.components()["buildings"][top]
    assert tile["cost"] == {"wood": 2, "clay": 1, "stone": 0, "gold": 0}
    assert tile["points"] == 10


def test_only_the_piles_in_play_are_shown() -> None:
    assert len(new_game(2).observation(0)["board"]["buildings"]) == 2
    assert len(new_game(3).observation(0)["board"]["buildings"]) == 3


def test_the_next_tile_is_shown_once_the_top_is_bought() -> None:
    g = new_game(2, piles=[[0, 5, 6]])
    g = with_player(g, 0, people=1, wood=2, clay=1)
    g = with_player(g, 1, people=1)
    place(g, "building", pile=0)
    place(g, "card", slot=1)  # seat 1 cannot pay: declines at once
    act(g, "pay", wood=2, clay=1, stone=0, gold=0)
    pile = g.observation(1)["board"]["buildings"][0]
    assert (pile["top"], pile["remaining"]) == (5, 6)


# --------------------------------------------------------------------------- extra cards


def test_other_players_extra_cards_are_only_counted() -> None:
    a = with_player(new_game(2, display=DISPLAY), 1, hidden=[5, 7])
    b = with_player(new_game(2, display=DISPLAY), 1, hidden=[20, 31])
    assert a.observation(0) == b.observation(0)
    other = a.observation(0)["players"][1]
    assert other["hidden_cards"] == 2
    assert "hidden_card_list" not in other


def test_a_player_sees_its_own_extra_cards() -> None:
    g = with_player(new_game(2, display=DISPLAY), 1, hidden=[5, 7])
    own = g.observation(1)["players"][1]
    assert own["hidden_cards"] == 2
    assert own["hidden_card_list"] == [5, 7]
    assert own["figures"].get("farmer", 0) >= 2  # the hidden farmer card counts for its owner


def _buy_extra_card(next_card: int) -> StoneAgeState:
    """Seat 0 buys the extra-card card from slot 1; the deck's next card is ``next_card``."""
    g = new_game(2, display=[EXTRA, 11, 12, 13], deck=[next_card, 0, 1])
    g = with_player(g, 0, people=1, wood=1)
    g = with_player(g, 1, people=1)
    place(g, "card", slot=1)
    place(g, "card", slot=2)  # seat 1 cannot pay: declines at once
    act(g, "pay", wood=1, clay=0, stone=0, gold=0)
    assert g.round == 2
    return g


def test_a_card_drawn_with_the_extra_card_effect_is_known_only_to_its_owner() -> None:
    a = _buy_extra_card(next_card=5)
    b = _buy_extra_card(next_card=7)
    assert a.observation(1) == b.observation(1)
    assert a.observation(0) != b.observation(0)
    mine = a.observation(0)["players"][0]
    assert mine["hidden_card_list"] == [5]
    theirs = a.observation(1)["players"][0]
    assert theirs["hidden_cards"] == 1
    assert "hidden_card_list" not in theirs


def test_the_bought_extra_card_card_itself_is_public() -> None:
    g = _buy_extra_card(next_card=5)
    assert g.observation(1)["players"][0]["cards"] == [EXTRA]
    # one card drawn by the effect, one to refill slot 1
    assert g.observation(1)["board"]["deck_size"] == 32 - 2
    assert [c["card"] for c in g.observation(1)["board"]["cards"]] == [11, 12, 13, 0]


# ---------------------------------------------------------------------------------- seed


def test_the_seed_is_not_in_any_observation() -> None:
    seed = 918273645
    g = STONE_AGE.new_state(2, seed=seed)
    assert isinstance(g, StoneAgeState)
    other = edit(g, lambda d: d["chance"].update(seed=12345))
    assert g.to_dict()["chance"] != other.to_dict()["chance"]
    for seat in (0, 1):
        obs = g.observation(seat)
        assert obs == other.observation(seat)
        assert str(seed) not in json.dumps(obs)
        assert not keys_anywhere(obs) & {"seed", "chance", "deck", "piles", "dice_script"}


# -------------------------------------------------------------------------- public parts


def test_the_display_cards_are_public() -> None:
    g = new_game(2, display=[25, 3, 17, 33])
    cards = g.observation(1)["board"]["cards"]
    assert [(c["slot"], c["cost"], c["card"]) for c in cards] == [
        (1, 1, 25), (2, 2, 3), (3, 3, 17), (4, 4, 33),
    ]
    assert all(type(c["card"]) is int for c in cards)
    card = STONE_AGE.components()["cards"][cards[0]["card"]]
    assert card["top"] == {"effect": "points", "amount": 3}
    assert card["bottom"] == {"symbol": "music"}


def test_every_players_goods_tools_people_agriculture_score_and_cards_are_public() -> None:
    g = new_game(3)
    g = with_player(
        g, 0, food=7, wood=1, clay=2, stone=3, gold=4, people=8, agri=6, step=5,
        one_use=(3,), cards=[25, 7], nbuild=2, build_pts=21, top_pts=3, penalties=1,
        any2=1,
    )
    for seat in (0, 1, 2):
        p = g.observation(seat)["players"][0]
        assert (p["food"], p["wood"], p["clay"], p["stone"], p["gold"]) == (7, 1, 2, 3, 4)
        assert p["people"] == 8
        assert p["agriculture"] == 6
        assert p["tools"] == [2, 2, 1]
        assert p["one_use_tools"] == [3]
        assert p["score"] == 21 + 3 - 10
        assert p["buildings"] == 2
        assert p["cards"] == [25, 7]
        assert p["any_two_resources"] == 1


def test_all_seats_see_the_same_public_record_of_a_player() -> None:
    g = with_player(new_game(2), 1, hidden=[5], cards=[0], wood=3)
    mine = dict(g.observation(1)["players"][1])
    theirs = dict(g.observation(0)["players"][1])
    del mine["hidden_card_list"]
    # Totals count the cards the viewer can see: the owner's include its hidden card 5 (two
    # hut builders), the other seat's do not.
    assert mine.pop("figures") == {"hut_builder": 2}
    assert theirs.pop("figures") == {}
    assert mine.pop("culture") == theirs.pop("culture") == {"pottery": 1}
    assert mine == theirs


def test_changing_an_observation_changes_no_later_one() -> None:
    """Observations are fresh data: a bot may edit what it was given. (The engine memoizes the
    culture and figure counts of each hand; they must never be handed out shared.)"""
    g = with_player(new_game(2), 1, hidden=[5], cards=[0])
    first = g.observation(1)["players"][1]
    first["culture"]["pottery"] = 99
    first["figures"]["hut_builder"] = 99
    again = g.observation(1)["players"][1]
    assert again["culture"] == {"pottery": 1} and again["figures"] == {"hut_builder": 2}
    other = g.observation(0)["players"][1]
    assert other["culture"] == {"pottery": 1} and other["figures"] == {}


def test_people_on_the_board_are_public() -> None:
    g = new_game(2, dice=[1] * 10)
    place(g, "forest", 3)
    board = g.observation(1)["board"]
    assert board["people"]["forest"] == [3, 0]
    assert player(g, 0)["people_to_place"] == 2


# ----------------------------------------------------------------------------- plain data


def _states() -> list[StoneAgeState]:
    start = new_game(4, display=DISPLAY)
    tools = new_game(2, dice=[1] * 20)
    tools = with_player(tools, 0, people=1, step=3)
    place(tools, "hunting", 1)
    place(tools, "hunting", 5)
    assert tools.observation(0)["decision"]["kind"] == "use_tools"
    feeding = new_game(2, dice=[1] * 20)
    feeding = with_player(feeding, 0, food=0, wood=5, hidden=[3])
    place(feeding, "river", 5)
    place(feeding, "hunting", 5)
    assert feeding.observation(0)["decision"]["kind"] == "feed"
    over = new_game(2, dice=[1] * 20)
    over = edit(over, lambda d: d["pile_pos"].__setitem__(1, 7))
    place(over, "hunting", 5)
    place(over, "hunting", 5)
    assert over.is_terminal
    return [start, tools, feeding, over]


def test_observations_are_plain_data_that_round_trip_through_json() -> None:
    for g in _states():
        for obs in all_observations(g):
            assert_plain(obs)
            assert json.loads(json.dumps(obs)) == obs


def test_the_observation_of_a_finished_game_has_no_decision() -> None:
    over = _states()[-1]
    obs = over.observation(0)
    assert obs["phase"] == "game_over"
    assert obs["decision"] is None
    assert obs["current_player"] is None


@pytest.mark.parametrize(("players", "seat"), [(2, -1), (2, 2), (2, 5), (3, 3), (4, 4)])
def test_observation_rejects_a_seat_out_of_range(players: int, seat: int) -> None:
    g = new_game(players)
    with pytest.raises(ValueError):
        g.observation(seat)


def test_observation_accepts_every_seat_in_range() -> None:
    g = new_game(4)
    assert [g.observation(s)["seat"] for s in range(4)] == [0, 1, 2, 3]
