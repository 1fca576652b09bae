"""The games' drawings (``Game.draw``): what each picture shows, counted from its data
attributes, is what the position holds, and a seat's picture shows nothing it did not see."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import pytest
from viewing import AGRICOLA_2P, STONE_AGE_4P, played

from arena.engine import get_game
from arena.engine.api import State
from arena.runner.game.record import GameRecord
from arena.runner.game.replay import states


def counted(svg: str, attribute: str) -> Counter[str]:
    """How many elements carry ``attribute``, by its value."""
    root = ET.fromstring(svg)
    return Counter(e.get(attribute) for e in root.iter() if e.get(attribute) is not None)


def some_states(record: GameRecord, every: int) -> list[State]:
    return [state.clone() for k, state in states(record) if k % every == 0]


def _stone_age_checks(state: State) -> None:
    game = state.game
    n = state.num_players
    referee = game.draw(state.to_dict(), None)
    assert referee is not None
    full = state.to_dict()
    for viewer in (None, *range(n)):
        svg = referee if viewer is None else game.draw(state.observation(viewer), viewer)
        assert svg is not None
        obs = state.observation(0 if viewer is None else viewer)
        board = obs["board"]
        placed = Counter[str]()
        for counts in [*board["people"].values(), *(c["people"] for c in board["cards"]),
                       *(b["people"] for b in board["buildings"])]:
            for seat, c in enumerate(counts):
                placed[str(seat)] += c
        assert counted(svg, "data-person") == +placed
        players = obs["players"]
        assert counted(svg, "data-member") == +Counter({str(p["seat"]): p["people"]
                                                        for p in players})
        assert counted(svg, "data-hut") == +Counter({str(p["seat"]): p["buildings"]
                                                     for p in players})
        assert sum(counted(svg, "data-field").values()) == sum(p["agriculture"]
                                                               for p in players)
        hidden = sum(len(h) for h in full["hidden"])
        shown = sum(counted(svg, "data-hidden").values())
        facedown = sum(counted(svg, "data-facedown").values())
        if viewer is None:
            assert shown == hidden and facedown == 0
        else:  # a seat sees its own extra cards and only the backs of the others'
            assert shown == len(full["hidden"][viewer])
            assert facedown == hidden - shown
            for other in range(n):
                if other != viewer:
                    for card in full["hidden"][other]:
                        assert f'data-card="{card}" data-hidden' not in svg


def test_stone_age_draws_the_people_huts_fields_and_cards_of_the_position() -> None:
    for state in some_states(GameRecord.load(STONE_AGE_4P), every=37):
        _stone_age_checks(state)


def test_stone_age_hides_another_seats_extra_cards() -> None:
    # Seeded games until one has a seat holding cards the others cannot see.
    for seed in range(40):
        record = played("stoneage", 3, seed=seed)
        hidden = [s for s in some_states(record, every=5)
                  if any(s.to_dict()["hidden"])]
        if hidden:
            for state in hidden[-3:]:
                _stone_age_checks(state)
            return
    pytest.fail("no seeded game had a hidden card")  # pragma: no cover


def _agricola_checks(state: State) -> None:
    game = state.game
    for viewer in (None, *range(state.num_players)):
        position = state.to_dict() if viewer is None else state.observation(viewer)
        svg = game.draw(position, viewer)
        assert svg is not None
        people = Counter(str(seat) for _, seat in position["board"]["occupants"])
        assert counted(svg, "data-person") == people
        assert counted(svg, "data-major") == Counter(
            {str(m): 1 for m in position["board"]["majors"]}
            | {str(m): 1 for p in position["players"] for m in p["majors"]})
        for p in position["players"]:
            farm = p["farm"]
            root = ET.fromstring(svg)
            mine = next(e for e in root.iter() if e.get("data-seat") == str(p["seat"]))

            def count(attribute: str, board: ET.Element = mine) -> Counter[str]:
                return Counter(e.get(attribute) for e in board.iter()
                               if e.get(attribute) is not None)

            assert count("data-room") == Counter({farm["house"]: len(farm["rooms"])})
            assert sum(count("data-fence").values()) == len(farm["fences"])
            assert sum(count("data-stable").values()) == len(farm["stables"])
            assert sum(count("data-field").values()) == len(farm["fields"])
            assert sum(count("data-grain").values()) == sum(
                n for _, crop, n in farm["fields"] if crop == "grain")
            assert sum(count("data-vegetable").values()) == sum(
                n for _, crop, n in farm["fields"] if crop == "vegetable")
            assert len({e.get("data-pasture") for e in mine.iter()
                        if e.get("data-pasture") is not None}) == len(p["pastures"])
            animals = +Counter({k: p["goods"][k] for k in ("sheep", "boar", "cattle")})
            assert count("data-animal") == animals


def test_agricola_draws_the_spaces_and_every_farmyard_of_the_position() -> None:
    for state in some_states(GameRecord.load(AGRICOLA_2P), every=9):
        _agricola_checks(state)
    for seed in (4, 5):
        for state in some_states(played("agricola", 3, seed=seed), every=17):
            _agricola_checks(state)


def test_agricola_card_mode_shows_played_cards_and_hand_sizes_and_a_seat_its_own_hand(
) -> None:
    import random
    import re

    from arena.engine.agricola.cards.state import new_card_state
    from arena.engine.chance import SeededChance

    game = get_game("agricola")
    state = new_card_state(game, 3, SeededChance(3), "deal")
    rng = random.Random(1)
    for _ in range(60):
        state.apply_index(rng.randrange(state.num_legal()))
    full = state.to_dict()["cards"]["players"]
    hands = [f"{len(p['hand_occupations'])},{len(p['hand_minors'])}" for p in full]
    referee = game.draw(state.to_dict(), None)
    assert referee is not None
    assert re.findall(r'data-hand="([^"]*)"', referee) == hands
    for p in full:
        for card in (*p["occupations"], *p["minors"]):
            assert f'="{card}"' in referee
    seen = game.draw(state.observation(1), 1)
    assert seen is not None and re.findall(r'data-hand="([^"]*)"', seen) == hands
    for seat, p in enumerate(full):
        for card in (*p["hand_occupations"], *p["hand_minors"]):
            assert (card in referee) and ((card in seen) == (seat == 1) or any(
                card in (*q["occupations"], *q["minors"]) for q in full))
