"""A league's configuration: ``league.toml`` in its folder, written by ``arena league init``
and validated, like a tournament file, with a message that names the field.

    name = "stoneage-2p"           # letters, digits, '.', '_', '-' (default: the folder's name)
    game = "stoneage"              # or a [game] table with its options, as a tournament's:
                                   # [game] name = "dicerace", options = { hand = "3" }
    players = 2                    # players per table; each table is played once per seat
                                   # rotation on one seed (a duplicate set)
    concurrency = 2                # optional: games at once (default: the number of cores)
    sandbox = "bwrap"              # optional: "none" only for trusted bots
    log_cap_mb = 10                # optional: the most of a bot's output kept per game, MiB
    void_retries = 2               # optional: retries of a void game before it is dropped
    explore = 0.1                  # optional: the share of tables drawn at random
    suspend_after = 3              # optional: a bot version is suspended once this many of
    suspend_window = 10            # its last suspend_window games ended in its failure

    [time_control]                 # optional; any of these, in milliseconds
    decision_ms = 1000

    [executor]                     # optional: as a tournament's (local, or a Dask cluster;
    kind = "local"                 # security's files relative to this folder)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import get_game
from arena.league.matchmaking import EXPLORE
from arena.runner.game.botlog import DEFAULT_LOG_CAP, MAX_LOG_CAP_MB, MIB
from arena.runner.game.clock import TimeControl
from arena.runner.game.manifest import NAME_RULE, read_toml
from arena.runner.game.sandbox import DEFAULT_MODE
from arena.runner.game.sandbox import MODES as SANDBOX_MODES
from arena.runner.play.config import ExecutorSettings, parse_executor
from arena.runner.play.settings import (
    ConfigError,
    Overrides,
    choice,
    field_failure,
    parse_game,
    parse_time_control,
    refuse_unknown,
    whole_number,
)

CONFIG = "league.toml"
_KNOWN = {"name", "game", "players", "concurrency", "sandbox", "log_cap_mb", "void_retries",
          "explore", "suspend_after", "suspend_window", "time_control", "executor"}


@dataclass(frozen=True)
class LeagueConfig:
    """A league's settings (see the module's doc); ``folder`` is the league's folder."""

    name: str
    game: str
    players: int
    folder: Path
    concurrency: int
    time_control: TimeControl
    sandbox: str = DEFAULT_MODE
    log_cap_mb: int = DEFAULT_LOG_CAP // MIB
    void_retries: int = 2
    explore: float = EXPLORE
    suspend_after: int = 3
    suspend_window: int = 10
    executor: ExecutorSettings = field(default_factory=ExecutorSettings)
    #: the game's options, complete (Game.validate_options: the defaults filled in)
    options: dict[str, str] = field(default_factory=dict)

    @property
    def log_cap(self) -> int:
        return self.log_cap_mb * MIB

    def identity(self) -> dict[str, Any]:
        """What makes the league what it is (its bots come and go: not part of it). The game's
        options that differ from its defaults are part of it (``game_options``), and only
        then: a league of a game played with its defaults is what it was before options."""
        identity = {"kind": "league", "name": self.name, "game": self.game,
                    "players": self.players, "time_control": self.time_control.to_dict(),
                    "sandbox": self.sandbox}
        changed = get_game(self.game).canonical_options(self.options)
        if changed:
            identity["game_options"] = changed
        return identity


def league_file(folder: Path) -> Path:
    return Path(folder) / CONFIG


def load_league(folder: str | Path, overrides: Overrides | None = None) -> LeagueConfig:
    """Read and validate ``folder``'s ``league.toml``, with the command line's ``overrides``
    put into its data first, so validated as if the file said them. Raises
    :class:`ConfigError`."""
    folder = Path(folder)
    file = league_file(folder)
    if not file.is_file():
        raise ConfigError(f"{folder}: not a league (no {CONFIG}); make one with "
                          f"`arena league init {folder} --game GAME --players N`")
    data = read_toml(file, ConfigError)
    return parse_league((overrides or Overrides()).applied_to(data), folder)


def parse_league(data: dict[str, Any], folder: Path) -> LeagueConfig:
    """Validate a league's settings (``folder`` is the league's, named in messages)."""
    where = str(league_file(folder))
    fail = field_failure(where)
    refuse_unknown(data, _KNOWN, where)

    def whole(name: str, low: int, high: int, default: int | None = None) -> int:
        return whole_number(data, name, low, high, default, fail)

    name = data.get("name", Path(folder).resolve().name)
    if not isinstance(name, str) or not NAME_RULE.match(name):
        raise fail("name", f"{name!r} must be 1-64 letters, digits, '.', '_' or '-'")
    game, options = parse_game(data, fail)
    players = whole("players", game.min_players, game.max_players)
    if players < 2:
        raise fail("players", "must be at least 2: a league rates bots against each other")
    sandbox = choice(data, "sandbox", SANDBOX_MODES, DEFAULT_MODE, fail)
    explore = data.get("explore", EXPLORE)
    if type(explore) not in (int, float) or not 0 <= explore <= 1:
        raise fail("explore", f"must be a number 0..1, got {explore!r}")
    time_control = parse_time_control(data.get("time_control", {}), fail)
    window = whole("suspend_window", 1, 1000, 10)
    return LeagueConfig(
        name=name, game=game.name, options=options, players=players, folder=Path(folder),
        concurrency=whole("concurrency", 1, 64, os.cpu_count() or 1),
        time_control=time_control, sandbox=sandbox,
        log_cap_mb=whole("log_cap_mb", 0, MAX_LOG_CAP_MB, DEFAULT_LOG_CAP // MIB),
        void_retries=whole("void_retries", 0, 100, 2), explore=float(explore),
        suspend_after=whole("suspend_after", 1, window, min(3, window)),
        suspend_window=window,
        executor=parse_executor(data.get("executor", {}), fail, Path(folder)),
    )


def league_toml(config: LeagueConfig) -> str:
    """The text of ``league.toml`` for ``config`` (what ``arena league init`` writes)."""
    tc = config.time_control.to_dict()
    changed = get_game(config.game).canonical_options(config.options)
    game = (f'game = {{ name = "{config.game}", options = {{ '
            + ", ".join(f'{k} = "{v}"' for k, v in changed.items()) + " } }"
            if changed else f'game = "{config.game}"')
    lines = [
        "# An Arena league (arena league --help). Edit while no run is going.",
        f'name = "{config.name}"',
        game,
        f"players = {config.players}",
        f"concurrency = {config.concurrency}",
        f'sandbox = "{config.sandbox}"',
        f"explore = {config.explore}",
        f"suspend_after = {config.suspend_after}",
        f"suspend_window = {config.suspend_window}",
        "",
        "[time_control]",
        *(f"{k} = {v}" for k, v in tc.items()),
    ]
    return "\n".join(lines) + "\n"
