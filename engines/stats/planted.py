"""Planted-strength corpus simulator: the ground truth for every estimator of Sections 6-7.

Why it exists: the leaderboard, per-game strengths, profiles and jaggedness of Sections 6-7 and
Appendices E-H can only be shown to be right on a corpus whose answer is known. This module draws a
tournament corpus in the DESIGN match schema from planted quantities:

- a strength ``alpha_m`` per model (chips/game, summing to zero),
- per-game strengths ``alpha_{m,g} = alpha_m + sum_a beta_{m,a} z_a(g) + j_m s_g eta_{m,g}``,
  centred over models on each game (Section 7's regression with a planted jagged part, Appendix H),
- a seat advantage per game, and card luck shared by the two deals of a run (Section 5: both deals
  of a run share the play seed, so whoever holds Alice's cards holds them twice).

The schedule mirrors Section 5: the first-block models play a round robin on every game, and the
later-block models each meet three to five opponents per game.

The estimand of any estimator that is linear in the margins is that estimator applied to the same
corpus with every margin replaced by its expectation: ``noise_free`` builds that corpus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.axes.names import AXES
from engines.numeric.zscores import zscores

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

EARLY_BLOCK = "april"
LATE_BLOCK = "september"


@dataclass(frozen=True)
class SimulationConfig:
    """Sizes and planted effect sizes; the defaults are the paper's scale (about 40,000 matches)."""

    n_models: int = 12
    n_games: int = 50
    n_late_models: int = 3
    late_opponents: tuple[int, int] = (3, 5)
    runs_per_matchup: int = 8
    strength_sd: float = 0.9
    slope_sd: float = 0.12
    temporal_gain: float = 0.25
    jaggedness: tuple[float, float] = (0.02, 0.12)
    payoff_scale: tuple[float, float] = (3.0, 10.0)
    luck_sd: float = 0.8
    play_sd: float = 0.7
    seat_advantage_sd: float = 0.2
    incomplete_rate: float = 0.0

    def __post_init__(self) -> None:
        if self.n_models < 3 or self.n_games < 3:
            raise ValueError("a simulated tournament needs at least 3 models and 3 games")
        if not 0 <= self.n_late_models <= self.n_models - 2:
            raise ValueError("n_late_models must leave at least two first-block models")
        low, high = self.late_opponents
        if not 1 <= low <= high:
            raise ValueError("late_opponents must be an increasing pair of positive counts")
        if self.runs_per_matchup < 1:
            raise ValueError("runs_per_matchup must be positive")
        if not 0.0 <= self.incomplete_rate < 1.0:
            raise ValueError("incomplete_rate must lie in [0, 1)")


@dataclass(frozen=True)
class PlantedTruth:
    """The planted quantities (chips/game on the margin scale of Section 6)."""

    models: tuple[str, ...]
    game_seeds: IntArray
    alpha: FloatArray
    alpha_game: FloatArray
    slopes: FloatArray
    jaggedness: FloatArray
    seat_advantage: FloatArray
    late_models: tuple[str, ...]


@dataclass(frozen=True)
class SimulatedCorpus:
    """A corpus in the DESIGN match schema, the games' axis scores, and the planted truth."""

    matches: pd.DataFrame
    axis_scores: pd.DataFrame
    truth: PlantedTruth


def simulate_corpus(config: SimulationConfig, rng: np.random.Generator) -> SimulatedCorpus:
    """Draw a corpus with planted strengths.

    Steps:
    1. draw the games: five raw axes, a random-play payoff scale, a rulebook length;
    2. draw strengths, slopes on the z-scored axes and per-model jaggedness, and form alpha_{m,g};
    3. schedule the matchups (round robin in the first block, 3-5 opponents for late models);
    4. for each run draw one card luck for Alice's seat, shared by both deals, and a play noise
       per deal; chip deltas are whole chips and sum to zero.
    """
    models = tuple(f"model-{k + 1:02d}" for k in range(config.n_models))
    late_models = models[config.n_models - config.n_late_models :]
    axis_scores = _draw_games(config, rng)
    z = zscores(axis_scores[list(AXES)].to_numpy(dtype=np.float64), ddof=0)
    scale = axis_scores["payoff_scale"].to_numpy(dtype=np.float64)
    alpha, slopes, jag, alpha_game = _draw_strengths(config, z, scale, rng)
    seat = rng.normal(0.0, config.seat_advantage_sd, config.n_games) * scale
    truth = PlantedTruth(
        models=models,
        game_seeds=axis_scores["game_seed"].to_numpy(dtype=np.int64),
        alpha=alpha,
        alpha_game=alpha_game,
        slopes=slopes,
        jaggedness=jag,
        seat_advantage=seat,
        late_models=late_models,
    )
    games, first, second = _schedule(config, rng)
    matches = _play(config, truth, scale, games, first, second, rng)
    return SimulatedCorpus(matches=matches, axis_scores=axis_scores, truth=truth)


def expected_margins(matches: pd.DataFrame, truth: PlantedTruth) -> FloatArray:
    """Expected ``margin_alice`` of every match: alpha_{alice,g} - alpha_{bob,g} + seat_g.

    Card luck and play noise have mean zero; rounding to whole chips is negligible at the
    simulated noise levels (its bias is below 1e-6 chips).
    """
    index = {name: k for k, name in enumerate(truth.models)}
    game_index = {int(seed): k for k, seed in enumerate(truth.game_seeds)}
    g = np.array([game_index[int(s)] for s in matches["game_seed"]], dtype=np.int64)
    a = np.array([index[m] for m in matches["alice"]], dtype=np.int64)
    b = np.array([index[m] for m in matches["bob"]], dtype=np.int64)
    expected: FloatArray = truth.alpha_game[a, g] - truth.alpha_game[b, g] + truth.seat_advantage[g]
    return expected


def noise_free(matches: pd.DataFrame, truth: PlantedTruth) -> pd.DataFrame:
    """The same corpus with each margin replaced by its expectation (the estimand's corpus)."""
    out = matches.copy()
    margin = expected_margins(matches, truth)
    out["margin_alice"] = margin
    out["alice_chip_delta"] = margin / 2.0
    out["bob_chip_delta"] = -margin / 2.0
    return out


def _draw_games(config: SimulationConfig, rng: np.random.Generator) -> pd.DataFrame:
    n = config.n_games
    seeds = np.sort(rng.choice(20_000, size=n, replace=False)).astype(np.int64)
    state_space = rng.normal(3.5, 0.8, n)
    temporal = rng.beta(2.0, 5.0, n) + 0.1 * (state_space - 3.5)
    low, high = config.payoff_scale
    log_chars = 4.2 + 0.15 * (state_space - 3.5) + rng.normal(0.0, 0.08, n)
    return pd.DataFrame(
        {
            "game_seed": seeds,
            "state_space": state_space,
            "temporal": temporal,
            "opponent": rng.beta(2.0, 8.0, n),
            "information": rng.gamma(2.0, 0.05, n),
            "precision": rng.gamma(3.0, 0.03, n),
            "payoff_scale": rng.uniform(low, high, n),
            "rulebook_chars": np.round(10.0**log_chars).astype(np.int64),
        }
    )


def _draw_strengths(
    config: SimulationConfig,
    z: FloatArray,
    scale: FloatArray,
    rng: np.random.Generator,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    m, g = config.n_models, config.n_games
    alpha = rng.normal(0.0, config.strength_sd, m)
    alpha -= alpha.mean()
    slopes = rng.normal(0.0, config.slope_sd, (m, len(AXES)))
    slopes[:, AXES.index("temporal")] += config.temporal_gain * alpha / config.strength_sd
    slopes -= slopes.mean(axis=0)
    low, high = config.jaggedness
    jag = rng.uniform(low, high, m)
    interaction = jag[:, None] * scale[None, :] * rng.normal(0.0, 1.0, (m, g))
    interaction -= interaction.mean(axis=0)
    alpha_game: FloatArray = alpha[:, None] + slopes @ z.T + interaction
    return alpha_game.mean(axis=1), slopes, jag, alpha_game


def _schedule(
    config: SimulationConfig, rng: np.random.Generator
) -> tuple[IntArray, IntArray, IntArray]:
    """Matchups (game, first, second), one entry per run."""
    n_early = config.n_models - config.n_late_models
    early_pairs = [(i, j) for i in range(n_early) for j in range(i + 1, n_early)]
    games: list[int] = []
    firsts: list[int] = []
    seconds: list[int] = []
    low, high = config.late_opponents
    for g in range(config.n_games):
        pairs = set(early_pairs)
        for late in range(n_early, config.n_models):
            others = [k for k in range(config.n_models) if k != late]
            k = int(rng.integers(low, high + 1))
            for opp in rng.choice(others, size=min(k, len(others)), replace=False):
                pairs.add((min(late, int(opp)), max(late, int(opp))))
        for i, j in sorted(pairs):
            games.extend([g] * config.runs_per_matchup)
            firsts.extend([i] * config.runs_per_matchup)
            seconds.extend([j] * config.runs_per_matchup)
    return (
        np.asarray(games, dtype=np.int64),
        np.asarray(firsts, dtype=np.int64),
        np.asarray(seconds, dtype=np.int64),
    )


def _play(
    config: SimulationConfig,
    truth: PlantedTruth,
    scale: FloatArray,
    games: IntArray,
    first: IntArray,
    second: IntArray,
    rng: np.random.Generator,
) -> pd.DataFrame:
    n_runs = len(games)
    swap = rng.random(n_runs) < 0.5
    alice1 = np.where(swap, second, first)
    bob1 = np.where(swap, first, second)
    s = scale[games]
    luck = rng.normal(0.0, config.luck_sd, n_runs) * s
    # deal 0: alice1 sits Alice; deal 1: the seats swap, the cards (and so the luck) stay.
    alice = np.stack([alice1, bob1], axis=1).ravel()
    bob = np.stack([bob1, alice1], axis=1).ravel()
    g2 = np.repeat(games, 2)
    latent = (
        truth.alpha_game[alice, g2]
        - truth.alpha_game[bob, g2]
        + truth.seat_advantage[g2]
        + np.repeat(luck, 2)
        + rng.normal(0.0, config.play_sd, 2 * n_runs) * np.repeat(s, 2)
    )
    delta = np.rint(latent / 2.0).astype(np.int64)
    status = np.full(2 * n_runs, "complete", dtype=object)
    if config.incomplete_rate > 0:
        broken = rng.random(2 * n_runs) < config.incomplete_rate
        status[broken] = np.where(rng.random(int(broken.sum())) < 0.5, "timeout", "error")
        delta[broken] = 0
    return _match_frame(truth, games, alice, bob, delta, status, rng)


def _match_frame(
    truth: PlantedTruth,
    games: IntArray,
    alice: IntArray,
    bob: IntArray,
    delta: IntArray,
    status: npt.NDArray[np.object_],
    rng: np.random.Generator,
) -> pd.DataFrame:
    n_runs = len(games)
    names = np.asarray(truth.models, dtype=object)
    seeds = truth.game_seeds[games]
    play_seed = rng.choice(2**31 - 1, size=n_runs, replace=False).astype(np.int64)
    run_id = np.array([f"run-{k:06d}" for k in range(n_runs)], dtype=object)
    late = set(truth.late_models)
    block = np.array(
        [
            LATE_BLOCK if names[a] in late or names[b] in late else EARLY_BLOCK
            for a, b in zip(alice[0::2], bob[0::2], strict=True)
        ],
        dtype=object,
    )
    n = 2 * n_runs
    n_moves = rng.integers(2, 14, n)
    tokens_in = n_moves * rng.integers(900, 1500, n)
    tokens_out = n_moves * rng.integers(20, 400, n)
    start = pd.Timestamp("2026-04-01T00:00:00Z") + pd.to_timedelta(np.arange(n) * 7, unit="s")
    return pd.DataFrame(
        {
            "match_id": [f"{r}/{d}" for r in run_id for d in (0, 1)],
            "game_seed": np.repeat(seeds, 2),
            "spec_hash": [f"{int(s):016x}" for s in np.repeat(seeds, 2)],
            "engine_version": "simulated",
            "block": np.repeat(block, 2),
            "run_id": np.repeat(run_id, 2),
            "play_seed": np.repeat(play_seed, 2),
            "alice": names[alice],
            "bob": names[bob],
            "alice_chip_delta": delta,
            "bob_chip_delta": -delta,
            "margin_alice": 2 * delta,
            "status": status,
            "n_moves": n_moves,
            "moves_alice": (n_moves + 1) // 2,
            "moves_bob": n_moves // 2,
            "fallbacks_alice": rng.poisson(0.01, n),
            "fallbacks_bob": rng.poisson(0.01, n),
            "rethinks_alice": rng.poisson(0.05, n),
            "rethinks_bob": rng.poisson(0.05, n),
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "cost_usd": (tokens_in * 1e-6 + tokens_out * 4e-6).round(6),
            "started_at": start,
            "finished_at": start + pd.to_timedelta(n_moves * 3, unit="s"),
        }
    )
