"""The layers' contracts, checked on the code and shown to catch a planted violation.

Two checks (docs/ARCHITECTURE.md, "Layers and contracts"):
- ``lint-imports`` (import-linter, configured in pyproject.toml): imports point one way,
  engines <- arena <- quality <- releases <- assets <- pipelines, and inside every package in
  its own order, with no circle at any depth; ``engines`` imports no Dagster, network,
  subprocess, process-pool, file-locking or SQLite module;
- a scan of ``engines/``'s syntax for what an import contract cannot see: reading the
  environment (``os.environ``, ``os.getenv``), opening or writing files (``open``,
  ``Path.read_text`` and its siblings), and asyncio servers or subprocesses.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support import REPO_ROOT

PACKAGES = ("engines", "arena", "quality", "releases", "assets", "pipelines")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

FILE_METHODS = {"read_text", "write_text", "read_bytes", "write_bytes", "open", "touch", "unlink"}
FORBIDDEN_CALLS = {
    ("os", "getenv"),
    ("os", "putenv"),
    ("os", "system"),
    ("os", "popen"),
    ("os", "fork"),
    ("asyncio", "start_server"),
    ("asyncio", "start_unix_server"),
    ("asyncio", "create_subprocess_exec"),
    ("asyncio", "create_subprocess_shell"),
}


def impurities(source: str, filename: str = "<source>") -> list[str]:
    """What in ``source`` touches the environment, files, servers or processes: one line each."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        where = f"{filename}:{getattr(node, 'lineno', 0)}"
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and (node.value.id, node.attr) in {("os", "environ"), ("os", "environb")}
        ):
            found.append(f"{where}: reads the environment (os.{node.attr})")
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "open":
                found.append(f"{where}: opens a file")
            elif isinstance(func, ast.Attribute):
                owner = func.value.id if isinstance(func.value, ast.Name) else None
                if (owner, func.attr) in FORBIDDEN_CALLS:
                    found.append(f"{where}: calls {owner}.{func.attr}")
                elif func.attr in FILE_METHODS and owner not in {"self", "cls"}:
                    found.append(f"{where}: file access (.{func.attr})")
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            for alias in node.names:
                if alias.name in {"environ", "getenv", "environb"}:
                    found.append(f"{where}: imports os.{alias.name}")
    return found


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env={"PATH": str(Path(sys.executable).parent), "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_import_contracts_hold() -> None:
    contracts = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    # every package of two modules or more keeps an order (engines.gbg in its own test)
    assert len(contracts["contracts"]) >= 25
    result = lint_imports(REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(contracts['contracts'])} kept, 0 broken." in result.stdout


@pytest.fixture(scope="module")
def planted_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the six packages and the contracts, to plant violations in."""
    root = tmp_path_factory.mktemp("tree")
    for package in PACKAGES:
        shutil.copytree(
            REPO_ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(REPO_ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("engines/planted_up.py", "import assets.pool\n", "engines.planted_up -> assets.pool"),
        ("arena/planted_up.py", "import pipelines.cli\n", "arena.planted_up -> pipelines.cli"),
        ("engines/planted_io.py", "import subprocess\n", "engines.planted_io -> subprocess"),
        ("engines/planted_db.py", "import sqlite3\n", "engines.planted_db -> sqlite3"),
        ("engines/planted_dg.py", "import dagster\n", "engines.planted_dg -> dagster"),
    ],
)
def test_a_planted_violation_breaks_the_contracts(
    planted_tree: Path, module: str, source: str, expected: str
) -> None:
    planted = planted_tree / module
    planted.write_text(source)
    try:
        result = lint_imports(planted_tree)
    finally:
        planted.unlink()
    assert result.returncode == 1, result.stdout
    assert expected in result.stdout
    assert " broken." in result.stdout and "0 broken" not in result.stdout


@pytest.mark.parametrize(
    ("module", "added", "broken"),
    [
        # the axes read nothing of the statistics, which stand on them
        (
            "engines/axes/names.py",
            "import engines.stats.analysis\n",
            ["engines.axes.names -> engines.stats.analysis", "engines: ablations <- stats"],
        ),
        # a deal does not make its game: the circle spec <-> state, hidden in a function
        (
            "engines/openspiel/state.py",
            "def _planted() -> None:\n    from engines.openspiel.spec import OpenSpielSpec\n",
            [
                "engines.openspiel.state -> engines.openspiel.spec",
                "No cycles are allowed in engines.openspiel.",
                "engines.openspiel: pgn, random_play <- spec",
            ],
        ),
        # the LLM clients know no roster
        (
            "arena/llm/usage.py",
            "from arena.roster import Roster\n",
            ["arena.llm.usage -> arena.roster", "arena: ablations, adapters, werewolf"],
        ),
        # the matches' play does not call back into the run that drives it
        (
            "arena/tournament/play.py",
            "def _planted() -> None:\n    from arena.tournament import shards\n",
            [
                "arena.tournament.play -> arena.tournament.shards",
                "No cycles are allowed in arena.tournament.",
            ],
        ),
        # the report renders tables; it does not reach for what publishes them
        (
            "releases/report.py",
            "def _planted() -> None:\n    from releases.contents import strength_cost_frame\n",
            ["releases.report -> releases.contents", "No cycles are allowed in releases."],
        ),
    ],
)
def test_a_planted_import_breaks_a_package_order(
    planted_tree: Path, module: str, added: str, broken: list[str]
) -> None:
    """An import added to a module of the tree (at its end, where a late import would stand)
    breaks its package's layers, and the circle contract when it closes a circle."""
    path = planted_tree / module
    original = path.read_text()
    path.write_text(f"{original}\n\n{added}")
    try:
        result = lint_imports(planted_tree)
    finally:
        path.write_text(original)
    assert result.returncode == 1, result.stdout
    for line in broken:
        assert line in result.stdout, result.stdout
    assert lint_imports(planted_tree).returncode == 0  # the tree as it was keeps them all


def test_engines_touch_no_environment_files_servers_or_processes() -> None:
    problems = [
        line
        for path in sorted((REPO_ROOT / "engines").rglob("*.py"))
        for line in impurities(path.read_text(), str(path.relative_to(REPO_ROOT)))
    ]
    assert problems == []


@pytest.mark.parametrize(
    "source",
    [
        "import os\nkey = os.environ['KEY']\n",
        "import os\nkey = os.getenv('KEY')\n",
        "from os import environ\n",
        "data = open('x').read()\n",
        "from pathlib import Path\nPath('x').write_text('y')\n",
        "import asyncio\nasyncio.start_server(None)\n",
        "import os\nos.system('true')\n",
    ],
)
def test_the_scan_catches_a_planted_impurity(source: str) -> None:
    assert len(impurities(source)) == 1
