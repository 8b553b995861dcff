"""Shared fixtures: a private data folder and Dagster instance for tests that need them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support import REPO_ROOT, ProjectEnv


@pytest.fixture
def project_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ProjectEnv:
    """A temporary ``GENSTRAT_DATA``, ``GENSTRAT_RELEASES`` and ``DAGSTER_HOME`` (with the
    project's dagster.yaml),
    exported for this test and the processes it starts; the profile is the default (demo)."""
    data = tmp_path / "data"
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(REPO_ROOT / "instance" / "dagster.yaml", home / "dagster.yaml")
    monkeypatch.setenv("GENSTRAT_DATA", str(data))
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    monkeypatch.setenv("GENSTRAT_RELEASES", str(tmp_path / "releases"))
    monkeypatch.delenv("GENSTRAT_PROFILE", raising=False)
    return ProjectEnv(data=data, dagster_home=home)
