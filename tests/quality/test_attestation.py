"""Attestation hashes: content hashes survive re-encoding; file checks name each difference."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from quality.attestation import file_problems, file_sha256, manifest_hashes, table_content_hash
from tests.quality.support import sound_matches


def test_the_content_hash_survives_reencoding_and_sees_one_changed_value(tmp_path: Path) -> None:
    frame = sound_matches().assign(
        when=pd.Timestamp("2026-04-01T00:00:00Z"), ratio=0.1, missing=float("nan")
    )
    frame.to_parquet(tmp_path / "a.parquet", compression="snappy")
    frame.to_parquet(tmp_path / "b.parquet", compression="zstd")
    a, b = pd.read_parquet(tmp_path / "a.parquet"), pd.read_parquet(tmp_path / "b.parquet")
    assert file_sha256(tmp_path / "a.parquet") != file_sha256(tmp_path / "b.parquet")
    assert table_content_hash(a) == table_content_hash(b) == table_content_hash(frame)
    changed = frame.copy()
    changed.loc[5, "n_moves"] = 5
    assert table_content_hash(changed) != table_content_hash(frame)
    renamed = frame.rename(columns={"n_moves": "moves"})
    assert table_content_hash(renamed) != table_content_hash(frame)


def test_file_problems_and_the_manifest_gate(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha")
    (tmp_path / "b.txt").write_text("beta")
    entries = [
        {
            "path": name,
            "bytes": (tmp_path / name).stat().st_size,
            "sha256": file_sha256(tmp_path / name),
        }
        for name in ("a.txt", "b.txt")
    ]
    (tmp_path / "manifest.json").write_text(json.dumps({"files": entries}))
    assert manifest_hashes(tmp_path).passed
    (tmp_path / "a.txt").write_text("alphA")
    (tmp_path / "b.txt").unlink()
    (tmp_path / "c.txt").write_text("new")
    assert file_problems(tmp_path, entries, {"manifest.json"}) == [
        "a.txt: SHA-256 mismatch (manifest "
        + str(entries[0]["sha256"])[:16]
        + "…, file "
        + file_sha256(tmp_path / "a.txt")[:16]
        + "…)",
        "missing file b.txt (listed in manifest.json)",
        "extra file c.txt (not listed in manifest.json)",
    ]
    result = manifest_hashes(tmp_path)
    assert not result.passed and result.figures["problems"] == 3
    assert result.message.startswith("a.txt: SHA-256 mismatch")
