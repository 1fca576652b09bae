"""Stone Age (base game) for 2-4 players. Rules and rulings: ``RULES.md`` in this folder."""

from arena.engine.stoneage.game import STONE_AGE, StoneAgeGame
from arena.engine.stoneage.state import StoneAgeState

__all__ = ["STONE_AGE", "StoneAgeGame", "StoneAgeState"]
