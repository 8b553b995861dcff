"""The redaction scan finds credential shapes and the values of secret-looking variables, in
Parquet values and gzip streams too, and never repeats the secret in its message."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from quality.redaction import redaction_scan, secret_values

CANARY = "canary-" + "x9" * 12  # a fake key with no well-known shape


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    (tmp_path / "tables").mkdir()
    pd.DataFrame({"raw_response": ["call", "fold"], "n": [1, 2]}).to_parquet(
        tmp_path / "tables" / "moves.parquet", compression="zstd"
    )
    (tmp_path / "README.md").write_text("A release. Ask the bearer of the marker.\n")
    return tmp_path


def files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def test_a_clean_bundle_passes(bundle: Path) -> None:
    result = redaction_scan(files(bundle), {"PROVIDER_API_KEY": CANARY}, root=bundle)
    assert result.passed and result.figures["scanned"] == 2


def test_the_canary_in_an_environment_variable_is_found_in_a_table(bundle: Path) -> None:
    frame = pd.DataFrame({"raw_response": ["call", f"my key is {CANARY}"], "n": [1, 2]})
    frame.to_parquet(bundle / "tables" / "moves.parquet", compression="zstd")
    result = redaction_scan(
        files(bundle), {"PROVIDER_API_KEY": CANARY, "HOME": "/root"}, root=bundle
    )
    assert not result.passed
    assert result.message == (
        "1 possible credential(s); tables/moves.parquet: the value of $PROVIDER_API_KEY"
    )
    assert CANARY not in str(result)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("sk-ant-api03-" + "A" * 40, "openai/anthropic key"),
        ("sk-proj-" + "b" * 30, "openai/anthropic key"),
        ("AIza" + "c" * 35, "google api key"),
        ("Authorization: Bearer " + "d" * 30, "bearer token"),
        ("ghp_" + "e" * 36, "github token"),
        ("-----BEGIN RSA PRIVATE KEY-----", "private key"),
    ],
)
def test_well_known_key_shapes_are_found(bundle: Path, text: str, kind: str) -> None:
    with gzip.open(bundle / "log.txt.gz", "wt") as handle:
        handle.write(f"request failed: {text}\n")
    assert text.encode() not in (bundle / "log.txt.gz").read_bytes()  # found only unzipped
    result = redaction_scan(files(bundle), {}, root=bundle)
    assert not result.passed and f"log.txt.gz: {kind}" in result.message


def test_only_secret_looking_names_with_real_values_count() -> None:
    environ = {
        "OPENAI_API_KEY": "sk-" + "z" * 30,
        "HF_TOKEN": "hf_" + "y" * 31,
        "DB_PASSWORD": "s3cr3t-password",
        "SHORT_KEY": "abc",  # too short to search for
        "KEYBOARD": "a-long-but-harmless-value",
        "PATH": "/usr/bin:/bin",
    }
    assert sorted(secret_values(environ)) == ["DB_PASSWORD", "HF_TOKEN", "OPENAI_API_KEY"]


def test_texts_are_scanned_too() -> None:
    result = redaction_scan([], {"X_SECRET": CANARY}, texts={"context": f"settings {CANARY}"})
    assert not result.passed and "context: the value of $X_SECRET" in result.message
