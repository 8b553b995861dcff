"""Runs (paired deals) and their sufficient statistics: the unit of every fit and bootstrap.

Why it exists: Section 5 plays each matchup as runs of two deals with the seats swapped and the
cards shared; Section 6 fits on single-deal margins but clusters its bootstrap on runs. Both deals
of a run have the same design row (e_i - e_j from the first model's side), so a run enters the
least-squares normal equations only through its pair, its game and the sum of its two margins.
This module checks a corpus against the DESIGN match schema, keeps complete pairs, and reduces each
run to those numbers, grouped in cells (block, game, pair) that every estimator sums over.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.tournament.corpus_checks import paired_runs, zero_sum
from engines.tournament.pairs import RUN_KEY, complete_pairs, run_sizes

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

REQUIRED_COLUMNS: tuple[str, ...] = (
    "game_seed",
    "block",
    "run_id",
    "play_seed",
    "alice",
    "bob",
    "margin_alice",
    "status",
)


@dataclass(frozen=True)
class RunTable:
    """Complete runs reduced to sufficient statistics, with models, games and blocks indexed.

    ``first < second`` are model indices; ``margin`` is the sum of the first model's chip margins
    over the two deals (alpha-difference twice, seat advantage and card luck cancel); ``wins_*``
    count decisive deals won. Runs are grouped in cells, one per (block, game, pair) present.
    """

    models: tuple[str, ...]
    game_seeds: IntArray
    blocks: tuple[str, ...]
    game: IntArray
    first: IntArray
    second: IntArray
    margin: FloatArray
    wins_first: IntArray
    wins_second: IntArray
    block: IntArray
    cell: IntArray
    cell_game: IntArray
    cell_first: IntArray
    cell_second: IntArray
    cell_block: IntArray

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_games(self) -> int:
        return len(self.game_seeds)

    @property
    def n_runs(self) -> int:
        return len(self.game)

    @property
    def n_cells(self) -> int:
        return len(self.cell_game)

    def matches_per_model(self) -> IntArray:
        """Single-deal matches played by each model (two per run)."""
        counts = np.bincount(self.first, minlength=self.n_models) + np.bincount(
            self.second, minlength=self.n_models
        )
        return (2 * counts).astype(np.int64)

    def model_index(self, name: str) -> int:
        if name not in self.models:
            raise ValueError(f"unknown model {name!r}; the corpus has {', '.join(self.models)}")
        return self.models.index(name)


def check_columns(matches: pd.DataFrame) -> None:
    """Raise ``ValueError`` naming the DESIGN match columns that are missing."""
    missing = [c for c in REQUIRED_COLUMNS if c not in matches.columns]
    if missing:
        raise ValueError(
            f"match table lacks column(s) {', '.join(missing)}; expected the DESIGN match schema"
        )


def complete_runs(matches: pd.DataFrame) -> pd.DataFrame:
    """The deals of runs whose two seat-swapped deals both completed (Section 5's complete pairs).

    Steps: group deals by run (game, run id, play seed); reject runs of more than two deals,
    since those are not paired deals at all; keep the runs whose two deals were both decided
    (``engines.tournament.pairs.complete_pairs``); reject kept runs that are not seat-swapped
    pairs of two models (``engines.tournament.corpus_checks.paired_runs``); order each run's two
    deals by the model in Alice's seat.
    """
    check_columns(matches)
    frame = matches.loc[:, list(REQUIRED_COLUMNS)].copy()
    _, deals, _ = run_sizes(frame)
    if (deals > 2).any():
        bad = frame.loc[deals > 2, "run_id"].iloc[0]
        raise ValueError(f"run {bad!r} has more than two deals; a run is one paired deal")
    kept, _ = complete_pairs(frame)
    if kept.empty:
        raise ValueError("the match table has no complete paired deals")
    check = paired_runs(kept)
    if not check.passed:
        raise ValueError(check.problems[0])
    return kept.sort_values([*RUN_KEY, "alice"], kind="stable")


def run_table(matches: pd.DataFrame) -> RunTable:
    """Reduce a match table to a ``RunTable`` (complete runs only)."""
    frame = complete_runs(matches)
    conserved = zero_sum(matches)  # the margins are evidence only if the chips agree with them
    if not conserved.passed:
        raise ValueError(f"the corpus is refused: {conserved.message}")
    margin = pd.to_numeric(frame["margin_alice"], errors="coerce").to_numpy(dtype=np.float64)
    if not np.isfinite(margin).all():
        raise ValueError("margin_alice has missing or non-numeric values in complete matches")
    models = tuple(sorted(set(frame["alice"]) | set(frame["bob"])))
    if len(models) < 2:
        raise ValueError("the corpus needs at least two models")
    index = {name: k for k, name in enumerate(models)}
    alice = frame["alice"].map(index).to_numpy(dtype=np.int64)
    bob = frame["bob"].map(index).to_numpy(dtype=np.int64)
    seeds_all = frame["game_seed"].to_numpy(dtype=np.int64)
    blocks_all = frame["block"].astype(str).to_numpy()
    a1, b1, m1 = alice[0::2], bob[0::2], margin[0::2]
    m2 = margin[1::2]
    first = np.minimum(a1, b1)
    second = np.maximum(a1, b1)
    # the first model's margin in deal 1 is m1 if it sat Alice, else -m1; deal 2 the reverse.
    sign = np.where(a1 == first, 1.0, -1.0)
    run_margin = sign * (m1 - m2)
    first_m1 = sign * m1
    first_m2 = -sign * m2
    wins_first = (first_m1 > 0).astype(np.int64) + (first_m2 > 0).astype(np.int64)
    wins_second = (first_m1 < 0).astype(np.int64) + (first_m2 < 0).astype(np.int64)
    game_seeds, game = np.unique(seeds_all[0::2], return_inverse=True)
    blocks, block = np.unique(blocks_all[0::2], return_inverse=True)
    m = len(models)
    key = (block.astype(np.int64) * len(game_seeds) + game) * m * m + first * m + second
    cell_keys, cell = np.unique(key, return_inverse=True)
    pair_part = cell_keys % (m * m)
    game_part = (cell_keys // (m * m)) % len(game_seeds)
    return RunTable(
        models=models,
        game_seeds=game_seeds.astype(np.int64),
        blocks=tuple(str(b) for b in blocks),
        game=game.astype(np.int64),
        first=first,
        second=second,
        margin=run_margin,
        wins_first=wins_first,
        wins_second=wins_second,
        block=block.astype(np.int64),
        cell=cell.astype(np.int64),
        cell_game=game_part.astype(np.int64),
        cell_first=(pair_part // m).astype(np.int64),
        cell_second=(pair_part % m).astype(np.int64),
        cell_block=(cell_keys // (m * m * len(game_seeds))).astype(np.int64),
    )
