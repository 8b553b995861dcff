"""The seed pool: screen seeds in order until N games are accepted (paper, Section 3).

Screening a seed means generating its game (a generator failure is recorded as a rejection,
never raised), running the acceptance filter, and summarising the game: its hash, rulebook
length, repairs and features.  ``screen`` streams verdicts in seed order from a task pool
(``engines.tasks``: in this process, or the harness's worker processes) and keeps only a bounded
window of work in flight, so the paper-scale
pool never sits in memory.  The result depends only on (start, target, config, settings): the
pool stops at the seed that brings the N-th acceptance, whatever the scheduling.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from engines.gbg.acceptance import AcceptanceSettings, evaluate
from engines.gbg.generator import GenerationConfig, generate
from engines.gbg.inertness import INERT_REASON, inert_phases
from engines.gbg.rulebook import consistency_errors, rulebook
from engines.gbg.spec import GameSpec
from engines.tasks import InlinePool, TaskPool, TaskResult

FEATURES = (
    "auction",
    "simultaneous",
    "peek",
    "position",
    "side_bet",
    "draw",
    "swap",
    "reveal",
    "branch",
)


def features(spec: GameSpec) -> dict[str, Any]:
    """Which features a game has, and its sizes (for the picture of the pool)."""
    kinds = {p.kind for p in spec.phases}
    out: dict[str, Any] = {f"has_{k}": k in kinds for k in FEATURES if k != "branch"}
    out["has_branch"] = any(e.when is not None for p in spec.phases for e in p.next)
    out["metric"] = spec.showdown.metric.kind
    out["deck_size"] = spec.deck.size
    out["hand_size"] = spec.phases[0].count if spec.phases[0].kind == "deal" else 0
    out["phases"] = len(spec.phases)
    out["betting_rounds"] = sum(p.kind == "betting" for p in spec.phases)
    return out


ERROR_CHARS = 300


def error_line(exc: BaseException) -> str:
    """An exception as one bounded line (a 10^6-card spec must not print megabytes)."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 3] + "..."


def screen_seed(
    seed: int, config: GenerationConfig, settings: AcceptanceSettings, style: str = "compact"
) -> dict[str, Any]:
    """Generate and judge one seed; every outcome is a record, never an exception.

    ``style`` is the rulebook style whose length is recorded.  A configuration that rejects
    inert phases (``reject_inert``) adds the reason ``inert_phase`` and the column
    ``inert_phases`` (the offending phases with their reasons, JSON)."""
    try:
        spec = generate(seed, config)
    except Exception as exc:  # recorded, not raised: a pool never dies on one seed
        return {
            "seed": seed,
            "accepted": False,
            "reasons": ["generator_error"],
            "error": error_line(exc),
        }
    try:
        verdict = evaluate(spec, settings, seed=seed)
        text = rulebook(spec, style=style)
    except Exception as exc:  # an engine failure in random play rejects the game, not the pool
        return {
            "seed": seed,
            "accepted": False,
            "reasons": ["engine_error"],
            "error": f"engine_error: {error_line(exc)}",
            "spec_hash": spec.spec_hash,
        }
    gaps = consistency_errors(spec, text)
    reasons = list(verdict["reasons"]) + (["rulebook_inconsistent"] if gaps else [])
    extra: dict[str, Any] = {}
    if config.reject_inert:
        inert = inert_phases(spec)
        reasons += [INERT_REASON] if inert else []
        extra["inert_phases"] = json.dumps(inert)
    figures = verdict["figures"]
    return {
        "seed": seed,
        "accepted": not reasons,
        "reasons": reasons,
        "spec_hash": spec.spec_hash,
        "spec_json": spec.canonical_json(),
        "rulebook_chars": len(text),
        "repairs": list((spec.generation or {}).get("repairs", [])),
        "moves_per_player": figures["moves_per_player"],
        "seat_win_share": figures["seat_win_share"],
        "extreme_branch_share": figures["extreme_branch_share"],
        "rare_phase_share": figures["rare_phase_share"],
        "branch_conditions": figures["branch_conditions"],
        **features(spec),
        **extra,
    }


def _screen_chunk(
    seeds: list[int], config_json: str, settings_json: str, style: str = "compact"
) -> list[dict[str, Any]]:
    config = GenerationConfig.model_validate_json(config_json)
    settings = AcceptanceSettings.model_validate_json(settings_json)
    return [screen_seed(s, config, settings, style) for s in seeds]


def screen(
    start: int,
    target: int,
    config: GenerationConfig | None = None,
    settings: AcceptanceSettings | None = None,
    *,
    pool: TaskPool | None = None,
    max_seeds: int | None = None,
    style: str = "compact",
    chunk: int = 8,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield verdicts for seeds ``start, start+1, ...`` until ``target`` are accepted (or
    ``max_seeds`` were screened).  ``progress(sampled, accepted)`` is called as results come."""
    config = config or GenerationConfig()
    settings = settings or AcceptanceSettings()
    pool = pool or InlinePool()
    workers = pool.workers
    limit = max_seeds if max_seeds is not None else 50 * max(target, 1) + 1000
    cfg, sts = config.model_dump_json(), settings.model_dump_json()
    # Worker processes take chunks of ``chunk`` seeds, four per worker in flight; in this
    # process one seed at a time, so nothing past the target's seed is screened.
    size, window = (chunk, 4 * workers) if workers > 1 else (1, 1)
    sampled = accepted = 0
    next_seed = start
    end = start + limit
    in_flight: list[TaskResult[list[dict[str, Any]]]] = []
    while True:
        while len(in_flight) < window and next_seed < end:
            seeds = list(range(next_seed, min(end, next_seed + size)))
            in_flight.append(pool.submit(_screen_chunk, seeds, cfg, sts, style))
            next_seed += len(seeds)
        if not in_flight:
            return
        for verdict in in_flight.pop(0).result():
            sampled += 1
            accepted += verdict["accepted"]
            if progress:
                progress(sampled, accepted)
            yield verdict
            if accepted >= target:
                return


def summarise(verdicts: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """The picture of a pool: acceptance, rejection reasons, feature frequencies, lengths."""
    accepted = [v for v in verdicts if v["accepted"]]
    reasons: Counter[str] = Counter(r for v in verdicts for r in v["reasons"])
    lengths = sorted(v["rulebook_chars"] for v in accepted)
    freq: dict[str, float] = {}
    if accepted:
        for f in FEATURES:
            freq[f] = sum(bool(v[f"has_{f}"]) for v in accepted) / len(accepted)
        for metric, n in Counter(v["metric"] for v in accepted).items():
            freq[f"metric_{metric}"] = n / len(accepted)
    moves = [float(v["moves_per_player"]) for v in accepted if "moves_per_player" in v]
    inert = sum(1 for v in accepted if v.get("inert_phases") not in (None, "", "[]"))
    return {
        "moves_per_player_mean": statistics.fmean(moves) if moves else 0.0,
        "moves_per_player_max": max(moves) if moves else 0.0,
        "accepted_with_inert_phases": inert,
        "sampled": len(verdicts),
        "accepted": len(accepted),
        "acceptance_rate": len(accepted) / len(verdicts) if verdicts else 0.0,
        "rejections": dict(sorted(reasons.items())),
        "feature_frequencies": freq,
        "deck_sizes": dict(sorted(Counter(v["deck_size"] for v in accepted).items())),
        "hand_sizes": dict(sorted(Counter(v["hand_size"] for v in accepted).items())),
        "rulebook_chars": {
            "min": lengths[0] if lengths else 0,
            "median": statistics.median(lengths) if lengths else 0,
            "max": lengths[-1] if lengths else 0,
        },
        "seconds": seconds,
        "seeds_per_second": len(verdicts) / seconds if seconds > 0 else 0.0,
    }


# What the paper reports of its pool (Section 3; Appendix E, "Robustness to rulebook-based
# confounds"): 2,000 of 12,351 sampled seeds accepted; rulebooks of the benchmark games from
# roughly 8,600 to just under 39,000 characters; no more than ten moves per player under random
# play (an acceptance criterion).  It gives no rejection counts and no feature frequencies.
PAPER_POOL = {
    "sampled": 12_351,
    "accepted": 2_000,
    "acceptance_rate": 2_000 / 12_351,
    "rulebook_chars_min": 8_600,
    "rulebook_chars_max": 39_000,
    "max_moves_per_player": 10.0,
}
NOT_REPORTED = "not reported"


def paper_comparison(summary: dict[str, Any]) -> list[dict[str, str]]:
    """The pool's picture side by side with the paper's figures, one row per quantity
    (``quantity``, ``ours``, ``paper``); a quantity the paper does not give says so."""
    sampled = max(summary["sampled"], 1)
    lengths = summary["rulebook_chars"]
    rows = [
        {
            "quantity": "acceptance rate",
            "ours": f"{summary['acceptance_rate']:.1%} ({summary['accepted']} of "
            f"{summary['sampled']})",
            "paper": f"{PAPER_POOL['acceptance_rate']:.1%} (2,000 of 12,351)",
        },
        {
            "quantity": "rulebook characters (accepted)",
            "ours": f"min {lengths['min']:,}, median {lengths['median']:,.0f}, "
            f"max {lengths['max']:,}",
            "paper": "8,600 to just under 39,000 (the 50 benchmark games)",
        },
        {
            "quantity": "moves per player, random play (accepted)",
            "ours": f"mean {summary.get('moves_per_player_mean', 0.0):.2f}, max "
            f"{summary.get('moves_per_player_max', 0.0):.2f}",
            "paper": "at most 10 (criterion); seed 4643: "
            f"{summary.get('paper_example_moves', NOT_REPORTED)}",
        },
    ]
    for reason, n in summary["rejections"].items():
        rows.append(
            {
                "quantity": f"rejected for {reason}",
                "ours": f"{n / sampled:.1%} of seeds",
                "paper": NOT_REPORTED,
            }
        )
    for feature, share in summary["feature_frequencies"].items():
        rows.append(
            {
                "quantity": f"accepted games with {feature}",
                "ours": f"{share:.0%}",
                "paper": NOT_REPORTED,
            }
        )
    return rows


def run_pool(start: int, target: int, **kwargs: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Screen to ``target`` acceptances; return the verdicts and their summary."""
    t0 = time.perf_counter()
    verdicts = list(screen(start, target, **kwargs))
    return verdicts, summarise(verdicts, time.perf_counter() - t0)
