"""``python -m arena`` runs the command line, like the ``arena`` script."""

from arena.cli.main import main

main()
