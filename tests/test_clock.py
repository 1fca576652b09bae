"""arena.runner.game.clock: the time control rules of docs/protocol.md, to the millisecond."""

from __future__ import annotations

from typing import Any

import pytest

from arena.runner.game.clock import Clock, TimeControl


def clock(**fields: int) -> Clock:
    return Clock(TimeControl(**fields))


def test_the_defaults_are_the_ones_the_protocol_documents() -> None:
    assert TimeControl().to_dict() == {
        "handshake_ms": 10000, "decision_ms": 5000, "bank_ms": 120000, "increment_ms": 200,
        "margin_ms": 50,
    }


def test_a_new_clock_starts_with_the_whole_bank() -> None:
    assert clock(bank_ms=7000).bank_ms == 7000.0


def test_the_allowance_is_the_decision_limit_when_the_bank_is_larger() -> None:
    assert clock(decision_ms=5000, bank_ms=120000).allowance_ms() == 5000


def test_the_allowance_is_the_bank_when_the_bank_is_smaller() -> None:
    assert clock(decision_ms=5000, bank_ms=3000).allowance_ms() == 3000


def test_the_allowance_is_the_decision_limit_when_both_are_equal() -> None:
    assert clock(decision_ms=4000, bank_ms=4000).allowance_ms() == 4000


def test_the_allowance_is_a_whole_number_of_ms_rounded_down_from_a_fractional_bank() -> None:
    c = clock(decision_ms=5000, bank_ms=3000, increment_ms=0)
    assert c.charge(499.7)
    assert c.bank_ms == pytest.approx(2500.3)
    assert c.allowance_ms() == 2500
    assert isinstance(c.allowance_ms(), int)


def test_the_deadline_is_the_allowance_plus_the_margin() -> None:
    assert clock(decision_ms=400, bank_ms=20000, margin_ms=50).deadline_ms() == 450
    assert clock(decision_ms=5000, bank_ms=1200, margin_ms=75).deadline_ms() == 1275


def test_with_an_empty_bank_the_deadline_is_the_margin_alone() -> None:
    c = clock(decision_ms=5000, bank_ms=0, margin_ms=50)
    assert c.allowance_ms() == 0
    assert c.deadline_ms() == 50


def test_an_answer_in_time_takes_its_time_from_the_bank_and_adds_the_increment() -> None:
    c = clock(decision_ms=5000, bank_ms=10000, increment_ms=200)
    assert c.charge(1234.5) is True
    assert c.bank_ms == pytest.approx(10000 - 1234.5 + 200)
    assert c.charge(0.0) is True
    assert c.bank_ms == pytest.approx(10000 - 1234.5 + 400)


def test_the_bank_does_not_go_below_zero_before_the_increment_is_added() -> None:
    # Bank 1000 < decision limit: allowance 1000, deadline 1050; 1040 ms is in time.
    c = clock(decision_ms=5000, bank_ms=1000, increment_ms=200, margin_ms=50)
    assert c.charge(1040) is True
    assert c.bank_ms == 200.0


def test_an_answer_exactly_at_the_deadline_is_in_time() -> None:
    c = clock(decision_ms=400, bank_ms=20000, increment_ms=100, margin_ms=50)
    assert c.charge(450.0) is True
    assert c.bank_ms == pytest.approx(20000 - 450 + 100)


def test_an_answer_after_the_deadline_is_late_and_leaves_the_bank_alone() -> None:
    c = clock(decision_ms=400, bank_ms=20000, increment_ms=100, margin_ms=50)
    assert c.charge(450.001) is False
    assert c.bank_ms == 20000.0
    assert c.charge(10_000) is False
    assert c.bank_ms == 20000.0


def test_an_answer_within_the_margin_but_after_the_allowance_is_in_time() -> None:
    c = clock(decision_ms=400, bank_ms=20000, increment_ms=0, margin_ms=50)
    assert c.charge(420) is True
    assert c.bank_ms == 19580.0


def test_the_bank_shrinks_the_allowance_over_a_game() -> None:
    c = clock(decision_ms=1000, bank_ms=2500, increment_ms=100, margin_ms=50)
    assert c.charge(1000)  # 2500 - 1000 + 100 = 1600
    assert c.allowance_ms() == 1000
    assert c.charge(1000)  # 1600 - 1000 + 100 = 700
    assert c.bank_ms == 700.0
    assert c.allowance_ms() == 700
    assert c.deadline_ms() == 750
    assert not c.charge(751)


@pytest.mark.parametrize("name", ["handshake_ms", "decision_ms", "bank_ms", "increment_ms",
                                  "margin_ms"])
@pytest.mark.parametrize("value", [-1, 1.5, "100", True, None])
def test_every_field_must_be_a_whole_number_of_at_least_zero(name: str, value: Any) -> None:
    with pytest.raises(ValueError) as info:
        TimeControl(**{name: value})
    assert str(info.value) == f"time control {name} must be a whole number >= 0, not {value!r}"


@pytest.mark.parametrize("name", ["decision_ms", "handshake_ms"])
def test_the_decision_and_handshake_limits_must_be_positive(name: str) -> None:
    with pytest.raises(ValueError) as info:
        TimeControl(**{name: 0})
    assert str(info.value) == "time control decision_ms and handshake_ms must be positive"


def test_zero_bank_increment_and_margin_are_allowed() -> None:
    tc = TimeControl(bank_ms=0, increment_ms=0, margin_ms=0)
    assert (tc.bank_ms, tc.increment_ms, tc.margin_ms) == (0, 0, 0)


def test_from_dict_fills_the_defaults_and_round_trips_with_to_dict() -> None:
    tc = TimeControl.from_dict({"decision_ms": 400, "margin_ms": 10})
    assert tc == TimeControl(decision_ms=400, margin_ms=10)
    assert tc.bank_ms == 120000
    assert TimeControl.from_dict(tc.to_dict()) == tc


def test_from_dict_refuses_unknown_keys_naming_them_sorted() -> None:
    with pytest.raises(ValueError) as info:
        TimeControl.from_dict({"decision_ms": 400, "zeta": 1, "bank": 5})
    assert str(info.value) == "unknown time control field(s): bank, zeta"


def test_from_dict_still_validates_the_values() -> None:
    with pytest.raises(ValueError, match="time control bank_ms must be a whole number"):
        TimeControl.from_dict({"bank_ms": -5})


def test_a_time_control_is_immutable() -> None:
    tc = TimeControl()
    with pytest.raises(AttributeError):
        tc.bank_ms = 5  # type: ignore[misc]
