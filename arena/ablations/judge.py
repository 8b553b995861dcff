"""The LLM judge of reasoning traces (paper, Section 8, "Reasoning traces"; Appendix I).

A judge model (any provider of the roster, through ``LLMPlayer.ask`` and its response cache)
reads one move trace (the prompt context: game rules summary and the per-turn prompt hash,
the legal menu and the action, and the player's reply and reasoning) and scores it on three
rubrics, each 0-3: ``opponent_modelling``, ``private_information`` and ``planning_depth``.
A judge configured with a response format is held to ``RUBRIC_SCHEMA`` (the three integer
scores).  Replies are parsed leniently (a JSON object anywhere in the reply, keys matched
loosely; else ``name: digit`` pairs); a reply without three scores is recorded with verdict
``unparsable`` and its scores left empty.  Every judgement is recorded.

``association`` relates rubric scores to margins: each rubric is matched to an axis
(opponent modelling -> ``opponent``, private information -> ``information``, planning depth ->
``temporal``); games are split into tertiles of that axis, and within each tertile the margin
of the judged move's deal is regressed on the score (chips per rubric point).  The axis scores
are the games' five complexity axes (``engines.axes``); the ablations compute them for their
games at the ``quick`` budget unless the caller passes the benchmark's.

``tracking`` is the paper's other question (Section 8: "how much of each type of reasoning a
trace contains barely tracks its matched axis. Only opponent modeling does, and weakly"): for
each rubric, Spearman's rho over the judged traces between a trace's score and its game's
matched axis, with a percentile bootstrap interval.  The axis belongs to the game, so the games
are resampled (each with all its traces), not the deals.  ``tracking_problems`` is the check of
the released rows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from arena.ablations.authoring import sha256_text
from arena.llm.player import LLMPlayer
from engines.agents.base import MoveFailed, PlayerStopped
from engines.stats.bootstrap import weighted_bootstrap

RUBRICS = ("opponent_modelling", "private_information", "planning_depth")
RUBRIC_AXES = {
    "opponent_modelling": "opponent",
    "private_information": "information",
    "planning_depth": "temporal",
}

JUDGE_SYSTEM = """\
You grade the reasoning of a player of a two-player card game.  Score the player's reasoning
on three rubrics, each an integer from 0 (absent) to 3 (thorough and correct):
- opponent_modelling: reasons about the opponent's likely cards, strategy or intentions;
- private_information: reasons about its own hidden cards and what the opponent cannot see;
- planning_depth: plans ahead over later phases, bets or decisions of the deal.
Reply with JSON only: {"opponent_modelling": n, "private_information": n, "planning_depth": n}
"""

# What a judge configured with a response format is held to (a small model then cannot wander).
RUBRIC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {r: {"type": "integer", "minimum": 0, "maximum": 3} for r in RUBRICS},
    "required": list(RUBRICS),
    "additionalProperties": False,
}

_PAIR = re.compile(r"([A-Za-z_ \-]+)\"?\s*[:=]\s*\"?(\d+(?:\.\d+)?)")
_ALIASES = {
    "opponent_modelling": ("opponent", "modell", "modeling"),
    "private_information": ("private", "information"),
    "planning_depth": ("planning", "depth", "plan"),
}


@dataclass(frozen=True)
class Judgement:
    """One judged move trace."""

    match_id: str
    index: int
    player: str
    game: str
    judge: str
    prompt_sha256: str
    raw_reply: str
    verdict: str  # ok | unparsable | failed
    opponent_modelling: float | None
    private_information: float | None
    planning_depth: float | None

    def record(self) -> dict[str, Any]:
        return asdict(self)


def _rubric_of(key: str) -> str | None:
    low = key.lower().replace("-", "_").replace(" ", "_")
    if low in RUBRICS:
        return low
    for rubric, words in _ALIASES.items():
        if any(w in low for w in words):
            return rubric
    return None


def parse_scores(text: str) -> dict[str, float] | None:
    """The three scores in a judge's reply (leniently), clipped to 0-3; None if any is missing."""
    found: dict[str, float] = {}
    for candidate in re.findall(r"\{[^{}]*\}", text or ""):
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            for key, value in data.items():
                rubric = _rubric_of(str(key))
                if rubric and isinstance(value, int | float) and not isinstance(value, bool):
                    found.setdefault(rubric, float(value))
    if len(found) < len(RUBRICS):
        for key, value in _PAIR.findall(text or ""):
            rubric = _rubric_of(key.strip())
            if rubric:
                found.setdefault(rubric, float(value))
    if len(found) < len(RUBRICS):
        return None
    return {r: min(3.0, max(0.0, found[r])) for r in RUBRICS}


def trace_text(move: Mapping[str, Any], game: str) -> str:
    """The trace a judge reads: context, menu, action, the player's reply and reasoning."""
    legal = list(move.get("legal_actions") or [])
    parts = [
        f"Game: {game}. Player {move.get('player')} ({move.get('seat')}) in phase "
        f"{move.get('phase')}, move {move.get('index')}.",
        f"Legal actions: {json.dumps(legal, ensure_ascii=False)}. Chosen: {move.get('action')}.",
    ]
    if move.get("reasoning"):
        parts.append(f"Reasoning:\n{move['reasoning']}")
    parts.append(f"Reply:\n{move.get('raw_response') or '(none)'}")
    return "\n".join(parts)


async def judge_moves(
    judge: LLMPlayer, moves: Sequence[Mapping[str, Any]], games: Mapping[str, str]
) -> list[Judgement]:
    """Judge every move with a trace (``raw_response`` or ``reasoning``); ``games`` maps
    match id to game."""
    out: list[Judgement] = []
    for move in moves:
        if not (move.get("raw_response") or move.get("reasoning")):
            continue
        match_id = str(move["match_id"])
        game = games.get(match_id, "")
        text = trace_text(move, game)
        messages = [{"role": "user", "content": text}]
        call_id = f"judge/{judge.name}/{match_id}/{move['index']}"
        raw, verdict, scores = "", "failed", None
        try:
            reply, _, _, _ = await judge.ask(JUDGE_SYSTEM, messages, (), call_id, RUBRIC_SCHEMA)
            raw = reply.text or ""
            scores = parse_scores(raw)
            verdict = "ok" if scores else "unparsable"
        except (PlayerStopped, MoveFailed) as exc:
            raw = f"(no reply: {exc})"
        s = scores or {}
        out.append(
            Judgement(
                match_id, int(move["index"]), str(move.get("player")), game, judge.name,
                sha256_text(JUDGE_SYSTEM + text), raw, verdict,
                s.get("opponent_modelling"), s.get("private_information"), s.get("planning_depth"),
            )
        )  # fmt: skip
    return out


def _slope(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    total = w.sum()
    if total <= 0:
        return float("nan")
    xm, ym = (w * x).sum() / total, (w * y).sum() / total
    sxx = (w * (x - xm) ** 2).sum()
    return float((w * (x - xm) * (y - ym)).sum() / sxx) if sxx > 1e-12 else float("nan")


def tertiles(values: Mapping[str, float]) -> dict[str, str]:
    """Games into ``low``/``middle``/``top`` thirds by rank (ties by name)."""
    ordered = sorted(values, key=lambda g: (values[g], g))
    n = len(ordered)
    names = ("low", "middle", "top")
    return {g: names[min(2, (3 * i) // n)] for i, g in enumerate(ordered)} if n else {}


def association(
    judged: pd.DataFrame,
    axes: Mapping[str, Mapping[str, float]],
    n_boot: int,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """Chips of margin per rubric point, by rubric and axis tertile (see the module docstring).

    ``judged``: judgements with ``margin`` (the player's margin on the judged deal) and
    ``deal`` (its resampling unit); ``axes[game][axis]``: the axis scores of every judged game
    (``ValueError`` names a game without them).
    """
    columns = ["rubric", "axis", "tertile", "games", "traces", "mean_score", "slope"]
    rows: list[dict[str, Any]] = []
    ok = judged[judged["verdict"] == "ok"] if not judged.empty else judged
    for rubric in RUBRICS:
        if ok.empty:
            break
        axis = RUBRIC_AXES[rubric]
        missing = sorted(str(g) for g in ok["game"].unique() if axis not in axes.get(g, {}))
        if missing:
            raise ValueError(f"no {axis} axis score for game(s) {', '.join(missing)}")
        third = tertiles({g: float(axes[g][axis]) for g in ok["game"].unique()})
        frame = ok.assign(tertile=ok["game"].map(third))
        for name in ("low", "middle", "top"):
            part = frame[frame["tertile"] == name]
            if part.empty:
                continue

            def statistic(f: pd.DataFrame, w: np.ndarray, r: str = rubric) -> dict[str, float]:
                return {
                    "slope": _slope(f[r].to_numpy(np.float64), f["margin"].to_numpy(np.float64), w)
                }

            found = weighted_bootstrap(part, ["deal"], statistic, n_boot, rng)
            rows.append(
                {
                    "rubric": rubric, "axis": axis, "tertile": name,
                    "games": int(part["game"].nunique()), "traces": len(part),
                    "mean_score": float(part[rubric].mean()), "slope": found["slope"].value,
                    "ci_low": found["slope"].low, "ci_high": found["slope"].high,
                }
            )  # fmt: skip
    return pd.DataFrame(rows, columns=[*columns, "ci_low", "ci_high"])


TRACKING_COLUMNS = ("rubric", "axis", "games", "traces", "spearman", "ci_low", "ci_high")
TRACKING_QUANTITY = "tracking_"  # + rubric: the rows of ``tracking`` in the summary table


def _ranks(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Mid-ranks of ``x`` in the sample where row i appears ``w[i]`` times (ties share the
    mean of the ranks they span), so a weighted Spearman equals the expanded sample's."""
    order = np.argsort(x, kind="stable")
    values, weights = x[order], w[order]
    ranks = np.empty(len(x), dtype=np.float64)
    below = 0.0
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[i]:
            j += 1
        tied = weights[i : j + 1].sum()
        ranks[order[i : j + 1]] = below + (tied + 1) / 2
        below += tied
        i = j + 1
    return ranks


def weighted_spearman(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Spearman's rho of ``x`` and ``y`` with row weights ``w`` (rows of weight 0 left out;
    NaN when either side is constant)."""
    keep = w > 0
    x, y, w = x[keep], y[keep], w[keep]
    if len(x) < 2:
        return float("nan")
    rx, ry = _ranks(x, w), _ranks(y, w)
    total = w.sum()
    mx, my = (w * rx).sum() / total, (w * ry).sum() / total
    sxx, syy = (w * (rx - mx) ** 2).sum(), (w * (ry - my) ** 2).sum()
    if sxx <= 1e-12 or syy <= 1e-12:
        return float("nan")
    return float((w * (rx - mx) * (ry - my)).sum() / np.sqrt(sxx * syy))


def tracking(
    judged: pd.DataFrame,
    axes: Mapping[str, Mapping[str, float]],
    n_boot: int,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """How far each rubric's scores track their matched axis (see the module docstring): one
    row per rubric with judged traces, Spearman's rho over traces (NaN when the scores or the
    axis do not vary) and its bootstrap interval over games.  ``axes[game][axis]`` as in
    :func:`association` (``ValueError`` names a game without its axis)."""
    rows: list[dict[str, Any]] = []
    ok = judged[judged["verdict"] == "ok"] if not judged.empty else judged
    for rubric in RUBRICS if not ok.empty else ():
        axis = RUBRIC_AXES[rubric]
        missing = sorted(str(g) for g in ok["game"].unique() if axis not in axes.get(g, {}))
        if missing:
            raise ValueError(f"no {axis} axis score for game(s) {', '.join(missing)}")
        frame = ok.assign(axis_value=ok["game"].map(lambda g, a=axis: float(axes[g][a])))

        def statistic(f: pd.DataFrame, w: np.ndarray, r: str = rubric) -> dict[str, float]:
            x = f[r].to_numpy(np.float64)
            return {"rho": weighted_spearman(x, f["axis_value"].to_numpy(np.float64), w)}

        found = weighted_bootstrap(frame, ["game"], statistic, n_boot, rng)
        rows.append(
            {
                "rubric": rubric, "axis": axis, "games": int(frame["game"].nunique()),
                "traces": len(frame), "spearman": found["rho"].value,
                "ci_low": found["rho"].low, "ci_high": found["rho"].high,
            }
        )  # fmt: skip
    return pd.DataFrame(rows, columns=list(TRACKING_COLUMNS))


def tracking_problems(summary: pd.DataFrame) -> list[str]:
    """What is wrong with the tracking rows of the ablations' summary table, one line each:
    when the judge's association has rows (judged traces), each rubric has exactly one
    tracking row, on its matched axis, over at least one trace, with a correlation and an
    interval inside [-1, 1] (NaN only when undefined)."""
    judge = summary[summary["ablation"] == "judge"]
    slopes = judge[judge["quantity"].str.startswith("slope_")]
    rows = judge[judge["quantity"].str.startswith(TRACKING_QUANTITY)]
    problems: list[str] = []
    if slopes.empty:
        return [f"{len(rows)} tracking row(s) without judged traces"] if len(rows) else []
    for rubric in RUBRICS:
        mine = rows[rows["quantity"] == TRACKING_QUANTITY + rubric]
        if len(mine) != 1:
            problems.append(f"{rubric}: {len(mine)} tracking rows, expected 1")
            continue
        row = mine.iloc[0]
        if not str(row["subject"]).startswith(f"{RUBRIC_AXES[rubric]} axis"):
            problems.append(f"{rubric}: tracked against {row['subject']!r}")
        if int(row["n"]) < 1:
            problems.append(f"{rubric}: no traces")
        for column in ("estimate", "ci_low", "ci_high"):
            value = float(row[column])
            if not np.isnan(value) and not -1.0 - 1e-9 <= value <= 1.0 + 1e-9:
                problems.append(f"{rubric}: {column} {value} is not a correlation")
    return problems
