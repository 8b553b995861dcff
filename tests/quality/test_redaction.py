"""The redaction scan finds credential shapes and the values of secret-looking variables, in
Parquet values and gzip streams too, and never repeats the secret in its message."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from quality.redaction import (
    USERINFO,
    HostPath,
    HostPaths,
    redaction_scan,
    scrub_paths,
    secret_values,
    strip_userinfo,
)

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
        "1 possible credential(s) or host path(s); tables/moves.parquet: "
        "the value of $PROVIDER_API_KEY"
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


def test_url_credentials_in_a_table_fail_the_scan_without_being_repeated(bundle: Path) -> None:
    """Issue 43, item 9: ``http://user:pass@host`` in a roster's endpoint passed the gate."""
    frame = pd.DataFrame({"endpoint": ["http://ann:pa55word@10.0.0.2:8000/v1"], "n": [1]})
    frame.to_parquet(bundle / "tables" / "roster.parquet", compression="zstd")
    result = redaction_scan(files(bundle), {}, root=bundle)
    assert not result.passed
    assert "tables/roster.parquet: URL credentials" in result.message
    assert "pa55word" not in str(result)
    clean = redaction_scan([], {}, texts={"context": "http://10.0.0.2:8000/v1 a@b.org"})
    assert clean.passed


def test_this_machines_folders_fail_the_scan_by_kind_never_by_path(bundle: Path) -> None:
    host = HostPaths(
        [
            HostPath("/home/ann", "<home>", "the home folder"),
            HostPath("/home/ann/genstrat", "<project>", "the project folder"),
            HostPath("/tmp", "<tmp>", "the temporary folder", inside=True),
            HostPath("/", "<root>", "the root folder"),  # never searched for
        ]
    )
    frame = pd.DataFrame({"path": ["/home/ann/genstrat/programs/p.py"], "n": [1]})
    frame.to_parquet(bundle / "tables" / "roster.parquet", compression="zstd")
    result = redaction_scan(files(bundle), {}, root=bundle, host=host)
    assert not result.passed and "/home/ann" not in str(result)
    assert result.message.endswith("tables/roster.parquet: an absolute path of the project folder")
    assert host.find(b"/home/annex and /tmp alone and /rooted, 1/2") == []
    assert host.find(b"PATH=/usr/bin:/home/ann/bin") == ["an absolute path of the home folder"]
    assert host.find(b"file:///tmp/x") == ["an absolute path of the temporary folder"]
    assert host.scrub("cd /home/ann/genstrat/x && ls /tmp/t") == "cd <project>/x && ls <tmp>/t"


def test_scrubbing_paths_and_url_credentials() -> None:
    host = HostPaths([HostPath("/home/ann", "<home>", "the home folder")])
    said = "open /proc/self/mountinfo: root=/dev/vda BOOT_IMAGE=/vmlinuz PATH=/bin:/home/ann/b"
    assert scrub_paths(said, host) == (
        "open <path>: root=<path> BOOT_IMAGE=<path> PATH=<path>:<path>"
    )
    kept = "HTTP 404 from https://api.example.org/v1/chat, 1/2 of the moves, w/o a reply"
    assert scrub_paths(kept, host) == kept
    assert scrub_paths("file:///etc/passwd", host) == "file://<path>"
    assert strip_userinfo("at http://u:p@ss@h:1/v1 and https://t@h/x") == (
        "at http://h:1/v1 and https://h/x"
    )
    assert strip_userinfo("http://u:p@h/v1", "[redacted]") == "http://[redacted]@h/v1"


def test_userinfo_is_found_in_bytes_only_before_the_host() -> None:
    assert USERINFO.search(b"http://u:p@host/v1") and USERINFO.search(b"https://tok@h")
    assert not USERINFO.search(b"https://host/users/@bob and mail a@b.org")
