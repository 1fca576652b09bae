"""The matrix library's idle threads sleep instead of spinning.

OpenBLAS's worker threads wait for the next call by spinning, 2**28 cycles (a tenth of a
second) by default: on a busy machine the statistics' matrix solves then paid twice their
processor time and more in wall time. At 2**4 they sleep almost at once; the same threads share
the same work, so every result is the same to the last bit. OpenBLAS reads the setting when
NumPy is first imported, so the packages whose modules import NumPy (:mod:`arena.stats`,
:mod:`arena.runner.play`, :mod:`arena.league`, :mod:`arena.bench`) import this module first. What
a bot imports (the engine, the protocol) does not: a bot's environment stays as it was started.
A value already set is kept.
"""

import os

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
