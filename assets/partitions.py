"""Partitions of the asset graph, defined once and imported by assets and tests alike.

``BENCHMARK_GAMES``: one partition per benchmark game, keyed by its game token (a preset name
or a generator seed), used by ``match_corpus`` (and, later, ``axis_scores``).

Until the axes stage provides the ``benchmark_games`` asset (the farthest-point selection), the
keys are a fixed demo source, ``DEMO_BENCHMARK_GAMES``: Kuhn and Leduc poker (presets) and the
first three seeds accepted from seed 0 under the default ``GenerationConfig`` (0, 4 and 5).
To rewire: replace this static definition by ``dg.DynamicPartitionsDefinition(name=
"benchmark_games")`` whose keys the ``benchmark_games`` asset adds (``context.instance.
add_dynamic_partitions``), and make ``match_corpus`` depend on ``benchmark_games`` to read each
game's spec from it instead of resolving the token.
"""

from __future__ import annotations

import dagster as dg

DEMO_BENCHMARK_GAMES: tuple[str, ...] = ("kuhn", "leduc", "0", "4", "5")

BENCHMARK_GAMES = dg.StaticPartitionsDefinition(list(DEMO_BENCHMARK_GAMES))
