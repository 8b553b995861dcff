"""The release's static report (``releases.report``): escaping, relative links, notes for what a
release lacks, the replay of each seat's view, the viewer's bound, and (slow) the pages as
headless Chromium renders them from ``file://`` URLs, built from a bundle of a real corpus."""

from __future__ import annotations

import html.parser
import json
import os
import posixpath
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from engines.agents.base import BuiltinPlayer, Player
from engines.agents.builtin import builtin_agent
from engines.gbg import ENGINE_VERSION, presets
from engines.gbg.engine import new_deal
from engines.tournament.match import play_builtin_match
from engines.tournament.schedule import Game, preset_game_seed, round_robin
from releases.report import (
    MAX_TEXT_CHARS,
    TEMPLATES,
    choose_runs,
    game_catalogue,
    page,
    render_report,
    replay_views,
    script_json,
)
from tests.releases.support import reference_table

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HOSTILE = '<script>alert(1)</script> {"action": "x"} </script><!-- & \u2028'
HOSTILE_MODEL = "<img src=x onerror=alert(2)>"
BOTS = ("random", "heuristic", "population")


def tiny_corpus(runs: int = 2) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Built-in bots in a round robin on Kuhn and Leduc (the project's own schedule and match
    functions): the match table and the move table."""
    games = [
        Game(name, preset_game_seed(make()), make())
        for name, make in (("kuhn", presets.kuhn), ("leduc", presets.leduc))
    ]
    players: dict[str, Player] = {
        name: BuiltinPlayer(name, builtin_agent(name), model=name) for name in BOTS
    }
    fingerprints = {name: name for name in BOTS}
    rows, moves = [], []
    for match in round_robin(list(BOTS), games, runs, "block-1", fingerprints):
        row, played = play_builtin_match(match, players, fingerprints)
        rows.append(row)
        moves += played
    return pd.DataFrame(rows), pd.DataFrame(moves)


@pytest.fixture(scope="module")
def corpus() -> tuple[pd.DataFrame, pd.DataFrame]:
    return tiny_corpus()


def manifest_for(release_id: str = "gs-0123456789abcdef") -> dict[str, object]:
    return {
        "release_id": release_id,
        "title": "GENSTRAT release",
        "engine_version": ENGINE_VERSION,
        "code_version": "test-code",
        "profile": {"name": "demo"},
        "results": {"counted_matches": 0, "superseded_matches": 0},
        "files": [{"path": "tables/leaderboards.parquet", "role": "table", "bytes": 10}],
    }


class Elements(html.parser.HTMLParser):
    """Every start tag with its attributes, and the text of each ``<script>`` element (by its
    id or source)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: dict[str, str] = {}
        self._in_script = False
        self._script = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self._script = str(dict(attrs).get("id") or dict(attrs).get("src"))
            self.scripts[self._script] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[self._script] += data


def parsed(document: bytes) -> Elements:
    parser = Elements()
    parser.feed(document.decode("utf-8"))
    return parser


def hostile_inputs(
    corpus: tuple[pd.DataFrame, pd.DataFrame],
) -> tuple[dict[str, pd.DataFrame], dict[str, str], dict[str, bytes]]:
    matches, moves = corpus
    moves = moves.copy()
    moves.loc[0, "raw_response"] = HOSTILE
    moves.loc[1, "raw_response"] = "y" * (MAX_TEXT_CHARS + 7)
    board = pd.DataFrame(
        {
            "model": [HOSTILE_MODEL, "heuristic"],
            "alpha": [0.5, -0.5],
            "ci_low": [0.1, -0.9],
            "ci_high": [0.9, -0.1],
            "rank": [1, 2],
            "matches": [12, 12],
            "tier": [1, 2],
        }
    )
    profiles = pd.DataFrame(
        {
            "model": [HOSTILE_MODEL, HOSTILE_MODEL],
            "term": ["intercept", "temporal"],
            "coef": [0.5, 1.25],
            "ci_low": [0.1, 0.2],
            "ci_high": [0.9, 2.0],
            "p_value": [0.01, 0.02],
            "q_value": [None, 0.04],
            "significant": [False, True],
        }
    )
    reference = reference_table()
    tables = {
        "reference_games": reference,
        "complete_pairs": matches,
        "match_moves": moves,
        "leaderboards": board,
        "capability_profiles": profiles,
    }
    texts = {
        f"rulebooks/{n}.md": t
        for n, t in zip(reference["name"], reference["rulebook"], strict=True)
    }
    texts["rulebooks/kuhn.md"] += "\n" + HOSTILE
    images = {"plots/leaderboard.png": b"\x89PNG\r\n\x1a\n"}
    return tables, texts, images


def test_hostile_text_is_escaped_and_every_link_stays_in_the_bundle(
    corpus: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    tables, texts, images = hostile_inputs(corpus)
    files = render_report(tables, texts, images, manifest_for(), integrity=None)
    assert {"index.html", "viewer.html", "report.css", "report.js", "game-kuhn.html"} <= set(files)
    for name, content in files.items():
        assert b"http://" not in content and b"https://" not in content, name
        assert b"<script>alert" not in content and b"<img src=x" not in content, name
        if not name.endswith(".html"):
            continue
        elements = parsed(content)
        for tag, attrs in elements.tags:
            assert not any(key.startswith("on") for key in attrs), (name, tag, attrs)
            if tag == "script":
                assert attrs in (
                    {"src": "report.js"},
                    {"type": "application/json", "id": "deals-data"},
                )
            for key in ("href", "src"):
                target = attrs.get(key)
                if target is None:
                    continue
                assert not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^/", target), (name, target)
                resolved = posixpath.normpath(posixpath.join("report", target.split("#")[0]))
                assert not resolved.startswith(".."), (name, target)
    index = files["index.html"].decode()
    assert html.escape(HOSTILE_MODEL) in index  # in the leaderboard and the profiles
    assert "This release has no <code>tables/per_game_alpha.parquet</code>" in index
    assert html.escape(HOSTILE, quote=True) in files["game-kuhn.html"].decode()
    viewer = parsed(files["viewer.html"])
    data = json.loads(viewer.scripts["deals-data"])
    replies = [m["raw"] for d in data["deals"] for m in d["moves"]]
    assert HOSTILE in replies  # the reply survives the JSON embedding exactly
    cut = next(m for d in data["deals"] for m in d["moves"] if m["raw_cut"])
    assert cut["raw_cut"] == 7 and len(cut["raw"]) == MAX_TEXT_CHARS
    assert "\u2028" not in files["viewer.html"].decode()  # written as an escape inside JSON


def test_a_bare_release_renders_with_a_note_for_each_missing_table_and_identically_twice() -> None:
    reference = reference_table()
    tables = {"reference_games": reference}
    first = render_report(tables, {}, {}, manifest_for())
    assert first == render_report(tables, {}, {}, manifest_for())
    index = first["index.html"].decode()
    for table in ("leaderboards", "capability_profiles"):
        assert f"This release has no <code>tables/{table}.parquet</code>" in index
    assert "nor <code>tables/axis_scores.parquet</code>" in index
    assert "No integrity card was given" in index
    assert "no match table" in first["viewer.html"].decode()
    kuhn = first["game-kuhn.html"].decode()  # rendered from the spec: no rulebook files given
    assert "Rendered from the game&#x27;s spec" in kuhn and "# Rulebook: kuhn" in kuhn
    with pytest.raises(ValueError, match="max_deals"):
        render_report(tables, {}, {}, manifest_for(), max_deals=-1)


def test_replay_recovers_what_each_seat_saw_and_stops_where_a_transcript_diverges(
    corpus: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    matches, moves = corpus
    match = matches.loc[matches["game"] == "leduc"].iloc[0]
    transcript = moves.loc[moves["match_id"] == match["match_id"]].to_dict("records")
    spec = presets.leduc()
    replay = replay_views(spec, int(match["play_seed"]), transcript)
    assert replay.problem is None and len(replay.views) == len(transcript)
    state = new_deal(spec, int(match["play_seed"]))
    alice, bob = (state.observation(seat) for seat in (0, 1))
    assert replay.views[0][0]["hand"] == alice["hand"] and replay.views[0][1]["hand"] == bob["hand"]
    assert replay.views[0][0]["to_act"] and not replay.views[0][1]["to_act"]
    assert any("wins" in line or "folds" in line for line in replay.final[0]["events"])
    broken = [dict(transcript[0], action="no such action"), *transcript[1:]]
    stopped = replay_views(spec, int(match["play_seed"]), broken)
    assert stopped.problem is not None and stopped.problem.startswith("move 1:")
    assert len(stopped.views) == 1


def test_the_viewer_embeds_whole_runs_round_robin_within_its_bound(
    corpus: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    matches, moves = corpus
    tables = {"reference_games": reference_table(), "complete_pairs": matches}
    games = game_catalogue(tables, {})
    runs = choose_runs(matches, games, max_deals=6)
    assert sum(len(run) for run in runs) == 6 and all(len(run) == 2 for run in runs)
    # every game before a game's second pairing: kuhn, leduc, then kuhn's second pairing
    assert [run[0]["game"] for run in runs] == ["kuhn", "leduc", "kuhn"]
    assert all(run[0]["run_id"] == run[1]["run_id"] for run in runs)
    files = render_report({**tables, "match_moves": moves}, {}, {}, manifest_for(), max_deals=5)
    data = json.loads(parsed(files["viewer.html"]).scripts["deals-data"])
    assert len(data["deals"]) == 4 and data["total"] == len(matches)
    assert "4 of the 24 recorded deals" in files["viewer.html"].decode()
    assert script_json("</script>") == '"\\u003c/script\\u003e"'


# ---------------------------------------------------------------------------------------------
# The pages in headless Chromium.


def chromium(url: str, profile: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """Headless Chromium on ``url`` (console messages on stderr)."""
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            *options,
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        start_new_session=True,
    )


def look(url: str, shot: Path, profile: Path, height: int = 1400) -> str:
    """The page's DOM after its script ran; a screenshot into ``shot``. Fails on a console
    error, a refused load (Content-Security-Policy) or an error the page's sink recorded."""
    dom = chromium(url, profile, "--dump-dom")
    chromium(url, profile, f"--window-size=1400,{height}", f"--screenshot={shot}")
    console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line or "Refused" in line]
    assert not console, console
    assert 'data-js="ready"' in dom.stdout, dom.stdout[-2000:]
    assert "data-js-errors" not in dom.stdout
    assert re.search(r'<div id="report-errors" class="errors" hidden="">\s*</div>', dom.stdout)
    from PIL import Image

    image = Image.open(shot).convert("RGB")
    assert image.size == (1400, height)
    colours = image.getcolors(maxcolors=1_000_000) or []
    assert len(colours) > 100  # text, tables and figures, not a blank canvas
    white = max(count for count, colour in colours if colour == (255, 255, 255))
    assert white < 0.97 * height * 1400
    return dom.stdout


@pytest.mark.slow
def test_the_pages_render_in_headless_chromium(tmp_path: Path) -> None:
    from engines.stats.analysis import AnalysisConfig, analyse
    from quality.release_gates import release_gates
    from releases.bundle import ReleaseContext, build_bundle
    from releases.contents import release_tables, rulebook_texts

    if CHROMIUM is None:
        raise AssertionError("chromium is not installed: run 'make browser' (it installs it)")
    matches, moves = tiny_corpus()
    moves.loc[0, "raw_response"] = HOSTILE
    result = analyse(matches, rng=np.random.default_rng(0), config=AnalysisConfig(n_boot=50))
    figures = result.plots()
    released, results = release_tables(
        {
            "reference_games": reference_table(),
            "complete_pairs": matches,
            "match_moves": moves,
            "leaderboards": result.tables["leaderboard"],
            "per_game_alpha": result.tables["per_game_alpha"].reset_index(),
        }
    )
    gates = release_gates(released, engine_version=ENGINE_VERSION, max_fallback_rate=0.01)
    images = {f"plots/{name}.png": png for name, png in figures.items()}
    context = ReleaseContext(profile="test", results=results, code_version="test-code")
    folder = build_bundle(
        released, rulebook_texts(released), images, context, gates=gates, root=tmp_path / "store"
    )

    # The report from the bundle as a reader has it (what build_bundle will call in place).
    manifest = json.loads((folder / "manifest.json").read_text())
    tables = {p.stem: pd.read_parquet(p) for p in sorted((folder / "tables").glob("*.parquet"))}
    texts = {
        e["path"]: (folder / e["path"]).read_text()
        for e in manifest["files"]
        if e["role"] == "text"
    }
    shipped = {
        e["path"]: (folder / e["path"]).read_bytes()
        for e in manifest["files"]
        if e["role"] == "image"
    }
    integrity = json.loads((folder / "integrity.json").read_text())
    files = render_report(tables, texts, shipped, manifest, integrity=integrity)
    for name, content in files.items():
        (folder / "report" / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / "report" / name).write_bytes(content)

    shots = tmp_path / "shots"
    shots.mkdir()
    profile = tmp_path / "chromium-profile"
    report = (folder / "report").as_uri()

    index = look(f"{report}/index.html", shots / "index.png", profile, 2200)
    for bot in BOTS:
        assert f"<strong>{bot}</strong>" in index  # the leaderboard's rows
    assert 'src="../plots/leaderboard.png"' in index and "per_game_heatmap.png" in index
    assert 'href="game-leduc.html"' in index
    assert re.search(r"\d+ of \d+ gates passed: ", index)  # data gates + redaction
    assert "This release has no <code>tables/capability_profiles.parquet</code>" in index

    game = look(f"{report}/game-kuhn.html", shots / "game-kuhn.png", profile)
    assert "# Rulebook" in game and "No axis scores for this game" in game

    deal = str(moves.loc[0, "match_id"])
    n_moves = int((moves["match_id"] == deal).sum())
    viewer = look(f"{report}/viewer.html#deal={deal}&step=0", shots / "viewer.png", profile)
    assert f'data-deal="{deal}"' in viewer and 'data-step="0"' in viewer
    move_list = re.search(r'<ol id="move-list">(.*?)</ol>', viewer, re.S)
    assert move_list is not None
    assert move_list.group(1).count("<li") == n_moves + 1  # the moves and the end of the deal
    assert html.escape(HOSTILE, quote=False).split("\u2028")[0] in viewer  # shown as text
    assert "Alice's view" in viewer and "What Bob has seen" in viewer
    assert 'class="chip taken"' in viewer

    keep = os.environ.get("GENSTRAT_REPORT_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for shot in shots.iterdir():
            shutil.copy(shot, Path(keep) / shot.name)


def test_the_cost_block_shows_llm_usage_and_is_absent_for_bots(
    corpus: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    from releases.contents import plot_images

    matches, _moves = corpus
    board = pd.DataFrame({"model": list(BOTS), "alpha": [-1.0, 0.5, 0.5], "rank": [3, 1, 2]})
    bots = {"complete_pairs": matches, "leaderboards": board}
    assert "strength_cost" not in str(sorted(plot_images(bots)))
    plain = render_report(bots, {}, {}, manifest_for())["index.html"]
    assert b"Strength and cost" not in plain  # a release of bots is unchanged
    priced = matches.copy()
    seat = priced["alice"] == "heuristic"
    priced.loc[seat, "cost_usd_alice"] = 0.25
    priced.loc[seat, "input_tokens_alice"] = 1000
    priced.loc[seat, "calls_alice"] = priced.loc[seat, "moves_alice"]
    tables = {"complete_pairs": priced, "leaderboards": board}
    images = plot_images(tables)
    assert {"plots/strength_cost.png", "plots/strength_cost.svg"} <= set(images)
    index = render_report(tables, {}, images, manifest_for())["index.html"]
    assert b"Strength and cost" in index and b"../plots/strength_cost.png" in index
    assert f"{0.25 * int(seat.sum()):.4f}".encode() in index


def test_the_per_family_section_shows_each_familys_metric_and_the_summary() -> None:
    """Issue 46: the openspiel group's family_ratings and family_summary, each family under its
    own metric; absent from a release without them."""
    ratings = pd.DataFrame(
        {
            "family": ["chess", "chess", "universal_poker", "universal_poker"],
            "unit": ["result", "result", "chips", "chips"],
            "metric": ["elo", "elo", "bb_per_100", "bb_per_100"],
            "model": ["stockfish", "random", "mcts", "random"],
            "value": [412.5, 0.0, 1900.0, -1900.0],
            "ci_low": [300.0, 0.0, 1500.0, -2300.0],
            "ci_high": [520.0, 0.0, 2300.0, -1500.0],
            "rank": [1, 2, 1, 2],
            "deals": [40, 40, 40, 40],
            "anchor": ["random", "random", None, None],
            "z": [1.0, -1.0, 1.0, -1.0],
            "games": ["openspiel:chess"] * 2 + ["openspiel:hunl"] * 2,
        }
    )
    summary = pd.DataFrame(
        {
            "model": ["mcts", "stockfish", "random"],
            "summary": [1.0, 1.0, -1.0],
            "rank": [1, 1, 3],
            "families": [1, 1, 2],
            "family_list": ["universal_poker", "chess", "chess, universal_poker"],
        }
    )
    tables = {"family_ratings": ratings, "family_summary": summary}
    index = render_report(tables, {}, {}, manifest_for())["index.html"].decode()
    assert '<h2 id="families">Per game family</h2>' in index
    assert "<h3>chess: Elo</h3>" in index and "<h3>universal_poker: BB/100</h3>" in index
    assert "412.5" in index and "[1500.0, 2300.0]" in index and "-1900.0" in index
    assert "no fit reads two families" in index and "chess, universal_poker" in index
    # a release of the group holds one unit; tables put together across units are flagged
    assert "counted in 2 units (chips, result), so its numbers mix units" in index
    chess = {"family_ratings": ratings.loc[ratings["family"] == "chess"]}
    one = render_report(chess, {}, {}, manifest_for())["index.html"].decode()
    assert "they are all counted in one unit (result)." in one and "Across families" not in one
    plain = render_report({}, {}, {}, manifest_for())["index.html"].decode()
    assert "Per game family" not in plain


def test_the_viewer_stops_at_a_move_the_match_ended_on_unanswered() -> None:
    """A move recorded without an action (the request that ended the match, issue 41) ends the
    replay with a note, not an error about an illegal action."""
    from engines.gbg import new_deal, presets
    from releases.report import replay_views

    spec = presets.kuhn()
    state = new_deal(spec, 7)
    first = state.legal_actions()[0]
    moves: list[dict[str, Any]] = [
        {"seat": "alice", "action": first, "legal_actions": list(state.legal_actions())},
        {"seat": "bob", "action": None, "legal_actions": None},
    ]
    replay = replay_views(spec, 7, moves)
    assert len(replay.views) == 2
    assert replay.problem == "move 2: unanswered, the match ended here"


class PageText(html.parser.HTMLParser):
    """The start tags of a page and the text of its ``<title>`` and ``<h1>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.texts: dict[str, str] = {"title": "", "h1": ""}
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._open = tag if tag in self.texts else None

    def handle_endtag(self, tag: str) -> None:
        self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self.texts[self._open] += data


HOSTILE_NAMES = (
    "</title><script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "</code></p></main><a href='javascript:alert(1)'>x</a>",
    "{{ 7 * 7 }}{% raw %}",
    "&amp; &lt;b&gt;",
)


@settings(max_examples=60, deadline=None)
@given(
    game=st.one_of(st.sampled_from(HOSTILE_NAMES), st.text(max_size=40)),
    player=st.one_of(st.sampled_from(HOSTILE_NAMES), st.text(max_size=40)),
)
def test_the_page_template_escapes_a_hostile_game_and_player_name(game: str, player: str) -> None:
    """The page template (Jinja2, autoescape) writes a game's name in the title and heading and
    any context value (here the code version, a player's name in its place) as text: the page
    has exactly the template's elements, and the text reads back as given."""
    played_by = TEMPLATES.from_string("<p>played by <code>{{ player }}</code></p>")
    body = Markup(played_by.render(player=player))
    document = page(f"Game {game}", body, {"release_id": "gs-1", "code_version": player})
    plain = page("Game", Markup(played_by.render(player="x")), {"release_id": "gs-1"})
    found, expected = PageText(), PageText()
    found.feed(document.decode("utf-8"))
    expected.feed(plain.decode("utf-8"))
    assert found.tags == expected.tags
    assert found.texts["h1"] == f"Game {game}"
    assert found.texts["title"] == f"Game {game} · GENSTRAT gs-1"
    assert html.escape(player, quote=True) in document.decode("utf-8")
