"""The whole graph under two storage roots: the release must not depend on where data lives.

Usage: PYTHONPATH=. python benchmarks/storage_roots.py [--profile tiny] [--json]

Runs ``python -m pipelines.run_main`` (what ``make run`` runs) twice, each on a fresh SQLite
instance and release store of its own:

- ``folder``: ``GENSTRAT_DATA`` a plain folder, the default form (the Makefile's), tables,
  step values and the harness's working files in it;
- ``url``: ``GENSTRAT_DATA`` a ``file://`` URL of another folder, read and written through the
  storage layer (``upath.UPath`` over fsspec's local file system), and ``GENSTRAT_WORK`` a third
  folder for the journals, the response cache and the other POSIX files.

Reports each run's wall time and published release id, whether the ids are equal, where the
tables went (the asset tables under each storage root; none of the ``url`` run's tables at
the same place under its working folder), and exits 1 when the ids differ or a table landed in
the working folder.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RELEASE_LINE = re.compile(r"release (\S+) published at")


def run_graph(folder: Path, profile: str, data: str, work: str | None) -> dict[str, object]:
    """One ``run_main`` refresh with storage ``data`` (and working folder ``work``)."""
    home = folder / "dagster_home"
    home.mkdir(parents=True)
    shutil.copy(REPO / "instance" / "dagster.yaml", home / "dagster.yaml")
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "GENSTRAT_DATA": data,
        "GENSTRAT_RELEASES": str(folder / "releases"),
        "GENSTRAT_PROFILE": profile,
        "PYTHONPATH": str(REPO),
    }
    env.pop("GENSTRAT_WORK", None)
    if work is not None:
        env["GENSTRAT_WORK"] = work
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.run_main"],
        cwd=folder,  # not the repository: a relative default would land elsewhere
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.monotonic() - started
    found = RELEASE_LINE.findall(done.stdout)
    return {
        "exit": done.returncode,
        "seconds": round(seconds, 1),
        "release_id": found[-1] if found else None,
        "tail": (done.stdout + done.stderr).strip().splitlines()[-3:],
    }


def parquet_files(folder: Path) -> int:
    return sum(1 for _ in folder.rglob("*.parquet")) if folder.exists() else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="tiny")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="genstrat-roots-") as tmp:
        base = Path(tmp)
        first = base / "folder"
        second = base / "url"
        folder_data = first / "data"
        url_data = second / "storage"
        url_work = second / "work"
        results = {
            "folder": run_graph(first, args.profile, str(folder_data), None),
            "url": run_graph(second, args.profile, url_data.as_uri(), str(url_work)),
        }
        results["folder"]["tables"] = parquet_files(folder_data)
        results["url"]["tables"] = parquet_files(url_data)
        stored = [p.relative_to(url_data) for p in url_data.rglob("*.parquet")]
        results["url"]["tables_in_working_folder"] = sum((url_work / p).exists() for p in stored)
        results["url"]["working_folder_files"] = sum(1 for p in url_work.rglob("*") if p.is_file())
    ids = {results[k]["release_id"] for k in ("folder", "url")}
    same = len(ids) == 1 and None not in ids
    misplaced = results["url"]["tables_in_working_folder"] != 0
    report = {"profile": args.profile, "same_release": same, **results}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for name in ("folder", "url"):
            r = results[name]
            print(
                f"{name:6s} exit {r['exit']}  {r['seconds']} s  release {r['release_id']}  "
                f"{r['tables']} Parquet files in storage"
            )
        print(
            f"working folder of the url run: {results['url']['working_folder_files']} files, "
            f"{results['url']['tables_in_working_folder']} of them asset tables"
        )
        print(f"same release id: {same}")
    return 0 if same and not misplaced else 1


if __name__ == "__main__":
    sys.exit(main())
