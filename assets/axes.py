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

Thin: the tables are built by ``engines.axes.benchmark`` (with unit tests); this module reads
the inputs, calls one function per asset and attaches metadata.

Partitions come from ``assets.partitions.BENCHMARK_GAMES`` (shared with ``match_corpus``); a
partition key is a game token (a generator seed or a preset name).  ``axis_scores`` takes the
game's spec from ``benchmark_games`` (the game's carried identity); a preset that is not selected
needs no configuration and is resolved by name, and a seed that is not selected is refused
(``arena.games.catalogued_game``).  If
``BENCHMARK_GAMES`` is a dynamic partitions definition, ``benchmark_games`` registers the
selected games as its keys (and removes keys no longer selected).
"""

import json
import time

import dagster as dg
import pandas as pd

from arena.games import catalogue_from_table, catalogued_game
from arena.parallel import process_pool
from arena.progress import ProgressReporter, Stages
from assets.metadata import contract_check, image_metadata, markdown_table
from assets.partitions import BENCHMARK_GAMES, concat_partitions
from assets.resources import RunProfile
from engines.axes.benchmark import (
    AXIS_SCORE_COLUMNS,
    MAX_WORLD_FALLBACK_SHARE,
    axis_row,
    axis_score_problems,
    axis_summary,
    benchmark_figure,
    benchmark_table,
    diagnostics_tables,
    screening_table,
    select_benchmark,
    selection_figure,
    with_private_games,
)
from engines.axes.budgets import axis_budget, screening_budget
from engines.axes.compute import AXES_VERSION, compute_with_rerun
from engines.axes.names import AXES
from engines.axes.screening import SCREENING_AXES
from engines.gbg import ENGINE_VERSION, rulebook

GROUP_NAME = "axes"
CODE_VERSION = f"engine-{ENGINE_VERSION}-axes-{AXES_VERSION}"


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
    started = time.perf_counter()
    with (
        ProgressReporter(
            "screening", total=len(accepted_games), unit="games", out=context.log.info
        ) as reporter,
        process_pool() as pool,
    ):
        frame = screening_table(
            accepted_games,
            budget,
            config.seed,
            lambda done, total: reporter.set(done, total),
            pool=pool,
        )
    seconds = time.perf_counter() - started
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
    hidden = accepted_games["private"].astype(bool) if "private" in accepted_games else None
    public = (
        screening_axes
        if hidden is None
        else screening_axes[~screening_axes["seed"].isin(accepted_games.loc[hidden, "seed"])]
    )
    selected = select_benchmark(public, accepted_games, profile.get().benchmark_games)
    frame = with_private_games(selected, screening_axes, accepted_games)
    if isinstance(BENCHMARK_GAMES, dg.DynamicPartitionsDefinition) and BENCHMARK_GAMES.name:
        keys = list(frame["game"])
        instance = context.instance
        stale = set(instance.get_dynamic_partitions(BENCHMARK_GAMES.name)) - set(keys)
        for key in sorted(stale):
            instance.delete_dynamic_partition(BENCHMARK_GAMES.name, key)
        instance.add_dynamic_partitions(BENCHMARK_GAMES.name, keys)
    shown = frame[["order", "game", "distance", *SCREENING_AXES]]
    picture = selection_figure(screening_axes, frame)
    return dg.Output(
        frame,
        metadata={
            "dagster/row_count": len(frame),
            "pool": len(screening_axes),
            "games": dg.MetadataValue.md(markdown_table(shown)),
            "selection": image_metadata(picture, "the selection on two screening axes"),
        },
    )


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
    spec = catalogued_game(
        token, catalogue_from_table(benchmark_games), "benchmark_games"
    ).generated
    budget = axis_budget(profile.get().axis_budget)
    started = time.perf_counter()
    with Stages(token, unit="tasks", out=context.log.info) as progress, process_pool() as pool:
        data = compute_with_rerun(spec, budget, config.seed, pool=pool, progress=progress).to_dict()
    style = profile.get().rulebook_style
    stored = listed["rulebook"].iloc[0] if selected and "rulebook" in listed.columns else None
    chars = len(stored) if isinstance(stored, str) else len(rulebook(spec, style=style))
    frame = pd.DataFrame([axis_row(token, spec, selected, data, rulebook_chars=chars)])
    diagnostics = data["diagnostics"]
    return dg.Output(
        frame,
        metadata={
            "dagster/row_count": 1,
            "game": token,
            "selected": selected,
            "budget": budget.name,
            "std_g": diagnostics["std_g"],
            "rulebook_chars": chars,
            "decisions": f"{diagnostics['decisions'][0]} + {diagnostics['decisions'][1]}",
            "replays": diagnostics["replays"],
            "world_fallback_share": diagnostics["world_fallback_share"],
            "seconds": time.perf_counter() - started,
            "axes": dg.MetadataValue.md(markdown_table(axis_summary(data))),
            "diagnostics": dg.MetadataValue.json(diagnostics),
        },
    )


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    code_version=CODE_VERSION,
    description="The five axes of every benchmark game in one table, with z-scores; benchmark "
    "diagnostics and the benchmark on two axes (Figure 1) as metadata.",
)
def benchmark_axes(axis_scores: dict[str, pd.DataFrame]) -> dg.Output[pd.DataFrame]:
    frame = benchmark_table(concat_partitions(axis_scores, AXIS_SCORE_COLUMNS))
    tables = diagnostics_tables(frame)
    return dg.Output(
        frame,
        metadata={
            "dagster/row_count": len(frame),
            "axes": dg.MetadataValue.md(markdown_table(frame[["game", *AXES]])),
            "diagnostics": dg.MetadataValue.md(markdown_table(tables["per_axis"])),
            "pairwise_correlations": dg.MetadataValue.md(markdown_table(tables["pairs"])),
            "figure_1": image_metadata(
                benchmark_figure(frame), "benchmark games: state space x temporal"
            ),
            "per_axis_json": dg.MetadataValue.json(
                json.loads(tables["per_axis"].to_json(orient="records"))
            ),
        },
    )


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
CHECKS: list[dg.AssetChecksDefinition] = [
    contract_check("screening_axes"),
    contract_check("axis_scores", partitions_def=BENCHMARK_GAMES),
    axis_scores_sound,
]
