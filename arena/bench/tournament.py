"""The tournament's benchmark: games a minute of a small round-robin of random bots, serial
and in parallel, with and without the sandbox, and the runner's memory."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any


def _rss_mb(pid: int, field: str = "VmRSS") -> float:
    """Resident memory of a process in MB from /proc (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _pss_mb(pid: int) -> float:
    """Proportional set size in MB: shared pages split between the processes sharing them."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


#: The games of one round of :func:`random_field`: three 2-player tables, two rotations each.
RANDOM_FIELD_ROUND = 3 * 2


#: The random SDK bot, waiting a while before each answer.
THINKING_BOT = """import time
from arena.protocol.client import run
from arena.protocol.reference_bot import RandomBot

class Thinking(RandomBot):
    def choose(self, observation, legal_actions, time_left_ms):
        time.sleep({s})
        return super().choose(observation, legal_actions, time_left_ms)

run(Thinking("{name}", "1.0"))
"""


def random_field_rounds(games: int) -> int:
    """The rounds of :func:`random_field` that make about ``games`` games."""
    return max(1, round(games / RANDOM_FIELD_ROUND))


def random_field(folder: Path, rounds: int, seed: int, concurrency: int,
                 sandbox: str = "bwrap", think_ms: int = 0) -> Any:
    """A round-robin of three random SDK bots at 2-player tables, its bots and output in
    ``folder``: the benchmarks' tournament. With ``think_ms``, each bot waits that long before
    each answer, as a bot that thinks under a clock (its process then mostly waits)."""
    from arena.runner.play.config import parse_config

    bots = []
    for name in ("random-a", "random-b", "random-c"):
        bot = folder / "bots" / name
        bot.mkdir(parents=True, exist_ok=True)
        command = '["{python}", "-m", "arena.protocol.reference_bot"]'
        if think_ms:
            command = '["{python}", "bot.py"]'
            (bot / "bot.py").write_text(THINKING_BOT.format(name=name, s=think_ms / 1000))
        (bot / "bot.toml").write_text(
            f'name = "{name}"\nversion = "1.0"\nlanguage = "python"\ncommand = {command}\n')
        bots.append({"path": str(bot)})
    data = {
        "name": f"bench-{concurrency}", "game": "stoneage", "format": "round-robin",
        "players": 2, "rounds": rounds, "seed": seed, "concurrency": concurrency,
        "output": str(folder / "out"), "bots": bots, "sandbox": sandbox,
    }
    return parse_config(data, folder / "bench.toml")


def bench_tournament(games: int, seed: int) -> dict[str, Any]:
    """The same small round-robin of random SDK bots at concurrency 1 and at one game per core,
    timed in one run; at one game per core with and without the sandbox, in turns, three runs
    each (the cost of the sandbox, with kept processes as by default); then at 8 games in
    flight, with the runner's memory sampled. Bots are sandboxed except in the runs without.

    Memory: the runner process's peak RSS, and the peak of runner + game workers (PSS, so
    pages the forked workers share are counted once); bot processes are not the runner's.
    """
    import tempfile
    import threading

    from arena.runner.play.tournament import Tournament

    cores = len(os.sched_getaffinity(0))
    rounds = random_field_rounds(games)

    def run(folder: Path, concurrency: int, sandbox: str = "bwrap") -> tuple[float, int]:
        config = random_field(folder, rounds, seed, concurrency, sandbox)
        t0 = time.perf_counter()
        result = Tournament(config).run()
        return time.perf_counter() - t0, result.games_done

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        base = Path(tmp)
        serial_s, n = run(base / "serial", 1)
        parallel_s, n2 = run(base / "parallel", cores)
        # The sandbox's cost: at one game per core with and without it, taken in turns (the
        # machine's load drifts), three runs each, compared by their totals.
        sandboxed_s = bare_s = 0.0
        n3 = n4 = 0
        for turn in range(3):
            t, n = run(base / f"sandboxed-{turn}", cores)
            sandboxed_s, n3 = sandboxed_s + t, n3 + n
            t, n = run(base / f"unsandboxed-{turn}", cores, "none")
            bare_s, n4 = bare_s + t, n4 + n

        peak = {"runner_rss": 0.0, "total_pss": 0.0}
        done = threading.Event()
        me = os.getpid()

        def sample() -> None:
            while not done.is_set():
                kids = _children(me)
                peak["runner_rss"] = max(peak["runner_rss"], _rss_mb(me))
                total = _pss_mb(me) + sum(_pss_mb(k) for k in kids if _is_python_worker(k))
                peak["total_pss"] = max(peak["total_pss"], total)
                time.sleep(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            run(base / "eight", 8)
        finally:
            done.set()
            sampler.join()

    return {
        "games": n,
        "cores": cores,
        "serial_games_per_minute": round(n / serial_s * 60, 1),
        "parallel_games_per_minute": round(n2 / parallel_s * 60, 1),
        "ratio": round((n2 / parallel_s) / (n / serial_s), 2),
        "sandboxed_parallel_games_per_minute_3_runs": round(n3 / sandboxed_s * 60, 1),
        "unsandboxed_parallel_games_per_minute_3_runs": round(n4 / bare_s * 60, 1),
        "sandboxed_to_unsandboxed": round((n3 / sandboxed_s) / (n4 / bare_s), 2),
        "runner_peak_rss_mb_8_in_flight": round(peak["runner_rss"], 1),
        "runner_and_workers_peak_pss_mb_8_in_flight": round(peak["total_pss"], 1),
    }


def _children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (from /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
            parents.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _is_python_worker(pid: int) -> bool:
    """True for the runner's fork server and game workers, false for bot processes (which run
    in sessions of their own)."""
    try:
        return os.getsid(pid) == os.getsid(0)
    except OSError:
        return False
