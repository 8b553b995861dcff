"""An anchor revision beside this checkout, for the benchmarks that compare the two.

``anchor_tree(revision)`` checks the revision out into a temporary git worktree and removes it
on the way out, also when the benchmark is stopped (SIGTERM, SIGINT).  ``run_arm`` runs a piece
of Python in a fresh process in one tree and returns the JSON of the last line it prints.  A
child starts with ``ISOLATE``: it drops the checkout's editable install from the import system
(otherwise it would answer for the modules a revision lacks: ``arena.compiled_engine`` in an
anchor from before it, which would then be this checkout's), and ``only_this_tree(arm)`` ends
the child when any ``arena`` or ``engines`` module came from outside its tree.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ANCHOR = "048f9e6"  # the tree before the fixed-chance trees, the kernel and the compiled engine
ARMS = ("anchor", "current")

ISOLATE = r"""
import os, sys
sys.meta_path[:] = [f for f in sys.meta_path if not f.__module__.startswith("__editable__")]

def only_this_tree(arm):
    tree = os.getcwd()
    for name, module in list(sys.modules.items()):
        where = os.path.abspath(getattr(module, "__file__", None) or "/")
        if name.split(".")[0] in ("arena", "engines") and not where.startswith(tree + os.sep):
            sys.exit(f"the {arm} arm loaded {name} from outside its tree: {where}")

def compiled_engine():
    try:
        from arena.compiled_engine import enable
    except ImportError:
        return "interpreted (no compiled engine at this revision)"
    return enable()
"""


@contextlib.contextmanager
def anchor_tree(revision: str, tool: str) -> Iterator[Path]:
    """A detached checkout of ``revision``, removed afterwards; ``tool`` names the benchmark in
    the one line of an error."""
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        with tempfile.TemporaryDirectory(prefix="genstrat-anchor-") as scratch:
            path = Path(scratch) / "anchor"
            done = subprocess.run(
                ["git", "-C", str(REPO), "worktree", "add", "--detach", str(path), revision],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise SystemExit(f"{tool}: cannot check out {revision}: {done.stderr.strip()}")
            try:
                yield path
            finally:
                subprocess.run(
                    ["git", "-C", str(REPO), "worktree", "remove", "--force", str(path)],
                    capture_output=True,
                )
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds through the worktree's removal and the child's end


def run_arm(
    tool: str, code: str, arm: str, tree: Path, args: list[str], stdin: str = ""
) -> dict[str, Any]:
    """``ISOLATE`` then ``code`` in a fresh process in ``tree`` (``sys.argv[1:]`` is ``arm``
    then ``args``); the JSON of its last line.  Its stderr (progress) passes through; the child
    is ended if this process is stopped."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory(prefix=f"genstrat-{tool}-") as data:
        env["GENSTRAT_DATA"] = data
        child = subprocess.Popen(
            [sys.executable, "-c", ISOLATE + code, arm, *args],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,  # so that ending it ends its pool's workers too
        )
        try:
            out, _ = child.communicate(stdin)
        finally:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
    if child.returncode != 0:
        raise SystemExit(f"{tool}: the {arm} arm failed (exit {child.returncode})")
    found: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return found


def alternate(
    revision: str, tool: str, rounds: int, measure: Callable[[str, Path], dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """``measure(arm, tree)`` for both arms in every round, the anchor first in odd rounds (so
    that a slower or faster spell of the machine falls on both); the results by arm."""
    runs: dict[str, list[dict[str, Any]]] = {arm: [] for arm in ARMS}
    with anchor_tree(revision, tool) as anchor:
        trees = {"anchor": anchor, "current": REPO}
        for round_ in range(rounds):
            for arm in ARMS if round_ % 2 == 0 else tuple(reversed(ARMS)):
                runs[arm].append(measure(arm, trees[arm]))
    return runs
