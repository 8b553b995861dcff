"""A release carries no path of the machine that published it and no URL credentials (issue 43,
items 8, 9 and 11).

- item 8: a strategy program's absolute path reached ``tables/roster.parquet`` (``path`` and
  ``roster_json``) and the archive; a release now records the program's file name and its
  ``code_sha256``;
- item 9: ``http://user:pass@host`` in a ``base_url`` reached the roster table and the manifest,
  and the redaction gate let it through; a release now strips the credentials, and the gate
  fails a release that still holds any (or any folder of this machine);
- item 11: a program's crash reason quoting the mount table and the kernel command line reached
  the released ``complete_pairs.error``; the released error now holds no absolute path.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from arena.roster import load_roster
from assets.roster import roster_table
from releases.bundle import build_bundle
from releases.contents import publish_release, release_tables
from releases.store import GateFailed, publish
from tests.releases.support import PASSING, reference_table, sample_inputs

PROGRAM = "def act(observation, legal_actions, rng):\n    return legal_actions[0]\n"
CREDENTIALS = "alice:hunter2-s3cret"
# A path in text, as a reader would spot one: "/" and a letter at the start of a word or after
# "=", ":", a quote or a bracket (this test's own rule, not the scrubber's).
SPOTTED_PATH = re.compile(r"(?:^|[\s=:,|'\"(\[])/[A-Za-z]")


@pytest.fixture
def roster_file(tmp_path: Path) -> Path:
    """A roster with a program under this machine's temporary folder and an endpoint with URL
    credentials (the red team's)."""
    folder = tmp_path / "rosters"
    (folder / "programs").mkdir(parents=True)
    (folder / "programs" / "cautious.py").write_text(PROGRAM)
    path = folder / "roster.yaml"
    path.write_text(
        "players:\n"
        "  - {name: random, kind: builtin, agent: random}\n"
        "  - {name: cautious, kind: program, path: programs/cautious.py}\n"
        "  - name: local-llm\n"
        "    kind: openai\n"
        "    model: smollm2\n"
        f"    base_url: http://{CREDENTIALS}@127.0.0.1:8765/v1\n"
    )
    return path


def every_text(folder: Path) -> str:
    """Every byte of a release folder as text: each file raw, each table decoded, the archive
    unzipped."""
    parts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        raw = path.read_bytes()
        parts.append(raw.decode("utf-8", "replace"))
        if path.suffix == ".parquet":
            parts.append(pd.read_parquet(path).astype(str).to_csv())
        if path.name.endswith(".tar.gz"):
            parts.append(gzip.decompress(raw).decode("utf-8", "replace"))
    return "\n".join(parts)


def test_the_released_roster_names_programs_by_file_and_hash_and_strips_credentials(
    roster_file: Path,
) -> None:
    roster = roster_table(load_roster(roster_file))
    program = roster.set_index("name").loc["cautious"]
    assert Path(str(program["path"])).is_absolute()  # the asset keeps what the tournament needs
    released, _ = release_tables({"roster": roster}, secrets=())
    rows = released["roster"].set_index("name")
    assert rows.loc["cautious", "path"] == "cautious.py"
    assert rows.loc["cautious", "code_sha256"] == program["code_sha256"]
    assert rows.loc["local-llm", "endpoint"] == "http://127.0.0.1:8765/v1"
    players = {p["name"]: p for p in json.loads(rows.loc["random", "roster_json"])["players"]}
    assert players["cautious"]["path"] == "cautious.py"
    assert players["cautious"]["code_sha256"] == program["code_sha256"]
    assert players["local-llm"]["base_url"] == "http://127.0.0.1:8765/v1"
    text = released["roster"].astype(str).to_csv()
    assert str(roster_file.parent) not in text and CREDENTIALS not in text
    assert roster.loc[0, "roster_json"] != released["roster"].loc[0, "roster_json"]  # a copy


def test_a_published_release_holds_no_program_path_and_no_credentials(
    roster_file: Path, tmp_path: Path
) -> None:
    """The whole pipeline's release step: the roster table, its JSON, the manifest's roster
    and the archive hold neither the program's folder nor the endpoint's credentials."""
    tables = {
        "roster": roster_table(load_roster(roster_file)),
        "reference_games": reference_table(),
    }
    published, gates = publish_release(
        tables, {"name": "demo"}, tmp_path / "store", max_fallback_rate=0.01
    )
    assert gates["redaction"].passed
    text = every_text(published.path)
    assert "cautious.py" in text and "127.0.0.1:8765/v1" in text
    assert str(roster_file.parent) not in text and str(tmp_path) not in text
    assert CREDENTIALS not in text and "hunter2" not in text
    manifest = json.loads((published.path / "manifest.json").read_text())
    endpoints = {p["name"]: p.get("endpoint") for p in manifest["roster"]}
    assert endpoints["local-llm"] == "http://127.0.0.1:8765/v1"


def crash_reason() -> str:
    """What the red team's program put in its crash reason: this machine's mount table and
    kernel command line, and the folders of the run (as the sandbox's scrub leaves them: one
    line of at most 300 characters per reason; here the whole texts, longer)."""
    mounts = Path("/proc/self/mountinfo").read_text()[:2000]
    cmdline = Path("/proc/cmdline").read_text()[:1000]
    return (
        f"program 'leaky' crash: RuntimeError: {' '.join(mounts.split())} | {cmdline.strip()} "
        f"| {Path.home()}/.ssh | {Path(__file__).resolve()} | file://{Path.cwd()}/x | "
        f"PATH=/usr/bin:{Path.home()}/bin"
    )


def pairs_with_error(error: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "match_id": ["m1", "m2"],
            "game": ["kuhn", "kuhn"],
            "block": ["b", "b"],
            "alice": ["x", "y"],
            "bob": ["y", "x"],
            "run_index": [0, 0],
            "deal": [0, 0],
            "engine_version": ["1", "1"],
            "margin_alice": [1, -1],
            "status": ["forfeit", "ok"],
            "error": pd.array([error, None], dtype="str"),
        }
    )


def test_the_released_error_text_holds_no_host_path() -> None:
    reason = crash_reason()
    folders = [str(Path.home()), str(Path(__file__).resolve().parents[2]), "/proc", "/dev"]
    assert SPOTTED_PATH.search(reason) and all(f in reason for f in folders)
    released, _ = release_tables({"complete_pairs": pairs_with_error(reason)}, secrets=())
    error = released["complete_pairs"].loc[0, "error"]
    assert error.startswith("program 'leaky' crash: RuntimeError: ")
    assert SPOTTED_PATH.search(error) is None, error
    assert not any(f in error for f in folders), error
    assert "<path>" in error
    assert pd.isna(released["complete_pairs"].loc[1, "error"])  # a missing error stays missing
    assert released["complete_pairs"]["error"].dtype == "str"


@pytest.mark.parametrize(
    ("planted", "finding"),
    [
        (f"see http://{CREDENTIALS}@example.org/v1", "URL credentials"),
        (f"crash at {Path(__file__).resolve()}", "the project folder"),
        (f"crash at {Path.home()}/.ssh/id_rsa", "the home folder"),
        ("written to {tmp}/out.json", "the temporary folder"),
    ],
)
def test_the_redaction_gate_fails_a_bundle_that_leaks_a_host_path_or_credentials(
    tmp_path: Path, planted: str, finding: str
) -> None:
    """Built without the release's scrubbing (the bundle builder takes tables as given), a
    leak fails the redaction gate and publishing refuses it; the card does not repeat it."""
    tables, texts, images, context = sample_inputs()
    leak = planted.format(tmp=tmp_path)
    tables = {**tables, "complete_pairs": pairs_with_error(leak)}
    folder = build_bundle(tables, texts, images, context, gates=PASSING, root=tmp_path / "b")
    card = json.loads((folder / "integrity.json").read_text())
    gate = card["gates"]["redaction"]
    assert not gate["passed"] and "tables/complete_pairs.parquet" in gate["message"]
    assert finding in gate["message"], gate["message"]
    assert leak not in json.dumps(card) and "hunter2" not in json.dumps(card)
    with pytest.raises(GateFailed, match="gate redaction failed"):
        publish(tables, texts, images, context, tmp_path / "store", gates=PASSING)
    assert not list((tmp_path / "store").glob("gs-*"))
