"""Which games ``genstrat tournament run`` and ``plan`` play (issue 39, item 7): a seed under
``--config`` (default: the profile's configuration), and ``--release``: a release's benchmark
games by the specs it carries, never a seed generated again."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from engines.gbg.generator import generate, named_config
from releases.store import publish
from tests.releases.support import PASSING, sample_inputs

ROSTER = (
    "players:\n"
    "  - {name: random, kind: builtin, agent: random}\n"
    "  - {name: heuristic, kind: builtin, agent: heuristic}\n"
)
SEEDS = (0, 4)  # other games under the paper configuration than under the default one


def genstrat(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("GENSTRAT_PROFILE",)}
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**environ, **env},
    )


@pytest.fixture(scope="module")
def paper_release(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A published release whose benchmark is seeds 0 and 4 of the paper configuration."""
    store = tmp_path_factory.mktemp("store")
    specs = [generate(seed, named_config("paper")) for seed in SEEDS]
    tables, texts, images, context = sample_inputs()
    benchmark = pd.DataFrame(
        {
            "order": [0, 1],
            "game": [str(s) for s in SEEDS],
            "seed": list(SEEDS),
            "spec_hash": [s.spec_hash for s in specs],
            "spec_json": [s.canonical_json() for s in specs],
        }
    )
    settings = {"seed_start": 0, "seed_count": 100, "edition": 1, "generation": "paper"}
    context = dataclasses.replace(context, profile_settings=settings)
    published = publish(
        {**tables, "benchmark_games": benchmark}, texts, images, context, store, gates=PASSING
    )
    return published.release_id, store


def played_hashes(out: Path) -> dict[int, set[str]]:
    matches = pd.read_parquet(out / "matches.parquet")
    return {int(s): set(g["spec_hash"]) for s, g in matches.groupby("game_seed")}


def test_a_release_s_games_are_played_by_the_specs_it_carries(
    paper_release: tuple[str, Path], tmp_path: Path
) -> None:
    release, store = paper_release
    roster = tmp_path / "roster.yaml"
    roster.write_text(ROSTER)
    out = tmp_path / "out"
    done = genstrat("tournament", "run", "--roster", str(roster), "--release", release,
                    "--store", str(store), "--runs", "1", "--out", str(out), "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    paper = {s: {generate(s, named_config("paper")).spec_hash} for s in SEEDS}
    assert played_hashes(out) == paper
    picked = tmp_path / "picked"
    done = genstrat("tournament", "run", "--roster", str(roster), "--release", release,
                    "--store", str(store), "--games", "4", "--runs", "1", "--out", str(picked),
                    "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert played_hashes(picked) == {4: paper[4]}
    plan = genstrat("tournament", "plan", "--roster", str(roster), "--release", release,
                    "--store", str(store), "--runs", "1", "--json")  # fmt: skip
    assert plan.returncode == 0, plan.stderr
    assert json.loads(plan.stdout)["matches"] == 2 * 2  # two games, one run, both seats


def test_a_seed_takes_the_configuration_the_user_names(tmp_path: Path) -> None:
    roster = tmp_path / "roster.yaml"
    roster.write_text(ROSTER)
    for config, env in (("paper", {}), (None, {"GENSTRAT_PROFILE": "paper"}), ("default", {})):
        out = tmp_path / f"out-{config}-{bool(env)}"
        extra = ["--config", config] if config else []
        done = genstrat("tournament", "run", "--roster", str(roster), "--games", "0",
                        "--runs", "1", "--out", str(out), "--quiet", *extra, **env)  # fmt: skip
        assert done.returncode == 0, done.stderr
        wanted = named_config("default" if config == "default" else "paper")
        assert played_hashes(out) == {0: {generate(0, wanted).spec_hash}}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "no games given: pass --games SEEDS, or --release ID for its games"),
        (["--release", "RELEASE", "--games", "7"], "has no benchmark game '7'; it has 0, 4"),
        (["--games", "3", "--config", "nope"], "unknown generation configuration 'nope'"),
        (["--release", "gs-0000000000000000"], "unknown release gs-0000000000000000"),
    ],
)
def test_bad_game_choices_are_one_line_and_exit_2(
    paper_release: tuple[str, Path], tmp_path: Path, args: list[str], message: str
) -> None:
    release, store = paper_release
    roster = tmp_path / "roster.yaml"
    roster.write_text(ROSTER)
    args = [release if a == "RELEASE" else a for a in args]
    done = genstrat("tournament", "run", "--roster", str(roster), "--runs", "1", "--store",
                    str(store), "--out", str(tmp_path / "out"), *args)  # fmt: skip
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert message in done.stderr and done.stderr.strip().count("\n") == 0
    assert not (tmp_path / "out" / "matches.parquet").exists()
