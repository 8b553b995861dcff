"""Editions: anchored scores on one scale across editions, and the saturation watch.

Why it exists: the benchmark renews itself by *editions* (issue 39, item 3): an edition is a
numbered draw of benchmark games from seeds no earlier edition used. Two questions follow, and
this module answers both with statistics only (no files, no pipeline, no environment):

**Scores comparable across editions** (issue 39, item 5). Every edition's tournament plays the
same versioned reference field (``engines.stats.reference_field``), and every entrant is scored
by the anchored scales (``engines.stats.anchored``): stage 1 fits the field's members on their
runs among themselves, shifted so the anchor has its fixed value (uniform random = 0 chips/game);
stage 2 rates each entrant from its runs *against members* only, with the members held fixed. So
an entrant's number depends only on its own games against the field and on the field's games
among themselves, never on which other entrants an edition holds; the anchor fixes the origin in
every edition, and the unit is chips/game on a draw from the same generator. :func:`edition_scores`
is the anchored release table (``anchored.scales_with_flags``) of each edition's corpus, stacked
in one long table; :func:`trend_table` and :func:`trend_figure` show it by edition. The scale is
shared as long as the games come from one distribution: an edition at a higher complexity dial
plays other games with other payoffs, so its chips/game are comparable only as "against this
field on these harder games" (docs/EDITIONS.md). The intervals resample runs, not games: they are
conditional on the edition's games, and one model's estimand moves between editions with the
games drawn (``benchmarks/editions_planted.py`` measures both).

**Saturation watch** (issue 39, item 6). Each edition reports how well it still separates its
entrants (:func:`saturation`):

- *spread*: the largest minus the smallest entrant rating, and their standard deviation
  (``ddof = 0``), in chips/game (the Section 6 reading: "about three chips per game separate the
  top and bottom of Table 1");
- *tiers*: the leaderboard's tiering (``engines.stats.leaderboard.assign_tiers``, Section 6):
  down the ranking, a new tier starts at the first entrant whose whole 95% interval lies below
  the interval of the current tier's leader;
- *swept share*: of the games on which the top entrant has a complete run, the share on which it
  wins every run (run = the two seat-swapped deals sharing a play seed, Section 5; won = its run
  margin, the sum of its two deals' margins, is above 0; a tied run is not won) against every
  opponent it met there, members and entrants alike.

:func:`saturation_verdict` turns the figures into a decision by the rule of
:class:`SaturationRule` (thresholds are this project's choices, not the paper's): the field is
saturated when the top entrant sweeps at least half of its games, or when the entrants fall in
fewer than two tiers while every one of them takes at least 90% of the points against the field
(a ceiling). A saturated field is answered by a harder next edition: the generator's complexity
dial (``GenerationConfig.complexity``, 1.0 = the paper's setting) goes up by one step. Section 6
of the paper is the reason a harder draw separates again: refitting on the eight most complex
games widens the spread from 3.3 to 5.6 chips/game, and by temporal tertile the leaderboard
spans 1.8, 3.0 and 5.0. Fewer than two tiers *below* the ceiling is not saturation (the games
do not resolve the entrants, or the entrants are alike): the answer is more runs or games at the
same dial.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines import plotting
from engines.stats.anchored import ANCHORED_COLUMNS, scales_with_flags
from engines.stats.bootstrap import DEFAULT_BOOTSTRAP
from engines.stats.leaderboard import assign_tiers
from engines.stats.provisional import ProvisionalRules
from engines.stats.reference_field import ReferenceField
from engines.stats.runs import run_table

FloatArray = npt.NDArray[np.float64]

EDITION_COLUMNS: tuple[str, ...] = ("edition", *ANCHORED_COLUMNS, "note")
SCALE_LABELS: dict[str, str] = {
    "rating": "anchored rating (chips/game, uniform random = 0)",
    "score": "score against the field (0-100)",
    "elo": "calibrated Elo",
}
# The generator's bounds on its complexity dial (engines.gbg.generator.GenerationConfig,
# ``complexity: Field(ge=0.5, le=4.0)``); repeated here so this module stays free of the
# generator's imports, and pinned to the generator by tests/engines/stats/test_editions.py.
COMPLEXITY_CEILING = 4.0


def edition_rng(seed: int, edition: int) -> np.random.Generator:
    """The bootstrap generator of one edition: a function of ``(seed, edition)`` only, so an
    edition's intervals do not change when other editions are added or removed."""
    return np.random.default_rng([seed, edition])


def check_editions(corpora: Mapping[int, pd.DataFrame]) -> None:
    """``ValueError`` unless the editions are numbered 1, 2, ... (positive integers, any subset)
    and no game seed appears in two editions (issue 39, item 3: disjoint seeds)."""
    if not corpora:
        raise ValueError("no editions given")
    seen: dict[int, int] = {}
    for edition in sorted(corpora):
        if isinstance(edition, bool) or not isinstance(edition, int | np.integer) or edition < 1:
            raise ValueError(f"edition numbers are positive integers, got {edition!r}")
        corpus = corpora[edition]
        if "game_seed" not in corpus.columns:
            raise ValueError(f"edition {edition}: the match table lacks column game_seed")
        seeds = pd.to_numeric(corpus["game_seed"]).astype(np.int64).unique()
        shared = sorted(int(s) for s in seeds if int(s) in seen)
        if shared:
            raise ValueError(
                f"edition {edition} reuses game seed(s) {', '.join(map(str, shared[:5]))} "
                f"of edition {seen[shared[0]]}; editions draw disjoint seeds"
            )
        seen.update({int(s): int(edition) for s in seeds})


def edition_scores(
    corpora: Mapping[int, pd.DataFrame],
    field: ReferenceField,
    *,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    rules: ProvisionalRules | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    """Each edition's anchored release table against one reference field, stacked (long).

    ``corpora`` maps an edition number to its match table (DESIGN schema). Steps: check the
    editions (:func:`check_editions`); for each edition, in order, call
    ``anchored.scales_with_flags`` (complete runs, both fitting stages, clustered bootstrap with
    :func:`edition_rng`, provisional flags); prefix the edition number and append the note
    (empty, or why no scale could be fitted for that edition).

    Columns: :data:`EDITION_COLUMNS`: ``edition``, then ``anchored.ANCHORED_COLUMNS`` (``field``,
    ``model``, ``role``, ``status``, ``rank``, ``rating``/``rating_low``/``rating_high``,
    ``score``/``score_low``/``score_high``, ``elo``/``elo_low``/``elo_high``, ``complete_pairs``,
    ``missing_blocks``, ``reason``), then ``note``. One row per (edition, player).
    """
    check_editions(corpora)
    parts = []
    for edition in sorted(corpora):
        table, note = scales_with_flags(
            corpora[edition], field, edition_rng(seed, int(edition)), n_boot, rules, level
        )
        table.insert(0, "edition", int(edition))
        table["note"] = note
        parts.append(table)
    scores = pd.concat(parts, ignore_index=True)
    scores["edition"] = scores["edition"].astype(np.int64)
    return scores.loc[:, list(EDITION_COLUMNS)]


def _roles(scores: pd.DataFrame, roles: Sequence[str] | None) -> pd.DataFrame:
    if roles is None or "role" not in scores.columns:
        return scores
    return scores.loc[scores["role"].isin(list(roles))]


def trend_table(
    scores: pd.DataFrame, value: str = "score", roles: Sequence[str] | None = ("entrant",)
) -> pd.DataFrame:
    """Player x edition: each player's ``value`` (``score``, ``rating`` or ``elo``) by edition.

    Rows are the players of ``roles`` (entrants by default; ``None`` for all), ordered by their
    value in the latest edition they played (best first), then by name; columns are the edition
    numbers, ascending; NaN where a player did not play an edition or has no scale there.
    """
    if value not in SCALE_LABELS:
        raise ValueError(f"value must be one of {', '.join(SCALE_LABELS)}, got {value!r}")
    frame = _roles(scores, roles)
    wide = frame.pivot_table(index="model", columns="edition", values=value, dropna=False)
    wide = wide.reindex(columns=sorted(scores["edition"].unique()))
    latest = wide.ffill(axis=1).iloc[:, -1] if wide.shape[1] else pd.Series(dtype=float)
    order = sorted(
        wide.index, key=lambda m: (-latest[m] if np.isfinite(latest[m]) else math.inf, m)
    )
    wide = wide.loc[order]
    wide.index.name = "model"
    wide.columns = pd.Index([int(c) for c in wide.columns], name="edition")
    return wide


def trend_figure(
    scores: pd.DataFrame,
    value: str = "score",
    roles: Sequence[str] | None = ("entrant",),
    title: str | None = None,
) -> bytes:
    """Each player's ``value`` by edition with its interval, one line per player, as PNG bytes
    (SVG inside ``engines.plotting.image_format("svg")``), in the house style."""
    table = trend_table(scores, value, roles)
    frame = _roles(scores, roles).set_index(["model", "edition"])
    editions = [int(e) for e in table.columns]
    with plotting.canvas(6.5, 4.0) as drawing:
        (ax,) = drawing.axes
        for k, model in enumerate(table.index):
            rows = frame.loc[model] if model in frame.index.get_level_values(0) else None
            if rows is None:
                continue
            rows = rows.reindex(editions)
            point = rows[value].to_numpy(dtype=np.float64)
            err = np.vstack(
                [
                    point - rows[f"{value}_low"].to_numpy(dtype=np.float64),
                    rows[f"{value}_high"].to_numpy(dtype=np.float64) - point,
                ]
            )
            shift = 0.06 * (k - (len(table.index) - 1) / 2)  # keep the intervals apart
            ax.errorbar(
                np.asarray(editions, dtype=np.float64) + shift,
                point,
                yerr=np.where(np.isfinite(err), err, 0.0),
                fmt="o-",
                capsize=3,
                label=str(model),
            )
        ax.set_xticks(editions, labels=[str(e) for e in editions])
        ax.set_xlabel("edition")
        ax.set_ylabel(SCALE_LABELS[value])
        ax.grid(True, axis="y")
        if len(table.index):
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
        ax.set_title(title or "Anchored scores by edition (95% bootstrap intervals)")
    return drawing.image


SATURATION_KEYS: tuple[str, ...] = (
    "players",
    "top",
    "spread",
    "sd",
    "tiers",
    "games",
    "swept_games",
    "swept_share",
    "top_score",
    "floor_score",
)


def _selected(ratings: pd.DataFrame, value: str, players: Sequence[str] | None) -> pd.DataFrame:
    frame = ratings
    if players is not None:
        frame = frame.loc[frame["model"].isin(list(players))]
    else:
        if "role" in frame.columns:
            frame = frame.loc[frame["role"] == "entrant"]
        if "status" in frame.columns:
            frame = frame.loc[frame["status"] == "ranked"]
    values = pd.to_numeric(frame[value], errors="coerce")
    return frame.loc[np.isfinite(values.to_numpy(dtype=np.float64))].sort_values(
        "model", kind="stable"
    )


def saturation(
    corpus: pd.DataFrame,
    ratings: pd.DataFrame,
    *,
    value: str = "rating",
    low: str | None = None,
    high: str | None = None,
    players: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The saturation figures of one edition (module docstring; issue 39, item 6).

    ``ratings`` is the edition's anchored table (one edition's rows of :func:`edition_scores`,
    or ``anchored.scales_with_flags``); a leaderboard works too with ``value="alpha",
    low="ci_low", high="ci_high"``. The entrants judged are ``players`` if given, else the rows
    with role ``entrant`` and status ``ranked`` (when those columns exist) with a finite value.

    Returns :data:`SATURATION_KEYS`: ``players`` (entrants judged), ``top`` (the best of them,
    ties to the first name), ``spread`` (max - min of ``value``), ``sd`` (their SD, ddof 0),
    ``tiers`` (``leaderboard.assign_tiers`` on ``value`` and its interval), ``games`` (games on
    which ``top`` has a complete run), ``swept_games`` (of those, games on which every complete
    run of ``top`` has a run margin above 0), ``swept_share`` (= swept_games / games), and
    ``top_score`` / ``floor_score``: the best entrant's and the lowest entrant's 0-100 score
    against the field (NaN without a ``score`` column). With no entrant judged, counts are 0,
    ``top`` is None and the figures NaN; without a game for ``top``, the share is NaN.
    """
    low = low or f"{value}_low"
    high = high or f"{value}_high"
    chosen = _selected(ratings, value, players)
    nan = float("nan")
    if chosen.empty:
        return {
            "players": 0, "top": None, "spread": nan, "sd": nan, "tiers": 0, "games": 0,
            "swept_games": 0, "swept_share": nan, "top_score": nan, "floor_score": nan,
        }  # fmt: skip
    point = chosen[value].to_numpy(dtype=np.float64)
    tiers = assign_tiers(
        point, chosen[low].to_numpy(dtype=np.float64), chosen[high].to_numpy(dtype=np.float64)
    )
    best = int(np.argsort(-point, kind="stable")[0])
    top = str(chosen["model"].iloc[best])
    games, swept = swept_games(corpus, top)
    score = (
        chosen["score"].to_numpy(dtype=np.float64)
        if "score" in chosen.columns
        else np.full(len(chosen), nan)
    )
    return {
        "players": len(chosen),
        "top": top,
        "spread": float(point.max() - point.min()),
        "sd": float(point.std(ddof=0)),
        "tiers": int(tiers.max()),
        "games": games,
        "swept_games": swept,
        "swept_share": swept / games if games else nan,
        "top_score": float(score[best]),
        "floor_score": float(np.min(score)) if np.isfinite(score).all() else nan,
    }


def swept_games(corpus: pd.DataFrame, player: str) -> tuple[int, int]:
    """(games on which ``player`` has a complete run, games on which it won every one of them).

    Runs are the corpus's complete runs (``engines.stats.runs.run_table``: seat-swapped pairs of
    deals sharing a play seed, both decided); a run is won when the player's run margin (its
    two deals' margins summed) is above 0.
    """
    runs = run_table(corpus)
    if player not in runs.models:
        return 0, 0
    k = runs.models.index(player)
    involved = (runs.first == k) | (runs.second == k)
    margin = np.where(runs.first == k, runs.margin, -runs.margin)[involved]
    game = runs.game[involved]
    played = np.unique(game)
    lost_any = np.unique(game[margin <= 0])
    return len(played), len(played) - len(lost_any)


@dataclass(frozen=True)
class SaturationRule:
    """When an edition's field is saturated, and how much harder the next edition is.

    - ``max_swept_share``: saturated when the top entrant sweeps at least this share of its
      games (0.5: on half the games the edition cannot say how much better it is than anyone);
    - ``min_tiers`` and ``ceiling_score``: saturated when the entrants form fewer than
      ``min_tiers`` tiers and the lowest of them scores at least ``ceiling_score`` (0-100)
      against the field: all at the top of the scale, where it stops separating them;
      fewer tiers below the ceiling asks for more evidence, not harder games;
    - ``complexity_step``: how far a saturated edition moves the generator's complexity dial
      for the next one, up to ``complexity_ceiling`` (the generator's own bound).

    The defaults are this project's choices (docs/EDITIONS.md), not values from the paper.
    """

    max_swept_share: float = 0.5
    min_tiers: int = 2
    ceiling_score: float = 90.0
    complexity_step: float = 0.5
    complexity_ceiling: float = COMPLEXITY_CEILING

    def __post_init__(self) -> None:
        if not 0.0 < self.max_swept_share <= 1.0:
            raise ValueError("max_swept_share must lie in (0, 1]")
        if self.min_tiers < 1:
            raise ValueError("min_tiers must be at least 1")
        if not 0.0 <= self.ceiling_score <= 100.0:
            raise ValueError("ceiling_score must lie in [0, 100]")
        if self.complexity_step <= 0:
            raise ValueError("complexity_step must be positive")


HARDER = "harder"
MORE_EVIDENCE = "more evidence"
KEEP = "keep"


def saturation_verdict(
    figures: Mapping[str, Any], complexity: float = 1.0, rule: SaturationRule | None = None
) -> dict[str, Any]:
    """The decision for the next edition from one edition's :func:`saturation` figures.

    Rule (``rule``, defaults of :class:`SaturationRule`), in order:

    1. *swept*: ``swept_share >= max_swept_share`` -> saturated;
    2. *ceiling*: at least two entrants, ``tiers < min_tiers`` and
       ``floor_score >= ceiling_score`` -> saturated;
    3. at least two entrants and ``tiers < min_tiers`` (below the ceiling) -> not saturated,
       action ``more evidence`` (more runs or games at the same dial);
    4. otherwise -> ``keep``.

    Returns ``saturated`` (bool), ``action`` (``harder``, ``more evidence`` or ``keep``),
    ``reasons`` (one sentence per rule that fired), ``complexity`` (this edition's dial) and
    ``next_complexity``: ``min(complexity + step, ceiling)`` when saturated, else unchanged; a
    saturated edition already at the ceiling says so in its reasons.
    """
    rule = rule or SaturationRule()
    players = int(figures.get("players", 0))
    tiers = int(figures.get("tiers", 0))
    share = float(figures.get("swept_share", float("nan")))
    floor = float(figures.get("floor_score", float("nan")))
    reasons: list[str] = []
    saturated = False
    if np.isfinite(share) and share >= rule.max_swept_share:
        saturated = True
        reasons.append(
            f"the top entrant {figures.get('top')} wins every paired deal on "
            f"{figures.get('swept_games')} of {figures.get('games')} games "
            f"({share:.0%} >= {rule.max_swept_share:.0%})"
        )
    compressed = players >= 2 and tiers < rule.min_tiers
    if compressed and np.isfinite(floor) and floor >= rule.ceiling_score:
        saturated = True
        reasons.append(
            f"{players} entrants in {tiers} tier(s), all scoring >= {rule.ceiling_score:g} "
            f"against the field (lowest {floor:.1f})"
        )
    if saturated:
        action = HARDER
        following = min(complexity + rule.complexity_step, rule.complexity_ceiling)
        if following <= complexity:
            reasons.append(
                f"the complexity dial is at its ceiling {rule.complexity_ceiling:g}: the "
                "generator cannot draw harder games"
            )
    elif compressed:
        action, following = MORE_EVIDENCE, complexity
        reasons.append(
            f"{players} entrants in {tiers} tier(s) below the score ceiling: the edition does "
            "not resolve them; play more runs or games at the same dial"
        )
    else:
        action, following = KEEP, complexity
    return {
        "saturated": saturated,
        "action": action,
        "reasons": reasons,
        "complexity": float(complexity),
        "next_complexity": float(following),
    }


SATURATION_COLUMNS: tuple[str, ...] = (
    "edition",
    *SATURATION_KEYS,
    "saturated",
    "action",
    "complexity",
    "next_complexity",
    "reasons",
)


def edition_saturation(
    corpora: Mapping[int, pd.DataFrame],
    scores: pd.DataFrame,
    complexity: Mapping[int, float] | float = 1.0,
    rule: SaturationRule | None = None,
) -> pd.DataFrame:
    """One row per edition: :func:`saturation` of its corpus and its rows of ``scores`` (the
    anchored ratings), and :func:`saturation_verdict` at its complexity dial (one value for all
    editions, or one per edition). Columns: :data:`SATURATION_COLUMNS` (``reasons`` joined by
    "; ")."""
    check_editions(corpora)
    rows = []
    for edition in sorted(corpora):
        dial = complexity[edition] if isinstance(complexity, Mapping) else complexity
        figures = saturation(corpora[edition], scores.loc[scores["edition"] == edition])
        verdict = saturation_verdict(figures, dial, rule)
        rows.append(
            {
                "edition": int(edition),
                **figures,
                **{k: v for k, v in verdict.items() if k != "reasons"},
                "reasons": "; ".join(verdict["reasons"]),
            }
        )
    return pd.DataFrame(rows, columns=list(SATURATION_COLUMNS))
