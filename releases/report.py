"""The release's static HTML report: what a person opens offline to read a release.

Why it exists: DESIGN.md ("Release bundle") puts a ``report/`` folder in every release, a static
site a reader opens from the unpacked bundle without a server, a network or GENSTRAT installed:
the leaderboard, the per-game strengths, the capability profiles, one page per game (its axes
and rulebook), a replay viewer for recorded deals, and the integrity card. The tables stay the
data of record; the report only shows them. It is rendered from the same inputs as the rest of
the bundle, contains no clock, and so is as reproducible as the README.

Safety: model replies are untrusted text. Every value put into HTML passes through
``html.escape`` (:func:`esc`); the deals the viewer replays are embedded as JSON in a
``<script type="application/json">`` element with ``<``, ``>``, ``&`` and the two JavaScript
line separators written as ``\\uXXXX`` escapes (so no reply can close the element), and the
viewer's script puts text into the page with ``textContent`` only. Each page carries a
Content-Security-Policy that allows only the report's own stylesheet, script and the bundle's
images: nothing is fetched from a network at view time. Links are relative (``../plots/...``,
``../tables/...``).

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
import numpy as np
import pandas as pd

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
# Markup: every value is escaped unless it is already markup built here.


class Markup(str):
    """Text that is already HTML built by this module (never user or model text); Jinja2's
    autoescape passes it through (``__html__``) and escapes every other value."""

    __slots__ = ()

    def __html__(self) -> str:
        return str(self)


TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("releases", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
)
"""The report's page templates (``releases/templates``), every value autoescaped."""


def esc(value: Any) -> Markup:
    """``value`` as HTML text: markup passes through, anything else is ``html.escape``d."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(_text(value), quote=True))


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return str(value)


def join(parts: Iterable[Any], sep: str = "") -> Markup:
    return Markup(sep.join(esc(p) for p in parts))


def tag(element: str, /, *children: Any, **attrs: Any) -> Markup:
    """``<element attrs>children</element>``; attribute values and children are escaped.

    A trailing underscore in an attribute name is dropped (``class_``); ``_`` becomes ``-``
    (``data_step``); an attribute whose value is ``None`` or ``False`` is left out."""
    rendered = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        attr = key.rstrip("_").replace("_", "-")
        rendered.append(attr if value is True else f'{attr}="{esc(value)}"')
    opening = " ".join([element, *rendered])
    if element in ("img", "meta", "link", "br"):
        return Markup(f"<{opening}>")
    return Markup(f"<{opening}>{join(children)}</{element}>")


def link(href: str, text: Any, **attrs: Any) -> Markup:
    return tag("a", text, href=href, **attrs)


def bundle_href(path: str) -> str:
    """The link from ``report/`` to a bundle file: ``plots/x.png`` -> ``../plots/x.png``."""
    return "../" + quote(path, safe="/._-")


def note(*children: Any) -> Markup:
    return tag("p", *children, class_="note")


def code(value: Any) -> Markup:
    return tag("code", value)


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


def table(
    headers: Sequence[Any], rows: Iterable[Sequence[Any]], *, class_: str | None = None
) -> Markup:
    """An HTML table; a cell that is a ``(content, attrs)`` pair gets those attributes."""
    head = tag("thead", tag("tr", *(tag("th", h, scope="col") for h in headers)))
    body_rows = []
    for row in rows:
        cells = []
        for cell in row:
            if isinstance(cell, tuple):
                content, attrs = cell
                cells.append(tag("td", content, **attrs))
            else:
                cells.append(tag("td", cell))
        body_rows.append(tag("tr", *cells))
    return tag("table", head, tag("tbody", *body_rows), class_=class_)


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
# Index sections.


def _missing(table_name: str, what: str) -> Markup:
    return note(
        "This release has no ",
        code(f"tables/{table_name}.parquet"),
        f", so there is no {what} to show.",
    )


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


def figure(path: str, caption: str) -> Markup:
    return tag(
        "figure",
        link(bundle_href(path), tag("img", src=bundle_href(path), alt=caption, loading="lazy")),
        tag("figcaption", caption, " (", code(path), ")"),
    )


def leaderboard_section(
    tables: Mapping[str, pd.DataFrame], images: Mapping[str, bytes], shown: set[str]
) -> Markup:
    parts: list[Any] = [tag("h2", "Leaderboard", id="leaderboard")]
    board = tables.get("leaderboards")
    if board is None or "model" not in board.columns:
        parts.append(_missing("leaderboards", "leaderboard"))
    else:
        frame = board.sort_values("rank") if "rank" in board.columns else board
        parts.append(
            tag(
                "p",
                "Strength alpha is the sum-to-zero least-squares fit of chip margins, in chips "
                "per game, with its 95% clustered-bootstrap interval over runs; a new tier "
                "starts where intervals stop overlapping.",
            )
        )
        rows = []
        for r in frame.to_dict("records"):
            interval = (
                f"[{fmt(r.get('ci_low'), signed=True)}, {fmt(r.get('ci_high'), signed=True)}]"
            )
            rows.append(
                [
                    fmt(r.get("rank")),
                    tag("strong", r["model"]),
                    (fmt(r.get("alpha"), signed=True), {"class_": "num"}),
                    (interval, {"class_": "num"}),
                    fmt(r.get("tier")),
                    (fmt(r.get("matches")), {"class_": "num"}),
                ]
            )
        headers = ["rank", "model", "strength (chips/game)", "95% interval", "tier", "matches"]
        parts.append(table(headers, rows, class_="leaderboard"))
    plot = _image(images, ("leaderboard",))
    if plot is not None:
        shown.add(plot)
        parts.append(figure(plot, "The overall leaderboard"))
    return join(parts)


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
    units = sorted(set(ratings["unit"].astype(str)))
    pooled = (
        f"they are all counted in one unit ({units[0]})."
        if len(units) == 1
        else f"they are counted in {len(units)} units ({', '.join(units)}), so its numbers mix "
        "units: read the families below instead."
    )
    parts: list[Any] = [
        tag("h2", "Per game family", id="families"),
        tag(
            "p",
            "Each game family is rated in its own metric, fitted on its games alone, with a 95% "
            "bootstrap interval over runs: no fit reads two families. The leaderboard above "
            f"fits this release's games together; {pooled}",
        ),
    ]
    for family, group in ratings.groupby("family", sort=True):
        metric = str(group["metric"].iloc[0])
        short, words = FAMILY_METRICS.get(metric, (metric, metric))
        parts.append(tag("h3", f"{family}: {short}"))
        parts.append(tag("p", f"{words}; games: {group['games'].iloc[0]}.", class_="note"))
        rows = []
        for r in group.sort_values(["rank", "model"]).to_dict("records"):
            rows.append(
                [
                    fmt(r.get("rank")),
                    tag("strong", r["model"]),
                    (fmt(r.get("value"), digits=1), {"class_": "num"}),
                    _interval(r.get("ci_low"), r.get("ci_high")),
                    (fmt(r.get("deals")), {"class_": "num"}),
                    (fmt(r.get("z"), digits=2, signed=True), {"class_": "num"}),
                ]
            )
        headers = ["rank", "model", short, "95% interval", "deals", "z in the family"]
        parts.append(table(headers, rows, class_="families"))
    summary = tables.get("family_summary")
    if summary is not None and not summary.empty:
        parts.append(tag("h3", "Across families"))
        parts.append(
            tag(
                "p",
                "Each family's values standardised over its players (z: mean 0, standard "
                "deviation 1), then averaged over the families a model played, every family "
                "weighing the same. A unitless summary: it ranks, it does not measure a gap in "
                "any game's unit, and a family of two players gives them -1 and +1 whatever "
                "their gap.",
                class_="note",
            )
        )
        rows = [
            [
                fmt(r.get("rank")),
                tag("strong", r["model"]),
                (fmt(r.get("summary"), digits=2, signed=True), {"class_": "num"}),
                (fmt(r.get("families")), {"class_": "num"}),
                str(r.get("family_list") or ""),
            ]
            for r in summary.to_dict("records")
        ]
        headers = ["rank", "model", "mean z", "families", "which"]
        parts.append(table(headers, rows, class_="families"))
    return join(parts)


def cost_section(
    tables: Mapping[str, pd.DataFrame], images: Mapping[str, bytes], shown: set[str]
) -> Markup:
    """Tokens, cost and answer quality per model beside its strength, and the strength-vs-cost
    plot (GameBench 2's cost per point); nothing when no model made a provider call."""
    frame = strength_cost_frame(tables)
    if frame is None:
        return Markup("")
    parts: list[Any] = [
        tag("h2", "Strength and cost", id="cost"),
        tag(
            "p",
            "Per model, over the released matches: provider calls, input (of which cached) and "
            "output tokens, cost in US dollars at the roster's prices, and how often a reply "
            "could not be read (fallback) or was asked again (rethink, arena protocol only).",
        ),
    ]
    rows = []
    for r in frame.to_dict("records"):
        rows.append(
            [
                tag("strong", r["model"]),
                (fmt(r.get("alpha"), signed=True), {"class_": "num"}),
                (fmt(r.get("calls")), {"class_": "num"}),
                (fmt(r.get("input_tokens")), {"class_": "num"}),
                (fmt(r.get("cached_input_tokens")), {"class_": "num"}),
                (fmt(r.get("output_tokens")), {"class_": "num"}),
                (fmt(r.get("cost_usd"), digits=4), {"class_": "num"}),
                (fmt(r.get("usd_per_match"), digits=5), {"class_": "num"}),
                (fmt(r.get("fallback_rate")), {"class_": "num"}),
                (fmt(r.get("rethink_rate")), {"class_": "num"}),
            ]
        )
    headers = ["model", "strength", "calls", "input tokens", "cached", "output tokens",
               "cost (US$)", "US$ per match", "fallback rate", "rethink rate"]  # fmt: skip
    parts.append(table(headers, rows, class_="cost"))
    plot = _image(images, ("strength_cost",))
    if plot is not None:
        shown.add(plot)
        parts.append(figure(plot, "Strength against cost per match"))
    return join(parts)


# --- scores against the reference field, episodes, program track (issue 19) -------------------


def _cell(value: Any) -> Any:
    """``pd.NA`` (a nullable rank) as a missing cell."""
    return None if value is pd.NA else value


def _interval(low: Any, high: Any, digits: int = 1) -> tuple[str, dict[str, str]]:
    return f"[{fmt(low, digits)}, {fmt(high, digits)}]", {"class_": "num"}


def anchored_section(tables: Mapping[str, pd.DataFrame]) -> Markup:
    """The anchored scales with their flags, the episode adaptation and the program track;
    nothing when the release has none of the three tables."""
    scales = tables.get("anchored_scales")
    episodes = tables.get("episode_adaptation")
    programs = tables.get("program_track")
    if scales is None and episodes is None and programs is None:
        return Markup("")
    parts: list[Any] = [tag("h2", "Scores against the reference field", id="anchored")]
    if scales is not None and not scales.empty:
        field = str(scales["field"].iloc[0])
        parts.append(
            tag(
                "p",
                "Every player is scored against the fixed reference field ",
                code(field),
                ", so a model has the same numbers in every release that plays this field "
                "version. Rating: chips per game against the field, uniform random = 0. "
                "Score: the expected share of points (win 1, tie 1/2) against the field's "
                "members, both seats, 0-100 (GameBench 2's construction). Elo: the "
                "Bradley-Terry logits with a first-mover term, calibrated to the anchor. "
                "Intervals: 95% clustered bootstrap over runs. A provisional entrant is "
                "listed with its reason and not ranked.",
            )
        )
        rows = []
        for r in scales.to_dict("records"):
            rows.append(
                [
                    fmt(_cell(r.get("rank"))),
                    tag("strong", r["model"]),
                    r.get("status", ""),
                    (fmt(r.get("rating"), 2, signed=True), {"class_": "num"}),
                    _interval(r.get("rating_low"), r.get("rating_high"), 2),
                    (fmt(r.get("score"), 1), {"class_": "num"}),
                    _interval(r.get("score_low"), r.get("score_high")),
                    (fmt(r.get("elo"), 0, signed=True), {"class_": "num"}),
                    _interval(r.get("elo_low"), r.get("elo_high"), 0),
                    r.get("reason") or "",
                ]
            )
        headers = ["rank", "player", "status", "rating", "95% interval", "score (0-100)",
                   "95% interval", "Elo", "95% interval", "reason"]  # fmt: skip
        parts.append(table(headers, rows, class_="anchored"))
    elif scales is not None:
        parts.append(note("The anchored scales table is empty."))
    if episodes is not None and not episodes.empty:
        change = episodes[episodes["quantity"] == "change"]
        parts.append(tag("h3", "Adaptation over multi-hand episodes", id="episodes"))
        parts.append(
            tag(
                "p",
                "Each player plays episodes of consecutive hands, the earlier hands visible, "
                "against a fixed exploitable bot, each episode mirrored with the seats "
                "swapped. Change: the fitted margin (chips per hand) of the last hand minus "
                "the first; above zero means the player learned to exploit its opponent. "
                "Intervals: 95% bootstrap over episode pairs.",
            )
        )
        rows = [
            [
                r["game"],
                tag("strong", r["player"]),
                r["opponent"],
                (fmt(r["estimate"], 2, signed=True), {"class_": "num"}),
                _interval(r["ci_low"], r["ci_high"], 2),
                (fmt(r["episode_pairs"]), {"class_": "num"}),
            ]
            for r in change.to_dict("records")
        ]
        headers = ["game", "player", "opponent", "change", "95% interval", "episode pairs"]
        parts.append(table(headers, rows, class_="episodes"))
    if programs is not None and not programs.empty:
        parts.append(tag("h3", "Program track", id="program-track"))
        parts.append(
            tag(
                "p",
                "Authors scored by the strategy programs they write, 0-100 against the same "
                "field. A failed submission scores 0; a program refused only by the speed "
                "check, or an attempt without a reply, counts in no score (GameBench 2).",
            )
        )
        rows = [
            [
                fmt(_cell(r.get("rank"))),
                tag("strong", r["author"]),
                r["game"],
                (fmt(r["authoring_runs"]), {"class_": "num"}),
                (fmt(r["admitted"]), {"class_": "num"}),
                (fmt(r["failed"]), {"class_": "num"}),
                (fmt(r["repair_turns"]), {"class_": "num"}),
                (fmt(r["score"], 1), {"class_": "num"}),
                _interval(r["ci_low"], r["ci_high"]),
                r.get("reason") or "",
            ]
            for r in programs.to_dict("records")
        ]
        headers = ["rank", "author", "game", "runs", "admitted", "failed", "repairs",
                   "score (0-100)", "95% interval", "reason"]  # fmt: skip
        parts.append(table(headers, rows, class_="program-track"))
    return join(parts)


def _per_game_frame(
    tables: Mapping[str, pd.DataFrame],
) -> tuple[pd.DataFrame | None, Markup | None]:
    """Per-game strengths (rows: game_seed, columns: models) and a note on where they came from."""
    frame = tables.get("per_game_alpha")
    if frame is not None and not frame.empty:
        frame = frame.copy()
        key = next((c for c in ("game_seed", "game", "seed") if c in frame.columns), None)
        if {"model", "alpha"} <= set(frame.columns) and key is not None:
            frame = frame.pivot_table(index=key, columns="model", values="alpha")
        elif key is not None:
            frame = frame.set_index(key)
        numeric = frame.select_dtypes("number")
        return numeric, None
    _, matches = match_table(tables)
    if matches is None:
        return None, _missing("per_game_alpha", "table of per-game strengths")
    from engines.stats.pergame import per_game_mean_margin
    from engines.stats.runs import run_table

    try:
        margins = per_game_mean_margin(run_table(matches))
    except (ValueError, KeyError) as exc:
        return None, note(
            "This release has no ",
            code("tables/per_game_alpha.parquet"),
            " and its matches give no per-game table: ",
            str(exc),
        )
    return margins, note(
        "This release has no ",
        code("tables/per_game_alpha.parquet"),
        "; shown instead: each model's mean chip margin per deal on each game (Table 11), "
        "computed by this report from the complete runs of the match table. It is not the "
        "fitted strength.",
    )


SATURATION_HEADERS = ("edition", "entrants", "tiers", "rating spread", "games swept by the top",
                      "next edition", "why")  # fmt: skip


SATURATION_HEADERS = ("edition", "entrants", "tiers", "rating spread", "games swept by the top",
                      "next edition", "why")  # fmt: skip


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
    editions = [int(e) for e in trend.columns]
    parts: list[Any] = [
        tag("h2", "Across editions", id="editions"),
        tag(
            "p",
            "Each entrant's score against the reference field (0-100) in every edition of "
            "this profile. Editions draw disjoint games; the field is the same in each, so "
            "the scores share one scale.",
        ),
        table(
            ["player", *[f"edition {e}" for e in editions]],
            [
                [tag("strong", str(model)), *[(fmt(v, 1), {"class_": "num"}) for v in row]]
                for model, row in trend.iterrows()
            ],
            class_="editions",
        ),
    ]
    path = "plots/edition_trend.png"
    if path in images:
        shown.add(path)
        parts.append(figure(path, "Anchored scores by edition"))
    if watch is not None and not watch.empty:
        rows = [
            [
                str(int(r["edition"])),
                str(int(r["players"])),
                str(int(r["tiers"])),
                (fmt(r["spread"], 2), {"class_": "num"}),
                f"{int(r['swept_games'])} of {int(r['games'])}",
                str(r["action"]),
                str(r["reasons"]) or "separates the field",
            ]
            for r in watch.sort_values("edition").to_dict("records")
        ]
        parts += [
            tag("h3", "Saturation watch"),
            table(SATURATION_HEADERS, rows, class_="saturation"),
        ]
    return join(parts)


def per_game_section(
    frame: pd.DataFrame | None,
    remark: Markup | None,
    tables: Mapping[str, pd.DataFrame],
    images: Mapping[str, bytes],
    games: Sequence[GameEntry],
    shown: set[str],
) -> Markup:
    parts: list[Any] = [tag("h2", "Per-game strengths", id="per-game")]
    if remark is not None:
        parts.append(remark)
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
            label = link(game.page, game.label) if game is not None else str(key)
            cells: list[Any] = [label]
            for model in models:
                value = values[model]
                cells.append((fmt(value, 2, signed=True), {"class_": heat_class(value, limit)}))
            rows.append(cells)
        parts.append(
            tag("p", "Chips per game; each row sums to zero over the models who played it.")
            if remark is None
            else Markup("")
        )
        parts.append(tag("div", table(["game", *models], rows, class_="heat"), class_="scroll"))
    plot = _image(images, ("per", "game", "heatmap"))
    if plot is not None:
        shown.add(plot)
        parts.append(figure(plot, "Per-game strengths"))
    return join(parts)


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
    parts: list[Any] = [tag("h2", "Capability profiles", id="profiles")]
    profiles = tables.get("capability_profiles")
    needed = {"model", "term", "coef"}
    if profiles is None or not needed <= set(profiles.columns):
        parts.append(_missing("capability_profiles", "capability profile"))
    else:
        parts.append(
            tag(
                "p",
                "Each model's slope on each z-scored axis (chips per game per standard "
                "deviation of the axis) with its bootstrap interval; ",
                tag("strong", "bold*"),
                " marks a slope significant after Benjamini-Hochberg correction (q in the "
                "cell's tooltip).",
            )
        )
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
        rows = []
        for model in models:
            row: list[Any] = [tag("strong", model)]
            for term in terms:
                r = cells.get((model, term))
                if r is None:
                    row.append("–")
                    continue
                text = fmt(r["coef"], 2, signed=True)
                significant = bool(r.get("significant")) and term != "intercept"
                content = [tag("strong", text + "*") if significant else esc(text)]
                if "ci_low" in r and "ci_high" in r:
                    low, high = fmt(r["ci_low"], 2, signed=True), fmt(r["ci_high"], 2, signed=True)
                    content.append(tag("span", f"[{low}, {high}]", class_="interval"))
                tip = f"q = {fmt(r.get('q_value'), 3)}, p = {fmt(r.get('p_value'), 3)}"
                klass = heat_class(r["coef"], limit) if term != "intercept" else None
                row.append((join(content), {"class_": klass, "title": tip}))
            rows.append(row)
        headers = ["model", *(AXIS_TITLES.get(t, t) for t in terms)]
        parts.append(tag("div", table(headers, rows, class_="heat"), class_="scroll"))
    plot = _image(images, ("profile", "heatmap"))
    if plot is not None:
        shown.add(plot)
        parts.append(figure(plot, "Capability profiles"))
    return join(parts)


def games_section(
    tables: Mapping[str, pd.DataFrame],
    games: Sequence[GameEntry],
    images: Mapping[str, bytes],
    shown: set[str],
) -> Markup:
    parts: list[Any] = [tag("h2", "Games", id="games")]
    if not games:
        parts.append(note("This release names no games."))
        return join(parts)
    source, axis_rows = _axis_rows(tables)
    if source is None:
        parts.append(
            note(
                "This release has neither ",
                code("tables/benchmark_axes.parquet"),
                " nor ",
                code("tables/axis_scores.parquet"),
                ", so the five axes of the games are not shown.",
            )
        )
    z_scored = any(f"z_{a}" in row for row in axis_rows.values() for a in AXES)
    _, matches = match_table(tables)
    played: dict[str, int] = {}
    if matches is not None and "game" in matches.columns:
        played = {str(k): int(v) for k, v in matches["game"].astype(str).value_counts().items()}
    headers = ["game", "kind", "spec hash", "matches"]
    headers += [AXIS_TITLES[a] + (" (z)" if z_scored else "") for a in AXES]
    rows = []
    for game in games:
        row = axis_rows.get(game.token, {})
        cells: list[Any] = [
            link(game.page, game.title),
            game.kind,
            code((game.spec_hash or "–")[:12]),
            (fmt(played.get(game.token, 0)), {"class_": "num"}),
        ]
        for axis in AXES:
            value = row.get(f"z_{axis}") if z_scored else row.get(axis)
            cells.append((fmt(value, 2, signed=z_scored), {"class_": "num"}))
        rows.append(cells)
    parts.append(tag("div", table(headers, rows), class_="scroll"))
    plot = _image(images, ("benchmark", "axes"))
    if plot is not None:
        shown.add(plot)
        parts.append(figure(plot, "The benchmark on two axes"))
    return join(parts)


def integrity_section(integrity: Mapping[str, Any] | None) -> Markup:
    parts: list[Any] = [tag("h2", "Integrity card", id="integrity")]
    if not integrity:
        parts.append(note("No integrity card was given to this report."))
        return join(parts)
    gates: Mapping[str, Mapping[str, Any]] = integrity.get("gates") or {}
    passed = sum(bool(g.get("passed")) for g in gates.values())
    verdict = "every gate passed" if passed == len(gates) else "SOME GATES FAILED"
    parts.append(
        tag(
            "p",
            f"{passed} of {len(gates)} gates passed: {verdict}. From ",
            link("../integrity.json", code("integrity.json")),
            ".",
            class_="verdict " + ("pass" if passed == len(gates) else "fail"),
        )
    )
    rows = []
    for name, gate in gates.items():
        ok = bool(gate.get("passed"))
        figures = json.dumps(gate.get("figures"), indent=2, sort_keys=True, default=str)
        rows.append(
            [
                tag("strong", name),
                ("passed" if ok else "FAILED", {"class_": "pass" if ok else "fail"}),
                gate.get("message", ""),
                tag("details", tag("summary", "figures"), tag("pre", figures)),
            ]
        )
    parts.append(table(["gate", "verdict", "message", "figures"], rows, class_="gates"))
    return join(parts)


def files_section(manifest: Mapping[str, Any]) -> Markup:
    parts: list[Any] = [tag("h2", "Files", id="files")]
    files = [e for e in manifest.get("files") or [] if isinstance(e, Mapping)]
    if not files:
        parts.append(note("The manifest given to this report lists no files."))
        return join(parts)
    parts.append(
        tag(
            "p",
            "Every file of the release with its size and SHA-256, as ",
            link("../manifest.json", code("manifest.json")),
            " lists them (the report's own files are listed there too).",
        )
    )
    rows = []
    for entry in sorted(files, key=lambda e: str(e.get("path"))):
        path = str(entry.get("path"))
        rows.append(
            [
                link(bundle_href(path), code(path)),
                entry.get("role", ""),
                (fmt(entry.get("rows")) if "rows" in entry else "", {"class_": "num"}),
                (f"{int(entry.get('bytes', 0)):,}", {"class_": "num"}),
                code(str(entry.get("sha256", ""))[:16]),
            ]
        )
    parts.append(table(["file", "role", "rows", "bytes", "sha256 (first 16)"], rows))
    return join(parts)


def figures_section(images: Mapping[str, bytes], shown: set[str]) -> Markup:
    rest = [p for p in sorted(images) if p not in shown and p.lower().endswith(".png")]
    if not rest:
        return Markup("")
    return join([tag("h2", "Other figures", id="figures"), *(figure(p, p) for p in rest)])


def summary_section(
    manifest: Mapping[str, Any], integrity: Mapping[str, Any] | None, tables_present: set[str]
) -> Markup:
    profile = manifest.get("profile") or {}
    results = manifest.get("results") or {}
    gates = (integrity or {}).get("gates") or {}
    passed = sum(bool(g.get("passed")) for g in gates.values())
    rows = [
        ["release id", code(manifest.get("release_id") or "–")],
        ["profile", profile.get("name", "–") if isinstance(profile, Mapping) else profile],
        *(
            [["edition", label]]
            if isinstance(profile, Mapping) and (label := edition_label(profile))
            else []
        ),
        ["engine version", manifest.get("engine_version") or "–"],
        ["code version", code(manifest.get("code_version") or "–")],
        ["gates", f"{passed} of {len(gates)} passed" if gates else "–"],
    ]
    if results:
        rows.append(
            [
                "matches",
                f"{results.get('counted_matches', 0)} counted, "
                f"{results.get('superseded_matches', 0)} superseded by replays",
            ]
        )
    absent = [
        name
        for name in (
            "leaderboards",
            "per_game_alpha",
            "capability_profiles",
            MOVES_TABLE,
            "benchmark_axes",
        )
        if name not in tables_present
    ]
    parts: list[Any] = [
        tag(
            "p",
            "GENSTRAT is a renewable benchmark of strategic reasoning: procedurally generated "
            "two-player zero-sum card games with hidden information, played in paired deals. "
            "This report shows one release; open the ",
            link("viewer.html", "match viewer"),
            " to replay recorded deals move by move.",
        ),
        tag("table", tag("tbody", *(tag("tr", tag("th", k), tag("td", v)) for k, v in rows))),
    ]
    if absent:
        parts.append(
            note(
                "Not in this release: ",
                join((code(f"tables/{n}.parquet") for n in absent), ", "),
                ". The sections that need them say so.",
            )
        )
    return join(parts)


# ---------------------------------------------------------------------------------------------
# Game pages.


def game_page(
    game: GameEntry,
    tables: Mapping[str, pd.DataFrame],
    per_game: pd.DataFrame | None,
    played: int,
) -> Markup:
    parts: list[Any] = []
    facts: list[tuple[str, Any]] = [
        ("kind", game.kind),
        ("match token", code(game.token)),
        ("generator seed", game.seed if game.seed is not None else "–"),
        ("spec hash", code(game.spec_hash or "–")),
        ("recorded matches", played),
    ]
    parts.append(
        tag("table", tag("tbody", *(tag("tr", tag("th", k), tag("td", v)) for k, v in facts)))
    )
    if played:
        parts.append(
            tag("p", link(f"viewer.html#game={quote(game.token, safe='')}", "Replay its deals"))
        )
    parts.append(tag("h2", "The five axes", id="axes"))
    source, axis_rows = _axis_rows(tables)
    row = axis_rows.get(game.token)
    if row is None:
        where = (
            "this release has no axis table"
            if source is None
            else f"tables/{source}.parquet has no row for it"
        )
        parts.append(note(f"No axis scores for this game: {where}."))
    else:
        rows = []
        for axis in AXES:
            cells: list[Any] = [AXIS_TITLES[axis], (fmt(row.get(axis), 3), {"class_": "num"})]
            cells.append((fmt(row.get(f"se_{axis}"), 3), {"class_": "num"}))
            cells.append((fmt(row.get(f"z_{axis}"), 2, signed=True), {"class_": "num"}))
            for seat in SEATS:
                value = row.get(f"{seat}_{axis}") if axis in SEAT_AXES else None
                cells.append((fmt(value, 3), {"class_": "num"}))
            rows.append(cells)
        headers = ["axis", "value", "std. error", "z (over the games)", "as Alice", "as Bob"]
        parts.append(table(headers, rows))
        parts.append(note("From ", code(f"tables/{source}.parquet"), "."))
    bench = tables.get("benchmark_games")
    if bench is not None and game.seed is not None and "seed" in bench.columns:
        match = bench.loc[bench["seed"] == game.seed]
        present = [a for a in SCREENING_AXES if a in bench.columns]
        if len(match) and present:
            first = match.iloc[0]
            parts.append(tag("h2", "Screening axes"))
            rows = [[a.replace("_", " "), (fmt(first[a], 3), {"class_": "num"})] for a in present]
            parts.append(table(["screening axis", "value"], rows))
            parts.append(
                note("The six cheap axes the selection used (", code("benchmark_games"), ").")
            )
    if per_game is not None and game.game_seed is not None:
        keys = [k for k in per_game.index if _same_game(k, game)]
        if keys:
            values = per_game.loc[keys[0]]
            rows = [[m, (fmt(v, 2, signed=True), {"class_": "num"})] for m, v in values.items()]
            parts.append(tag("h2", "Strengths on this game"))
            parts.append(table(["model", "chips/game"], rows))
    parts.append(tag("h2", "Rulebook", id="rulebook"))
    if game.rulebook is None:
        parts.append(note("No rulebook for this game in this release."))
    else:
        if game.rulebook_path is not None:
            parts.append(
                tag(
                    "p",
                    "As the players read it (",
                    link(bundle_href(game.rulebook_path), code(game.rulebook_path)),
                    "):",
                )
            )
        else:
            parts.append(note("Rendered from the game's spec (the release has no rulebook file)."))
        parts.append(tag("pre", game.rulebook, class_="rulebook"))
    return join(parts)


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
    JavaScript line separators are ``\\uXXXX`` escapes, so no string can end the element."""
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
) -> tuple[dict[str, Any], list[Markup]]:
    """The viewer's JSON (the chosen deals, replayed) and the notes about what it holds."""
    name, matches = match_table(tables)
    moves = tables.get(MOVES_TABLE)
    notes: list[Markup] = []
    data: dict[str, Any] = {"deals": [], "total": 0}
    if matches is None:
        notes.append(
            note(
                "This release has no match table (",
                code("tables/match_corpus.parquet"),
                " or ",
                code("tables/complete_pairs.parquet"),
                "), so there are no deals to replay.",
            )
        )
        return data, notes
    data["total"] = len(matches)
    if moves is None or "match_id" not in moves.columns:
        notes.append(
            note(
                "This release has no move transcripts (",
                code(f"tables/{MOVES_TABLE}.parquet"),
                "): the viewer lists the deals and their results, without their moves.",
            )
        )
        by_match: dict[str, list[dict[str, Any]]] = {}
    else:
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
    bound = f"at most {max_deals} deals and {max_bytes / 1e6:.0f} MB of JSON" + (
        " (the size bound was reached)" if stopped_by_bytes else ""
    )
    text = [
        f"{embedded} of the {len(matches)} recorded deals in ",
        code(f"tables/{name}.parquet"),
        " are embedded in this page: whole runs (both seat-swapped deals), taken round robin "
        "so that every game comes before any game's second pairing and every pairing before "
        f"any second run; {bound}.",
    ]
    if by_match:
        text += [
            f" Replies longer than {MAX_TEXT_CHARS:,} characters are cut; every deal and the "
            "full texts are in ",
            code(f"tables/{MOVES_TABLE}.parquet"),
            ". The seats' views are recomputed with the game engine from the spec and the "
            "play seed; the legal actions, actions, fallbacks and replies are the transcript's.",
        ]
    notes.append(tag("p", *text, class_="note"))
    return data, notes


def viewer_page(data: Mapping[str, Any], notes: Sequence[Markup]) -> Markup:
    """The match viewer's body (``templates/viewer.html.j2``): the pickers, the stepper, the two
    seats' views and the deals as JSON (:func:`script_json`)."""
    body = TEMPLATES.get_template("viewer.html.j2").render(
        notes=notes, data_json=script_json(data), total=str(data.get("total", 0))
    )
    return Markup(body)


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
    per_game, per_game_note = _per_game_frame(tables)
    index = join(
        [
            summary_section(manifest, integrity, present),
            leaderboard_section(tables, images, shown),
            families_section(tables),
            cost_section(tables, images, shown),
            anchored_section(tables),
            editions_section(tables, images, shown),
            per_game_section(per_game, per_game_note, tables, images, games, shown),
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
