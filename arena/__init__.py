"""Arena: a headless tournament runner for game-playing bots."""

import os

__version__ = "0.1.0"

#: OpenBLAS's worker threads wait for the next call by spinning, 2**28 cycles (a tenth of a
#: second) by default: on a busy machine the statistics' matrix solves then paid twice their
#: processor time and more in wall time. At 2**4 they sleep almost at once; the same threads
#: share the same work, so every result is the same to the last bit. Read when NumPy is first
#: imported; a value already set is kept.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
