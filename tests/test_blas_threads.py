"""The matrix library's idle threads sleep instead of spinning (:mod:`arena`'s start): set
before NumPy is first imported, a user's own setting kept."""

from __future__ import annotations

import os
import subprocess
import sys


def _seen(env: dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-c", "import arena, os; print(os.environ['OPENBLAS_THREAD_TIMEOUT'])"],
        env=env, capture_output=True, text=True, check=True).stdout.strip()


def test_idle_blas_threads_sleep_unless_told_otherwise() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    assert _seen(env) == "4"
    assert _seen({**env, "OPENBLAS_THREAD_TIMEOUT": "20"}) == "20"
