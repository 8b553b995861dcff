"""GameSpec: validation, canonical JSON, and golden hashes that pin the benchmark's games."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest
from pydantic import ValidationError

from engines.gbg import GameSpec, presets, rulebook

# Golden hashes: a change here means every downstream number may have moved. Update them only
# with a deliberate change of a preset or of the canonical form (and bump ENGINE_VERSION).
GOLDEN_SPEC = {
    "kuhn": "eafe03c20a6535673e5be96b279c24ab95f2e9607cab111eb3129144682d19ce",
    "leduc": "6141a6a8755d4372566c0c855067c42409d0a5b8a15897032f552893101b2fd8",
    "holdem-limit": "20fdce2da77cccf7663b60d00bba8cbb5b63830a8ee779891e76123b68846cd9",
    "example4643": "d61bda1a297079355b5f030b3dabcfd7fb1d53336bba3f333d0e9a56744127d1",
}
GOLDEN_RULEBOOK = {
    "kuhn": "679446501d09e2f983255b1d72b49b2b409e6beb35e8911e078ee0d2286d2e14",
    "leduc": "5b5a9f69dfe3fce61d4bc872f9cf9bfe8f4e0330705504fc597ef91dad3dfd03",
    "holdem-limit": "868d0bd61828cbc57ae9ab493e5523d20c4bb4b59400d373c98a45fda615f3bb",
    "example4643": "d83b2f24ac84efe39714a1efa5d7f0bfe2d221e089cdd690b508b8f92fa8dd67",
}


@pytest.mark.parametrize("name", sorted(presets.PRESETS))
def test_golden_spec_hash(name: str) -> None:
    assert presets.PRESETS[name]().spec_hash == GOLDEN_SPEC[name]


@pytest.mark.parametrize("name", sorted(presets.PRESETS))
def test_golden_rulebook_hash(name: str) -> None:
    text = rulebook(presets.PRESETS[name]())
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == GOLDEN_RULEBOOK[name]


def test_spec_hash_is_stable_across_processes() -> None:
    code = (
        "from engines.gbg import presets;"
        "print(' '.join(presets.PRESETS[n]().spec_hash for n in sorted(presets.PRESETS)))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": str(seed), "PATH": ""},
        ).stdout.strip()
        for seed in (1, 2, 3)
    }
    assert outputs == {" ".join(GOLDEN_SPEC[n] for n in sorted(presets.PRESETS))}


@pytest.mark.parametrize("name", sorted(presets.PRESETS))
def test_json_round_trip_preserves_hash(name: str) -> None:
    spec = presets.PRESETS[name]()
    again = GameSpec.from_json(spec.canonical_json())
    assert again == spec
    assert again.spec_hash == spec.spec_hash
    # Canonical: sorted keys, no whitespace between tokens.
    data = json.loads(spec.canonical_json())
    assert spec.canonical_json() == json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


def test_spec_is_frozen() -> None:
    spec = presets.kuhn()
    with pytest.raises(ValidationError):
        spec.stack = 5  # type: ignore[misc]


def _kuhn_data() -> dict[str, object]:
    return json.loads(presets.kuhn().canonical_json())  # type: ignore[no-any-return]


def test_unknown_field_is_named() -> None:
    data = _kuhn_data()
    data["stacks"] = 3
    with pytest.raises(ValidationError, match="stacks"):
        GameSpec.model_validate(data)


def test_bad_edge_target_is_named() -> None:
    data = _kuhn_data()
    data["phases"][1]["next"] = [{"to": "nowhere"}]  # type: ignore[index]
    with pytest.raises(ValidationError, match="edge to unknown phase 'nowhere'"):
        GameSpec.model_validate(data)


def test_backward_edge_is_refused() -> None:
    data = _kuhn_data()
    data["phases"][1]["next"] = [{"to": "deal"}]  # type: ignore[index]
    with pytest.raises(ValidationError, match="goes backwards"):
        GameSpec.model_validate(data)


def test_deck_too_small_is_refused() -> None:
    data = _kuhn_data()
    data["phases"][0]["count"] = 2  # type: ignore[index]
    with pytest.raises(ValidationError, match="deals 4 cards but the deck holds 3"):
        GameSpec.model_validate(data)


def test_ante_above_stack_is_refused() -> None:
    data = _kuhn_data()
    data["ante"] = 3
    with pytest.raises(ValidationError, match="ante 3 exceeds the stack 2"):
        GameSpec.model_validate(data)


def test_conditional_last_edge_is_refused() -> None:
    data = _kuhn_data()
    data["phases"][1]["next"] = [  # type: ignore[index]
        {"to": "showdown", "when": {"kind": "pot_at_least", "amount": 3}}
    ]
    with pytest.raises(ValidationError, match="last edge must be unconditional"):
        GameSpec.model_validate(data)


def test_predicate_must_name_existing_rank() -> None:
    data = _kuhn_data()
    data["phases"][1]["next"] = [  # type: ignore[index]
        {"to": "showdown", "when": {"kind": "holds_rank", "rank": "A"}},
        {"to": "showdown"},
    ]
    with pytest.raises(ValidationError, match="rank 'A', not in the deck"):
        GameSpec.model_validate(data)
