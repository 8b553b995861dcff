"""The resources the stage tests materialize with: those of ``pipelines.definitions``
(``build_resources``), with the asset files under a test's own data folder and the demo
profile."""

from __future__ import annotations

from assets.resources import ProjectPaths, RosterFile, RunProfile
from pipelines.io_managers import ParquetIOManager, StepValueIOManager
from tests.support import ProjectEnv


def resources(env: ProjectEnv) -> dict[str, object]:
    paths = ProjectPaths(data_dir=str(env.data), profile="demo")
    return {
        "profile": RunProfile(name="demo"),
        "paths": paths,
        "io_manager": ParquetIOManager(paths=paths),
        "step_io_manager": StepValueIOManager(paths=paths),
        "roster_file": RosterFile(),
    }
