"""Running games, on three floors that each import only the ones below:

- :mod:`arena.runner.game`: one refereed game (the referee, its clock, the bots' manifests,
  builds, processes and sandbox, the game record and its replay, check-bot). It knows nothing
  of tournaments, leagues or the cluster.
- :mod:`arena.runner.play`: many games (tournament files, schedules, the run loop, the
  executor and its workers, the journal, ratings, stop rules, the live view, outputs).
- :mod:`arena.runner.cluster`: the same games on a Dask cluster (its executor, worker,
  bot shipping and checks).
"""
