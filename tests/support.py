"""Helpers shared by tests (importable, unlike conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
# The instance configuration shipped for deployments (docs/DEPLOY.md, section 1).
POSTGRES_INSTANCE_YAML = REPO_ROOT / "deploy" / "dagster.postgres.yaml"
# The run profile of the tests on a Dask cluster, on both sides of their comparisons.
CLUSTER_PROFILE = "tiny"


@dataclass(frozen=True)
class ProjectEnv:
    """Where a test's asset files and Dagster instance live."""

    data: Path
    dagster_home: Path
