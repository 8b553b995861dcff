"""``genstrat tournament plan``: the estimate as JSON and text, budgets, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipelines.cli import main

ROSTER = """players:
  - {name: bot, kind: builtin, agent: random}
  - name: claude
    kind: anthropic
    model: c
    price: {input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3}
    max_usd: %s
  - name: gpt
    kind: openai
    model: g
    price: {input_per_mtok: 2, output_per_mtok: 8}
    expect: {reply_tokens: 40}
"""


def test_plan_json_names_every_model_and_the_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    roster = tmp_path / "r.yaml"
    roster.write_text(ROSTER % "1000")
    code = main(["tournament", "plan", "--roster", str(roster), "--profile", "paper",
                 "--games", "kuhn,leduc", "--runs", "2", "--json"])  # fmt: skip
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["profile"] == "paper" and report["protocol"] == "paper"
    assert report["matches"] == 3 * 2 * 2 * 2  # 3 pairs, 2 games, 2 runs, 2 deals
    assert set(report["models"]) == {"claude", "gpt"}
    gpt = report["models"]["gpt"]
    assert gpt["matches"] == 16
    assert gpt["output_tokens"] == pytest.approx(40 * gpt["moves"], abs=40)  # (rounding)
    # uncalibrated under the paper protocol (no rethinks): one request a move is a lower bound
    # (retries), the tokens are not
    assert gpt["basis"] == "game statistics (uncalibrated)"
    assert gpt["lower_bounds"] == ["calls"] and gpt["calls"] == gpt["moves"]
    assert "one answer a move on kuhn" in gpt["assumptions"]  # the paper protocol: no rethink
    low, high = gpt["bounds"]["calls"]
    assert low == gpt["calls"]
    assert high == pytest.approx(7 * gpt["calls"], abs=7)  # up to 6 retries a request
    assert report["calibration"]["matches"] == 0
    total = report["total"]
    # each figure is rounded on its own
    assert abs(total["calls"] - sum(m["calls"] for m in report["models"].values())) <= 1
    assert total["cost_usd"] == pytest.approx(
        sum(m["cost_usd"] for m in report["models"].values()), abs=1e-5
    )
    assert report["extrapolated_to_profile_games"]["matches"] == report["matches"] * 25


def test_plan_text_and_a_budget_passed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    roster = tmp_path / "r.yaml"
    roster.write_text(ROSTER % "0.000001")
    code = main(["tournament", "plan", "--roster", str(roster), "--games", "kuhn", "--runs", "1"])
    captured = capsys.readouterr()
    assert code == 1
    assert "claude" in captured.out and "over budget" in captured.out
    assert "lower bounds: calls" in captured.out and "not calibrated" in captured.out
    assert "passes a budget" in captured.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--profile", "huge"], "unknown profile 'huge'"),
        (["--games", "no-such-game"], "no-such-game"),
        (["--calibration", "/nonexistent/folder"], "no tournament journal there"),
    ],
)
def test_plan_bad_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    roster = tmp_path / "r.yaml"
    roster.write_text(ROSTER % "1")
    code = main(["tournament", "plan", "--roster", str(roster), *args])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_run_under_the_paper_protocol_reports_rates_and_cost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.doubles.scripted_server import ScriptedServer, completion

    with ScriptedServer(lambda r: completion("no idea", prompt_tokens=100)) as server:
        roster = tmp_path / "r.yaml"
        roster.write_text(
            "players:\n  - {name: bot, kind: builtin, agent: random}\n"
            f"  - {{name: llm, kind: openai, model: m, base_url: '{server.url}', "
            "price: {input_per_mtok: 10}}\nrethinks: 2\n"
        )
        code = main(["tournament", "run", "--roster", str(roster), "--games", "kuhn",
                     "--runs", "1", "--out", str(tmp_path / "t"), "--protocol", "paper",
                     "--json", "--quiet"])  # fmt: skip
        calls = len(server.requests)
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    llm = report["per_player"]["llm"]
    assert report["protocol"] == "paper"
    assert llm["rethink_rate"] == 0.0 and llm["fallback_rate"] == 1.0
    assert llm["calls"] == llm["moves"] == calls
    assert llm["input_tokens"] == 100 * calls
    assert llm["cost_usd"] == pytest.approx(100 * calls * 10 / 1e6)
