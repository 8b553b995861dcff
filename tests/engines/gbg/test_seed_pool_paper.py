"""The paper configuration's pool picture: the summary and the table beside the paper's
figures, and the profiles that choose it."""

from __future__ import annotations

import pytest

from assets.run_profiles import get_profile
from engines.gbg.acceptance import AcceptanceSettings
from engines.gbg.generator import PAPER_CONFIG, named_config
from engines.gbg.seed_pool import PAPER_POOL, paper_comparison, screen, summarise


def test_profiles_choose_configuration_and_style() -> None:
    paper, demo = get_profile("paper"), get_profile("demo")
    assert (paper.generation, paper.rulebook_style) == ("paper", "paper")
    assert (demo.generation, demo.rulebook_style) == ("default", "compact")
    assert named_config("paper") is PAPER_CONFIG
    with pytest.raises(ValueError, match="unknown generation configuration 'huge'"):
        named_config("huge")


def test_paper_pool_summary_beside_the_paper() -> None:
    verdicts = list(
        screen(0, 10**6, PAPER_CONFIG, AcceptanceSettings(deals=100), max_seeds=40, style="paper")
    )
    summary = summarise(verdicts, 1.0)
    assert summary["sampled"] == 40 and summary["accepted_with_inert_phases"] == 0
    assert summary["accepted"] == sum(v["accepted"] for v in verdicts) > 0
    rows = {r["quantity"]: r for r in paper_comparison(summary)}
    assert rows["acceptance rate"]["paper"] == "16.2% (2,000 of 12,351)"
    assert PAPER_POOL["acceptance_rate"] == pytest.approx(2_000 / 12_351)
    assert rows["acceptance rate"]["ours"].startswith(f"{summary['acceptance_rate']:.1%}")
    for reason, n in summary["rejections"].items():
        assert rows[f"rejected for {reason}"]["ours"] == f"{n / 40:.1%} of seeds"
    # Paper-style rulebooks of accepted games lie in the paper's range, 8,600 to 39,000
    # characters, give or take the shortest: 8,144 to 37,574, median 13,634, over the 2,000
    # games the paper profile accepts (seeds 0..11,782; 15 below 8,600, all of three phases;
    # benchmarks/rulebook_lengths.py).
    lengths = [v["rulebook_chars"] for v in verdicts if v["accepted"]]
    assert min(lengths) >= 8_000 and max(lengths) < 39_000
