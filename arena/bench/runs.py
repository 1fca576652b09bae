"""Benchmarks: commands that print figures (never timed tests)."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from arena.engine import Game, State, get_game


def bench_engine(game: Game, players: int, games: int, seed: int) -> dict[str, Any]:
    """Play ``games`` random games in this process and measure the engine.

    Returns games per second, decisions per second (only decision points with at least two
    legal actions count), decisions per game, the mean cost of ``clone()`` on positions taken
    from the games, and, for comparison, the decision rate when every decision also builds the
    legal actions as dicts (the path a referee takes).
    """
    rng = random.Random(seed)
    decisions = 0
    samples: list[State] = []
    t0 = time.perf_counter()
    for g in range(games):
        state = game.new_state(players, seed=seed + g)
        step = 0
        while not state.is_terminal:
            k = state.num_legal()
            if k >= 2:
                decisions += 1
            if step % 97 == 0 and len(samples) < 400:
                samples.append(state)
                state = state.clone()
            state.apply_index(rng.randrange(k))
            step += 1
    elapsed = time.perf_counter() - t0

    reps = 50
    t1 = time.perf_counter()
    for s in samples:
        for _ in range(reps):
            s.clone()
    clone_us = (time.perf_counter() - t1) / (len(samples) * reps) * 1e6

    dict_games = max(1, games // 4)
    dict_decisions = 0
    t2 = time.perf_counter()
    for g in range(dict_games):
        state = game.new_state(players, seed=seed + g)
        while not state.is_terminal:
            actions = state.legal_actions()
            dict_decisions += 1
            state.apply_index(rng.randrange(len(actions)))
    dict_elapsed = time.perf_counter() - t2

    return {
        "game": game.name,
        "rules_version": game.rules_version,
        "players": players,
        "games": games,
        "seed": seed,
        "seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 1),
        "decisions_per_second": round(decisions / elapsed),
        "decisions_per_game": round(decisions / games, 1),
        "clone_microseconds": round(clone_us, 2),
        "dict_path_decisions_per_second": round(dict_decisions / dict_elapsed),
    }


_ECHO_PEER = r"""
import sys, zmq
ctx = zmq.Context()
s = ctx.socket(zmq.DEALER)
s.setsockopt(zmq.LINGER, 0)
s.connect(sys.argv[1])
reply = b"x" * int(sys.argv[2])
s.send(b"ready")
while True:
    m = s.recv()
    if m == b"stop":
        break
    s.send(reply)
"""


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def bench_protocol(game: Game, games: int, seed: int, sandbox: str = "bwrap") -> dict[str, Any]:
    """Round trips through the real referee path against a bare pyzmq ping-pong.

    The referee path: a Python SDK bot process (``arena.protocol.reference_bot``) plays
    ``games`` two-player games against a built-in player; each decision's round trip is what
    the referee measures from sending the request to holding the validated answer. The bare
    path: a DEALER echo process that receives exactly the same request bytes and answers with
    a reply of the size of an action message, with no msgpack and no validation; between round
    trips it replays the game and builds each request just as the referee does.

    The run (and so every process it starts) is pinned to one core: on two cores the figures
    otherwise swing by a factor of two with where the scheduler happens to place the two
    processes, which would swamp the protocol's own cost that this benchmark compares.

    ``sandbox``: how the bot runs ("bwrap", the default: over the sandbox's ipc endpoint;
    "none": over loopback TCP, like the bare path).
    """
    original = os.sched_getaffinity(0)
    core = min(original)
    os.sched_setaffinity(0, {core})
    try:
        figures = _bench_protocol_pinned(game, games, seed, sandbox)
    finally:
        os.sched_setaffinity(0, original)
    figures["pinned_core"] = core
    return figures


def _bench_protocol_pinned(game: Game, games: int, seed: int, sandbox: str) -> dict[str, Any]:
    import subprocess
    import sys
    import tempfile

    import zmq

    from arena.protocol.messages import encode, request
    from arena.runner.game.manifest import BotManifest
    from arena.runner.game.record import BY_BOT
    from arena.runner.game.referee import play_game

    reply_size = len(encode({"type": "action", "request_id": 1234, "index": 3}))
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    port = sock.bind_to_random_port("tcp://127.0.0.1")
    peer = subprocess.Popen(
        [sys.executable, "-c", _ECHO_PEER, f"tcp://127.0.0.1:{port}", str(reply_size)],
        start_new_session=True,
    )
    referee_ms: list[float] = []
    bare_ms: list[float] = []
    sizes: list[int] = []
    try:
        if not sock.poll(10_000):
            raise RuntimeError("the echo peer did not connect")
        identity, _ready = sock.recv_multipart()
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
            folder = Path(tmp)
            (folder / "bot.toml").write_text(
                'name = "reference-py"\nversion = "1.0"\nlanguage = "python"\n'
                'command = ["{python}", "-m", "arena.protocol.reference_bot"]\n'
            )
            bot = BotManifest.load(folder)
            # The two paths alternate game by game, so both see the same machine load.
            for g in range(games):
                record = play_game(game, seed + g, [bot, None], sandbox=sandbox)
                # The bare path replays the same game and, like the referee, builds each
                # request between round trips, so both paths run amid the same work and the
                # ratio isolates the protocol's own cost.
                state = game.new_state(2, seed=seed + g)
                for k, (seat, index, ms, by, _action) in enumerate(record.decisions):
                    if by == BY_BOT:
                        referee_ms.append(ms)
                        payload = encode(request(
                            record.game_id, k, state.observation(seat), state.legal_actions(),
                            120000, 5000,
                        ))
                        sizes.append(len(payload))
                        t0 = time.perf_counter()
                        sock.send_multipart([identity, payload])
                        sock.recv_multipart()
                        bare_ms.append((time.perf_counter() - t0) * 1000)
                    state.apply_index(index)
        sock.send_multipart([identity, b"stop"])
        peer.wait(timeout=5)
    finally:
        if peer.poll() is None:
            peer.kill()
            peer.wait()
        sock.close()
        ctx.term()

    ref, bare = _median(referee_ms), _median(bare_ms)
    return {
        "game": game.name,
        "games": games,
        "sandbox": sandbox,
        "round_trips": len(referee_ms),
        "mean_request_bytes": round(sum(sizes) / len(sizes)),
        "referee_median_ms": round(ref, 4),
        "bare_median_ms": round(bare, 4),
        "ratio": round(ref / bare, 2),
    }


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


def bench_start(bots: list[Path], starts: int) -> dict[str, Any]:
    """Start-to-hello of each bot with and without the sandbox: the time from starting its
    process to its hello being accepted, median of ``starts`` starts each, alternating the two
    ways so both see the same machine load."""
    from arena.runner.game.manifest import BotManifest
    from arena.runner.game.referee import Referee

    game = get_game("stoneage")
    figures: dict[str, Any] = {"starts": starts, "bots": {}}
    for path in bots:
        manifest = BotManifest.load(path)
        times: dict[str, list[float]] = {"bwrap": [], "none": []}
        for k in range(2 * starts):
            mode = "bwrap" if k % 2 == 0 else "none"
            referee = Referee(game, k, [manifest, None], sandbox=mode, game_id=f"start-{k}")
            try:
                t0 = time.perf_counter()
                referee.launch()
                referee.handshake()
                times[mode].append((time.perf_counter() - t0) * 1000)
            finally:
                referee.kill_all()
                referee.close()
        sandboxed, bare = _median(times["bwrap"]), _median(times["none"])
        figures["bots"][manifest.name] = {
            "sandboxed_median_ms": round(sandboxed, 1),
            "unsandboxed_median_ms": round(bare, 1),
            "ratio": round(sandboxed / bare, 2),
        }
    return figures


#: The fields of :func:`bench_fields`: bots in the round-robin.
FIELDS = (4, 8, 16)


#: How often :func:`bench_fields` says how far a field has got, at most (seconds).
PROGRESS_EVERY_S = 10.0


class FieldProgress:
    """How far a field of :func:`bench_fields` has got, a line to ``say`` at most every
    :data:`PROGRESS_EVERY_S` while its games are played: the benchmark takes minutes."""

    def __init__(self, say: Callable[[str], None], label: str, games: int) -> None:
        self.say, self.label, self.games = say, label, games
        self.last = time.monotonic()
        self.done = 0

    def __call__(self, snapshot: Any) -> None:
        now = time.monotonic()
        if snapshot.games_done != self.done and now - self.last >= PROGRESS_EVERY_S:
            self.say(f"{self.label}: {snapshot.games_done}/{self.games} games")
            self.last, self.done = now, snapshot.games_done


def bench_fields(games: int, seed: int, fields: tuple[int, ...] = FIELDS,
                 sandbox: str = "bwrap", concurrency: int = 2,
                 cluster: Callable[[Path, int], AbstractContextManager[tuple[Any, int]]]
                 | None = None, say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Round-robins of ``fields`` random bots (copies of the example random-py under names of
    their own) at 4-player tables, ``games`` games each (a balanced subset of the schedule),
    one after the other at ``concurrency``, with bot processes kept as by default.

    Per field: games per minute while games were played (from the first game's start to the
    last one's end, by the journal: the start check of every bot before the first game is
    left out, as it grows with the field and not with the games), and the bot processes the
    games started (a kept process writes one log across its games, so the logs are counted).
    And the 16-bot ÷ 8-bot games per minute, or of whichever two fields are largest; and how
    many bots a worker keeps (sized to the memory available now).

    With ``cluster`` (:func:`arena.bench.cluster.local_cluster`), the same fields again on a
    local Dask cluster started for it (a scheduler and ``concurrency`` ``arena worker``
    processes of one slot each): the same figures under ``cluster_fields``
    (the bot processes counted from the logs the workers send home) and ``cluster_ratio``, and
    how many bots a slot keeps there, as the workers said.

    ``say`` is given progress lines as the fields are played (:class:`FieldProgress`), and a
    line with each field's figures as it ends.
    """
    import tempfile

    from arena.runner.play.affinity import available_memory, keep_for_memory

    figures: dict[str, Any] = {
        "games": games, "players": 4, "concurrency": concurrency, "sandbox": sandbox,
        "kept_per_worker": keep_for_memory(available_memory(), concurrency), "fields": {},
    }
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        base = Path(tmp)
        for n in fields:
            figures["fields"][str(n)] = _play_field(base / f"field-{n}", n, games, seed,
                                                    concurrency, sandbox, say=say)
        if cluster is not None:
            with cluster(base / "cluster", concurrency) as (on, kept):
                figures["cluster_kept_per_slot"] = kept
                figures["cluster_fields"] = {
                    str(n): _play_field(base / f"cluster-field-{n}", n, games, seed,
                                        concurrency, sandbox, on, say)
                    for n in fields}
    big = sorted(fields)[-2:]
    if len(big) == 2:
        figures["ratio_fields"] = big
        for where, ratio in (("fields", "ratio"), ("cluster_fields", "cluster_ratio")):
            if where in figures:
                a, b = (figures[where][str(k)]["games_per_minute"] for k in big)
                figures[ratio] = round(b / a, 2)
    return figures


def _play_field(folder: Path, n: int, games: int, seed: int, concurrency: int, sandbox: str,
                cluster: Any = None, say: Callable[[str], None] | None = None
                ) -> dict[str, Any]:
    """One field of :func:`bench_fields`, played locally or on ``cluster``
    (:class:`arena.runner.cluster.executor.Cluster`): its games, games per minute, bot processes;
    progress to ``say``."""
    import math
    import shutil
    import sqlite3

    from arena.runner.cluster.executor import executor_factory
    from arena.runner.play.config import parse_config
    from arena.runner.play.journal import JOURNAL
    from arena.runner.play.ring import RunOptions
    from arena.runner.play.schedule.shape import schedule_size
    from arena.runner.play.tournament import Tournament

    example = Path(__file__).resolve().parents[2] / "bots" / "examples" / "random-py"
    bots = []
    for k in range(n):
        bot = folder / "bots" / f"random-{k:02d}"
        shutil.copytree(example, bot)
        toml = (bot / "bot.toml").read_text()
        (bot / "bot.toml").write_text(toml.replace('"random-py"', f'"random-{k:02d}"'))
        bots.append({"path": str(bot)})
    per_round = schedule_size("round-robin", n, 0, 4, 1, True)
    data = {
        "name": f"bench-fields-{n}", "game": "stoneage", "format": "round-robin",
        "players": 4, "rounds": math.ceil(games / per_round), "max_games": games,
        "seed": seed, "concurrency": concurrency, "output": str(folder / "out"),
        "bots": bots, "sandbox": sandbox,
    }
    config = parse_config(data, folder / "bench.toml")
    factory = executor_factory(cluster, config.bots) if cluster is not None else None
    label = f"{'cluster, ' if cluster is not None else ''}{n} bots"
    if say is not None:
        say(f"{label}: starting each bot once, then {games} games")
    progress = FieldProgress(say, label, games) if say is not None else None
    result = Tournament(config, RunOptions(factory, on_snapshot=progress)).run()
    db = sqlite3.connect(folder / "out" / JOURNAL)
    try:
        first, last = db.execute(
            "SELECT MIN(finished_at - duration_s), MAX(finished_at) FROM results"
        ).fetchone()
    finally:
        db.close()
    # A log per process the games started: a kept one's spans its games (a cluster's is in
    # a folder of its worker's slot); the bots' start check and builds log apart.
    logs = folder / "out" / "logs"
    apart = {"start-check", "build"}
    started = [p for p in logs.rglob("*.log") if not apart & set(p.relative_to(logs).parts)]
    figures = {
        "games": result.games_done,
        "games_per_minute": round(result.games_done / (last - first) * 60, 1),
        "bot_processes": len(started),
    }
    if say is not None:
        say(f"{label}: {figures['games']} games, {figures['games_per_minute']:,.1f} a minute, "
            f"{figures['bot_processes']} bot processes started")
    return figures
