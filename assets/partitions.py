"""Partitions of the asset graph, defined once and imported by assets and tests alike.

``BENCHMARK_GAMES``: one partition per benchmark game, keyed by its game token (a generator
seed, or a preset name).  It is a dynamic partition set: the ``benchmark_games`` asset (the
farthest-point selection, ``assets/axes.py``) writes its keys, so the games the tournament
plays (``match_corpus``) and the games whose axes are measured (``axis_scores``) are the
selected benchmark, whatever the profile.  ``make run`` reads the keys after that asset has
run (``pipelines/run_main.py``); in the UI, materialize ``benchmark_games`` first.

``DEMO_BENCHMARK_GAMES`` is a small fixed set (Kuhn and Leduc poker and the first three seeds
accepted from seed 0 under the default ``GenerationConfig``) that tests register themselves.
"""

from __future__ import annotations

import dagster as dg

BENCHMARK_GAMES_NAME = "benchmark_games"

BENCHMARK_GAMES = dg.DynamicPartitionsDefinition(name=BENCHMARK_GAMES_NAME)

DEMO_BENCHMARK_GAMES: tuple[str, ...] = ("kuhn", "leduc", "0", "4", "5")
