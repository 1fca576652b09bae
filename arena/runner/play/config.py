"""Tournament configuration: one TOML file, every field validated with a message that names it.

    name = "example"                 # letters, digits, '.', '_', '-'
    game = "stoneage"                # or, for a game with options, a [game] table (below)
    format = "round-robin"           # round-robin | swiss | gauntlet
    players = 4                      # players per table, 2..4
    rounds = 1                       # round-robin/gauntlet: repetitions; swiss: rounds
    max_games = 200                  # optional, not swiss: a balanced subset of at most this many
    seat_rotation = true             # play every seat rotation of each table (same seed);
                                     # default: true, except swiss (one game per table, seats
                                     # assigned to even out each bot's seat history)
    seed = 1                         # optional master seed, public: it decides every game
                                     # (schedule, dice, bots' seeds), here or anywhere;
                                     # without it, a secret one is drawn and published when
                                     # a run ends (a known or guessable seed tells a bot
                                     # every deck and die)
    concurrency = 2                  # optional: games at once (default: the number of cores)
    output = "leaderboards/example"  # optional (default: leaderboards/<name> beside this file)
    void_retries = 2                 # optional: retries of a void game before the run stops
    reuse_bots = true                # optional: a worker keeps bot processes for its next
                                     # games (false: a fresh process for every game)
    log_cap_mb = 10                  # optional: the most of a bot's output kept in its log
                                     # per game, MiB (0..10240; the rest is dropped)
    sandbox = "bwrap"                # optional: every bot runs in a bubblewrap sandbox
                                     # (arena.runner.game.sandbox); "none" only for trusted bots
    candidates = ["greedy-py"]       # gauntlet only: the bots the field plays against
    needs_within = "bots"            # optional: how far the bots' ``needs`` may reach (default:
                                     # the folder holding each bot's folder; see
                                     # arena.runner.game.needs)

    [game]                           # instead of game = "...": the game and its options
    name = "dicerace"                # (`arena games` lists them; the others keep their
    options = { hand = "3" }         # defaults; values are strings, 3 stands for "3")

    [time_control]                   # optional; any of these, in milliseconds
    decision_ms = 5000

    [executor]                       # optional: where the games run (not part of what the
    kind = "dask"                    # tournament is: a run may resume on another); "local"
    address = "tcp://10.0.0.5:8786"  # (the default: processes on this machine) or "dask": the
    ship_bots = true                 # workers of a Dask cluster (arena.runner.cluster.executor), at
    wait_for_workers_s = 60          # this scheduler; ship_bots = false for a file system
                                     # the workers share; how long to wait for a first worker
    security = { ca = "ca.pem", cert = "me.pem", key = "me.key" }
                                     # optional: mutual TLS with the scheduler (tls://, which
                                     # dask:// then means): the cluster's CA, this machine's
                                     # certificate and key (PEM files)

    [stop]                           # optional: stop once enough is known
    sprt = { elo0 = 0, elo1 = 10 }   # (arena.runner.play.stop): an SPRT for two players, or
                                     # intervals = { confidence = 0.99, min_games = 40 }
                                     # (any table size); the schedule's size is the cap

    [[bots]]
    path = "../bots/examples/random-py"   # a bot folder, relative to this file

Relative paths in the file are relative to the file's own folder, the default output's too.
"""

from __future__ import annotations

import os
import re
import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import get_game
from arena.engine.api import Game
from arena.runner.game.botlog import DEFAULT_LOG_CAP, MAX_LOG_CAP_MB, MIB
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import NAME_RULE, BotManifest, ManifestError, read_toml
from arena.runner.game.needs import NeedsRule
from arena.runner.game.sandbox import DEFAULT_MODE
from arena.runner.game.sandbox import MODES as SANDBOX_MODES
from arena.runner.play.schedule.shape import ScheduleError, ScheduleShape
from arena.runner.play.settings import (
    ConfigError,
    Fail,
    Overrides,
    beside,
    choice,
    field_failure,
    flag,
    parse_game,
    parse_time_control,
    refuse_unknown,
    text,
    whole_number,
)
from arena.runner.play.stop import StopRule, parse_stop

_KNOWN = {
    "name", "game", "format", "players", "rounds", "max_games", "seat_rotation", "seed",
    "concurrency", "output", "void_retries", "candidates", "time_control", "bots",
    "reuse_bots", "log_cap_mb", "sandbox", "executor", "stop", "needs_within",
}
EXECUTOR_KINDS = ("local", "dask")
_EXECUTOR_KNOWN = {"kind", "address", "ship_bots", "wait_for_workers_s", "security"}
_SECURITY_KNOWN = ("ca", "cert", "key")
#: A host name, an IPv4 address or a bracketed IPv6 address.
_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)$")


@dataclass(frozen=True)
class TLSFiles:
    """Mutual TLS with a Dask scheduler: the cluster's CA certificate, and this machine's
    certificate (signed by that CA) and its private key; absolute paths of PEM files."""

    ca: str
    cert: str
    key: str


@dataclass(frozen=True)
class ExecutorSettings:
    """Where the games run: ``local``, worker processes on this machine, or ``dask``, the
    workers of a Dask cluster (:mod:`arena.runner.cluster.executor`). Not part of the tournament's
    identity: a run may resume on another executor."""

    kind: str = "local"
    address: str = ""  #: dask: the scheduler, ``tcp://HOST:PORT`` or ``tls://HOST:PORT``
    #: dask: send each bot's files to the workers (False: the workers see the same paths)
    ship_bots: bool = True
    wait_for_workers_s: int = 60  #: dask: how long a run waits for a first worker
    #: dask: the files of TLS with the scheduler (None: Dask's configuration decides)
    security: TLSFiles | None = None


def scheduler_address(text: str, tls: bool = False) -> str:
    """``tcp://HOST:PORT`` or ``tls://HOST:PORT`` from either, or from ``dask://HOST:PORT`` or
    ``HOST:PORT``, which are ``tls://`` if ``tls`` (a certificate is given), else ``tcp://``.
    Raises ValueError saying what is wrong."""
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "dask", text
    host, colon, port = rest.rpartition(":")
    if scheme not in ("tcp", "tls", "dask") or not colon or not _HOST.match(host) \
            or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r} is not a scheduler address: give tcp://HOST:PORT "
                         "or tls://HOST:PORT (e.g. tcp://10.0.0.5:8786)")
    if scheme == "tcp" and tls:
        raise ValueError(f"{text!r} is unencrypted tcp://, but a certificate is given: give "
                         "tls://HOST:PORT (or dask://HOST:PORT)")
    if scheme == "dask":
        scheme = "tls" if tls else "tcp"
    return f"{scheme}://{host}:{int(port)}"


def tls_problem(files: TLSFiles) -> tuple[str, str] | None:
    """What is wrong with ``files``, as the name of the file at fault (``ca``, ``cert`` or
    ``key``) and a line saying why, or None if TLS can use them: each is a readable file,
    the CA's holds a PEM certificate, and the certificate and key are a pair. Checked before
    any connection, since Dask says only that a handshake failed, or asks for the passphrase
    of an encrypted key on the terminal."""
    for name in _SECURITY_KNOWN:
        path = getattr(files, name)
        try:
            with open(path, "rb"):
                pass
        except OSError as exc:
            return name, f"{path}: {exc.strerror or exc}"
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        context.load_verify_locations(cafile=files.ca)
    except (ssl.SSLError, ValueError):
        return "ca", f"{files.ca} holds no PEM certificate"
    asked: list[bool] = []

    def passphrase() -> str:
        asked.append(True)
        return ""

    try:
        context.load_cert_chain(files.cert, files.key, password=passphrase)
    except (ssl.SSLError, ValueError) as exc:
        if asked:
            return "key", (f"{files.key} is encrypted: Dask needs a key without a passphrase "
                           "(openssl ... -nodes)")
        why = getattr(exc, "reason", None) or str(exc)
        return "cert", (f"{files.cert} and {files.key} are not a PEM certificate and the "
                        f"private key that matches it ({why})")
    return None


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament configuration."""

    name: str
    game: str
    #: The schedule's format, bots' names, table size, rounds, seating, cap and candidates,
    #: held to the schedule's rules
    schedule: ScheduleShape
    seed: int | None  #: the master seed; None: a secret one, drawn when the run starts
    concurrency: int
    output: Path
    void_retries: int
    reuse_bots: bool
    log_cap_mb: int
    time_control: TimeControl
    bots: tuple[BotManifest, ...]
    source: Path
    sandbox: str = DEFAULT_MODE  #: how bots are run: "none" or "bwrap" (arena.runner.game.sandbox)
    executor: ExecutorSettings = field(default_factory=ExecutorSettings)
    stop: StopRule | None = None  #: when to stop before the schedule's end (the ``[stop]``)
    #: the game's options, complete (Game.validate_options: the defaults filled in)
    options: dict[str, str] = field(default_factory=dict)

    @property
    def format(self) -> str:
        return self.schedule.format

    @property
    def players(self) -> int:
        return self.schedule.players

    @property
    def rounds(self) -> int:
        return self.schedule.rounds

    @property
    def max_games(self) -> int | None:
        return self.schedule.max_games

    @property
    def seat_rotation(self) -> bool | None:
        return self.schedule.seat_rotation

    @property
    def candidates(self) -> tuple[str, ...]:
        return self.schedule.candidates

    @property
    def log_cap(self) -> int:
        """The cap on a bot's output per game, in bytes."""
        return self.log_cap_mb * MIB

    @property
    def bot_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.bots)

    def identity(self) -> dict[str, Any]:
        """What defines the tournament's games: a resumed run must match it exactly.

        Concurrency, the output folder, the log cap, the sandbox and the executor may change
        between runs; nothing else may (they change where and how bots run, not what the
        games are). A stopping rule is part of it, as it decides which games are played; a
        file without one has the identity it had before rules existed. So are the game's
        options that differ from its defaults (Game.canonical_options), as ``game_options``:
        a game played with its defaults has the identity it had before options existed.
        """
        identity: dict[str, Any] = {
            "name": self.name,
            "game": self.game,
            "rules_version": get_game(self.game).rules_version,
            "format": self.format,
            "players": self.players,
            "rounds": self.rounds,
            "max_games": self.max_games,
            "seat_rotation": self.seat_rotation,
            "seed": self.seed,
            "candidates": list(self.candidates),
            "reuse_bots": self.reuse_bots,
            "time_control": self.time_control.to_dict(),
            "bots": [
                {"name": b.name, "version": b.version, "language": b.language}
                for b in self.bots
            ],
        }
        if self.stop is not None:
            identity["stop"] = self.stop.to_dict()
        changed = get_game(self.game).canonical_options(self.options)
        if changed:
            identity["game_options"] = changed
        return identity


def load_config(path: str | Path, overrides: Overrides | None = None) -> TournamentConfig:
    """Read and validate a tournament file, with the command line's ``overrides`` put into
    its data first (:meth:`Overrides.applied_to`), so validated as if the file said them.
    Raises :class:`ConfigError`."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"{file}: no such tournament file")
    data = read_toml(file, ConfigError)
    return parse_config((overrides or Overrides()).applied_to(data), file)


def parse_config(data: dict[str, Any], file: Path) -> TournamentConfig:
    """Validate a parsed tournament file (``file`` locates relative paths and messages)."""
    fail = field_failure(str(file))
    refuse_unknown(data, _KNOWN, str(file))
    name = text(data, "name", None, fail)
    if not NAME_RULE.match(name):
        raise fail("name", f"{name!r} must be 1-64 letters, digits, '.', '_' or '-'")
    game, options = parse_game(data, fail)
    output = _output(data, file.parent, name, fail)
    bots = _bots(data, file.parent, output, fail)
    schedule = _schedule(data, str(file), game, bots, fail)
    return TournamentConfig(
        name=name, game=game.name, options=options, schedule=schedule, bots=bots,
        output=output, source=file,
        # No seed: the tournament draws a secret one (Tournament), which no entrant can guess
        # until the standings publish it.
        seed=None if "seed" not in data else whole_number(data, "seed", 0, None, None, fail),
        concurrency=whole_number(data, "concurrency", 1, 64, os.cpu_count() or 1, fail),
        void_retries=whole_number(data, "void_retries", 0, 100, 2, fail),
        reuse_bots=bool(flag(data, "reuse_bots", True, fail)),
        log_cap_mb=whole_number(data, "log_cap_mb", 0, MAX_LOG_CAP_MB, DEFAULT_LOG_CAP // MIB,
                                fail),
        sandbox=choice(data, "sandbox", SANDBOX_MODES, DEFAULT_MODE, fail),
        time_control=parse_time_control(data.get("time_control", {}), fail),
        executor=parse_executor(data.get("executor", {}), fail, file.parent),
        stop=None if "stop" not in data else parse_stop(
            data["stop"], fail, schedule.format, schedule.players, schedule.bots,
            schedule.seat_rotation),
    )


def _output(data: dict[str, Any], base: Path, name: str, fail: Fail) -> Path:
    # Beside the file by default, as every other relative path in it: the same folder
    # whichever directory the run is started from.
    return beside(base, text(data, "output", None, fail) if "output" in data
                  else Path("leaderboards") / name)


def _bots(data: dict[str, Any], base: Path, output: Path,
          fail: Fail) -> tuple[BotManifest, ...]:
    """The ``[[bots]]``, each loaded from its folder; their needs may not reach the output."""
    rule = NeedsRule(_needs_within(data, base, fail)).guarding(
        "the tournament's output folder", output)
    raw = data.get("bots")
    if not isinstance(raw, list) or not raw:
        raise fail("bots", "must list the bots, one [[bots]] table each with a 'path'")
    bots: list[BotManifest] = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict) or set(entry) != {"path"} or not isinstance(
            entry["path"], str
        ):
            raise fail(f"bots[{i}]", "must be a table with exactly one string field 'path'")
        try:
            bots.append(BotManifest.load(beside(base, entry["path"]), rule))
        except ManifestError as exc:
            raise fail(f"bots[{i}]", str(exc)) from None
    return tuple(bots)


def _schedule(data: dict[str, Any], where: str, game: Game, bots: tuple[BotManifest, ...],
              fail: Fail) -> ScheduleShape:
    """The schedule's settings: read here as the file's types, held to the schedule's rules
    by :class:`ScheduleShape` (the game's own bounds on ``players`` are checked here)."""
    try:
        return ScheduleShape(
            format=text(data, "format", None, fail),
            bots=tuple(b.name for b in bots),
            players=whole_number(data, "players", game.min_players, game.max_players, None,
                                 fail),
            rounds=whole_number(data, "rounds", None, None, 1, fail),
            seat_rotation=flag(data, "seat_rotation", None, fail),
            max_games=None if "max_games" not in data else whole_number(
                data, "max_games", None, None, None, fail),
            candidates=data.get("candidates", ()),
        )
    except ScheduleError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _needs_within(data: dict[str, Any], base: Path, fail: Fail) -> Path | None:
    """The folder ``needs_within`` names (relative to the file's), or None if not given."""
    if "needs_within" not in data:
        return None
    raw = data["needs_within"]
    if not isinstance(raw, str) or not raw.strip():
        raise fail("needs_within", "must be a folder (a non-empty string)")
    folder = (base / raw).resolve()
    if not folder.is_dir():
        raise fail("needs_within", f"{raw!r}: {folder} is not a folder")
    return folder


def parse_executor(raw: Any, fail: Fail,
                   base: Path) -> ExecutorSettings:
    """The ``[executor]`` table; ``fail(field, problem)`` makes the error; ``base`` is the
    folder its paths are relative to."""
    if not isinstance(raw, dict):
        raise fail("executor", "must be a table")
    unknown = sorted(set(raw) - _EXECUTOR_KNOWN)
    if unknown:
        raise fail("executor", f"has unknown field(s): {', '.join(unknown)} "
                               f"(known: {', '.join(sorted(_EXECUTOR_KNOWN))})")
    kind = raw.get("kind", "local")
    if kind not in EXECUTOR_KINDS:
        raise fail("executor.kind", f"must be one of {', '.join(EXECUTOR_KINDS)}, got {kind!r}")
    if kind == "local":
        extra = sorted(set(raw) - {"kind"})
        if extra:
            raise fail("executor", f"{', '.join(extra)} only apply to kind = \"dask\"")
        return ExecutorSettings()
    address = raw.get("address")
    if not isinstance(address, str):
        raise fail("executor.address", "is required for kind = \"dask\": the scheduler, "
                                       "tcp://HOST:PORT")
    security = None if "security" not in raw else parse_security(raw["security"], fail, base)
    try:
        address = scheduler_address(address, tls=security is not None)
    except ValueError as exc:
        raise fail("executor.address", str(exc)) from None
    ship = raw.get("ship_bots", True)
    if type(ship) is not bool:
        raise fail("executor.ship_bots", f"must be true or false, got {ship!r}")
    wait = raw.get("wait_for_workers_s", ExecutorSettings.wait_for_workers_s)
    if type(wait) is not int or not 0 <= wait <= 86400:
        raise fail("executor.wait_for_workers_s", f"must be 0..86400 seconds, got {wait!r}")
    return ExecutorSettings("dask", address, ship, wait, security)


def parse_security(raw: Any, fail: Fail, base: Path) -> TLSFiles:
    """``[executor] security``: the CA's, this machine's certificate and key files, relative
    to ``base``, checked (:func:`tls_problem`)."""
    shape = "must be a table { ca = ..., cert = ..., key = ... } of PEM files"
    if not isinstance(raw, dict):
        raise fail("executor.security", shape)
    unknown = sorted(set(raw) - set(_SECURITY_KNOWN))
    missing = [k for k in _SECURITY_KNOWN if k not in raw]
    wrong = ([f"unknown: {', '.join(unknown)}"] if unknown else []) + (
        [f"missing: {', '.join(missing)}"] if missing else [])
    if wrong:
        raise fail("executor.security", f"{shape}; {'; '.join(wrong)}")
    paths = {}
    for name in _SECURITY_KNOWN:
        value = raw[name]
        if not isinstance(value, str) or not value.strip():
            raise fail(f"executor.security.{name}", "must be the path of a PEM file")
        path = Path(value).expanduser()
        paths[name] = os.path.normpath(path if path.is_absolute() else base / path)
    files = TLSFiles(**paths)
    problem = tls_problem(files)
    if problem is not None:
        raise fail(f"executor.security.{problem[0]}", problem[1])
    return files
