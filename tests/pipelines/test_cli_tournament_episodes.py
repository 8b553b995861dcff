"""``genstrat tournament run --episodes N`` (issue 41, item 5): multi-hand episodes from the
command line, LLM players included, their moves and costs written beside the hands and equal to
the provider's account; bad choices in one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from pipelines.cli import main
from tests.doubles.planted_server import PlantedModel, PlantedServer


def roster_file(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "roster.yaml"
    path.write_text(
        "players:\n"
        "  - {name: over, kind: builtin, agent: overfolder}\n"
        "  - {name: rnd, kind: builtin, agent: random}\n"
        f"  - {{name: llm, kind: openai, model: llm, base_url: '{url}', "
        "price: {input_per_mtok: 2, output_per_mtok: 8}}\n"
    )
    return path


def test_episodes_from_the_command_line_keep_llm_moves_and_costs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = PlantedModel("llm", skill=0.5, illegal_rate=0.1, latency_s=0.001,
                         input_per_mtok=2, output_per_mtok=8)  # fmt: skip
    with PlantedServer([model]) as server:
        roster = roster_file(tmp_path, server.url)
        code = main(["tournament", "run", "--roster", str(roster), "--games", "kuhn",
                     "--episodes", "2", "--hands", "3", "--against", "over",
                     "--out", str(tmp_path / "e"), "--json"])  # fmt: skip
        account = server.stats()["llm"]
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["hands"] == 2 * 2 * 2 * 3  # players against 'over', pairs, mirrors, hands
    assert report["stopped"] == {} and set(report["status_counts"]) == {"complete"}
    llm = report["usage"]["llm"]
    assert llm["calls"] == account["requests"] > 0
    assert llm["cost_usd"] == pytest.approx(account["cost_usd"])
    moves = pd.read_parquet(tmp_path / "e" / "episode_moves.parquet")
    assert set(moves["player"]) == {"llm"} and moves["cost_usd"].sum() == pytest.approx(
        account["cost_usd"]
    )
    hands = pd.read_parquet(tmp_path / "e" / "hands.parquet")
    assert set(hands["first"]) | set(hands["second"]) == {"over", "rnd", "llm"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "openspiel:chess", "--episodes", "1"], "generated games only"),
        (["--games", "kuhn", "--episodes", "1", "--against", "nobody"], "'nobody' is not"),
        (["--games", "kuhn"], "--runs N is required"),
    ],
)
def test_bad_episode_choices_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    roster = roster_file(tmp_path, "http://127.0.0.1:9/v1")
    code = main(["tournament", "run", "--roster", str(roster), "--out", str(tmp_path / "o"),
                 *args])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
