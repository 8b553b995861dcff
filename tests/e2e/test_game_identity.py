"""A game's identity through the whole graph under the paper's generation configuration
(issue 39, item 1): ``make run``'s refresh on the ``tiny-paper`` profile, one spec hash per game
at every stage and in the release, each the paper configuration's game of its seed; and a
planted mismatch (the tournament playing the seed regenerated under the default configuration,
as it did before identity was carried) fails the corpus check by name and publishes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from engines.gbg.generator import generate, named_config
from tests.support import REPO_ROOT, instance_environment, releases_by_profile

pytestmark = pytest.mark.slow  # a whole refresh: make test only

PROFILE = "tiny-paper"


@dataclass(frozen=True)
class Refreshed:
    root: Path
    returncode: int
    output: str

    @property
    def data(self) -> Path:
        return self.root / "data" / PROFILE / "edition-1"

    @property
    def store(self) -> Path:
        return self.root / "releases"


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Refreshed]:
    root = tmp_path_factory.mktemp("identity")
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.run_main"],
        env=instance_environment(root, PROFILE),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    yield Refreshed(root, done.returncode, done.stdout + done.stderr)


def stage_hashes(refreshed: Refreshed) -> dict[str, dict[str, set[str]]]:
    """``{stage: {game seed: spec hashes seen}}`` for every stage that names a game's spec,
    the released tables included."""
    data = refreshed.data
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))

    def add(stage: str, frame: pd.DataFrame, key: str) -> None:
        for game, spec_hash in zip(frame[key].astype(str), frame["spec_hash"], strict=True):
            seen[stage][game].add(str(spec_hash))

    accepted = pd.read_parquet(data / "accepted_games.parquet")
    add("accepted_games", accepted, "seed")
    add("benchmark_games", pd.read_parquet(data / "benchmark_games.parquet"), "game")
    for stage in ("axis_scores", "match_corpus"):
        for path in sorted((data / stage).glob("*.parquet")):
            add(stage, pd.read_parquet(path), "game")
    add("complete_pairs", pd.read_parquet(data / "complete_pairs.parquet"), "game_seed")
    (release,) = [p for p in refreshed.store.iterdir() if p.name.startswith("gs-")]
    tables = release / "tables"
    for name, key in (("benchmark_games", "game"), ("complete_pairs", "game_seed")):
        add(f"release:{name}", pd.read_parquet(tables / f"{name}.parquet"), key)
    for path in sorted(tables.glob("axis_scores*.parquet")):
        add(f"release:{path.stem}", pd.read_parquet(path), "game")
    return seen


def test_the_paper_configuration_keeps_one_spec_hash_per_game_at_every_stage(
    refreshed: Refreshed,
) -> None:
    assert refreshed.returncode == 0, refreshed.output[-3000:]
    seen = stage_hashes(refreshed)
    benchmark = pd.read_parquet(refreshed.data / "benchmark_games.parquet")
    games = [str(g) for g in benchmark["game"]]
    private = {str(g) for g in benchmark.loc[benchmark["private"], "game"]}
    assert len(games) == 4 and len(private) == 1  # tiny-paper: 3 selected, 1 held out
    paper, default = named_config("paper"), named_config("default")
    regenerated = {g: generate(int(g), paper).spec_hash for g in games}
    # the default configuration would have made other games of the same seeds
    assert all(generate(int(g), default).spec_hash != regenerated[g] for g in games)
    inside = ["accepted_games", "benchmark_games", "axis_scores", "match_corpus", "complete_pairs"]
    released = [s for s in seen if s.startswith("release:")]
    assert any(s.startswith("release:axis_scores") for s in released)
    for game in games:
        hashes = {s: seen[s].get(game, set()) for s in inside}
        assert all(h == {regenerated[game]} for h in hashes.values()), (game, hashes)
        shown = {s: seen[s].get(game, set()) for s in released}
        if game in private:  # a held-out game is in no released table
            assert not set().union(*shown.values()), (game, shown)
        else:
            assert all(h == {regenerated[game]} for h in shown.values()), (game, shown)
    manifest = json.loads(next(refreshed.store.glob("gs-*/manifest.json")).read_text())
    assert manifest["profile"]["name"] == PROFILE and manifest["profile"]["edition"] == 1
    assert manifest["profile"]["generation"] == "paper"


def _bytes_of_every_file(folder: Path) -> Iterator[tuple[str, bytes]]:
    """Every file of a release folder and every member of its archive, with Parquet files
    also as the text of their decoded cells."""
    import io
    import tarfile

    def expand(name: str, data: bytes) -> Iterator[tuple[str, bytes]]:
        yield name, data
        if name.endswith(".parquet"):
            frame = pd.read_parquet(io.BytesIO(data))
            yield f"{name} (cells)", frame.to_csv(index=False).encode("utf-8")

    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        yield from expand(str(path.relative_to(folder)), path.read_bytes())
        if path.name.endswith(".tar.gz"):
            with tarfile.open(path, "r:gz") as archive:
                for member in archive.getmembers():
                    handle = archive.extractfile(member) if member.isfile() else None
                    if handle is not None:
                        yield from expand(f"{path.name}:{member.name}", handle.read())


def test_a_private_game_appears_in_no_file_of_its_release_only_its_commitment(
    refreshed: Refreshed,
) -> None:
    """Issue 39, item 4: the held-out game's spec, spec hash and seed are in no file of the
    release, archive members and Parquet cells included; the release carries its salted
    commitment and aggregate scores."""
    from arena.heldout import commitment, edition_key, salt

    assert refreshed.returncode == 0, refreshed.output[-3000:]
    benchmark = pd.read_parquet(refreshed.data / "benchmark_games.parquet")
    (row,) = benchmark.loc[benchmark["private"]].itertuples(index=False)
    secrets = [str(row.spec_hash), str(row.seed), str(row.spec_json)[:60]]
    (release,) = [p for p in refreshed.store.iterdir() if p.name.startswith("gs-")]
    files = list(_bytes_of_every_file(release))
    assert any(".tar.gz:" in name for name, _ in files)
    for name, data in files:
        for secret in secrets:
            assert secret.encode("utf-8") not in data, (name, secret[:20])
            assert secret not in name
    held = pd.read_parquet(release / "tables" / "heldout_games.parquet")
    key = edition_key(refreshed.root / "data")
    expected = commitment(salt(key, PROFILE, 1, str(row.spec_hash)), str(row.spec_json))
    assert set(held["label"]) == {"private-1"} and set(held["commitment"]) == {expected}
    assert (held["runs"] > 0).all()


def test_a_planted_mismatch_fails_the_corpus_check_by_name_and_publishes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tournament made to play each seed regenerated under the default configuration (the
    defect this check exists for): the refresh stops at the corpus check, nothing published."""
    import assets.match_corpus as stage
    from arena.games import resolve_games
    from pipelines import run_main

    def regenerated(benchmark_games: pd.DataFrame, token: str) -> object:
        return resolve_games([token])[0]  # the seed under the default configuration

    monkeypatch.setattr(stage, "benchmark_game", regenerated)
    for name, value in instance_environment(tmp_path, PROFILE).items():
        if name.startswith(("DAGSTER_HOME", "GENSTRAT_")):
            monkeypatch.setenv(name, value)
    monkeypatch.delenv("GENSTRAT_EDITION", raising=False)
    status = run_main.main()
    err = capsys.readouterr().err
    assert status == 1
    assert "check match_corpus/spec_hash_matches_game failed" in err
    assert "spec hash that differs from its frozen game" in err
    store = tmp_path / "releases"
    assert not store.exists() or not list(store.glob("gs-*"))


def refresh(root: Path, profile: str) -> subprocess.CompletedProcess[str]:
    """``make run``'s refresh of ``profile`` into the instance, data and store under ``root``."""
    return subprocess.run(
        [sys.executable, "-m", "pipelines.run_main"],
        env=instance_environment(root, profile),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )


def test_two_profiles_in_one_instance_keep_apart_and_publish_as_each_would_alone(
    refreshed: Refreshed, tmp_path: Path
) -> None:
    """Issue 39, item 2: ``tiny`` materialized into the instance and data folder where
    ``tiny-paper`` was just materialized publishes the release of a fresh instance with
    ``tiny`` alone, and leaves the other profile's tables as they were."""
    assert refreshed.returncode == 0, refreshed.output[-3000:]
    before = {p: p.read_bytes() for p in refreshed.data.rglob("*.parquet")}
    second = refresh(refreshed.root, "tiny")
    assert second.returncode == 0, (second.stdout + second.stderr)[-3000:]
    alone = refresh(tmp_path, "tiny")
    assert alone.returncode == 0, (alone.stdout + alone.stderr)[-3000:]
    shared = releases_by_profile(refreshed.store)
    assert set(shared) == {PROFILE, "tiny"}
    assert shared["tiny"] == releases_by_profile(tmp_path / "releases")["tiny"]
    # the first profile's tables are untouched, and the second's live beside them
    assert {p: p.read_bytes() for p in refreshed.data.rglob("*.parquet")} == before
    assert (refreshed.root / "data" / "tiny" / "edition-1" / "benchmark_games.parquet").is_file()


def test_a_second_edition_draws_disjoint_seeds_and_its_report_shows_both_editions(
    refreshed: Refreshed,
) -> None:
    """Issue 39, items 3 and 5: edition 2 of the profile, refreshed into the same instance and
    store, samples seeds no earlier edition used; ``release verify`` passes both releases, and
    the second's README and report show each entrant's anchored score in both editions."""
    assert refreshed.returncode == 0, refreshed.output[-3000:]
    env = {**instance_environment(refreshed.root, PROFILE), "GENSTRAT_EDITION": "2"}
    second = subprocess.run(
        [sys.executable, "-m", "pipelines.run_main"],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert second.returncode == 0, (second.stdout + second.stderr)[-3000:]
    ledger = json.loads((refreshed.store / "editions.json").read_text())["editions"]
    mine = {e["edition"]: e for e in ledger if e["profile"] == PROFILE}
    assert set(mine) == {1, 2}
    first_seeds, second_seeds = set(mine[1]["games"]), set(mine[2]["games"])
    assert first_seeds and second_seeds and not first_seeds & second_seeds
    low, high = mine[2]["seeds"]
    assert low == mine[1]["seeds"][1] and all(low <= s < high for s in second_seeds)
    for release in (mine[1]["releases"][-1], mine[2]["releases"][-1]):
        done = subprocess.run(
            [sys.executable, "-m", "pipelines.cli", "release", "verify", release],
            env=env,
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    folder = refreshed.store / mine[2]["releases"][-1]
    # edition 1's private game is revealed, and matches the commitment edition 1 published
    revealed = pd.read_parquet(folder / "tables" / "revealed_games.parquet")
    held = pd.read_parquet(
        refreshed.store / mine[1]["releases"][-1] / "tables" / "heldout_games.parquet"
    )
    assert list(revealed["label"]) == ["private-1"] and list(revealed["edition"]) == [1]
    assert set(revealed["commitment"]) == set(held["commitment"])
    first = pd.read_parquet(refreshed.data / "benchmark_games.parquet")
    assert list(revealed["spec_json"]) == list(first.loc[first["private"], "spec_json"])
    scores = pd.read_parquet(folder / "tables" / "edition_scores.parquet")
    assert set(scores["edition"]) == {1, 2}
    entrants = set(scores.loc[scores["role"] == "entrant", "model"])
    assert entrants
    report = (folder / "report" / "index.html").read_text()
    readme = (folder / "README.md").read_text()
    assert "Across editions" in report and "edition 1" in report and "edition 2" in report
    assert "| edition | edition 2 (seeds" in readme and "## Across editions" in readme
    for model in entrants:
        assert model in report
    assert (folder / "plots" / "edition_trend.png").is_file()
    watch = pd.read_parquet(folder / "tables" / "edition_saturation.parquet")
    assert list(watch["edition"]) == [1, 2]
    assert set(watch["action"]) <= {"harder", "more evidence", "keep"}
