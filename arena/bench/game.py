"""The refereed game's benchmark: whole games of sandboxed random bots against the wire's floor.

``arena bench protocol`` compares one round trip; this compares a whole game. A refereed game
costs its decisions' round trips plus everything the referee does between them: building each
observation and legal-action list, encoding them, holding the clock, applying the move. The
floor is the same game's requests, encoded beforehand, sent to echo peers (one per seat, bare
pyzmq, no msgpack, no validation) one after the other: what the wire alone costs. The ratio
says how much the referee adds to the wire.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from arena.bench.protocol import ECHO_PEER, pinned, reference_bot
from arena.engine import Game


def bench_game(game: Game, players: int, games: int, seed: int,
               sandbox: str = "bwrap") -> dict[str, Any]:
    """``games`` refereed games of ``players`` reference bots (sandboxed unless ``sandbox`` is
    "none"), each followed by its floor: see the module's docstring. Pinned to one core, as
    ``arena bench protocol`` is, so that the figures do not swing with where the scheduler
    places the processes."""
    return pinned(lambda: _bench_game(game, players, games, seed, sandbox))


def _bench_game(game: Game, players: int, games: int, seed: int, sandbox: str) -> dict[str, Any]:
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
    peers = [subprocess.Popen(
        [sys.executable, "-c", ECHO_PEER, f"tcp://127.0.0.1:{port}", str(reply_size)],
        start_new_session=True) for _ in range(players)]
    played_s = floor_s = 0.0
    decisions = 0
    try:
        identities = []
        for _ in peers:
            if not sock.poll(10_000):
                raise RuntimeError("an echo peer did not connect")
            identities.append(sock.recv_multipart()[0])
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
            bot = reference_bot(Path(tmp))
            for g in range(games):  # a game, then its floor: both under the same load
                record = play_game(game, seed + g, [bot] * players, sandbox=sandbox)
                # The record's duration is the play alone (after launch and handshake), in
                # whole milliseconds: the floor below is timed the same way.
                played_s += record.duration_s
                state = game.new_state(players, seed=seed + g)
                payloads = []
                for k, (seat, index, _ms, by, _action) in enumerate(record.decisions):
                    if by == BY_BOT:
                        payloads.append((seat, encode(request(
                            record.game_id, k, state.observation(seat), state.legal_actions(),
                            120000, 5000))))
                    state.apply_index(index)
                decisions += len(payloads)
                t0 = time.perf_counter()
                for seat, payload in payloads:
                    sock.send_multipart([identities[seat], payload])
                    sock.recv_multipart()
                floor_s += time.perf_counter() - t0
        for identity in identities:
            sock.send_multipart([identity, b"stop"])
        for peer in peers:
            peer.wait(timeout=5)
    finally:
        for peer in peers:
            if peer.poll() is None:
                peer.kill()
                peer.wait()
        sock.close()
        ctx.term()
    return {
        "game": game.name,
        "players": players,
        "games": games,
        "sandbox": sandbox,
        "decisions": decisions,
        "refereed_ms_per_decision": round(played_s * 1000 / decisions, 4),
        "floor_ms_per_decision": round(floor_s * 1000 / decisions, 4),
        "ratio": round(played_s / floor_s, 2),
        "target_ratio": TARGET_RATIO,
    }


#: What the referee may cost at most: a refereed game within twice its bare round trips.
TARGET_RATIO = 2.0
