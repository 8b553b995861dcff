"""No circles in the imports of the six packages, and no import inside a function that hides one.

An import placed inside a function runs late, so two modules can import each other without an
``ImportError``: the circle is still there, only hidden.  The import contracts
(``[tool.importlinter]`` in pyproject.toml, ``make contracts``) keep every package's modules in
one order; this check reads the source with ``ast`` and names the place a circle is closed:
for each import inside a function (or lambda), whether the module it imports reaches the
importer back through any imports at all.  An import inside a function that closes no circle
(a heavy library, or a lower module loaded on first use to keep start-up fast) is allowed.

Every import statement counts, at module level, inside a function, or under
``if TYPE_CHECKING:``; ``from package import name`` imports the submodule ``name`` when there is
one, else the package (its ``__init__``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import REPO_ROOT

PACKAGES = ("engines", "arena", "quality", "releases", "assets", "pipelines")


@dataclass(frozen=True)
class Edge:
    """``importer`` imports ``imported`` at ``line``; ``late``: inside a function."""

    importer: str
    imported: str
    line: int
    late: bool


def module_names(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of ``packages`` under ``root``."""
    files: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return files


def _targets(node: ast.Import | ast.ImportFrom, name: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = name.split(".")
        anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
        base = ".".join([*anchor, base]) if base else ".".join(anchor)
    return [f"{base}.{alias.name}" for alias in node.names] + [base]


def module_edges(path: Path, name: str, modules: set[str]) -> list[Edge]:
    """The imports of the file at ``path`` (module ``name``) of modules in ``modules``."""
    edges: list[Edge] = []
    is_package = path.name == "__init__.py"

    def visit(node: ast.AST, late: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = late or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import | ast.ImportFrom):
                targets = _targets(child, name, is_package)
                if isinstance(child, ast.ImportFrom):
                    # ``from a import b``: the submodule a.b when it exists, else a itself
                    names = [t for t in targets[:-1] if t in modules] or [targets[-1]]
                else:
                    names = targets
                for target in names:
                    while target and target not in modules:
                        target = target.rpartition(".")[0]
                    if target and target != name:
                        edges.append(Edge(name, target, child.lineno, inside))
            visit(child, inside)

    visit(ast.parse(path.read_text(), filename=str(path)), False)
    return edges


def import_edges(root: Path, packages: tuple[str, ...] = PACKAGES) -> list[Edge]:
    files = module_names(root, packages)
    modules = set(files)
    return [edge for name, path in files.items() for edge in module_edges(path, name, modules)]


def import_graph(edges: list[Edge]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.importer, set()).add(edge.imported)
    return graph


def paths_from(graph: dict[str, set[str]], start: str) -> dict[str, str]:
    """Every module ``start`` reaches, with the module it is reached from (breadth first)."""
    came_from: dict[str, str] = {start: start}
    frontier = [start]
    while frontier:
        module = frontier.pop(0)
        for target in sorted(graph.get(module, ())):
            if target not in came_from:
                came_from[target] = module
                frontier.append(target)
    return came_from


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> list[str]:
    """A shortest chain of imports from ``start`` to ``goal`` (``[start, ..., goal]``), or
    ``[]``."""
    came_from = paths_from(graph, start)
    if goal not in came_from:
        return []
    chain = [goal]
    while chain[-1] != start:
        chain.append(came_from[chain[-1]])
    return chain[::-1]


def hidden_circles(edges: list[Edge]) -> list[str]:
    """One line for every import inside a function that closes a circle."""
    found = []
    graph = import_graph(edges)
    for edge in edges:
        if edge.late:
            back = reaches(graph, edge.imported, edge.importer)
            if back:
                found.append(
                    f"{edge.importer}:{edge.line} imports {edge.imported} inside a function, "
                    f"which imports it back: {' -> '.join(back)}"
                )
    return found


def circles(edges: list[Edge]) -> list[str]:
    """One line for every import (anywhere) whose target imports the importer back."""
    graph = import_graph(edges)
    reached = {module: set(paths_from(graph, module)) for module in graph}
    pairs = {(e.imported, e.importer) for e in edges if e.importer in reached.get(e.imported, ())}
    return sorted(" -> ".join(reaches(graph, *pair)) for pair in pairs)


@pytest.fixture(scope="module")
def project_edges() -> list[Edge]:
    return import_edges(REPO_ROOT)


def test_no_import_inside_a_function_hides_a_circle(project_edges: list[Edge]) -> None:
    assert len({e.importer for e in project_edges}) > 200  # the walk read the packages
    assert any(e.late for e in project_edges)  # and the imports inside functions
    assert hidden_circles(project_edges) == []


def test_no_circle_anywhere(project_edges: list[Edge]) -> None:
    assert circles(project_edges) == []


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_check_finds_a_planted_circle(tmp_path: Path) -> None:
    """A circle closed inside a function is named with its line; the same import of a module
    that does not import back (a lazy import of a lower module) is allowed."""
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/spec.py": "def new_deal():\n    from pkg.state import State\n    return State()\n",
            "pkg/state.py": "from pkg.spec import new_deal\n\nclass State: ...\n",
            "pkg/lazy.py": "def load():\n    from pkg import base\n",
            "pkg/base.py": "X = 1\n",
        },
    )
    edges = import_edges(tmp_path, ("pkg",))
    assert Edge("pkg.spec", "pkg.state", 2, True) in edges
    assert Edge("pkg.state", "pkg.spec", 1, False) in edges
    assert Edge("pkg.lazy", "pkg.base", 2, True) in edges
    assert hidden_circles(edges) == [
        "pkg.spec:2 imports pkg.state inside a function, which imports it back: "
        "pkg.state -> pkg.spec"
    ]
    assert circles(edges) == ["pkg.spec -> pkg.state", "pkg.state -> pkg.spec"]
    (tmp_path / "pkg/state.py").write_text("class State: ...\n")
    edges = import_edges(tmp_path, ("pkg",))
    assert hidden_circles(edges) == [] and circles(edges) == []


def test_the_check_follows_longer_circles_and_type_checking_imports(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from . import b\n",
            "pkg/b.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.c import C\n"
            ),
            "pkg/c.py": "class C:\n    def f(self):\n        return (lambda: __import__('x'))\n"
            "def g():\n    import pkg.a\n",
        },
    )
    edges = import_edges(tmp_path, ("pkg",))
    assert hidden_circles(edges) == [
        "pkg.c:5 imports pkg.a inside a function, which imports it back: pkg.a -> pkg.b -> pkg.c"
    ]
