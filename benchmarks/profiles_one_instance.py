"""Profiles in one instance (issue 39, item 2), at their real sizes: ``make run``'s refresh of
each profile in turn into one Dagster instance, one data folder and one release store, then each
profile alone into a fresh instance; every release of the shared instance must equal the fresh
one's, and a later profile must leave an earlier one's tables as they were.

Usage:
    PYTHONPATH=. .venv/bin/python benchmarks/profiles_one_instance.py [--profiles demo,paper]
        [--out DIR] [--keep] [--json]

Each refresh is ``python -m pipelines.run_main`` (what ``make run`` runs) in a process of its
own with ``DAGSTER_HOME``, ``GENSTRAT_DATA`` and ``GENSTRAT_RELEASES`` under the scratch folder
(``--out``, else a temporary one, removed unless ``--keep``) and ``GENSTRAT_PROFILE`` set to the
profile; the instance is the repository's ``instance/dagster.yaml`` (SQLite).  The paper profile
is the paper's sizes (12,351 seeds, 50 games): on two cores it takes tens of minutes.

Report: per refresh its seconds and exit code; per profile the release id published in the
shared instance and in the fresh one, and whether they are equal; whether the Parquet files of
every earlier profile were byte for byte the same after each later refresh; the code version
in each release's manifest (a release id covers the commit, so every refresh of one comparison
must run at one commit: a pair made at two says so on stderr).  Progress goes to
stderr; the report is appended to ``benchmarks/results.jsonl`` (``benchmarks/results.py``).
Exit 0 when every release is equal and every earlier table untouched, else 1.

A run started again with the same ``--out`` resumes: each refresh that ended with exit 0 is
kept from ``state.json`` of the scratch folder (with the hashes of the earlier profiles' tables
taken before it), and the others run again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from results import REPO, record  # benchmarks/results.py

from tests.support import instance_environment, releases_by_profile


def refresh(root: Path, profile: str, label: str) -> dict[str, Any]:
    """``make run``'s refresh of ``profile`` into ``root``: seconds, exit code, log path."""
    log = root.parent / f"{label}.log"
    print(f"profiles: {label} ({profile}) ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    with log.open("w") as out:
        done = subprocess.run(
            [sys.executable, "-m", "pipelines.run_main"], env=instance_environment(root, profile),
            cwd=REPO, stdout=out, stderr=subprocess.STDOUT, check=False,
        )  # fmt: skip
    seconds = time.perf_counter() - started
    print(f"profiles: {label} exit {done.returncode} in {seconds:.0f} s", file=sys.stderr)
    return {"seconds": round(seconds, 1), "exit": done.returncode, "log": str(log)}


def code_version(store: Path, release: str | None) -> str | None:
    """The ``code_version`` in a published release's manifest (the commit it was made at: a
    release id covers it, so two releases made at different commits never compare equal)."""
    if release is None or not (manifest := store / release / "manifest.json").is_file():
        return None
    found = json.loads(manifest.read_text()).get("code_version")
    return None if found is None else str(found)


def tables_of(data: Path, profile: str) -> dict[str, str]:
    """SHA-256 of every Parquet file under a profile's data."""
    base = data / profile
    return {
        str(p.relative_to(data)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(base.rglob("*.parquet"))
    }


class State:
    """What finished, kept in ``state.json`` of the scratch folder so a run can resume."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}

    def done(self, label: str) -> dict[str, Any] | None:
        step = self.data.get(label)
        return step if step is not None and step.get("exit") == 0 else None

    def save(self, label: str, step: dict[str, Any]) -> None:
        self.data[label] = step
        self.path.write_text(json.dumps(self.data, indent=1, sort_keys=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", default="demo,paper", help="comma-separated, in order")
    parser.add_argument("--out", type=Path, default=None, help="scratch folder (resumable)")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    profiles = [p.strip() for p in args.profiles.split(",") if p.strip()]
    if len(profiles) < 2 or len(set(profiles)) != len(profiles):
        parser.error("--profiles names at least two different profiles")
    load = os.getloadavg()[0]
    scratch = args.out or Path(tempfile.mkdtemp(prefix="genstrat-profiles-"))
    scratch.mkdir(parents=True, exist_ok=True)
    state = State(scratch / "state.json")
    shared = scratch / "shared"
    report: dict[str, Any] = {"profiles": profiles, "shared": {}, "alone": {}, "untouched": {}}
    try:
        for i, profile in enumerate(profiles):
            label = f"shared-{profile}"
            step = state.done(label)
            if step is None:
                before = {p: tables_of(shared / "data", p) for p in profiles[:i]}
                step = refresh(shared, profile, label) | {"tables_before": before}
                state.save(label, step)
            for p, hashes in step["tables_before"].items():
                same = tables_of(shared / "data", p) == hashes
                report["untouched"][f"{p} after {profile}"] = same and bool(hashes)
            report["shared"][profile] = {k: v for k, v in step.items() if k != "tables_before"}
        for profile in profiles:
            label = f"alone-{profile}"
            alone = scratch / label
            step = state.done(label)
            if step is None:
                step = refresh(alone, profile, label)
                step["release"] = releases_by_profile(alone / "releases").get(profile)
                state.save(label, step)
            report["alone"][profile] = step
        published = releases_by_profile(shared / "releases")
        for profile in profiles:
            report["shared"][profile]["release"] = published.get(profile)
        report["equal"] = {
            p: report["shared"][p]["release"] is not None
            and report["shared"][p]["release"] == report["alone"][p]["release"]
            for p in profiles
        }
        report["code_versions"] = {
            p: [
                code_version(shared / "releases", report["shared"][p]["release"]),
                code_version(scratch / f"alone-{p}" / "releases", report["alone"][p]["release"]),
            ]
            for p in profiles
        }
    finally:
        if args.out is None and not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    ok = all(report["equal"].values()) and all(report["untouched"].values())
    report["ok"] = ok
    record("profiles_one_instance", report, load)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for p in profiles:
            print(
                f"{p}: shared {report['shared'][p]['release']} "
                f"({report['shared'][p]['seconds']:.0f} s), alone {report['alone'][p]['release']} "
                f"({report['alone'][p]['seconds']:.0f} s), equal {report['equal'][p]}"
            )
        for what, same in report["untouched"].items():
            print(f"tables of {what}: {'untouched' if same else 'CHANGED'}")
    for p, (here, there) in report["code_versions"].items():
        if here != there:
            print(
                f"profiles: {p}'s shared and alone releases were made at different code versions "
                f"({here}, {there}): their ids cannot agree; run again at one commit",
                file=sys.stderr,
            )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
