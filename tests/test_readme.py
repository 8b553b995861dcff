"""Keep the README and the user guide true: their runnable (``sh``) commands exist and the
genstrat ones succeed, and the README's Python example runs."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO_ROOT

README = REPO_ROOT / "README.md"
GUIDE = REPO_ROOT / "docs" / "GUIDE.md"
MAX_README_LINES = 200


def sh_commands(*documents: Path) -> list[str]:
    """Every command line inside a fenced ``sh`` block of ``documents`` (default: the README)."""
    lines = []
    for document in documents or (README,):
        blocks = re.findall(r"```sh\n(.*?)```", document.read_text(), flags=re.DOTALL)
        lines += [line.strip() for block in blocks for line in block.splitlines() if line.strip()]
    return [line.split("  #")[0].strip() for line in lines]


def test_every_make_target_in_the_readme_exists() -> None:
    makefile = (REPO_ROOT / "Makefile").read_text()
    targets = [cmd.split()[1] for cmd in sh_commands() if cmd.startswith("make ")]
    assert {"run", "test", "ui"} <= set(targets)
    for target in targets:
        assert re.search(rf"^{re.escape(target)}:", makefile, flags=re.MULTILINE), target


@pytest.mark.slow  # over 5 s: make test only
def test_every_genstrat_command_in_the_readme_and_the_guide_runs() -> None:
    commands = [cmd for cmd in sh_commands(README, GUIDE) if cmd.startswith(".venv/bin/genstrat ")]
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


def test_the_readme_is_short_and_has_what_a_user_needs_first() -> None:
    """What it is, a figure, the two commands, the three uses, a Python example, a citation."""
    text = README.read_text()
    assert len(text.splitlines()) <= MAX_README_LINES
    for heading in ("## Two commands", "## The three uses", "## In Python", "## Citation"):
        assert heading in text, heading
    for figure in re.findall(r"!\[[^]]*\]\(([^)]+)\)", text):
        assert (REPO_ROOT / figure).is_file(), figure
    assert re.findall(r"!\[[^]]*\]\(([^)]+)\)", text)


@pytest.mark.slow  # over 5 s: make test only
def test_the_readme_python_example_runs() -> None:
    (example,) = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    done = subprocess.run(
        [sys.executable, "-c", example],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "rulebook characters" in done.stdout and "chips won:" in done.stdout
