"""Subcommands of the ``genstrat`` CLI, one module per command group.

Each module exposes ``register(subparsers)``; heavy imports happen inside the handlers so that
``genstrat --help`` stays fast.
"""
