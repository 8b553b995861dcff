"""The paper-style rulebook (Appendix B): every rule with a worked example, consistent with the
spec by the same gate as the compact style, and the compact style left as it was."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.gbg.engine import new_deal
from engines.gbg.generator import PAPER_CONFIG, GenerationConfig, generate
from engines.gbg.presets import example4643, kuhn, leduc
from engines.gbg.render import turn_prompt
from engines.gbg.rulebook import consistency_errors, rulebook
from engines.gbg.state import State


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


def _example_section(text: str) -> str:
    return text[text.index("## Example deals") : text.index("## Your turn")]


def test_the_example_deals_are_kuhn_deals_as_the_engine_plays_them() -> None:
    # Play seed 0 deals Alice J and Bob Q, seed 1 the reverse (checked by hand on the engine's
    # shuffle): Alice bets 1 and Bob calls (Bob wins 2), then Alice checks, Bob bets 1 and
    # Alice calls (Alice wins 2).  Each line is what the engine tells the players.
    deals = _example_section(rulebook(kuhn(), style="paper"))
    first, second = deals.split("### Example deal 2")
    assert "- [Alice] You are dealt J♠.\n- [Bob] You are dealt Q♠." in first
    assert "- Alice: bet 1.\n(The pot holds 3 chips; behind: Alice 0, Bob 1.)" in first
    assert "- Bob: call." in first and "Bob wins the pot." in first
    assert "Result of this deal: Alice -2, Bob +2." in first
    assert "- Alice: check.\n- Bob: bet 1." in second and "- Alice: call." in second
    assert "Result of this deal: Alice +2, Bob -2." in second
    # the messages are the per-turn prompts the LLM players receive, verbatim
    state = new_deal(kuhn(), 0, tree=False)
    assert isinstance(state, State)
    assert f"```\n{turn_prompt(state, 0)}\n```" in first
    state.apply("bet 1")
    assert f"```\n{turn_prompt(state, 1)}\n```" in first
    assert "her last decision" in second and "first decision" not in second


def test_example_4643_skips_what_its_conditions_skip() -> None:
    # Deal 1 reaches the standoff (a pair in a hand) and Alice holds no King: the swap is not
    # played.  Deal 2 plays all nine phases.
    first, second = _example_section(rulebook(example4643(), style="paper")).split("deal 2")
    assert "Not played (a condition sent play past them): swap." in first
    assert "Phase 9, Swap (swap):" in second and "Not played" not in second
    # the phase table lists all nine with their decisions
    text = rulebook(example4643(), style="paper")
    assert "| 8 | Standoff (standoff) | simultaneous | both at once: press, hold, bluff |" in text
    assert text.count("\n| ") == 1 + 9  # the header and a row per phase


@pytest.mark.parametrize("spec", [kuhn(), leduc(), example4643()], ids=["kuhn", "leduc", "4643"])
def test_the_gate_still_finds_a_rule_left_out_beside_the_examples(spec) -> None:  # type: ignore[no-untyped-def]
    text = rulebook(spec, style="paper")
    for rule in (
        f"Each player starts with {spec.stack} chips.",
        f"Each player antes {spec.ante} chip" + ("s" if spec.ante != 1 else ""),
        "At most ",
    ):
        assert rule in text
        cut = text.replace(rule, "(left out)")
        assert consistency_errors(spec, cut), rule


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10**9) | st.just(384))
def test_the_rulebook_grows_with_the_game(seed: int) -> None:
    # A game with more phases has a longer paper-style rulebook: each phase brings its rules,
    # its examples, its row in the table and its lines in the example deals (over seeds
    # 0..2,999 the least length minus 300 per phase is 7,206: seed 384, 3 phases).
    spec = generate(seed, PAPER_CONFIG)
    text = rulebook(spec, style="paper")
    assert consistency_errors(spec, text) == []
    assert len(text) >= 7_000 + 300 * len(spec.phases)
