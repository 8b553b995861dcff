"""``genstrat game`` and ``genstrat bench``: what a user types, what they get back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engines.gbg import presets, rulebook
from pipelines.cli import main


def test_show_prints_the_rulebook(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["game", "show", "kuhn"]) == 0
    assert capsys.readouterr().out == rulebook(presets.kuhn())


def test_show_json_carries_the_spec_hash(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["game", "show", "leduc", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["spec_hash"] == presets.leduc().spec_hash
    assert data["spec"]["name"] == "leduc"


def test_show_reads_a_spec_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(presets.example4643().canonical_json(), encoding="utf-8")
    assert main(["game", "show", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["spec_hash"] == presets.example4643().spec_hash


def test_not_a_seed_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["game", "show", "not-a-seed"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("genstrat: error: 'not-a-seed' is not a game")


def test_invalid_spec_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(presets.kuhn().canonical_json())
    data["phases"][1]["raise_cap"] = 0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["game", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "invalid game spec" in err and "phases.1.betting.raise_cap" in err


def test_simulate_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["game", "simulate", "kuhn", "--deals", "3000", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["deals"] == 3000
    # Uniform random Kuhn: 2 or 3 decisions a deal, so 1.0 to 1.5 per player.
    assert 1.0 < stats["mean_decisions_per_player"] < 1.5
    assert stats["phase_reach"] == {"deal": 1.0, "bet": 1.0}
    assert 0.4 < stats["alice_win_rate"] < 0.6


def test_play_in_the_terminal() -> None:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipelines.cli",
            "game",
            "play",
            "leduc",
            "--seed",
            "3",
            "--vs",
            "random",
        ],
        input="rules\nnonsense\n1\n1\n1\n1\n1\n1\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "# Rulebook: leduc" in result.stdout  # 'rules' at the prompt
    assert "not a legal action: 'nonsense'" in result.stderr
    assert "Result: you" in result.stdout


def test_play_stops_cleanly_on_end_of_input() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipelines.cli",
            "game",
            "play",
            "kuhn",
            "--seed",
            "1",
            "--seat",
            "alice",
        ],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "Stopped." in result.stdout


def test_bench_engine_reports_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--deals", "300", "--repeats", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    games = [row["game"] for row in report["compared"]]
    assert games == ["kuhn", "leduc"]
    for row in report["compared"]:
        assert set(row["deals_per_second"]) == {
            "ours",
            "batch",
            "openspiel_python",
            "openspiel_evaluate_bots",
        }
        assert row["ratio_vs_openspiel_python"] > 0
        assert row["batch_ratio_vs_evaluate_bots"] > 0 and row["batch_ratio_vs_ours"] > 0
    solo = [row["game"] for row in report["solo"]]
    assert solo[:2] == ["example4643", "holdem-limit"]
    assert len(solo) == 3 and solo[2].startswith("gbg-")  # the median accepted game
    assert all(row["batch_deals_per_second"] > 0 for row in report["solo"])


def test_a_seed_is_the_game_of_the_profile_s_configuration_unless_config_says_otherwise(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 39, item 7: under the paper profile ``game show 4643`` is the paper
    configuration's game; ``--config`` and ``--style`` name what a user means."""
    from engines.gbg.generator import generate, named_config

    def shown(*args: str) -> str:
        assert main(["game", "show", "4643", *args]) == 0
        return capsys.readouterr().out

    paper, default = generate(4643, named_config("paper")), generate(4643)
    monkeypatch.setenv("GENSTRAT_PROFILE", "paper")
    assert json.loads(shown("--json"))["spec_hash"] == paper.spec_hash
    assert shown() == rulebook(paper, style="paper")
    assert json.loads(shown("--json", "--config", "default"))["spec_hash"] == default.spec_hash
    assert shown("--style", "compact") == rulebook(paper)
    monkeypatch.delenv("GENSTRAT_PROFILE")
    assert json.loads(shown("--json"))["spec_hash"] == default.spec_hash
    config = tmp_path / "harder.yaml"
    config.write_text("complexity: 2.0\n")
    harder = generate(4643, named_config("default").model_copy(update={"complexity": 2.0}))
    assert json.loads(shown("--json", "--config", str(config)))["spec_hash"] == harder.spec_hash


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--config", "papr"], "unknown generation configuration 'papr': give default or paper"),
        (["--config", "/nonexistent/c.json"], "cannot read config file /nonexistent/c.json"),
        (["--style", "fancy"], "invalid choice: 'fancy'"),
    ],
)
def test_a_bad_config_or_style_is_one_line_and_exit_2(
    capfd: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "game", "show", "7", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2  # argparse: usage line + error line
