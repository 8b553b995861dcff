"""Stage: ``ablations``, the paper's ablations and trace analysis (Section 8, Appendix I).

Thin: ``arena.ablations.runner.run_ablations`` does the work.  Players: the roster's built-in
players, the built-in ``search`` family at two depths (thinking budget) and an exact
``best-response`` built-in.  When the roster has LLM players, the profile's
``ablation_roles`` (``assets.run_profiles.AblationRoles``, overridden by the config's
``players``, ``authors``, ``families`` and ``judge``) name which of them play the disclosed
and hidden arms, write programs, form thinking-budget families and judge, with the roster's
settings, prices, provider limits and protocol (``roster_settings``).  Without LLM players
in the roster, when the ``local_llm`` resource (``assets.resources.LocalModel``:
its ``url``, else ``$GENSTRAT_LOCAL_LLM_URL``) or the config's ``llm_url`` names a local
OpenAI-compatible server (the tests' SmolLM2) and the config allows it, the local model joins as
a family at two token budgets, writes programs (with one repair turn), and judges the traces
(held to the rubric schema).  The judge's association uses the games' axes, computed at the
quick budget.  Ratings (alpha) are the ``leaderboards`` asset's (the overall leaderboard fit on
the tournament's complete pairs); an empty leaderboard leaves the lambda fit out.

The value is ONE long DataFrame, ``ablation, quantity, subject, estimate, ci_low, ci_high, n``
(``ablation`` in programs | thinking_budget | judge | authoring; the judge's rows are its
association with margins, ``slope_<rubric>``, and how far each rubric's scores track their
matched axis, ``tracking_<rubric>``: Section 8's question, released with the table); the
detailed tables (efficiency, thinking budget, authoring attempts, judgements, associations,
tracking, program admissions) are Markdown metadata, with one plot.  The blocking check
``judge_tracking`` holds the tracking rows to their shape (``arena.ablations.judge``).
"""

import dagster as dg
import pandas as pd
from pydantic import Field

from arena.ablations.judge import tracking_problems
from arena.ablations.runner import AblationSettings, leaderboard_alpha, run_ablations
from arena.roster import ApiEntry, BuiltinEntry, Roster
from assets.metadata import contract_check, image_metadata, markdown_table
from assets.resources import LOCAL_LLM_ENV_VAR, LocalModel, ProjectPaths, RunProfile
from assets.roster import roster_from_table
from assets.run_profiles import AblationRoles, Profile, get_profile
from engines.ablations.plots import ablation_plot
from engines.solve.best_response import MAX_ARRAY_HISTORIES

GROUP_NAME = "statistics"


class AblationsConfig(dg.Config):
    """Sizes of the ablations (demo sizes by default: about a minute with built-ins)."""

    games: list[str] | None = Field(
        default=None,
        description="games before the benchmark's (solved: efficiency); default: the profile's "
        "ablation_reference_games (Kuhn and Leduc)",
    )
    benchmark_games: int | None = Field(
        default=None,
        description="add this many benchmark games, in selection order (default: the profile's)",
    )
    runs: int = Field(default=4, description="runs (two seat-swapped deals) per player/program")
    bootstrap: int | None = Field(
        default=None, description="bootstrap replicates over deals (default: the profile's B)"
    )
    seed: int = Field(default=0, description="seed of every random draw")
    local_model: bool = Field(
        default=True,
        description=f"use the local_llm resource (${LOCAL_LLM_ENV_VAR}) when it names a server",
    )
    llm_runs: int = Field(default=1, description="runs per program for LLM players")
    llm_url: str | None = Field(
        default=None, description="LLM server; default the local_llm resource's"
    )
    judge_max: int = Field(default=24, description="move traces the judge scores at most")
    players: list[str] | None = Field(
        default=None, description="roster LLM players of both arms ('*': all); default: profile"
    )
    authors: list[str] | None = Field(
        default=None, description="roster LLM players that write programs; default: profile"
    )
    families: list[list[str]] | None = Field(
        default=None, description="thinking-budget families as [low, high]; default: profile"
    )
    judge: str | None = Field(default=None, description="roster LLM judge; default: profile")
    llm_games: list[str] | None = Field(
        default=None, description="games the LLM players play (default: the first game)"
    )
    solved_games: int | None = Field(
        default=None,
        description="benchmark games to solve exactly, the smallest that fit max_histories "
        "(default: the profile's ablation_solved_games)",
    )
    max_histories: int = Field(
        default=MAX_ARRAY_HISTORIES, description="size limit of exact solving, in histories"
    )


def ablation_games(
    config: AblationsConfig, profile: Profile, benchmark: pd.DataFrame | None
) -> list[str]:
    """The configured games (else the profile's reference games), then the first benchmark
    games in selection order (as many as the config asks, else the profile's
    ``ablation_games``; repeats left out)."""
    wanted = config.benchmark_games
    if wanted is None:
        wanted = profile.ablation_games
    if wanted < 0:
        raise ValueError(f"benchmark_games must be non-negative, got {wanted}")
    extra: list[str] = []
    if wanted and benchmark is not None and not benchmark.empty:
        ordered = benchmark.sort_values("order") if "order" in benchmark else benchmark
        extra = [str(g) for g in ordered["game"]][:wanted]
    games = profile.ablation_reference_games if config.games is None else config.games
    return list(dict.fromkeys([*games, *extra]))


def _roles(config: AblationsConfig, profile: Profile) -> AblationRoles:
    """The profile's roles with the config's overrides."""
    roles = profile.ablation_roles
    update: dict[str, object] = {}
    if config.players is not None:
        update["players"] = tuple(config.players)
    if config.authors is not None:
        update["authors"] = tuple(config.authors)
    if config.families is not None:
        for pair in config.families:
            if len(pair) != 2:
                raise ValueError(f"a thinking-budget family is [low, high], got {pair}")
        update["families"] = tuple((a, b) for a, b in config.families)
    if config.judge is not None:
        update["judge"] = config.judge
    return AblationRoles.model_validate(roles.model_dump() | update)


def roster_settings(roster: Roster, roles: AblationRoles) -> dict[str, object]:
    """The LLM part of ``AblationSettings`` from the roster's players in ``roles`` (names
    checked: ``ValueError`` names one that is not an LLM player of the roster)."""
    api = {e.name: e for e in roster.players if isinstance(e, ApiEntry)}
    order = list(api)

    def names(given: tuple[str, ...], role: str) -> list[str]:
        out: list[str] = []
        for name in given:
            chosen = order if name == "*" else [name]
            for n in chosen:
                if n not in api:
                    raise ValueError(f"ablation {role} {n!r} is not an LLM player of the roster")
                if n not in out:
                    out.append(n)
        return out

    def entry(name: str, **update: object) -> dict[str, object]:
        e = api[name]
        data = e.model_dump(mode="json", exclude_defaults=True)
        return data | {"kind": e.kind, "name": e.name, "model": e.model} | update

    tagged: dict[str, dict[str, object]] = {}
    for low, high in roles.families:
        for n, variant in ((low, "low"), (high, "high")):
            names((n,), "family member")
            family = api[low].family if api[low].family == api[high].family else None
            tagged[n] = {"family": family or f"{low}+{high}", "variant": variant}
    for e in api.values():  # the roster's own low/high families
        if e.family and e.variant in ("low", "high") and e.name not in tagged:
            tagged[e.name] = {"family": e.family, "variant": e.variant}
    players = names(roles.players, "player")
    players += [n for n in tagged if n not in players]
    judge = names((roles.judge,), "judge")[:1] if roles.judge else []
    return {
        "llm_players": tuple(entry(n, **tagged.get(n, {})) for n in players),
        "authors": tuple(entry(n) for n in names(roles.authors, "author")),
        "judge": entry(judge[0]) if judge else None,
        "protocol": roster.protocol,
        "rulebook_style": roster.rulebook_style,
        "rethinks": roster.rethinks,
        "providers": {k: v.model_dump(mode="json") for k, v in roster.providers.items()},
    }


def settings_for(
    config: AblationsConfig,
    roster: pd.DataFrame,
    profile: Profile | None = None,
    benchmark: pd.DataFrame | None = None,
    local_url: str | None = None,
    pool: pd.DataFrame | None = None,
) -> AblationSettings:
    """The engine's settings: built-ins from the roster, the local model (the config's
    ``llm_url``, else ``local_url`` if the config allows a local model), the games and
    bootstrap size from the config, else the profile."""
    profile = profile or get_profile("demo")
    games = ablation_games(config, profile, benchmark)
    bootstrap = config.bootstrap if config.bootstrap is not None else profile.bootstrap_resamples
    parsed = roster_from_table(roster)
    builtins = tuple(
        e.model_dump(mode="json", exclude_defaults=True) | {"kind": "builtin", "name": e.name}
        for e in parsed.players
        if isinstance(e, BuiltinEntry)
    )
    url = config.llm_url or (local_url if config.local_model else None)
    llm: dict[str, object] = {}
    if any(isinstance(e, ApiEntry) for e in parsed.players):
        llm = roster_settings(parsed, _roles(config, profile)) | {
            "llm_games": tuple(config.llm_games or games[:1]),
            "llm_runs": config.llm_runs,
            "judge_max": config.judge_max,
        }
    elif url:
        base = {"kind": "openai", "model": "smollm2", "base_url": url,
                "response_format": "json_object_schema", "family": "smollm2"}  # fmt: skip
        llm = {
            "llm_players": (
                base | {"name": "smollm2-low", "variant": "low",
                        "settings": {"temperature": 0, "max_tokens": 16, "seed": 0}},
                base | {"name": "smollm2-high", "variant": "high",
                        "settings": {"temperature": 0, "max_tokens": 48, "seed": 0}},
            ),
            "authors": (base | {"name": "smollm2-author", "response_format": "none",
                                "settings": {"temperature": 0, "max_tokens": 256, "seed": 0}},),
            "judge": base | {"name": "smollm2-judge",
                             "settings": {"temperature": 0, "max_tokens": 48, "seed": 0}},
            "llm_games": tuple(config.llm_games or games[:1]),
            "llm_runs": config.llm_runs,
            "judge_max": config.judge_max,
        }  # fmt: skip
    solved = profile.ablation_solved_games if config.solved_games is None else config.solved_games
    if solved < 0 or config.max_histories < 1:
        raise ValueError(
            f"solved_games must be non-negative and max_histories positive, got {solved} and "
            f"{config.max_histories}"
        )
    # Benchmark games by their stored specs: a seed of the paper configuration does not
    # resolve to its game by itself (a bare seed means the default configuration).
    stored = benchmark if benchmark is not None and "spec_json" in benchmark else None
    specs = (
        {}
        if stored is None
        else dict(zip(stored["game"].astype(str), stored["spec_json"], strict=True))
    )
    candidates = tuple(specs) if solved else ()
    # When fewer benchmark games fit, the accepted pool's other games (the same distribution)
    # make up the number: a paper-configuration game rarely fits (about 2% of them).
    reserve: tuple[str, ...] = ()
    if solved and pool is not None and "spec_json" in pool and not pool.empty:
        pooled = dict(zip(pool["seed"].astype(str), pool["spec_json"], strict=True))
        reserve = tuple(t for t in pooled if t not in specs)
        specs = {**specs, **{t: pooled[t] for t in reserve}}
    return AblationSettings(
        games=tuple(games), runs=config.runs, builtin_players=builtins,
        bootstrap=bootstrap, seed=config.seed, solved_games=solved,
        solve_candidates=candidates, solve_reserve=reserve, max_histories=config.max_histories,
        specs=specs,
        **llm,  # type: ignore[arg-type]
    )  # fmt: skip


def build_ablations(
    config: AblationsConfig,
    roster: pd.DataFrame,
    leaderboard: pd.DataFrame,
    folder: str,
    profile: Profile | None = None,
    benchmark: pd.DataFrame | None = None,
    local_url: str | None = None,
    pool: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, dict[str, object]]:
    """The asset's value and metadata, as a plain function. ``leaderboard`` is the
    ``leaderboards`` table (its ``alpha`` rates the players; empty: no lambda fit)."""
    from pathlib import Path

    settings = settings_for(config, roster, profile, benchmark, local_url, pool)
    alpha = leaderboard_alpha(leaderboard) if not leaderboard.empty else {}
    result = run_ablations(settings, alpha, Path(folder))
    summary = result.summary()
    judged = result.judgements.drop(columns=["raw_reply"], errors="ignore")
    authoring = result.authoring.drop(columns=["raw_reply", "path"], errors="ignore")
    metadata: dict[str, object] = {
        "dagster/row_count": len(summary),
        "summary": dg.MetadataValue.md(markdown_table(summary)),
        "efficiency": dg.MetadataValue.md(markdown_table(result.efficiency)),
        "exact_solving": dg.MetadataValue.md(markdown_table(result.solving)),
        "solved_games": dg.MetadataValue.md(markdown_table(result.solved)),
        "solved_game_count": int(result.solved["game"].nunique()),
        "solve_gate": dg.MetadataValue.md(markdown_table(result.sizing)),
        "solve_limit_histories": settings.max_histories,
        "thinking_budget": dg.MetadataValue.md(markdown_table(result.thinking)),
        "judge_association": dg.MetadataValue.md(markdown_table(result.association)),
        "judge_tracking": dg.MetadataValue.md(markdown_table(result.tracking)),
        "judgements": dg.MetadataValue.md(markdown_table(judged.head(50))),
        "authoring_attempts": dg.MetadataValue.md(markdown_table(authoring)),
        "program_admissions": dg.MetadataValue.md(markdown_table(result.programs)),
        "games": ", ".join(settings.games),
        "matches": len(result.matches),
        "notes": "; ".join(result.notes) or "none",
        "plot": image_metadata(ablation_plot(result.disclosure, result.thinking), "ablations"),
    }
    return summary, metadata


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    description=(
        "Ablations (Section 8): disclosed vs hidden program opponents (lambda per arm, "
        "disclosure effect, best-response efficiency), thinking budget, LLM judge; one long "
        "table with an `ablation` column, details as metadata."
    ),
)
def ablations(
    config: AblationsConfig,
    paths: ProjectPaths,
    profile: RunProfile,
    local_llm: LocalModel,
    roster: pd.DataFrame,
    leaderboards: pd.DataFrame,
    benchmark_games: pd.DataFrame,
    accepted_games: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    folder = paths.data_path() / "ablations"
    table, metadata = build_ablations(
        config,
        roster,
        leaderboards,
        str(folder),
        profile.get(),
        benchmark_games,
        local_llm.base_url(),
        accepted_games,
    )
    return dg.Output(table, metadata=metadata)  # type: ignore[arg-type]


@dg.asset_check(asset=ablations, blocking=True, description="the judge's tracking rows")
def judge_tracking(ablations: pd.DataFrame) -> dg.AssetCheckResult:
    """Each rubric has one tracking row on its matched axis when traces were judged, with a
    correlation and an interval in [-1, 1] (``arena.ablations.judge.tracking_problems``)."""
    problems = tracking_problems(ablations)
    rows = ablations[ablations["quantity"].str.startswith("tracking_")]
    return dg.AssetCheckResult(
        passed=not problems,
        metadata={"problems": "; ".join(problems) or "none", "tracking_rows": len(rows)},
    )


ASSETS = [ablations]
CHECKS: list[dg.AssetChecksDefinition] = [contract_check("ablations"), judge_tracking]
