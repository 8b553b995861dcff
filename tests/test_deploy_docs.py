"""Keep docs/DEPLOY.md true: its instance and Dask commands are the ones the tests run."""

import re
import shlex
from pathlib import Path

import yaml

from tests.servers import DaskCluster, PostgresServer, scheduler_command, worker_command
from tests.support import POSTGRES_INSTANCE_YAML, REPO_ROOT

DEPLOY = REPO_ROOT / "docs" / "DEPLOY.md"


def sh_lines() -> list[str]:
    """Every command line inside a fenced ``sh`` block of DEPLOY.md."""
    blocks = re.findall(r"```sh\n(.*?)```", DEPLOY.read_text(), flags=re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_instance_commands_copy_the_shipped_yaml_and_set_what_it_reads() -> None:
    lines = sh_lines()
    copy = next(line for line in lines if line.startswith("cp "))
    assert shlex.split(copy)[1] == str(POSTGRES_INSTANCE_YAML.relative_to(REPO_ROOT))
    export = next(line for line in lines if line.startswith("export DAGSTER_PG_"))
    exported = [word.split("=")[0] for word in shlex.split(export)[1:]]
    settings = PostgresServer("h", 1, "u", "p", "d", pid=0).env()
    assert exported == list(settings)
    text = POSTGRES_INSTANCE_YAML.read_text()
    assert set(re.findall(r"env: (DAGSTER_PG_\w+)", text)) == set(settings)


def test_the_dask_commands_are_the_ones_the_cluster_fixture_runs() -> None:
    lines = [shlex.split(line) for line in sh_lines() if line.startswith("dask ")]
    scheduler_file = Path("/shared/scheduler.json")
    assert scheduler_command(scheduler_file) in lines
    assert worker_command(scheduler_file) in lines


def test_the_run_config_shown_is_the_one_the_tests_use() -> None:
    shown = re.findall(r"`(execution: \{.*?\}\}\}\})`", DEPLOY.read_text())
    assert shown
    for text in shown:
        config = yaml.safe_load(text)
        address = config["execution"]["config"]["cluster"]["existing"]["address"]
        assert config == DaskCluster.run_config_for(address)
