"""Seed derivation: every seed Arena hands out comes from here.

A tournament's master seed gives each game its seed, and a game's seed gives everything that
game needs beyond its rules engine's own chance: the seed a bot may use for its randomness and
the generator of the fallback policy that plays a failed bot's seat. The runner's own seeds are
:func:`derive_seed` of the parent seed and a label naming the use, so no two uses share a
stream.

What a bot is given to seed itself (``bot_seed`` of ``game_start``, ``ARENA_SEED``) is different:
bots are untrusted, and master seeds are often small numbers anyone can guess, so an unkeyed
function of the game seed would let a bot try game seeds until one gives its ``bot_seed``, and
then know the deck, the building piles and every die. :func:`bot_seed` is therefore HMAC-SHA256
under a secret **seed key** that never reaches a bot: without the key a bot seed is a random
looking number that says nothing about the game seed, and with the same key the same game seed
and seat always give the same bot seed, so games still replay exactly.

Where keys come from: a tournament's key follows from its master seed
(:func:`tournament_key`), so the master seed alone decides every game, bots' seeds included,
on any machine: a seed in the tournament file is public, and makes the tournament
reproducible by anyone; a tournament that draws its master seed in secret has a secret key
with it, until it publishes the seed at its end. The journal keeps the key it was made with
(one made before keys followed from seeds keeps its random key, and resumes with it). A
league, which never ends and publishes nothing, draws its key at random. Single games
(``arena play``, ``arena check-bot``, and :func:`arena.runner.game.referee.play_game` without a
key) use the user's key file, :func:`user_key_path`, created on first use.

The game seed must stay secret as well: whoever knows it can deal the game. A seed the user
did not choose is therefore never a default anyone could guess (0, 1) but
:func:`draw_secret_seed`, and a single game is named for the bots by :func:`game_label`, not by
its seed.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import random
import secrets
import tempfile
from hashlib import blake2b
from pathlib import Path

#: Length of a seed key in bytes (HMAC-SHA256 gains nothing from a longer one).
KEY_BYTES = 32
#: Environment variable naming a key file to use instead of the user's default one.
KEY_FILE_ENV = "ARENA_SEED_KEY_FILE"


class SeedKeyError(ValueError):
    """A seed key (or the file holding one) is not usable."""


def _label(master: int, parts: tuple[object, ...]) -> bytes:
    return "/".join([str(master), *map(str, parts)]).encode()


def _seed_of(digest: bytes) -> int:
    """A seed in ``0..2**63-1`` from the first 8 bytes of a digest."""
    return int.from_bytes(digest[:8], "big") >> 1


def derive_seed(master: int, *parts: object) -> int:
    """A seed derived from ``master`` and a key (``parts``, joined with ``/``): a pure function,
    stable across runs and platforms, in ``0..2**63-1``. Anyone who knows ``master`` can compute
    it: never hand one to a bot (see :func:`bot_seed`)."""
    return _seed_of(blake2b(_label(master, parts), digest_size=8).digest())


def new_seed_key() -> bytes:
    """A fresh secret seed key from the operating system's cryptographic generator."""
    return secrets.token_bytes(KEY_BYTES)


def tournament_key(master: int) -> bytes:
    """The key of the bots' seeds in a tournament of master seed ``master``: a pure function
    of it, as secret as the master seed is. Anyone who knows the seed computes the key, which
    is the point: a tournament is then replayed, bot seeds and all, from its seed alone."""
    return blake2b(_label(master, ("seed-key",)), digest_size=KEY_BYTES,
                   person=b"arena-seed-key").digest()


def draw_secret_seed() -> int:
    """A game or master seed no one can guess: 63 bits from the operating system's
    cryptographic generator. A bot that tries seeds against the cards it sees finds small
    ones in seconds, and this one never."""
    return secrets.randbits(63)


def check_seed_key(key: bytes) -> bytes:
    """``key`` itself if it is a usable seed key; SeedKeyError if not."""
    if not isinstance(key, bytes) or len(key) != KEY_BYTES:
        raise SeedKeyError(f"a seed key is {KEY_BYTES} bytes")
    return key


def keyed_seed(key: bytes, master: int, *parts: object) -> int:
    """Like :func:`derive_seed`, but keyed: HMAC-SHA256 under ``key`` of ``master`` and
    ``parts``, in ``0..2**63-1``. Without ``key`` it cannot be computed, and no number of them
    reveals ``master`` or ``key``."""
    return _seed_of(hmac.new(check_seed_key(key), _label(master, parts), hashlib.sha256).digest())


def bot_seed(key: bytes, game_seed: int, seat: int) -> int:
    """The seed a bot may use for its own randomness in a game (``bot_seed`` of ``game_start``
    and ``ARENA_SEED`` of a freshly started bot): keyed, so a bot cannot work back from it to
    the game seed; the same for the same key, game seed and seat."""
    return keyed_seed(key, game_seed, "bot", seat)


def game_label(key: bytes, game_seed: int) -> str:
    """What a single game (``arena play``, ``arena check-bot``) is named by in its bots'
    messages and its logs: 12 hex digits keyed like a bot seed, so the same key and seed give
    the same name and the name says nothing of the seed (a game named by its seed told every
    bot the whole game)."""
    return f"{keyed_seed(key, game_seed, 'game-label'):016x}"[:12]


def fallback_rng(game_seed: int, seat: int) -> random.Random:
    """The private generator of the fallback policy for one seat of a game (a failed bot's
    seat, or a built-in player).

    Deliberately unkeyed: a game of built-in players (``arena play`` without bots, the engine
    benchmark) is then the same game for everyone with the same seed, and the fallback's moves,
    which the other bots see, can at most confirm a guessed game seed, which the cards on the
    table already do (see the note in docs/protocol.md)."""
    return random.Random(derive_seed(game_seed, "fallback", seat))


# ---------------------------------------------------------------------------- key files
def seed_key_to_text(key: bytes) -> str:
    """The text form of a key (in key files and journals): lowercase hex."""
    return check_seed_key(key).hex()


def seed_key_from_text(text: str, where: object) -> bytes:
    """Parse the text form of a key; SeedKeyError naming ``where`` if it is not one."""
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise SeedKeyError(f"{where}: not a seed key ({2 * KEY_BYTES} hex digits expected)")
    return key


def user_key_path() -> Path:
    """The key file of single games: ``$ARENA_SEED_KEY_FILE`` if set, else ``arena/seed-key``
    under ``$XDG_DATA_HOME`` (by default ``~/.local/share``)."""
    named = configured_key_file()
    if named is not None:
        return named
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "arena" / "seed-key"


def read_key_file(path: Path) -> bytes:
    """The key in ``path``; SeedKeyError if it cannot be read or holds no key."""
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise SeedKeyError(f"{path}: cannot read the seed key: {exc}") from None
    return seed_key_from_text(text, path)


def load_or_create_key_file(path: Path) -> bytes:
    """The key in ``path``, made (readable by this user alone) if the file does not exist.

    The new file appears complete or not at all (written aside, then hard-linked into place,
    which fails if another process got there first), so concurrent first uses agree on one
    key and none reads a half-written file."""
    if path.exists():
        return read_key_file(path)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".seed-key-", dir=path.parent)  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(seed_key_to_text(new_seed_key()) + "\n")
                f.flush()
                os.fsync(f.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    except OSError as exc:
        raise SeedKeyError(f"{path}: cannot create the seed key file: {exc}") from None
    return read_key_file(path)


def user_seed_key() -> bytes:
    """The seed key of single games: the one in :func:`user_key_path`, created on first use."""
    return load_or_create_key_file(user_key_path())


def configured_key_file() -> Path | None:
    """The key file named by ``$ARENA_SEED_KEY_FILE``, or None if it is not set."""
    named = os.environ.get(KEY_FILE_ENV)
    return Path(named).expanduser() if named else None
