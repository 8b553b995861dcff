"""Schema and range expectations of the released tables, validated with great_expectations 1.x.

Why it exists: the data contracts of DESIGN.md ("Data contracts") say which columns a table has
and what their values may be; a great_expectations suite states that once, and its validation
result names the column and the offending values. Suites are plain data here
(:data:`SUITES`, ``(expectation class name, keyword arguments)``) so that they can be read and
tested without importing great_expectations, whose import takes seconds: the import happens
inside :func:`expectations_gate`, on first use.

Validation uses an ephemeral data context (nothing is written to disk, analytics and progress
bars off), a pandas data source with one whole-dataframe batch definition, and
``Batch.validate(suite)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from engines.axes.names import AXES
from engines.axes.screening import SCREENING_AXES
from engines.tournament.records import DECIDED_STATUSES, MATCH_STATUSES
from quality.gates import GateResult

Expectation = tuple[str, dict[str, Any]]

SHA256_REGEX = r"^[0-9a-f]{64}$"
ENV_NAME_REGEX = r"^[A-Z_][A-Z0-9_]*$"


def _exist(*columns: str) -> list[Expectation]:
    return [("ExpectColumnToExist", {"column": c}) for c in columns]


def _not_null(*columns: str) -> list[Expectation]:
    return [("ExpectColumnValuesToNotBeNull", {"column": c}) for c in columns]


def _at_least(column: str, low: float) -> Expectation:
    return ("ExpectColumnValuesToBeBetween", {"column": column, "min_value": low})


def _between(column: str, low: float, high: float) -> Expectation:
    bounds = {"column": column, "min_value": low, "max_value": high}
    return ("ExpectColumnValuesToBeBetween", bounds)


MATCH_SUITE: tuple[Expectation, ...] = (
    *_exist(
        "match_id",
        "game_seed",
        "spec_hash",
        "engine_version",
        "run_id",
        "play_seed",
        "alice",
        "bob",
        "alice_chip_delta",
        "bob_chip_delta",
        "margin_alice",
        "status",
        "n_moves",
        "fallbacks_alice",
        "fallbacks_bob",
    ),
    *_not_null("match_id", "game_seed", "spec_hash", "engine_version", "alice", "bob", "status"),
    ("ExpectColumnValuesToBeUnique", {"column": "match_id"}),
    ("ExpectColumnValuesToBeInSet", {"column": "status", "value_set": list(MATCH_STATUSES)}),
    _at_least("n_moves", 0),
    _at_least("fallbacks_alice", 0),
    _at_least("fallbacks_bob", 0),
)

# Expectations per table name (the asset key of the table in the graph).
SUITES: dict[str, tuple[Expectation, ...]] = {
    "reference_games": (
        ("ExpectTableRowCountToBeBetween", {"min_value": 1}),
        *_exist("name", "spec_hash", "spec_json", "rulebook", "rulebook_chars", "engine_version"),
        *_not_null("name", "spec_hash", "spec_json", "rulebook", "engine_version"),
        ("ExpectColumnValuesToBeUnique", {"column": "name"}),
        ("ExpectColumnValuesToBeUnique", {"column": "spec_hash"}),
        ("ExpectColumnValuesToMatchRegex", {"column": "spec_hash", "regex": SHA256_REGEX}),
        _at_least("rulebook_chars", 1),
    ),
    "seed_pool": (
        ("ExpectTableRowCountToBeBetween", {"min_value": 1}),
        *_exist("seed", "accepted", "reasons", "config_hash", "generator_version"),
        *_not_null("seed", "accepted", "config_hash"),
        ("ExpectColumnValuesToBeUnique", {"column": "seed"}),
        _at_least("seed", 0),
        ("ExpectColumnValuesToBeInSet", {"column": "accepted", "value_set": [True, False]}),
        ("ExpectColumnValuesToMatchRegex", {"column": "config_hash", "regex": SHA256_REGEX}),
        _at_least("rulebook_chars", 0),
    ),
    "accepted_games": (
        ("ExpectTableRowCountToBeBetween", {"min_value": 1}),
        *_exist("seed", "spec_hash", "spec_json", "rulebook", "rulebook_chars", "engine_version"),
        *_not_null("seed", "spec_hash", "spec_json", "rulebook", "engine_version"),
        ("ExpectColumnValuesToBeUnique", {"column": "seed"}),
        ("ExpectColumnValuesToBeUnique", {"column": "spec_hash"}),
        ("ExpectColumnValuesToMatchRegex", {"column": "spec_hash", "regex": SHA256_REGEX}),
        _at_least("rulebook_chars", 1),
        _at_least("deck_size", 2),
        _at_least("phases", 1),
    ),
    "benchmark_games": (
        ("ExpectTableRowCountToBeBetween", {"min_value": 1}),
        *_exist("seed", "spec_hash", "spec_json"),
        *_not_null("seed", "spec_hash", "spec_json"),
        ("ExpectColumnValuesToBeUnique", {"column": "seed"}),
        ("ExpectColumnValuesToBeUnique", {"column": "spec_hash"}),
        ("ExpectColumnValuesToMatchRegex", {"column": "spec_hash", "regex": SHA256_REGEX}),
    ),
    "roster": (
        ("ExpectTableRowCountToBeBetween", {"min_value": 2}),
        *_exist("name", "kind", "block", "rethinks", "fingerprint", "api_key_env", "code_sha256"),
        *_not_null("name", "kind", "block", "fingerprint"),
        ("ExpectColumnValuesToBeUnique", {"column": "name"}),
        _at_least("rethinks", 0),
        # The roster records the NAME of a key's environment variable, never a key.
        ("ExpectColumnValuesToMatchRegex", {"column": "api_key_env", "regex": ENV_NAME_REGEX}),
        # A program player's code hash (empty for other kinds) is what its fingerprint covers.
        ("ExpectColumnValuesToMatchRegex", {"column": "code_sha256", "regex": SHA256_REGEX}),
    ),
    "match_corpus": MATCH_SUITE,
    "complete_pairs": (
        *MATCH_SUITE,
        ("ExpectColumnValuesToBeInSet", {"column": "status", "value_set": list(DECIDED_STATUSES)}),
    ),
    "leaderboards": (
        *_exist("model", "alpha", "ci_low", "ci_high", "rank", "matches"),
        *_not_null("model", "alpha", "rank"),
        ("ExpectColumnValuesToBeUnique", {"column": "model"}),
        _at_least("rank", 1),
        _at_least("matches", 0),
        (
            "ExpectColumnPairValuesAToBeGreaterThanB",
            {"column_A": "ci_high", "column_B": "ci_low", "or_equal": True},
        ),
    ),
    "capability_profiles": (
        *_exist("model", "term", "coef", "p_value", "q_value", "significant"),
        *_not_null("model", "term"),
        _between("p_value", 0, 1),
        _between("q_value", 0, 1),
    ),
    "screening_axes": (
        ("ExpectTableRowCountToBeBetween", {"min_value": 1}),
        *_exist("seed", "spec_hash", *SCREENING_AXES, "budget"),
        *_not_null("seed", "spec_hash", *SCREENING_AXES),
        ("ExpectColumnValuesToBeUnique", {"column": "seed"}),
        ("ExpectColumnValuesToMatchRegex", {"column": "spec_hash", "regex": SHA256_REGEX}),
        *(_at_least(axis, 0) for axis in SCREENING_AXES),
    ),
    "axis_scores": (
        ("ExpectTableRowCountToEqual", {"value": 1}),  # one game per partition
        *_exist("game", "spec_hash", *AXES),
        *_not_null("game", "spec_hash", *AXES),
        ("ExpectColumnValuesToMatchRegex", {"column": "spec_hash", "regex": SHA256_REGEX}),
        _at_least("state_space", 0),
        _between("temporal", 0, 1),  # a share of the decision table's variance
        _at_least("opponent", 0),
    ),
    "match_moves": (
        *_exist("match_id", "index", "seat", "player", "legal_actions", "action", "fallback"),
        # ``action`` is empty on the move that ended a match unanswered (the ``moves`` gate
        # holds it to the last move of its match: quality.gates.unfinished_moves)
        *_not_null("match_id", "index", "seat", "player", "fallback"),
        ("ExpectCompoundColumnsToBeUnique", {"column_list": ["match_id", "index"]}),
        ("ExpectColumnValuesToBeInSet", {"column": "seat", "value_set": ["alice", "bob"]}),
        _at_least("index", 0),
        _at_least("rethinks", 0),
    ),
    "ablations": (
        *_exist("ablation", "quantity", "subject", "estimate", "ci_low", "ci_high", "n"),
        *_not_null("ablation", "quantity", "subject", "n"),
        _at_least("n", 0),
        (
            "ExpectColumnPairValuesAToBeGreaterThanB",
            {
                "column_A": "ci_high",
                "column_B": "ci_low",
                "or_equal": True,
                "ignore_row_if": "either_value_is_missing",
            },
        ),
    ),
}


def _context() -> Any:
    """An ephemeral great_expectations context: in memory, no analytics, no progress bars."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    config = DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(),
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False, metric_calculations=False),
    )
    return gx.get_context(mode="ephemeral", project_config=config)


def _class_name(expectation_type: str) -> str:
    """``expect_column_to_exist`` -> ``ExpectColumnToExist`` (the names used in suites)."""
    return "".join(part.title() for part in expectation_type.split("_"))


def _describe(kind: str, kwargs: Mapping[str, Any]) -> str:
    where = kwargs.get("column") or ", ".join(
        str(kwargs[k]) for k in ("column_A", "column_B") if k in kwargs
    )
    return f"{kind}({where})" if where else kind


def expectations_gate(
    frame: pd.DataFrame, suite: Sequence[Expectation], table: str = "table"
) -> GateResult:
    """Validate ``frame`` against ``suite`` with great_expectations; name the first failure.

    Steps: open an ephemeral context; add a pandas data source, a dataframe asset and a
    whole-dataframe batch definition; build an ``ExpectationSuite`` from the suite's
    (class name, arguments) pairs; validate the batch of ``frame``; report counts, and for the
    first unmet expectation its column and a few unexpected values.
    """
    import great_expectations as gx

    context = _context()
    source = context.data_sources.add_pandas(name=f"genstrat_{table}")
    batch_definition = source.add_dataframe_asset(name=table).add_batch_definition_whole_dataframe(
        "whole"
    )
    expectations = [getattr(gx.expectations, kind)(**kwargs) for kind, kwargs in suite]
    gx_suite = gx.ExpectationSuite(name=f"{table}_contract", expectations=expectations)
    batch = batch_definition.get_batch(batch_parameters={"dataframe": frame})
    result = batch.validate(gx_suite, result_format="SUMMARY")
    order = {_describe(kind, kwargs): k for k, (kind, kwargs) in reversed(list(enumerate(suite)))}
    unmet: list[tuple[int, str]] = []
    for outcome in result.results:  # not in suite order: name each from its own config
        if outcome.success:
            continue
        kind = _class_name(outcome.expectation_config.type)
        kwargs = outcome.expectation_config.kwargs
        detail = ""
        observed = outcome.result or {}
        if observed.get("unexpected_count"):
            values = list(observed.get("partial_unexpected_list", []))[:3]
            sample = ", ".join(repr(v) for v in values)
            detail = f": {observed['unexpected_count']} unexpected value(s), e.g. {sample}"
        elif "observed_value" in observed:
            detail = f": observed {observed['observed_value']!r}"
        elif outcome.exception_info and outcome.exception_info.get("raised_exception"):
            message = str(outcome.exception_info.get("exception_message", "")).splitlines()
            detail = f": {message[0] if message else 'raised an exception'}"
        described = _describe(kind, kwargs)
        unmet.append((order.get(described, len(suite)), f"{described}{detail}"))
    failures = [text for _, text in sorted(unmet)]
    figures = {
        "rows": len(frame),
        "expectations": len(suite),
        "unmet": len(failures),
        "failed": failures[:10],
    }
    if failures:
        return GateResult(
            False, figures, f"{table}: {len(failures)} expectation(s) unmet; {failures[0]}"
        )
    return GateResult(True, figures, f"{table}: all {len(suite)} expectations met")
