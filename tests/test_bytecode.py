"""The suite's own start: the bytecode of what its processes import is cached before they
start (see :func:`conftest.cache_bytecode`)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from conftest import BYTECODE_TREES


def test_every_module_the_tests_processes_import_has_its_bytecode_cached() -> None:
    stale = [
        str(source) for tree in BYTECODE_TREES for source in sorted(tree.rglob("*.py"))
        if "node_modules" not in source.parts
        and not (os.path.exists(cached := importlib.util.cache_from_source(str(source)))
                 and os.stat(cached).st_mtime >= os.stat(source).st_mtime)
    ]
    assert stale == []


def test_a_process_that_writes_no_bytecode_still_reads_it(tmp_path: Path) -> None:
    """With writing off, a fresh process loads the package's modules from their bytecode:
    none of them is compiled from source."""
    probe = (
        "import importlib.machinery as m, sys\n"
        "compiled = []\n"
        "original = m.SourceFileLoader.source_to_code\n"
        "def counting(self, data, path, *a, **k):\n"
        "    compiled.append(path)\n"
        "    return original(self, data, path, *a, **k)\n"
        "m.SourceFileLoader.source_to_code = counting\n"
        "import arena.runner.play.executor, arena.protocol.client\n"
        "print([p for p in compiled if '/arena/' in p])\n"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=env, check=True, timeout=60, cwd=tmp_path)
    assert done.stdout.strip() == "[]", done.stdout
