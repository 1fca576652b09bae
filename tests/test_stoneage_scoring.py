"""Final scoring and ranks.

Rules text (seed 000):
"同じ記号が重ならないように組を作り、組の枚数を2乗します。
異なる5種類なら25点、同じ記号の余りが1枚なら別の1種類の組で1点、合わせて26点です。"
"農夫の人数の合計に農業の値、道具職人の人数の合計に通常道具3枚の値の合計、
建築者の人数の合計に取った建物枚数、シャーマンの人数の合計に現在の一族人数を、
それぞれ掛けて足します。"
"例えば農夫5人分と農業7なら35点、道具職人3人分と通常道具の合計7なら21点です。
使い切り道具は通常道具の倍率に含めません。"
"残る木、粘土、石、金は1個につき1点、食料には点がありません。"
"同点なら農業の値、通常道具の値の合計、一族人数を足した数が大きい人を上位にします。
それも同じなら同率勝利です。"
Rulings 5, 6, 11; RULES.md "Scoring and ranks".

A terminal state is reached by emptying building pile 0 before round 1 (ruling 10b: the round is
played to the end, then the game ends); every seat hunts with all its people on all-1 dice, which
only brings food (worth nothing) and uses no tools.
"""

from __future__ import annotations

from typing import Any

import pytest
from sa import act, edit, new_game, place, player, with_player

from arena.engine import GameResult
from arena.engine.stoneage import StoneAgeState
from arena.engine.stoneage.components import CARDS, FIGURES, SYMBOLS


def greens(*symbols: str) -> list[int]:
    """Card ids with these culture symbols (a symbol named twice gives both of its cards)."""
    ids: list[int] = []
    for sym in symbols:
        ids.append(next(i for i, c in enumerate(CARDS)
                        if c.symbol == SYMBOLS.index(sym) and i not in ids))
    return ids


def figures_on(ids: list[int], figure: str) -> int:
    return sum(CARDS[i].figures for i in ids if CARDS[i].figure == FIGURES.index(figure))


def last_round(players: int = 2, **seats: dict[str, Any]) -> StoneAgeState:
    """Round 1 with building pile 0 already empty; ``seats`` maps "p0".. to with_player fields."""
    g = new_game(players, dice=[1] * 60)
    g = edit(g, lambda d: d["pile_pos"].__setitem__(0, 7))
    for name, fields in seats.items():
        g = with_player(g, int(name[1:]), **fields)
    return g


def play_out(g: StoneAgeState) -> None:
    """Everybody hunts with all their people; tools are never added."""
    while not g.is_terminal:
        seat = g.current_player
        assert seat is not None
        decision = g.observation(seat)["decision"]
        if decision["kind"] == "place":
            place(g, "hunting", player(g, seat)["people_to_place"])
        elif decision["kind"] == "use_tools":
            act(g, "use_tools", tools=[], one_use_tools=[])
        else:
            raise AssertionError(f"unexpected decision {decision!r}")


def final(players: int = 2, **seats: dict[str, Any]) -> GameResult:
    g = last_round(players, **seats)
    play_out(g)
    return g.result()


# ----------------------------------------------------------------------------- green cards


def test_five_different_symbols_plus_one_repeat_score_26() -> None:
    cards = greens("pottery", "writing", "sundial", "transport", "medicine", "pottery")
    assert len(set(cards)) == 6
    res = final(p0={"cards": cards})
    assert res.breakdown[0]["civilization_green"] == 26
    assert res.scores[0] == 26


@pytest.mark.parametrize(
    ("symbols", "points"),
    [
        ((), 0),
        (("music",), 1),
        (("art", "art"), 1 + 1),
        (("pottery", "pottery", "writing", "writing"), 4 + 4),
        (("pottery", "writing", "sundial"), 9),
        (tuple(SYMBOLS), 64),
        (tuple(SYMBOLS) * 2, 64 + 64),
        ((*SYMBOLS, "weaving", "art", "music"), 64 + 9),
    ],
)
def test_green_cards_score_each_set_of_distinct_symbols_squared(
    symbols: tuple[str, ...], points: int
) -> None:
    res = final(p0={"cards": greens(*symbols)})
    assert res.breakdown[0]["civilization_green"] == points


def test_extra_cards_score_their_bottom_like_bought_cards() -> None:
    six = greens("pottery", "writing", "sundial", "transport", "medicine", "pottery")
    res = final(p0={"cards": six[:4], "hidden": six[4:]})
    assert res.breakdown[0]["civilization_green"] == 26


def test_hidden_sand_cards_multiply_like_bought_ones() -> None:
    two_farmers = 7
    assert figures_on([two_farmers], "farmer") == 2
    res = final(p0={"hidden": [two_farmers], "agri": 3})
    assert res.breakdown[0]["farmers"] == 6


# ------------------------------------------------------------------------------ sand cards


def test_five_farmers_at_agriculture_seven_score_35() -> None:
    cards = [7, 16, 18]  # 2 + 2 + 1 farmers on three cards
    assert figures_on(cards, "farmer") == 5
    res = final(p0={"cards": cards, "agri": 7})
    assert res.breakdown[0]["farmers"] == 35


def test_figures_are_counted_not_cards() -> None:
    cards = [7, 16]  # two cards, four farmers
    assert figures_on(cards, "farmer") == 4
    res = final(p0={"cards": cards, "agri": 2})
    assert res.breakdown[0]["farmers"] == 8


def test_three_tool_makers_with_tools_summing_to_seven_score_21() -> None:
    cards = [8, 32]  # 2 tool makers + 1 tool maker (the one-use tool 4 card)
    assert figures_on(cards, "tool_maker") == 3
    res = final(p0={"cards": cards, "step": 7})  # tools 3/2/2
    assert res.breakdown[0]["tool_makers"] == 21


def test_one_use_tools_do_not_count_for_tool_makers() -> None:
    cards = [8, 32]
    res = final(p0={"cards": cards, "step": 7, "one_use": (4,)})
    assert res.breakdown[0]["tool_makers"] == 21
    res = final(p0={"cards": cards, "step": 0, "one_use": (4, 3)})
    assert res.breakdown[0]["tool_makers"] == 0


def test_hut_builders_multiply_the_number_of_buildings() -> None:
    cards = [27]  # 3 hut builders
    assert figures_on(cards, "hut_builder") == 3
    res = final(p0={"cards": cards, "nbuild": 4, "build_pts": 50})
    assert res.breakdown[0]["hut_builders"] == 12
    assert res.breakdown[0]["buildings"] == 50


def test_shamans_multiply_the_number_of_people() -> None:
    cards = [19, 21]  # 1 + 2 shamans
    assert figures_on(cards, "shaman") == 3
    res = final(p0={"cards": cards, "people": 6})
    assert res.breakdown[0]["shamans"] == 18


def test_multipliers_without_cards_score_nothing() -> None:
    res = final(p0={"agri": 9, "step": 12, "nbuild": 5, "people": 8})
    b = res.breakdown[0]
    assert (b["farmers"], b["tool_makers"], b["hut_builders"], b["shamans"]) == (0, 0, 0, 0)


def test_card_tops_are_not_scored_again_at_the_end() -> None:
    cards = [25, 10, 22]  # 3 points / music, 7 food / pottery, roll for gold / art
    res = final(p0={"cards": cards})
    assert res.breakdown[0]["card_points"] == 0
    assert res.scores[0] == 9


# ------------------------------------------------------------------------------- goods


def test_each_leftover_resource_scores_one_point_and_food_none() -> None:
    res = final(p0={"food": 20, "wood": 1, "clay": 2, "stone": 3, "gold": 4})
    assert res.breakdown[0]["resources"] == 10
    assert res.scores[0] == 10


def test_an_unclaimed_any_two_resources_card_scores_two_points() -> None:
    res = final(p0={"any2": 1})
    assert res.breakdown[0]["resources"] == 2


# ------------------------------------------------------------------------------ totals


def test_the_breakdown_adds_up_to_the_score() -> None:
    p0 = {
        "build_pts": 23, "top_pts": 3, "penalties": 1, "nbuild": 3,
        "cards": [*greens("pottery", "writing", "pottery"), 18, 9, 5, 20],
        "agri": 2, "step": 4, "people": 5, "wood": 2, "gold": 1, "food": 30,
    }
    p1 = {"build_pts": 7, "stone": 2}
    res = final(p0=p0, p1=p1)
    assert res.breakdown[0] == {
        "buildings": 23,
        "card_points": 3,
        "feeding_penalty": -10,
        "civilization_green": 4 + 1,
        "farmers": 1 * 2,
        "tool_makers": 2 * (2 + 1 + 1),
        "hut_builders": 2 * 3,
        "shamans": 1 * 5,
        "resources": 3,
    }
    assert res.scores == (45, 9)
    for seat in (0, 1):
        assert sum(res.breakdown[seat].values()) == res.scores[seat]


def test_the_final_score_starts_from_the_score_track() -> None:
    g = last_round(p0={"build_pts": 12, "top_pts": 6, "penalties": 2})
    assert player(g, 0)["score"] == 12 + 6 - 20
    play_out(g)
    assert g.result().scores[0] == -2


def test_a_final_score_may_be_negative() -> None:
    res = final(p0={"penalties": 3, "wood": 1})
    assert res.scores[0] == -29
    assert res.ranks == (2, 1)


# ------------------------------------------------------------------------------- ranks


def test_the_highest_score_wins_whatever_the_tie_break() -> None:
    res = final(p0={"build_pts": 11}, p1={"build_pts": 10, "agri": 10, "step": 12})
    assert res.ranks == (1, 2)


def test_a_tie_is_broken_by_agriculture() -> None:
    res = final(p0={"build_pts": 10, "agri": 2}, p1={"build_pts": 10, "agri": 1})
    assert res.scores == (10, 10)
    assert res.tiebreak == (2 + 5, 1 + 5)
    assert res.ranks == (1, 2)


def test_a_tie_break_adds_permanent_tool_values() -> None:
    res = final(p0={"build_pts": 10, "agri": 2}, p1={"build_pts": 10, "step": 3})
    assert res.tiebreak == (2 + 5, 3 + 5)
    assert res.ranks == (2, 1)


def test_a_tie_break_adds_people() -> None:
    res = final(p0={"build_pts": 10, "people": 7}, p1={"build_pts": 10, "agri": 1})
    assert res.tiebreak == (7, 1 + 5)
    assert res.ranks == (1, 2)


def test_one_use_tools_do_not_count_in_the_tie_break() -> None:
    res = final(p0={"build_pts": 10, "one_use": (4, 3)}, p1={"build_pts": 10, "agri": 1})
    assert res.tiebreak == (5, 6)
    assert res.ranks == (2, 1)


def test_seats_still_equal_share_the_rank_and_the_next_rank_is_skipped() -> None:
    res = final(
        3,
        p0={"build_pts": 10, "agri": 1},
        p1={"build_pts": 10, "agri": 1},
        p2={"build_pts": 9, "agri": 5},
    )
    assert res.scores == (10, 10, 9)
    assert res.ranks == (1, 1, 3)


def test_a_shared_second_place() -> None:
    res = final(3, p0={"build_pts": 12}, p1={"build_pts": 10}, p2={"build_pts": 10})
    assert res.ranks == (1, 2, 2)


def test_four_seats_sharing_first_place() -> None:
    res = final(4, p0={"build_pts": 10}, p1={"build_pts": 10}, p2={"build_pts": 10})
    assert res.ranks == (1, 1, 1, 4)


# ------------------------------------------------------------------------ result timing


def test_result_raises_before_the_game_is_over() -> None:
    g = new_game(2, dice=[1] * 10)
    with pytest.raises(RuntimeError):
        g.result()


def test_result_raises_during_the_last_round() -> None:
    g = last_round()
    assert g.observation(0)["board"]["buildings"][0]["remaining"] == 0
    with pytest.raises(RuntimeError):
        g.result()
    play_out(g)
    assert g.result().ranks == (1, 1)
