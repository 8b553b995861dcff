"""``genstrat axes``: what a user types, what they get back."""

from __future__ import annotations

import json

import pytest

from engines.axes.names import AXES
from engines.gbg import presets
from pipelines.cli import main


def test_axes_json_has_the_five_axes_and_the_diagnostics(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["axes", "kuhn", "--json", "--workers", "1"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert list(data["axes"]) == list(AXES)
    assert data["spec_hash"] == presets.kuhn().spec_hash and data["budget"] == "quick"
    assert set(data["sampling_error"]) == set(AXES)
    assert data["diagnostics"]["std_g"] > 0
    assert data["diagnostics"]["decisions"] == [12, 12]
    assert "rerun" not in data
    assert "replays and search" in captured.err  # progress goes to stderr


def test_axes_of_a_generated_seed_with_the_rerun(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["axes", "4", "--rerun", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("gbg-4")
    assert "rerun" in out.splitlines()[1]
    for name in AXES:
        assert name in out


def test_axes_repeats_itself_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for _ in range(2):
        assert main(["axes", "leduc", "--json", "--workers", "1"]) == 0
        data = json.loads(capsys.readouterr().out)
        data["diagnostics"].pop("seconds")
        outputs.append(data)
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["axes", "not-a-seed"], "'not-a-seed' is not a game"),
        (["axes", "kuhn", "--workers", "0"], "--workers must be at least 1"),
        (["axes", "kuhn", "--seed", "-1"], "--seed must be a non-negative integer"),
    ],
)
def test_mistakes_are_one_clear_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
