"""Game options: the engine contract (validate_options, new_state with options, a state that
keeps them through clone, save and determinize), on Dice Race, whose option ``hand`` is the
number of cards dealt to each seat, and on Stone Age, which has none."""

from __future__ import annotations

import random
import re

import pytest

from arena.engine import OptionSpec, get_game
from arena.engine.testing import DICE_RACE


def test_a_game_without_options_validates_to_nothing_and_refuses_any() -> None:
    stoneage = get_game("stoneage")
    assert stoneage.options_schema() == {}
    assert stoneage.validate_options(None) == {} == stoneage.validate_options({})
    with pytest.raises(ValueError, match="stoneage has no option 'cards': it has no options"):
        stoneage.validate_options({"cards": "base"})


def test_validate_options_fills_the_defaults_and_sorts_the_keys() -> None:
    assert DICE_RACE.validate_options(None) == {"hand": "2"}
    assert DICE_RACE.validate_options({"hand": "3"}) == {"hand": "3"}
    assert DICE_RACE.canonical_options({"hand": "2"}) == {}
    assert DICE_RACE.canonical_options({"hand": "1"}) == {"hand": "1"}


def test_whole_numbers_and_booleans_stand_for_their_text() -> None:
    assert DICE_RACE.validate_options({"hand": 3}) == {"hand": "3"}
    with pytest.raises(ValueError, match="'hand' must be one of 1, 2, 3, got True"):
        DICE_RACE.validate_options({"hand": True})


@pytest.mark.parametrize("raw, words", [
    ({"hands": "3"}, "dicerace has no option 'hands': its options are hand"),
    ({"hand": "4"}, "dicerace option 'hand' must be one of 1, 2, 3, got '4'"),
    ({"hand": 2.0}, "dicerace option 'hand' must be one of 1, 2, 3, got 2.0"),
    ({"hand": ""}, "must be one of 1, 2, 3, got ''"),
])
def test_a_bad_option_is_named_with_what_it_allows(raw: dict, words: str) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        DICE_RACE.validate_options(raw)
    with pytest.raises(ValueError, match=r"must be one of|has no option"):
        DICE_RACE.new_state(2, seed=1, options=raw)


def test_an_option_spec_holds_its_default_among_its_values() -> None:
    with pytest.raises(ValueError, match="default"):
        OptionSpec(("1", "2"), "3")
    with pytest.raises(ValueError, match="non-empty"):
        OptionSpec((), "")


@pytest.mark.parametrize("hand", [1, 2, 3])
def test_the_option_reaches_the_engine_and_the_state_keeps_it(hand: int) -> None:
    state = DICE_RACE.new_state(3, seed=7, options={"hand": str(hand)})
    assert state.options == {"hand": str(hand)}
    obs = state.observation(0)
    assert obs["options"] == {"hand": str(hand)}
    assert obs["deck_size"] == 18 - 3 * hand
    assert len(obs["hand"]) == hand and obs["hand_sizes"] == [hand] * 3
    state.options["hand"] = "9"  # a copy: the state's own cannot be changed
    assert state.options == {"hand": str(hand)}
    saved = state.to_dict()
    # Saved with what differs from the defaults, and without the key when nothing does.
    assert saved.get("options", "absent") == ("absent" if hand == 2 else {"hand": str(hand)})
    back = DICE_RACE.state_from_dict(saved)
    assert back.options == state.options and back.to_dict() == saved
    assert state.clone().options == state.options
    if not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        guess = DICE_RACE.determinize(state.observation(seat), random.Random(1))
        assert guess.options == state.options
        assert guess.observation(seat) == state.observation(seat)


def test_the_default_game_is_the_game_without_options() -> None:
    plain, given = DICE_RACE.new_state(2, seed=4), DICE_RACE.new_state(2, seed=4,
                                                                     options={"hand": "2"})
    assert plain.to_dict() == given.to_dict()
    assert "options" not in plain.to_dict()
    stoneage = get_game("stoneage").new_state(2, seed=4)
    assert stoneage.options == {} and "options" not in stoneage.to_dict()


def test_a_saved_state_with_a_bad_option_is_refused() -> None:
    saved = DICE_RACE.new_state(2, seed=4).to_dict()
    with pytest.raises(ValueError, match="malformed dicerace state"):
        DICE_RACE.state_from_dict({**saved, "options": {"hand": "7"}})
