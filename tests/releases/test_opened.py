"""A release as data: ``open_release`` verifies and reads it, ``genstrat stats leaderboard
--release`` refits the published leaderboard exactly from the bundle alone, and ``genstrat
release show`` / ``diff`` say what a maintainer checks after a refresh."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engines.stats.leaderboard import overall_leaderboard
from engines.stats.planted import SimulationConfig, simulate_corpus
from engines.tournament.pairs import complete_pairs
from pipelines.cli import main
from releases.opened import DEFAULT_ANALYSIS, compare_releases, open_release
from releases.store import publish
from tests.releases.support import PASSING, sample_inputs


def corpus_release(store: Path, n_models: int) -> str:
    """Publish a release whose leaderboard is fitted as the leaderboards asset fits it."""
    sim = simulate_corpus(
        SimulationConfig(n_models=n_models, n_games=3, n_late_models=0, runs_per_matchup=3),
        np.random.default_rng(n_models),
    )
    pairs = complete_pairs(sim.matches)[0].drop(columns=["started_at", "finished_at"])
    board = overall_leaderboard(
        pairs, np.random.default_rng(DEFAULT_ANALYSIS["seed"]), DEFAULT_ANALYSIS["bootstrap"]
    )
    tables, texts, images, context = sample_inputs()
    tables = {**tables, "complete_pairs": pairs, "leaderboards": board}
    return publish(tables, texts, images, context, store, gates=PASSING).release_id


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    path = tmp_path_factory.mktemp("store")
    return path, corpus_release(path, 4), corpus_release(path, 5)


def test_open_release_reads_the_verified_tables(store: tuple[Path, str, str]) -> None:
    path, first, _ = store
    release = open_release(first, path)
    assert {"complete_pairs", "leaderboards", "reference_games"} <= set(release.table_names)
    assert len(release.table("leaderboards")) == 4
    assert release.analysis_settings() == DEFAULT_ANALYSIS
    with pytest.raises(ValueError, match="has no table 'nope'; it has "):
        release.table("nope")
    archive = open_release(path / first / f"{first}.tar.gz")  # the archive alone suffices
    pd.testing.assert_frame_equal(archive.table("leaderboards"), release.table("leaderboards"))
    unpacked = archive.path.parent
    del archive  # the unpacked copy goes with the object
    assert not unpacked.exists()


def test_a_tampered_release_is_not_opened(store: tuple[Path, str, str], tmp_path: Path) -> None:
    path, first, _ = store
    copy = tmp_path / first
    shutil.copytree(path / first, copy)
    (copy / "tables" / "leaderboards.parquet").write_bytes(b"forged")
    with pytest.raises(ValueError, match=r"leaderboards\.parquet"):
        open_release(copy)


def test_the_published_leaderboard_is_refitted_exactly_from_the_bundle(
    store: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, first, _ = store
    argv = ["stats", "leaderboard", "--release", first, "--store", str(path)]
    assert main([*argv, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["reproduces_published"] is True
    assert payload["bootstrap"] == DEFAULT_ANALYSIS["bootstrap"]
    published = open_release(first, path).table("leaderboards")
    assert [r["model"] for r in payload["leaderboard"]] == list(published["model"])
    assert main(argv) == 0
    assert "the published leaderboard: reproduced exactly" in capsys.readouterr().out
    assert main([*argv, "--bootstrap", "50"]) == 1  # another B: intervals differ, and it says so
    assert "NOT reproduced" in capsys.readouterr().out


def test_release_show_gives_the_leaderboard_gates_and_sizes(
    store: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, first, _ = store
    assert main(["release", "show", first, "--store", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"release {first}" in out and "every SHA-256 verified" in out
    assert "leaderboard (chips/game, 95% interval, B = 2000):" in out
    assert "gates: 2/2 passed" in out and "redaction: no credentials" in out  # + the scan
    assert "complete_pairs (" in out
    assert main(["release", "show", first, "--store", str(path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert len(shown["leaderboard"]) == 4 and shown["gates"]["zero_sum"]["passed"]
    assert shown["sizes"]["tables"]["leaderboards"] == 4


def test_release_diff_names_added_models_and_rank_changes(
    store: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, first, second = store
    change = compare_releases(open_release(first, path), open_release(second, path))
    assert change["models_added"] == ["model-05"] and change["models_removed"] == []
    assert {row["model"] for row in change["models"]} == {f"model-0{k}" for k in range(1, 5)}
    for row in change["models"]:
        assert row["alpha_change"] == pytest.approx(row["alpha"][1] - row["alpha"][0])
    assert main(["release", "diff", first, second, "--store", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{first} -> {second}" in out and "models added: model-05" in out
    assert main(["release", "diff", first, "gs-0000000000000000", "--store", str(path)]) == 2
    assert "unknown release gs-0000000000000000" in capsys.readouterr().err


def test_show_diff_and_refit_of_a_tampered_release_fail_the_check_with_exit_1(
    store: tuple[Path, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, first, second = store
    copy = tmp_path / "copy"
    shutil.copytree(path, copy)
    (copy / first / "tables" / "leaderboards.parquet").write_bytes(b"forged")
    for argv in (
        ["release", "show", first, "--store", str(copy)],
        ["release", "diff", first, second, "--store", str(copy)],
        ["stats", "leaderboard", "--release", first, "--store", str(copy)],
    ):
        assert main(argv) == 1, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "leaderboards.parquet" in err
