"""Entering a bot version into a league (``arena league add``): the checks of ``arena
check-bot`` as its validation game, then an immutable snapshot of its files, named by version
and content digest, from which every game of it is played. The checks run where the league's
games do: here, or on a worker of its Dask cluster (:func:`cluster_validation`), so that the
organiser of a league on a cluster needs neither the bots' runtimes nor the sandbox.

The validation game is played on a secret seed drawn for it (:func:`arena.seeds.draw_secret_seed`)
unless the organiser gives one: a fixed seed would let a bot that knows it recognise its
validation game, and know its deck, from the first cards it sees."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.engine import get_game
from arena.league.config import LeagueConfig
from arena.league.store import Entrant, LeagueJournal, entrant_key
from arena.runner.cluster.shipping import ShippingError, pack, unpack
from arena.runner.game.checkbot import Check, check_bot
from arena.runner.game.digest import bot_digest
from arena.runner.game.manifest import BotManifest, ManifestError
from arena.runner.game.needs import NeedsRule
from arena.runner.game.trees import TreeError
from arena.runner.play.journal import JournalError
from arena.seeds import draw_secret_seed

#: The folder of the snapshots, in the league's folder.
SNAPSHOTS = "bots"
#: What a bot version entering a league may be: it names a folder.
VERSION_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
class EntryError(RuntimeError):
    """The bot cannot enter (one line: why)."""


@dataclass(frozen=True)
class Entry:
    """What ``add`` did: the checks run, the seed of its validation game, and the entrant
    made (None if a check failed)."""

    checks: list[Check]
    entrant: Entrant | None
    seed: int


def snapshot_name(version: str, digest: str) -> str:
    """The snapshot's folder in ``bots/<name>/``."""
    return f"{version}-{digest[:12]}"


#: How a bot is validated: its manifest, the folder for its logs and the validation game's
#: seed give the checks.
Validation = Callable[[BotManifest, Path, int], list[Check]]


def entry_rule(config: LeagueConfig, needs_within: Path | None = None) -> NeedsRule:
    """What the ``needs`` of a bot entering the league are held to: within ``needs_within``
    (None: the folder holding the bot's folder), showing it nothing of the league's folder
    (its journal, logs, records and the other bots' snapshots)."""
    return NeedsRule(needs_within).guarding("the league's folder", Path(config.folder))


def local_validation(config: LeagueConfig, needs_within: Path | None = None) -> Validation:
    """The checks run here, as ``arena check-bot`` runs them."""
    return lambda manifest, logs, seed: check_bot(
        manifest.folder, get_game(config.game), seed, config.time_control, logs,
        config.log_cap, sandbox=config.sandbox, entering=entry_rule(config, needs_within))


def cluster_validation(config: LeagueConfig, cluster: Any) -> Validation:
    """The checks run on a worker of the connected Dask ``cluster``: the bot is packed and
    sent as for a game, and the logs come back into the league's folder."""
    from arena.results import Pairing
    from arena.runner.cluster.executor import DaskExecutor
    from arena.runner.play.job import GameJob
    from arena.seeds import new_seed_key

    def validate(manifest: BotManifest, logs: Path, seed: int) -> list[Check]:
        executor = DaskExecutor(cluster, [manifest], keep=0)
        try:
            job = GameJob(
                pairing=Pairing(f"validation-{manifest.name}", 0, 0, 0, (manifest.name,), seed),
                game=get_game(config.game), bots={manifest.name: manifest},
                time_control=config.time_control.to_dict(), record_path="", log_dir=str(logs),
                seed_key=new_seed_key(), log_cap=config.log_cap, sandbox=config.sandbox,
                options=config.options)
            return executor.validate(job, seed, logs)
        finally:
            executor.shutdown(abandon=True)

    return validate


def add_bot(config: LeagueConfig, journal: LeagueJournal, path: Path,
            validation: Validation | None = None, seed: int | None = None,
            needs_within: Path | None = None) -> Entry:
    """Validate the bot in ``path`` and enter it (see the module's doc). ``validation``:
    where the checks run (None: here); ``seed``: the validation game's (None: a secret one,
    drawn); ``needs_within``: how far its ``needs`` may reach (None: the folder holding its
    folder). Raises EntryError if it cannot be read, holds what no bot's folder may, or is in
    the league already; a failed check changes nothing."""
    try:
        manifest = BotManifest.load(path, entry_rule(config, needs_within))
        digest = bot_digest(manifest)
    except (ManifestError, TreeError) as exc:
        raise EntryError(str(exc)) from None
    if not VERSION_RULE.match(manifest.version):
        # It names the snapshot's folder: "../.." would put it outside the league.
        raise EntryError(f"{manifest.folder}: a league needs the version to be 1-64 letters, "
                         f"digits, '.', '_', '+' or '-' (it names the bot's snapshot), not "
                         f"{manifest.version!r}")
    key = entrant_key(manifest.name, manifest.version)
    known = journal.entrant(key)
    if known is not None:
        same = known.digest == digest
        raise EntryError(f"{key} is in the league already" + (
            f" ({known.status})" if same else
            " with other files: give the changed bot a new version in its bot.toml"))
    logs = Path(config.folder) / "logs" / "validation"
    seed = draw_secret_seed() if seed is None else seed
    checks = (validation or local_validation(config, needs_within))(manifest, logs, seed)
    if not all(c.passed for c in checks):
        return Entry(checks, None, seed)
    where = Path(config.folder) / SNAPSHOTS / manifest.name
    try:
        package = pack(manifest)
        # Named by version and digest, and unpacked complete or not at all: a second `add`
        # of the same files finds the same snapshot.
        folder = unpack(where, snapshot_name(manifest.version, digest),
                        package.data) / package.folder
        intact = bot_digest(BotManifest.load(folder)) == digest
    except (ManifestError, TreeError, ShippingError) as exc:
        raise EntryError(f"{key}: its snapshot cannot be made: {exc}") from None
    if not intact:
        shutil.rmtree(where / snapshot_name(manifest.version, digest), ignore_errors=True)
        raise EntryError(f"{key}: its snapshot differs from its folder (a file changed while "
                         "it was copied?); add it again")
    try:
        entrant = journal.add_entrant(manifest.name, manifest.version, digest,
                                      folder.relative_to(config.folder).as_posix())
    except JournalError as exc:
        raise EntryError(str(exc)) from None
    return Entry(checks, entrant, seed)
