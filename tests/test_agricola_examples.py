"""Agricola: worked examples from the sources, played through the game state.

Each test quotes the sentence it checks: from the seed help page
(``shared/seeds/002_*.txt``, Japanese, the full card game; the Family game is the same without
cards) or from the project's reference page (``shared/reference/agricola.md``, "ref A7" is its
section A7). The numbers in each example are worked out by hand in its docstring.
"""

from __future__ import annotations

from typing import Any

from agri import (
    act,
    all_but,
    farm,
    finished,
    goods,
    mid,
    new,
    offered,
    order_with,
    place,
    places,
    position,
)

from arena.engine.agricola.state import AgricolaState

FIREPLACE_2, HEARTH_4 = mid("fireplace_2"), mid("cooking_hearth_4")
CLAY_OVEN, STONE_OVEN = mid("clay_oven"), mid("stone_oven")
BASKETMAKER, WELL = mid("basketmakers_workshop"), mid("well")


def fields(s: AgricolaState, seat: int = 0) -> list[list[Any]]:
    return s.to_dict()["players"][seat]["farm"]["fields"]


def finish_round(s: AgricolaState, keys: list[str]) -> None:
    """The remaining people take spaces with nothing to choose and no food."""
    for key in keys:
        assert s.phase == "place"
        place(s, key)


# ============================================================================ the seed's rules

def test_seed_grain_seeds_and_day_laborer_do_not_accumulate() -> None:
    """Seed: 「左のボードの小麦1や日雇い労働のスペースには小麦や食料チップを置きません。
    ここは蓄積していかないのです。」 (Grain Seeds and Day Laborer get no goods piled on
    them.) In round 6, never used before, they still give 1 grain and 2 food."""
    s = position(2, rnd=6, seats={0: {"goods": {}}, 1: {"goods": {}}})
    place(s, "grain_seeds")
    place(s, "day_laborer")
    assert goods(s, 0)["grain"] == 1 and goods(s, 1)["food"] == 2
    piled = {sp for sp, _, _ in s.observation(0)["board"]["accumulated"]}
    assert not piled & {2, 5}  # neither space is an accumulation space


def test_seed_and_then_needs_its_first_part_and_or_needs_either() -> None:
    """Seed: 「「Aその後でB」とあるものはAのアクションが出来ないとBも選択出来ない。
    「Aそして/またはB」とある場合AかBのどちらかが可能であればアクション可能。」 (A "then" B:
    no A, no B. A "and/or" B: usable if either is.) Farm Redevelopment with 9 wood but no reed
    for the renovation is not usable; Grain Utilization with grain and an oven but no field is
    (baking alone)."""
    s = position(2, rnd=14, order=order_with("grain_utilization", "farm_redevelopment"),
                 seats={0: {"goods": {"wood": 9, "clay": 5, "grain": 1},
                            "majors": [CLAY_OVEN]}},
                 majors_on_board=all_but(CLAY_OVEN))
    free = places(s)
    assert "farm_redevelopment" not in free
    assert "grain_utilization" in free and "fencing" in free


def test_seed_rooms_of_the_house_material_next_to_the_house() -> None:
    """Seed: 「木の部屋1つを増築するには、木材5つと屋根用に葦2つが必要です。」「新しい部屋は
    今までの部屋と縦横に隣接するところに作ります。」 (A wooden room costs 5 wood and 2 reed;
    a new room goes orthogonally next to the rooms.) With 10 wood and 4 reed: two rooms, the
    second next to the first (space 1 only becomes possible after space 0)."""
    s = position(2, seats={0: {"goods": {"wood": 10, "reed": 4}}})
    place(s, "farm_expansion")
    assert [a["cell"] for a in offered(s) if a["type"] == "build_room"] == [0, 6, 11]
    act(s, "build_room", cell=0)
    assert [a["cell"] for a in offered(s) if a["type"] == "build_room"] == [1, 6, 11]
    act(s, "build_room", cell=1)
    assert goods(s, 0)["wood"] == 0 and goods(s, 0)["reed"] == 0
    assert s.to_dict()["players"][0]["farm"]["rooms"] == [0, 1, 5, 10]


def test_seed_renovation_is_the_whole_house_at_once() -> None:
    """Seed: 「改築は家ごと全部の部屋を一度に行います。・木の家をレンガの家に改築するには、
    部屋数分のレンガと葦1が必要です。」 (The whole house at once; wood to clay costs a clay per
    room and 1 reed.) A 4-room wooden house: 4 clay + 1 reed, every room clay."""
    s = position(2, rnd=5, order=order_with("house_redevelopment"),
                 seats={0: {"goods": {"clay": 5, "reed": 3}, "farm": farm(rooms=[0, 6])}})
    place(s, "house_redevelopment")
    assert goods(s, 0)["clay"] == 1 and goods(s, 0)["reed"] == 2
    assert s.to_dict()["players"][0]["farm"]["house"] == "clay"
    assert s.score_input(0).clay_rooms == 4


def test_seed_sowing_any_number_of_fields_three_grain_or_two_vegetables() -> None:
    """Seed: 「1アクションで、空いている畑何枚でも種をまくことができます。畑1つについて自分の
    持っている小麦を1個置きます。さらに共通のストックから小麦を2個取って…野菜をまく場合は
    自分のを1個、共通のストックから1個です。」 and ref A7 ("field holds 3 ... holds 2"). Three
    fields in one action with 2 grain and 1 vegetable: 3 + 3 + 2 on the fields, the supply
    down by 2 grain and 1 vegetable."""
    s = position(2, order=order_with("grain_utilization"),
                 seats={0: {"goods": {"grain": 2, "vegetable": 1},
                            "farm": farm(fields=[12, 13, 14])}})
    place(s, "grain_utilization")
    act(s, "sow", cell=12, crop="grain")
    act(s, "sow", cell=13, crop="grain")
    act(s, "sow", cell=14, crop="vegetable")
    assert fields(s) == [[12, "grain", 3], [13, "grain", 3], [14, "vegetable", 2]]
    g = goods(s, 0)
    assert (g["grain"], g["vegetable"]) == (0, 0)
    assert s.to_dict()["current_player"] == 1  # nothing left to do: the action ended


def test_seed_an_emptied_field_may_be_sown_again() -> None:
    """Seed: 「ステージの終わりの収穫フェイズですべての畑から1個ずつ小麦または野菜を収穫します。
    畑が空いたら再び種をまくことができます。」 (Each harvest takes one crop from every field;
    an emptied field may be sown again.) A field with its last grain is empty after the
    harvest of round 7 and is offered for sowing in round 8."""
    f = farm(fields=[12], sown={12: "grain"})
    f.harvest()
    f.harvest()  # one grain left
    s = position(2, rnd=7, order=order_with("grain_utilization"),
                 seats={0: {"farm": f, "goods": {"food": 9}, "home": 1},
                        1: {"home": 1, "goods": {"food": 9}}})
    finish_round(s, ["forest", "clay_pit"])
    assert s.round == 8 and fields(s) == [[12, None, 0]] and goods(s, 0)["grain"] == 1
    place(s, "grain_utilization")  # seat 0 still starts: sow its only grain (one option)
    assert fields(s) == [[12, "grain", 3]]


def test_seed_one_pet_in_the_house_not_one_per_room() -> None:
    """Seed: 「家(部屋ではない)の中に動物を1匹だけ置くことができます。」 (One animal in the
    house, not per room.) A four-room house with nothing else keeps 1 of 3 sheep."""
    s = position(2, rnd=4, piles={"sheep_market": 3},
                 seats={0: {"farm": farm(rooms=[0, 6])}})
    place(s, "sheep_market")
    assert goods(s, 0)["sheep"] == 1


def test_seed_the_board_edge_and_fields_are_no_fences() -> None:
    """Seed: 「柵1本を設置するのに木材1個のコストがかかります。」「農場ボードの端や畑は柵の
    かわりになりません。」 (A fence costs 1 wood; the board's edge and fields are no fences.)
    A one-space pasture in the corner beside a field costs all 4 fences."""
    s = position(2, order=order_with("fencing"),
                 seats={0: {"goods": {"wood": 4}, "farm": farm(fields=[3])}})
    place(s, "fencing")
    act(s, "pasture_from", cell=4)  # the only pasture 4 wood buys from space 4
    assert goods(s, 0)["wood"] == 0
    assert s.to_dict()["players"][0]["pastures"] == [[4]]


def test_seed_a_pasture_may_be_divided_by_fences() -> None:
    """Seed: 「2つ以上のマスの牧場があるとき,それを柵で分割することはできます。」 (A pasture of
    two or more spaces may be divided.) A 2-space pasture cut in two with 1 fence: two
    pastures, each holding its own type (2 sheep and 2 boar now fit)."""
    s = position(2, order=order_with("fencing"),
                 seats={0: {"goods": {"wood": 1, "sheep": 2, "boar": 1},
                            "farm": farm(pastures=[[0, 1]])}})
    place(s, "fencing")
    act(s, "pasture_from", cell=0)
    assert goods(s, 0)["wood"] == 0
    assert s.to_dict()["players"][0]["pastures"] == [[0], [1]]
    assert s._farms[0].fits(2, 2, 0) and not farm(pastures=[[0, 1]]).fits(2, 2, 0)
    assert s.score_input(0).pastures == 2


def test_seed_one_type_per_pasture_two_per_space() -> None:
    """Seed: 「1つの牧場には1種類の家畜だけを入れられます。1マスについて2頭まで入ります。」
    (One type per pasture, 2 per space.) A 2-space pasture (room for 4 of one type) and the
    pet hold 3 sheep and a boar; a second boar does not fit beside them: the player keeps 3
    sheep and 1 boar, or the 2 boar in the pasture and 1 sheep in the house."""
    s = position(2, rnd=9, order=order_with("pig_market"), piles={"pig_market": 1},
                 seats={0: {"goods": {"sheep": 3, "boar": 1}, "farm": farm(pastures=[[0, 1]])}})
    place(s, "pig_market")
    assert [(a["sheep"], a["boar"]) for a in offered(s)] == [(1, 2), (3, 1)]


def test_seed_stables_double_a_pasture_each_and_hold_one_alone() -> None:
    """Seed: 「1つのマスには1個しか置けませんが,1つの牧場内に複数置くことはできます。
    厩のある牧場は動物の収容能力が厩1つについて2倍になります。」「柵で囲まれていないマスに
    厩を置くと、その1マスに動物を1匹だけ置けます。」 (Several stables may stand in one
    pasture, each doubling it; an unfenced stable holds 1.) A 2-space pasture with 2 stables
    holds 2 x 2 x 2 x 2 = 16; with the pet and an unfenced stable, 18."""
    f = farm(stables=[0, 1, 3], pastures=[[0, 1]])
    assert f.fits(16, 1, 1) and not f.fits(17, 1, 1) and f.fits(18, 0, 0)
    assert not f.fits(19, 0, 0)
    s = position(2, order=order_with("sheep_market"), piles={"sheep_market": 20},
                 seats={0: {"farm": f}})
    place(s, "sheep_market")
    assert goods(s, 0)["sheep"] == 18


def test_seed_crops_on_fields_are_not_food() -> None:
    """Seed: 「手元に持っている小麦か野菜をいつでも食料1に変えられます。畑にまいてある状態では
    食料になりません。」 (Grain and vegetables in the supply are 1 food each; on the fields they
    are not food.) 2 grain in the supply and a field of 3: the harvest brings 1 more, so 3
    grain pay 3 of the 4 food and 1 begging marker is taken; the field keeps 2."""
    s = position(2, rnd=4, seats={0: {"goods": {"grain": 2},
                                      "farm": farm(fields=[12], sown={12: "grain"}),
                                      "home": 1},
                                  1: {"home": 1, "goods": {"food": 9}}})
    finish_round(s, ["forest", "clay_pit"])
    assert s.phase == "feed"
    best = offered(s)[0]
    assert (best["grain"], best["begging"]) == (3, 1)
    s.apply(best)
    assert fields(s) == [[12, "grain", 2]] and goods(s, 0)["grain"] == 0
    assert s._begging[0] == 1


def test_seed_animals_are_no_food_without_a_cooking_improvement() -> None:
    """Seed: 「家畜はそのままでは食料になりません。「かまど」や「調理場」などのカードの効果で
    家畜を食料にしたりできます。」 (Animals are not food by themselves; a Fireplace or Cooking
    Hearth makes them food.) Three sheep feed nobody without one (4 begging markers); with a
    Fireplace two sheep pay the 4 food (2 each)."""
    herd = {"goods": {"sheep": 3}, "farm": farm(pastures=[[0, 1]]), "home": 1}
    s = position(2, rnd=4, seats={0: herd, 1: {"home": 1, "goods": {"food": 9}}})
    finish_round(s, ["forest", "clay_pit"])
    assert s._begging[0] == 4 and goods(s, 0)["sheep"] == 4  # and they still breed
    s = position(2, rnd=4, seats={0: {**herd, "majors": [FIREPLACE_2]},
                                  1: {"home": 1, "goods": {"food": 9}}},
                 majors_on_board=all_but(FIREPLACE_2))
    finish_round(s, ["forest", "clay_pit"])
    assert offered(s)[0]["sheep"] == 2 and offered(s)[0]["begging"] == 0
    s.apply(offered(s)[0])
    assert s._begging[0] == 0 and goods(s, 0)["sheep"] == 1  # one left: no newborn


def test_seed_vegetables_cook_for_two_on_a_fireplace_three_on_a_hearth() -> None:
    """Seed (かまど): 「野菜1を食料2に変えたり」; (調理場): 「野菜1を食料3に変えたり」. Two
    vegetables pay the 4 food on a Fireplace; on a Cooking Hearth two vegetables give 6 and 2
    food are left over."""
    for major, left in ((FIREPLACE_2, 0), (HEARTH_4, 2)):
        s = position(2, rnd=4, seats={0: {"goods": {"vegetable": 2}, "majors": [major],
                                          "home": 1},
                                      1: {"home": 1, "goods": {"food": 9}}},
                     majors_on_board=all_but(major))
        finish_round(s, ["forest", "clay_pit"])
        assert s.phase == "feed"  # converting less and begging is always an option (F4)
        s.apply(offered(s)[0])
        assert goods(s, 0)["vegetable"] == 0 and goods(s, 0)["food"] == left
        assert s._begging[0] == 0


def test_seed_one_newborn_per_type_not_one_per_pair() -> None:
    """Seed: 「同じ種類の家畜を2頭以上持っていると子どもが生まれます。その種類の家畜を1頭
    受け取ります(2頭ごとに1頭ではありません)。」 (Two or more of a type give one newborn, not
    one per pair.) 4 sheep in a 3-space pasture (room for 6) become 5, not 6."""
    s = position(2, rnd=4, seats={0: {"goods": {"sheep": 4, "food": 9},
                                      "farm": farm(pastures=[[1, 2, 3]]), "home": 1},
                                  1: {"home": 1, "goods": {"food": 9}}})
    finish_round(s, ["forest", "clay_pit"])
    assert goods(s, 0)["sheep"] == 5


def test_seed_no_cooking_of_newborns_or_parents_during_breeding() -> None:
    """Seed: 「生まれたばかりの家畜やその両親を繁殖のあとすぐ食料にすることはできません。」 and
    ref A8 ("no cooking of parents or newborn during this phase (cooking just before it is
    allowed)"). Two sheep fill a one-space pasture and a boar is the pet; with a Fireplace the
    player either keeps the boar and the sheep's newborn is let go (no food: it is never
    cooked), or cooks the boar just before breeding (2 food) to give the newborn the house."""
    s = position(2, rnd=4, seats={0: {"goods": {"sheep": 2, "boar": 1, "food": 9},
                                      "farm": farm(pastures=[[0]]), "majors": [FIREPLACE_2],
                                      "home": 1},
                                  1: {"home": 1, "goods": {"food": 9}}},
                 majors_on_board=all_but(FIREPLACE_2))
    finish_round(s, ["forest", "clay_pit"])
    assert s.phase == "breed"
    assert [(a["sheep"], a["boar"]) for a in offered(s)] == [(2, 1), (3, 0)]
    food = goods(s, 0)["food"]
    after = s.clone()
    act(s, "keep", sheep=2, boar=1, cattle=0)
    assert goods(s, 0)["food"] == food and goods(s, 0)["sheep"] == 2
    act(after, "keep", sheep=3, boar=0, cattle=0)
    assert goods(after, 0)["food"] == food + 2 and goods(after, 0)["sheep"] == 3


def test_seed_pastures_score_by_enclosed_area_not_by_space() -> None:
    """Seed: 「※牧場は柵に囲われたエリア数で、マスの数ではないことに注意。」 (Pastures count the
    fenced areas, not the spaces.) One 6-space pasture scores 1 on the pastures row; the same
    spaces as three pastures score 3."""
    one = finished([{"farm": farm(pastures=[[1, 2, 3, 6, 7, 8]])}])
    three = finished([{"farm": farm(pastures=[[1, 2, 3, 6, 7, 8], [1], [2]])}])
    assert one.result().breakdown[0]["pastures"] == 1
    assert three.result().breakdown[0]["pastures"] == 3
    assert one.result().breakdown[0]["unused_spaces"] == -7  # 15 - 2 rooms - 6 fenced


def test_seed_stone_rooms_score_two_each() -> None:
    """Seed: 「レンガの家:1部屋につき、1点。石の家:2部屋につき、2点。」 The seed's stone line
    reads "2 points per two rooms"; ruling D2 follows the reference (+2 per stone room) and
    reads the seed's line as a slip. Three stone rooms: 6 points; three clay rooms: 3; wooden
    rooms nothing (「木の部屋はポイントになりません」)."""
    for house, points in (("stone", 6), ("clay", 3), ("wood", 0)):
        r = finished([{"farm": farm(rooms=[0], house=house)}]).result()
        key = {"stone": "stone_rooms", "clay": "clay_rooms", "wood": "clay_rooms"}[house]
        assert r.breakdown[0][key] == points
        assert r.breakdown[0]["stone_rooms"] + r.breakdown[0]["clay_rooms"] == points


def test_seed_fenced_stables_score_and_unfenced_ones_only_use_their_space() -> None:
    """Seed: 「柵で囲まれた厩:1つにつき、1点。」「農場内の未使用スペース:1スペースにつき、
    -1点。」 A stable in a pasture scores 1; one outside scores nothing but is not unused."""
    r = finished([{"farm": farm(stables=[0, 4], pastures=[[0]])}]).result()
    assert r.breakdown[0]["fenced_stables"] == 1
    assert r.breakdown[0]["unused_spaces"] == -(15 - 2 - 2)


def test_seed_tie_break_counts_building_resources_not_food() -> None:
    """Seed: 「タイブレークの場合、手元の建築資材(木材・レンガ・葦・石材)が多い該当プレイヤーが
    勝者です。」 Equal scores: 2 reed beat 1 stone and 9 food."""
    r = finished([{"goods": {"stone": 1, "food": 9}}, {"goods": {"reed": 2}}]).result()
    assert r.scores[0] == r.scores[1] and r.ranks == (2, 1)


# ========================================================================= the reference page

def test_ref_solo_zero_food_three_per_adult_forest_two_wood() -> None:
    """Ref A8: "Solo: start with 0 food, adults eat 3 food (newborns 1), Forest gives 2
    wood." A solo player who grew in round 7 needs 3 + 3 + 1 = 7 food at its harvest."""
    s = new(1, seed=1)
    assert s.to_dict()["players"][0]["goods"]["food"] == 0
    assert [n for sp, _, n in s.observation(0)["board"]["accumulated"] if sp == 6] == [2]
    assert "side_job" not in [k for k in places(s)]  # ruling D7
    s = position(1, rnd=7, order=order_with("basic_wish_for_children"),
                 seats={0: {"goods": {"food": 10}, "farm": farm(rooms=[0])}})
    place(s, "basic_wish_for_children")
    place(s, "forest")
    assert s.round == 8 and goods(s, 0)["food"] == 3


def test_ref_each_baking_improvement_fires_once_per_bake_bread() -> None:
    """Ref A7: "each baking improvement fires once per action"; A8: Clay Oven "exactly 1 grain
    → 5 food", Stone Oven "up to 2 grain → 4 food each". With both ovens and 5 grain a Bake
    Bread bakes at most 3 grain, for 5 + 4 + 4 = 13 food."""
    s = position(2, order=order_with("grain_utilization"),
                 seats={0: {"goods": {"grain": 5}, "majors": [CLAY_OVEN, STONE_OVEN]}},
                 majors_on_board=all_but(CLAY_OVEN, STONE_OVEN))
    place(s, "grain_utilization")
    assert [(a["grain"], a["uses"]) for a in offered(s)] == [
        (1, [[CLAY_OVEN, 1]]), (2, [[CLAY_OVEN, 1], [STONE_OVEN, 1]]),
        (3, [[CLAY_OVEN, 1], [STONE_OVEN, 2]])]
    act(s, "bake", grain=3, uses=[[CLAY_OVEN, 1], [STONE_OVEN, 2]])
    assert goods(s, 0)["food"] == 13 and goods(s, 0)["grain"] == 2


def test_ref_four_stables_at_most() -> None:
    """Ref A7: "Stables: max 4". With three built and 10 wood, Farm Expansion builds one more
    and the action ends; no fifth is ever offered."""
    s = position(2, seats={0: {"goods": {"wood": 10}, "farm": farm(stables=[1, 2, 3])}})
    place(s, "farm_expansion")
    act(s, "build_stable", cell=4)
    assert goods(s, 0)["wood"] == 8 and s.to_dict()["current_player"] == 1


def test_ref_a_described_farm_scored_by_the_table() -> None:
    """Ref A8's scoring table, on this farm at the end: a stone house of 4 rooms (spaces 0, 5,
    6, 10) and 5 people; 4 fields (11-14), one with 2 grain, one with 1 vegetable, and 2 grain
    and 1 vegetable in the supply; pastures [1, 2] with a stable, [3, 4] and [8, 9] (15
    fences); an unfenced stable on 7; 5 sheep, 3 boar, 2 cattle; Cooking Hearth, Well and
    Basketmaker's Workshop; 4 reed and 1 wood left.

    Fields 4 -> 3; pastures 3 -> 3; grain 2 + 2 = 4 -> 2; vegetables 1 + 1 = 2 -> 2; sheep 5
    -> 2; boar 3 -> 2; cattle 2 -> 2 (rows 16). Every space used: 0. One fenced stable: 1. Four
    stone rooms: 8. Five people: 15. Majors 1 + 4 + 2 = 7; 4 reed: basket bonus 2. Total 49;
    building resources left 5."""
    f = farm(rooms=[0, 6], fields=[11, 12, 13, 14], stables=[2, 7],
             pastures=[[1, 2], [3, 4], [8, 9]], house="stone",
             sown={12: "grain", 13: "vegetable"})
    f.harvest()  # the grain field down to 2, the vegetable field to 1
    assert f.fences_built() == 15
    s = finished([{"farm": f, "people": 5,
                 "goods": {"grain": 2, "vegetable": 1, "sheep": 5, "boar": 3, "cattle": 2,
                           "reed": 4, "wood": 1},
                 "majors": [HEARTH_4, WELL, BASKETMAKER]}, {}])
    r = s.result()
    assert r.breakdown[0] == {
        "fields": 3, "pastures": 3, "grain": 2, "vegetables": 2, "sheep": 2, "boar": 2,
        "cattle": 2, "unused_spaces": 0, "fenced_stables": 1, "clay_rooms": 0,
        "stone_rooms": 8, "people": 15, "begging": 0, "majors": 7, "crafts": 2}
    assert r.scores[0] == 49 and r.tiebreak[0] == 5 and r.ranks == (1, 2)

