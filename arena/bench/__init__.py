"""The benchmarks behind ``arena bench``: commands that print figures (engines, protocol,
tournaments, bot starts, fields, the cluster, the statistics, the league and peer engines)."""

import arena.blas  # noqa: F401  (before NumPy is first imported)
