"""A small, sound match table in the DESIGN schema, played on two frozen games."""

from __future__ import annotations

import pandas as pd

from engines.gbg import ENGINE_VERSION, presets

GAMES = {-1: presets.kuhn().spec_hash, 7: presets.leduc().spec_hash}


def sound_matches(runs: int = 3) -> pd.DataFrame:
    """``runs`` complete seat-swapped runs per game between two bots; zero-sum, no fallbacks."""
    rows = []
    for seed, spec_hash in GAMES.items():
        for run in range(runs):
            for deal, (alice, bob) in enumerate((("bot-a", "bot-b"), ("bot-b", "bot-a"))):
                delta = (run % 3) - 1 if deal == 0 else 1 - (run % 3)
                rows.append(
                    {
                        "match_id": f"g{seed}-r{run}.{deal}",
                        "game_seed": seed,
                        "spec_hash": spec_hash,
                        "engine_version": ENGINE_VERSION,
                        "block": "block-1",
                        "run_id": f"g{seed}-r{run}",
                        "play_seed": 1000 + run,
                        "alice": alice,
                        "bob": bob,
                        "alice_chip_delta": delta,
                        "bob_chip_delta": -delta,
                        "margin_alice": 2 * delta,
                        "status": "complete",
                        "n_moves": 4,
                        "moves_alice": 2,
                        "moves_bob": 2,
                        "fallbacks_alice": 0,
                        "fallbacks_bob": 0,
                    }
                )
    return pd.DataFrame(rows)
