"""Keep docs/DEPLOY.md true: its instance, Dask, process and proxy commands are the ones the
tests run, and no recipe opens the webserver beyond the loopback interface."""

import re
import shlex
import shutil
from pathlib import Path

import dagster as dg
import pytest
import yaml

from tests.e2e.nginx_proxy import (
    HTPASSWD,
    SITE_FILE,
    WEB_PORT,
    certificate_command,
    install_commands,
    password_command,
    site_config,
    webserver_command,
)
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


# --- the webserver is not open (issue 43, item 3) ---------------------------------------------

RECIPES = [
    *sorted((REPO_ROOT / "docs").glob("*.md")),
    REPO_ROOT / "README.md",
    REPO_ROOT / "Makefile",
    *sorted(p for p in (REPO_ROOT / "deploy").rglob("*") if p.is_file()),
]
# A command that starts the webserver, with the options that follow it on its line.
WEBSERVER_STARTS = re.compile(
    r"\b(?:dagster-webserver|dagster dev|dg dev)"
    r"((?:[ \t]+-{1,2}[\w-]+(?:[ \t=][^\s`'\"-][^\s`]*)?)*)"
)


def webserver_options(text: str) -> list[list[str]]:
    """The options of every command in ``text`` that starts the webserver with options."""
    found = []
    for line in text.splitlines():
        for match in WEBSERVER_STARTS.finditer(line):
            words = shlex.split(match.group(1).replace("=", " "))
            if words:
                found.append(words)
    return found


def test_every_recipe_binds_the_webserver_to_the_loopback_interface() -> None:
    started = 0
    for path in RECIPES:
        text = path.read_text(errors="replace")
        assert "0.0.0.0" not in text, path
        for words in webserver_options(text):
            started += 1
            hosts = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-h", "--host")]
            assert hosts == ["127.0.0.1"], (path, words)
    assert started >= 3  # DEPLOY.md's webserver and `dagster dev`, the Makefile's `dg dev`
    assert webserver_options("dagster-webserver -h 0.0.0.0 -p 3000") == [
        ["-h", "0.0.0.0", "-p", "3000"]
    ]
    assert webserver_options("`dagster-webserver` and `dg dev` (`make ui`)") == []


def test_the_process_commands_are_the_ones_the_tests_run() -> None:
    lines = [shlex.split(line) for line in sh_lines()]
    assert webserver_command(WEB_PORT) in lines
    assert ["dagster-daemon", "run", "-w", "workspace.yaml"] in lines


def test_the_proxy_commands_are_the_ones_the_proxy_test_runs() -> None:
    lines = sh_lines()
    assert password_command() in lines
    assert certificate_command() in lines
    for command in install_commands():
        assert command in lines, command
    # the shipped site file holds what the test substitutes, once each, and what the
    # commands above write
    text = SITE_FILE.read_text()
    assert f"auth_basic_user_file {HTPASSWD};" in text
    site = site_config(
        port=1, upstream_port=2, htpasswd=Path("/h"), certificate=Path("/c"), key=Path("/k")
    )
    assert "listen 127.0.0.1:1 ssl;" in site and "proxy_pass http://127.0.0.1:2;" in site
    assert all(f" {p};" in site for p in ("/h", "/c", "/k"))


@pytest.mark.parametrize("path", [REPO_ROOT / "instance" / "dagster.yaml", POSTGRES_INSTANCE_YAML])
def test_every_shipped_instance_config_monitors_runs(path: Path) -> None:
    monitoring = yaml.safe_load(path.read_text())["run_monitoring"]
    assert monitoring["enabled"] is True
    assert monitoring["start_timeout_seconds"] > 0 and monitoring["cancel_timeout_seconds"] > 0
    assert monitoring["max_resume_run_attempts"] == 0  # the default launcher cannot resume


def test_the_project_instance_loads_with_run_monitoring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))  # where the file puts its storage
    shutil.copy(REPO_ROOT / "instance" / "dagster.yaml", tmp_path / "dagster.yaml")
    with dg.DagsterInstance.from_config(str(tmp_path)) as instance:
        assert instance.run_monitoring_enabled
        assert instance.run_monitoring_start_timeout_seconds == 180
