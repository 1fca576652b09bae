"""The greedy policy of each game this bot plays, by the game's name.

Every policy module offers the same two functions of the observation, the legal actions and
the game's component tables: ``choose`` (the index to play) and ``preferences`` (every index,
best first). The bot, and the search bot that uses them as its guide, only go through
:func:`policy_for`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: The module of each game's policy, beside this file.
MODULES = {"stoneage": "policy", "agricola": "agricola_policy"}


def policy_for(game: str) -> ModuleType:
    """The policy module for ``game``; LookupError naming the games it knows otherwise."""
    try:
        return importlib.import_module(MODULES[game])
    except KeyError:
        known = ", ".join(sorted(MODULES))
        raise LookupError(f"greedy-py plays {known}, not {game!r}") from None
