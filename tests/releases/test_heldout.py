"""Held-out games (issue 39, item 4): commitments, the sealed gate over every file (archive
members and Parquet cells included), and reveals checked against the published commitment
when publishing and by ``release verify``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.heldout import (
    PRIVATE_SEED_FLOOR,
    PRIVATE_SEED_SPAN,
    EditionSecrets,
    commitment,
    edition_key,
    private_seed_base,
    salt,
)
from engines.gbg import presets
from releases.errors import Refused
from releases.heldout import PrivateGame, hide, sealed_problems
from releases.store import GateFailed, publish, verify
from tests.releases.support import PASSING, sample_inputs, snapshot

KEY = bytes(range(32))


def private_game(spec_json: str, spec_hash: str, seed: int = PRIVATE_SEED_FLOOR + 7) -> PrivateGame:
    salted = salt(KEY, "demo", 1, spec_hash)
    return PrivateGame("private-1", str(seed), seed, spec_hash, spec_json, salted,
                       commitment(salted, spec_json))  # fmt: skip


def test_the_key_is_made_once_private_and_read_back(tmp_path: Path) -> None:
    key = edition_key(tmp_path)
    path = tmp_path / ".editions" / "key"
    assert len(key) == 32 and path.stat().st_mode & 0o777 == 0o600
    assert edition_key(tmp_path) == key == EditionSecrets.of(tmp_path).key
    path.write_bytes(b"short")
    with pytest.raises(ValueError, match="holds 5 bytes, not 32: restore it"):
        edition_key(tmp_path)


@settings(max_examples=300, deadline=None)
@given(key=st.binary(min_size=32, max_size=32), edition=st.integers(1, 10_000))
def test_private_seeds_lie_above_every_public_range_and_depend_on_the_key(
    key: bytes, edition: int
) -> None:
    base = private_seed_base(key, "paper", edition)
    assert PRIVATE_SEED_FLOOR <= base < PRIVATE_SEED_FLOOR + PRIVATE_SEED_SPAN
    assert base != private_seed_base(bytes(32) if key != bytes(32) else KEY, "paper", edition)


def test_a_commitment_binds_the_spec_and_the_salt() -> None:
    spec = presets.kuhn()
    salted = salt(KEY, "demo", 1, spec.spec_hash)
    value = commitment(salted, spec.canonical_json())
    assert value == commitment(salted, spec.canonical_json())  # deterministic: same release id
    assert value != commitment(salted, presets.leduc().canonical_json())
    assert value != commitment(salt(KEY, "demo", 2, spec.spec_hash), spec.canonical_json())


def test_hide_drops_every_row_and_move_that_names_a_private_game() -> None:
    game = private_game("{}", "h" * 64, seed=PRIVATE_SEED_FLOOR + 3)
    tables = {
        "benchmark_games": pd.DataFrame({"game": ["5", game.token], "seed": [5, game.seed]}),
        "complete_pairs": pd.DataFrame(
            {"match_id": ["a", "b"], "game_seed": [5, game.seed], "spec_hash": ["x", "h" * 64]}
        ),
        "match_moves": pd.DataFrame({"match_id": ["a", "a", "b"], "index": [0, 1, 0]}),
        "axis_scores": pd.DataFrame({"game": [game.token], "spec_hash": ["h" * 64]}),
    }
    public = hide(tables, [game])
    assert list(public["benchmark_games"]["seed"]) == [5]
    assert list(public["complete_pairs"]["match_id"]) == ["a"]
    assert list(public["match_moves"]["match_id"]) == ["a", "a"]
    assert public["axis_scores"].empty


def test_the_sealed_gate_finds_a_private_spec_in_any_file_and_nothing_is_published(
    tmp_path: Path,
) -> None:
    """A private game's spec put into a released table by mistake (a Parquet cell, so also an
    archive member): the audit fails by name and the store is left as it was."""
    from engines.gbg.generator import generate

    spec = generate(PRIVATE_SEED_FLOOR + 7)  # a game the sample release does not hold
    game = private_game(spec.canonical_json(), spec.spec_hash)
    store = tmp_path / "store"
    tables, texts, images, context = sample_inputs()
    publish(tables, texts, images, context, store, gates=PASSING, sealed=[game])
    before = snapshot(store)
    leaky = {**tables, "notes": pd.DataFrame({"note": [f"see {spec.spec_hash}"]})}
    with pytest.raises(GateFailed, match=r"gate heldout_sealed failed: .* names a private game"):
        publish(leaky, texts, images, context, store, gates=PASSING, sealed=[game])
    assert snapshot(store) == before
    leaky_text = {**texts, "rulebooks/secret.md": f"# gbg-{game.seed}\n"}
    with pytest.raises(GateFailed, match="heldout_sealed"):
        publish(tables, leaky_text, images, context, store, gates=PASSING, sealed=[game])
    assert snapshot(store) == before


def test_sealed_problems_reads_archive_members_and_parquet_cells(tmp_path: Path) -> None:
    import io
    import tarfile

    game = private_game('{"secret": 1}', "e" * 64)
    pd.DataFrame({"n": [game.seed]}).to_parquet(tmp_path / "t.parquet")
    data = (tmp_path / "t.parquet").read_bytes()
    with tarfile.open(tmp_path / "r.tar.gz", "w:gz") as archive:
        member = tarfile.TarInfo("r/tables/t.parquet")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    found = sealed_problems([tmp_path / "t.parquet", tmp_path / "r.tar.gz"], tmp_path, [game])
    assert found == [
        "r.tar.gz (archive member r/tables/t.parquet, column n) names a private game",
        "t.parquet (column n) names a private game",
    ]


def _edition(store: Path, number: int, extra: dict[str, pd.DataFrame]) -> str:
    tables, texts, images, context = sample_inputs()
    benchmark = pd.DataFrame({"game": [str(100 * number)], "seed": [100 * number]})
    tables = {**tables, "benchmark_games": benchmark, **extra}
    settings_ = {"seed_start": 0, "seed_count": 100, "edition": number}
    context = dataclasses.replace(context, profile_settings=settings_)
    return publish(tables, texts, images, context, store, gates=PASSING).release_id


def _held(game: PrivateGame) -> pd.DataFrame:
    return pd.DataFrame(
        {"edition": [1], "label": [game.label], "commitment": [game.commitment],
         "model": ["bot-1"], "runs": [4], "mean_margin": [0.5]}
    )  # fmt: skip


def _revealed(game: PrivateGame, **change: object) -> pd.DataFrame:
    row = {**game.record(1), **change}
    return pd.DataFrame([row])


def test_a_reveal_verifies_against_the_earlier_commitment_and_a_tampered_one_fails(
    tmp_path: Path,
) -> None:
    spec, other = presets.leduc(), presets.kuhn()
    game = private_game(spec.canonical_json(), spec.spec_hash)
    store = tmp_path / "store"
    _edition(store, 1, {"heldout_games": _held(game)})
    before = snapshot(store)
    # the spec swapped for another game's (with its own, correct hash): refused, nothing written
    swapped = _revealed(game, spec_json=other.canonical_json(), spec_hash=other.spec_hash)
    with pytest.raises(
        GateFailed,
        match="gate reveal failed: revealed game private-1 of "
        "edition 1: the spec and salt do not match the published commitment",
    ):
        _edition(store, 2, {"revealed_games": swapped})
    assert snapshot(store) == before
    with pytest.raises(GateFailed, match="does not hash to its spec_hash"):
        _edition(store, 2, {"revealed_games": _revealed(game, spec_hash="0" * 64)})
    with pytest.raises(GateFailed, match="do not match the published commitment"):
        _edition(store, 2, {"revealed_games": _revealed(game, salt="00" * 32)})
    assert snapshot(store) == before
    second = _edition(store, 2, {"revealed_games": _revealed(game)})
    verify(second, store)
    # a store whose earlier commitment was altered afterwards: verify names the reveal
    index = json.loads((store / "editions.json").read_text())
    first = index["editions"][0]["releases"][0]
    held = store / first / "tables" / "heldout_games.parquet"
    held.chmod(0o644)
    _held(private_game(other.canonical_json(), other.spec_hash)).to_parquet(held)
    with pytest.raises(Refused):
        verify(second, store)
