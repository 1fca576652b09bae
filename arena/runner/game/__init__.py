"""One refereed game: the referee and its clock, bot manifests, builds, processes and the
sandbox they run in, the game record and its replay, and check-bot. Nothing here knows of
tournaments, leagues or the cluster (``tests/test_architecture.py`` holds it)."""
