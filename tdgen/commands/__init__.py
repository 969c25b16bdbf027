"""Subcommands of the ``tdgen`` CLI: one module each, ``configure(parser)`` + ``run(args)``."""
