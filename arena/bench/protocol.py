"""The protocol's benchmark: the referee's round trip against a bare ZeroMQ ping-pong."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

from arena.engine import Game
from arena.runner.game.manifest import BotManifest

ECHO_PEER = r"""
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
    return pinned(lambda: _bench_protocol_pinned(game, games, seed, sandbox))


def reference_bot(folder: Path) -> BotManifest:
    """The manifest of the random bot shipped in the package (``arena.protocol.reference_bot``),
    written in ``folder``: the benchmarks' bot, which needs nothing outside the package."""
    (folder / "bot.toml").write_text(
        'name = "reference-py"\nversion = "1.0"\nlanguage = "python"\n'
        'command = ["{python}", "-m", "arena.protocol.reference_bot"]\n', encoding="utf-8")
    return BotManifest.load(folder)


def pinned(measure: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``measure()`` with this process (and so every process it starts) on one core; its
    figures with ``pinned_core`` added."""
    original = os.sched_getaffinity(0)
    core = min(original)
    os.sched_setaffinity(0, {core})
    try:
        figures = measure()
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
    from arena.runner.game.record import BY_BOT
    from arena.runner.game.referee import play_game

    reply_size = len(encode({"type": "action", "request_id": 1234, "index": 3}))
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    port = sock.bind_to_random_port("tcp://127.0.0.1")
    peer = subprocess.Popen(
        [sys.executable, "-c", ECHO_PEER, f"tcp://127.0.0.1:{port}", str(reply_size)],
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
            bot = reference_bot(Path(tmp))
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

    ref, bare = median(referee_ms), median(bare_ms)
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
