"""Stage 1: the seed pool and the accepted games (paper, Section 3).

``seed_pool`` screens generator seeds in order, from the first seed of the profile's edition,
until the profile's number of games is accepted (or its seed budget is spent), with a verdict
and its reasons and figures for every seed; a profile that keeps games private adds them from
the edition's secret seeds (``arena.heldout``; column ``private``).  ``accepted_games`` keeps
the accepted ones with spec, hash and rulebook.  Both carry the picture of the pool as
metadata; blocking checks require every accepted game to pass the conformance test and the
rulebook consistency gate.
"""

import json
import time
from typing import Any

import dagster as dg
import pandas as pd

from arena.heldout import edition_key, private_seed_base
from arena.parallel import process_pool
from arena.progress import ProgressReporter
from assets.metadata import image_metadata, markdown_table
from assets.resources import ProjectPaths, RunProfile
from assets.run_profiles import Profile
from engines.gbg import ENGINE_VERSION, GameSpec, consistency_errors, rulebook
from engines.gbg.conformance import check_conformance
from engines.gbg.generator import GENERATOR_VERSION, GenerationConfig
from engines.gbg.plots import pool_plot
from engines.gbg.seed_pool import paper_comparison, screen, summarise

GROUP_NAME = "pool"
CONFORMANCE_DEALS = 40


def private_candidates(
    context: dg.AssetExecutionContext,
    chosen: Profile,
    config: GenerationConfig,
    paths: ProjectPaths,
) -> pd.DataFrame:
    """The edition's private games: consecutive seeds from the secret base
    (``arena.heldout``) screened until ``private_games`` are accepted (``private`` true)."""
    base = private_seed_base(edition_key(paths.root_path()), chosen.name, chosen.edition)
    with process_pool() as pool:
        rows = [
            {**v, "reasons": ",".join(v["reasons"]), "repairs": json.dumps(v.get("repairs", []))}
            for v in screen(
                base, chosen.private_games, config, pool=pool, style=chosen.rulebook_style
            )
        ]
    found = sum(bool(r["accepted"]) for r in rows)
    if found < chosen.private_games:
        raise RuntimeError(
            f"only {found} of {chosen.private_games} private games were accepted from "
            f"{len(rows)} secret seeds; lower the profile's private_games"
        )
    context.log.info(f"{found} private games drawn from {len(rows)} secret seeds")
    return pd.DataFrame(rows).assign(private=True)


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    code_version=f"engine-{ENGINE_VERSION}-generator-{GENERATOR_VERSION}",
    description="Every screened seed with its acceptance verdict, reasons and figures.",
)
def seed_pool(
    context: dg.AssetExecutionContext, profile: RunProfile, paths: ProjectPaths
) -> dg.Output[pd.DataFrame]:
    chosen = profile.get()
    config = chosen.generation_config()
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with (
        ProgressReporter(
            "seed pool, accepted", total=chosen.max_accepted, unit="games", out=context.log.info
        ) as reporter,
        process_pool() as pool,
    ):
        for verdict in screen(
            chosen.first_seed,
            chosen.max_accepted,
            config,
            pool=pool,
            max_seeds=chosen.seed_count,
            style=chosen.rulebook_style,
            progress=lambda sampled, accepted: reporter.set(accepted, seeds=sampled),
        ):
            verdict["reasons"] = ",".join(verdict["reasons"])
            verdict["repairs"] = json.dumps(verdict.get("repairs", []))
            rows.append(verdict)
    summary = summarise(
        [{**r, "reasons": [x for x in r["reasons"].split(",") if x]} for r in rows],
        time.perf_counter() - started,
    )
    frame = pd.DataFrame(rows)
    frame["private"] = False
    if chosen.private_games:
        frame = pd.concat([frame, private_candidates(context, chosen, config, paths)])
        frame = frame.reset_index(drop=True)
    frame["config_hash"] = config.config_hash
    frame["generator_version"] = GENERATOR_VERSION
    rejections = pd.DataFrame(
        {"reason": list(summary["rejections"]), "seeds": list(summary["rejections"].values())}
    )
    features = pd.DataFrame(
        {
            "feature": list(summary["feature_frequencies"]),
            "share of accepted": [f"{v:.0%}" for v in summary["feature_frequencies"].values()],
        }
    )
    lengths = summary["rulebook_chars"]
    beside = pd.DataFrame(paper_comparison(summary))
    return dg.Output(
        frame,
        metadata={
            "generation": config.label,
            "edition": chosen.edition,
            "seeds": f"{chosen.seed_range[0]} to {chosen.seed_range[1] - 1}",
            "rulebook_style": chosen.rulebook_style,
            "paper_comparison": dg.MetadataValue.md(markdown_table(beside)),
            "accepted_with_inert_phases": summary["accepted_with_inert_phases"],
            "dagster/row_count": len(frame),
            "sampled": summary["sampled"],
            "accepted": summary["accepted"],
            "acceptance_rate": summary["acceptance_rate"],
            "seeds_per_second": summary["seeds_per_second"],
            "config_hash": config.config_hash,
            "rulebook_chars": f"min {lengths['min']}, median {lengths['median']}, "
            f"max {lengths['max']}",
            "rejections": dg.MetadataValue.md(markdown_table(rejections)),
            "features": dg.MetadataValue.md(markdown_table(features)),
            "picture": image_metadata(pool_plot(summary), "the seed pool"),
        },
    )


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    code_version=f"engine-{ENGINE_VERSION}-generator-{GENERATOR_VERSION}",
    description="The accepted games: seed, spec JSON, spec hash, rulebook and its length.",
)
def accepted_games(seed_pool: pd.DataFrame, profile: RunProfile) -> dg.Output[pd.DataFrame]:
    style = profile.get().rulebook_style
    kept = seed_pool[seed_pool["accepted"]].copy()
    if "private" not in kept.columns:  # a pool stored before editions kept games private
        kept["private"] = False
    kept["rulebook"] = [rulebook(GameSpec.from_json(s), style=style) for s in kept["spec_json"]]
    columns = [
        "seed",
        "spec_hash",
        "spec_json",
        "rulebook",
        "rulebook_chars",
        "metric",
        "deck_size",
        "hand_size",
        "phases",
        "betting_rounds",
        *[c for c in kept.columns if c.startswith("has_")],
        "private",
    ]
    frame = kept[columns].reset_index(drop=True)
    frame["engine_version"] = ENGINE_VERSION
    return dg.Output(
        frame,
        metadata={
            "dagster/row_count": len(frame),
            "rulebook_style": style,
            "rulebook_chars_min": int(frame["rulebook_chars"].min()) if len(frame) else 0,
            "rulebook_chars_median": float(frame["rulebook_chars"].median()) if len(frame) else 0,
            "rulebook_chars_max": int(frame["rulebook_chars"].max()) if len(frame) else 0,
        },
    )


def accepted_game_problems(frame: pd.DataFrame, deals: int = CONFORMANCE_DEALS) -> list[str]:
    """Every accepted game that fails conformance or rulebook consistency, one line each."""
    problems = []
    for row in frame.itertuples(index=False):
        spec = GameSpec.from_json(row.spec_json)
        if spec.spec_hash != row.spec_hash:
            problems.append(f"seed {row.seed}: spec_hash does not match its spec")
        gaps = consistency_errors(spec, row.rulebook)
        if gaps:
            problems.append(f"seed {row.seed}: rulebook inconsistent: {gaps[0]}")
        report = check_conformance(spec, deals=deals, seed=int(row.seed))
        if not report.ok:
            problems.append(f"seed {row.seed}: {report.failures[0]}")
    return problems


@dg.asset_check(
    asset=accepted_games,
    name="conformance_and_rulebooks",
    blocking=True,
    description="Every accepted game passes the conformance test (random play, zero-sum, chip "
    "conservation, no leak) and the rulebook consistency gate.",
)
def accepted_games_conform(accepted_games: pd.DataFrame) -> dg.AssetCheckResult:
    problems = accepted_game_problems(accepted_games)
    return dg.AssetCheckResult(
        passed=not problems and len(accepted_games) > 0,
        metadata={"games": len(accepted_games), "problems": "; ".join(problems[:20]) or "none"},
    )


ASSETS: list[dg.AssetsDefinition] = [seed_pool, accepted_games]
CHECKS: list[dg.AssetChecksDefinition] = [accepted_games_conform]
