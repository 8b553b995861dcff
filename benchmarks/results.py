"""The benchmarks' results file: one JSON line per run, appended, never rewritten.

``record(tool, figures)`` appends to ``benchmarks/results.jsonl`` the date (UTC), the commit of
this checkout (``+dirty`` when its tracked files differ from it), the machine's load average
before and after the run, the command line and the figures the tool reports.  Prose quotes no
timing: docs link this file, where every figure sits beside what produced it.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results.jsonl"


def _commit() -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def record(tool: str, figures: dict[str, Any], load_before: float, path: Path = RESULTS) -> None:
    """Append one run of ``tool`` with its ``figures`` (``load_before``: the one-minute load
    average when it started)."""
    line = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "tool": tool,
        "commit": _commit(),
        "load": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "command": " ".join(sys.argv),
        "figures": figures,
    }
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, sort_keys=True) + "\n")
