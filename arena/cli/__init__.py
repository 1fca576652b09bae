"""The ``arena`` command: :mod:`arena.cli.main` holds the app and the game commands, the other
modules one command group each. Each command is a thin call into the library, which it imports
when it runs, so that the command line starts fast."""
