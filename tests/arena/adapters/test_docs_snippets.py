"""Keep docs/ADAPTERS.md true: every Python block runs, and prints the text block after it."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.support import REPO_ROOT

DOC = REPO_ROOT / "docs" / "ADAPTERS.md"
# a Python block, optionally followed (after blank lines) by the text block of its output
BLOCK = re.compile(r"```python\n(.*?)```\s*(?:```text\n(.*?)```)?", flags=re.DOTALL)


def snippets() -> list[tuple[str, str | None]]:
    return [(code, output) for code, output in BLOCK.findall(DOC.read_text())]


def test_the_page_has_a_snippet_per_adapter() -> None:
    codes = [code for code, _ in snippets()]
    for module in ("pettingzoo_env", "gymnasium_env", "textarena_env"):
        assert any(f"arena.adapters.{module}" in code for code in codes), module
    assert all(output is not None for _, output in snippets())


@pytest.mark.parametrize("index", range(len(snippets())))
def test_every_snippet_runs_and_prints_what_the_page_shows(index: int, tmp_path: object) -> None:
    code, output = snippets()[index]
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,  # type: ignore[arg-type]  # a reader's folder; the code from the checkout
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == (output or ""), result.stdout
