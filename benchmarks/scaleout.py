"""Wall time of one selection of the graph in-process versus on a two-worker Dask cluster.

Usage: PYTHONPATH=. python benchmarks/scaleout.py [--games N] [--concurrent-runs R] [--steps S]
       [--json]

Starts a throwaway PostgreSQL server and a Dask cluster (a scheduler and two single-threaded
workers, separate processes; ``tests/servers.py``), opens the deployment instance
(``deploy/dagster.postgres.yaml``) against it, and runs the selection of
``tests/scaleout_runs.py`` twice on the demo profile: the pool stage and the roster, then the
``axis_scores`` and the tournament (``match_corpus``, ``match_moves``) of the first ``--games``
benchmark games, one run per game.

- in-process: ``scaleout_job`` with ``execute_in_process``, every step in this process, the
  pool screening, screening axes and axes of a game on a process pool of both cores;
- on the cluster: each step a Dask task in a worker (a worker is a daemonic process, so each
  step computes on one core), the per-game axis runs ``--concurrent-runs`` at a time, each
  launched from its own process as a run launcher would, then the tournaments one at a time,
  each dealt into ``--steps`` play steps that the workers play at once.

Reports both wall times and their ratio (cluster / in-process; above 1 means the cluster is
slower), and checks that both wrote the same tables (timing columns aside).  Everything it
started is stopped at the end.  On a two-core machine the cluster cannot beat the in-process
pool: it has the same two cores and adds task shipping, the workers' cold import of the code
location and a process per launched run; the figure shows that overhead, and how it would
amortise is a question for a machine with more cores than this project has.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import dagster as dg
import pandas as pd

from tests.scaleout_runs import SelectionRuns, read_outputs, run_selection
from tests.servers import dask_cluster, postgres_server
from tests.support import POSTGRES_INSTANCE_YAML


def same_tables(left: Path, right: Path) -> bool:
    """Whether two data folders hold the same tables, wall-time columns aside."""
    a, b = read_outputs(left), read_outputs(right)
    if set(a) != set(b):
        return False
    for name, frame in a.items():
        try:
            pd.testing.assert_frame_equal(frame, b[name])
        except AssertionError:
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="benchmark games (demo: 8)")
    parser.add_argument("--concurrent-runs", type=int, default=2)
    parser.add_argument("--steps", type=int, default=2, help="play steps per game (cluster)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.games <= 8 or args.concurrent_runs < 1 or args.steps < 1:
        parser.error(
            "--games must be in 1..8 (the demo benchmark), --concurrent-runs and --steps >= 1"
        )

    root = Path(tempfile.mkdtemp(prefix="genstrat-bench-scaleout-"))
    home, local, shared = root / "dagster_home", root / "in_process", root / "cluster"
    home.mkdir()
    shutil.copy(POSTGRES_INSTANCE_YAML, home / "dagster.yaml")
    report: dict[str, object] = {
        "games": args.games,
        "concurrent_runs": args.concurrent_runs,
        "steps": args.steps,
    }
    try:
        started = time.perf_counter()
        with postgres_server() as server:
            env = {
                **server.env(),
                "DAGSTER_HOME": str(home),
                "GENSTRAT_DATA": str(shared),
                "GENSTRAT_PROFILE": "demo",
            }
            os.environ.update(env)
            with dask_cluster(workers=2, env=env) as cluster:
                report["setup_seconds"] = time.perf_counter() - started
                with dg.DagsterInstance.get() as instance:
                    os.environ["GENSTRAT_DATA"] = str(local)
                    here = run_selection(instance, games=args.games)
                    os.environ["GENSTRAT_DATA"] = str(shared)
                    there = run_selection(
                        instance,
                        games=args.games,
                        cluster=cluster,
                        concurrent_runs=args.concurrent_runs,
                        steps=args.steps,
                    )
        if not (here.success and there.success):
            raise SystemExit(
                f"scaleout benchmark: a run failed (in-process ok: {here.success}, "
                f"cluster ok: {there.success})"
            )
        report["in_process_seconds"] = here.seconds
        report["in_process_pool_stage_seconds"] = here.pool_seconds
        report["cluster_seconds"] = there.seconds
        report["cluster_pool_stage_seconds"] = there.pool_seconds
        report["cluster_over_in_process"] = there.seconds / here.seconds
        report["same_tables"] = same_tables(local, shared)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"pool stage + axis_scores and tournament of {args.games} games (demo profile), "
        f"{args.concurrent_runs} axis runs at a time and {args.steps} play steps per "
        "tournament on the cluster:\n"
        f"{timing_line('in-process (2-core process pool)', here)}\n"
        f"{timing_line('Dask cluster (2 workers)', there)}\n"
        f"  ratio cluster / in-process:       {report['cluster_over_in_process']:7.2f}\n"
        f"  same tables: {report['same_tables']}; server and cluster start-up "
        f"{report['setup_seconds']:.1f} s (not counted)"
    )


def timing_line(label: str, runs: SelectionRuns) -> str:
    games = runs.seconds - runs.pool_seconds
    return (
        f"  {label + ':':<33} {runs.seconds:7.1f} s "
        f"(pool stage {runs.pool_seconds:.1f} s, games {games:.1f} s)"
    )


if __name__ == "__main__":
    main()
