"""Shared pytest configuration: the --run-slow flag for long property runs, and the engine's
test game (Dice Race), which is not installed as a plugin and is registered only for the tests
that ask for it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.engine import register, unregister
from arena.engine.testing import DICE_RACE, DiceRaceGame


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow", action="store_true", default=False,
        help="also run the long property and soak tests marked slow",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="long run: give --run-slow to include it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def dicerace() -> Iterator[DiceRaceGame]:
    """Dice Race, registered under its name for the duration of one test."""
    register(DICE_RACE)
    try:
        yield DICE_RACE
    finally:
        unregister(DICE_RACE)
