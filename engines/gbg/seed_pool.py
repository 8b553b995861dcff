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

import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from engines.gbg.acceptance import AcceptanceSettings, evaluate
from engines.gbg.generator import GenerationConfig, generate
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
    seed: int, config: GenerationConfig, settings: AcceptanceSettings
) -> dict[str, Any]:
    """Generate and judge one seed; every outcome is a record, never an exception."""
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
        text = rulebook(spec)
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
    }


def _screen_chunk(seeds: list[int], config_json: str, settings_json: str) -> list[dict[str, Any]]:
    config = GenerationConfig.model_validate_json(config_json)
    settings = AcceptanceSettings.model_validate_json(settings_json)
    return [screen_seed(s, config, settings) for s in seeds]


def screen(
    start: int,
    target: int,
    config: GenerationConfig | None = None,
    settings: AcceptanceSettings | None = None,
    *,
    pool: TaskPool | None = None,
    max_seeds: int | None = None,
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
            in_flight.append(pool.submit(_screen_chunk, seeds, cfg, sts))
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
    return {
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


def run_pool(start: int, target: int, **kwargs: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Screen to ``target`` acceptances; return the verdicts and their summary."""
    t0 = time.perf_counter()
    verdicts = list(screen(start, target, **kwargs))
    return verdicts, summarise(verdicts, time.perf_counter() - t0)
