"""Guards of `arena run` against what goes wrong around a tournament rather than inside a game:
a second run of the same output folder, among others. Real processes, real journals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_tournament_e2e import example, signals_kept, write_tournament
from typer.testing import CliRunner

from arena.cli import app
from arena.runner.storage import LOCK_FILE

HOLD_LOCK = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from arena.runner.storage import FolderLock\n"
    "lock = FolderLock(Path(sys.argv[1]))\n"
    "print('locked', flush=True)\n"
    "time.sleep(120)\n"
)


def quick_tournament(tmp_path: Path) -> tuple[Path, Path]:
    out = tmp_path / "out"
    file = write_tournament(tmp_path, "t.toml", name="guards", output=out, concurrency=1,
                            bots=[example("random-py"), example("greedy-py")])
    return file, out


def test_a_second_run_of_a_busy_folder_is_refused_naming_the_first_and_a_dead_holder_frees_it(
    tmp_path: Path,
) -> None:
    file, out = quick_tournament(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(out)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with signals_kept():
            r = CliRunner().invoke(app, ["run", str(file), "--plain"])
        assert r.exit_code == 2, r.output
        assert "in use by another arena run" in r.output
        assert f"pid {holder.pid}" in r.output and "Traceback" not in r.output
        assert not (out / "journal.sqlite").exists()  # refused before touching anything
    finally:
        holder.kill()  # the holder dies without releasing: the kernel frees the lock
        holder.wait()
    with signals_kept():
        r = CliRunner().invoke(app, ["run", str(file), "--plain"])
    assert r.exit_code == 0, r.output
    assert (out / "journal.sqlite").is_file() and (out / LOCK_FILE).is_file()
