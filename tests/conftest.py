"""Shared pytest configuration: the --run-slow flag for long property runs."""

from __future__ import annotations

import pytest


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
