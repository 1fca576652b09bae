"""The matrix library's idle threads sleep instead of spinning (:mod:`arena.blas`): set before
NumPy is first imported by every package that imports it, a user's own setting kept, and never
by what a bot imports, whose environment stays as it was started."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def _seen(module: str, env: dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-c",
         f"import {module}, os; print(os.environ.get('OPENBLAS_THREAD_TIMEOUT', '-'))"],
        env=env, capture_output=True, text=True, check=True).stdout.strip()


UNSET = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}


@pytest.mark.parametrize("module", [
    "arena.stats.summary", "arena.runner.play.columns", "arena.league.state", "arena.bench"])
def test_idle_blas_threads_sleep_where_numpy_is_used_unless_told_otherwise(module: str) -> None:
    assert _seen(module, UNSET) == "4"
    assert _seen(module, {**UNSET, "OPENBLAS_THREAD_TIMEOUT": "20"}) == "20"


def test_what_a_bot_imports_leaves_its_environment_alone() -> None:
    assert _seen("arena.protocol.client, arena.engine.stoneage, arena.engine.agricola",
                 UNSET) == "-"
