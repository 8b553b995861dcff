"""Orchestration: Dagster Definitions, resources, IO managers, jobs, schedules and the CLI.

This package's ``__init__`` stays import-light: the ``genstrat`` CLI lives here and must start
fast, so nothing in this file imports Dagster.
"""

from arena.compiled_engine import enable

enable()  # the compiled engine when its build is current, before anything imports the engine
