"""Capability profiles: how each model's advantage moves along the five axes (Section 7, App. F-H).

Why it exists: two models with equal overall strength can earn it on different games. Section 7
regresses each model's per-game strengths on the z-scored axes and asks which slopes are real;
Appendix G.1 asks how much of the grid one factor explains; Appendix H asks how far each model
departs from its own smooth trend (local jaggedness); Appendix F asks how large the model x game
interaction is once estimation noise is taken out; and a last check adds rulebook verbosity as a
regressor. Every interval comes from the clustered bootstrap replicates of the alpha_{m,g} grid
(B = 2,000): each statistic here is recomputed on each replicate grid, never refit from rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.axes.names import AXES
from engines.numeric.special import t_sf
from engines.numeric.zscores import zscores
from engines.stats.bootstrap import bootstrap_p_value, percentile_interval
from engines.stats.composite import regressor_zscores
from engines.stats.ranks import spearman_rho

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

PROFILE_COLUMNS: tuple[str, ...] = (
    "model",
    "term",
    "coef",
    "ci_low",
    "ci_high",
    "p_value",
    "q_value",
    "significant",
)


def benjamini_hochberg(p_values: FloatArray, q: float = 0.05) -> tuple[BoolArray, FloatArray]:
    """Benjamini-Hochberg step-up: which hypotheses are rejected at FDR ``q``, and adjusted p.

    Steps: sort the n p-values; adjusted p_(i) = min_{k >= i} n p_(k) / k, capped at one;
    reject where the adjusted p is at most q.
    """
    p = np.asarray(p_values, dtype=np.float64).ravel()
    if not np.isfinite(p).all() or ((p < 0) | (p > 1)).any():
        raise ValueError("p-values must be finite and lie in [0, 1]")
    n = len(p)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * n / np.arange(1, n + 1)
    adjusted_sorted = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    adjusted = np.empty(n)
    adjusted[order] = adjusted_sorted
    return adjusted <= q, adjusted


def ols_coefficients(y: FloatArray, x: FloatArray) -> FloatArray:
    """Least-squares coefficients of each row of ``y`` (..., G) on the design ``x`` (G, K)."""
    coef: FloatArray = y @ np.linalg.pinv(x).T
    return coef


def profile_slopes(
    alpha_game: FloatArray,
    alpha_boot: FloatArray,
    regressors: FloatArray,
    models: tuple[str, ...],
    terms: tuple[str, ...] = AXES,
    family: tuple[str, ...] | None = None,
    q: float = 0.05,
    level: float = 0.95,
) -> pd.DataFrame:
    """Section 7's per-model OLS, alpha_{m,g} = b_0 + sum_a b_a z_a(g) + e, with intervals.

    Steps, per model: keep the games it played; solve OLS for the data and (same design) for every
    replicate grid; percentile intervals and two-sided bootstrap p-values per coefficient. Then
    Benjamini-Hochberg across all model x term cells of ``family`` (all non-intercept terms by
    default); cells outside the family get NaN q-values.
    """
    family = terms if family is None else family
    rows = []
    for i, model in enumerate(models):
        keep = np.isfinite(alpha_game[i])
        x = np.column_stack([np.ones(int(keep.sum())), regressors[keep]])
        pinv = np.linalg.pinv(x)
        coef = pinv @ alpha_game[i, keep]
        boot = alpha_boot[:, i, keep] @ pinv.T
        low, high = percentile_interval(boot, level)
        p = bootstrap_p_value(boot)
        for k, term in enumerate(("intercept", *terms)):
            rows.append((model, term, coef[k], low[k], high[k], p[k]))
    frame = pd.DataFrame(rows, columns=["model", "term", "coef", "ci_low", "ci_high", "p_value"])
    in_family = frame["term"].isin(family).to_numpy()
    reject, adjusted = benjamini_hochberg(frame.loc[in_family, "p_value"].to_numpy(), q)
    frame["q_value"] = np.nan
    frame.loc[in_family, "q_value"] = adjusted
    frame["significant"] = False
    frame.loc[in_family, "significant"] = reject
    return frame.loc[:, list(PROFILE_COLUMNS)]


@dataclass(frozen=True)
class FactorAnalysis:
    """First factor of the standardised grid (Appendix G.1)."""

    share: float
    loadings: pd.Series
    scores: pd.Series
    axis_correlation: pd.DataFrame
    residual_correlation: pd.DataFrame


def factor_analysis(
    alpha_game: FloatArray,
    z: FloatArray,
    models: tuple[str, ...],
    game_seeds: npt.NDArray[np.int64],
    overall: FloatArray,
    q: float = 0.05,
) -> FactorAnalysis:
    """Appendix G.1: the first factor of the SVD of the standardised alpha_{m,g} grid.

    Steps:
    1. keep games every model played; standardise each model's row across games;
    2. SVD; the first factor's share is s_1^2 / sum s^2; game scores s_1 v_1, model loadings u_1,
       signed so the loadings rise with overall strength (a high score: the strong gain);
    3. correlate the game scores with each raw axis (Spearman and Pearson);
    4. remove the factor and test every pair of models' residual correlation (Pearson t-test,
       n - 2 degrees of freedom), with Benjamini-Hochberg across pairs.
    """
    keep = np.isfinite(alpha_game).all(axis=0)
    grid = alpha_game[:, keep]
    std = zscores(grid, ddof=0, axis=1)
    u, s, vt = np.linalg.svd(std, full_matrices=False)
    loadings, scores = u[:, 0], s[0] * vt[0]
    if np.corrcoef(loadings, overall)[0, 1] < 0:
        loadings, scores = -loadings, -scores
    axis_rows = [
        (axis, spearman_rho(scores, z[keep, a]), float(np.corrcoef(scores, z[keep, a])[0, 1]))
        for a, axis in enumerate(AXES)
    ]
    residual = std - s[0] * np.outer(u[:, 0], vt[0])
    corr = np.corrcoef(residual)
    n = residual.shape[1]
    i, j = np.triu_indices(len(models), k=1)
    r = np.clip(corr[i, j], -1.0 + 1e-15, 1.0 - 1e-15)
    t = r * np.sqrt((n - 2) / (1.0 - r * r))
    p = 2.0 * t_sf(np.abs(t), n - 2)
    reject, adjusted = benjamini_hochberg(p, q)
    names = np.asarray(models, dtype=object)
    return FactorAnalysis(
        share=float(s[0] ** 2 / (s**2).sum()),
        loadings=pd.Series(loadings, index=pd.Index(models, name="model"), name="loading"),
        scores=pd.Series(scores, index=pd.Index(game_seeds[keep], name="game_seed"), name="score"),
        axis_correlation=pd.DataFrame(axis_rows, columns=["axis", "spearman", "pearson"]),
        residual_correlation=pd.DataFrame(
            {
                "model_a": names[i],
                "model_b": names[j],
                "r": corr[i, j],
                "p_value": p,
                "q_value": adjusted,
                "significant": reject,
            }
        ),
    )


def local_jaggedness(
    alpha_game: FloatArray,
    alpha_boot: FloatArray,
    z: FloatArray,
    payoff_scale: FloatArray,
    models: tuple[str, ...],
) -> pd.DataFrame:
    """Appendix H: each model's departure from a smooth surface over the axes, net of noise.

    Steps, per model, over the games it played:
    1. the surface is the least-squares linear fit of alpha_{m,g} on the five z-scored axes; each
       game is predicted from the others: leave-one-out residuals e = Q alpha with
       Q = diag(1/(1-h)) (I - H); they are put in units of each game's random-play payoff scale,
       r_g = e_g / s_g;
    2. the sampling variance v_g of each alpha_{m,g} is its bootstrap variance;
    3. with alpha_{m,g} = surface + J s_g xi_g + noise (xi of unit variance), and the games'
       estimates independent (they use disjoint runs),
       E[mean r^2] = J^2 F + N with F = mean_g sum_k Q_gk^2 s_k^2 / s_g^2 and
       N = mean_g sum_k Q_gk^2 v_k / s_g^2; so J = sqrt(max(0, (mean r^2 - N) / F)).
    Also reported: the surface's in-sample R^2 and the raw leave-one-out RMS (payoff units).
    """
    rows = []
    for i, model in enumerate(models):
        keep = np.isfinite(alpha_game[i])
        y, s = alpha_game[i, keep], payoff_scale[keep]
        v = np.var(alpha_boot[:, i, keep], axis=0, ddof=1 if len(alpha_boot) > 1 else 0)
        x = np.column_stack([np.ones(int(keep.sum())), z[keep]])
        hat = x @ np.linalg.pinv(x)
        q_op = (np.eye(len(y)) - hat) / (1.0 - np.diag(hat))[:, None]
        r = (q_op @ y) / s
        q2 = (q_op * q_op) / (s * s)[:, None]
        inflation = float((q2 @ (s * s)).mean())
        noise = float((q2 @ v).mean())
        mean_sq = float((r * r).mean())
        fitted = hat @ y
        r2 = 1.0 - float(((y - fitted) ** 2).sum() / ((y - y.mean()) ** 2).sum())
        rows.append(
            {
                "model": model,
                "jaggedness": float(np.sqrt(max(0.0, (mean_sq - noise) / inflation))),
                "raw_rms": float(np.sqrt(mean_sq)),
                "noise_rms": float(np.sqrt(noise)),
                "r2": r2,
                "games": int(keep.sum()),
            }
        )
    return pd.DataFrame(rows)


def main_effect(grid: FloatArray) -> FloatArray:
    """sigma_M^2 of each grid (..., M, G): variance (ddof 1) of the per-model means."""
    means = np.nanmean(grid, axis=-1)
    out: FloatArray = np.var(means, axis=-1, ddof=1)
    return out


def interaction(grid: FloatArray) -> FloatArray:
    """sigma_MG^2 of each grid (..., M, G): residual variance after model and game means,
    sum r^2 / ((M - 1)(G - 1))."""
    m, g = grid.shape[-2], grid.shape[-1]
    resid = (
        grid
        - grid.mean(axis=-1, keepdims=True)
        - grid.mean(axis=-2, keepdims=True)
        + grid.mean(axis=(-2, -1), keepdims=True)
    )
    out: FloatArray = (resid * resid).sum(axis=(-2, -1)) / ((m - 1) * (g - 1))
    return out


def variance_decomposition(
    alpha_game: FloatArray, alpha_boot: FloatArray, level: float = 0.95
) -> pd.DataFrame:
    """Appendix F: sigma_M^2, sigma_MG^2 and their ratio, observed, noise, corrected, interval.

    Steps: keep games every model played; compute each component on the grid; its noise is the
    same quadratic form applied to the bootstrap deviations (the mean over replicates of
    f(A* - mean A*), an estimate of tr(Q Sigma)); corrected = observed - noise. A replicate carries
    the noise twice (from the data and from the resampling), so the interval is the percentile
    interval of f(A*) - 2 noise, and of the ratio of those.
    """
    keep = np.isfinite(alpha_game).all(axis=0) & np.isfinite(alpha_boot).all(axis=(0, 1))
    grid, boot = alpha_game[:, keep], alpha_boot[:, :, keep]
    deviations = boot - boot.mean(axis=0)
    rows = []
    corrected_reps: list[FloatArray] = []
    corrected: list[float] = []
    observed: list[float] = []
    for name, f in (("sigma2_M", main_effect), ("sigma2_MG", interaction)):
        obs = float(f(grid))
        noise = float(f(deviations).mean())
        reps = f(boot) - 2.0 * noise
        low, high = percentile_interval(reps[:, None], level)
        rows.append((name, obs, noise, obs - noise, float(low[0]), float(high[0])))
        corrected_reps.append(reps)
        corrected.append(obs - noise)
        observed.append(obs)
    ratio_reps = corrected_reps[1] / corrected_reps[0]
    low, high = percentile_interval(ratio_reps[:, None], level)
    rows.append(
        (
            "ratio_MG_M",
            observed[1] / observed[0],
            np.nan,
            corrected[1] / corrected[0],
            float(low[0]),
            float(high[0]),
        )
    )
    return pd.DataFrame(
        rows, columns=["quantity", "observed", "noise", "corrected", "ci_low", "ci_high"]
    )


def verbosity_check(
    alpha_game: FloatArray,
    alpha_boot: FloatArray,
    z: FloatArray,
    rulebook_chars: FloatArray,
    models: tuple[str, ...],
    baseline: pd.DataFrame,
    q: float = 0.05,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Robustness to rulebook verbosity: log10(characters), z-scored, as a sixth regressor.

    Returns the verbosity coefficient per model (BH across models), and the change of every axis
    slope against ``baseline`` (the five-axis profile), with the axes' correlation with length.
    """
    if (np.asarray(rulebook_chars) <= 0).any():
        raise ValueError("rulebook lengths must be positive character counts")
    verbosity = regressor_zscores(np.log10(np.asarray(rulebook_chars, dtype=np.float64))[:, None])
    regressors = np.column_stack([z, verbosity])
    table = profile_slopes(
        alpha_game,
        alpha_boot,
        regressors,
        models,
        terms=(*AXES, "verbosity"),
        family=("verbosity",),
        q=q,
    )
    coefficients = table.loc[table["term"] == "verbosity"].reset_index(drop=True)
    merged = table.loc[table["term"].isin(AXES), ["model", "term", "coef"]].merge(
        baseline.loc[:, ["model", "term", "coef"]],
        on=["model", "term"],
        suffixes=("_with_verbosity", "_without"),
    )
    merged["change"] = merged["coef_with_verbosity"] - merged["coef_without"]
    corr = {axis: spearman_rho(verbosity[:, 0], z[:, a]) for a, axis in enumerate(AXES)}
    merged["axis_length_spearman"] = merged["term"].map(corr)
    return coefficients, merged
