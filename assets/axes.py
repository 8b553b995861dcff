"""Stage: the complexity axes (paper, Sections 3.1 and 4, Appendix C).

- ``screening_axes``: the six cheap screening axes for every accepted game
  (``engines.axes.screening``), at the profile's screening budget.
- ``benchmark_games``: the farthest-point selection of the profile's number of games on the
  min-max normalised screening axes (``engines.axes.selection``), in selection order.
- ``axis_scores``: the five axes of one benchmark game per partition, with their per-game
  diagnostics (sampling errors, both seats, STD_g, replays, world fallbacks) and the rerun at
  two-thirds of the budget on an independent population draw (``engines.axes.compute``).
- ``benchmark_axes``: every partition's row in one table, with z-scores, and as metadata the
  benchmark diagnostics (seat agreement, rerun correlation, pairwise correlations, variance
  inflation factors; Table 3 and Appendix D) and the benchmark on two axes (Figure 1).

Partitions come from ``assets.partitions.BENCHMARK_GAMES`` (shared with ``match_corpus``); a
partition key is a game token (a generator seed or a preset name).  ``axis_scores`` takes the
game's spec from ``benchmark_games`` when the token is selected there, and otherwise resolves
the token as every command does (``arena.games.resolve_game``).  If
``BENCHMARK_GAMES`` is a dynamic partitions definition, ``benchmark_games`` registers the
selected games as its keys (and removes keys no longer selected).
"""

import json
import time

import dagster as dg
import numpy as np
import pandas as pd

from arena.games import resolve_game
from arena.parallel import process_pool
from assets.metadata import image_metadata, markdown_table
from assets.partitions import BENCHMARK_GAMES
from assets.resources import RunProfile
from engines.axes.budgets import axis_budget, screening_budget
from engines.axes.compute import AXES_VERSION, compute_with_rerun
from engines.axes.diagnostics import AXES, benchmark_diagnostics
from engines.axes.plots import benchmark_plot, selection_plot
from engines.axes.screening import SCREENING_AXES, screen_games
from engines.axes.selection import farthest_point, normalise
from engines.gbg import ENGINE_VERSION, GameSpec

GROUP_NAME = "axes"
CODE_VERSION = f"engine-{ENGINE_VERSION}-axes-{AXES_VERSION}"
SEAT_AXES = AXES[1:]


class AxesConfig(dg.Config):
    """The simulation seed of the axes (every draw derives from it)."""

    seed: int = 0


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    code_version=CODE_VERSION,
    description="The six screening axes of every accepted game (Appendix C, selection basis).",
)
def screening_axes(
    context: dg.AssetExecutionContext,
    profile: RunProfile,
    config: AxesConfig,
    accepted_games: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    budget = screening_budget(profile.get().screening_budget)
    games = [
        (int(seed), str(spec_json))
        for seed, spec_json in zip(accepted_games["seed"], accepted_games["spec_json"], strict=True)
    ]
    started = time.perf_counter()
    last = [started]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 10 or done == total:
            last[0] = now
            rate = done / max(now - started, 1e-9)
            context.log.info(
                f"screened {done}/{total} games ({rate:.1f} games/s, "
                f"~{(total - done) / max(rate, 1e-9):.0f}s left)"
            )

    with process_pool() as pool:
        rows = list(screen_games(games, budget, config.seed, pool=pool, progress=progress))
    seconds = time.perf_counter() - started
    frame = pd.DataFrame(rows, columns=["seed", *SCREENING_AXES])
    frame.insert(1, "spec_hash", list(accepted_games["spec_hash"]))
    frame["budget"] = budget.name
    summary = frame[list(SCREENING_AXES)].describe().loc[["min", "50%", "max"]]
    return dg.Output(
        frame,
        metadata={
            "dagster/row_count": len(frame),
            "budget": budget.name,
            "seconds": seconds,
            "games_per_second": len(frame) / seconds if seconds > 0 else 0.0,
            "summary": dg.MetadataValue.md(markdown_table(summary.T, index=True)),
        },
    )


def select_benchmark(screening: pd.DataFrame, accepted: pd.DataFrame, n: int) -> pd.DataFrame:
    """The farthest-point selection of ``n`` games (or the whole pool if smaller), in selection
    order, with their specs, screening axes and normalised axes."""
    pool = screening.sort_values("seed").reset_index(drop=True)
    points = normalise({a: pool[a].tolist() for a in SCREENING_AXES})
    chosen = farthest_point(points, min(n, len(pool)))
    specs = accepted.set_index("seed")["spec_json"]
    rows = []
    for order, (index, distance) in enumerate(chosen):
        game = pool.iloc[index]
        seed = int(game["seed"])
        rows.append(
            {
                "order": order,
                "game": str(seed),
                "seed": seed,
                "spec_hash": game["spec_hash"],
                "spec_json": specs[seed],
                "distance": distance,
                **{a: float(game[a]) for a in SCREENING_AXES},
                **{f"norm_{a}": float(points[index, j]) for j, a in enumerate(SCREENING_AXES)},
            }
        )
    return pd.DataFrame(rows)


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    code_version=CODE_VERSION,
    description="The benchmark: farthest-point selection on the normalised screening axes.",
)
def benchmark_games(
    context: dg.AssetExecutionContext,
    profile: RunProfile,
    screening_axes: pd.DataFrame,
    accepted_games: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    frame = select_benchmark(screening_axes, accepted_games, profile.get().benchmark_games)
    if isinstance(BENCHMARK_GAMES, dg.DynamicPartitionsDefinition) and BENCHMARK_GAMES.name:
        keys = list(frame["game"])
        instance = context.instance
        stale = set(instance.get_dynamic_partitions(BENCHMARK_GAMES.name)) - set(keys)
        for key in sorted(stale):
            instance.delete_dynamic_partition(BENCHMARK_GAMES.name, key)
        instance.add_dynamic_partitions(BENCHMARK_GAMES.name, keys)
    points = normalise({a: screening_axes[a].tolist() for a in SCREENING_AXES})
    shown = frame[["order", "game", "distance", *SCREENING_AXES]]
    picture = selection_plot(
        points[:, 0].tolist(),
        points[:, 1].tolist(),
        frame[f"norm_{SCREENING_AXES[0]}"].tolist(),
        frame[f"norm_{SCREENING_AXES[1]}"].tolist(),
        SCREENING_AXES[0],
        SCREENING_AXES[1],
    )
    return dg.Output(
        frame,
        metadata={
            "dagster/row_count": len(frame),
            "pool": len(screening_axes),
            "games": dg.MetadataValue.md(markdown_table(shown)),
            "selection": image_metadata(picture, "the selection on two screening axes"),
        },
    )


def axis_row(token: str, spec: GameSpec, selected: bool, report_data: dict) -> dict:
    """One ``axis_scores`` row from a report's ``to_dict()``."""
    axes, errors = report_data["axes"], report_data["sampling_error"]
    seats, diagnostics = report_data["seats"], report_data["diagnostics"]
    rerun = report_data.get("rerun") or {}
    row: dict = {
        "game": token,
        "name": spec.name,
        "spec_hash": spec.spec_hash,
        "selected": selected,
    }
    row.update({a: axes[a] for a in AXES})
    row.update({f"se_{a}": errors[a] for a in AXES})
    for a in SEAT_AXES:
        row[f"alice_{a}"], row[f"bob_{a}"] = seats[a]
    row.update({f"rerun_{a}": rerun.get(a) for a in AXES})
    row.update(
        {
            "std_g": diagnostics["std_g"],
            "decisions_alice": diagnostics["decisions"][0],
            "decisions_bob": diagnostics["decisions"][1],
            "replays": diagnostics["replays"],
            "world_fallback_share": diagnostics["world_fallback_share"],
            "search_world_fallback_share": diagnostics["search_world_fallback_share"],
            "budget": diagnostics["budget"],
            "seed": diagnostics["seed"],
            "seconds": diagnostics["seconds"],
            "rerun_seconds": diagnostics.get("rerun_seconds"),
            "engine_version": ENGINE_VERSION,
            "axes_version": AXES_VERSION,
        }
    )
    return row


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    code_version=CODE_VERSION,
    partitions_def=BENCHMARK_GAMES,
    automation_condition=dg.AutomationCondition.eager(),
    description="The five axes of one benchmark game with their diagnostics (one row).",
)
def axis_scores(
    context: dg.AssetExecutionContext,
    profile: RunProfile,
    config: AxesConfig,
    benchmark_games: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    token = context.partition_key
    listed = benchmark_games[benchmark_games["game"] == token]
    selected = len(listed) > 0
    spec = GameSpec.from_json(listed["spec_json"].iloc[0]) if selected else resolve_game(token)
    budget = axis_budget(profile.get().axis_budget)
    started = time.perf_counter()
    last = [started]

    def progress(stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 10 or done == total:
            last[0] = now
            context.log.info(f"{token}: {stage} {done}/{total} ({now - started:.0f}s)")

    with process_pool() as pool:
        report = compute_with_rerun(spec, budget, config.seed, pool=pool, progress=progress)
    data = report.to_dict()
    frame = pd.DataFrame([axis_row(token, spec, selected, data)])
    table = pd.DataFrame(
        {
            "axis": list(AXES),
            "value": [data["axes"][a] for a in AXES],
            "sampling error": [data["sampling_error"][a] for a in AXES],
            "alice": [None, *(data["seats"][a][0] for a in SEAT_AXES)],
            "bob": [None, *(data["seats"][a][1] for a in SEAT_AXES)],
            "rerun": [(data.get("rerun") or {}).get(a) for a in AXES],
        }
    )
    diagnostics = data["diagnostics"]
    return dg.Output(
        frame,
        metadata={
            "dagster/row_count": 1,
            "game": token,
            "selected": selected,
            "budget": budget.name,
            "std_g": diagnostics["std_g"],
            "decisions": f"{diagnostics['decisions'][0]} + {diagnostics['decisions'][1]}",
            "replays": diagnostics["replays"],
            "world_fallback_share": diagnostics["world_fallback_share"],
            "seconds": time.perf_counter() - started,
            "axes": dg.MetadataValue.md(markdown_table(table)),
            "diagnostics": dg.MetadataValue.json(diagnostics),
        },
    )


def benchmark_table(partitions: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every game's row, in partition-key order, with each axis z-scored over the games."""
    frame = pd.concat([partitions[k] for k in sorted(partitions)], ignore_index=True)
    for a in AXES:
        values = frame[a].astype(float)
        sd = values.std(ddof=1) if len(values) > 1 else 0.0
        frame[f"z_{a}"] = (values - values.mean()) / sd if sd and sd > 0 else 0.0
    return frame


def diagnostics_tables(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Table 3 (per axis) and Appendix D (pairwise correlations, VIF) as small tables."""
    has_rerun = frame[[f"rerun_{a}" for a in AXES]].notna().all().all()
    found = benchmark_diagnostics(
        {a: frame[a].astype(float).tolist() for a in AXES},
        {a: frame[f"alice_{a}"].astype(float).tolist() for a in SEAT_AXES},
        {a: frame[f"bob_{a}"].astype(float).tolist() for a in SEAT_AXES},
        {a: frame[f"rerun_{a}"].astype(float).tolist() for a in AXES} if has_rerun else None,
    )
    per_axis = pd.DataFrame(
        {
            "axis": list(AXES),
            "median sampling error": [float(frame[f"se_{a}"].astype(float).median()) for a in AXES],
            "seat agreement (rho)": [found["seat_agreement"].get(a) for a in AXES],
            "rerun correlation (rho)": [found["rerun_correlation"].get(a) for a in AXES],
            "VIF": [found["variance_inflation"][a] for a in AXES],
        }
    )
    pairs = pd.DataFrame(
        {
            "pair": list(found["pairwise_correlation"]),
            "rho": list(found["pairwise_correlation"].values()),
        }
    )
    return {"per_axis": per_axis, "pairs": pairs}


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    code_version=CODE_VERSION,
    description="The five axes of every benchmark game in one table, with z-scores; benchmark "
    "diagnostics and the benchmark on two axes (Figure 1) as metadata.",
)
def benchmark_axes(axis_scores: dict[str, pd.DataFrame]) -> dg.Output[pd.DataFrame]:
    frame = benchmark_table(axis_scores)
    tables = diagnostics_tables(frame)
    picture = benchmark_plot(
        frame["state_space"].tolist(),
        frame["temporal"].tolist(),
        frame["game"].tolist(),
        "state_space",
        "temporal",
    )
    return dg.Output(
        frame,
        metadata={
            "dagster/row_count": len(frame),
            "axes": dg.MetadataValue.md(markdown_table(frame[["game", *AXES]])),
            "diagnostics": dg.MetadataValue.md(markdown_table(tables["per_axis"])),
            "pairwise_correlations": dg.MetadataValue.md(markdown_table(tables["pairs"])),
            "figure_1": image_metadata(picture, "benchmark games: state space x temporal"),
            "per_axis_json": dg.MetadataValue.json(
                json.loads(tables["per_axis"].to_json(orient="records"))
            ),
        },
    )


MAX_WORLD_FALLBACK_SHARE = 0.10


def axis_score_problems(frame: pd.DataFrame) -> list[str]:
    """What is wrong with ``axis_scores`` rows, one line each (empty when sound)."""
    problems = []
    for row in frame.itertuples(index=False):
        values = {a: float(getattr(row, a)) for a in AXES}
        bad = [a for a, v in values.items() if not np.isfinite(v)]
        if bad:
            problems.append(f"{row.game}: non-finite {', '.join(bad)}")
        if not 0.0 <= values["temporal"] <= 1.0:
            problems.append(f"{row.game}: temporal {values['temporal']} outside [0, 1]")
        if float(row.std_g) <= 0.0:
            problems.append(f"{row.game}: STD_g is 0 (every population deal ties)")
        if float(row.world_fallback_share) > MAX_WORLD_FALLBACK_SHARE:
            problems.append(
                f"{row.game}: {float(row.world_fallback_share):.0%} of worlds fell back to the "
                "true cards"
            )
    return problems


@dg.asset_check(
    asset=benchmark_axes,
    name="sound",
    blocking=False,
    description="Every game's axes are finite, temporal is a share, STD_g is positive, and at "
    f"most {MAX_WORLD_FALLBACK_SHARE:.0%} of worlds fell back to the true cards.  (On the "
    "unpartitioned table of every game, so the check runs once all partitions exist.)",
)
def axis_scores_sound(benchmark_axes: pd.DataFrame) -> dg.AssetCheckResult:
    problems = axis_score_problems(benchmark_axes)
    return dg.AssetCheckResult(
        passed=not problems, metadata={"problems": "; ".join(problems) or "none"}
    )


ASSETS: list[dg.AssetsDefinition] = [screening_axes, benchmark_games, axis_scores, benchmark_axes]
CHECKS: list[dg.AssetChecksDefinition] = [axis_scores_sound]
