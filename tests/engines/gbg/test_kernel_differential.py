"""The rules live in two places, the interpreter (the reference) and the kernel
(``engines.gbg.batch_kernel``); this is the machine that catches any divergence.

At every stop of the generator's complexity dial, on the default and on the paper's
configuration, hypothesis draws games and play seeds, and each game is played both ways deal for
deal: the random play of the acceptance filter (returns, decisions, folds, phases entered,
branch predicates evaluated and held, move draws used), the screening's and the state-space
axis's counts of information states (and the move generator's state afterwards), and the L0
rollouts that finish deals from positions mid-deal.  A rule changed in only one of the two
fails here.  ``make coverage-kernel`` runs this module again with numba off
(``NUMBA_DISABLE_JIT=1``), fewer examples, so that coverage.py measures the kernel's lines.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba.core import config as numba_config

from engines.gbg.generator import PAPER_CONFIG, GenerationConfig, generate
from tests.engines.gbg.test_batch_random import (
    HIGH,
    LOW,
    _abstract_both_ways,
    _assert_same_deals,
    _coarse_both_ways,
    _rollouts_both,
)

DIALS = [LOW + 0.5 * k for k in range(int((HIGH - LOW) / 0.5) + 1)]
CONFIGS = {"default": GenerationConfig(), "paper": PAPER_CONFIG}
# Without numba the kernel runs as Python, about as fast as the interpreter: fewer examples.
EXAMPLES = 4 if numba_config.DISABLE_JIT else 25


def test_the_dial_stops_span_the_generators_range() -> None:
    assert DIALS[0] == LOW and DIALS[-1] == HIGH and len(DIALS) >= 5


@pytest.mark.parametrize("dial", DIALS)
@pytest.mark.parametrize("config", sorted(CONFIGS))
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    play_seed=st.integers(min_value=0, max_value=2**40),
    max_amounts=st.sampled_from([3, 4, 6]),
)
def test_the_kernel_plays_the_interpreters_deals_at_every_dial(
    config: str, dial: float, seed: int, play_seed: int, max_amounts: int
) -> None:
    spec = generate(seed, CONFIGS[config].model_copy(update={"complexity": dial}))
    _assert_same_deals(spec, 40, play_seed)
    _coarse_both_ways(spec, 30, play_seed)
    _abstract_both_ways(spec, 30, play_seed)
    _rollouts_both(spec, play_seed % 997, max_amounts)
