"""Every table of Sections 6-7 and Appendices E-H from a corpus, in one call.

Why it exists: the issue asks that every table of the paper be reproducible from a match corpus
with one call, and that all intervals share one resampling. ``analyse`` reduces the corpus to
complete runs, draws the clustered bootstrap once (B = 2,000 by default), and derives from it:

1. the overall leaderboard with tiers (Table 1);
2. per-game strengths and mean margins (Tables 11-12), head-to-head tables (Tables 9-10), the
   direction check and the win-indicator Bradley-Terry fit (Appendix E);
3. robustness: leave-one-game-out, random game subsets, one block, without one model (E.1);
4. with axis scores: composite complexity, the hardest-8 and most-temporal-8 leaderboards, the
   half-split check, tertile leaderboards (Appendix E); capability profiles with BH, factor
   analysis, local jaggedness, variance decomposition and the verbosity check (Section 7, F-H).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.axes.names import AXES
from engines.stats import capability as prof
from engines.stats import composite as comp
from engines.stats import plots
from engines.stats import robustness as rob
from engines.stats import validity as val
from engines.stats.bootstrap import DEFAULT_BOOTSTRAP
from engines.stats.leaderboard import Leaderboard, RunSample, fit_leaderboard
from engines.stats.pairwise import (
    bradley_terry_frame,
    direction_agreement,
    pairwise_margins,
    pairwise_matrix,
)
from engines.stats.pergame import per_game_alpha, per_game_frame, per_game_mean_margin
from engines.stats.runs import RunTable, complete_runs, run_table

FloatArray = npt.NDArray[np.float64]

# Section 7's regression has six coefficients; leave-one-out jaggedness needs two more games.
MIN_PROFILE_GAMES = 8
# The composite complexity (Section 7) fits a factor of the axes across the benchmark's games.
MIN_COMPOSITE_GAMES = 3


@dataclass(frozen=True)
class AnalysisConfig:
    """Knobs of the analysis; the defaults are the paper's."""

    n_boot: int = DEFAULT_BOOTSTRAP
    subset_sizes: tuple[int, ...] = rob.SUBSET_SIZES
    n_subsets: int = rob.N_SUBSETS
    n_splits: int = comp.N_SPLITS
    hardest: int = comp.HARDEST
    block: str | None = None
    exclude_model: str | None = None
    q: float = 0.05
    level: float = 0.95


@dataclass
class Analysis:
    """The tables (by name), headline figures, and what the plots need."""

    tables: dict[str, pd.DataFrame]
    summary: dict[str, Any]
    runs: RunTable
    alpha_game: FloatArray
    alpha_boot: FloatArray
    z: FloatArray | None = None
    composite_scores: FloatArray | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def plots(self) -> dict[str, bytes]:
        """PNG figures: leaderboard, per-game heatmap, and with axes the profile heatmap and the
        benchmark on two axes (temporal x state space)."""
        board = self.tables["leaderboard"]
        order = list(board["model"])
        figures = {
            "leaderboard": plots.leaderboard_plot(board),
            "per_game_heatmap": plots.per_game_heatmap(self.tables["per_game_alpha"], order),
        }
        if "profile" in self.tables:
            figures["profile_heatmap"] = plots.profile_heatmap(self.tables["profile"], order, AXES)
        if self.z is not None and self.composite_scores is not None:
            figures["benchmark_axes"] = plots.axes_map(
                self.z, self.composite_scores, "temporal", "state_space", AXES
            )
        return figures


def analyse(
    matches: pd.DataFrame,
    axis_scores: pd.DataFrame | None = None,
    *,
    rng: np.random.Generator,
    config: AnalysisConfig | None = None,
) -> Analysis:
    """Run the whole analysis of Sections 6-7 on a match corpus (DESIGN schema).

    ``axis_scores`` has ``game_seed`` and the five axes, and optionally ``payoff_scale`` (the
    random-play chip scale for jaggedness; without it the corpus's own per-game margin SD is used)
    and ``rulebook_chars`` (for the verbosity check, skipped without it).
    """
    config = config or AnalysisConfig()
    runs = run_table(matches)
    sample = RunSample.draw(runs, config.n_boot, rng)
    board = fit_leaderboard(sample, level=config.level)
    alpha_game = per_game_alpha(runs, sample.observed)[0]
    alpha_boot = per_game_alpha(runs, sample.replicates)
    tables, summary = _leaderboard_tables(sample, board, alpha_game, rng, config)
    result = Analysis(
        tables=tables, summary=summary, runs=runs, alpha_game=alpha_game, alpha_boot=alpha_boot
    )
    if val.has_seat_columns(matches):
        result.tables["rethink_fallback"] = val.rethink_fallback_summary(matches)
    if axis_scores is not None:
        _profile_tables(result, sample, board, matches, axis_scores, rng, config)
    return result


def _board_table(board: Leaderboard, label: str | None = None) -> pd.DataFrame:
    table = board.table.copy()
    if label is not None:
        table.insert(0, "subset", label)
    return table


def _leaderboard_tables(
    sample: RunSample,
    board: Leaderboard,
    alpha_game: FloatArray,
    rng: np.random.Generator,
    config: AnalysisConfig,
) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    runs = sample.runs
    order = list(board.table["model"])
    pairs = pairwise_margins(sample, config.level)
    direction = direction_agreement(pairs, board.table)
    not_estimable: dict[str, str] = {}
    try:
        bt, bt_rho = bradley_terry_frame(runs, board.alpha)
    except ValueError as exc:  # complete separation: no finite maximum-likelihood fit
        not_estimable["bradley_terry"] = str(exc)
        bt = pd.DataFrame(columns=["model", "theta", "rank", "wins", "losses", "alpha"])
        bt_rho = float("nan")
    if runs.n_games >= 2:
        logo = rob.leave_one_game_out(sample, board)
    else:  # dropping the only game leaves nothing to refit
        not_estimable["leave_one_game_out"] = "one game: no game can be left out"
        logo = pd.DataFrame(
            {
                "dropped_game": pd.Series(dtype="int64"),
                "kendall_tau": pd.Series(dtype=float),
                "spearman": pd.Series(dtype=float),
                "max_rank_shift": pd.Series(dtype="int64"),
                "tiers_intact": pd.Series(dtype=bool),
            }
        )
    sizes = tuple(size for size in config.subset_sizes if size < runs.n_games)
    subsets = rob.random_game_subsets(sample, board, rng, sizes, config.n_subsets)
    block = config.block or runs.blocks[int(np.argmax(np.bincount(runs.block)))]
    block_fit = rob.block_refit(sample, block, board)
    dropped = config.exclude_model or order[-1]
    if runs.n_models >= 3:
        without = rob.without_model(sample, dropped, board)
        without_table = _board_table(without.leaderboard, f"without {dropped}")
        without_kendall = without.kendall_tau
    else:  # leaving one of two models out leaves no pair to fit
        not_estimable["without_model"] = "two models: leaving one out leaves no pair to fit"
        without_table = _board_table(board, f"without {dropped}").iloc[0:0]
        without_kendall = float("nan")
    tables = {
        "leaderboard": board.table,
        "per_game_alpha": per_game_frame(runs, alpha_game).loc[:, order],
        "per_game_margin": per_game_mean_margin(runs).loc[:, order],
        "pairwise": pairs,
        "pairwise_margin": pairwise_matrix(pairs, order, "mean_margin"),
        "paired_deals": pairwise_matrix(pairs, order, "paired_deals"),
        "bradley_terry": bt,
        "leave_one_game_out": logo,
        "game_subsets": subsets,
        "block_leaderboard": _board_table(block_fit.leaderboard, block),
        "without_model_leaderboard": without_table,
        "late_block": val.late_block_from_runs(runs),
    }
    summary: dict[str, Any] = {
        "models": runs.n_models,
        "games": runs.n_games,
        "paired_deals": runs.n_runs,
        "matches": 2 * runs.n_runs,
        "bootstrap": config.n_boot,
        "spread": board.spread(),
        "tiers": int(board.table["tier"].max()),
        "logo_mean_kendall": float(logo["kendall_tau"].mean()),
        "logo_min_kendall": float(logo["kendall_tau"].min()),
        "logo_tiers_intact": int(logo["tiers_intact"].sum()),
        "pairs_met": direction.pairs,
        "pairs_in_leaderboard_direction": direction.agree,
        "significant_exceptions": direction.significant_exceptions,
        "bradley_terry_spearman": bt_rho,
        "block": block,
        "block_kendall": block_fit.kendall_tau,
        "without_model": dropped,
        "without_model_kendall": without_kendall,
        "not_estimable": not_estimable,
    }
    return tables, summary


def _payoff_scale(
    matches: pd.DataFrame, axis_scores: pd.DataFrame, game_seeds: npt.NDArray[np.int64]
) -> FloatArray:
    """Random-play payoff scale per game (Section 7: jaggedness is "in units of each game's
    payoff scale under random play"): the axes' ``std_g`` (Appendix C, STD_g), or a column
    ``payoff_scale`` given instead; without either, the SD of the corpus's margins per game."""
    column = next((c for c in ("std_g", "payoff_scale") if c in axis_scores.columns), None)
    if column is not None:
        table = axis_scores.drop_duplicates("game_seed").set_index("game_seed")
        scale = table.loc[list(game_seeds), column].to_numpy(dtype=np.float64)
    else:
        deals = complete_runs(matches)
        sd = deals.groupby("game_seed")["margin_alice"].std()
        scale = sd.loc[list(game_seeds)].to_numpy(dtype=np.float64)
    if not (np.isfinite(scale).all() and (scale > 0).all()):
        raise ValueError("payoff scales must be positive and finite for every game")
    result: FloatArray = np.asarray(scale, dtype=np.float64)
    return result


def _profile_tables(
    result: Analysis,
    sample: RunSample,
    board: Leaderboard,
    matches: pd.DataFrame,
    axis_scores: pd.DataFrame,
    rng: np.random.Generator,
    config: AnalysisConfig,
) -> None:
    runs, tables, summary = sample.runs, result.tables, result.summary
    alpha_game, alpha_boot = result.alpha_game, result.alpha_boot
    if runs.n_games < MIN_COMPOSITE_GAMES:
        raise ValueError(
            f"composite complexity needs at least {MIN_COMPOSITE_GAMES} games, "
            f"the corpus has {runs.n_games}"
        )
    z = comp.zscore_axes(axis_scores, runs.game_seeds)
    hardest_k = min(config.hardest, runs.n_games)
    cx = comp.composite(alpha_game, z)
    hardest = comp.games_leaderboard(sample, comp.top_games(cx.scores, hardest_k))
    temporal = z[:, AXES.index("temporal")]
    most_temporal = comp.games_leaderboard(sample, comp.top_games(temporal, hardest_k))
    try:
        split = comp.half_split_check(sample, alpha_game, z, rng, config.n_splits, hardest_k)
    except (ValueError, np.linalg.LinAlgError) as exc:  # halves too small to fit the slopes
        summary["not_estimable"]["half_split"] = f"{type(exc).__name__}: {exc}"
        split = pd.DataFrame({"spread": pd.Series(dtype=float)})
    alternatives, _ = val.composite_alternatives(sample, alpha_game, z, hardest_k)
    by_temporal = comp.tertile_leaderboards(sample, temporal)
    by_composite = comp.tertile_leaderboards(sample, cx.scores)
    dropped = summary["without_model"]
    keep = np.array([m != dropped for m in runs.models])
    decomposition = pd.concat(
        [
            prof.variance_decomposition(alpha_game, alpha_boot, config.level).assign(models="all"),
            prof.variance_decomposition(alpha_game[keep], alpha_boot[:, keep], config.level).assign(
                models=f"without {dropped}"
            ),
        ],
        ignore_index=True,
    )
    tables.update(
        {
            "axis_slopes": pd.DataFrame(cx.slopes, index=list(runs.models), columns=AXES),
            "composite_weights": pd.DataFrame({"axis": AXES, "weight": cx.weights}),
            "composite_scores": pd.DataFrame({"game_seed": runs.game_seeds, "score": cx.scores}),
            "hardest_leaderboard": _board_table(hardest, f"hardest {hardest_k}"),
            "most_temporal_leaderboard": _board_table(most_temporal, "most temporal"),
            "half_split": split,
            "temporal_tertiles": pd.concat(
                [_board_table(b, f"temporal tertile {t + 1}") for t, b in enumerate(by_temporal)]
            ),
            "composite_tertiles": pd.concat(
                [_board_table(b, f"composite tertile {t + 1}") for t, b in enumerate(by_composite)]
            ),
            "variance_decomposition": decomposition,
            "composite_alternatives": alternatives,
        }
    )
    summary.update(
        {
            "composite_explained": cx.explained,
            "hardest_spread": hardest.spread(),
            "most_temporal_spread": most_temporal.spread(),
            "half_split_spread_mean": float(split["spread"].mean()) if len(split) else math.nan,
            "half_split_spread_sd": float(split["spread"].std(ddof=1))
            if len(split) > 1
            else math.nan,
            "temporal_tertile_spreads": [b.spread() for b in by_temporal],
            "composite_tertile_spreads": [b.spread() for b in by_composite],
        }
    )
    if runs.n_games >= MIN_PROFILE_GAMES:
        _regression_tables(result, board, matches, axis_scores, z, config)
    else:
        summary["profiles_skipped"] = (
            f"{runs.n_games} games; capability profiles need at least {MIN_PROFILE_GAMES}"
        )
    result.z = z
    result.composite_scores = cx.scores


def _regression_tables(
    result: Analysis,
    board: Leaderboard,
    matches: pd.DataFrame,
    axis_scores: pd.DataFrame,
    z: FloatArray,
    config: AnalysisConfig,
) -> None:
    """Section 7 and Appendices G-H: profiles with BH, factor analysis, jaggedness, verbosity."""
    runs, tables, summary = result.runs, result.tables, result.summary
    alpha_game, alpha_boot = result.alpha_game, result.alpha_boot
    profile = prof.profile_slopes(
        alpha_game, alpha_boot, z, runs.models, q=config.q, level=config.level
    )
    factor = prof.factor_analysis(
        alpha_game, z, runs.models, runs.game_seeds, board.alpha, config.q
    )
    scale = _payoff_scale(matches, axis_scores, runs.game_seeds)
    tables.update(
        {
            "profile": profile,
            "factor_loadings": factor.loadings.reset_index(),
            "factor_axes": factor.axis_correlation,
            "factor_residuals": factor.residual_correlation,
            "jaggedness": prof.local_jaggedness(alpha_game, alpha_boot, z, scale, runs.models),
        }
    )
    if "rulebook_chars" in axis_scores.columns:
        table = axis_scores.drop_duplicates("game_seed").set_index("game_seed")
        chars = table.loc[list(runs.game_seeds), "rulebook_chars"].to_numpy(dtype=np.float64)
        coefficients, changes = prof.verbosity_check(
            alpha_game, alpha_boot, z, chars, runs.models, profile, config.q
        )
        tables["verbosity"] = coefficients
        tables["verbosity_changes"] = changes
        summary["verbosity_significant"] = int(coefficients["significant"].sum())
    summary.update(
        {
            "significant_slopes": int(profile["significant"].sum()),
            "factor_share": factor.share,
            "factor_significant_residuals": int(factor.residual_correlation["significant"].sum()),
        }
    )
