"""The bubblewrap sandbox (opt-in): real bwrap, real bot processes, real sockets.

The tests that need bwrap are skipped, with the reason, where it cannot start a sandbox
(``arena doctor`` says why).
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import replace
from pathlib import Path

import pytest

from arena.engine.stoneage import STONE_AGE
from arena.protocol.wire import ZmtpTransport
from arena.runner.game.botlog import BotLog
from arena.runner.game.checkbot import check_bot
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.processes import BotProcess, group_alive
from arena.runner.game.record import verify
from arena.runner.game.referee import Referee, play_game
from arena.runner.game.sandbox import (
    BOT_UID_BASE,
    INSIDE_BOT,
    UIDS_PER_PROCESS,
    Sandbox,
    SandboxError,
    claim_bot_uid,
    layout_of,
    release_bot_uid,
    require_sandbox,
    sandbox_problem,
)
from arena.runner.game.stable import Stable
from arena.seeds import KEY_FILE_ENV

PROBLEM = sandbox_problem()
needs_bwrap = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bots" / "examples"
FAULTY = ROOT / "bots" / "faulty"
FAST = TimeControl(handshake_ms=10_000, decision_ms=2_000, bank_ms=60_000)


def write_bot(folder: Path, command: list[str], needs: list[str] | None = None,
              limits: str = "") -> BotManifest:
    """A bot folder with this manifest (``limits``: the lines of its [limits] table); the
    manifest, loaded."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ['name = "probe"', 'version = "1.0"', 'language = "python"',
             f"command = {command!r}".replace("'", '"')]
    if needs is not None:
        lines.append(f"needs = {needs!r}".replace("'", '"'))
    if limits:
        lines += ["[limits]", limits]
    (folder / "bot.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return BotManifest.load(folder)


def processes_with(marker: str) -> dict[int, int]:
    """{pid: process group} of every running ``python -c ... marker`` (an orphan left by
    a test bot; the bot's own command line may name the marker too)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        args = cmdline.rstrip(b"\0").split(b"\0")
        if args[-1] == marker.encode() and args[1:2] == [b"-c"] and fields[0] not in "ZX":
            found[int(entry.name)] = int(fields[2])
    return found


def wait_for(condition: object, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return bool(condition())  # type: ignore[operator]


ORPHAN = """
import os, sys, time
marker = sys.argv[1]
pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(1000)", marker])
    os._exit(0)
os.waitpid(pid, 0)
time.sleep(1000)
"""


@needs_bwrap
def test_killing_the_bwrap_group_kills_a_double_forked_setsid_child(tmp_path: Path) -> None:
    """The orphan is in no process group of the bot's (setsid) and has no parent of it, yet
    killing the bwrap process's group ends it: it dies with the sandbox's PID namespace."""
    folder = tmp_path / "orphan"
    folder.mkdir()
    (folder / "orphan.py").write_text(ORPHAN, encoding="utf-8")
    marker = f"arena-orphan-{os.getpid()}-{time.monotonic_ns()}"
    manifest = write_bot(folder, ["{python}", "orphan.py", marker])
    endpoint = tmp_path / "endpoint"
    endpoint.mkdir()
    log = BotLog(None, 1 << 20)
    bot = BotProcess(manifest, {}, log, sandbox=Sandbox(endpoint))
    try:
        assert wait_for(lambda: processes_with(marker)), "the orphan never started"
        ((orphan, orphan_group),) = processes_with(marker).items()
        assert orphan_group != bot.pgid  # out of the group that is killed
        bot.kill()
        assert wait_for(lambda: not processes_with(marker), 2.0), f"{orphan} survived"
        assert not group_alive(bot.pgid)
    finally:
        bot.kill()
        log.close()


@needs_bwrap
def test_the_example_bots_play_whole_sandboxed_games_that_verify(tmp_path: Path) -> None:
    bots = [BotManifest.load(EXAMPLES / n) for n in ("random-py", "random-js", "greedy-py")]
    record = play_game(STONE_AGE, 7, bots, FAST, log_dir=tmp_path, sandbox="bwrap")
    assert [t["reason"] for t in record.terminations] == ["ok", "ok", "ok"]
    assert all(d[3] == "bot" for d in record.decisions)
    assert verify(record).ok


@needs_bwrap
def test_the_search_bot_reads_its_sibling_policy_in_the_sandbox(tmp_path: Path) -> None:
    """mcts-py imports greedy-py's policy: its manifest's ``needs`` shows it that folder."""
    mcts = BotManifest.load(EXAMPLES / "mcts-py")
    assert mcts.needs == ((EXAMPLES / "greedy-py").resolve(),)
    quick = replace(mcts, command=("{python}", "bot.py", "--iterations", "1"))
    record = play_game(STONE_AGE, 3, [quick, None], FAST, log_dir=tmp_path, sandbox="bwrap")
    assert [t["reason"] for t in record.terminations] == ["ok", "ok"]
    assert all(d[3] == "bot" for d in record.decisions if d[0] == 0)
    assert verify(record).ok


@needs_bwrap
def test_a_sandboxed_bot_sees_only_its_own_processes_files_and_no_network(
    tmp_path: Path,
) -> None:
    """A probe bot reports what it can reach; and a process it leaves behind by a double fork
    and setsid is running during the game and gone after it."""
    secret = tmp_path / "tournament" / "journal.sqlite"
    secret.parent.mkdir()
    secret.write_text("the tournament's key\n", encoding="utf-8")
    other_bot = EXAMPLES / "random-py" / "bot.py"
    key_file = os.environ[KEY_FILE_ENV]
    folder = tmp_path / "probe"
    own = folder / "bot.toml"
    marker = f"arena-probe-orphan-{os.getpid()}-{time.monotonic_ns()}"
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    probe = write_bot(folder, [
        "{python}", str(FAULTY / "faulty.py"), "sandbox-probe",
        "--read", str(own), "--read", str(secret), "--read", str(other_bot),
        "--read", key_file, "--write", str(folder / "written"), "--write", "/tmp/scratch",
        "--tcp", str(port), "--orphan", marker,
    ], needs=[os.path.relpath(FAULTY, folder)])
    referee = Referee(STONE_AGE, 4, [probe, None], FAST, tmp_path / "logs", sandbox="bwrap")
    try:
        referee.launch()
        referee.handshake()
        assert wait_for(lambda: processes_with(marker)), "the orphan never started"
        record = referee.play()
    finally:
        referee.kill_all()
        referee.close()
        listener.close()
    assert [t["reason"] for t in record.terminations] == ["ok", "ok"]
    assert wait_for(lambda: not processes_with(marker), 2.0), "the orphan outlived its game"
    (log,) = (tmp_path / "logs").glob("*-probe.log")
    lines = [line.split("probe: ", 1)[1] for line in log.read_text().splitlines()
             if "probe: " in line]
    seen = next(line for line in lines if line.startswith("processes")).split(": ", 1)[1]
    # bwrap's init, the bot, the orphan: none of the runner's or anyone else's.
    commands = seen.split(" | ")
    assert len(commands) == 3, seen
    assert all(c.startswith("bwrap") or "sandbox-probe" in c or marker in c
               for c in commands), seen
    assert "capabilities 0000000000000000" in lines
    # Its folder is where the sandbox shows it (its absolute paths on the command line are
    # given as it sees them); the organiser's files are nowhere.
    root, _ = layout_of([folder, FAULTY])
    inside = Path(INSIDE_BOT) / folder.relative_to(root)
    assert f"read {inside / 'bot.toml'}: ok" in lines
    for hidden in (secret, other_bot, key_file):
        assert any(line.startswith(f"read {hidden}: denied") for line in lines), lines
    assert any(line.startswith(f"write {inside / 'written'}: denied") for line in lines)
    assert "write /tmp/scratch: ok" in lines
    assert any(line.startswith(f"tcp {port}: refused") for line in lines), lines
    assert not (folder / "written").exists()


@needs_bwrap
def test_kept_sandboxed_bots_serve_the_next_games(tmp_path: Path) -> None:
    bots = [BotManifest.load(EXAMPLES / "random-py"), BotManifest.load(EXAMPLES / "random-js")]
    stable = Stable(keep=4, sandbox="bwrap")
    transport = stable.endpoint.transport
    assert isinstance(transport, ZmtpTransport)
    try:
        pids, doors = [], []
        for seed in (1, 2):
            record = play_game(STONE_AGE, seed, bots[::1 if seed == 1 else -1], FAST,
                               stable=stable)
            assert [t["reason"] for t in record.terminations] == ["ok", "ok"]
            pids.append({name: s.process.pid for name, s in stable.idle.items()})
            doors.append({name: s.door for name, s in stable.idle.items()})
        assert pids[0] == pids[1] and set(pids[0]) == {"random-py", "random-js"}
        assert doors[0] == doors[1] and len(set(doors[0].values())) == 2  # one door each
        # Only this user may enter the private folder; each bot's door in it, and its socket,
        # are open, for bots that run as users of their own.
        private = transport.folder
        assert private is not None and os.stat(private).st_mode & 0o777 == 0o700
        for door in doors[0].values():
            assert os.stat(os.path.join(private, f"d{door}")).st_mode & 0o777 == 0o711
            sock = os.path.join(private, f"d{door}", "arena.sock")
            assert os.stat(sock).st_mode & 0o777 == 0o666
    finally:
        stable.close()
    assert not any(group_alive(pid) for pid in pids[0].values())
    assert not os.path.exists(private)


@needs_bwrap
def test_check_bot_passes_sandboxed_and_still_sees_a_child_left_behind(tmp_path: Path) -> None:
    good = check_bot(EXAMPLES / "random-py", STONE_AGE, 1, FAST, tmp_path, sandbox="bwrap")
    assert all(c.passed for c in good), good
    assert "its sandbox" in next(c.detail for c in good if c.name == "shutdown")
    bad = check_bot(FAULTY / "child-left-behind", STONE_AGE, 1, FAST, tmp_path,
                    sandbox="bwrap")
    assert bad[-1].name == "shutdown" and not bad[-1].passed
    assert "left processes behind in its sandbox: 1" in bad[-1].detail


def test_an_unknown_or_unavailable_sandbox_is_an_error_never_a_fallback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(SandboxError, match="unknown sandbox"):
        require_sandbox("docker")
    sandbox_problem.cache_clear()
    monkeypatch.setenv("PATH", "/nonexistent")
    try:
        with pytest.raises(SandboxError, match="bubblewrap is not installed"):
            Stable(sandbox="bwrap")
    finally:
        sandbox_problem.cache_clear()


def test_a_tournament_file_chooses_the_sandbox(tmp_path: Path) -> None:
    from arena.runner.play.config import ConfigError, parse_config

    data = {"name": "t", "game": "stoneage", "format": "round-robin", "players": 2, "seed": 1,
            "bots": [{"path": str(EXAMPLES / "random-py")}, {"path": str(EXAMPLES / "greedy-py")}]}
    file = tmp_path / "t.toml"
    assert parse_config(data, file).sandbox == "bwrap"  # unless the file opts out
    assert parse_config({**data, "sandbox": "none"}, file).sandbox == "none"
    with pytest.raises(ConfigError, match="'sandbox' must be one of none, bwrap"):
        parse_config({**data, "sandbox": "docker"}, file)


def test_a_manifest_declares_the_folders_it_reads_and_they_must_exist(tmp_path: Path) -> None:
    from arena.runner.game.manifest import ManifestError

    (tmp_path / "lib").mkdir()
    bot = write_bot(tmp_path / "bot", ["{python}", "bot.py"], needs=["../lib"])
    assert bot.needs == ((tmp_path / "lib").resolve(),)
    assert write_bot(tmp_path / "plain", ["{python}", "bot.py"]).needs == ()
    with pytest.raises(ManifestError, match=r"needs '\.\./missing'.*is not a folder"):
        write_bot(tmp_path / "bad", ["{python}", "bot.py"], needs=["../missing"])
    with pytest.raises(ManifestError, match="'needs' must be a list of folder paths"):
        write_bot(tmp_path / "worse", ["{python}", "bot.py"], needs=[""])


def test_doctor_says_whether_the_sandbox_works_and_sandbox_flags_never_fall_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    runner = CliRunner()
    sandbox_problem.cache_clear()
    try:
        if PROBLEM is None:
            done = runner.invoke(app, ["doctor"])
            assert done.exit_code == 0 and "bubblewrap works here" in done.output
        monkeypatch.setenv("PATH", "/nonexistent")
        sandbox_problem.cache_clear()
        done = runner.invoke(app, ["doctor"])
        assert done.exit_code == 1 and "bubblewrap is not installed" in done.output
        bot = str(EXAMPLES / "random-py")
        for args in (["play", "stoneage", "--players", "2", "--bot", bot],
                     ["check-bot", bot]):
            done = runner.invoke(app, args)  # sandboxed by default: refused, never unsandboxed
            assert done.exit_code == 2, done.output
            line = " ".join(done.output.split())
            assert line.startswith("error: bots run in a bubblewrap sandbox, which cannot work "
                                   "here: bubblewrap is not installed"), line
            assert "--no-sandbox" in line
        # Built-in players need no sandbox; bots do unless the user opts out.
        assert runner.invoke(app, ["play", "stoneage", "--players", "2"]).exit_code == 0
    finally:
        sandbox_problem.cache_clear()


RUNNER = """
import sys, time
from pathlib import Path
from arena.runner.game.botlog import BotLog
from arena.runner.game.manifest import BotManifest
from arena.runner.game.processes import BotProcess
from arena.runner.game.sandbox import Sandbox
bot = BotProcess(BotManifest.load(sys.argv[1]), {}, BotLog(None, 1 << 20),
                 sandbox=Sandbox(sys.argv[2]))
print(bot.pid, flush=True)
time.sleep(1000)
"""


@needs_bwrap
def test_a_runner_killed_outright_takes_the_whole_sandbox_with_it(tmp_path: Path) -> None:
    """SIGKILL leaves the runner no chance to kill anything: the bwrap process dies by its
    parent-death signal, and with it the sandbox, the orphan included."""
    import subprocess
    import sys

    folder = tmp_path / "orphan"
    folder.mkdir()
    (folder / "orphan.py").write_text(ORPHAN, encoding="utf-8")
    marker = f"arena-orphan-{os.getpid()}-{time.monotonic_ns()}"
    write_bot(folder, ["{python}", "orphan.py", marker])
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, str(folder), str(tmp_path)],
                              stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert runner.stdout is not None
        bwrap_pid = int(runner.stdout.readline())
        assert wait_for(lambda: processes_with(marker)), "the orphan never started"
    finally:
        runner.kill()
        runner.wait()
    assert wait_for(lambda: not processes_with(marker), 3.0), "the orphan outlived the runner"
    assert wait_for(lambda: not group_alive(bwrap_pid), 3.0)


def test_a_program_named_by_path_brings_no_folder_into_the_sandbox(tmp_path: Path) -> None:
    """Only a program found on PATH (a runtime such as node) has its installation mounted; a
    manifest naming an executable elsewhere by its path must not get that folder shown."""
    elsewhere = tmp_path / "organiser" / "bin"
    elsewhere.mkdir(parents=True)
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "b"\nversion = "1"\nlanguage = "x"\ncommand = ["{elsewhere}/tool"]\n',
        encoding="utf-8")
    manifest = BotManifest.load(folder)
    argv, _env = Sandbox(tmp_path / "ep").wrap(list(manifest.command), {}, manifest.folder,
                                               runtime=False, uid=BOT_UID_BASE)
    assert not any(str(tmp_path / "organiser") in a for a in argv[:argv.index("--")])
    node, env = Sandbox(tmp_path / "ep").wrap(["/opt/node/bin/node", "bot.mjs"],
                                              {"ARENA_TOKEN": "t", "SECRET": "s"}, folder,
                                              runtime=True, uid=BOT_UID_BASE)
    # Only what a bot needs, and off the command line (readable by any local user).
    assert env["ARENA_TOKEN"] == "t" and "SECRET" not in env and env["HOME"] == "/tmp"
    assert not any("ARENA_TOKEN" in a or a == "t" for a in node)
    assert node[node.index("/opt/node") - 1:][:3] == ["--ro-bind", "/opt/node", "/opt/node"]


FORKER = """
import os, sys, time
print("uid", os.getuid(), flush=True)
children = 0
try:
    while children < 200:
        if os.fork() == 0:
            time.sleep(1000)
            os._exit(0)
        children += 1
except OSError as exc:
    print("refused", children, exc.errno, flush=True)
print("done", children, flush=True)
time.sleep(1000)
"""


@needs_bwrap
def test_a_fork_bomb_stops_at_the_bots_process_limit_as_a_user_of_its_own(
    tmp_path: Path,
) -> None:
    """``processes`` caps the sandbox's processes and threads (a fork bomb stays inside), and
    a root runner's bot runs as an unprivileged user of its own (to which the limit applies;
    root is exempt from it)."""
    import errno

    bot = write_bot(tmp_path / "forker", ["{python}", "forker.py"], limits="processes = 12")
    (bot.folder / "forker.py").write_text(FORKER, encoding="utf-8")
    log = BotLog(tmp_path / "forker.log", 1 << 20)
    proc = BotProcess(bot, {}, log, sandbox=Sandbox(tmp_path))
    try:
        assert wait_for(lambda: "done" in log.path.read_text(), 10), log.path.read_text()
    finally:
        proc.kill()
        log.close()
    words = dict(line.split(" ", 1) for line in log.path.read_text().splitlines() if line)
    uid = int(words["uid"])
    assert uid >= BOT_UID_BASE if os.geteuid() == 0 else uid == os.getuid()
    children, code = map(int, words["refused"].split())
    assert code == errno.EAGAIN
    assert 0 < children < 12  # the bot itself and bwrap's init count too


def test_no_two_live_bots_of_a_process_share_a_user_id() -> None:
    """A root runner's bots each run as a user id of their own (their process limit counts
    per user): one held by a live bot is never handed out again until it is given back, and
    another process's block is not this one's."""
    held = [claim_bot_uid() for _ in range(UIDS_PER_PROCESS)]
    try:
        assert len(set(held)) == UIDS_PER_PROCESS and min(held) >= BOT_UID_BASE
        assert max(held) - min(held) < UIDS_PER_PROCESS  # this process's block
        assert claim_bot_uid() in held  # all held: shared (degraded, never refused)
        release_bot_uid(held[7])
        assert claim_bot_uid() == held[7]  # the only one free
    finally:
        for uid in held:
            release_bot_uid(uid)


@needs_bwrap
def test_the_sandboxs_command_line_shows_the_bot_no_host_folder(tmp_path: Path) -> None:
    """bwrap's arguments (the host's folders it binds, the endpoint's folder) reach it through
    a pipe: the command line of the sandbox's init, which the bot can read, names none."""
    bot = write_bot(tmp_path / "reader", ["{python}", "reader.py"])
    (bot.folder / "reader.py").write_text(
        "import sys, time\n"
        "print(repr(open('/proc/1/cmdline').read()), flush=True)\n"
        "time.sleep(1000)\n", encoding="utf-8")
    (tmp_path / "endpoint-folder").mkdir()
    log = BotLog(tmp_path / "reader.log", 1 << 20)
    proc = BotProcess(bot, {}, log, sandbox=Sandbox(tmp_path / "endpoint-folder"))
    try:
        assert wait_for(lambda: "bwrap" in log.path.read_text(), 10), log.path.read_text()
    finally:
        proc.kill()
        log.close()
    seen = log.path.read_text()
    assert "--args" in seen and "reader.py" in seen  # the bot's own command
    assert str(tmp_path) not in seen and "endpoint-folder" not in seen and "--ro-bind" not in seen


SYSCALLS = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, *args):
    result = getattr(libc, name)(*args)
    print(name, "refused" if result == -1 else "allowed", os.strerror(ctypes.get_errno()))
attempt("unshare", 0x10000000)  # CLONE_NEWUSER
attempt("syscall", 250, 0, 0, 0, 0)  # keyctl(KEYCTL_GET_KEYRING_ID, ...)
attempt("syscall", 321, 0, 0, 0)  # bpf
attempt("unshare", 0x00020000)  # CLONE_NEWNS: needs a capability the bot lacks anyway
print("fork", "allowed" if os.fork() or os._exit(0) else "")
"""


@needs_bwrap
def test_the_system_call_filter_refuses_new_user_namespaces_and_kernel_wide_facilities(
    tmp_path: Path,
) -> None:
    """A bot may not make a user namespace (where it would hold every capability over
    namespaces of its own: kernel code a sandboxed process otherwise never reaches), nor use
    the kernel's key rings or bpf; it gets EPERM, not a kill, and everything else works."""
    bot = write_bot(tmp_path / "caller", ["{python}", "caller.py"])
    (bot.folder / "caller.py").write_text(SYSCALLS, encoding="utf-8")
    log = BotLog(tmp_path / "caller.log", 1 << 20)
    (tmp_path / "endpoint").mkdir()
    proc = BotProcess(bot, {}, log, sandbox=Sandbox(tmp_path / "endpoint"))
    try:
        assert wait_for(lambda: "fork" in log.path.read_text(), 10), log.path.read_text()
    finally:
        proc.kill()
        log.close()
    lines = log.path.read_text().splitlines()
    assert lines[:3] == ["unshare refused Operation not permitted",
                         "syscall refused Operation not permitted",
                         "syscall refused Operation not permitted"], lines
    assert lines[3].startswith("unshare refused") and lines[4] == "fork allowed"


BUILD_BESIDE = ("cat ../shared/value.txt > built.txt"
                " && { touch ../shared/intruder 2>/dev/null || echo refused > refused.txt; }")


@needs_bwrap
def test_a_build_that_needs_the_folder_above_its_own_writes_its_own_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``needs = [".."]`` shows the build the folder holding its own, read-only: its own
    folder, inside it, is mounted after it, so the build can still write its copy (and only
    that), and reads the folder beside its own where it is on the host."""
    from arena.runner.game.build import built

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "bots" / "shared").mkdir(parents=True)
    (tmp_path / "bots" / "shared" / "value.txt").write_text("41\n", encoding="utf-8")
    folder = tmp_path / "bots" / "builder"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "builder"\nversion = "1"\nlanguage = "sh"\ncommand = ["sh", "run.sh"]\n'
        f'needs = [".."]\nbuild = ["sh", "-c", "{BUILD_BESIDE}"]\n', encoding="utf-8")
    manifest = built(BotManifest.load(folder), "bwrap", tmp_path / "logs")
    assert (manifest.folder / "built.txt").read_text() == "41\n"
    assert (manifest.folder / "refused.txt").read_text() == "refused\n"
    assert not (manifest.folder.parent / "shared" / "intruder").exists()
    assert not (folder / "built.txt").exists()
    assert manifest.needs == (manifest.folder.parent,)
