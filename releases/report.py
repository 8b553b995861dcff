"""The release's static HTML report: what a person opens offline to read a release.

Why it exists: DESIGN.md ("Release bundle") puts a ``report/`` folder in every release, a static
site a reader opens from the unpacked bundle without a server, a network or GENSTRAT installed:
the leaderboard, the per-game strengths, the capability profiles, one page per game (its axes
and rulebook), a replay viewer for recorded deals, and the integrity card. The tables stay the
data of record; the report only shows them. It is rendered from the same inputs as the rest of
the bundle, contains no clock, and so is as reproducible as the README.

Safety: model replies are untrusted text. The pages are Jinja2 templates
(``releases/templates``) with autoescape: this module computes plain values (text, numbers,
links, classes) and the templates hold all markup, every ``{{ value }}`` escaped on its way out
(:func:`html_text`). The deals the viewer replays are embedded as JSON in a
``<script type="application/json">`` element with ``<``, ``>``, ``&`` and the two JavaScript
line separators written as ``\\uXXXX`` escapes (:func:`script_json`, so no reply can close the
element), and the viewer's script puts text into the page with ``textContent`` only. Each page
carries a Content-Security-Policy that allows only the report's own stylesheet, script and the
bundle's images: nothing is fetched from a network at view time. Links are relative
(``../plots/...``, ``../tables/...``).

Layout (``{relative path under report/: bytes}`` from :func:`render_report`)::

    index.html            leaderboard (+ plot), per-game strengths (+ heatmap), capability
                          profiles, the games, other figures, the integrity card, the files
    game-<label>.html     one per game: its five axes, screening axes, strengths, rulebook
    viewer.html           the match viewer: pick a deal (game, players, run), step through it
    report.css, report.js the one stylesheet and the one script (error sink + viewer)

Steps of :func:`render_report`:
1. catalogue the games (benchmark, played, reference) with their specs and rulebooks;
2. render the index's sections, each with a visible note when its table is absent;
3. render one page per game;
4. choose the deals the viewer embeds (:func:`choose_runs`: whole runs, round robin over the
   (game, pairing) groups, at most :data:`MAX_DEALS` deals and :data:`MAX_VIEWER_BYTES` of
   JSON) and replay each from its spec and play seed (:func:`replay_views`) to recover what
   each seat saw before every move;
5. add the stylesheet and the script.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import quote

import jinja2
import jinja2.ext
import numpy as np
import pandas as pd
from markupsafe import Markup

from engines.axes.names import AXES, SEAT_AXES
from engines.gbg import GameSpec, rulebook
from engines.gbg.engine import new_deal
from engines.gbg.spec import SEATS
from engines.openspiel.boards import BOARD_FAMILIES
from releases.editions import edition_label
from releases.strength_cost import strength_cost_frame

MAX_DEALS = 300
"""The most deals the viewer embeds (whole runs, so both seat-swapped deals of a run)."""
MAX_VIEWER_BYTES = 4_000_000
"""The most bytes of deal JSON the viewer embeds; runs past it are left out (the note says so)."""
MAX_TEXT_CHARS = 4_000
"""A reply, an earlier reply or a reasoning text longer than this is cut in the viewer (the
note on the move says how much; the full text is in ``tables/match_moves.parquet``)."""

MATCH_TABLE_ORDER = ("match_corpus", "complete_pairs")
"""Where the viewer finds the matches: every recorded match if released, else the counted ones."""
MOVES_TABLE = "match_moves"
PGN_TABLE = "chess_pgn"  # the openspiel group's chess games (assets.openspiel.chess_pgn_table)
OPENSPIEL_PREFIX = "openspiel:"  # engines.openspiel.spec.PREFIX (that module loads OpenSpiel)
SPEC_TABLES = ("benchmark_games", "accepted_games", "reference_games")
AXIS_TABLES = ("benchmark_axes", "axis_scores")
SCREENING_AXES = (
    "state_space",
    "temporal_depth",
    "information_sensitivity",
    "opponent_modelling",
    "risk",
    "brittleness",
)
AXIS_TITLES = {
    "state_space": "state space",
    "temporal": "temporal contingency",
    "opponent": "opponent modelling",
    "information": "private information",
    "precision": "precision",
}
HEAT_LEVELS = 4

CSP = (
    "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; "
    "base-uri 'none'; form-action 'none'"
)
NAV = (
    ("index.html#leaderboard", "Leaderboard"),
    ("index.html#per-game", "Per game"),
    ("index.html#profiles", "Profiles"),
    ("index.html#games", "Games"),
    ("viewer.html", "Match viewer"),
    ("index.html#integrity", "Integrity"),
    ("index.html#files", "Files"),
)


# ---------------------------------------------------------------------------------------------
# Markup: the templates hold it (``releases/templates``); every value is escaped.


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return str(value)


def html_text(value: Any) -> Markup:
    """A value as HTML text: the environment's ``finalize``, so every ``{{ value }}`` of the
    templates goes through it before autoescape. Markup (``__html__``) passes through; a missing
    value (None, NaN) is ``–``; anything else is escaped by ``html.escape``, quotes too. Its forms
    (``&quot;``, ``&#x27;``) are the ones the report's bodies have always had (MarkupSafe writes
    ``&#34;``, ``&#39;``): the same text gives the same bytes, and so the same release id."""
    if hasattr(value, "__html__"):
        return Markup(value.__html__())
    return Markup(html.escape(_text(value), quote=True))


JOINED = "{#- Lines joined"
"""How a template that :class:`JoinLines` reads joined begins."""
_LINE_BREAK = re.compile(r"[ \t]*\n\s*")


class JoinLines(jinja2.ext.Extension):
    """Lets a template be written one element a line, indented, and still give the report's
    compact HTML. In a template that begins with :data:`JOINED`, a line break and the blanks
    around it are dropped where they touch a tag (``<``, ``>``) or a Jinja2 tag (``{{ }}``,
    ``{% %}``, ``{# #}``), and are one space between two words: JSX's rule. So a space that
    must stay before an element or a value (``the <code>``, ``in {{ n }}``) stays on its line.
    Other templates (the page shell, the viewer) are read as written."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        if not source.startswith(JOINED):
            return source
        return _LINE_BREAK.sub(_join_break, source)


def _join_break(match: re.Match[str]) -> str:
    before = match.string[max(0, match.start() - 2) : match.start()]
    after = match.string[match.end() : match.end() + 2]
    if not before or not after:
        return ""
    if before.endswith((">", "}}", "%}", "#}")) or after.startswith(("<", "{{", "{%", "{#")):
        return ""
    return " "


TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("releases", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    finalize=html_text,
    extensions=[JoinLines],
)
"""The report's templates (``releases/templates``), every value autoescaped (:func:`html_text`)."""


def render(template: str, /, **context: Any) -> Markup:
    """A template of ``releases/templates`` rendered with ``context``, as markup."""
    return Markup(TEMPLATES.get_template(template).render(**context))


def bundle_href(path: str) -> str:
    """The link from ``report/`` to a bundle file: ``plots/x.png`` -> ``../plots/x.png``."""
    return "../" + quote(path, safe="/._-")


def fmt(value: Any, digits: int = 3, signed: bool = False) -> str:
    """A number for a table cell (``–`` when missing)."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return f"{int(value):+d}" if signed else f"{int(value)}"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(number):
        return "–"
    return f"{number:+.{digits}f}" if signed else f"{number:.{digits}f}"


def heat_class(value: Any, limit: float) -> str | None:
    """A diverging colour class for a cell (``heat-n4`` ... ``heat-p4``), or none."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if math.isnan(number) or limit <= 0:
        return None
    level = max(-HEAT_LEVELS, min(HEAT_LEVELS, round(number / limit * HEAT_LEVELS)))
    return f"heat-{'n' if level < 0 else 'p'}{abs(level)}"


def _limit(values: Iterable[Any]) -> float:
    finite = [abs(float(v)) for v in values if _finite(v)]
    return max(finite, default=0.0)


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def page(title: str, body: Markup, context: Mapping[str, Any]) -> bytes:
    """A whole page (``templates/page.html.j2``): head (charset, CSP, stylesheet), navigation,
    body, footer, script."""
    document = TEMPLATES.get_template("page.html.j2").render(
        csp=CSP,
        nav=NAV,
        title=title,
        body=body,
        release_id=str(context.get("release_id") or "unreleased"),
        engine_version=_text(context.get("engine_version") or "–"),
        code_version=_text(context.get("code_version") or "–"),
    )
    return document.encode("utf-8")


# ---------------------------------------------------------------------------------------------
# The games.


@dataclass(frozen=True)
class GameEntry:
    """One game of the release: its match token, label (``seed-N`` or a preset name), page."""

    token: str
    label: str
    kind: str  # "benchmark", "played" or "reference"
    seed: int | None
    game_seed: int | None
    spec: GameSpec | None
    spec_hash: str | None
    rulebook: str | None
    rulebook_path: str | None

    @property
    def page(self) -> str:
        return f"game-{self.label}.html"

    @property
    def title(self) -> str:
        if self.spec is not None and self.spec.name != self.label:
            return f"{self.label} ({self.spec.name})"
        return self.label


def game_label(token: str) -> str:
    """``seed-N`` for a generated game, the preset's name otherwise, safe as a file name."""
    if re.fullmatch(r"-?\d+", token):
        return f"seed-{int(token)}"
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", token).strip(".-") or "game"
    return slug if slug[0].isalnum() else f"g{slug}"


def _spec_index(tables: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """``{spec_hash: spec_json}`` from every table that holds specs."""
    index: dict[str, str] = {}
    for name in SPEC_TABLES:
        frame = tables.get(name)
        if frame is None or not {"spec_hash", "spec_json"} <= set(frame.columns):
            continue
        for spec_hash, spec_json in zip(frame["spec_hash"], frame["spec_json"], strict=True):
            index.setdefault(str(spec_hash), str(spec_json))
    return index


def _parse_spec(text: str | None) -> GameSpec | None:
    if text is None:
        return None
    try:
        return GameSpec.from_json(text)
    except ValueError:
        return None


def match_table(tables: Mapping[str, pd.DataFrame]) -> tuple[str | None, pd.DataFrame | None]:
    """The match table the report reads (its name and frame), or ``(None, None)``."""
    for name in MATCH_TABLE_ORDER:
        frame = tables.get(name)
        if frame is not None and "match_id" in frame.columns:
            return name, frame
    return None, None


def game_catalogue(tables: Mapping[str, pd.DataFrame], texts: Mapping[str, str]) -> list[GameEntry]:
    """The games a report shows, in order: the benchmark's (selection order), any other game
    that was played, then the reference games (presets)."""
    specs = _spec_index(tables)
    order: list[tuple[str, str]] = []  # (token, kind)
    seeds: dict[str, int] = {}
    game_seeds: dict[str, int] = {}
    hashes: dict[str, str] = {}
    bench = tables.get("benchmark_games")
    if bench is not None and "seed" in bench.columns:
        frame = bench.sort_values("order") if "order" in bench.columns else bench
        for row in frame.to_dict("records"):
            token = str(row.get("game", row["seed"]))
            order.append((token, "benchmark"))
            seeds[token] = int(row["seed"])
            if row.get("spec_hash") is not None:
                hashes[token] = str(row["spec_hash"])
    else:
        for name in AXIS_TABLES:
            axes = tables.get(name)
            if axes is not None and "game" in axes.columns:
                order += [(str(g), "benchmark") for g in axes["game"]]
                break
    _, matches = match_table(tables)
    if matches is not None and "game" in matches.columns:
        columns = [c for c in ("game", "game_seed", "spec_hash") if c in matches.columns]
        for row in matches.loc[:, columns].drop_duplicates("game").to_dict("records"):
            token = str(row["game"])
            order.append((token, "played"))
            if "game_seed" in row and row["game_seed"] is not None:
                game_seeds.setdefault(token, int(row["game_seed"]))
            if "spec_hash" in row:
                hashes.setdefault(token, str(row["spec_hash"]))
    reference = tables.get("reference_games")
    if reference is not None and "name" in reference.columns:
        for row in reference.to_dict("records"):
            token = str(row["name"])
            order.append((token, "reference"))
            if row.get("spec_hash") is not None:
                hashes.setdefault(token, str(row["spec_hash"]))
    accepted = tables.get("accepted_games")
    accepted_hash: dict[int, str] = {}
    if accepted is not None and {"seed", "spec_hash"} <= set(accepted.columns):
        accepted_hash = {
            int(s): str(h) for s, h in zip(accepted["seed"], accepted["spec_hash"], strict=True)
        }

    entries: list[GameEntry] = []
    seen: set[str] = set()
    labels: set[str] = set()
    for token, kind in order:
        if token in seen:
            continue
        seen.add(token)
        label = game_label(token)
        while label in labels:
            label += "_"
        labels.add(label)
        seed = seeds.get(token)
        if seed is None and re.fullmatch(r"\d+", token):
            seed = int(token)
        spec_hash = hashes.get(token) or (accepted_hash.get(seed) if seed is not None else None)
        spec = _parse_spec(specs.get(spec_hash)) if spec_hash else None
        path: str | None = f"rulebooks/{label}.md"
        text = texts.get(f"rulebooks/{label}.md")
        if text is None:
            path = None
            text = rulebook(spec) if spec is not None else None
        game_seed = game_seeds.get(token, seed)
        entries.append(GameEntry(token, label, kind, seed, game_seed, spec, spec_hash, text, path))
    return entries


def _axis_rows(tables: Mapping[str, pd.DataFrame]) -> tuple[str | None, dict[str, dict[str, Any]]]:
    """The five-axis row of each game (by token) from the first axis table present."""
    for name in AXIS_TABLES:
        frame = tables.get(name)
        if frame is not None and "game" in frame.columns and set(AXES) <= set(frame.columns):
            return name, {str(r["game"]): r for r in frame.to_dict("records")}
    return None, {}


# ---------------------------------------------------------------------------------------------
# Index sections: each computes its rows (plain values, links, classes) and renders its template
# (``templates/index_<section>.html.j2``; ``macros.html.j2`` has the table head, the figure and
# the note for a missing table).


def _image(images: Mapping[str, bytes], words: Sequence[str]) -> str | None:
    """The image whose file name holds every word: the one named exactly by them
    (``plots/per_game_heatmap.png`` for ``("per", "game", "heatmap")``) first, then the
    shortest name."""
    found = []
    for path in images:
        stem = path.rsplit("/", 1)[-1].lower().removesuffix(".png")
        if all(w in stem for w in words):
            found.append((stem != "_".join(words), len(stem), path))
    return min(found)[2] if found else None


def _figure(path: str, caption: str) -> dict[str, str]:
    """A figure for ``macros.figure``: the bundle path, its link from ``report/``, the caption."""
    return {"path": path, "href": bundle_href(path), "caption": caption}


def _plot(
    images: Mapping[str, bytes], words: Sequence[str], caption: str, shown: set[str]
) -> dict[str, str] | None:
    """The figure of the image :func:`_image` finds for ``words`` (noted in ``shown``), if any."""
    path = _image(images, words)
    if path is None:
        return None
    shown.add(path)
    return _figure(path, caption)


def leaderboard_section(
    tables: Mapping[str, pd.DataFrame], images: Mapping[str, bytes], shown: set[str]
) -> Markup:
    board = tables.get("leaderboards")
    rows = None
    if board is not None and "model" in board.columns:
        frame = board.sort_values("rank") if "rank" in board.columns else board
        rows = [
            {
                "rank": fmt(r.get("rank")),
                "model": r["model"],
                "alpha": fmt(r.get("alpha"), signed=True),
                "interval": (
                    f"[{fmt(r.get('ci_low'), signed=True)}, {fmt(r.get('ci_high'), signed=True)}]"
                ),
                "tier": fmt(r.get("tier")),
                "matches": fmt(r.get("matches")),
            }
            for r in frame.to_dict("records")
        ]
    figure = _plot(images, ("leaderboard",), "The overall leaderboard", shown)
    return render("index_leaderboard.html.j2", rows=rows, figure=figure)


FAMILY_METRICS = {
    "elo": ("Elo", "Bradley-Terry Elo over every deal of the family (a draw half a point), "
            "anchored at the family's lowest player"),
    "bb_per_100": ("BB/100", "big blinds won per 100 hands against the opponents met"),
}  # fmt: skip


def families_section(tables: Mapping[str, pd.DataFrame]) -> Markup:
    """The openspiel group's metric per game family and the cross-family summary (issue 46;
    ``engines.stats.families``); nothing without ``family_ratings``."""
    ratings = tables.get("family_ratings")
    if ratings is None or ratings.empty:
        return Markup("")
    families = []
    for family, group in ratings.groupby("family", sort=True):
        metric = str(group["metric"].iloc[0])
        short, words = FAMILY_METRICS.get(metric, (metric, metric))
        rows = [
            {
                "rank": fmt(r.get("rank")),
                "model": r["model"],
                "value": fmt(r.get("value"), digits=1),
                "interval": _interval(r.get("ci_low"), r.get("ci_high")),
                "deals": fmt(r.get("deals")),
                "z": fmt(r.get("z"), digits=2, signed=True),
            }
            for r in group.sort_values(["rank", "model"]).to_dict("records")
        ]
        families.append(
            {
                "name": str(family),
                "short": short,
                "words": words,
                "games": str(group["games"].iloc[0]),
                "rows": rows,
            }
        )
    summary = tables.get("family_summary")
    summary_rows = None
    if summary is not None and not summary.empty:
        summary_rows = [
            {
                "rank": fmt(r.get("rank")),
                "model": r["model"],
                "summary": fmt(r.get("summary"), digits=2, signed=True),
                "families": fmt(r.get("families")),
                "which": str(r.get("family_list") or ""),
            }
            for r in summary.to_dict("records")
        ]
    return render(
        "index_families.html.j2",
        units=sorted(set(ratings["unit"].astype(str))),
        families=families,
        summary=summary_rows,
    )


def cost_section(
    tables: Mapping[str, pd.DataFrame], images: Mapping[str, bytes], shown: set[str]
) -> Markup:
    """Tokens, cost and answer quality per model beside its strength, and the strength-vs-cost
    plot (GameBench 2's cost per point); nothing when no model made a provider call."""
    frame = strength_cost_frame(tables)
    if frame is None:
        return Markup("")
    rows = [
        {
            "model": r["model"],
            "numbers": [
                fmt(r.get("alpha"), signed=True),
                fmt(r.get("calls")),
                fmt(r.get("input_tokens")),
                fmt(r.get("cached_input_tokens")),
                fmt(r.get("output_tokens")),
                fmt(r.get("cost_usd"), digits=4),
                fmt(r.get("usd_per_match"), digits=5),
                fmt(r.get("fallback_rate")),
                fmt(r.get("rethink_rate")),
            ],
        }
        for r in frame.to_dict("records")
    ]
    figure = _plot(images, ("strength_cost",), "Strength against cost per match", shown)
    return render("index_cost.html.j2", rows=rows, figure=figure)


# --- scores against the reference field, episodes, program track (issue 19) -------------------


def _cell(value: Any) -> Any:
    """``pd.NA`` (a nullable rank) as a missing cell."""
    return None if value is pd.NA else value


def _interval(low: Any, high: Any, digits: int = 1) -> str:
    return f"[{fmt(low, digits)}, {fmt(high, digits)}]"


def anchored_section(tables: Mapping[str, pd.DataFrame]) -> Markup:
    """The anchored scales with their flags, the episode adaptation and the program track;
    nothing when the release has none of the three tables."""
    scales = tables.get("anchored_scales")
    episodes = tables.get("episode_adaptation")
    programs = tables.get("program_track")
    if scales is None and episodes is None and programs is None:
        return Markup("")
    field = scale_rows = episode_rows = program_rows = None
    if scales is not None and not scales.empty:
        field = str(scales["field"].iloc[0])
        scale_rows = [
            {
                "rank": fmt(_cell(r.get("rank"))),
                "model": r["model"],
                "status": r.get("status", ""),
                "numbers": [
                    fmt(r.get("rating"), 2, signed=True),
                    _interval(r.get("rating_low"), r.get("rating_high"), 2),
                    fmt(r.get("score"), 1),
                    _interval(r.get("score_low"), r.get("score_high")),
                    fmt(r.get("elo"), 0, signed=True),
                    _interval(r.get("elo_low"), r.get("elo_high"), 0),
                ],
                "reason": r.get("reason") or "",
            }
            for r in scales.to_dict("records")
        ]
    if episodes is not None and not episodes.empty:
        change = episodes[episodes["quantity"] == "change"]
        episode_rows = [
            {
                "game": r["game"],
                "player": r["player"],
                "opponent": r["opponent"],
                "numbers": [
                    fmt(r["estimate"], 2, signed=True),
                    _interval(r["ci_low"], r["ci_high"], 2),
                    fmt(r["episode_pairs"]),
                ],
            }
            for r in change.to_dict("records")
        ]
    if programs is not None and not programs.empty:
        program_rows = [
            {
                "rank": fmt(_cell(r.get("rank"))),
                "author": r["author"],
                "game": r["game"],
                "numbers": [
                    fmt(r["authoring_runs"]),
                    fmt(r["admitted"]),
                    fmt(r["failed"]),
                    fmt(r["repair_turns"]),
                    fmt(r["score"], 1),
                    _interval(r["ci_low"], r["ci_high"]),
                ],
                "reason": r.get("reason") or "",
            }
            for r in programs.to_dict("records")
        ]
    return render(
        "index_anchored.html.j2",
        field=field,
        scales=scale_rows,
        scales_empty=scales is not None and scales.empty,
        episodes=episode_rows,
        programs=program_rows,
    )


@dataclass(frozen=True)
class PerGameSource:
    """Where the per-game strengths come from: ``table`` (``per_game_alpha``), ``margins`` (each
    model's mean margin, computed from the match table), ``missing`` (no table and no matches)
    or ``unreadable`` (the match table gives no per-game table: ``error`` says why)."""

    kind: str
    error: str | None = None


def _per_game_frame(
    tables: Mapping[str, pd.DataFrame],
) -> tuple[pd.DataFrame | None, PerGameSource]:
    """Per-game strengths (rows: game_seed, columns: models) and where they came from."""
    frame = tables.get("per_game_alpha")
    if frame is not None and not frame.empty:
        frame = frame.copy()
        key = next((c for c in ("game_seed", "game", "seed") if c in frame.columns), None)
        if {"model", "alpha"} <= set(frame.columns) and key is not None:
            frame = frame.pivot_table(index=key, columns="model", values="alpha")
        elif key is not None:
            frame = frame.set_index(key)
        numeric = frame.select_dtypes("number")
        return numeric, PerGameSource("table")
    _, matches = match_table(tables)
    if matches is None:
        return None, PerGameSource("missing")
    from engines.stats.pergame import per_game_mean_margin
    from engines.stats.runs import run_table

    try:
        margins = per_game_mean_margin(run_table(matches))
    except (ValueError, KeyError) as exc:
        return None, PerGameSource("unreadable", str(exc))
    return margins, PerGameSource("margins")


def editions_section(
    tables: Mapping[str, pd.DataFrame], images: Mapping[str, bytes], shown: set[str]
) -> Markup:
    """Each entrant's score against the reference field by edition (one scale: the field is the
    same in every edition), the trend figure, and the saturation watch; nothing without
    ``edition_scores``."""
    scores, watch = tables.get("edition_scores"), tables.get("edition_saturation")
    if scores is None or scores.empty:
        return Markup("")
    from engines.stats.editions import trend_table

    trend = trend_table(scores, "score")
    rows = [
        {"model": str(model), "scores": [fmt(v, 1) for v in row]} for model, row in trend.iterrows()
    ]
    figure = None
    path = "plots/edition_trend.png"
    if path in images:
        shown.add(path)
        figure = _figure(path, "Anchored scores by edition")
    watch_rows = None
    if watch is not None and not watch.empty:
        watch_rows = [
            {
                "edition": str(int(r["edition"])),
                "players": str(int(r["players"])),
                "tiers": str(int(r["tiers"])),
                "spread": fmt(r["spread"], 2),
                "swept": f"{int(r['swept_games'])} of {int(r['games'])}",
                "action": str(r["action"]),
                "why": str(r["reasons"]) or "separates the field",
            }
            for r in watch.sort_values("edition").to_dict("records")
        ]
    return render(
        "index_editions.html.j2",
        editions=[f"edition {int(e)}" for e in trend.columns],
        rows=rows,
        figure=figure,
        watch=watch_rows,
    )


def per_game_section(
    frame: pd.DataFrame | None,
    source: PerGameSource,
    tables: Mapping[str, pd.DataFrame],
    images: Mapping[str, bytes],
    games: Sequence[GameEntry],
    shown: set[str],
) -> Markup:
    models: list[str] = []
    rows = None
    if frame is not None and not frame.empty:
        board = tables.get("leaderboards")
        models = [str(c) for c in frame.columns]
        if board is not None and "model" in board.columns:
            ranked = (
                [str(m) for m in board.sort_values("rank")["model"]]
                if "rank" in board.columns
                else []
            )
            models = [m for m in ranked if m in models] + [m for m in models if m not in ranked]
        frame = frame.loc[:, models]
        by_seed = {g.game_seed: g for g in games if g.game_seed is not None}
        by_token = {g.token: g for g in games}
        limit = _limit(frame.to_numpy().ravel())
        rows = []
        for key, values in frame.iterrows():
            game = _game_for_key(key, by_seed, by_token)
            cells = [
                {"value": fmt(values[m], 2, signed=True), "heat": heat_class(values[m], limit)}
                for m in models
            ]
            rows.append(
                {
                    "page": game.page if game is not None else None,
                    "label": game.label if game is not None else str(key),
                    "cells": cells,
                }
            )
    figure = _plot(images, ("per", "game", "heatmap"), "Per-game strengths", shown)
    return render(
        "index_per_game.html.j2",
        source=source.kind,
        error=source.error,
        models=models,
        rows=rows,
        figure=figure,
    )


def _game_for_key(
    key: Any, by_seed: Mapping[int, GameEntry], by_token: Mapping[str, GameEntry]
) -> GameEntry | None:
    if str(key) in by_token:
        return by_token[str(key)]
    try:
        return by_seed.get(int(key))
    except (TypeError, ValueError):
        return None


def profiles_section(
    tables: Mapping[str, pd.DataFrame], images: Mapping[str, bytes], shown: set[str]
) -> Markup:
    profiles = tables.get("capability_profiles")
    needed = {"model", "term", "coef"}
    terms: list[str] = []
    rows = None
    if profiles is not None and needed <= set(profiles.columns):
        terms = [str(t) for t in dict.fromkeys(profiles["term"])]
        terms = [t for t in ("intercept", *AXES) if t in terms] + [
            t for t in terms if t != "intercept" and t not in AXES
        ]
        models = [str(m) for m in dict.fromkeys(profiles["model"])]
        board = tables.get("leaderboards")
        if board is not None and {"model", "rank"} <= set(board.columns):
            ranked = [str(m) for m in board.sort_values("rank")["model"]]
            models = [m for m in ranked if m in models] + [m for m in models if m not in ranked]
        cells = {(str(r["model"]), str(r["term"])): r for r in profiles.to_dict("records")}
        slopes = [r["coef"] for (m, t), r in cells.items() if t != "intercept"]
        limit = _limit(slopes)
        rows = [
            {
                "model": model,
                "cells": [_profile_cell(cells.get((model, t)), t, limit) for t in terms],
            }
            for model in models
        ]
    figure = _plot(images, ("profile", "heatmap"), "Capability profiles", shown)
    return render(
        "index_profiles.html.j2",
        terms=[AXIS_TITLES.get(t, t) for t in terms],
        rows=rows,
        figure=figure,
    )


def _profile_cell(r: Mapping[str, Any] | None, term: str, limit: float) -> dict[str, Any] | None:
    """One model's slope on one term: the slope, whether it is significant (never the
    intercept), its interval, the tooltip (q, p) and the heat class; None without a row."""
    if r is None:
        return None
    interval = None
    if "ci_low" in r and "ci_high" in r:
        interval = f"[{fmt(r['ci_low'], 2, signed=True)}, {fmt(r['ci_high'], 2, signed=True)}]"
    return {
        "slope": fmt(r["coef"], 2, signed=True),
        "significant": bool(r.get("significant")) and term != "intercept",
        "interval": interval,
        "tip": f"q = {fmt(r.get('q_value'), 3)}, p = {fmt(r.get('p_value'), 3)}",
        "heat": heat_class(r["coef"], limit) if term != "intercept" else None,
    }


def games_section(
    tables: Mapping[str, pd.DataFrame],
    games: Sequence[GameEntry],
    images: Mapping[str, bytes],
    shown: set[str],
) -> Markup:
    if not games:
        return render("index_games.html.j2", axes=False, headers=[], rows=[], figure=None)
    source, axis_rows = _axis_rows(tables)
    z_scored = any(f"z_{a}" in row for row in axis_rows.values() for a in AXES)
    _, matches = match_table(tables)
    played: dict[str, int] = {}
    if matches is not None and "game" in matches.columns:
        played = {str(k): int(v) for k, v in matches["game"].astype(str).value_counts().items()}
    rows = []
    for game in games:
        row = axis_rows.get(game.token, {})
        rows.append(
            {
                "page": game.page,
                "title": game.title,
                "kind": game.kind,
                "spec_hash": (game.spec_hash or "–")[:12],
                "matches": fmt(played.get(game.token, 0)),
                "axes": [
                    fmt(row.get(f"z_{axis}") if z_scored else row.get(axis), 2, signed=z_scored)
                    for axis in AXES
                ],
            }
        )
    headers = ["game", "kind", "spec hash", "matches"]
    headers += [AXIS_TITLES[a] + (" (z)" if z_scored else "") for a in AXES]
    figure = _plot(images, ("benchmark", "axes"), "The benchmark on two axes", shown)
    return render(
        "index_games.html.j2", axes=source is not None, headers=headers, rows=rows, figure=figure
    )


def integrity_section(integrity: Mapping[str, Any] | None) -> Markup:
    if not integrity:
        return render("index_integrity.html.j2", gates=None, passed=0)
    gates = [
        {
            "name": name,
            "passed": bool(gate.get("passed")),
            "message": gate.get("message", ""),
            "figures": json.dumps(gate.get("figures"), indent=2, sort_keys=True, default=str),
        }
        for name, gate in (integrity.get("gates") or {}).items()
    ]
    passed = sum(gate["passed"] for gate in gates)
    return render("index_integrity.html.j2", gates=gates, passed=passed)


def files_section(manifest: Mapping[str, Any]) -> Markup:
    entries = [e for e in manifest.get("files") or [] if isinstance(e, Mapping)]
    files = []
    for entry in sorted(entries, key=lambda e: str(e.get("path"))):
        path = str(entry.get("path"))
        files.append(
            {
                "path": path,
                "href": bundle_href(path),
                "role": entry.get("role", ""),
                "rows": fmt(entry.get("rows")) if "rows" in entry else "",
                "bytes": f"{int(entry.get('bytes', 0)):,}",
                "sha256": str(entry.get("sha256", ""))[:16],
            }
        )
    return render("index_files.html.j2", files=files)


def figures_section(images: Mapping[str, bytes], shown: set[str]) -> Markup:
    rest = [p for p in sorted(images) if p not in shown and p.lower().endswith(".png")]
    if not rest:
        return Markup("")
    return render("index_figures.html.j2", figures=[_figure(p, p) for p in rest])


SUMMARY_TABLES = ("leaderboards", "per_game_alpha", "capability_profiles", MOVES_TABLE,
                  "benchmark_axes")  # fmt: skip
"""The tables whose absence the summary names."""


def summary_section(
    manifest: Mapping[str, Any], integrity: Mapping[str, Any] | None, tables_present: set[str]
) -> Markup:
    profile = manifest.get("profile") or {}
    results = manifest.get("results") or {}
    gates = (integrity or {}).get("gates") or {}
    passed = sum(bool(g.get("passed")) for g in gates.values())
    matches = None
    if results:
        matches = (
            f"{results.get('counted_matches', 0)} counted, "
            f"{results.get('superseded_matches', 0)} superseded by replays"
        )
    return render(
        "index_summary.html.j2",
        release_id=manifest.get("release_id") or "–",
        profile=profile.get("name", "–") if isinstance(profile, Mapping) else profile,
        edition=edition_label(profile) if isinstance(profile, Mapping) else None,
        engine_version=manifest.get("engine_version") or "–",
        code_version=manifest.get("code_version") or "–",
        gates=f"{passed} of {len(gates)} passed" if gates else "–",
        matches=matches,
        absent=[name for name in SUMMARY_TABLES if name not in tables_present],
    )


# ---------------------------------------------------------------------------------------------
# Game pages (``templates/game.html.j2``).


def game_page(
    game: GameEntry,
    tables: Mapping[str, pd.DataFrame],
    per_game: pd.DataFrame | None,
    played: int,
) -> Markup:
    source, axis_rows = _axis_rows(tables)
    row = axis_rows.get(game.token)
    axes = None
    if row is not None:
        axes = [
            {
                "title": AXIS_TITLES[axis],
                "numbers": [
                    fmt(row.get(axis), 3),
                    fmt(row.get(f"se_{axis}"), 3),
                    fmt(row.get(f"z_{axis}"), 2, signed=True),
                    *(
                        fmt(row.get(f"{seat}_{axis}") if axis in SEAT_AXES else None, 3)
                        for seat in SEATS
                    ),
                ],
            }
            for axis in AXES
        ]
    screening = None
    bench = tables.get("benchmark_games")
    if bench is not None and game.seed is not None and "seed" in bench.columns:
        match = bench.loc[bench["seed"] == game.seed]
        present = [a for a in SCREENING_AXES if a in bench.columns]
        if len(match) and present:
            first = match.iloc[0]
            screening = [(a.replace("_", " "), fmt(first[a], 3)) for a in present]
    strengths = None
    if per_game is not None and game.game_seed is not None:
        keys = [k for k in per_game.index if _same_game(k, game)]
        if keys:
            values = per_game.loc[keys[0]]
            strengths = [(m, fmt(v, 2, signed=True)) for m, v in values.items()]
    return render(
        "game.html.j2",
        game=game,
        seed=game.seed,
        spec_hash=game.spec_hash or "–",
        played=played,
        replay=f"viewer.html#game={quote(game.token, safe='')}",
        source=source,
        axes=axes,
        screening=screening,
        strengths=strengths,
        rulebook_href=bundle_href(game.rulebook_path) if game.rulebook_path else None,
    )


def _same_game(key: Any, game: GameEntry) -> bool:
    if str(key) == game.token:
        return True
    try:
        return int(key) == game.game_seed
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------------------------
# The match viewer.


@dataclass(frozen=True)
class Replay:
    """What each seat saw before each move (``views[k]``: Alice's and Bob's), and at the end;
    ``problem`` names the move where the engine and the transcript disagree, if any."""

    views: list[list[dict[str, Any]]]
    final: list[dict[str, Any]]
    problem: str | None


def seat_view(observation: Mapping[str, Any]) -> dict[str, Any]:
    """The part of an observation the viewer shows (JSON values only)."""
    phase = observation["phase"]
    stacks = observation["stacks"]
    return {
        "phase": f"{phase['title']} ({phase['id']})",
        "hand": [str(c) for c in observation["hand"]],
        "board": [str(c) for c in observation["board"]],
        "stacks": [stacks.get("Alice"), stacks.get("Bob")],
        "pot": observation["pot"],
        "positions": {str(k): str(v) for k, v in sorted(observation["positions"].items())},
        "events": [str(e) for e in observation["events"]],
        "to_act": bool(observation["to_act"]),
    }


def replay_views(spec: GameSpec, play_seed: int, moves: Sequence[Mapping[str, Any]]) -> Replay:
    """Replay a transcript on the engine (``new_deal(spec, play_seed)``, then each recorded
    action) and record both seats' observations before every move and at the end.

    The match (``engines.tournament.match.play_match``) dealt from the same seed and drew the
    players' choices from other generators, so the replay reaches the same states. Steps:
    1. start the deal; for each recorded move, check that the engine expects that seat to act
       and offers the recorded legal actions and the recorded action;
    2. record both seats' ``observation(seat)``; apply the action;
    3. record both seats' observations after the last move.
    A disagreement stops the replay there (``problem`` says where); the views so far are kept.
    """
    state = new_deal(spec, play_seed)
    views: list[list[dict[str, Any]]] = []
    problem: str | None = None
    for k, move in enumerate(moves):
        seat = SEATS.index(str(move["seat"])) if str(move["seat"]) in SEATS else -1
        if state.current_player != seat:
            problem = f"move {k + 1}: the engine has seat {state.current_player} to act"
            break
        legal = list(state.legal_actions())
        recorded = [str(a) for a in _clean(move.get("legal_actions")) or []]
        if recorded and recorded != legal:
            problem = f"move {k + 1}: the engine offers {legal}, the transcript {recorded}"
            break
        views.append([seat_view(state.observation(s)) for s in (0, 1)])
        if _unanswered(move):
            problem = f"move {k + 1}: unanswered, the match ended here"
            break
        try:
            state.apply(str(move["action"]))
        except ValueError as exc:
            problem = f"move {k + 1}: {exc}"
            break
    final = [seat_view(state.observation(s)) for s in (0, 1)]
    return Replay(views, final, problem)


def _unanswered(move: Mapping[str, Any]) -> bool:
    """The move that ended its match unanswered (recorded without an action, issue 41)."""
    action = move.get("action")
    return action is None or (isinstance(action, float) and math.isnan(action))


# -- OpenSpiel deals (issue 46, item 4): boards drawn, cards shown --------------------------


def openspiel_seat_view(state: Any, seat: int) -> dict[str, Any]:
    """What the viewer shows of an OpenSpiel deal for ``seat``: the phase, whether it is to
    act, facts as (label, value) pairs (its side; hold'em's street, cards and chips; liar's
    dice's dice), and hold'em's cards with suit symbols (``cards``) for the script to draw."""
    from engines.openspiel.boards import poker_cards
    from engines.openspiel.text import observation_text, poker_spent, side_name

    family = state.spec.family
    facts: list[list[str]] = [["side", side_name(family, seat)]]
    view: dict[str, Any] = {
        "phase": str(state.phase_id) if not state.is_terminal() else "end",
        "to_act": state.current_player == seat,
        "facts": facts,
    }
    if family == "universal_poker":
        hole, shared = poker_cards(state, seat)
        spent = poker_spent(state.ps)
        facts.append(["chips in the pot", f"you {spent[seat]}, opponent {spent[1 - seat]}"])
        view["cards"] = {"hole": hole, "board": shared}
    elif family not in BOARD_FAMILIES:
        facts.append(["sees", observation_text(state, seat)])
    return view


@dataclass(frozen=True)
class OpenSpielReplay:
    """An OpenSpiel deal replayed: both seats' views before each move and at the end, the board
    before each move and at the end (``boards[k]``, None for a game without one), and where the
    engine and the transcript disagree, if they do."""

    views: list[list[dict[str, Any]]]
    final: list[dict[str, Any]]
    boards: list[dict[str, Any] | None]
    problem: str | None


def replay_openspiel(
    spec: Any, play_seed: int, moves: Sequence[Mapping[str, Any]]
) -> OpenSpielReplay:
    """Replay an OpenSpiel transcript from its play seed (``spec.new_deal(play_seed)``: the
    chance outcomes the match drew) as :func:`replay_views` does a generated game's: check that
    the engine has the recorded seat to act and offers the recorded menu, record the views and
    the board, apply the recorded move. A move row without an action (empty: the move that
    ended a forfeited or failed match) ends the replay there without a problem."""
    from engines.openspiel.boards import board_of

    state = spec.new_deal(play_seed)
    views: list[list[dict[str, Any]]] = []
    boards: list[dict[str, Any] | None] = []
    problem: str | None = None

    def board() -> dict[str, Any] | None:
        found = board_of(state)
        return found.as_json() if found is not None else None

    for k, move in enumerate(moves):
        if _clean(move.get("action")) in (None, ""):  # the move that ended the match
            break
        seat = SEATS.index(str(move["seat"])) if str(move["seat"]) in SEATS else -1
        if state.current_player != seat:
            problem = f"move {k + 1}: the engine has seat {state.current_player} to act"
            break
        legal = list(state.legal_actions())
        recorded = [str(a) for a in _clean(move.get("legal_actions")) or []]
        if recorded and recorded != legal:
            problem = f"move {k + 1}: the engine offers {legal[:8]}, the transcript {recorded[:8]}"
            break
        views.append([openspiel_seat_view(state, s) for s in (0, 1)])
        boards.append(board())
        if _unanswered(move):
            problem = f"move {k + 1}: unanswered, the match ended here"
            break
        try:
            state.apply(str(move["action"]))
        except ValueError as exc:
            problem = f"move {k + 1}: {exc}"
            break
    final = [openspiel_seat_view(state, s) for s in (0, 1)]
    boards.append(board())
    return OpenSpielReplay(views, final, boards, problem)


def _openspiel_deal(
    record: dict[str, Any], match: Mapping[str, Any], moves: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """``record`` with an OpenSpiel deal's views and boards (:func:`replay_openspiel`), or a
    note saying why they are not shown (a game this build cannot load, another spec hash)."""
    from engines.openspiel import parse_openspiel

    try:
        spec = parse_openspiel(str(match.get("game")))
    except ValueError as exc:
        record["replay"] = f"this build cannot load the game ({exc}): its boards are not shown"
        return record
    recorded = _clean(match.get("spec_hash"))
    if recorded is not None and str(recorded) != spec.spec_hash:
        record["replay"] = (
            "the game's spec hash differs from this build's OpenSpiel game: its boards are not "
            "shown"
        )
        return record
    if match.get("play_seed") is None or str(_clean(match.get("play_seed"))) == "None":
        record["replay"] = "no play seed recorded: the seats' views are not shown"
        return record
    replay = replay_openspiel(spec, int(match["play_seed"]), moves)
    record["views"] = replay.views
    record["final"] = replay.final
    record["boards"] = replay.boards if any(b is not None for b in replay.boards) else None
    record["ended"] = replay.problem is None
    if replay.problem is not None:
        record["replay"] = f"the replay stopped: {replay.problem}"
    return record


def _clean(value: Any) -> Any:
    """A table value as JSON: NaN and NA as null, NumPy scalars and arrays as Python values."""
    if value is None:
        return None
    if hasattr(value, "tolist") and not isinstance(value, str):
        return _clean(value.tolist())
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def _cut(text: Any) -> tuple[str | None, int]:
    """A text cut to :data:`MAX_TEXT_CHARS` and how many characters were cut."""
    value = _clean(text)
    if value is None:
        return None, 0
    value = str(value)
    if len(value) <= MAX_TEXT_CHARS:
        return value, 0
    return value[:MAX_TEXT_CHARS], len(value) - MAX_TEXT_CHARS


def move_record(move: Mapping[str, Any]) -> dict[str, Any]:
    """One transcript row as the viewer shows it."""
    raw, raw_cut = _cut(move.get("raw_response"))
    reasoning, reasoning_cut = _cut(move.get("reasoning"))
    earlier = []
    for text in _clean(move.get("earlier_responses")) or []:
        value, cut = _cut(text)
        earlier.append({"text": value, "cut": cut})
    record: dict[str, Any] = {
        "seat": str(move.get("seat")),
        "player": _clean(move.get("player")),
        "phase": _clean(move.get("phase")),
        "legal": [str(a) for a in _clean(move.get("legal_actions")) or []],
        "action": _clean(move.get("action")),
        "fallback": bool(_clean(move.get("fallback")) or False),
        "verdict": _clean(move.get("verdict")),
        "rethinks": _clean(move.get("rethinks")),
        "raw": raw,
        "raw_cut": raw_cut,
        "earlier": earlier,
        "reasoning": reasoning,
        "reasoning_cut": reasoning_cut,
        "prompt_sha256": _clean(move.get("prompt_sha256")),
    }
    tokens = [_clean(move.get(c)) for c in ("input_tokens", "output_tokens", "reasoning_tokens")]
    if any(tokens):
        record["tokens"] = tokens
    return record


def _compress_events(views: list[list[dict[str, Any]]], final: list[dict[str, Any]]) -> None:
    """Replace each step's event list by its length when it is a prefix of the seat's final
    list (events only grow), so that a deal's JSON grows linearly with its moves."""
    for step in views:
        for seat in (0, 1):
            events = step[seat]["events"]
            if events == final[seat]["events"][: len(events)]:
                step[seat]["events"] = len(events)


def deal_record(
    match: Mapping[str, Any],
    moves: Sequence[Mapping[str, Any]],
    game: GameEntry | None,
    pgn: str | None = None,
) -> dict[str, Any]:
    """One deal for the viewer: who played, the result, the moves, both seats' views, and for
    an OpenSpiel game the board at every step; ``pgn``: the release path of a chess game's
    PGN file."""
    record: dict[str, Any] = {
        "id": str(match["match_id"]),
        "game": str(match.get("game")),
        "game_label": game.label if game else str(match.get("game")),
        "game_page": game.page if game else None,
        "run": _clean(match.get("run_id")),
        "run_index": _clean(match.get("run_index")),
        "deal": _clean(match.get("deal")),
        "alice": str(match.get("alice")),
        "bob": str(match.get("bob")),
        "status": _clean(match.get("status")),
        "error": _clean(match.get("error")),
        "delta": [_clean(match.get("alice_chip_delta")), _clean(match.get("bob_chip_delta"))],
        "play_seed": str(_clean(match.get("play_seed"))),
        "moves": [move_record(m) for m in moves],
        "views": None,
        "final": None,
        "replay": None,
    }
    if pgn is not None:
        record["pgn"] = bundle_href(pgn)
    if not moves:
        record["replay"] = "no move transcript for this deal: its moves and views are not shown"
        return record
    if str(match.get("game")).startswith(OPENSPIEL_PREFIX):
        return _openspiel_deal(record, match, moves)
    if game is None or game.spec is None:
        record["replay"] = "no spec for this game in the release: the seats' views are not shown"
        return record
    if match.get("play_seed") is None or str(_clean(match.get("play_seed"))) == "None":
        record["replay"] = "no play seed recorded: the seats' views are not shown"
        return record
    replay = replay_views(game.spec, int(match["play_seed"]), moves)
    views = [list(step) for step in replay.views]
    _compress_events(views, replay.final)
    record["views"] = views
    record["final"] = replay.final
    record["ended"] = replay.problem is None
    if replay.problem is not None:
        record["replay"] = f"the replay stopped: {replay.problem}"
    return record


def choose_runs(
    matches: pd.DataFrame, games: Sequence[GameEntry], max_deals: int = MAX_DEALS
) -> list[list[dict[str, Any]]]:
    """The runs the viewer embeds, each as its deals (match rows) in deal order.

    Whole runs, so that both seat-swapped deals of a paired deal are there. Runs are grouped by
    (game, pairing) and the groups interleaved: every game's first pairing (in game order),
    then every game's second pairing, and so on. The groups are visited round robin in that
    order, each visit taking a group's next run (in run order), until ``max_deals`` deals: so
    every game is shown before any game shows a second pairing, and every (game, pairing)
    before any shows a second run.
    """
    if matches.empty:
        return []
    frame = matches.copy()
    rank = {g.token: k for k, g in enumerate(games)}
    frame["_game"] = frame["game"].astype(str) if "game" in frame.columns else ""
    frame["_rank"] = frame["_game"].map(lambda t: rank.get(t, len(rank)))
    frame["_pair"] = [
        " vs ".join(sorted((str(a), str(b))))
        for a, b in zip(frame["alice"], frame["bob"], strict=True)
    ]
    run_key = "run_id" if "run_id" in frame.columns else "match_id"
    sort = ["_rank", "_game", "_pair"]
    sort += [c for c in ("run_index", run_key, "deal", "match_id") if c in frame.columns]
    frame = frame.sort_values(sort, kind="stable")
    keyed: list[tuple[int, int, list[list[dict[str, Any]]]]] = []
    for g, (_, per_game) in enumerate(frame.groupby(["_rank", "_game"], sort=True)):
        for p, (_, group) in enumerate(per_game.groupby("_pair", sort=True)):
            runs = [
                [
                    {k: v for k, v in r.items() if not str(k).startswith("_")}
                    for r in run.to_dict("records")
                ]
                for _, run in group.groupby(run_key, sort=False)
            ]
            keyed.append((p, g, runs))
    groups = [runs for _, _, runs in sorted(keyed, key=lambda item: (item[0], item[1]))]
    chosen: list[list[dict[str, Any]]] = []
    deals = 0
    depth = 0
    while any(depth < len(g) for g in groups):
        for runs in groups:
            if depth < len(runs):
                if deals + len(runs[depth]) > max_deals:
                    return chosen
                chosen.append(runs[depth])
                deals += len(runs[depth])
        depth += 1
    return chosen


def script_json(value: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: ``<``, ``>``, ``&`` and the two
    JavaScript line separators are ``\\uXXXX`` escapes, so no string can end the element.

    Hand-written on purpose: Jinja2's ``tojson`` is as safe here but also writes every ``'`` as
    ``\\u0027`` (and U+2028, U+2029 raw), which would change the bytes, and so the release id, of
    every release whose replies hold an apostrophe (docs/NOTES.md, "The report's templates")."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    for char, escape in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escape)
    return Markup(text)


def viewer_data(
    tables: Mapping[str, pd.DataFrame],
    games: Sequence[GameEntry],
    max_deals: int = MAX_DEALS,
    max_bytes: int = MAX_VIEWER_BYTES,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The viewer's JSON (the chosen deals, replayed) and what its notes say about what it holds
    (``templates/viewer_notes.html.j2``): the match table read (None: there is none), whether
    there are move transcripts, how many deals are embedded of how many, within which bound."""
    name, matches = match_table(tables)
    moves = tables.get(MOVES_TABLE)
    data: dict[str, Any] = {"deals": [], "total": 0}
    notes: dict[str, Any] = {
        "table": name,
        "moves": moves is not None and "match_id" in moves.columns,
        "moves_table": MOVES_TABLE,
        "transcripts": False,
        "embedded": 0,
        "total": 0,
        "max_deals": max_deals,
        "max_mb": f"{max_bytes / 1e6:.0f}",
        "bounded": False,
        "max_chars": f"{MAX_TEXT_CHARS:,}",
    }
    if matches is None:
        return data, notes
    data["total"] = len(matches)
    by_match: dict[str, list[dict[str, Any]]] = {}
    if moves is not None and notes["moves"]:
        ordered = moves.sort_values(["match_id", "index"], kind="stable")
        by_match = {
            str(k): g.to_dict("records") for k, g in ordered.groupby("match_id", sort=False)
        }
    by_token = {g.token: g for g in games}
    pgn_paths: dict[str, str] = {}
    chess = tables.get(PGN_TABLE)
    if chess is not None and {"match_id", "path"} <= set(chess.columns):
        pgn_paths = dict(zip(chess["match_id"].astype(str), chess["path"].astype(str), strict=True))
    used = 0
    embedded = 0
    stopped_by_bytes = False
    runs = choose_runs(matches, games, max_deals)
    for run in runs:
        records = [
            deal_record(
                m,
                by_match.get(str(m["match_id"]), []),
                by_token.get(str(m.get("game"))),
                pgn_paths.get(str(m["match_id"])),
            )
            for m in run
        ]
        size = sum(len(script_json(r)) for r in records)
        if used + size > max_bytes and embedded:
            stopped_by_bytes = True
            break
        data["deals"].extend(records)
        used += size
        embedded += len(records)
    notes.update(
        transcripts=bool(by_match),
        embedded=embedded,
        total=len(matches),
        bounded=stopped_by_bytes,
    )
    return data, notes


def viewer_page(data: Mapping[str, Any], notes: Mapping[str, Any]) -> Markup:
    """The match viewer's body (``templates/viewer.html.j2``): its notes, the pickers, the
    stepper, the two seats' views and the deals as JSON (:func:`script_json`)."""
    return render(
        "viewer.html.j2", notes=notes, data_json=script_json(data), total=str(data.get("total", 0))
    )


# ---------------------------------------------------------------------------------------------
# The entry point.


def _static(name: str) -> bytes:
    return resources.files("releases").joinpath(name).read_bytes()


def render_report(
    tables: Mapping[str, pd.DataFrame],
    texts: Mapping[str, str],
    images: Mapping[str, bytes],
    manifest: Mapping[str, Any],
    *,
    integrity: Mapping[str, Any] | None = None,
    max_deals: int = MAX_DEALS,
) -> dict[str, bytes]:
    """The report's files, ``{path under report/: bytes}``, for a release's tables, texts
    (rulebooks), images (plots), manifest (release id, versions, profile, results, files) and
    integrity card. Deterministic: the same inputs give the same bytes."""
    if max_deals < 0:
        raise ValueError(f"max_deals must be at least 0, not {max_deals}")
    context = dict(manifest)
    games = game_catalogue(tables, texts)
    shown: set[str] = set()
    present = {name for name, frame in tables.items() if frame is not None}
    per_game, per_game_source = _per_game_frame(tables)
    index = Markup("").join(
        [
            summary_section(manifest, integrity, present),
            leaderboard_section(tables, images, shown),
            families_section(tables),
            cost_section(tables, images, shown),
            anchored_section(tables),
            editions_section(tables, images, shown),
            per_game_section(per_game, per_game_source, tables, images, games, shown),
            profiles_section(tables, images, shown),
            games_section(tables, games, images, shown),
            figures_section(images, shown),
            integrity_section(integrity),
            files_section(manifest),
        ]
    )
    title = str(manifest.get("title") or "GENSTRAT release")
    files: dict[str, bytes] = {"index.html": page(title, index, context)}
    _, matches = match_table(tables)
    played: dict[str, int] = {}
    if matches is not None and "game" in matches.columns:
        played = {str(k): int(v) for k, v in matches["game"].astype(str).value_counts().items()}
    for game in games:
        body = game_page(game, tables, per_game, played.get(game.token, 0))
        files[game.page] = page(f"Game {game.title}", body, context)
    data, notes = viewer_data(tables, games, max_deals)
    files["viewer.html"] = page("Match viewer", viewer_page(data, notes), context)
    files["report.css"] = _static("report.css")
    files["report.js"] = _static("report.js")
    return dict(sorted(files.items()))
