"""A standing league: bots join at any time and play the standing field, and matchmaking
(:mod:`arena.league.matchmaking`) chooses the tables that tell the most about the ratings."""

import arena.blas  # noqa: F401  (before NumPy is first imported)
