"""Partitions of the asset graph, defined once and imported by assets and tests alike.

``BENCHMARK_GAMES``: one partition per benchmark game, keyed by its game token (a generator
seed, or a preset name).  It is a dynamic partition set: the ``benchmark_games`` asset (the
farthest-point selection, ``assets/axes.py``) writes its keys, so the games the tournament
plays (``match_corpus``) and the games whose axes are measured (``axis_scores``) are the
selected benchmark, whatever the profile.  ``make run`` reads the keys after that asset has
run (``pipelines/run_main.py``); in the UI, materialize ``benchmark_games`` first.

``DEMO_BENCHMARK_GAMES`` is a small fixed set (Kuhn and Leduc poker and the first three seeds
accepted from seed 0 under the default ``GenerationConfig``) that tests register themselves.

:func:`concat_partitions` is the one way a consumer turns a per-game asset into one table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import dagster as dg
import pandas as pd

BENCHMARK_GAMES_NAME = "benchmark_games"

BENCHMARK_GAMES = dg.DynamicPartitionsDefinition(name=BENCHMARK_GAMES_NAME)

DEMO_BENCHMARK_GAMES: tuple[str, ...] = ("kuhn", "leduc", "0", "4", "5")


def concat_partitions(
    value: pd.DataFrame | Mapping[str, pd.DataFrame], columns: Sequence[str] = ()
) -> pd.DataFrame:
    """One table from a per-game asset, as the Parquet IO manager hands it over.

    - A ``DataFrame`` (the consumer maps to one partition, or the asset is not partitioned) is
      returned as it is.
    - A mapping ``{partition key: table}``: the partitions that have rows, concatenated in
      partition-key order with a fresh index. Empty partitions are left out, so that their
      column types cannot change the types of the rows that exist.
    - No rows at all (no partitions, or only empty ones): an empty table with ``columns``, the
      asset's declared columns (none when the caller declares none). A consumer that cannot
      work without rows says so itself.
    """
    if isinstance(value, pd.DataFrame):
        return value
    frames = [frame for _, frame in sorted(value.items()) if not frame.empty]
    if not frames:
        return pd.DataFrame(columns=list(columns))
    return pd.concat(frames, ignore_index=True)


# -- issue 18: the ``openspiel`` benchmark group ------------------------------------------------
# One partition per OpenSpiel game token (``openspiel:chess``, ``openspiel:go(board_size=9)``);
# the ``openspiel_games`` asset writes the keys from the profile's ``openspiel_games``.
OPENSPIEL_GAMES_NAME = "openspiel_games"

OPENSPIEL_GAMES = dg.DynamicPartitionsDefinition(name=OPENSPIEL_GAMES_NAME)
