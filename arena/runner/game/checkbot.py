"""`arena check-bot`: the checks a bot must pass before it joins a tournament.

The check's game is named for the bot by :func:`arena.seeds.game_label`, never by its seed: a
bot that could read the seed in its game's name would know the deck and every die.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from arena.engine import Game
from arena.protocol.messages import Termination
from arena.protocol.server import Failure
from arena.runner.game.botlog import DEFAULT_LOG_CAP, BotLog, log_tail, size_text
from arena.runner.game.build import BuildError, built
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest, ManifestError
from arena.runner.game.needs import NeedsRule
from arena.runner.game.processes import KILL_WAIT_S, group_alive, setup_hint
from arena.runner.game.record import BY_BOT, verify
from arena.runner.game.referee import Referee, VoidGame
from arena.runner.game.sandbox import DEFAULT_MODE
from arena.runner.game.sandboxed import sandbox_processes, started_by_the_bot, still_running
from arena.runner.game.stable import Stable
from arena.seeds import game_label, user_seed_key

SHUTDOWN_WAIT_S = 3.0


@dataclass(frozen=True)
class Check:
    """One check's outcome. A failed check names the bot's log (``log``), where the bot's own
    account of what went wrong is, when it has one."""

    name: str
    passed: bool
    detail: str
    log: Path | None = None


def output_check(log: BotLog, cap: int) -> Check:
    """Whether the bot's output over its game and shutdown fit under its log's cap (call once
    it has exited, nothing left behind: this reads what is left in its pipe and closes the
    log). Output breaks no protocol rule, and a game goes on however much there is, but what
    is past the cap is lost to the bot's author (its end first, where a crash would be
    explained), and reading it costs the runner: the check fails, as it does for a process
    left behind, which a game also survives."""
    log.close()
    if cap == 0:
        return Check("output", True, "not kept (the cap is 0)")
    if log.dropped:
        return Check("output", False,
                     f"wrote {log.written + log.dropped} bytes of output in one game, more "
                     f"than the cap of {size_text(cap)}: the last {log.dropped} bytes were "
                     f"dropped from its log")
    return Check("output", True, f"{log.written} bytes of output in one game, within the cap "
                                 f"of {size_text(cap)}")


def check_bot(
    path: Path, game: Game, seed: int, time_control: TimeControl, log_dir: Path | None,
    log_cap: int = DEFAULT_LOG_CAP, sandbox: str = DEFAULT_MODE, seed_key: bytes | None = None,
    entering: NeedsRule | None = None,
) -> list[Check]:
    """Run the checks in order, stopping at the first failure. Never raises for a bot's
    misbehaviour; the bot's processes are all gone when this returns. The bot's output goes to
    a log under ``log_dir`` (none if None), at most ``log_cap`` bytes of it. ``sandbox``:
    "bwrap" checks it inside the bubblewrap sandbox (raises
    :class:`~arena.runner.game.sandbox.SandboxError` if that cannot work here). ``seed_key``: the
    key of the bot's seed (None: the user's, :func:`arena.seeds.user_seed_key`).
    ``entering``: the rule of a bot entering (``arena check-bot``, a league), its log folder
    guarded too; None for a copy of a bot that entered already (on a cluster's worker)."""
    rule = None if entering is None else entering.guarding("the log folder", log_dir)
    try:
        manifest = BotManifest.load(path, rule)
    except ManifestError as exc:
        return [Check("manifest", False, str(exc))]
    logs: list[Path] = []
    built_checks: list[Check] = []
    if manifest.build:
        try:
            manifest = built(manifest, sandbox, log_dir)
        except BuildError as exc:
            return [_manifest_check(manifest), Check("build", False, str(exc))]
        built_checks = [Check("build", True, f"built once for this content of its folder, in "
                                             f"{manifest.folder}")]
    key = user_seed_key() if seed_key is None else seed_key
    checks = _run_checks(manifest, game, seed, key, time_control, log_dir, log_cap, sandbox,
                         logs)
    checks = [checks[0], *built_checks, *checks[1:]]
    last = checks[-1]
    if not last.passed:
        hint = setup_hint(manifest)
        detail = f"{last.detail} ({hint})" if hint and last.name in ("start", "hello") \
            else last.detail
        checks[-1] = replace(last, detail=detail, log=logs[0] if logs else None)
    return checks


def _manifest_check(manifest: BotManifest) -> Check:
    build = f"; build: {' '.join(manifest.build)}" if manifest.build else ""
    return Check("manifest", True, f"{manifest.name} {manifest.version} ({manifest.language}): "
                                   f"{' '.join(manifest.command)}{build}")


def _run_checks(
    manifest: BotManifest, game: Game, seed: int, seed_key: bytes, time_control: TimeControl,
    log_dir: Path | None, log_cap: int, sandbox: str, logs: list[Path],
) -> list[Check]:
    """The checks after the manifest's; the bot's log path is appended to ``logs``."""
    checks: list[Check] = []
    checks.append(_manifest_check(manifest))
    players = max(2, game.min_players)
    referee = Referee(game, seed, [manifest] + [None] * (players - 1), time_control, log_dir,
                      game_id=f"check-{manifest.name}-{game_label(seed_key, seed)}",
                      log_cap=log_cap, seed_key=seed_key, sandbox=sandbox)
    seat = referee.seats[0]
    try:
        try:
            referee.launch()
        except VoidGame as exc:
            if seat.log is not None and seat.log.path is not None:
                logs.append(seat.log.path)
            return [*checks, Check("start", False, str(exc))]
        if seat.log is not None and seat.log.path is not None:
            logs.append(seat.log.path)
        assert seat.process is not None and seat.log is not None
        where = (f"; output to {seat.log.path} (at most {size_text(log_cap)})"
                 if seat.log.path is not None else "")
        checks.append(Check("start", True, f"started as pid {seat.process.pid}{where}"))
        t0 = time.perf_counter()
        try:
            referee.handshake()
        except VoidGame as exc:
            if seat.identity is None:
                return [*checks, Check("hello", False, str(exc))]
            return [*checks, Check("hello", True, "welcomed"), Check("ping", False, str(exc))]
        hello_ms = (time.perf_counter() - t0) * 1000
        checks.append(Check("hello", True, f"hello and welcome after {hello_ms:.0f} ms"))
        checks.append(Check("ping", True, "answered the handshake ping"))
        record = referee.play()
        term = record.terminations[0]
        report = verify(record)
        if term["reason"] != Termination.OK:
            return [*checks, Check("game", False, f"{term['reason']}: {term['detail']}")]
        if not report.ok:
            return [*checks, Check("game", False, "; ".join(report.problems))]
        times = sorted(d.ms for d in record.decisions if d.seat == 0 and d.by == BY_BOT)
        median = times[len(times) // 2] if times else 0.0
        checks.append(Check(
            "game", True,
            f"{len(times)} decisions in a {players}-player {game.name} game, median "
            f"{median:.1f} ms, slowest {times[-1] if times else 0:.1f} ms; "
            f"score {record.result['scores'][0]}, rank {record.ranks[0]} of {players}",
        ))
        if referee.refusals:
            # Only this bot's processes know the endpoint during a check.
            return [*checks, Check("connections", False,
                                   f"the bot opened a connection that was refused: "
                                   f"{referee.refusals[0]}")]
        assert seat.connection is not None
        rtt = seat.connection.ping(time_control.handshake_ms)
        if isinstance(rtt, Failure):
            return [*checks, Check("ping", False, f"after the game: {rtt.reason}: "
                                                  f"{rtt.detail}")]
        checks.append(Check("ping", True, f"answered a ping after the game in {rtt:.1f} ms"))
        proc = seat.process
        # Sandboxed, the bot's own processes are in the sandbox's PID namespace, not in the
        # bwrap process's group, and the sandbox ends them all as soon as the bot exits: what
        # the bot left running is what was still there beside it when last seen before it
        # exited (at worst, what it had when told to shut down, if it exited at once). A bot
        # that ends its helpers a few milliseconds before exiting may be judged on that
        # earlier look; one that leaves them running never passes.
        # Everything in the sandbox is below its init, also in PID namespaces nested in it.
        sandboxed = sandbox != "none"
        seen = set(sandbox_processes(proc.pid)) if sandboxed else set()
        extra = (started_by_the_bot(proc.pid) or []) if sandboxed else []
        referee.send_shutdown(seat)
        deadline = time.monotonic() + SHUTDOWN_WAIT_S
        while proc.alive() and time.monotonic() < deadline:
            if sandboxed:
                now = started_by_the_bot(proc.pid)
                if now is not None:  # else the bot has exited and the sandbox is ending
                    seen.update(now)
                    extra = now
            time.sleep(0.005)
        # The bwrap process may exit a moment before its init has: give the sandbox the
        # time a kill gets to empty.
        settle = time.monotonic() + KILL_WAIT_S
        while still_running(seen) and time.monotonic() < settle:
            time.sleep(0.005)
        left_inside = bool(still_running(seen))
        if proc.alive():
            checks.append(Check("shutdown", False,
                                f"still running {SHUTDOWN_WAIT_S:.0f} s after shutdown"))
        elif proc.returncode != 0:
            checks.append(Check("shutdown", False, f"{proc.describe_exit()} after shutdown"))
        elif group_alive(proc.pgid):
            checks.append(Check("shutdown", False,
                                "exited, but left processes behind in its process group"))
        elif extra:
            checks.append(Check("shutdown", False,
                                f"exited, but left processes behind in its sandbox: "
                                f"{len(extra)} (pids {', '.join(map(str, extra))}; "
                                f"the sandbox ended them)"))
        elif left_inside:
            checks.append(Check("shutdown", False,
                                "exited, but processes of its sandbox are still running"))
        else:
            where = " in its process group or its sandbox" if sandboxed else ""
            checks.append(Check("shutdown", True,
                                f"exited with status 0, nothing left behind{where}"))
            checks.append(output_check(seat.log, log_cap))
        return checks
    finally:
        referee.kill_all()
        referee.close()


def start_problem(
    manifest: BotManifest, game: Game, time_control: TimeControl, log_dir: Path | None,
    log_cap: int, sandbox: str, seed_key: bytes, stable: Stable | None = None,
) -> str | None:
    """Start the bot once and wait for its hello, as a game would, then stop it: None if it
    answered, else why not (with what it probably lacks, and the end of its log). The check a
    tournament runs for every bot before its first game. With a ``stable`` that keeps bot
    processes, a bot that answered is not stopped but left waiting there for a game."""
    players = max(2, game.min_players)
    referee = Referee(game, 0, [manifest] + [None] * (players - 1), time_control, log_dir,
                      game_id=manifest.name, log_cap=log_cap, stable=stable,
                      seed_key=seed_key, sandbox=sandbox)
    referee.log_heading = "start check"
    seat = referee.seats[0]
    why: str | None = None
    answered = False
    try:
        referee.launch()
        referee.handshake()
        answered = True
    except VoidGame as exc:
        why = str(exc)
    finally:
        if answered and stable is not None and stable.keep > 0:
            referee.finished = True  # close() hands the process to the stable
        else:
            if answered:
                referee.send_shutdown(seat)
            referee.kill_all()
        referee.close()
    if why is None:
        return None
    hint = setup_hint(manifest)
    lines = [f"{manifest.name} cannot start: {why}" + (f" ({hint})" if hint else "")]
    path = seat.log.path if seat.log is not None else None
    if path is not None:
        tail = log_tail(path, 5)
        lines.append(f"  its log, {path}" + (":" if tail else ", is empty"))
        lines += [f"  | {line}" for line in tail]
    return "\n".join(lines)
