"""What a bot's manifest may name in ``needs``: the folders outside its own that the sandbox
shows it, read-only. A manifest is the entrant's, so ``needs`` is hostile: it decides what of the
organiser's machine a bot may read.

Every entry must be a path relative to the bot's folder, leading to a folder. Wherever a
manifest is read, no entry (and not the bot's folder itself) may hold the user's seed-key file or
Arena's caches (the built copies and unpacked packages of every bot). Where a bot enters (``arena
check-bot``, ``arena play``, a tournament file, ``arena league add``: the organiser's commands,
which know their folders), each entry must also stay within a bound the organiser controls
(:class:`NeedsRule`; by default the folder holding the bot's folder) and overlap none of that
command's own folders: a tournament's or league's output folder (its journal holds every game's
seed and the seed key), the log folder, the game record.

Where the runner reads a manifest again later (a game's worker, a built copy, a league's
snapshot, a package unpacked on a cluster's worker) it holds a copy of a manifest that entered
this way, or the entered folder itself, so the bound is not asked again there (the copies lie
elsewhere, laid out as the originals).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from arena.runner.game.disk import BUILDS_CACHE, PACKAGES_CACHE, cache_folder
from arena.seeds import user_key_path


@dataclass(frozen=True)
class NeedsRule:
    """Where the bots entering through one command may read: ``within`` is as far as their
    ``needs`` may reach (None: the folder holding each bot's folder); ``guarded`` are that
    command's own folders and files, each with what it is (for messages), which no bot may
    read any of."""

    within: Path | None = None
    guarded: tuple[tuple[str, Path], ...] = ()

    def guarding(self, what: str, path: Path | None) -> NeedsRule:
        """This rule, also guarding ``path`` (nothing if None)."""
        if path is None:
            return self
        return NeedsRule(self.within, (*self.guarded, (what, path)))


def always_guarded() -> list[tuple[str, Path]]:
    """What no manifest may show its bot, wherever it is read: the seed-key file of single
    games (``$ARENA_SEED_KEY_FILE`` if set) and Arena's caches."""
    found = [("the seed-key file", user_key_path()),
             ("Arena's cache of built bots", cache_folder(BUILDS_CACHE)),
             ("Arena's cache of shipped bots", cache_folder(PACKAGES_CACHE))]
    return [(what, Path(os.path.abspath(path)).resolve()) for what, path in found]


def _overlap(path: Path, guarded: list[tuple[str, Path]], both_ways: bool) -> str | None:
    """What of ``guarded`` the folder ``path`` would show: one inside it (or it inside one,
    with ``both_ways``)."""
    for what, g in guarded:
        if g.is_relative_to(path):
            return f"holds {what}, {g}"
        if both_ways and path.is_relative_to(g):
            return f"is inside {what}, {g}"
    return None


def _guarded(rule: NeedsRule | None) -> list[tuple[str, Path]]:
    extra = [] if rule is None else [(what, Path(os.path.abspath(p)).resolve())
                                     for what, p in rule.guarded]
    return [*always_guarded(), *extra]


def folder_problem(folder: Path, rule: NeedsRule | None) -> str | None:
    """Why the bot's own folder (absolute, resolved) may not be shown to it, or None."""
    why = _overlap(folder, _guarded(rule), both_ways=False)
    return None if why is None else f"the bot's folder {folder} {why}"


def need_problem(path: Path, folder: Path, rule: NeedsRule | None) -> str | None:
    """Why a ``needs`` entry of a bot in ``folder``, leading to ``path`` (resolved), may not be
    shown to it, or None. Without a ``rule``, only what is always guarded is
    asked."""
    guarded = _guarded(rule)
    if rule is not None:
        bound = (folder.parent if rule.within is None
                 else Path(os.path.abspath(rule.within)).resolve())
        if not path.is_relative_to(bound):
            which = ("the folder holding the bot's folder" if rule.within is None
                     else "needs_within")
            return (f"{path} is outside {bound} ({which}), as far as needs may reach; the "
                    "organiser may widen it with needs_within")
    why = _overlap(path, guarded, both_ways=rule is not None)
    return None if why is None else f"{path} {why}"
