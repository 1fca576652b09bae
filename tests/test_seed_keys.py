"""Keyed bot seeds: what a bot is given to seed itself is a keyed one-way function of the game
seed, under a key that stays with the runner (the tournament's journal, or the user's key file
for single games), and the same key replays the same game."""

from __future__ import annotations

import io
import json
import os
import re
import stat
import threading
from pathlib import Path
from typing import Any

import msgpack
import pytest

from arena.engine import get_game
from arena.protocol.messages import REFEREE_MESSAGES, decode
from arena.protocol.reference_bot import RandomBot
from arena.protocol.transport import MemoryPeer, MemoryTransport
from arena.results import Pairing
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import BotManifest
from arena.runner.game.referee import play_game
from arena.runner.game.stable import Stable
from arena.runner.play.journal import SEED_KEY, Journal, JournalError
from arena.seeds import (
    KEY_BYTES,
    KEY_FILE_ENV,
    SeedKeyError,
    bot_seed,
    derive_seed,
    game_label,
    load_or_create_key_file,
    new_seed_key,
    seed_key_to_text,
    tournament_key,
    user_key_path,
    user_seed_key,
)

ROOT = Path(__file__).resolve().parent.parent
GAME = get_game("stoneage")
FAST = TimeControl(handshake_ms=10_000, decision_ms=1_000, bank_ms=30_000)
KEY_A = bytes(range(32))
KEY_B = bytes(range(1, 33))


# ---------------------------------------------------------------------------- the function
def test_the_same_key_game_seed_and_seat_give_the_same_bot_seed() -> None:
    assert bot_seed(KEY_A, 42, 1) == bot_seed(bytes(KEY_A), 42, 1)
    assert 0 <= bot_seed(KEY_A, 42, 1) < 2**63


def test_another_key_seat_or_game_seed_gives_another_bot_seed() -> None:
    seeds = {bot_seed(key, game_seed, seat) for key in (KEY_A, KEY_B)
             for game_seed in range(50) for seat in range(4)}
    assert len(seeds) == 2 * 50 * 4


def test_a_bot_seed_is_none_of_the_unkeyed_derivations_a_bot_could_try() -> None:
    """A bot that guesses small game seeds and tries every unkeyed derivation it could know
    (the old ``seed*10 + seat``, the old ``derive_seed(seed, "bot", seat)``, the game seed
    itself) finds none of them equal to what it was given."""
    unkeyed = set()
    for game_seed in range(2000):
        for seat in range(4):
            unkeyed |= {game_seed * 10 + seat, derive_seed(game_seed, "bot", seat), game_seed,
                        derive_seed(game_seed, "fallback", seat)}
    given = {bot_seed(KEY_A, game_seed, seat) for game_seed in range(2000) for seat in range(4)}
    assert not given & unkeyed


def test_a_key_must_be_32_bytes() -> None:
    for bad in (b"", b"short", bytes(64)):
        with pytest.raises(SeedKeyError):
            bot_seed(bad, 1, 0)


# ---------------------------------------------------------------------------- key files
def test_the_user_key_file_is_made_once_readable_by_its_owner_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = user_key_path()
    assert path == tmp_path / "data" / "arena" / "seed-key"
    first = user_seed_key()
    assert len(first) == KEY_BYTES and path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert user_seed_key() == first, "the same key on every later use"
    assert list(path.parent.iterdir()) == [path], "no temporary file left behind"


def test_the_environment_can_name_the_key_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "elsewhere" / "key"
    path.parent.mkdir()
    path.write_text(seed_key_to_text(KEY_B) + "\n", encoding="ascii")
    monkeypatch.setenv(KEY_FILE_ENV, str(path))
    assert user_key_path() == path and user_seed_key() == KEY_B


def test_concurrent_first_uses_agree_on_one_key(tmp_path: Path) -> None:
    path = tmp_path / "arena" / "seed-key"
    got: list[bytes] = []
    threads = [threading.Thread(target=lambda: got.append(load_or_create_key_file(path)))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and len(set(got)) == 1


def test_a_damaged_key_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "seed-key"
    path.write_text("not a key\n", encoding="ascii")
    with pytest.raises(SeedKeyError, match="not a seed key"):
        load_or_create_key_file(path)


def test_arena_play_names_a_damaged_key_file_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    path = tmp_path / "seed-key"
    path.write_text("0123\n", encoding="ascii")
    monkeypatch.setenv(KEY_FILE_ENV, str(path))
    r = CliRunner().invoke(app, ["play", "stoneage", "-n", "2", "--seed", "1"])
    assert r.exit_code == 2 and "not a seed key" in r.output and "Traceback" not in r.output


def test_arena_play_without_a_seed_draws_a_secret_one_that_replays_the_game() -> None:
    """Each unseeded game its own seed, 63 random bits, said at the end (and in --json), and
    --seed with it plays the same game again; the game's name tells nothing of it."""
    from typer.testing import CliRunner

    from arena.cli.main import app

    runner = CliRunner()
    drawn = [json.loads(runner.invoke(app, ["play", "stoneage", "-n", "2", "--json"]).output)
             for _ in range(2)]
    seeds = [d["seed"] for d in drawn]
    assert seeds[0] != seeds[1] and min(seeds) > 2**32  # below that once in 2**31 draws
    again = runner.invoke(app, ["play", "stoneage", "-n", "2", "--seed", str(seeds[0]),
                                "--json"])
    assert json.loads(again.output) == drawn[0]
    assert str(seeds[0]) not in drawn[0]["game_id"]
    table = runner.invoke(app, ["play", "stoneage", "-n", "2"]).output
    said = re.search(r"^seed (\d+) was drawn at random: --seed \1 plays this game again$",
                     table, re.MULTILINE)
    assert said, table
    assert "was drawn" not in runner.invoke(app, ["play", "stoneage", "-n", "2", "--seed",
                                                  said.group(1)]).output


def test_a_games_label_is_keyed_the_same_for_the_same_key_and_seed_and_none_other() -> None:
    assert game_label(KEY_A, 42) == game_label(bytes(KEY_A), 42)
    labels = {game_label(key, seed) for key in (KEY_A, KEY_B) for seed in range(500)}
    assert len(labels) == 1000  # another key, another label: no key, no way back to the seed
    assert all(re.fullmatch(r"[0-9a-f]{12}", label) for label in labels)


# ---------------------------------------------------------------------------- journals
def test_a_journal_makes_its_key_once_and_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    journal = Journal(path)
    journal.bind({"name": "t"}, "one table")
    key = journal.seed_key()
    assert len(key) == KEY_BYTES and journal.seed_key() == key
    journal.close()
    again = Journal(path)
    assert again.bind({"name": "t"}, "one table") is True
    assert again.seed_key() == key and again.seed_key(key) == key
    with pytest.raises(JournalError, match="another seed key"):
        again.seed_key(new_seed_key())
    again.close()


def test_the_key_is_not_part_of_the_journals_identity(tmp_path: Path) -> None:
    """A journal written before keys existed (no key in it) binds as the same tournament and
    gets a key on first use; a journal's key never makes it another tournament."""
    path = tmp_path / "journal.sqlite"
    old = Journal(path)
    old.bind({"name": "t", "seed": 1}, "one table")
    assert SEED_KEY not in old.meta()
    old.close()
    journal = Journal(path)
    assert journal.bind({"name": "t", "seed": 1}, "one table") is True
    key = journal.seed_key(KEY_B)
    assert key == KEY_B and journal.meta()[SEED_KEY] == KEY_B.hex()
    assert journal.bind({"name": "t", "seed": 1}, "one table") is True
    journal.close()


def two_bot_file(tmp_path: Path, out: str, seed: int | None) -> Path:
    """A tournament file of random-py and greedy-py, ``out.toml`` writing to ``out``."""
    bots = ROOT / "bots" / "examples"
    file = tmp_path / f"{out}.toml"
    file.write_text(
        'name = "keyed"\ngame = "stoneage"\nformat = "round-robin"\nplayers = 2\nrounds = 1\n'
        + ("" if seed is None else f"seed = {seed}\n") + f'output = "{tmp_path / out}"\n'
        f'[[bots]]\npath = "{bots / "random-py"}"\n[[bots]]\npath = "{bots / "greedy-py"}"\n',
        encoding="utf-8")
    return file


def opened(tmp_path: Path, out: str, seed: int | None = None) -> Any:
    """The tournament of :func:`two_bot_file` as a run opens it, its folder unlocked again."""
    from arena.runner.play.config import load_config
    from arena.runner.play.tournament import Tournament

    tournament = Tournament(load_config(two_bot_file(tmp_path, out, seed)))
    tournament.lock.release()
    return tournament


PAIRING = Pairing("g1", 0, 0, 0, ("random-py", "greedy-py"), 5)


def test_a_tournaments_key_follows_from_its_master_seed_and_its_journal_keeps_the_key_it_has(
    tmp_path: Path,
) -> None:
    """The workers are handed the key the master seed gives, whatever the user's key file
    holds (the tests' is fixed), and so is a resumed run; a journal that holds another key (made
    before keys followed from seeds) resumes with its own."""
    first = opened(tmp_path, "out", seed=1)
    assert first.job(PAIRING).seed_key == tournament_key(1) != user_seed_key()
    assert first.journal.meta()[SEED_KEY] == tournament_key(1).hex()
    first.journal.set_meta(SEED_KEY, KEY_B.hex())  # as an older journal holds
    first.journal.close()
    resumed = opened(tmp_path, "out", seed=1)
    assert resumed.job(PAIRING).seed_key == KEY_B
    resumed.journal.close()


def test_a_tournament_that_played_nothing_takes_its_files_new_seed_and_keeps_a_seed_drawn_then(
    tmp_path: Path,
) -> None:
    """Until a game is played the file may change, its seed too: the key follows the new seed,
    and a seed drawn when the file drops its own is kept like any other."""
    opened(tmp_path, "out", seed=1).journal.close()
    changed = opened(tmp_path, "out", seed=2)
    assert changed.journal.rebound == ["seed"]
    assert changed.job(PAIRING).seed_key == tournament_key(2)
    changed.journal.close()
    unseeded = opened(tmp_path, "out")
    drawn = unseeded.master_seed
    assert unseeded.job(PAIRING).seed_key == tournament_key(drawn)
    unseeded.journal.close()
    again = opened(tmp_path, "out")
    assert again.master_seed == drawn and again.job(PAIRING).seed_key == tournament_key(drawn)
    again.journal.close()


def test_a_tournaments_key_is_the_same_for_the_same_master_seed_and_another_for_another() -> None:
    assert tournament_key(7) == tournament_key(7) and len(tournament_key(7)) == KEY_BYTES
    assert len({tournament_key(seed) for seed in range(1000)}) == 1000


def test_a_tournament_without_a_seed_draws_a_secret_one_and_keeps_it(tmp_path: Path) -> None:
    """A seed in the file is public (anyone who knows or guesses it can compute every deck and
    die). Without one, each tournament draws its own from the system's generator and keeps it
    in its journal: a resume plays the same games; another tournament other games."""
    from arena.runner.play.journal import SECRET_SEED

    def game_seeds(t: Any) -> list[int]:
        seeds = [p.seed for p in t.scheduler.next_round([]) or []]
        t.journal.close()
        return seeds

    first = opened(tmp_path, "a")
    drawn = first.master_seed
    assert first.journal.meta()[SECRET_SEED] == drawn and drawn >= 1 << 20
    seeds = game_seeds(first)
    resumed = opened(tmp_path, "a")
    assert resumed.master_seed == drawn and game_seeds(resumed) == seeds
    other = opened(tmp_path, "b")
    assert other.master_seed != drawn and not set(game_seeds(other)) & set(seeds)
    # A seed in the file is used as it is, and nothing is drawn.
    public = opened(tmp_path, "c", seed=7)
    assert public.master_seed == 7 and SECRET_SEED not in public.journal.meta()
    public.journal.close()


# ---------------------------------------------------------------------------- what bots see
SPY_BOT = """\
import json, os, sys
import msgpack
from arena.protocol.client import run
from arena.protocol.reference_bot import RandomBot

class Spy(RandomBot):
    def on_game_start(self, info):
        with open(os.environ["SPY_FILE"], "ab") as f:
            f.write(msgpack.packb({"info": info, "env": dict(os.environ)}))
        super().on_game_start(info)

run(Spy("spy", "1.0"))
"""


def spy_bot(folder: Path) -> BotManifest:
    folder.mkdir()
    (folder / "bot.py").write_text(SPY_BOT, encoding="utf-8")
    (folder / "bot.toml").write_text('name = "spy"\nversion = "1.0"\nlanguage = "python"\n'
                                     'command = ["{python}", "bot.py"]\n', encoding="utf-8")
    return BotManifest.load(folder)


def assert_no_trace_of(key: bytes, blob: bytes) -> None:
    assert key not in blob
    for text in (key.hex(), key.hex().upper()):
        assert text.encode() not in blob


def test_a_real_bot_gets_the_keyed_seed_and_nothing_of_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy_file = tmp_path / "spy.msgpack"
    monkeypatch.setenv("SPY_FILE", str(spy_file))
    key = new_seed_key()
    # Unsandboxed, where a bot inherits the most (the runner's environment): even then,
    # nothing of the key. (A sandboxed spy could not write its report out.)
    record = play_game(GAME, 7, [None, spy_bot(tmp_path / "spy")], FAST, seed_key=key,
                       sandbox="none")
    assert record.terminations[1]["reason"] == "ok", record.terminations
    blob = spy_file.read_bytes()
    seen = list(msgpack.Unpacker(io.BytesIO(blob), raw=False))
    assert len(seen) == 1
    info, env = seen[0]["info"], seen[0]["env"]
    assert info["bot_seed"] == bot_seed(key, 7, 1)
    assert env["ARENA_SEED"] == str(bot_seed(key, 7, 1))
    assert info["bot_seed"] != derive_seed(7, "bot", 1)
    # The runner's own settings (the key file's path among them) are not passed on: a bot
    # sees only the ARENA_* variables the referee gives it.
    assert os.environ.get(KEY_FILE_ENV)
    assert {k for k in env if k.startswith("ARENA_")} == {
        "ARENA_ENDPOINT", "ARENA_TOKEN", "ARENA_PROTOCOL", "ARENA_SEED"}
    assert_no_trace_of(key, blob)
    # Nor is it in the record the game leaves behind.
    assert_no_trace_of(key, json.dumps(record.to_dict()).encode())


class _Recorder:
    """An in-process bot that keeps every frame the referee sends it."""

    def __init__(self, transport: MemoryTransport, env: dict[str, str],
                 frames: list[bytes]) -> None:
        self.bot = RandomBot("random-py", "1.0")
        self.env, self.frames = env, frames
        self.pid = self.pgid = -1
        self.returncode: int | None = None
        self.peer = transport.connect(respond=self.on_frame)
        self.peer.send_message({"type": "hello", "token": env["ARENA_TOKEN"],
                                "name": "random-py", "version": "1.0"})

    def on_frame(self, peer: MemoryPeer, frame: bytes) -> None:
        self.frames.append(frame)
        message: dict[str, Any] = decode(frame, REFEREE_MESSAGES)
        if message["type"] == "request":
            index = self.bot.choose(message["observation"], message["legal_actions"], 0)
            peer.send_message({"type": "action", "request_id": message["request_id"],
                               "index": index})
        elif message["type"] == "ping":
            peer.send_message({"type": "pong", "nonce": message["nonce"]})
        elif message["type"] == "game_start":
            self.bot.on_game_start(message)
        elif message["type"] == "shutdown":
            self.returncode = 0

    def alive(self) -> bool:
        return self.returncode is None

    def describe_exit(self) -> str:
        return "exited"

    def cpu_seconds(self) -> float | None:
        return 0.0

    def kill(self) -> None:
        self.returncode = -9 if self.returncode is None else self.returncode

    def stop(self, grace_s: float) -> None:
        self.kill()


def test_no_message_of_a_whole_game_carries_the_key() -> None:
    transport = MemoryTransport()
    frames: list[bytes] = []
    envs: list[dict[str, str]] = []

    def launch(manifest: BotManifest, env: dict[str, str], log: Any) -> _Recorder:
        envs.append(env)
        return _Recorder(transport, env, frames)

    stable = Stable(keep=0, transport=transport, launch=launch)
    manifest = BotManifest.load(ROOT / "bots" / "examples" / "random-py")
    key = new_seed_key()
    try:
        record = play_game(GAME, 3, [manifest, manifest, None], FAST, stable=stable,
                           seed_key=key)
    finally:
        stable.close()
    assert [t["reason"] for t in record.terminations] == ["ok", "ok", "ok"]
    assert len(frames) > 50 and len(envs) == 2
    assert_no_trace_of(key, b"".join(frames))
    assert_no_trace_of(key, json.dumps(envs).encode())
    starts = [decode(f, REFEREE_MESSAGES) for f in frames]
    seeds = sorted(m["bot_seed"] for m in starts if m["type"] == "game_start")
    assert seeds == sorted(bot_seed(key, 3, s) for s in (0, 1))
    assert os.environ.get(KEY_FILE_ENV), "the tests run with a fixed key file (conftest)"
