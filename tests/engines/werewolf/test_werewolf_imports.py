"""Imports inside ``engines.werewolf`` go one way (the order in the package docstring), the
production modules never import the conformance oracle, and the science stays pure: the same
ast reading as ``tests/engines/gbg/test_imports.py``."""

from __future__ import annotations

from tests.engines.gbg.test_imports import find_cycle, import_graph
from tests.support import REPO_ROOT

PACKAGE = "engines.werewolf"
ORDER = (
    "roles",
    "rules",
    "events",
    "filter",
    "view",
    "state",
    "render",
    "claims",
    "bots",
    "play",
    "schedule",
    "conformance",
)


def graph() -> dict[str, set[str]]:
    return import_graph(REPO_ROOT / "engines" / "werewolf", PACKAGE)


def test_modules_import_only_modules_listed_before_them() -> None:
    g = graph()
    rank = {f"{PACKAGE}.{m}": k for k, m in enumerate(ORDER)}
    assert set(rank) | {PACKAGE} == set(g), "a module is missing from ORDER"
    late = [
        f"{m} imports {t}"
        for m, targets in g.items()
        if m != PACKAGE
        for t in targets
        if t == PACKAGE or rank[t] >= rank[m]
    ]
    assert late == []
    assert find_cycle(g) == []


def test_no_production_module_imports_the_conformance_oracle() -> None:
    users = sorted(m for m, t in graph().items() if f"{PACKAGE}.conformance" in t)
    assert users == []
