"""The base deck as data (decks A and B of the Revised Edition): what the rulebook and the
catalogues say of it as a whole, and that every card is written in the table's terms."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from arena.engine.agricola.cards.card import Clause, Count, Moment, Prerequisite, goods
from arena.engine.agricola.cards.deck import (
    BASE_DECK,
    BY_ID,
    HAND_SIZE,
    MINORS,
    OCCUPATIONS,
    PLAYER_MARKERS,
    Kind,
    card,
    minors_for,
    occupations_for,
)
from arena.engine.agricola.components import GOODS


@pytest.mark.parametrize("deck", ["A", "B"])
def test_each_deck_has_24_occupations_and_24_minor_improvements(deck: str) -> None:
    kinds = Counter(c.kind for c in BASE_DECK if c.deck == deck)
    assert kinds == {Kind.OCCUPATION: 24, Kind.MINOR: 24}


def test_the_deck_is_96_cards_occupations_first() -> None:
    assert len(BASE_DECK) == 96
    assert all(c.kind is Kind.OCCUPATION for c in OCCUPATIONS)
    assert all(c.kind is Kind.MINOR for c in MINORS)
    assert BASE_DECK == OCCUPATIONS + MINORS


def test_ids_are_the_deck_letter_and_the_printed_number_and_unique() -> None:
    ids = [c.id for c in BASE_DECK]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[AB]\d{3}", i) for i in ids)
    assert set(BY_ID) == set(ids)
    assert card("A086").name == "Animal Tamer" and card("A086").number == 86
    with pytest.raises(KeyError):
        card("C001")


def test_names_are_unique() -> None:
    names = [c.name for c in BASE_DECK]
    assert len(set(names)) == len(names)


def test_printed_numbers_keep_minors_below_occupations() -> None:
    """The Revised Edition numbers each deck's minors 1-84 and its occupations 85-168."""
    assert all(1 <= c.number <= 84 for c in MINORS)
    assert all(85 <= c.number <= 168 for c in OCCUPATIONS)


def test_every_cost_is_known_goods_in_positive_amounts() -> None:
    for c in BASE_DECK:
        for cost in (c.cost, c.cost_per_person):
            assert set(cost) <= set(GOODS), c.id
            assert all(isinstance(n, int) and n > 0 for n in cost.values()), c.id


def test_occupations_cost_nothing_of_their_own() -> None:
    """An occupation's price is the Lessons space's, not the card's."""
    assert all(not c.cost and not c.cost_per_person for c in OCCUPATIONS)


def test_goods_refuses_unknown_names_and_amounts_below_one() -> None:
    assert dict(goods(stone=2, wood=1)) == {"wood": 1, "stone": 2}  # in GOODS order
    with pytest.raises(ValueError):
        goods(gold=1)
    with pytest.raises(ValueError):
        goods(wood=0)


def test_player_markers_are_1_3_or_4_and_only_occupations_carry_one() -> None:
    assert PLAYER_MARKERS == (1, 3, 4)
    assert {c.min_players for c in OCCUPATIONS} == set(PLAYER_MARKERS)
    assert all(c.min_players == 1 for c in MINORS)


def test_only_minor_improvements_travel() -> None:
    assert not any(c.traveling for c in OCCUPATIONS)
    assert sorted(c.id for c in MINORS if c.traveling) == [
        "A002", "A005", "A009", "B002", "B008"]


def test_every_clause_hooks_into_a_moment_of_the_fixed_set_in_words() -> None:
    for c in BASE_DECK:
        assert c.clauses, c.id
        for clause in c.clauses:
            assert isinstance(clause, Clause) and clause.moment in set(Moment), c.id
            assert clause.text.strip() and clause.text.endswith("."), c.id
        assert c.effect.strip()


def test_a_card_is_optional_when_one_of_its_clauses_is() -> None:
    assert card("B087").optional  # Cottager: building on Day Laborer is the owner's choice
    assert not card("A116").optional  # Wood Cutter: the extra wood just comes
    assert card("A102").moments == (Moment.ON_PLAY, Moment.ANYTIME)


# Catalogue figures, by card: points printed, prerequisites as the catalogues state them.
POINTS = {"A024": 1, "A026": 1, "A044": 1, "A063": 2, "A075": 2, "A078": 1, "B033": -3,
          "B036": 4, "B039": 1, "B045": 2, "B050": 1, "B068": 1, "B077": 1}
PREREQUISITES = {
    "A024": "at least 2 occupations", "A026": "at least 2 grain fields",
    "A033": "no unused farmyard space", "A038": "at least 5 sheep",
    "A044": "exactly 2 occupations", "A069": "at least 2 occupations",
    "A075": "at most 3 occupations", "A078": "at least 1 occupation",
    "B019": "at least 1 occupation", "B033": "a clay or stone house",
    "B039": "at least 2 occupations", "B045": "at least 2 vegetable fields",
    "B050": "at most 3 occupations", "B056": "at least 1 person on Fishing",
    "B061": "at least 3 occupations", "B066": "at least 2 occupations",
    "B068": "at least 2 occupations", "B074": "at least 5 clay in the supply",
    "B077": "at least 3 occupations", "B084": "at least 3 occupations",
}


def test_points_and_prerequisites_are_the_catalogues() -> None:
    assert {c.id: c.points for c in BASE_DECK if c.points} == POINTS
    assert {c.id: c.prerequisite.words() for c in BASE_DECK if c.prerequisite} \
        == PREREQUISITES


def test_a_prerequisite_is_a_count_within_bounds() -> None:
    two = Prerequisite(Count.OCCUPATIONS, 2, 2)
    assert [two.met(n) for n in (1, 2, 3)] == [False, True, False]
    at_most_three = Prerequisite(Count.OCCUPATIONS, 0, 3)
    assert at_most_three.met(0) and at_most_three.met(3) and not at_most_three.met(4)
    full = card("A033").prerequisite
    assert full is not None and full.met(0) and not full.met(1)


def test_bottles_costs_per_person() -> None:
    bottles = card("B036")
    assert not bottles.cost and dict(bottles.cost_per_person) == {"clay": 1, "food": 1}


@pytest.mark.parametrize(("players", "removed"), [(1, 14), (2, 14), (3, 7), (4, 0)])
def test_occupations_above_the_player_count_are_removed_before_dealing(
        players: int, removed: int) -> None:
    """The rulebook removes each occupation marked for more players than the game has: the
    3+ and 4+ cards (7 and 7) at 1 or 2 players, the 4+ cards at 3."""
    kept = occupations_for(players)
    assert len(OCCUPATIONS) - len(kept) == removed
    assert all(c.min_players <= players for c in kept)
    assert minors_for(players) == MINORS  # minors carry no marker
    assert players * HAND_SIZE <= len(kept)  # always enough to deal 7 to everyone


def test_the_player_markers_split_by_deck_as_the_catalogues_print_them() -> None:
    by_deck = Counter((c.deck, c.min_players) for c in OCCUPATIONS)
    assert by_deck == {("A", 1): 17, ("A", 3): 4, ("A", 4): 3,
                       ("B", 1): 17, ("B", 3): 3, ("B", 4): 4}


@pytest.mark.parametrize("players", [0, 5])
def test_a_player_count_out_of_range_is_refused(players: int) -> None:
    with pytest.raises(ValueError):
        occupations_for(players)
