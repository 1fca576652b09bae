"""Agricola (Revised Edition, Family game) for 1-4 players. Rules and rulings: ``RULES.md`` in
this folder; the bot authors' page is ``docs/agricola.md``."""

from arena.engine.agricola.game import AGRICOLA, AgricolaGame
from arena.engine.agricola.state import AgricolaState

__all__ = ["AGRICOLA", "AgricolaGame", "AgricolaState"]
