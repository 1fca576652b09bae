"""Bots' output: a pipe drained into a log capped per game, a marker line for what was dropped.

The log itself (:class:`BotLog`) directly and over real pipes; its cap in the tournament file
and on the command line; a kept process's log across games with real processes. The flooding
bot in a refereed game is in ``test_referee_e2e.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.engine.stoneage import STONE_AGE
from arena.runner.game.botlog import JOIN_S, BotLog, size_text
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.processes import group_alive
from arena.runner.game.referee import play_game
from arena.runner.game.stable import Stable
from arena.runner.play.config import ConfigError, parse_config

ROOT = Path(__file__).resolve().parent.parent
RANDOM_PY = ROOT / "bots" / "examples" / "random-py"
FLOOD_OUTPUT = ROOT / "bots" / "faulty" / "flood-output"
MARKER = re.compile(rb"\[arena: output capped at (.+?); (\d+) more bytes dropped\]\n")


def drain_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("bot-log-")]


def test_output_under_the_cap_is_kept_as_is_without_a_marker(tmp_path: Path) -> None:
    log = BotLog(tmp_path / "a.log", cap=100)
    log.write(b"hello\n")
    log.write(b"x" * 94)
    log.close()
    assert (tmp_path / "a.log").read_bytes() == b"hello\n" + b"x" * 94


def test_output_past_the_cap_is_dropped_and_counted_in_one_marker_line(tmp_path: Path) -> None:
    log = BotLog(tmp_path / "a.log", cap=1000)
    for _ in range(25):
        log.write(b"y" * 99 + b"\n")
    log.close()
    data = (tmp_path / "a.log").read_bytes()
    kept, marker = data[:1000], data[1000:]
    assert kept == (b"y" * 99 + b"\n") * 10
    assert marker == b"[arena: output capped at 1000 bytes; 1500 more bytes dropped]\n"


def test_the_marker_starts_a_line_of_its_own_when_the_cap_cuts_one(tmp_path: Path) -> None:
    log = BotLog(tmp_path / "a.log", cap=10)
    log.write(b"0123456789abc")
    log.close()
    assert (tmp_path / "a.log").read_bytes() == (
        b"0123456789\n[arena: output capped at 10 bytes; 3 more bytes dropped]\n"
    )


def test_a_cap_of_zero_keeps_only_the_marker_and_no_log_dir_keeps_nothing(
    tmp_path: Path,
) -> None:
    log = BotLog(tmp_path / "a.log", cap=0)
    log.write(b"abc")
    log.close()
    assert (tmp_path / "a.log").read_bytes() == (
        b"[arena: output capped at 0 bytes; 3 more bytes dropped]\n"
    )
    nowhere = BotLog(None, cap=0)
    nowhere.write(b"abc")
    nowhere.close()
    assert size_text(10 * 1024 * 1024) == "10 MiB" and size_text(1500) == "1500 bytes"


def test_each_game_of_a_kept_process_has_its_own_cap_and_a_line_naming_it(
    tmp_path: Path,
) -> None:
    log = BotLog(tmp_path / "a.log", cap=4, game_id="g1")
    log.write(b"abcdef")
    log.begin_game("g2", cap=8)
    log.write(b"12345678")
    log.begin_game("g3", cap=2)
    log.write(b"zzz\n")
    log.close()
    assert (tmp_path / "a.log").read_bytes().decode().splitlines() == [
        "[arena: game g1]",
        "abcd",
        "[arena: output capped at 4 bytes; 2 more bytes dropped]",
        "[arena: game g2]",
        "12345678",
        "[arena: game g3]",
        "zz",
        "[arena: output capped at 2 bytes; 2 more bytes dropped]",
    ]


def test_a_full_disk_drops_the_output_without_raising(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    log = BotLog(Path("/dev/full"), cap=100)
    log.write(b"abc\n")
    log.write(b"x" * 1000)
    log.close()


def test_a_pipe_is_drained_to_its_end_and_the_thread_ends(tmp_path: Path) -> None:
    log = BotLog(tmp_path / "a.log", cap=1 << 20)
    r, w = os.pipe()
    log.drain(r)
    total = 5 << 20
    block = b"z" * (64 * 1024)
    for _ in range(total // len(block)):  # far more than the pipe holds: it must be read
        os.write(w, block)
    os.close(w)
    log.close()
    data = (tmp_path / "a.log").read_bytes()
    assert data[: 1 << 20] == b"z" * (1 << 20)
    assert data[1 << 20:] == b"\n[arena: output capped at 1 MiB; %d more bytes dropped]\n" % (
        total - (1 << 20))
    assert not drain_threads()


def test_closing_never_hangs_on_a_process_that_keeps_the_pipe_open(tmp_path: Path) -> None:
    # The test holds the write end, as a process that left the bot's group could.
    log = BotLog(tmp_path / "a.log", cap=100)
    r, w = os.pipe()
    try:
        log.drain(r)
        os.write(w, b"early\n")
        t0 = time.monotonic()
        log.close()
        assert time.monotonic() - t0 < 2 * JOIN_S + 0.5
        assert not drain_threads(), "the drain thread must end when the log closes"
        assert (tmp_path / "a.log").read_bytes() == b"early\n"
    finally:
        os.close(w)


# ---------------------------------------------------------------- configuration


def tournament(extra: str) -> dict[str, object]:
    import tomllib

    return tomllib.loads(
        'name = "t"\ngame = "stoneage"\nformat = "round-robin"\nplayers = 2\nseed = 1\n'
        f'{extra}\n[[bots]]\npath = "{RANDOM_PY}"\n[[bots]]\npath = "{FLOOD_OUTPUT}"\n'
    )


def test_the_tournament_file_sets_the_cap_in_mib_with_a_default_of_10(tmp_path: Path) -> None:
    file = tmp_path / "t.toml"
    assert parse_config(tournament(""), file).log_cap == 10 * 1024 * 1024
    config = parse_config(tournament("log_cap_mb = 1"), file)
    assert config.log_cap_mb == 1 and config.log_cap == 1024 * 1024
    # It does not define the games: a resumed run may change it.
    assert config.identity() == parse_config(tournament(""), file).identity()


@pytest.mark.parametrize("value", ["-1", "10241", "1.5", '"10"'])
def test_a_bad_cap_in_the_tournament_file_is_refused_naming_the_field(
    tmp_path: Path, value: str,
) -> None:
    with pytest.raises(ConfigError, match="'log_cap_mb'"):
        parse_config(tournament(f"log_cap_mb = {value}"), tmp_path / "t.toml")


def test_play_caps_a_flooding_bots_log_as_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAULTY_FLOOD_BYTES", str(3 << 20))
    r = CliRunner().invoke(app, ["play", "stoneage", "--bot", str(FLOOD_OUTPUT), "-n", "2",
                                 "--log-dir", str(tmp_path), "--log-cap-mb", "1", "--json"])
    assert r.exit_code == 0, r.output
    (log,) = tmp_path.glob("*flood-output.log")
    data = log.read_bytes()
    match = MARKER.search(data)
    assert match is not None and data.endswith(match.group(0))
    assert match.group(1) == b"1 MiB" and int(match.group(2)) > 0
    assert len(data) <= (1 << 20) + 1 + len(match.group(0))


# ---------------------------------------------------------------- a kept process


def test_a_kept_process_writes_one_log_with_a_cap_per_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAULTY_FLOOD_BYTES", str(3 << 20))
    bots = [BotManifest.load(FLOOD_OUTPUT), BotManifest.load(RANDOM_PY)]
    tc = TimeControl(handshake_ms=10_000, decision_ms=1_000, bank_ms=30_000)
    stable = Stable(keep=2)
    try:
        for seed in (1, 2):
            record = play_game(STONE_AGE, seed, bots, tc, tmp_path, f"g{seed}", stable,
                               log_cap=1 << 20)
            assert [t["reason"] for t in record.terminations] == ["ok", "ok"]
        pgid = stable.idle["faulty-flood-output"].process.pgid
    finally:
        stable.close()
    assert not group_alive(pgid)
    (log,) = tmp_path.glob("faulty-flood-output-*.log")
    parts = re.split(rb"\[arena: game (g\d)\]\n", log.read_bytes())
    assert parts[0] == b"" and parts[1::2] == [b"g1", b"g2"]
    for part in parts[2::2]:
        match = MARKER.search(part)
        assert match is not None and part.endswith(match.group(0)), part[-200:]
        assert int(match.group(2)) >= 2 << 20  # the flood, less the 1 MiB kept
        assert len(part) <= (1 << 20) + 1 + len(match.group(0))


def test_check_bot_says_where_the_output_goes_and_fails_output_past_its_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Output breaks no protocol rule, yet check-bot fails a bot that wrote past the cap (its
    author loses the end of it), naming the bytes dropped, as many as the log's marker says.
    Unsandboxed: the sandbox would not pass FAULTY_FLOOD_BYTES on."""
    monkeypatch.setenv("FAULTY_FLOOD_BYTES", str(2 << 20))
    r = CliRunner().invoke(app, ["check-bot", str(FLOOD_OUTPUT), "--log-dir", str(tmp_path),
                                 "--log-cap-mb", "1", "--no-sandbox"])
    assert r.exit_code == 1, r.output
    (log,) = tmp_path.glob("*.log")
    assert "at most 1 MiB" in r.output and log.name in r.output.replace("\n", "")
    marker = MARKER.search(log.read_bytes())
    assert marker is not None
    failed = " ".join(r.output[r.output.index("FAIL"):].split())
    assert failed.startswith("FAIL output wrote ")
    assert (f"more than the cap of 1 MiB: the last {int(marker.group(2))} bytes were dropped "
            f"from its log") in failed


def test_a_tournament_caps_each_game_of_a_kept_bots_log_as_its_file_says(
    tmp_path: Path,
) -> None:
    toml = tmp_path / "t.toml"
    toml.write_text(
        'name = "capped"\ngame = "stoneage"\nformat = "round-robin"\nplayers = 2\nseed = 3\n'
        f'concurrency = 1\nlog_cap_mb = 1\noutput = "{tmp_path / "out"}"\n'
        f'[[bots]]\npath = "{RANDOM_PY}"\n[[bots]]\npath = "{FLOOD_OUTPUT}"\n'
    )
    done = subprocess.run([sys.executable, "-m", "arena", "run", str(toml), "--plain"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "FAULTY_FLOOD_BYTES": str(3 << 20)})
    assert done.returncode == 0, done.stderr
    assert "2/2 games, complete" in done.stdout
    (log,) = (tmp_path / "out" / "logs").glob("faulty-flood-output-*.log")
    data = log.read_bytes()
    assert data.count(b"[arena: game ") == 2
    assert [m.group(1) for m in MARKER.finditer(data)] == [b"1 MiB", b"1 MiB"]
