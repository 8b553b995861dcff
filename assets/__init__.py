"""Dagster assets, one module per stage of the asset graph (DESIGN.md, "Stages").

Assets are thin: each calls functions in ``engines/`` (and later ``quality/``, ``releases/``),
returns a pandas DataFrame for the Parquet IO manager, and attaches metadata (row counts, hashes,
Markdown tables). Every stage module exports two lists, ``ASSETS`` and ``CHECKS``, which
``pipelines/definitions.py`` collects into the one root ``Definitions``.

This package never imports ``pipelines``: imports point from ``pipelines`` to ``assets``.
"""

from arena.compiled_engine import enable

enable()  # the compiled engine when its build is current, before anything imports the engine
