"""The Agricola farmyard: rooms, fields, stables, fences and pastures, animal capacity.

Rules text (seed 002, the online implementation's help page): "農場ボードの端や畑は柵のかわりに
なりません" (the board edge and fields do not stand in for fences); "2つ以上のマスの牧場がある
とき,それを柵で分割することはできます" (a pasture of two or more spaces may be subdivided);
"1つの牧場には1種類の家畜だけを入れられます。1マスについて2頭まで入ります" (one type per
pasture, 2 per space); "厩のある牧場は動物の収容能力が厩1つについて2倍になります" (each stable
doubles a pasture); "柵で囲まれていないマスに厩を置くと、その1マスに動物を1匹だけ置けます"
(an unfenced stable holds one animal); "家の中に動物を1匹だけ置くことができます" (one pet in
the house). Reference A7 (farm rules) for the rest; rulings in RULES.md.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from arena.engine.agricola import pastures as geo
from arena.engine.agricola.farm import (
    GRAIN,
    HOUSE_CLAY,
    HOUSE_WOOD,
    VEGETABLE,
    Farm,
)


def m(*cells: int) -> int:
    return sum(1 << c for c in cells)


def farm_with(*pastures: tuple[int, ...]) -> Farm:
    f = Farm()
    for cells in pastures:
        f.build_pasture(m(*cells), wood=99)
    return f


# --- start and the shape table -----------------------------------------------------------------

def test_the_starting_farm_has_two_wooden_rooms_in_the_left_column() -> None:
    f = Farm()
    assert f.rooms == m(5, 10) and f.material == HOUSE_WOOD
    assert f.num_rooms() == 2 and f.unused_spaces() == 13
    assert f.fences_left() == 15 and f.stables_left() == 4 and f.pastures == ()
    assert f.picture().splitlines()[3] == " Rw .. .. .. .. "


def test_the_shape_table_holds_every_connected_shape_of_at_most_15_fences() -> None:
    assert len(geo.SHAPES) == 762  # the reference's count for the Family game
    masks = {mask for mask, _, _ in geo.SHAPES}
    assert len(masks) == 762
    for mask, bnd, nbr in geo.SHAPES:
        assert geo.is_connected(mask) and not mask & geo.START_ROOMS
        assert bnd.bit_count() <= 15 and nbr == geo.neighbours(mask)
    # Brute force: every connected subset outside the rooms with perimeter <= 15 is listed.
    free = geo.ALL_CELLS & ~geo.START_ROOMS
    brute = {
        s for s in range(1, 1 << 15)
        if not s & ~free and geo.boundary(s).bit_count() <= 15 and geo.is_connected(s)
    }
    assert brute == masks


# --- enclosure and adjacency -------------------------------------------------------------------

def test_a_corner_pasture_needs_fences_on_the_board_edge_too() -> None:
    f = Farm()
    assert f.pasture_cost(m(0), wood=10) == 4
    assert f.build_pasture(m(0), wood=10) == 4
    assert f.pastures == (m(0),) and f.fences_left() == 11
    assert f.unused_spaces() == 12 and f.num_pastures() == 1
    top = f.picture().splitlines()[:3]
    assert top == ["+--+  +  +  +  +", "|..|.. .. .. .. ", "+--+  +  +  +  +"]


def test_a_second_pasture_must_touch_the_first_and_shares_its_fences() -> None:
    f = farm_with((0,))
    moves = dict(f.pasture_moves(wood=15))
    assert moves[m(1)] == 3  # the fence between 0 and 1 is already there
    assert m(3) not in moves and f.pasture_cost(m(3), 15) == -1
    with pytest.raises(ValueError):
        f.build_pasture(m(3))
    assert f.pastures == (m(0),)  # unchanged by the refused move
    f.build_pasture(m(1, 2))
    assert f.pastures == (m(0), m(1, 2)) and f.fences_built() == 4 + 5


def test_the_first_pasture_may_go_anywhere_free() -> None:
    f = Farm()
    moves = dict(f.pasture_moves(wood=15))
    assert len(moves) == 762
    assert moves[m(14)] == 4 and moves[m(12, 13, 14)] == 8
    assert all(not mask & f.rooms for mask in moves)


def test_subdivision_splits_a_pasture_and_may_leave_several_pieces() -> None:
    f = farm_with((0, 1, 2))
    assert f.fences_built() == 8
    moves = dict(f.pasture_moves(wood=15))
    assert moves[m(1)] == 2  # only the two new fences across the pasture
    assert m(0, 1, 2) not in moves  # already a pasture
    assert m(2, 3) not in moves  # half in, half out of a pasture
    f.build_pasture(m(1))
    assert f.pastures == (m(0), m(1), m(2)) and f.fences_built() == 10
    assert f.unused_spaces() == 10  # subdividing uses no new space


def test_fences_run_out_at_fifteen_and_wood_caps_the_moves() -> None:
    f = Farm()
    assert all(cost <= 3 for _, cost in f.pasture_moves(wood=3))
    assert f.pasture_moves(wood=3) == []  # even one space costs 4
    assert all(cost <= 5 for _, cost in f.pasture_moves(wood=5))
    f.build_pasture(m(0, 1, 2, 3))  # 10 fences
    f.build_pasture(m(4))  # 3 more
    assert f.fences_left() == 2
    # Only subdivisions are cheap enough now (a new pasture next to these costs at least 3).
    assert {mask for mask, _ in f.pasture_moves(wood=99)} == {
        m(0), m(1), m(2), m(3), m(0, 1), m(1, 2), m(2, 3), m(0, 1, 2), m(1, 2, 3)}
    f.build_pasture(m(1, 2))  # two fences across the first pasture
    assert f.fences_left() == 0 and f.fences_built() == 15
    assert f.pasture_moves(wood=99) == [] and f.num_pastures() == 4
    with pytest.raises(ValueError):
        f.build_pasture(m(1))


def test_rooms_and_fields_are_never_fenced_in() -> None:
    f = Farm()
    f.plough(0)
    moves = {mask for mask, _ in f.pasture_moves(wood=15)}
    assert not any(mask & m(0, 5, 10) for mask in moves)
    with pytest.raises(ValueError):
        f.build_pasture(m(0, 1))
    f.build_pasture(m(1))
    assert f.pasture_cost(m(0), 15) == -1  # the field next to the pasture stays a field


def test_a_field_closed_in_by_pastures_is_refused_and_an_empty_space_becomes_a_pasture() -> None:
    """Unreachable with 15 fences (a ring round an inner space costs at least 16); the rule is
    still checked, with a bigger fence supply."""
    ring = m(1, 2, 3, 6, 11, 12, 13)
    fences = geo.boundary(ring)
    pastures = geo.pastures_of(fences)
    assert pastures == (ring,)
    assert geo.pasture_cost(m(8), fences, pastures, m(5, 10, 7), budget=99) == -1
    cost = geo.pasture_cost(m(8), fences, pastures, m(5, 10), budget=99)
    assert cost == 2  # the edges to spaces 7 and 9 are new
    assert geo.pastures_of(fences | geo.boundary(m(8))) == (m(7), m(8), ring)


def test_every_listed_pasture_move_applies_and_costs_what_it_said() -> None:
    f = farm_with((6, 7), (8,))
    f.plough(14)
    for mask, cost in f.pasture_moves(wood=6):
        g = f.copy()
        assert g.build_pasture(mask, wood=6) == cost
        assert mask in g.pastures and g.fences_built() == f.fences_built() + cost
    assert f.pastures == (m(6, 7), m(8))


# --- stables and capacity ---------------------------------------------------------------------

def test_each_stable_in_a_pasture_doubles_it() -> None:
    f = farm_with((0, 1))
    p = m(0, 1)
    assert f.pasture_capacity(p) == 4  # 2 per space
    f.build_stable(0)
    assert f.pasture_capacity(p) == 8 and f.fenced_stables() == 1
    f.build_stable(1)
    assert f.pasture_capacity(p) == 16 and f.fenced_stables() == 2
    assert f.capacity_frontier() == ((0, 0, 16), (0, 16, 0), (16, 0, 0))
    assert f.fits(16, 1, 0) and not f.fits(17, 1, 0) and not f.fits(16, 1, 1)


def test_stables_four_at_most_one_per_space_never_on_rooms_or_fields() -> None:
    f = Farm()
    f.plough(4)
    spots = f.stable_spots()
    assert 4 not in spots and 5 not in spots and len(spots) == 12
    for c in (0, 1, 2):
        f.build_stable(c)
    assert 0 not in f.stable_spots()
    with pytest.raises(ValueError):
        f.build_stable(0)
    f.build_stable(3)
    assert f.stables_left() == 0 and f.stable_spots() == []
    with pytest.raises(ValueError):
        f.build_stable(6)
    assert f.unfenced_stables() == 4 and f.fenced_stables() == 0 and f.unused_spaces() == 8


def test_a_stable_already_built_is_fenced_in_later_and_counts_as_fenced() -> None:
    f = Farm()
    f.build_stable(2)
    assert f.flexible_slots() == 2 and f.fits(1, 1, 0) and not f.fits(1, 1, 1)
    f.build_pasture(m(2))
    assert f.fenced_stables() == 1 and f.unfenced_stables() == 0 and f.flexible_slots() == 1
    assert f.pasture_capacity(m(2)) == 4 and f.unused_spaces() == 12


def test_the_house_holds_one_pet_of_any_type() -> None:
    f = Farm()
    assert f.fits(0, 0, 0) and f.fits(1, 0, 0) and f.fits(0, 0, 1)
    assert not f.fits(2, 0, 0) and not f.fits(1, 1, 0)
    assert f.keep_options(2, 1, 0) == [(0, 1, 0), (1, 0, 0)]
    assert f.keep_options(0, 0, 3) == [(0, 0, 1)]


def test_one_type_per_pasture_and_what_to_keep_when_animals_do_not_fit() -> None:
    f = farm_with((0, 1), (2,))  # capacities 4 and 2
    assert f.fits(4, 2, 1)  # sheep in one, boar in the other, a cattle pet
    assert f.fits(6, 1, 0)  # both pastures sheep, a boar pet
    assert not f.fits(5, 2, 1) and not f.fits(4, 3, 1) and not f.fits(3, 3, 1)
    options = f.keep_options(5, 3, 2)
    assert (4, 2, 1) in options and (5, 2, 0) in options and (1, 3, 2) in options
    for opt in options:
        assert f.fits(*opt) and all(k <= n for k, n in zip(opt, (5, 3, 2), strict=True))
        better = [tuple(o + (i == j) for j, o in enumerate(opt)) for i in range(3)]
        assert not any(f.fits(*b) and b[i] <= (5, 3, 2)[i] for i, b in enumerate(better))
    assert f.keep_options(4, 2, 1) == [(4, 2, 1)]  # they fit: nothing to choose


def test_keep_options_matches_brute_force_on_random_farms() -> None:
    rng = random.Random(7)
    for _ in range(40):
        f = random_farm(rng)
        counts = tuple(rng.randrange(0, 12) for _ in range(3))
        fitting = {
            (s, b, c) for s in range(counts[0] + 1) for b in range(counts[1] + 1)
            for c in range(counts[2] + 1) if fits_brute(f, s, b, c)
        }
        maximal = {p for p in fitting if not any(
            q != p and all(x >= y for x, y in zip(q, p, strict=True)) for q in fitting)}
        assert set(f.keep_options(*counts)) == maximal
        assert f.fits(*counts) == (counts in fitting)


def fits_brute(f: Farm, s: int, b: int, c: int) -> bool:
    """Every assignment of a type to each pasture, the rest in flexible slots."""
    caps = [f.pasture_capacity(p) for p in f.pastures]
    for code in range(3 ** len(caps)):
        have = [0, 0, 0]
        for cap in caps:
            have[code % 3] += cap
            code //= 3
        need = sum(max(0, n - h) for n, h in zip((s, b, c), have, strict=True))
        if need <= f.flexible_slots():
            return True
    return False


# --- rooms, renovation, fields -------------------------------------------------------------------

def test_rooms_go_next_to_the_house_on_empty_spaces() -> None:
    f = Farm()
    assert f.room_spots() == [0, 6, 11]
    assert f.room_cost() == (5, 0, 2, 0)  # wood, clay, reed, stone
    f.build_room(6)
    assert f.room_spots() == [0, 1, 7, 11]
    f.plough(7)
    f.build_stable(1)
    assert f.room_spots() == [0, 11]  # not on a field or a stable
    f.build_pasture(m(0))
    assert f.room_spots() == [11]  # nor in a pasture
    with pytest.raises(ValueError):
        f.build_room(3)
    assert f.num_rooms() == 3


def test_renovation_goes_wood_clay_stone_for_the_whole_house() -> None:
    f = Farm()
    f.build_room(0)
    assert f.renovation_cost() == (0, 3, 1, 0)  # 1 clay a room and 1 reed
    f.renovate()
    assert f.material == HOUSE_CLAY and f.clay_rooms() == 3 and f.stone_rooms() == 0
    assert f.room_cost() == (0, 5, 2, 0)
    f.build_room(11)
    assert f.renovation_cost() == (0, 0, 1, 4)  # 1 stone a room and 1 reed
    f.renovate()
    assert f.stone_rooms() == 4 and f.clay_rooms() == 0 and not f.can_renovate()
    with pytest.raises(ValueError):
        f.renovate()
    assert "Rs" in f.picture()


def test_fields_first_anywhere_then_next_to_a_field() -> None:
    f = Farm()
    assert len(f.plough_spots()) == 13
    f.plough(13)
    assert f.plough_spots() == [8, 12, 14]
    f.build_stable(8)
    assert f.plough_spots() == [12, 14]
    with pytest.raises(ValueError):
        f.plough(0)
    f.plough(14)
    assert f.num_fields() == 2 and f.plough_spots() == [9, 12]


def test_sowing_and_the_field_phase() -> None:
    f = Farm()
    f.plough(0)
    f.plough(1)
    f.plough(2)
    f.sow(0, GRAIN)
    f.sow(1, VEGETABLE)
    assert f.crop(0) == (GRAIN, 3) and f.crop(1) == (VEGETABLE, 2) and f.crop(2) == (0, 0)
    assert f.empty_fields() == [2]
    with pytest.raises(ValueError):
        f.sow(0, GRAIN)  # already sown
    with pytest.raises(ValueError):
        f.sow(3, GRAIN)  # not a field
    assert f.grain_in_fields() == 3 and f.vegetables_in_fields() == 2
    assert f.harvest() == (1, 1)
    assert f.harvest() == (1, 1)
    assert f.empty_fields() == [1, 2] and f.harvest() == (1, 0)
    assert f.harvest() == (0, 0) and f.empty_fields() == [0, 1, 2]
    assert "G" not in f.picture() and "F." in f.picture()


# --- plain data, copies, equality ---------------------------------------------------------------

def test_to_dict_round_trips_through_json() -> None:
    f = farm_with((0, 1), (2,))
    f.build_stable(0)
    f.build_stable(14)
    f.plough(12)
    f.sow(12, VEGETABLE)
    f.build_room(6)
    f.renovate()
    d = json.loads(json.dumps(f.to_dict()))
    g = Farm.from_dict(d)
    assert g == f and g.to_dict() == f.to_dict() and g.pastures == f.pastures
    assert g.picture() == f.picture()
    assert d["fields"] == [[12, "vegetable", 2]] and d["house"] == "clay"


@pytest.mark.parametrize(("change", "why"), [
    (lambda d: d["fences"].append(37), "fence that encloses nothing"),
    (lambda d: d["fields"].append([0, "", 0]), "room or field fenced in"),
    (lambda d: d["rooms"].remove(10), "starting room"),
    (lambda d: d["rooms"].append(3), "rooms not joined"),
    (lambda d: d["fields"].append([14, "grain", 4]), "impossible crop"),
    (lambda d: d["stables"].extend([0, 11, 12, 13, 14]), "more than 4 stables"),
])
def test_from_dict_refuses_an_impossible_farm(
    change: Callable[[dict[str, Any]], None], why: str
) -> None:
    d = farm_with((0, 1)).to_dict()
    change(d)
    with pytest.raises(ValueError, match=why):
        Farm.from_dict(d)


def test_a_copy_is_independent() -> None:
    f = farm_with((0,))
    f.capacity_frontier()
    g = f.copy()
    assert g == f
    g.build_pasture(m(1))
    g.build_stable(0)
    g.plough(14)
    g.sow(14, GRAIN)
    g.build_room(6)
    g.renovate()
    assert f.pastures == (m(0),) and f.stables == 0 and f.fields == 0
    assert f.rooms == m(5, 10) and f.material == HOUSE_WOOD and f.crop(14) == (0, 0)
    assert f.capacity_frontier() == ((0, 0, 2), (0, 2, 0), (2, 0, 0))
    assert g.capacity_frontier() == ((0, 0, 6), (0, 2, 4), (0, 4, 2), (0, 6, 0), (2, 0, 4),
                                     (2, 4, 0), (4, 0, 2), (4, 2, 0), (6, 0, 0))
    assert g != f and hash(f.copy()) == hash(f)


# --- random farms: every move legal, the farm always consistent ---------------------------------

def random_farm(rng: random.Random, steps: int = 14) -> Farm:
    f = Farm()
    for _ in range(steps):
        kind = rng.randrange(5)
        if kind == 0 and (moves := f.pasture_moves(wood=rng.randrange(1, 10))):
            mask, cost = rng.choice(moves)
            assert f.build_pasture(mask) == cost
        elif kind == 1 and (spots := f.stable_spots()):
            f.build_stable(rng.choice(spots))
        elif kind == 2 and (spots := f.plough_spots()):
            f.plough(rng.choice(spots))
        elif kind == 3 and (spots := f.room_spots()):
            f.build_room(rng.choice(spots))
        elif kind == 4 and (empty := f.empty_fields()):
            f.sow(rng.choice(empty), rng.choice((GRAIN, VEGETABLE)))
    return f


def test_random_farms_stay_consistent() -> None:
    rng = random.Random(2016)
    for _ in range(150):
        f = random_farm(rng, steps=rng.randrange(5, 30))
        g = Farm.from_dict(f.to_dict())  # runs every consistency check
        assert g == f and f.fences_built() <= 15 and f.num_stables() <= 4
        used = f.rooms | f.fields | f.stables | f.pastured()
        assert f.unused_spaces() == 15 - used.bit_count()
        assert f.pastures == geo.pastures_of(f.fences)
        for mask, cost in f.pasture_moves(wood=15):
            assert 0 < cost <= f.fences_left() and not mask & (f.rooms | f.fields)
