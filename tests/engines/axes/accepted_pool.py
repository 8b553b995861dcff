"""A small accepted pool for the axes stage's tests (engine functions and assets alike)."""

from __future__ import annotations

import pandas as pd

from engines.gbg import rulebook
from engines.gbg.generator import generate

POOL_SEEDS = (0, 4, 5, 6, 7, 8, 9, 11, 13, 14)  # accepted under the default config


def accepted_frame(seeds: tuple[int, ...] = POOL_SEEDS) -> pd.DataFrame:
    """A small accepted_games table (the columns the axes stage reads, and a few more)."""
    rows = []
    for seed in seeds:
        spec = generate(seed)
        text = rulebook(spec)
        rows.append(
            {
                "seed": seed,
                "spec_hash": spec.spec_hash,
                "spec_json": spec.canonical_json(),
                "rulebook": text,
                "rulebook_chars": len(text),
            }
        )
    return pd.DataFrame(rows)
