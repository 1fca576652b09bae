"""The C example bot (``bots/examples/random-c``): built by its manifest's ``make`` with the
system's ``cc`` inside the sandbox, it plays whole games and passes check-bot; and its own
ZeroMQ client and msgpack reader, faced with a referee that sends it garbage, pass over every
bad frame and go on answering, exactly. Real processes, the real sandbox, real sockets; the
build cache is the test module's own folder."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import msgpack
import pytest
import zmq

from arena.engine import Game
from arena.engine.stoneage import STONE_AGE
from arena.protocol import messages
from arena.runner.game.build import built
from arena.runner.game.checkbot import check_bot
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.record import verify
from arena.runner.game.referee import play_game
from arena.runner.game.sandbox import sandbox_problem

PROBLEM = sandbox_problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")

RANDOM_C = Path(__file__).resolve().parent.parent / "bots" / "examples" / "random-c"
FAST = TimeControl(handshake_ms=10_000, decision_ms=2_000, bank_ms=60_000)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("cache")
        patch.setenv("XDG_CACHE_HOME", str(folder))
        yield folder


@pytest.fixture(scope="module")
def random_c(cache: Path, tmp_path_factory: pytest.TempPathFactory) -> BotManifest:
    """The bot, built once in the sandbox: ``make`` runs ``cc``, a link through
    /etc/alternatives, which the sandbox shows."""
    logs = tmp_path_factory.mktemp("build-logs")
    manifest = built(BotManifest.load(RANDOM_C), "bwrap", logs)
    assert "cc " in (logs / "build-random-c.log").read_text()
    return manifest


def test_the_c_bot_built_in_the_sandbox_plays_seeded_games_and_passes_check_bot(
    random_c: BotManifest, dicerace: Game, tmp_path: Path,
) -> None:
    assert os.access(random_c.folder / "random-c", os.X_OK)
    assert not (RANDOM_C / "random-c").exists()  # built in its copy only
    records = [play_game(STONE_AGE, 11, [random_c, None], FAST, log_dir=tmp_path / f"g{k}",
                         sandbox="bwrap") for k in range(2)]
    for record in records:
        assert [t["reason"] for t in record.terminations] == ["ok", "ok"]
        assert {d[3] for d in record.decisions if d[0] == 0} == {"bot"}
        assert verify(record).ok
    moves = [[(d[0], d[1], d[4]) for d in r.decisions] for r in records]  # less the times
    assert moves[0] == moves[1]  # seeded from bot_seed
    for sandbox in ("bwrap", "none"):  # over the unix socket, and over TCP
        checks = check_bot(RANDOM_C, dicerace, 1, FAST, tmp_path / sandbox, sandbox=sandbox)
        assert all(c.passed for c in checks), checks
        assert [c.name for c in checks][:2] == ["manifest", "build"]


#: Frames no referee sends, each passed over with a line in its log: not msgpack, a map cut
#: short, lengths far beyond the frame (an array of 2^32 - 1 items, a string of 4 GiB), nesting
#: 100,000 deep cut short, a key that is not a string, bytes after the map, a bare integer.
GARBAGE = [
    b"\xc1",
    msgpack.packb(messages.ping(5))[:-2],
    msgpack.packb({"type": "request", "legal_actions": None})[:-1] + b"\xdd\xff\xff\xff\xff",
    b"\x81\xa4type\xdb\xff\xff\xff\xff",
    b"\x82\xa4type\xa4ping\xa1x" + b"\x91" * 100_000,
    b"\x81\x01\xa4ping",
    msgpack.packb(messages.ping(6)) + b"\x00",
    b"\x2a",
]


def referee_sends(sock: zmq.Socket, peer: bytes, message: dict) -> dict:  # type: ignore[type-arg]
    """Send ``message`` to the bot and return its answer, decoded as strictly as the referee
    decodes every bot's."""
    sock.send_multipart([peer, msgpack.packb(message)])
    assert sock.poll(5000), f"no answer to {message['type']}"
    identity, frame = sock.recv_multipart()
    assert identity == peer
    return messages.decode(frame, messages.BOT_MESSAGES)


def test_the_c_bots_reader_passes_over_garbage_and_answers_exactly(
    random_c: BotManifest, tmp_path: Path,
) -> None:
    """A referee of the test's own over a unix socket: the bot's hello is a valid message,
    every bad frame (and a message of two frames) is passed over, and after them it still
    echoes a nonce and a request id of 64 bits exactly and picks a legal index."""
    context = zmq.Context()
    sock = context.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    endpoint = f"ipc://{tmp_path}/referee.sock"
    sock.bind(endpoint)
    bot = subprocess.Popen([str(random_c.folder / "random-c")], stderr=subprocess.PIPE,
                           env={"ARENA_ENDPOINT": endpoint, "ARENA_TOKEN": "t" * 32,
                                "ARENA_SEED": "7"}, start_new_session=True)
    try:
        assert sock.poll(5000), "no hello"
        peer, frame = sock.recv_multipart()
        hello = messages.decode(frame, messages.BOT_MESSAGES)
        assert (hello["type"], hello["token"], hello["name"]) == ("hello", "t" * 32, "random-c")
        for junk in GARBAGE:
            sock.send_multipart([peer, junk])
        # Nesting 100,000 deep, whole: read without recursion; a ping without a nonce.
        sock.send_multipart([peer, b"\x82\xa4type\xa4ping\xa1x" + b"\x91" * 100_000 + b"\xc0"])
        sock.send_multipart([peer, msgpack.packb(messages.ping(1)), b"a second frame"])
        pong = referee_sends(sock, peer, messages.ping(2**64 - 1))
        assert (pong["type"], pong["nonce"]) == ("pong", 2**64 - 1)
        request = messages.request("g", 2**63 + 1, {}, [{"a": i} for i in range(3)], 5, 5)
        action = referee_sends(sock, peer, request)
        assert action["request_id"] == 2**63 + 1 and 0 <= action["index"] < 3
        sock.send_multipart([peer, msgpack.packb(messages.shutdown("done"))])
        _, err = bot.communicate(timeout=5)
    finally:
        if bot.poll() is None:
            os.killpg(bot.pid, 9)
            bot.wait()
        sock.close()
        context.term()
    assert bot.returncode == 0, err
    log = err.decode()
    assert log.count("ignored a frame that is not one msgpack map") == len(GARBAGE), log
    assert "ignored a message of several frames" in log
    assert "ignored a message of type 'ping'" in log
