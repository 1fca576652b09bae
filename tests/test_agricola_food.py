"""Agricola food and harvest: cooking, baking, crafts, feeding, the field phase, breeding.

Rules text (seed 002): "家族コマ(ワーカー)1個について食料2つ" (2 food per person);
"このラウンドで誕生した家族は新生児として、食料1つですみます" (a person born this round eats 1);
"手元に持っている小麦か野菜をいつでも食料1に変えられます。畑にまいてある状態では食料になりません"
(grain and vegetables in the supply are 1 food each, not on fields); "不足する食料1つについて
物乞いカードを1枚" (one begging card per food missing); "同じ種類の家畜を2頭以上持っていると
子どもが生まれます。その種類の家畜を1頭受け取ります(2頭ごとに1頭ではありません)" (one newborn per
type with two or more, not one per pair); "置く場所がないと受け取れません" (none without room).
Reference A8: the majors' rates, ovens' limits, crafts once per harvest, solo 3 food per adult.
Rulings F1–F8 in RULES.md.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_agricola_farm import farm_with

from arena.engine.agricola import farm as farm_mod
from arena.engine.agricola.components import (
    BASKETMAKER,
    CATTLE,
    CLAY,
    CLAY_OVEN,
    FIREPLACE_2,
    FIREPLACE_3,
    FOOD,
    GOODS,
    GRAIN,
    HEARTH_4,
    HEARTH_5,
    JOINERY,
    POTTERY,
    REED,
    SHEEP,
    STONE_OVEN,
    VEGETABLE,
    WELL,
    WOOD,
)
from arena.engine.agricola.components import BOAR as BOAR_GOOD
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.food import (
    FEED_SOURCES,
    BakeOption,
    FeedOption,
    bake,
    bake_options,
    births,
    breeding_options,
    can_cook,
    craft_conversions,
    feed,
    feeding_options,
    field_phase,
    food_needed,
    food_values,
)
from arena.engine.agricola.state_base import freeze


def g(**counts: int) -> tuple[int, ...]:
    """A goods row from names: g(grain=2, sheep=3)."""
    row = [0] * len(GOODS)
    for name, n in counts.items():
        row[GOODS.index(name)] = n
    return tuple(row)


def actions(options: list[Any]) -> list[dict[str, Any]]:
    return [o.action() for o in options]


def feed_dict(grain: int = 0, vegetable: int = 0, cook_vegetable: int = 0, sheep: int = 0,
              boar: int = 0, cattle: int = 0, crafts: tuple[int, ...] = (),
              begging: int = 0) -> dict[str, Any]:
    return {"type": "feed", "grain": grain, "vegetable": vegetable,
            "cook_vegetable": cook_vegetable, "sheep": sheep, "boar": boar, "cattle": cattle,
            "crafts": list(crafts), "begging": begging}


# --- cooking ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("majors", "sheep", "boar", "cattle", "vegetable"),
    [
        ((), 0, 0, 0, 1),
        ((FIREPLACE_2,), 2, 2, 3, 2),
        ((FIREPLACE_3,), 2, 2, 3, 2),
        ((HEARTH_4,), 2, 3, 4, 3),
        ((HEARTH_5,), 2, 3, 4, 3),
        ((FIREPLACE_2, HEARTH_5), 2, 3, 4, 3),  # the best of what is owned
        ((CLAY_OVEN, STONE_OVEN, JOINERY, WELL), 0, 0, 0, 1),  # ovens and crafts do not cook
    ],
)
def test_cooking_rates_per_major(majors: tuple[int, ...], sheep: int, boar: int, cattle: int,
                                 vegetable: int) -> None:
    v = food_values(frozenset(majors))
    assert (v[SHEEP], v[BOAR_GOOD], v[CATTLE], v[VEGETABLE]) == (sheep, boar, cattle, vegetable)
    assert v[GRAIN] == 1  # raw grain is 1 food with or without an improvement
    assert v[WOOD] == v[CLAY] == v[REED] == v[FOOD] == 0
    assert can_cook(majors) == (sheep > 0)


def test_unknown_major_is_refused() -> None:
    with pytest.raises(ValueError):
        food_values((10,))


# --- baking -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("majors", "grain", "foods"),
    [
        ((FIREPLACE_2,), 3, [2, 4, 6]),
        ((HEARTH_4,), 3, [3, 6, 9]),
        ((FIREPLACE_3, HEARTH_5), 2, [3, 6]),  # a Fireplace beside a Hearth is never better
        ((CLAY_OVEN,), 3, [5]),  # exactly 1 grain
        ((STONE_OVEN,), 3, [4, 8]),  # up to 2 grain
        ((CLAY_OVEN, STONE_OVEN), 5, [5, 9, 13]),  # each fires once: at most 3 grain
        ((CLAY_OVEN, STONE_OVEN, FIREPLACE_2), 5, [5, 9, 13, 15, 17]),
        ((CLAY_OVEN, STONE_OVEN, HEARTH_4), 4, [5, 9, 13, 16]),
        ((JOINERY, WELL), 4, []),  # no baking improvement
        ((HEARTH_4,), 0, []),  # no grain
    ],
)
def test_bake_rates_and_oven_limits(majors: tuple[int, ...], grain: int,
                                    foods: list[int]) -> None:
    options = bake_options(grain, majors)
    assert [o.food for o in options] == foods
    assert [o.grain for o in options] == list(range(1, len(foods) + 1))
    for o in options:
        # each improvement fires at most once, within its limit, and the grain adds up
        used = [mj for mj, _ in o.uses]
        assert len(used) == len(set(used))
        assert sum(n for _, n in o.uses) == o.grain
        assert all(n <= 1 for mj, n in o.uses if mj == CLAY_OVEN)
        assert all(n <= 2 for mj, n in o.uses if mj == STONE_OVEN)


def test_bake_uses_the_best_improvement_first_and_applies() -> None:
    options = bake_options(4, frozenset({FIREPLACE_2, CLAY_OVEN, STONE_OVEN}))
    assert options[-1] == BakeOption(((CLAY_OVEN, 1), (STONE_OVEN, 2), (FIREPLACE_2, 1)), 4, 15)
    assert options[0].action() == {"type": "bake", "grain": 1, "uses": [[CLAY_OVEN, 1]]}
    assert bake(g(grain=4, food=1), options[1]) == g(grain=2, food=10)
    with pytest.raises(ValueError):
        bake(g(grain=1), options[1])


def test_an_ovens_free_bake_is_one_bake_bread_action_with_the_new_oven() -> None:
    # A player with a Fireplace builds the Stone Oven and bakes at once (ruling D13).
    before = bake_options(3, (FIREPLACE_2,))
    after = bake_options(3, (FIREPLACE_2, STONE_OVEN))
    assert [o.food for o in before] == [2, 4, 6]
    assert [o.food for o in after] == [4, 8, 10]


# --- crafts -------------------------------------------------------------------------------------


def test_crafts_convert_one_good_each() -> None:
    all_crafts = (JOINERY, POTTERY, BASKETMAKER)
    assert craft_conversions(g(wood=5, clay=5, reed=5), all_crafts) == (
        (JOINERY, WOOD, 2), (POTTERY, CLAY, 2), (BASKETMAKER, REED, 3))
    assert craft_conversions(g(wood=5, reed=0), all_crafts) == ((JOINERY, WOOD, 2),)
    assert craft_conversions(g(wood=5, clay=5, reed=5), (FIREPLACE_2,)) == ()


def test_a_craft_is_used_once_per_harvest() -> None:
    # 5 wood and the Joinery do not feed 4 mouths: 1 wood -> 2 food once, 2 begging.
    options = feeding_options(g(wood=5), (JOINERY,), 4)
    assert actions(options) == [feed_dict(crafts=(JOINERY,), begging=2), feed_dict(begging=4)]
    assert options[0].goods == g(wood=4)


def test_a_craft_may_bank_food_that_is_not_needed() -> None:
    options = feeding_options(g(food=5, wood=3), (JOINERY,), 2)
    assert [(o.crafts, o.goods) for o in options] == [
        ((), g(food=3, wood=3)), ((JOINERY,), g(food=5, wood=2))]


def test_every_craft_together() -> None:
    options = feeding_options(g(wood=1, clay=1, reed=1), (JOINERY, POTTERY, BASKETMAKER), 7)
    assert options[0].action() == feed_dict(crafts=(JOINERY, POTTERY, BASKETMAKER))
    assert options[0].goods == g(food=0)
    assert options[-1].action() == feed_dict(begging=7)


# --- feeding ------------------------------------------------------------------------------------


def test_food_needed() -> None:
    assert food_needed(2) == 4
    assert food_needed(5, newborns=1) == 9  # the newborn eats 1
    assert food_needed(3, newborns=2) == 4
    assert food_needed(1, solo=True) == 3  # solo: 3 per adult
    assert food_needed(2, newborns=1, solo=True) == 4
    with pytest.raises(ValueError):
        food_needed(2, newborns=3)
    with pytest.raises(ValueError):
        food_needed(6)


def test_exact_food_in_supply_is_the_only_option() -> None:
    options = feeding_options(g(food=4, grain=3, sheep=2), (HEARTH_4,), food_needed(2))
    assert actions(options) == [feed_dict()]
    assert options[0].goods == g(grain=3, sheep=2)


def test_food_in_supply_pays_first_and_the_rest_is_kept() -> None:
    options = feeding_options(g(food=6), (), 4)
    assert [(o.goods, o.begging) for o in options] == [(g(food=2), 0)]


def test_shortfall_takes_one_begging_marker_per_food() -> None:
    options = feeding_options(g(food=1, wood=9), (), food_needed(3))
    assert actions(options) == [feed_dict(begging=5)]
    assert options[0].goods == g(wood=9)


def test_raw_grain_and_vegetables_without_an_improvement() -> None:
    options = feeding_options(g(grain=1, vegetable=1, sheep=4), (), 2)
    # sheep cannot become food without a Fireplace or Hearth
    assert actions(options) == [
        feed_dict(grain=1, vegetable=1),
        feed_dict(vegetable=1, begging=1),
        feed_dict(grain=1, begging=1),
        feed_dict(begging=2),
    ]
    assert options[0].goods == g(sheep=4)


def test_hand_checked_options_with_a_fireplace() -> None:
    # 1 food, 2 grain, 3 sheep, a Fireplace, 2 people: 3 food missing.
    options = feeding_options(g(food=1, grain=2, sheep=3), (FIREPLACE_2,), 4)
    assert actions(options) == [
        feed_dict(sheep=2),  # 4 food: 1 left over, both grain kept
        feed_dict(grain=1, sheep=1),  # exactly 3
        feed_dict(sheep=1, begging=1),  # keep the grain
        feed_dict(grain=2, begging=1),  # keep every sheep
        feed_dict(grain=1, begging=2),  # keep 1 grain to sow and every sheep
        feed_dict(begging=3),  # keep everything
    ]
    assert [o.goods for o in options] == [
        g(grain=2, sheep=1, food=1), g(grain=1, sheep=2), g(grain=2, sheep=2),
        g(sheep=3), g(grain=1, sheep=3), g(grain=2, sheep=3),
    ]
    # not offered: 2 grain + 1 sheep (a grain would be spare), 1 grain + 2 sheep.


def test_vegetables_are_cooked_when_possible() -> None:
    options = feeding_options(g(vegetable=1), (HEARTH_4,), 1)
    assert actions(options) == [feed_dict(cook_vegetable=1), feed_dict(begging=1)]
    assert options[0].goods == g(food=2)


def test_overshooting_with_a_bigger_animal_is_offered() -> None:
    options = feeding_options(g(grain=1, cattle=1), (HEARTH_4,), 1)
    assert actions(options)[:2] == [feed_dict(cattle=1), feed_dict(grain=1)]
    assert options[0].goods == g(grain=1, food=3)


def test_solo_feeding() -> None:
    need = food_needed(2, newborns=1, solo=True)  # 3 + 1
    options = feeding_options(g(food=2, grain=2), (), need)
    assert actions(options) == [feed_dict(grain=2), feed_dict(grain=1, begging=1),
                                feed_dict(begging=2)]


def test_feed_applies_only_a_listed_option() -> None:
    goods = g(food=1, grain=2, sheep=3)
    assert feed(goods, (FIREPLACE_2,), 4, feed_dict(grain=1, sheep=1)) == (g(grain=1, sheep=2), 0)
    with pytest.raises(ValueError):
        feed(goods, (FIREPLACE_2,), 4, feed_dict(grain=2, sheep=1))  # a spare grain
    with pytest.raises(ValueError):
        feed(goods, (FIREPLACE_2,), 4, feed_dict(begging=2))  # the arithmetic is wrong


def dominates(a: FeedOption, b: FeedOption) -> bool:
    return (a != b and all(x >= y for x, y in zip(a.goods, b.goods, strict=True))
            and a.begging <= b.begging)


def test_feeding_options_hold_their_invariants_on_random_states() -> None:
    rng = random.Random(11)
    majors_pool = (FIREPLACE_2, HEARTH_4, CLAY_OVEN, JOINERY, POTTERY, BASKETMAKER)
    for _ in range(300):
        goods = tuple(rng.randint(0, 4) for _ in GOODS)
        majors = frozenset(mj for mj in majors_pool if rng.random() < 0.4)
        need = rng.randint(0, 10)
        options = feeding_options(goods, majors, need)
        values = food_values(majors)
        assert options, "there is always a way (begging)"
        assert len({(o.crafts, o.convert) for o in options}) == len(options)
        assert options == sorted(options, key=lambda o: (o.begging, o.crafts, o.convert))
        for o in options:
            assert min(o.goods) >= 0
            assert o.key() == freeze(o.action())  # the key the state offers, built directly
            raised = goods[FOOD] + sum(n * values[t] for t, n in zip(
                FEED_SOURCES, o.convert, strict=True)) + sum(
                {JOINERY: 2, POTTERY: 2, BASKETMAKER: 3}[c] for c in o.crafts)
            assert o.goods[FOOD] - o.begging == raised - need
            if o.begging == 0:  # minimal: any one unit fewer would leave the family short
                used = [values[t] for t, n in zip(FEED_SOURCES, o.convert, strict=True) if n]
                assert not used or o.goods[FOOD] < min(used)
            for other in options:
                assert not dominates(other, o)
        assert options[-1].begging >= options[0].begging
        assert any(o.convert == (0,) * 5 and not o.crafts for o in options)  # never forced


# --- field phase --------------------------------------------------------------------------------


def test_field_phase_takes_one_crop_from_every_sown_field() -> None:
    farm = Farm()
    for cell in (0, 1, 2):
        farm.plough(cell)
    farm.sow(0, farm_mod.GRAIN)
    farm.sow(1, farm_mod.VEGETABLE)
    after, goods = field_phase(farm, g(grain=1))
    assert goods == g(grain=2, vegetable=1)
    assert (after.crop(0), after.crop(1), after.crop(2)) == (
        (farm_mod.GRAIN, 2), (farm_mod.VEGETABLE, 1), (0, 0))
    assert farm.crop(0) == (farm_mod.GRAIN, 3)  # the input farm is unchanged
    after, goods = field_phase(after, goods)
    after, goods = field_phase(after, goods)
    assert goods == g(grain=4, vegetable=2)
    assert after.grain_in_fields() == after.vegetables_in_fields() == 0
    assert field_phase(after, goods)[1] == goods  # empty fields give nothing


# --- breeding -----------------------------------------------------------------------------------


def test_one_newborn_per_type_not_per_pair() -> None:
    assert births(g(sheep=8, boar=1, cattle=2)) == (1, 0, 1)
    assert births(g()) == (0, 0, 0)


def test_breeding_with_room() -> None:
    farm = farm_with((0, 1))  # 4 places in the pasture, 1 pet
    options = breeding_options(g(sheep=2, cattle=1), (), farm)
    assert [(o.keep, o.released, o.food) for o in options] == [((3, 0, 1), (0, 0, 0), 0)]
    assert options[0].goods == g(sheep=3, cattle=1)
    assert options[0].action() == {"type": "keep", "sheep": 3, "boar": 0, "cattle": 1}


def test_breeding_without_room_releases_the_newborn() -> None:
    farm = farm_with((0,))  # 2 in the pasture + 1 pet
    options = breeding_options(g(sheep=3), (), farm)
    assert [(o.keep, o.released, o.cooked) for o in options] == [((3, 0, 0), (1, 0, 0),
                                                                   (0, 0, 0))]
    only_pet = breeding_options(g(boar=1), (), Farm())
    assert [(o.keep, o.released) for o in only_pet] == [((0, 1, 0), (0, 0, 0))]


def test_with_a_cooker_a_parent_is_cooked_just_before_breeding() -> None:
    farm = farm_with((0,))
    options = breeding_options(g(sheep=3, food=1), (FIREPLACE_2,), farm)
    # cook one sheep before breeding: the remaining pair still breeds, 3 sheep either way
    assert [(o.keep, o.cooked, o.released, o.food) for o in options] == [
        ((3, 0, 0), (1, 0, 0), (0, 0, 0), 2)]
    assert options[0].goods == g(sheep=3, food=3)


def test_a_pair_whose_newborn_has_no_room_is_not_cooked() -> None:
    farm = farm_with((0,))
    options = breeding_options(g(cattle=2), (HEARTH_4,), farm)
    assert [(o.keep, o.cooked, o.released) for o in options] == [
        ((0, 0, 3), (0, 0, 0), (0, 0, 0))]  # the pet takes the newborn
    options = breeding_options(g(sheep=2, cattle=1), (HEARTH_4,), farm)
    assert [(o.keep, o.cooked, o.released, o.food) for o in options] == [
        ((2, 0, 1), (0, 0, 0), (1, 0, 0), 0),  # the sheep's newborn is released
        ((3, 0, 0), (0, 0, 1), (0, 0, 0), 4),  # or the cow is cooked first to make room
    ]


def test_partial_room_is_a_choice() -> None:
    farm = farm_with((0,), (1,))  # two pastures of 2, and the pet: 5 animals
    options = breeding_options(g(sheep=2, boar=2), (), farm)
    assert [(o.keep, o.released) for o in options] == [((2, 3, 0), (1, 0, 0)),
                                                       ((3, 2, 0), (0, 1, 0))]
    assert actions(options) == [{"type": "keep", "sheep": 2, "boar": 3, "cattle": 0},
                                {"type": "keep", "sheep": 3, "boar": 2, "cattle": 0}]


def test_animals_that_do_not_fit_before_breeding_are_refused() -> None:
    with pytest.raises(ValueError):
        breeding_options(g(sheep=2), (), Farm())


def test_the_feeding_list_stays_within_the_measured_bound() -> None:
    # The longest list found over a grid of holdings (ruling F6): every source, a Cooking
    # Hearth and the three crafts, 10 food missing (5 people at 2 players).
    crafts = (HEARTH_4, JOINERY, POTTERY, BASKETMAKER)
    rich = g(wood=1, clay=1, reed=1, grain=2, vegetable=2, sheep=3, boar=3, cattle=3)
    assert len(feeding_options(rich, crafts, 10)) <= 320
    assert len(feeding_options(rich, (HEARTH_4,), 10)) <= 79
