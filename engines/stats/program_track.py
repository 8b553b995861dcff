"""The program track: a model scored by the strategy programs it writes (GameBench 2, Section 2).

Why it exists: GameBench 2 ranks models by their programs, on a 0-100 scale against a fixed
reference field, with failed submissions counting as zero; here the same construction is a
separate track beside the models' own play. Inputs: the authoring attempts (one row per attempt:
``author``, ``game``, ``attempt`` (0 the first answer, 1.. the repairs), ``admitted``,
``reason``, and ``program``, the name the admitted program plays under in the corpus) and a match
corpus in which the admitted programs play the reference field. Steps:

1. **Authoring runs**: consecutive attempts of one (author, game) from an ``attempt`` 0 on are one
   run; its outcome is its last attempt's: ``admitted`` (a program), ``speed`` (refused only by
   the admission speed check: disqualified and counted in no score, since the check can refuse a
   working program for reasons of the host), ``harness`` (no reply: a provider or harness
   failure, counted in no score and flagged) or ``failed`` (no code, does not load, crashes or
   answers an illegal move on the admission test: counts 0, because writing a working program is
   part of the task). Repair turns are the run's attempts after the first.
2. **Program scores**: per game, the anchored 0-100 score of every admitted program against the
   field (``engines.stats.anchored``: its runs against the members only, clustered bootstrap
   over runs). A program that crashes or answers an illegal move in a match forfeits it (a loss
   kept in the corpus); a timeout is out of the evidence.
3. **Values**: an author's value on a game is the mean over its counted runs (admitted and
   failed) of the run's score (0 for a failed one), so identical programs admitted twice count
   for both runs; its track score is the mean of its game values. Replicates are combined the
   same way, so intervals carry the matches' uncertainty (the authoring outcomes are fixed).
4. **Flags**: an author with a game that has no counted run, or with a harness failure, is
   provisional (reason given) and gets no rank.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.stats.anchored import fit_scales, seat_runs
from engines.stats.bootstrap import percentile_interval
from engines.stats.reference_field import ReferenceField

FloatArray = npt.NDArray[np.float64]

ATTEMPT_COLUMNS: tuple[str, ...] = ("author", "game", "attempt", "admitted", "reason", "program")
SPEED_REASON = "too slow"
HARNESS_REASON = "no reply"
OVERALL = "(overall)"

RUN_COLUMNS: tuple[str, ...] = (
    "author",
    "game",
    "run",
    "attempts",
    "repair_turns",
    "outcome",
    "program",
    "score",
    "ci_low",
    "ci_high",
    "reason",
)
TRACK_COLUMNS: tuple[str, ...] = (
    "track",
    "author",
    "game",
    "authoring_runs",
    "admitted",
    "failed",
    "speed_rejected",
    "harness_failed",
    "repair_turns",
    "score",
    "ci_low",
    "ci_high",
    "status",
    "rank",
    "reason",
)


def outcome_of(admitted: bool, reason: str) -> str:
    if admitted:
        return "admitted"
    if reason.startswith(SPEED_REASON):
        return "speed"
    if reason.startswith(HARNESS_REASON):
        return "harness"
    return "failed"


def authoring_runs(attempts: pd.DataFrame) -> pd.DataFrame:
    """One row per authoring run (step 1), scores left empty."""
    missing = [c for c in ATTEMPT_COLUMNS if c not in attempts.columns]
    if missing:
        raise ValueError(f"the authoring attempts lack column(s) {', '.join(missing)}")
    rows = []
    counters: dict[tuple[str, str], int] = {}
    current: dict[tuple[str, str], list[dict[str, object]]] = {}

    def close(key: tuple[str, str]) -> None:
        run = current.pop(key, [])
        if not run:
            return
        last = run[-1]
        outcome = outcome_of(bool(last["admitted"]), str(last["reason"]))
        program = last["program"] if outcome == "admitted" else None
        if outcome == "admitted" and (program is None or pd.isna(program)):
            raise ValueError(f"an admitted program of {key[0]} on {key[1]} has no program name")
        rows.append(
            {
                "author": key[0],
                "game": key[1],
                "run": counters[key],
                "attempts": len(run),
                "repair_turns": len(run) - 1,
                "outcome": outcome,
                "program": program,
                "reason": "" if outcome == "admitted" else str(last["reason"]),
            }
        )
        counters[key] += 1

    for record in attempts.loc[:, list(ATTEMPT_COLUMNS)].to_dict("records"):
        key = (str(record["author"]), str(record["game"]))
        counters.setdefault(key, 0)
        if int(record["attempt"]) == 0:
            close(key)
        elif key not in current:
            raise ValueError(
                f"attempt {record['attempt']} of {key[0]} on {key[1]} has no first attempt"
            )
        current.setdefault(key, []).append(record)
    for key in list(current):
        close(key)
    unscored = [c for c in RUN_COLUMNS if c not in ("score", "ci_low", "ci_high")]
    return pd.DataFrame(rows, columns=unscored)


def program_scores(
    matches: pd.DataFrame,
    programs: dict[str, set[str]],
    field: ReferenceField,
    n_boot: int,
    rng: np.random.Generator,
) -> dict[tuple[str, str], tuple[float, FloatArray]]:
    """Per (game, program): the program's 0-100 score against the field on that game and the
    replicates (step 2). ``programs`` maps a game token to the program names admitted on it (a
    program may play several games under one name)."""
    out: dict[tuple[str, str], tuple[float, FloatArray]] = {}
    for game, names in sorted(programs.items()):
        on_game = matches.loc[matches["game"].astype(str) == game]
        if on_game.empty:
            continue
        scales = fit_scales(seat_runs(on_game), field, n_boot, rng)
        for name in names:
            if name in scales.models:
                k = scales.models.index(name)
                out[(game, name)] = (float(scales.score[k]), scales.score_boot[:, k])
    return out


def program_track(
    attempts: pd.DataFrame,
    matches: pd.DataFrame,
    field: ReferenceField,
    n_boot: int,
    rng: np.random.Generator,
    level: float = 0.95,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the authoring runs with their scores, the track table: per author and game, and per
    author overall, ranked; see the module docstring)."""
    runs = authoring_runs(attempts)
    admitted = runs[runs["outcome"] == "admitted"]
    programs: dict[str, set[str]] = {}
    for game, program in zip(admitted["game"], admitted["program"], strict=True):
        programs.setdefault(str(game), set()).add(str(program))
    scores = program_scores(matches, programs, field, n_boot, rng)
    zero = np.zeros(n_boot)
    run_boot: list[FloatArray | None] = []
    score, low, high = [], [], []
    for game, outcome, program in zip(runs["game"], runs["outcome"], runs["program"], strict=True):
        if outcome == "failed":
            value, boot = 0.0, zero
        elif outcome == "admitted" and (str(game), str(program)) in scores:
            value, boot = scores[(str(game), str(program))]
        else:
            value, boot = float("nan"), None
        run_boot.append(boot)
        score.append(value)
        bounds = percentile_interval(boot[:, None], level) if boot is not None else None
        low.append(float(bounds[0][0]) if bounds else float("nan"))
        high.append(float(bounds[1][0]) if bounds else float("nan"))
    runs = runs.assign(score=score, ci_low=low, ci_high=high).loc[:, list(RUN_COLUMNS)]
    games = sorted(set(runs["game"]))
    rows = []
    for author in sorted(set(runs["author"])):
        values: list[FloatArray] = []
        reasons: list[str] = []
        totals = dict.fromkeys(("runs", "admitted", "failed", "speed", "harness", "repairs"), 0)
        for game in games:
            mine = runs[(runs["author"] == author) & (runs["game"] == game)]
            boots = [run_boot[i] for i in mine.index]
            counted = [b for b in boots if b is not None]
            unscored = mine[(mine["outcome"] == "admitted") & mine["score"].isna()]
            counts = {
                "runs": len(mine),
                "admitted": int((mine["outcome"] == "admitted").sum()),
                "failed": int((mine["outcome"] == "failed").sum()),
                "speed": int((mine["outcome"] == "speed").sum()),
                "harness": int((mine["outcome"] == "harness").sum()),
                "repairs": int(mine["repair_turns"].sum()),
            }
            for key, count in counts.items():
                totals[key] += count
            why = []
            if mine.empty:
                why.append(f"no authoring run on {game}")
            elif not counted:
                why.append(f"no counted run on {game}")
            if counts["harness"]:
                why.append(f"{counts['harness']} harness failure(s) on {game}")
            if len(unscored):
                why.append(f"{len(unscored)} admitted program(s) on {game} without a complete run")
            reasons += why
            vectors = [
                np.concatenate([[s], b])
                for s, b in zip(mine["score"], boots, strict=True)
                if b is not None
            ]
            game_value: FloatArray = (
                np.mean(vectors, axis=0) if vectors else np.full(n_boot + 1, np.nan)
            )
            values.append(game_value)
            rows.append(_track_row(author, game, counts, game_value, level, why))
        scored = [v for v in values if np.isfinite(v[0])]
        overall = np.mean(scored, axis=0) if scored else np.full(n_boot + 1, np.nan)
        rows.append(_track_row(author, OVERALL, totals, overall, level, reasons))
    track = pd.DataFrame(rows)
    ranked = (track["game"] == OVERALL) & (track["status"] == "ranked")
    order = track[ranked].sort_values(["score", "author"], ascending=[False, True])
    track["rank"] = pd.array([pd.NA] * len(track), dtype="Int64")
    track.loc[order.index, "rank"] = np.arange(1, len(order) + 1)
    return runs, track.loc[:, list(TRACK_COLUMNS)]


def _track_row(
    author: str,
    game: str,
    counts: dict[str, int],
    value: FloatArray,
    level: float,
    reasons: list[str],
) -> dict[str, object]:
    finite = np.isfinite(value[0])
    low, high = percentile_interval(value[1:, None], level) if finite else (None, None)
    return {
        "track": "programs",
        "author": author,
        "game": game,
        "authoring_runs": counts["runs"],
        "admitted": counts["admitted"],
        "failed": counts["failed"],
        "speed_rejected": counts["speed"],
        "harness_failed": counts["harness"],
        "repair_turns": counts["repairs"],
        "score": float(value[0]),
        "ci_low": float(low[0]) if low is not None else float("nan"),
        "ci_high": float(high[0]) if high is not None else float("nan"),
        "status": "provisional" if reasons or not finite else "ranked",
        "reason": "; ".join(reasons),
    }
