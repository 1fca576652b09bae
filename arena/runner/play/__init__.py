"""Many games: tournament files, schedules, the run loop, the executor and its workers, the
journal, ratings, stop rules, the live view and the outputs. Built on :mod:`arena.runner.game`;
knows nothing of the cluster, whose executor a caller hands in."""

import arena.blas  # noqa: F401  (before NumPy is first imported)
