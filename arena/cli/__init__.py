"""The ``arena`` command: :mod:`arena.cli.main` holds the app and registers every command; the
other modules hold one command group each (:mod:`~arena.cli.game` one game,
:mod:`~arena.cli.tournament` a tournament, :mod:`~arena.cli.league` a league, ...). Each
command is a thin call into the library, which it imports when it runs, so that the command
line starts fast."""
