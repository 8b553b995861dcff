"""The roster file: the README's example validates; errors name the field and echo no value."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest
import yaml

from arena.programs.sandbox import Limits
from arena.roster import (
    ApiEntry,
    BuiltinEntry,
    ProgramEntry,
    ProgramLimits,
    load_roster,
    parse_roster,
    roster_json,
)
from tests.support import REPO_ROOT


def readme_roster() -> str:
    text = (REPO_ROOT / "docs" / "GUIDE.md").read_text()
    block = re.search(r"```yaml\n(players:.*?)```", text, flags=re.DOTALL)
    assert block is not None
    return block.group(1)


def test_the_guide_s_roster_example_is_a_valid_roster(tmp_path: Path) -> None:
    path = tmp_path / "roster.yaml"
    path.write_text(readme_roster())
    roster = load_roster(path)
    assert [p.name for p in roster.players] == ["random", "search-2", "local-llm"]
    search = roster.players[1]
    assert isinstance(search, BuiltinEntry) and search.params == {"depth": 2}
    llm = roster.players[2]
    assert isinstance(llm, ApiEntry)
    assert (llm.model, llm.api_key_env, llm.family, llm.block) == (
        "smollm2",
        "LOCAL_LLM_KEY",
        "smollm2",
        "block-1",
    )
    assert llm.settings == {"temperature": 0, "max_tokens": 64}
    assert roster.rethinks == 1  # K defaults to 1
    assert roster.blocks() == ["block-1"]


def entries(*players: dict[str, object]) -> dict[str, object]:
    return {"players": [{"name": "r", "kind": "builtin", "agent": "random"}, *players]}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (entries({"name": "x", "kind": "gpt"}), "players[1]: Input tag 'gpt'"),
        (entries({"name": "x", "kind": "openai"}), "players[1].model: Field required"),
        (entries({"name": "x", "kind": "builtin", "agent": "alphago"}), "unknown built-in agent"),
        (
            entries({"name": "x", "kind": "builtin", "agent": "search", "params": {"deep": 3}}),
            "takes no parameter 'deep'",
        ),
        (
            entries({"name": "x", "kind": "builtin", "agent": "search", "params": {"depth": "2"}}),
            "parameter 'depth' must be int",
        ),
        (entries({"name": "r", "kind": "builtin", "agent": "heuristic"}), "repeated: r"),
        (entries({"name": "x", "kind": "openai", "model": "m", "temperature": 0}), "temperature"),
        (
            entries({"name": "x", "kind": "openai", "model": "m", "base_url": "ftp://h"}),
            "players[1].base_url",
        ),
        (
            entries(
                {"name": "x", "kind": "anthropic", "model": "m", "response_format": "json_schema"}
            ),
            "anthropic players take no response_format",
        ),
        ({"players": [{"name": "r", "kind": "builtin", "agent": "random"}]}, "players:"),
        ({"players": []}, "players:"),
    ],
)
def test_errors_name_the_field(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_roster(data, "roster.yaml")
    assert message in str(info.value)
    assert str(info.value).startswith("roster.yaml: ")
    assert "\n" not in str(info.value)


def test_a_key_pasted_into_api_key_env_is_refused_without_being_echoed() -> None:
    key = "sk-proj-AbCdEf0123456789"
    data = entries({"name": "x", "kind": "openai", "model": "m", "api_key_env": key})
    with pytest.raises(ValueError) as info:
        parse_roster(data)
    assert "players[1].api_key_env" in str(info.value)
    assert key not in str(info.value)


def test_bad_files_fail_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read roster"):
        load_roster(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("players: [\n  {name: a,,\n")
    with pytest.raises(ValueError, match=r"not valid YAML \(line"):
        load_roster(bad)
    bad.write_text("- just a list\n")
    with pytest.raises(ValueError, match="a roster is a mapping"):
        load_roster(bad)


def test_fingerprints_follow_what_determines_play() -> None:
    def fp(**changes: object) -> str:
        llm: dict[str, object] = {"name": "x", "kind": "openai", "model": "m"} | changes
        return parse_roster(entries(llm)).fingerprint("x")

    base = fp()
    assert fp(family="f", block="b2", price={"input_per_mtok": 3}) == base  # bookkeeping only
    assert fp(settings={"temperature": 0.7}) != base
    assert fp(model="m2") != base
    assert fp(response_format="json_object") != base
    assert fp(rethinks=3) != base


def test_roster_json_records_key_names_only() -> None:
    roster = parse_roster(
        entries({"name": "x", "kind": "gemini", "model": "g", "api_key_env": "GEMINI_API_KEY"})
    )
    text = roster_json(roster)
    assert '"api_key_env":"GEMINI_API_KEY"' in text
    assert roster.limits("anything").concurrency == 8


# --- strategy programs (kind: program) ---------------------------------------------------------

PROGRAM = "def act(observation, legal_actions, rng):\n    return legal_actions[0]\n"


def program_roster(folder: Path, **changes: object) -> Path:
    """A roster file in ``folder`` with a built-in and the program ``prog`` (at programs/p.py)."""
    (folder / "programs").mkdir(exist_ok=True)
    program = folder / "programs" / "p.py"
    if not program.exists():
        program.write_text(PROGRAM)
    entry = {"name": "prog", "kind": "program", "path": "programs/p.py"} | changes
    path = folder / "roster.yaml"
    path.write_text(yaml.safe_dump(entries(entry)))
    return path


def test_the_guide_s_program_example_is_a_valid_roster(tmp_path: Path) -> None:
    text = (REPO_ROOT / "docs" / "GUIDE.md").read_text()
    block = re.search(r"```yaml\n(players:\n(?:(?!```).)*kind: program.*?)```", text, re.DOTALL)
    assert block is not None
    (tmp_path / "programs").mkdir()
    (tmp_path / "programs" / "cautious.py").write_text(PROGRAM)
    path = tmp_path / "roster.yaml"
    path.write_text(block.group(1))
    roster = load_roster(path)
    program = next(p for p in roster.players if isinstance(p, ProgramEntry))
    assert program.path == tmp_path / "programs" / "cautious.py"
    assert program.limits.move_seconds == 2


def test_a_program_path_is_read_from_the_roster_folder_or_the_current_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roster = load_roster(program_roster(tmp_path))
    entry = roster.player("prog")
    assert isinstance(entry, ProgramEntry)
    assert entry.path == tmp_path / "programs" / "p.py"
    assert entry.code_sha256 == hashlib.sha256(PROGRAM.encode()).hexdigest()
    assert entry.limits == ProgramLimits()  # defaults: the sandbox's
    assert entry.sandbox_limits() == Limits()
    monkeypatch.chdir(tmp_path / "programs")
    data = entries({"name": "prog", "kind": "program", "path": "p.py"})
    assert parse_roster(data).player("prog") == entry
    assert parse_roster(json.loads(roster_json(roster))) == roster  # absolute path, same code


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"path": "programs/missing.py"}, "players[1].path: no strategy program file at "),
        ({"path": "programs"}, "players[1].path: no strategy program file at "),
        ({"code_sha256": "0" * 64}, "players[1].code_sha256: "),
        ({"code_sha256": "abc"}, "players[1].code_sha256: String should match pattern"),
        ({"limits": {"move_seconds": 0}}, "players[1].limits.move_seconds: "),
        ({"limits": {"memory_mb": 1}}, "players[1].limits.memory_mb: "),
        ({"limits": {"cpu_seconds": 0}}, "players[1].limits.cpu_seconds: "),
        ({"limits": {"threads": 2}}, "players[1].limits.threads: Extra inputs"),
        ({"agent": "random"}, "players[1].agent: Extra inputs"),
    ],
)
def test_program_errors_name_the_field(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError) as info:
        load_roster(program_roster(tmp_path, **changes))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_program_is_one_line_naming_the_field(tmp_path: Path) -> None:
    path = program_roster(tmp_path)
    (tmp_path / "programs" / "p.py").chmod(0)
    with pytest.raises(ValueError, match=r"players\[1\]\.path: cannot read .*Permission denied"):
        load_roster(path)


def test_a_program_edited_after_the_roster_was_recorded_is_refused(tmp_path: Path) -> None:
    roster = load_roster(program_roster(tmp_path))
    (tmp_path / "programs" / "p.py").write_text(PROGRAM + "# edited\n")
    with pytest.raises(ValueError, match=r"players\[1\]\.code_sha256: .* has changed"):
        parse_roster(json.loads(roster_json(roster)))


def test_a_program_fingerprint_follows_its_code_and_limits(tmp_path: Path) -> None:
    def fp(**changes: object) -> str:
        return load_roster(program_roster(tmp_path, **changes)).fingerprint("prog")

    base = fp()
    assert fp(family="f", block="b2") == base  # bookkeeping only
    assert fp(limits={"move_seconds": 1}) != base
    assert fp(limits={"memory_mb": 256}) != base
    (tmp_path / "copy.py").write_text(PROGRAM)
    assert fp(path="copy.py") == base  # the same code elsewhere plays the same
    (tmp_path / "programs" / "p.py").write_text(PROGRAM.replace("[0]", "[-1]"))
    assert fp() != base  # editing the program plays new matches


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{b}: &{b} [{', '.join(['*' + a] * 10)}]\n"
                for a, b in zip("abcdefgh", "bcdefghi", strict=True)
            )
            + "players:\n  - {name: r, kind: builtin, agent: random, settings: {x: *i}}\n",
            "aliases expand past 100,000 values",
        ),
        ("players: " + "[" * 200 + "]" * 200 + "\n", "nested deeper than 64 levels"),
        ("players: &p [*p]\n", "refers to itself"),
    ],
)
def test_hostile_yaml_is_refused_in_one_line_before_it_is_built(
    tmp_path: Path, text: str, reason: str
) -> None:
    path = tmp_path / "roster.yaml"
    path.write_text(text)
    with pytest.raises(ValueError) as caught:
        load_roster(path)
    message = str(caught.value)
    assert reason in message and "\n" not in message and str(path) in message


def test_yaml_anchors_within_bounds_still_work(tmp_path: Path) -> None:
    path = tmp_path / "roster.yaml"
    path.write_text(
        "players:\n"
        "  - {name: a, kind: &k builtin, agent: &g random}\n"
        "  - {name: b, kind: *k, agent: *g}\n"
    )
    roster = load_roster(path)
    assert [p.name for p in roster.players] == ["a", "b"]
