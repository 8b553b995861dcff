"""Keep the README true: its runnable (``sh``) commands exist and the genstrat ones succeed."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO_ROOT

README = REPO_ROOT / "README.md"


def sh_commands() -> list[str]:
    """Every command line inside a fenced ``sh`` block of the README."""
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(), flags=re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_every_make_target_in_the_readme_exists() -> None:
    makefile = (REPO_ROOT / "Makefile").read_text()
    targets = [cmd.split()[1] for cmd in sh_commands() if cmd.startswith("make ")]
    assert {"run", "test", "ui"} <= set(targets)
    for target in targets:
        assert re.search(rf"^{re.escape(target)}:", makefile, flags=re.MULTILINE), target


@pytest.mark.slow  # over 5 s: make test only
def test_every_genstrat_command_in_the_readme_runs() -> None:
    commands = [cmd for cmd in sh_commands() if cmd.startswith(".venv/bin/genstrat ")]
    assert commands
    genstrat = Path(sys.executable).with_name("genstrat")
    for command in commands:
        args = shlex.split(command)[1:]
        completed = subprocess.run(
            [str(genstrat), *args],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert completed.returncode == 0, f"{command}:\n{completed.stderr}"
        assert completed.stdout.strip(), command
