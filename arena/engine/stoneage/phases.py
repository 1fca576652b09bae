"""The vocabulary of a Stone Age round: phases, pending sub-decisions and the round limit.

Shared by the state's rule areas and by the views; it depends on nothing, so any module of the
package may import it without forming a cycle.
"""

from __future__ import annotations

# Phases.
PLACEMENT, RESOLUTION, FEEDING, OVER = range(4)
PHASE_NAMES = ("placement", "resolution", "feeding", "game_over")

# Pending sub-decisions during resolution (``_pend[0]``); ``None`` means "choose a place".
PD_TOOLS = "use_tools"  # (PD_TOOLS, good, dice, place or -1 for a card's two dice)
PD_CARD = "buy_card"  # (PD_CARD, place)
PD_BUILDING = "buy_building"  # (PD_BUILDING, place)
PD_PICK = "pick_die"  # (PD_PICK, dice left, pickers left, buyer)
PD_FEED = "feed"  # (PD_FEED, deficit)

#: The game ends after this round even if neither end condition has been met (see RULES.md).
MAX_ROUNDS = 100

#: An action key (an int: see ``moves.py``) and a payment of (wood, clay, stone, gold).
Key = int
Pay = tuple[int, int, int, int]
