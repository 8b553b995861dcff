"""The report's templates (``releases/templates``, rendered by ``releases.report``): a hostile
string put in every place a release can carry text (a model's name, a game family, a game's
name and match token, a rulebook, a gate, a file of the manifest, the profile, a reply) reads
back as the same text in every section, as escaped bytes, and never as markup, a template
expression or the end of the viewer's JSON element. And the whitespace rule that lets the
templates be written one element a line."""

from __future__ import annotations

import html
import html.parser
import json
import re

import markupsafe
import pandas as pd
import pytest

from engines.gbg import presets
from engines.gbg.spec import GameSpec
from releases.report import JOINED, TEMPLATES, html_text, render_report
from tests.releases.support import reference_table
from tests.releases.test_report import manifest_for, tiny_corpus

HOSTILE = '</script><script>alert("x")</script>\'&\'{{ "pwn" ~ "ed" }}'
"""Closes a script, opens one, both quotes, an ampersand and a Jinja2 expression (which would
render ``pwned``); short enough for a game's name (60 characters)."""
INJECTED = "pwned"
SECTIONS = ("summary", "leaderboard", "families", "cost", "anchored", "editions", "per-game",
            "profiles", "games", "figures", "integrity", "files")  # fmt: skip
SCRIPTS = ({"type": "application/json", "id": "deals-data"}, {"src": "report.js"})


class Page(html.parser.HTMLParser):
    """A page as a browser would read it: its start tags, the text of ``<main>`` per section
    (``summary`` before the first ``<h2 id>``), the ``<title>`` and the scripts' contents."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.sections: dict[str, str] = {}
        self.title = ""
        self.scripts: dict[str, str] = {}
        self._where: str | None = None
        self._script: str | None = None
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if tag == "main":
            self._where = "summary"
        elif tag == "h2" and self._where is not None and found.get("id"):
            self._where = str(found["id"])
        elif tag == "script":
            self._script = str(found.get("id") or found.get("src"))
            self.scripts[self._script] = ""
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        if tag == "main":
            self._where = None
        elif tag == "script":
            self._script = None
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self.scripts[self._script] += data
        elif self._in_title:
            self.title += data
        elif self._where is not None:
            self.sections[self._where] = self.sections.get(self._where, "") + data


def read(document: bytes) -> Page:
    page = Page()
    page.feed(document.decode("utf-8"))
    page.close()
    return page


def hostile_release() -> tuple[dict[str, pd.DataFrame], dict[str, str], dict[str, bytes]]:
    """The tiny corpus with ``heuristic`` renamed to :data:`HOSTILE` (priced, so that it has a
    cost row), a played game whose token is :data:`HOSTILE`, Kuhn named :data:`HOSTILE`, and
    every other table the index shows carrying it."""
    matches, moves = tiny_corpus()
    for column in ("alice", "bob"):
        matches[column] = matches[column].replace("heuristic", HOSTILE)
    moves["player"] = moves["player"].replace("heuristic", HOSTILE)
    moves.loc[0, "raw_response"] = HOSTILE
    priced = matches["alice"] == HOSTILE
    matches.loc[priced, "cost_usd_alice"] = 0.25
    matches.loc[priced, "input_tokens_alice"] = 1000
    matches.loc[priced, "calls_alice"] = matches.loc[priced, "moves_alice"]
    leduc = matches["game"] == "leduc"
    matches.loc[leduc & (matches["run_index"] == matches["run_index"].min()), "game"] = HOSTILE

    reference = reference_table()
    kuhn = reference["name"] == "kuhn"
    named = GameSpec.from_json(presets.kuhn().model_copy(update={"name": HOSTILE}).canonical_json())
    reference.loc[kuhn, "spec_json"] = named.canonical_json()
    reference.loc[kuhn, "spec_hash"] = named.spec_hash
    matches.loc[matches["game"] == "kuhn", "spec_hash"] = named.spec_hash

    models = ["random", HOSTILE, "population"]
    tables = {
        "reference_games": reference,
        "complete_pairs": matches,
        "match_moves": moves,
        "leaderboards": pd.DataFrame(
            {"model": models, "alpha": [0.5, 0.0, -0.5], "rank": [1, 2, 3], "tier": [1, 1, 2]}
        ),
        "per_game_alpha": pd.DataFrame(
            {
                "game": ["kuhn", "kuhn", HOSTILE],
                "model": [HOSTILE, "random", HOSTILE],
                "alpha": [0.25, -0.25, 0.0],
            }
        ),
        "capability_profiles": pd.DataFrame(
            {
                "model": [HOSTILE, HOSTILE],
                "term": ["temporal", HOSTILE],
                "coef": [1.0, -1.0],
                "ci_low": [0.5, -2.0],
                "ci_high": [1.5, 0.0],
                "p_value": [0.01, 0.2],
                "q_value": [0.02, 0.3],
                "significant": [True, False],
            }
        ),
        "family_ratings": pd.DataFrame(
            {
                "family": [HOSTILE, HOSTILE],
                "unit": [HOSTILE, HOSTILE],
                "metric": [HOSTILE, HOSTILE],
                "model": [HOSTILE, "random"],
                "value": [1.0, -1.0],
                "ci_low": [0.0, -2.0],
                "ci_high": [2.0, 0.0],
                "rank": [1, 2],
                "deals": [4, 4],
                "z": [1.0, -1.0],
                "games": [HOSTILE, HOSTILE],
            }
        ),
        "family_summary": pd.DataFrame(
            {
                "model": [HOSTILE],
                "summary": [1.0],
                "rank": [1],
                "families": [1],
                "family_list": [HOSTILE],
            }
        ),
        "anchored_scales": pd.DataFrame(
            {
                "field": [HOSTILE],
                "rank": [1],
                "model": [HOSTILE],
                "status": [HOSTILE],
                "rating": [1.0],
                "rating_low": [0.0],
                "rating_high": [2.0],
                "score": [60.0],
                "score_low": [50.0],
                "score_high": [70.0],
                "elo": [10.0],
                "elo_low": [0.0],
                "elo_high": [20.0],
                "reason": [HOSTILE],
            }
        ),
        "episode_adaptation": pd.DataFrame(
            {
                "quantity": ["change"],
                "game": [HOSTILE],
                "player": [HOSTILE],
                "opponent": [HOSTILE],
                "estimate": [0.5],
                "ci_low": [0.0],
                "ci_high": [1.0],
                "episode_pairs": [3],
            }
        ),
        "program_track": pd.DataFrame(
            {
                "rank": [1],
                "author": [HOSTILE],
                "game": [HOSTILE],
                "authoring_runs": [1],
                "admitted": [1],
                "failed": [0],
                "repair_turns": [0],
                "score": [50.0],
                "ci_low": [40.0],
                "ci_high": [60.0],
                "reason": [HOSTILE],
            }
        ),
        "edition_scores": pd.DataFrame(
            {
                "model": [HOSTILE, HOSTILE],
                "edition": [1, 2],
                "score": [40.0, 45.0],
                "role": ["entrant", "entrant"],
            }
        ),
        "edition_saturation": pd.DataFrame(
            {
                "edition": [1],
                "players": [2],
                "tiers": [1],
                "spread": [1.0],
                "swept_games": [0],
                "games": [4],
                "action": [HOSTILE],
                "reasons": [HOSTILE],
            }
        ),
    }
    texts = {
        f"rulebooks/{n}.md": t
        for n, t in zip(reference["name"], reference["rulebook"], strict=True)
    }
    texts["rulebooks/kuhn.md"] += "\n" + HOSTILE
    images = {"plots/leaderboard.png": b"\x89PNG\r\n\x1a\n", f"plots/{HOSTILE}.png": b"\x89PNG"}
    return tables, texts, images


def hostile_manifest() -> dict[str, object]:
    manifest = manifest_for()
    manifest.update(
        title=HOSTILE,
        engine_version=HOSTILE,
        code_version=HOSTILE,
        profile={"name": HOSTILE},
        files=[{"path": HOSTILE, "role": HOSTILE, "bytes": 1, "sha256": HOSTILE}],
    )
    return manifest


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    tables, texts, images = hostile_release()
    integrity = {"gates": {HOSTILE: {"passed": False, "message": HOSTILE, "figures": [HOSTILE]}}}
    return render_report(tables, texts, images, hostile_manifest(), integrity=integrity)


def test_every_section_of_the_index_shows_the_hostile_text_as_text(files: dict[str, bytes]) -> None:
    index = read(files["index.html"])
    assert set(SECTIONS) <= set(index.sections)
    for section in SECTIONS:
        assert HOSTILE in index.sections[section], section
    assert index.title == f"{HOSTILE} · GENSTRAT gs-0123456789abcdef"
    # escaped bytes: the bodies as html.escape writes them, the shell as MarkupSafe does
    document = files["index.html"].decode("utf-8")
    assert html.escape(HOSTILE, quote=True) in document
    assert f"<title>{markupsafe.escape(HOSTILE)} · " in document


def test_a_game_page_shows_its_hostile_token_name_and_rulebook_as_text(
    files: dict[str, bytes],
) -> None:
    kuhn = read(files["game-kuhn.html"])
    assert kuhn.title.startswith(f"Game kuhn ({HOSTILE}) · ")
    assert kuhn.sections["rulebook"].rstrip().endswith(HOSTILE)
    played = [name for name in files if name.startswith("game-") and "script" in name]
    assert len(played) == 1  # the played game whose token is hostile, its label a safe slug
    assert re.fullmatch(r"game-[A-Za-z0-9._-]+\.html", played[0])
    token = read(files[played[0]])
    assert f"match token{HOSTILE}" in token.sections["summary"]


def test_no_page_holds_hostile_markup_or_an_evaluated_expression(files: dict[str, bytes]) -> None:
    for name, content in files.items():
        assert INJECTED.encode() not in content, name
        assert b"<script>alert" not in content, name
        if not name.endswith(".html"):
            continue
        page = read(content)
        scripts = [attrs for tag, attrs in page.tags if tag == "script"]
        expected = list(SCRIPTS) if name == "viewer.html" else [SCRIPTS[1]]
        assert scripts == expected, name
        for tag, attrs in page.tags:
            assert not any(key.startswith("on") for key in attrs), (name, tag, attrs)
        # the templates' HTML is compact: no line break outside <pre> and the deals' JSON
        body = content.decode("utf-8").split("<main>", 1)[1].split("</main>", 1)[0]
        body = re.sub(r"<pre[^>]*>.*?</pre>|<script.*?</script>", "", body, flags=re.S)
        assert "\n" not in body.strip(), name


def test_the_viewer_json_holds_the_hostile_text_exactly_and_cannot_end_its_element(
    files: dict[str, bytes],
) -> None:
    viewer = read(files["viewer.html"])
    raw = viewer.scripts["deals-data"]
    assert "<" not in raw and ">" not in raw and "&" not in raw
    data = json.loads(raw)
    replies = [move["raw"] for deal in data["deals"] for move in deal["moves"]]
    assert HOSTILE in replies
    assert HOSTILE in {deal["alice"] for deal in data["deals"]} | {d["bob"] for d in data["deals"]}
    assert HOSTILE in {deal["game"] for deal in data["deals"]}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # a break next to a tag goes; between two words it is one space
        ("<p>\n  two\n  words\n</p>\n", "<p>two words</p>"),
        # next to a value or a block tag it goes too: a space that must stay is on its line
        ("<p>\n  in {{ x }}\n  {% if x %}!{% endif %}\n</p>", "<p>in &lt;x&gt;!</p>"),
        ("a\n{{ x }}\nb", "a&lt;x&gt;b"),
    ],
)
def test_a_joined_template_drops_line_breaks_by_jsx_rule(source: str, expected: str) -> None:
    joined = TEMPLATES.from_string(JOINED + " -#}\n" + source).render(x="<x>")
    assert joined == expected
    assert TEMPLATES.from_string(source).render(x="<x>") != expected  # others: as written


def test_values_are_escaped_as_the_report_always_wrote_them() -> None:
    expected = "&lt;a href=&#x27;x&#x27;&gt;&quot;&amp;&quot;&lt;/a&gt;"
    assert html_text("<a href='x'>\"&\"</a>") == expected
    assert html_text(None) == "–" and html_text(float("nan")) == "–"
    assert html_text(markupsafe.Markup("<b>kept</b>")) == "<b>kept</b>"
    rendered = TEMPLATES.from_string("{{ v }}|{{ v | e }}").render(v="'\"")
    assert rendered == "&#x27;&quot;|&#39;&#34;"  # bodies | the page shell
