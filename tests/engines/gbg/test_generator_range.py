"""The generator over its whole declared range: every complexity in 0.5..4.0 and any seed
gives a valid game (GenerationConfig's promise), property-based over wide seed ranges."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.gbg.generator import SPEC_LIMITS, GenerationConfig, generate
from engines.gbg.spec import BettingPhase, DealPhase

COMPLEXITY = GenerationConfig.model_fields["complexity"].metadata
LOW = next(c.ge for c in COMPLEXITY if hasattr(c, "ge"))
HIGH = next(c.le for c in COMPLEXITY if hasattr(c, "le"))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    complexity=st.floats(min_value=LOW, max_value=HIGH, allow_nan=False),
)
def test_every_seed_and_dial_generates_a_valid_game(seed: int, complexity: float) -> None:
    spec = generate(seed, GenerationConfig(complexity=complexity))
    assert spec.generation["seed"] == seed
    for phase in spec.phases:
        if isinstance(phase, BettingPhase):
            assert phase.raise_cap <= SPEC_LIMITS["max_raise_cap"]
        if isinstance(phase, DealPhase):
            assert phase.count <= SPEC_LIMITS["max_hand"]


def test_the_dial_saturates_at_what_a_spec_may_declare() -> None:
    assert SPEC_LIMITS == {"max_raise_cap": 6, "max_hand": 7}  # BettingPhase / DealPhase fields
    top = GenerationConfig(complexity=HIGH)
    assert top.cap("max_raise_cap") == 6 and top.cap("max_hand") == 7
    assert top.cap("max_phases") == round(7 * HIGH)  # caps a spec does not bound keep scaling
    assert GenerationConfig(complexity=2.0).cap("max_raise_cap") == 6  # unchanged below the limit


def test_at_the_top_of_the_dial_every_seed_of_a_block_generates() -> None:
    top = GenerationConfig(complexity=HIGH)
    for seed in range(200):
        generate(seed, top)
