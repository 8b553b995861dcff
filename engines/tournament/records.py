"""The rows of the match corpus: the match and move tables' columns and a match's statuses.

DESIGN.md, "Data contracts": one row per match (a single deal) and one per move.  The
``status`` column of a match row is one of:

``complete``: the deal was played to its end.  ``forfeit``: a strategy program crashed or
answered an illegal action and lost the match (GameBench 2, Section 2); its chip columns hold
the result.  ``timeout`` and ``error``: no move could be obtained; the match carries no result
and is left out of the evidence.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

DECIDED_STATUSES = ("complete", "forfeit")
FAILED_STATUSES = ("timeout", "error")
MATCH_STATUSES = (*DECIDED_STATUSES, *FAILED_STATUSES)

SEAT_COLUMNS = (
    ("fallbacks", pa.int64()),
    ("rethinks", pa.int64()),
    ("moves", pa.int64()),
    ("input_tokens", pa.int64()),
    ("output_tokens", pa.int64()),
    ("reasoning_tokens", pa.int64()),
    ("cost_usd", pa.float64()),
    ("calls", pa.int64()),
)

MATCH_SCHEMA = pa.schema(
    [
        ("match_id", pa.string()),
        ("game", pa.string()),
        ("game_seed", pa.int64()),
        ("spec_hash", pa.string()),
        ("engine_version", pa.string()),
        ("block", pa.string()),
        ("run_id", pa.string()),
        ("run_index", pa.int64()),
        ("deal", pa.int64()),
        ("play_seed", pa.uint64()),
        ("alice", pa.string()),
        ("bob", pa.string()),
        ("alice_fingerprint", pa.string()),
        ("bob_fingerprint", pa.string()),
        ("alice_chip_delta", pa.int64()),
        ("bob_chip_delta", pa.int64()),
        ("margin_alice", pa.int64()),
        ("status", pa.string()),
        ("error", pa.string()),
        ("n_moves", pa.int64()),
        *[(f"{name}_{seat}", kind) for name, kind in SEAT_COLUMNS for seat in ("alice", "bob")],
        ("started_at", pa.string()),
        ("finished_at", pa.string()),
        ("duration_s", pa.float64()),
    ]
)

MOVE_SCHEMA = pa.schema(
    [
        ("match_id", pa.string()),
        ("index", pa.int64()),
        ("seat", pa.string()),
        ("player", pa.string()),
        ("model", pa.string()),
        ("settings", pa.string()),
        ("phase", pa.string()),
        ("legal_actions", pa.list_(pa.string())),
        ("prompt_sha256", pa.string()),
        ("raw_response", pa.string()),
        ("earlier_responses", pa.list_(pa.string())),
        ("verdict", pa.string()),
        ("action", pa.string()),
        ("fallback", pa.bool_()),
        ("rethinks", pa.int64()),
        ("latency_s", pa.float64()),
        ("input_tokens", pa.int64()),
        ("output_tokens", pa.int64()),
        ("reasoning_tokens", pa.int64()),
        ("cost_usd", pa.float64()),
        ("calls", pa.int64()),
        ("cached", pa.bool_()),
        ("reasoning", pa.string()),
        ("cached_input_tokens", pa.int64()),
    ]
)

WALL_CLOCK_COLUMNS = ("started_at", "finished_at", "duration_s")

Record = dict[str, Any]
