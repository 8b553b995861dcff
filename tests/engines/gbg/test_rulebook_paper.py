"""The paper-style rulebook (Appendix B): every rule with a worked example, consistent with the
spec by the same gate as the compact style, and the compact style left as it was."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.gbg.generator import PAPER_CONFIG, GenerationConfig, generate
from engines.gbg.presets import example4643, kuhn, leduc
from engines.gbg.rulebook import consistency_errors, rulebook


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^### Phase \d+: .*\(([a-z0-9_]+)\)$", text, flags=re.MULTILINE)
    return {pid: body.split("\n## ")[0] for pid, body in zip(parts[1::2], parts[2::2], strict=True)}


def test_compact_is_the_default_style_and_an_unknown_style_is_refused() -> None:
    spec = leduc()
    assert rulebook(spec) == rulebook(spec, style="compact")
    with pytest.raises(ValueError, match="unknown rulebook style 'verbose'"):
        rulebook(spec, style="verbose")


def test_example_4643_scores_as_the_paper_states() -> None:
    # Section 3: a hand scores the sum of its ranks, +3 for a pair of Js, -3 for each King.
    text = rulebook(example4643(), style="paper")
    assert "scores 32 (13 + 13 + 12; -3 x 2 for K)" in text  # K K Q: 38 - 6
    assert "scores 31 (10 + 10 + 11)" in text  # 10 10 J: no rule applies
    assert "Alice wins the pot" in text
    assert len(text) >= 8_600  # the paper's shortest rulebook


@pytest.mark.parametrize("spec", [kuhn(), leduc(), example4643()], ids=["kuhn", "leduc", "4643"])
def test_every_decision_phase_has_a_worked_example(spec) -> None:  # type: ignore[no-untyped-def]
    text = rulebook(spec, style="paper")
    assert consistency_errors(spec, text) == []
    sections = _sections(text)
    for p in spec.phases:
        assert "Example" in sections[p.id], p.id
    assert len(text) > len(rulebook(spec))


@pytest.mark.parametrize("style", ["paper", "compact"])
def test_low_sum_points_are_stated_as_the_engine_scores_them(style: str) -> None:
    # compiled.metric_key: a low sum's key is -(sum) + points, so points help the holder.
    for seed in range(200):
        spec = generate(seed, PAPER_CONFIG)
        if spec.showdown.metric.kind == "low_sum":
            text = rulebook(spec, style=style)  # type: ignore[arg-type]
            assert "are subtracted from a player's sum" in text
            assert "count against it" not in text
            return
    pytest.fail("no low-sum game in 200 seeds")


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10**9), paper=st.booleans())
def test_paper_style_is_consistent_on_generated_games(seed: int, paper: bool) -> None:
    spec = generate(seed, PAPER_CONFIG if paper else GenerationConfig())
    text = rulebook(spec, style="paper")
    assert consistency_errors(spec, text) == []
    assert len(text) > len(rulebook(spec, style="compact"))
