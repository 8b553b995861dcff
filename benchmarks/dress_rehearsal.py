"""The dress rehearsal (issue 41, item 7): a paper-size LLM tournament through the Dagster graph,
against the planted-skill field over HTTP, measured.

Usage:
    PYTHONPATH=. .venv/bin/python benchmarks/dress_rehearsal.py [--models 12] [--games 50]
        [--runs N] [--latency-s 1.0] [--concurrency 8] [--requests-per-minute 600]
        [--executor in-process|dask] [--lanes 5] [--kill-at 0.5] [--json] [--out DIR] [--keep]
        [--record]
    a small run: --models 4 --games 5 (runs default to 2 below paper size)

What it does, in a scratch folder (``--out``, else a temporary one, removed unless ``--keep``):

1. **Games**: the first ``--games`` seeds from ``--seed-start`` of the paper's generation
   configuration that pass the acceptance filter (``engines.gbg.acceptance``), as a
   ``benchmark_games`` table written where the graph reads it, and the partitions it names.
2. **Field**: ``--models`` planted-skill models (``tests/doubles/planted_server.py``: skills evenly
   spaced from 0 to 1, log-normal latency of median ``--latency-s``, a rate limit of
   ``--requests-per-minute`` per model, overloads answered 429, illegal answers, reasoning
   tokens), served by the planted server in a process of its own, which knows the games; the
   roster gives each model a provider group of its own with ``--concurrency`` requests in flight
   and the same rate limit (the legs' roster splits both between the ``--lanes``).
3. **Plan**: ``tournament plan`` of the run (``arena.tournament.plan``) before anything is
   played, then calibrated on a calibration run (the harness alone, ``run_tournament`` outside
   Dagster: the first run of every matchup, on the first ``--calibration-games`` games, in a
   scratch folder), whose wall time against its provider-bound ideal is the harness's own
   overhead.
4. **Leg A, uninterrupted**: in a child process, the graph's own assets of the ``paper`` profile
   (runs overridden by ``--runs``): ``roster`` (from ``$GENSTRAT_ROSTER``), one run per game of
   ``match_corpus``/``match_moves``, ``--lanes`` games at once (each lane a process that starts
   one Dagster run after another, with ``1/lanes`` of every provider's concurrency and request
   rate, so that one game's tail and one run's start-up overlap with other games' play; on
   ``--executor dask``, ``scaleout_job`` on a local Dask cluster of one worker a lane with a
   PostgreSQL instance, each game's matches played in one step), then ``complete_pairs`` and
   ``leaderboards``.
5. **Leg B, killed and resumed**: the same in another data folder, killed with SIGKILL (its whole
   process group) once ``--kill-at`` of the matches are journalled, then started again to the
   end.  The server draws its faults from each request and its attempt number (the harness's
   ``x-retry-count``), so both legs meet the same faults whatever the timing.

Report: matches, calls; wall time of leg A's tournament against the provider-bound ideal (per
model the larger of answered requests x mean latency / allowed concurrency and requests / rate
limit, the slowest model's) and its longest match; the harness's overhead (calibration run:
wall time against its ideal, CPU milliseconds a call of the harness and of the provider) and
Dagster's (the games' phase beyond the time some match was in play; each run beyond its own
play, summed); the peak memory and CPU seconds of every process (sampled), and the CPU a call
of each leg (its lanes and Dask workers included); the bill (calls, input and output tokens,
cost) against the plan, the calibrated plan and the server's own count; the rank correlation of
the leaderboard with the planted strengths; and whether leg B's tables equal leg A's
(wall-clock and latency columns aside), with the requests the kill lost in flight.  The report
so far is kept in ``partial.json`` of the scratch folder after the calibration and after leg A;
``--record`` appends the whole report to ``benchmarks/results/dress_rehearsal.jsonl``.

The full size (12 models x 50 games, the fewest runs past 40,000 matches: 7, 46,200 matches,
about 240,000 requests a leg) needs a provider-bound pace the machine's CPU can keep: about
2.5 ms of CPU a request (harness and provider) and tens of CPU seconds a Dagster run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PAPER_MATCHES = 40_000
PROFILE = "paper"
EDITION = "1"
ASSET_TOURNAMENT = ("match_corpus", "match_moves")
ASSET_STATS = ("complete_pairs", "leaderboards")
# Columns a resumed run may write otherwise: wall clock, latency, and ``cached`` (the replies a
# resumed match read back from its response cache, which the killed run had paid for).
IGNORED = ("started_at", "finished_at", "duration_s", "latency_s", "cached")
RESULTS = REPO / "benchmarks" / "results" / "dress_rehearsal.jsonl"
SMALL_PROCESS_MB = 100  # processes below this peak are reported together


# --- the field, the games, the roster ---------------------------------------------------------


def accepted_games(count: int, start: int) -> list[Any]:
    """The first ``count`` seeds from ``start`` of the paper configuration that pass the
    acceptance filter, as games."""
    from arena.games import resolve_games
    from engines.gbg.acceptance import evaluate

    games: list[Any] = []
    seed = start
    while len(games) < count:
        game = resolve_games([str(seed)], PROFILE)[0]
        if evaluate(game.generated)["accepted"]:
            games.append(game)
        seed += 1
    return games


def benchmark_table(games: list[Any]) -> Any:
    """The ``benchmark_games`` columns the tournament reads: the game, its spec, its hash."""
    import pandas as pd

    return pd.DataFrame(
        {
            "game": [g.token for g in games],
            "order": list(range(len(games))),
            "seed": [int(g.token) for g in games],
            "spec_hash": [g.spec.spec_hash for g in games],
            "spec_json": [g.spec.model_dump_json() for g in games],
        }
    )


def field_models(args: argparse.Namespace) -> list[Any]:
    from tests.doubles.planted_server import planted_field

    return planted_field(
        args.models,
        latency_s=args.latency_s,
        latency_sigma=args.latency_sigma,
        requests_per_minute=args.requests_per_minute,
        burst=max(2.0, args.requests_per_minute / 60.0),
        illegal_rate=args.illegal_rate,
        overload_rate=args.overload_rate,
        overload_retry_after_s=args.overload_retry_after_s,
        reasoning_tokens=args.reasoning_tokens,
    )


def mean_latency(model: Any, output_tokens: float) -> float:
    """The server's mean seconds per answered request (log-normal mean, plus output time)."""
    median, sigma = float(model.latency_s), float(model.latency_sigma)
    return median * math.exp(sigma**2 / 2) + float(model.per_output_token_s) * output_tokens


# --- processes --------------------------------------------------------------------------------


def _by_peak(row: dict[str, Any]) -> float:
    return -float(row["peak_rss_mb"])


class MemoryWatch:
    """Samples the resident set of this process's descendants and of ``extra`` processes every
    ``every_s``; keeps each process's peak, labelled by its command line."""

    def __init__(self, every_s: float = 0.5) -> None:
        import psutil  # type: ignore[import-untyped]

        self.psutil = psutil
        self.every_s = every_s
        self.extra: dict[int, str] = {}
        self.labels: dict[int, str] = {}
        self.peaks: dict[int, int] = {}
        self.cpu: dict[int, float] = {}  # seconds of CPU (user and system), the last sample
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memory-watch", daemon=True)

    def label(self, pid: int, name: str) -> None:
        self.labels[pid] = name

    def cpu_of(self, pid: int) -> float:
        """Seconds of CPU ``pid`` has used (sampled now)."""
        with contextlib.suppress(self.psutil.Error):
            times = self.psutil.Process(pid).cpu_times()
            self.cpu[pid] = times.user + times.system
        return self.cpu.get(pid, 0.0)

    def start(self) -> MemoryWatch:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _sample(self) -> None:
        me = self.psutil.Process()
        for proc in [me, *me.children(recursive=True)]:
            with contextlib.suppress(self.psutil.Error):
                rss = proc.memory_info().rss
                if rss > self.peaks.get(proc.pid, 0):
                    self.peaks[proc.pid] = rss
                times = proc.cpu_times()
                self.cpu[proc.pid] = times.user + times.system
                if proc.pid not in self.labels:
                    parent = self.labels.get(proc.ppid())
                    if parent is not None and parent.startswith("leg "):
                        self.labels[proc.pid] = f"lane of {parent.split(' (')[0]}"
                    else:
                        cmd = " ".join(proc.cmdline()[:6])
                        self.labels[proc.pid] = cmd[:120] or proc.name()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self._sample()

    def report(self) -> list[dict[str, Any]]:
        me = os.getpid()
        self.peaks[me] = max(
            self.peaks.get(me, 0), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        )
        self.labels[me] = "driver (this script)"
        times = os.times()
        self.cpu[me] = times.user + times.system
        rows: list[dict[str, Any]] = [
            {
                "pid": pid, "process": self.labels.get(pid, "?"),
                "peak_rss_mb": round(rss / 2**20, 1), "cpu_s": round(self.cpu.get(pid, 0.0), 1),
            }
            for pid, rss in self.peaks.items()
        ]  # fmt: skip
        big = sorted((r for r in rows if r["peak_rss_mb"] >= SMALL_PROCESS_MB), key=_by_peak)
        small = [r for r in rows if r["peak_rss_mb"] < SMALL_PROCESS_MB]
        if small:  # PostgreSQL's backends, the compute logs' tails, the dask launchers
            big.append(
                {
                    "pid": None, "process": f"{len(small)} processes under {SMALL_PROCESS_MB} MB",
                    "peak_rss_mb": max(r["peak_rss_mb"] for r in small),
                    "cpu_s": round(sum(r["cpu_s"] for r in small), 1),
                }
            )  # fmt: skip
        return big


def start_server(root: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """The planted server in a process of its own; (process, URL)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.doubles.planted_server", "--field", str(root / "field.json"),
         "--games", str(root / "games.json")],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=(root / "server.log").open("w"),
        text=True, start_new_session=True,
    )  # fmt: skip
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    if not url.startswith("http"):
        process.kill()
        raise SystemExit(f"dress rehearsal: the planted server did not start (see {root})")
    return process, url


def server_stats(url: str) -> dict[str, dict[str, Any]]:
    with urllib.request.urlopen(f"{url}/stats", timeout=30) as reply:
        data: dict[str, dict[str, Any]] = json.loads(reply.read())
    return data


def delta(after: dict[str, dict[str, Any]], before: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The server's account between two readings, summed over the models, and per model."""
    per = {
        name: {k: v - before.get(name, {}).get(k, 0) for k, v in account.items()}
        for name, account in after.items()
    }
    total = {k: sum(p[k] for p in per.values()) for k in next(iter(per.values()))}
    return {"total": total, "models": per}


# --- a leg: the graph in a child process ------------------------------------------------------


def run_assets(spec: dict[str, Any], names: tuple[str, ...], partition: str | None) -> float:
    """One Dagster run of the assets ``names`` (of ``partition``): ``scaleout_job`` on the Dask
    cluster at ``spec["address"]``, else the main job in process; its seconds."""
    import dagster as dg

    from pipelines.definitions import defs

    config = {"runs": spec["runs"], "parallel": spec["parallel"], "steps": spec["steps"]}
    tournament_config = {"ops": {"match_corpus": {"config": config}}}
    selection = [dg.AssetKey(k) for k in names]
    started = time.perf_counter()
    with dg.DagsterInstance.get() as instance:
        if spec["address"]:
            from pipelines.scaleout import scaleout_job
            from tests.servers import DaskCluster

            run_config: dict[str, Any] = DaskCluster.run_config_for(spec["address"])
            if partition is not None:
                run_config = {**run_config, **tournament_config}
            result = dg.execute_job(
                dg.reconstructable(scaleout_job), instance=instance, run_config=run_config,
                asset_selection=selection,
                tags={"dagster/partition": partition} if partition else None,
            )  # fmt: skip
            ok = result.success
        else:
            # the assets' own job, as the refresh runs them (``main_job`` is the roots alone)
            job = defs.resolve_implicit_job_def_def_for_assets(selection)
            if job is None:
                raise SystemExit(f"leg: no job materializes {list(names)}")
            outcome = job.execute_in_process(
                instance=instance, asset_selection=selection, partition_key=partition,
                run_config=tournament_config if partition is not None else None,
                raise_on_error=False,
            )  # fmt: skip
            ok = outcome.success
    if not ok:
        raise SystemExit(f"leg: the run of {list(names)} ({partition}) failed")
    return time.perf_counter() - started


def play_game(spec: dict[str, Any], token: str) -> tuple[str, float, float, float]:
    """A lane's game: (token, run seconds, start and end on the shared clock)."""
    began = time.time()
    seconds = run_assets(spec, ASSET_TOURNAMENT, token)
    return token, seconds, began, time.time()


def leg_main(spec_path: Path) -> int:
    """The child: the roster, every game's tournament (``spec["lanes"]`` games at once, each
    lane a process of its own that starts one Dagster run after another), the statistics;
    timings on stdout."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    spec = json.loads(spec_path.read_text())
    timings: dict[str, Any] = {"games": {}}
    timings["roster_s"] = run_assets(spec, ("roster",), None)
    began = time.time()
    lanes = max(1, min(int(spec["lanes"]), len(spec["partitions"])))
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(lanes, mp_context=context) as pool:
        futures = [pool.submit(play_game, spec, token) for token in spec["partitions"]]
        for future in futures:
            token, seconds, start, end = future.result()
            timings["games"][token] = {"seconds": seconds, "start": start, "end": end}
    timings["tournament_s"] = time.time() - began
    timings["statistics_s"] = run_assets(spec, ASSET_STATS, None)
    print(json.dumps(timings), flush=True)
    return 0


def journalled(data: Path) -> int:
    """Matches journalled so far under a data folder's tournaments."""
    folder = data / PROFILE / f"edition-{EDITION}" / "tournament"
    total = 0
    for path in folder.glob("*/journal*.jsonl"):
        with contextlib.suppress(OSError), path.open("rb") as handle:
            total += sum(1 for _ in handle)
    return total


def run_leg(
    root: Path, name: str, env: dict[str, str], spec: dict[str, Any], watch: MemoryWatch,
    kill_after: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Leg ``name`` in a child process; with ``kill_after``, SIGKILL it once that many matches
    are journalled and report what was done by then (``killed``)."""
    path = root / f"{name}.json"
    path.write_text(json.dumps(spec))
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, __file__, "--leg", str(path)], cwd=REPO, env=env,
        stdout=subprocess.PIPE, stderr=(root / f"{name}.log").open("w"), text=True,
        start_new_session=True,
    )  # fmt: skip
    watch.label(child.pid, f"leg {name} (Dagster runs in process, the harness)")
    if kill_after is not None:
        data = Path(env["GENSTRAT_DATA"])
        while child.poll() is None and journalled(data) < kill_after:
            time.sleep(0.2)
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            return {"killed": True, "seconds": time.perf_counter() - started,
                    "journalled": journalled(data)}  # fmt: skip
    out, _ = child.communicate()
    if child.returncode != 0:
        raise SystemExit(f"dress rehearsal: leg {name} failed (see {root / (name + '.log')})")
    timings: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    timings["seconds"] = time.perf_counter() - started
    timings["killed"] = False
    return timings


# --- reading the legs -------------------------------------------------------------------------


def tables(data: Path) -> dict[str, Any]:
    """Every partition of the tournament's two tables, and the leaderboard, of a data folder."""
    import pandas as pd

    base = data / PROFILE / f"edition-{EDITION}"
    out: dict[str, Any] = {}
    for name in ASSET_TOURNAMENT:
        for path in sorted((base / name).glob("*.parquet")):
            frame = pd.read_parquet(path)
            out[f"{name}/{path.stem}"] = frame.drop(columns=[c for c in IGNORED if c in frame])
    out["leaderboards"] = pd.read_parquet(base / "leaderboards.parquet")
    return out


def equal_tables(a: dict[str, Any], b: dict[str, Any]) -> tuple[bool, list[str]]:
    import pandas as pd

    differ = sorted(set(a) ^ set(b))
    for key in sorted(set(a) & set(b)):
        try:
            pd.testing.assert_frame_equal(a[key], b[key])
        except AssertionError:
            differ.append(key)
    return not differ, differ


def corpus_usage(data: Path) -> tuple[Any, Any]:
    """(matches, moves) of every game of a data folder."""
    import pandas as pd

    base = data / PROFILE / f"edition-{EDITION}"
    matches = pd.concat([pd.read_parquet(p) for p in sorted((base / "match_corpus").glob("*"))])
    moves = pd.concat([pd.read_parquet(p) for p in sorted((base / "match_moves").glob("*"))])
    return matches, moves


def play_spans(matches: Any) -> dict[str, tuple[float, float]]:
    """A game's first match's start and its last match's end (epoch seconds)."""
    import pandas as pd

    out: dict[str, tuple[float, float]] = {}
    for game, frame in matches.groupby("game"):
        start = pd.to_datetime(frame["started_at"]).min()
        end = pd.to_datetime(frame["finished_at"]).max()
        out[str(game)] = (start.timestamp(), end.timestamp())
    return out


def covered_s(spans: Any) -> float:
    """Seconds covered by the union of (start, end) intervals."""
    total, reach = 0.0, -math.inf
    for start, end in sorted(spans):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total


def longest_match_s(moves: Any, models: list[Any]) -> float:
    """The longest match's chain of requests at the server's mean latency (a match asks one
    request at a time, so no concurrency plays it faster)."""
    latency = {m.name: mean_latency(m, 0.0) for m in models}
    answers = (1 + moves["rethinks"]) * [latency.get(p, 0.0) for p in moves["player"]]
    return float(answers.groupby(moves["match_id"]).sum().max())


def ideal_seconds(moves: Any, models: list[Any], args: argparse.Namespace) -> float:
    """The provider-bound ideal: per model, the larger of answered requests x mean latency /
    allowed concurrency and requests / rate limit; the slowest model's."""
    worst = 0.0
    for m in models:
        own = moves[moves["player"] == m.name]
        if own.empty:
            continue
        answers = float(len(own)) + float(own["rethinks"].sum())
        calls = float(own["calls"].sum())
        out = float(own["output_tokens"].sum()) / max(answers, 1.0)
        latency_bound = answers * mean_latency(m, out) / args.concurrency
        rate_bound = calls * 60.0 / args.requests_per_minute
        worst = max(worst, latency_bound, rate_bound)
    return worst


# --- the driver -------------------------------------------------------------------------------


def kill_point(scheduled: int, games: int, share: float) -> int:
    """The matches journalled at which leg B is killed: ``share`` of them, moved to the middle of
    a game when that falls between two (the graph plays one game after another, and a kill
    between two games' runs would find no match in flight)."""
    per_game = scheduled // games
    point = int(share * scheduled)
    if per_game > 1 and point % per_game == 0:
        point += per_game // 2
    return min(max(point, 1), scheduled - 1)


def default_runs(models: int, games: int) -> int:
    pairs = models * (models - 1) // 2
    if models >= 12 and games >= 50:
        return math.ceil(PAPER_MATCHES / (pairs * games * 2))
    return 2


@contextlib.contextmanager
def instance_home(root: Path, executor: str, env: dict[str, str]) -> Iterator[None]:
    """DAGSTER_HOME for the legs: SQLite in process; a PostgreSQL server for dask."""
    home = root / "dagster_home"
    home.mkdir()
    if executor == "in-process":
        shutil.copy(REPO / "instance" / "dagster.yaml", home / "dagster.yaml")
        env["DAGSTER_HOME"] = str(home)
        yield None
        return
    from tests.servers import postgres_server
    from tests.support import POSTGRES_INSTANCE_YAML

    shutil.copy(POSTGRES_INSTANCE_YAML, home / "dagster.yaml")
    env["DAGSTER_HOME"] = str(home)
    with postgres_server() as server:
        env.update(server.env())
        os.environ.update(env)
        yield None


def play_leg(
    root: Path, name: str, env: dict[str, str], spec: dict[str, Any], watch: MemoryWatch,
    executor: str, kill_after: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """``run_leg``, on a Dask cluster of its own for ``dask`` (its workers read the leg's data
    folder from their environment): a worker a lane, each game's matches played in one step;
    a kill takes the cluster's workers down too."""
    if executor == "in-process":
        return run_leg(root, name, env, spec, watch, kill_after)
    from tests.servers import dask_cluster

    with dask_cluster(workers=spec["lanes"], env=env) as cluster:
        for address, pid in cluster.worker_pids.items():
            watch.label(pid, f"dask worker {address} (leg {name})")
        result = run_leg(
            root, name, env, {**spec, "address": cluster.address, "steps": 1}, watch, kill_after
        )
        if result["killed"]:
            for pid in cluster.worker_pids.values():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leg", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--models", type=int, default=12)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--runs", type=int, default=None, help="default: past 40,000 matches")
    parser.add_argument("--seed-start", type=int, default=0)
    parser.add_argument("--latency-s", type=float, default=1.0, help="median seconds a request")
    parser.add_argument("--latency-sigma", type=float, default=0.25)
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight a model")
    parser.add_argument("--requests-per-minute", type=float, default=600.0, help="a model's")
    # the paper protocol falls back on an illegal answer, and the release gate holds a model's
    # fallback rate to 1% (three times the paper's worst): a planted rate a tenth of it (a
    # small run holds few moves a model, and a few unlucky answers would stop its release gate)
    parser.add_argument("--illegal-rate", type=float, default=0.001)
    parser.add_argument("--overload-rate", type=float, default=0.01)
    parser.add_argument("--overload-retry-after-s", type=float, default=0.2)
    parser.add_argument("--reasoning-tokens", type=int, default=16)
    parser.add_argument("--parallel", type=int, default=None, help="matches in flight a game")
    parser.add_argument(
        "--lanes", type=int, default=5,
        help="games played at once (Dagster runs side by side); they split the limits",
    )  # fmt: skip
    parser.add_argument(
        "--calibration-games", type=int, default=None,
        help="the calibration run plays the first N games (default: all)",
    )  # fmt: skip
    parser.add_argument("--record", action="store_true", help=f"append the report to {RESULTS}")
    parser.add_argument("--executor", choices=("in-process", "dask"), default="in-process")
    parser.add_argument("--kill-at", type=float, default=0.5, help="share journalled, then kill")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.leg is not None:
        return leg_main(args.leg)
    if args.models < 2 or args.games < 1 or not 0 < args.kill_at < 1:
        parser.error("--models must be at least 2, --games at least 1, --kill-at in (0, 1)")
    if args.lanes < 1 or args.concurrency % args.lanes:
        parser.error("--lanes must be at least 1 and divide --concurrency")
    runs = args.runs or default_runs(args.models, args.games)
    parallel = args.parallel or 2 * args.models * args.concurrency
    root = args.out or Path(tempfile.mkdtemp(prefix="genstrat-dress-"))
    root.mkdir(parents=True, exist_ok=True)
    watch = MemoryWatch().start()
    try:
        report = rehearse(args, root, runs, parallel, watch)
    finally:
        watch.stop()
        if not args.keep and args.out is None:
            shutil.rmtree(root, ignore_errors=True)
    if args.record:
        record(report, complete=True)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print(summary_text(report))
    return 0


def rehearse(
    args: argparse.Namespace, root: Path, runs: int, parallel: int, watch: MemoryWatch
) -> dict[str, Any]:
    import pandas as pd
    import yaml

    from arena.roster import load_roster, with_protocol, with_rulebook_style
    from arena.tournament.plan import plan_tournament
    from arena.tournament.runner import run_tournament
    from assets.partitions import BENCHMARK_GAMES_NAME
    from assets.run_profiles import get_profile
    from tests.doubles.planted_server import roster_players

    report: dict[str, Any] = {
        "models": args.models, "games": args.games, "runs": runs, "parallel": parallel,
        "executor": args.executor, "lanes": args.lanes, "latency_s": args.latency_s,
        "concurrency": args.concurrency, "requests_per_minute": args.requests_per_minute,
    }  # fmt: skip
    started = time.perf_counter()
    games = accepted_games(args.games, args.seed_start)
    report["game_seeds"] = [g.token for g in games]
    models = field_models(args)
    (root / "field.json").write_text(
        json.dumps([m.__dict__ for m in models], indent=1, sort_keys=True)
    )
    (root / "games.json").write_text(json.dumps([g.spec.model_dump(mode="json") for g in games]))
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PYTHONHASHSEED": "0",
        "GENSTRAT_PROFILE": PROFILE,
        "GENSTRAT_EDITION": EDITION,
        "GENSTRAT_DATA": str(root / "data-unused"),  # each leg sets its own
    }
    server, url = start_server(root, env)
    watch.label(server.pid, "planted server (the provider)")
    try:
        players, providers = roster_players(
            models, url, concurrency=args.concurrency, max_retries=10, backoff_base_s=0.5
        )
        (root / "roster.yaml").write_text(
            yaml.safe_dump({"players": players, "providers": providers}, sort_keys=False)
        )
        # the legs' roster: the lanes split each provider's limits (a lane's Dagster run holds
        # a share of its concurrency and request rate; together they hold the field's limits)
        lane_providers = {
            group: {
                **limits,
                "concurrency": args.concurrency // args.lanes,
                **({"requests_per_minute": limits["requests_per_minute"] / args.lanes}
                   if "requests_per_minute" in limits else {}),
            }
            for group, limits in providers.items()
        }  # fmt: skip
        (root / "roster-lane.yaml").write_text(
            yaml.safe_dump({"players": players, "providers": lane_providers}, sort_keys=False)
        )
        env["GENSTRAT_ROSTER"] = str(root / "roster-lane.yaml")
        profile = get_profile(PROFILE, EDITION)
        roster = with_rulebook_style(
            with_protocol(load_roster(root / "roster.yaml"), profile.protocol),
            profile.rulebook_style,
        )
        report["setup_s"] = time.perf_counter() - started

        # the plan, before anything is played
        plan = plan_tournament(roster, games, runs)
        report["plan"] = plan.as_dict()["total"] | {"matches": plan.matches}
        # the calibration run: the harness alone (the first run of every matchup)
        before = server_stats(url)
        tick, cpu_tick = time.perf_counter(), time.process_time()
        server_tick = watch.cpu_of(server.pid)
        calibration = run_tournament(
            roster, games[: args.calibration_games or None], 1, root / "calibration",
            parallel=parallel, checkpoint_s=1e9,
        )  # fmt: skip
        cal_seconds = time.perf_counter() - tick
        cal_cpu = time.process_time() - cpu_tick
        cal_server_cpu = watch.cpu_of(server.pid) - server_tick
        cal_moves = pd.read_parquet(root / "calibration" / "moves.parquet")
        cal_moves["game"] = cal_moves["match_id"].map(
            pd.read_parquet(root / "calibration" / "matches.parquet").set_index("match_id")["game"]
        )
        cal_ideal = ideal_seconds(cal_moves, models, args)
        report["calibration"] = {
            "matches": calibration.recorded, "calls": int(cal_moves["calls"].sum()),
            "seconds": round(cal_seconds, 2), "ideal_s": round(cal_ideal, 2),
            "over_ideal": round(cal_seconds / cal_ideal, 3) if cal_ideal else None,
            "longest_match_s": round(longest_match_s(cal_moves, models), 2),
            "server": delta(server_stats(url), before)["total"],
            "harness_cpu_ms_per_call": round(1000 * cal_cpu / max(cal_moves["calls"].sum(), 1), 3),
            "server_cpu_ms_per_call": round(
                1000 * cal_server_cpu / max(cal_moves["calls"].sum(), 1), 3
            ),
        }  # fmt: skip
        save_partial(root, report, watch)
        calibrated = plan_tournament(roster, games, runs, calibration=[root / "calibration"])
        report["calibrated_plan"] = calibrated.as_dict()["total"] | {
            "rel_se": round(
                math.sqrt(sum(m.calls_variance for m in calibrated.models.values()))
                / max(sum(m.calls for m in calibrated.models.values()), 1.0),
                4,
            )
        }

        with instance_home(root, args.executor, env):
            import dagster as dg

            os.environ["DAGSTER_HOME"] = env["DAGSTER_HOME"]
            with dg.DagsterInstance.get() as instance:
                instance.add_dynamic_partitions(BENCHMARK_GAMES_NAME, [g.token for g in games])
            spec = {
                "runs": runs, "parallel": max(1, parallel // args.lanes),
                "partitions": [g.token for g in games], "steps": 1, "address": None,
                "lanes": args.lanes,
            }  # fmt: skip
            legs: dict[str, Path] = {}
            for leg in ("a", "b"):
                data = root / f"data-{leg}"
                target = data / PROFILE / f"edition-{EDITION}"
                target.mkdir(parents=True)
                benchmark_table(games).to_parquet(target / "benchmark_games.parquet")
                legs[leg] = data

            # leg A: uninterrupted
            before = server_stats(url)
            env_a = {**env, "GENSTRAT_DATA": str(legs["a"])}
            leg_a = play_leg(root, "a", env_a, spec, watch, args.executor)
            bill_a = delta(server_stats(url), before)
            analyse_leg_a(report, legs["a"], leg_a, bill_a, models, args)
            save_partial(root, report, watch)
            # leg B: killed in the middle, then resumed
            before = server_stats(url)
            env_b = {**env, "GENSTRAT_DATA": str(legs["b"])}
            killed = play_leg(
                root, "b-killed", env_b, spec, watch, args.executor,
                kill_after=kill_point(int(calibrated.matches), len(games), args.kill_at),
            )  # fmt: skip
            at_kill = delta(server_stats(url), before)
            resumed = play_leg(root, "b-resumed", env_b, spec, watch, args.executor)
            bill_b = delta(server_stats(url), before)
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(10)

    same, differ = equal_tables(tables(legs["a"]), tables(legs["b"]))
    _, b_moves = corpus_usage(legs["b"])
    report["leg_b"] = {
        "killed_after_s": round(killed["seconds"], 2),
        "journalled_at_kill": killed["journalled"],
        "server_at_kill": at_kill["total"]["requests"],
        "resumed_s": round(resumed["seconds"], 2),
        "equal_to_leg_a": same,
        "tables_that_differ": differ,
        "replies_read_back_from_cache": int(b_moves["cached"].sum()),
        "calls": int(b_moves["calls"].sum()),
        "server_requests": bill_b["total"]["requests"],
        "requests_lost_in_flight": bill_b["total"]["requests"] - int(b_moves["calls"].sum()),
    }
    report["memory"] = watch.report()
    report["cpu"] = cpu_figures(report["memory"], report, bill_b["total"]["requests"])
    report["wall_s"] = round(time.perf_counter() - started, 2)
    return report


def analyse_leg_a(
    report: dict[str, Any], data: Path, leg_a: dict[str, Any], bill_a: dict[str, Any],
    models: list[Any], args: argparse.Namespace,
) -> None:  # fmt: skip
    """Leg A's figures into ``report``: wall time against the ideal, Dagster's overhead, the
    bill against the plans and the server's count, the leaderboard against the planted order."""
    import pandas as pd
    from scipy.stats import spearmanr

    matches, moves = corpus_usage(data)
    moves["game"] = moves["match_id"].map(matches.set_index("match_id")["game"])
    spans = play_spans(matches)
    tournament_s = leg_a["tournament_s"]
    ideal = ideal_seconds(moves, models, args)
    runs_s = {t: g["seconds"] for t, g in leg_a["games"].items()}
    recorded = {
        "calls": int(moves["calls"].sum()),
        "input_tokens": int(moves["input_tokens"].sum()),
        "output_tokens": int(moves["output_tokens"].sum()),
        "cost_usd": round(float(moves["cost_usd"].sum()), 6),
    }
    server_a = bill_a["total"]
    report["leg_a"] = {
        "matches": len(matches),
        "statuses": {str(k): int(v) for k, v in matches["status"].value_counts().items()},
        "seconds": round(leg_a["seconds"], 2),
        "roster_s": round(leg_a["roster_s"], 2),
        "tournament_s": round(tournament_s, 2),
        "statistics_s": round(leg_a["statistics_s"], 2),
        "play_s": round(covered_s(spans.values()), 2),  # some match of some game in play
        "ideal_s": round(ideal, 2),
        "longest_match_s": round(longest_match_s(moves, models), 2),
        "over_ideal": round(tournament_s / ideal, 3) if ideal else None,
        # the games' phase beyond the time some match was in play, and each run's seconds
        # beyond its own play, summed (lanes overlap them with other games' play)
        "dagster_overhead_s": round(tournament_s - covered_s(spans.values()), 2),
        "dagster_run_overhead_s": round(
            sum(runs_s[t] - (e - b) for t, (b, e) in spans.items() if t in runs_s), 2
        ),
        "bill": recorded,
        "server": server_a,
        "bill_equals_server": recorded["calls"] == server_a["requests"]
        and recorded["input_tokens"] == server_a["prompt_tokens"]
        and recorded["output_tokens"] == server_a["completion_tokens"]
        and math.isclose(recorded["cost_usd"], server_a["cost_usd"], rel_tol=1e-6),
        "bill_over_plan": {
            k: round(recorded[k] / report["plan"][k], 3) if report["plan"][k] else None
            for k in ("calls", "input_tokens", "output_tokens", "cost_usd")
        },
        "bill_over_calibrated_plan": {
            k: round(recorded[k] / report["calibrated_plan"][k], 3)
            if report["calibrated_plan"][k]
            else None
            for k in ("calls", "input_tokens", "output_tokens", "cost_usd")
        },
    }
    board = pd.read_parquet(
        data / PROFILE / f"edition-{EDITION}" / "leaderboards.parquet"
    ).set_index("model")
    skills = {m.name: m.skill for m in models}
    named = [n for n in skills if n in board.index]
    rho = spearmanr([board.loc[n, "alpha"] for n in named], [skills[n] for n in named]).statistic
    report["spearman"] = round(float(rho), 4)
    report["leaderboard"] = {
        n: round(float(board.loc[n, "alpha"]), 4)
        for n in sorted(named, key=lambda n: -board.loc[n, "alpha"])
    }


def record(report: dict[str, Any], complete: bool, argv: list[str] | None = None) -> None:
    """Append ``report`` to ``RESULTS`` with the command (``argv``, default this one's), the
    commit and the date; ``complete`` False for the ``partial.json`` of a run stopped early."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    entry = {
        "command": " ".join(["benchmarks/dress_rehearsal.py", *(argv or sys.argv[1:])]),
        "commit": commit or None, "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "complete": complete, "report": report,
    }  # fmt: skip
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a") as sink:
        sink.write(json.dumps(entry, default=str, sort_keys=True) + "\n")


def save_partial(root: Path, report: dict[str, Any], watch: MemoryWatch) -> None:
    """The report so far, with the processes' memory and CPU, in ``root/partial.json``."""
    partial = {**report, "memory": watch.report()}
    (root / "partial.json").write_text(json.dumps(partial, indent=1, default=str))


def cpu_figures(
    memory: list[dict[str, Any]], report: dict[str, Any], b_requests: int
) -> dict[str, Any]:  # fmt: skip
    """CPU seconds per leg (the leg, its lanes and its Dask workers: harness and Dagster), of
    the provider, and per request."""

    def leg(name: str) -> float:
        owned = (f"leg {name})", f"lane of leg {name}", f"leg {name} (")
        return float(sum(m["cpu_s"] for m in memory if any(o in m["process"] for o in owned)))

    a_calls = max(report["leg_a"]["server"]["requests"], 1)
    server = sum(m["cpu_s"] for m in memory if m["process"].startswith("planted server"))
    return {
        "leg_a_s": round(leg("a"), 1),
        "leg_a_ms_per_call": round(1000 * leg("a") / a_calls, 3),
        "leg_b_s": round(leg("b-killed") + leg("b-resumed"), 1),
        "leg_b_ms_per_call": round(
            1000 * (leg("b-killed") + leg("b-resumed")) / max(b_requests, 1), 3
        ),
        "server_s": round(server, 1),
        "all_processes_s": round(sum(m["cpu_s"] for m in memory), 1),
    }


def summary_text(r: dict[str, Any]) -> str:
    a, b, cal = r["leg_a"], r["leg_b"], r["calibration"]
    lines = [
        f"dress rehearsal: {r['models']} planted models x {r['games']} games x {r['runs']} runs "
        f"({a['matches']:,} matches, {a['bill']['calls']:,} calls), executor {r['executor']}, "
        f"latency {r['latency_s']} s, {r['concurrency']} in flight and "
        f"{r['requests_per_minute']:g}/min a model",
        f"  leg A tournament ({r['lanes']} games at once) {a['tournament_s']:.1f} s; "
        f"provider-bound ideal {a['ideal_s']:.1f} s ({a['over_ideal']}x); longest match "
        f"{a['longest_match_s']:.1f} s; statuses {a['statuses']}",
        f"  harness alone (calibration run, {cal['matches']} matches): {cal['seconds']:.1f} s "
        f"against an ideal of {cal['ideal_s']:.1f} s ({cal['over_ideal']}x; its longest match "
        f"alone {cal['longest_match_s']:.1f} s); CPU a call: harness "
        f"{cal['harness_cpu_ms_per_call']} ms, provider {cal['server_cpu_ms_per_call']} ms",
        f"  Dagster: roster {a['roster_s']:.1f} s, statistics {a['statistics_s']:.1f} s, the "
        f"games' phase {a['dagster_overhead_s']:.1f} s beyond some match in play "
        f"({a['play_s']:.1f} s); runs beyond their own play, summed, "
        f"{a['dagster_run_overhead_s']:.1f} s",
        f"  CPU: {r['cpu']}",
        f"  bill {a['bill']}; server {a['server']}; equal: {a['bill_equals_server']}",
        f"  bill / plan {a['bill_over_plan']}; / calibrated plan {a['bill_over_calibrated_plan']}",
        f"  Spearman with the planted strengths: {r['spearman']}",
        f"  kill -9 after {b['killed_after_s']:.1f} s ({b['journalled_at_kill']} matches "
        f"journalled), resumed in {b['resumed_s']:.1f} s: equal to leg A: {b['equal_to_leg_a']} "
        f"{b['tables_that_differ'] or ''} (cached flags aside: {b['replies_read_back_from_cache']} "
        f"replies read back); {b['requests_lost_in_flight']} requests lost in flight",
        "  peak memory: "
        + "; ".join(f"{m['process']} {m['peak_rss_mb']} MB" for m in r["memory"][:8]),
        f"  wall {r['wall_s']:.1f} s",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
