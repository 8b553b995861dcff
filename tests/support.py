"""Helpers shared by tests (importable, unlike conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class ProjectEnv:
    """Where a test's asset files and Dagster instance live."""

    data: Path
    dagster_home: Path
