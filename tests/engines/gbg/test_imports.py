"""Imports inside ``engines.gbg`` go one direction only: no module reaches back to one above it.

Every import statement counts, wherever it stands: at module level, inside a function, or
under ``if TYPE_CHECKING:`` (a type-only import still ties the two modules together).  The
graph is read from the source with ``ast``, so the check sees an import whether or not it runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support import REPO_ROOT

PACKAGE = "engines.gbg"


def module_name(path: Path, root: Path, package: str) -> str:
    """The dotted name of ``path`` inside ``package`` (the package itself for its __init__)."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join([package, *parts]) if parts[-1] != "__init__" else package


def imported_modules(path: Path, name: str, modules: set[str], package: str) -> set[str]:
    """The modules of ``modules`` that the file at ``path`` (module ``name``) imports.

    ``from package import x`` is an import of the submodule ``x`` when it exists, otherwise of
    the package itself (its ``__init__``); relative imports are resolved against ``name``.
    """
    found: set[str] = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            # A name inside a module (``engines.gbg.spec.GameSpec``) is an import of it.
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target != name and (target == package or target.startswith(package + ".")):
                found.add(target)
    return found


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, for every ``.py`` file under ``root``."""
    files = {module_name(p, root, package): p for p in sorted(root.rglob("*.py"))}
    modules = set(files)
    return {name: imported_modules(path, name, modules, package) for name, path in files.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as ``[a, b, ..., a]``, or ``[]`` when the graph has none (depth-first
    search; a back edge to a module still on the stack closes a cycle)."""
    done: set[str] = set()
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(module: str) -> list[str]:
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph.get(module, ())):
            if target in on_stack:
                return [*stack[stack.index(target) :], target]
            if target not in done:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        on_stack.discard(module)
        done.add(module)
        return []

    for module in sorted(graph):
        if module not in done:
            cycle = visit(module)
            if cycle:
                return cycle
    return []


def test_no_import_cycle_inside_the_game_core() -> None:
    graph = import_graph(REPO_ROOT / "engines" / "gbg", PACKAGE)
    assert len(graph) > 10  # the walk found the package's modules
    assert graph["engines.gbg.conformance"] >= {"engines.gbg.steps"}  # and their imports
    cycle = find_cycle(graph)
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_production_modules_do_not_import_the_conformance_test() -> None:
    graph = import_graph(REPO_ROOT / "engines" / "gbg", PACKAGE)
    users = sorted(m for m, targets in graph.items() if "engines.gbg.conformance" in targets)
    assert users == [], f"{users} import the conformance harness"


def test_the_check_finds_a_planted_cycle(tmp_path: Path) -> None:
    """Cycles closed by a function-level import, under TYPE_CHECKING, or through a name the
    package's ``__init__`` re-exports are all found; removing the closing import clears each."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg.low import f\n")
    (pkg / "low.py").write_text("def f() -> None:\n    from pkg.high import g\n")
    (pkg / "high.py").write_text("from pkg import low\n\ndef g() -> None: ...\n")
    (pkg / "typed.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .other import X\n"
    )
    (pkg / "other.py").write_text("from pkg.typed import Y\n")
    graph = import_graph(pkg, "pkg")
    assert graph == {
        "pkg": {"pkg.low"},
        "pkg.low": {"pkg.high"},
        "pkg.high": {"pkg.low"},
        "pkg.typed": {"pkg.other"},
        "pkg.other": {"pkg.typed"},
    }
    assert find_cycle(graph) == ["pkg.low", "pkg.high", "pkg.low"]
    (pkg / "low.py").write_text("def f() -> None: ...\n")
    assert find_cycle(import_graph(pkg, "pkg")) == ["pkg.other", "pkg.typed", "pkg.other"]
    (pkg / "typed.py").write_text("Y = 1\n")
    assert find_cycle(import_graph(pkg, "pkg")) == []
    (pkg / "low.py").write_text("from pkg import f as g\n")  # a name from pkg/__init__.py
    assert find_cycle(import_graph(pkg, "pkg")) == ["pkg", "pkg.low", "pkg"]
