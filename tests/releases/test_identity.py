"""The release id over every file: the streaming digests, and the id's binding of the files
that name it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from releases.bundle import RELEASE_ID_PATTERN, build_bundle
from releases.identity import PLACEHOLDER, Digester, bind_release_id, derive_release_id
from tests.releases.support import PASSING, sample_inputs

ID = "gs-0123456789abcdef0123456789abcdef"
LEGACY_ID = "gs-0123456789abcdef"


@pytest.mark.parametrize("release_id", [ID, LEGACY_ID])
@given(
    pieces=st.lists(st.binary(max_size=40), max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=8),
)
def test_the_digests_do_not_depend_on_how_the_stream_is_cut(
    release_id: str, pieces: list[bytes], cuts: list[int]
) -> None:
    """Whatever the chunks, the digests equal the whole file's, and the id's offsets are where
    it was put (occurrences spanning a cut included); an old 64-bit id is blanked with the
    placeholder its release was hashed with."""
    from releases.identity import placeholder_for

    data = release_id.encode().join(pieces)
    digester = Digester(release_id)
    start = 0
    for cut in [*sorted({min(c, len(data)) for c in cuts}), len(data)]:
        digester.update(data[start:cut])
        start = cut
    got = digester.result()
    assert got.bytes == len(data)
    assert got.sha256 == hashlib.sha256(data).hexdigest()
    blanked = data.replace(release_id.encode(), placeholder_for(release_id).encode())
    assert got.sha256_without_id == hashlib.sha256(blanked).hexdigest()
    expected, at = [], 0
    for piece in pieces[:-1]:
        at += len(piece)
        expected.append(at)
        at += len(release_id)
    assert got.id_offsets == tuple(expected)


def test_a_needle_must_be_as_long_as_an_id() -> None:
    with pytest.raises(ValueError, match="not as long as a release id"):
        Digester("gs-1")


def test_bind_writes_the_id_where_the_placeholder_was(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(f"# release {PLACEHOLDER}\n\nsee {PLACEHOLDER}.tar.gz\n")
    (tmp_path / "data.txt").write_text("numbers\n")
    entries = [{"path": "README.md", "role": "readme"}, {"path": "data.txt", "role": "text"}]
    bound = bind_release_id(tmp_path, {"format": "f", "release_id": PLACEHOLDER, "files": entries})
    release_id = bound["release_id"]
    assert release_id == derive_release_id(bound) != PLACEHOLDER
    readme = (tmp_path / "README.md").read_text()
    assert readme == f"# release {release_id}\n\nsee {release_id}.tar.gz\n"
    entry = bound["files"][0]
    assert entry["id_offsets"] == [10, 10 + len(release_id) + 6]
    assert entry["sha256"] == hashlib.sha256(readme.encode()).hexdigest()
    assert "id_offsets" not in bound["files"][1]


def test_bind_refuses_an_unlisted_file_and_a_missing_one(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    with pytest.raises(ValueError, match=r"bundle file a\.txt has no manifest entry"):
        bind_release_id(tmp_path, {"files": []})
    with pytest.raises(ValueError, match=r"manifest entry b\.txt has no file"):
        bind_release_id(tmp_path, {"files": [{"path": "a.txt"}, {"path": "b.txt"}]})


def test_the_built_id_covers_the_readme_and_every_manifest_key(tmp_path: Path) -> None:
    tables, texts, images, context = sample_inputs()
    folder = build_bundle(tables, texts, images, context, gates=PASSING, root=tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert derive_release_id(manifest) == folder.name
    readme = next(e for e in manifest["files"] if e["path"] == "README.md")
    assert readme["id_offsets"] and PLACEHOLDER not in (folder / "README.md").read_text()
    for key in [k for k in manifest if k not in ("release_id", "files")]:
        edited = {**manifest, key: "edited"}
        assert derive_release_id(edited) != folder.name, key
    edited_entry = [{**e, "role": "readme"} for e in manifest["files"]]
    assert derive_release_id({**manifest, "files": edited_entry}) != folder.name


def test_a_new_release_id_has_128_bits_and_an_old_one_still_derives(tmp_path: Path) -> None:
    """Issue 43: the id was 64 bits (a 32-bit prefix collided in 70,595 tries); a new release's
    id has 32 hex digits, while a manifest naming an old 16-digit id derives 16 digits as it
    was published (and the two never coincide)."""
    from releases.identity import LEGACY_PLACEHOLDER, placeholder_for

    tables, texts, images, context = sample_inputs()
    folder = build_bundle(tables, texts, images, context, gates=PASSING, root=tmp_path)
    assert len(folder.name) == len("gs-") + 32 and RELEASE_ID_PATTERN.match(folder.name)
    assert len(PLACEHOLDER) == len(folder.name) and not RELEASE_ID_PATTERN.match(PLACEHOLDER)
    manifest = json.loads((folder / "manifest.json").read_text())
    old = derive_release_id({**manifest, "release_id": LEGACY_ID})
    assert len(old) == len(LEGACY_ID) and RELEASE_ID_PATTERN.match(old)
    assert folder.name.startswith(old) and old != folder.name
    assert placeholder_for(LEGACY_ID) == LEGACY_PLACEHOLDER == "gs-RELEASEIDPENDING"
