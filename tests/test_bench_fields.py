"""`arena bench fields` as a real process, interrupted: it leaves nothing behind, no process,
no temporary folder, no named semaphore for the resource tracker to find. (What it says as it
plays is tested with its figures, in test_cli.)"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_tournament_e2e import assert_nothing_left, wait_until, workers_under

#: What Python's resource tracker says when a process ends with named semaphores it made.
LEAKED = "leaked semaphore"


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A temporary folder of the benchmark's own, with a short path: the referee's sockets are
    made in it, and a socket's path may not be long."""
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-test-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def bench(tmp_path: Path, scratch: Path, *args: str) -> subprocess.Popen[str]:
    """`arena bench fields` with its temporary folders in ``scratch``, leader of a session of
    its own, Ctrl-C as in a terminal."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "bench", "fields", "--no-sandbox", *args],
        cwd=tmp_path, env={**os.environ, "TMPDIR": str(scratch)},
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_an_interrupted_bench_fields_leaves_no_process_no_folder_and_no_semaphore(
    tmp_path: Path, scratch: Path, sig: signal.Signals,
) -> None:
    proc = bench(tmp_path, scratch, "--games", "400")
    try:
        wait_until("the games under way", lambda: len(workers_under(proc.pid)) == 2, 60)
        os.killpg(proc.pid, sig)  # the session we started
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 128 + sig, stderr
    assert "Traceback" not in stderr and LEAKED not in stderr, stderr
    assert_nothing_left(None, sessions=(proc.pid,))
    left = sorted(scratch.rglob("*"))
    assert left == [], [(str(q), "dir" if q.is_dir() else q.stat().st_size) for q in left]
