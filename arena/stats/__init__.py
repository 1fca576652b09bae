"""Statistics of a tournament's results that say how sure they are.

- :mod:`arena.stats.match`: two players, from the pairs of games of each seat rotation
  (pentanomial Elo with its interval, LOS, draw ratio, SPRT), as chess engine testers do.
- :mod:`arena.stats.tables`: tables of any size: how often each bot finished ahead of each
  other (Wilson interval, sign test), and the advantage of each seat.
- :mod:`arena.stats.plackett_luce`: Plackett–Luce strengths fitted to the finishing orders,
  with bootstrap intervals over whole duplicate sets, and P(A finishes ahead of B).

Everything here is pure: outcomes in, numbers out; nothing reads a journal or prints.
TrueSkill standings are :mod:`arena.runner.play.ratings`'.
"""

import arena.blas  # noqa: F401  (before NumPy is first imported)
