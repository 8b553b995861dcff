"""The engine's hot modules compiled by mypyc, loaded only while they match their sources.

The axes spend their time in the engine's plain Python: the interpreter's moves
(``engines.gbg.state``, ``phases``), the fixed-chance trees of the replays (``engines.gbg.batch``,
``engines.axes.play``), the worlds and searches of the information axis and the population's
mixtures.  ``tools/build_engine.py`` (``make compiled``, part of ``make run`` and ``make test``)
compiles ``COMPILED`` with mypyc into C extensions under ``build/engine/``: the same code, its
annotations enforced, run without the interpreter's dispatch.  ``engines/`` itself never loads
them: its sources are the reference, what a process runs unless it asks for the compiled
modules, and what ``interpret()`` keeps (``benchmarks/compiled_engine.py`` runs both side by
side and checks that every number is equal; so does ``tests/arena/test_compiled_engine.py``).

``enable()`` asks for them: the entry points call it before they import the engine
(``pipelines``, ``assets``, the test suite, the benchmarks).  It loads them only if the build's
record (``build/engine/manifest.json``: the size, time and sha256 of every source of
``engines/``) matches the sources now, all of them or none: the compiled modules call each
other natively, and mypyc compiles against the types of the modules they import.  A build that
is out of date is left alone, and the engine runs interpreted until ``make compiled`` rebuilds.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ENGINES = REPO / "engines"
BUILD = REPO / "build" / "engine"
MANIFEST = BUILD / "manifest.json"
GROUP = "engines._native"  # the group's shared library: <BUILD>/engines/_native__mypyc.<abi>.so
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]  # .cpython-311-x86_64-linux-gnu.so

COMPILED: tuple[str, ...] = (
    "engines.agents.dirichlet",
    "engines.axes.information",
    "engines.axes.menus",
    "engines.axes.play",
    "engines.axes.population",
    "engines.axes.replay",
    "engines.axes.worlds",
    "engines.gbg.batch",
    "engines.gbg.compiled",
    "engines.gbg.engine",
    "engines.gbg.phases",
    "engines.gbg.rng",
    "engines.gbg.state",
)

_state: dict[str, str] = {}  # "engine": what enable() or interpret() decided in this process


def extension(name: str, build: Path = BUILD) -> Path:
    """Where the build puts the compiled module ``name`` (or the group's library)."""
    return build / (name.replace(".", "/") + SUFFIX)


def built_files(build: Path = BUILD) -> list[Path]:
    """Every extension a build makes: one per module, and the group's library."""
    return [extension(name, build) for name in (*COMPILED, GROUP + "__mypyc")]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sources(root: Path = ENGINES) -> dict[str, list[Any]]:
    """Every ``.py`` file below ``root`` by relative path: its size, mtime (ns) and sha256."""
    found: dict[str, list[Any]] = {}
    for path in sorted(root.rglob("*.py")):
        stat = path.stat()
        found[path.relative_to(root).as_posix()] = [stat.st_size, stat.st_mtime_ns, _digest(path)]
    return found


def fresh(root: Path = ENGINES, build: Path = BUILD) -> bool:
    """Whether a complete build of the sources now in ``root`` sits in ``build``: every
    extension present, the same source files, each with the recorded content (its size and
    time compared first, its hash when they moved)."""
    try:
        recorded = json.loads((build / MANIFEST.name).read_text())["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if not all(path.is_file() for path in built_files(build)):
        return False
    paths = sorted(root.rglob("*.py"))
    if not isinstance(recorded, dict) or len(paths) != len(recorded):
        return False
    for path in paths:
        entry = recorded.get(path.relative_to(root).as_posix())
        if not isinstance(entry, list) or len(entry) != 3:
            return False
        stat = path.stat()
        if [stat.st_size, stat.st_mtime_ns] == entry[:2]:
            continue
        if _digest(path) != entry[2]:
            return False
    return True


class CompiledFirst:
    """Finds the modules of ``COMPILED`` (and the group's library) in a build folder: a finder
    of ``sys.meta_path`` (not derived from ``importlib.abc``, slow to import for the CLI)."""

    def __init__(self, build: Path) -> None:
        self.build = build
        self.names = frozenset((*COMPILED, GROUP + "__mypyc"))

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        found = extension(fullname, self.build)
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(found))
        return importlib.util.spec_from_file_location(fullname, found, loader=loader)


def enable(build: Path = BUILD) -> str:
    """Load the compiled modules from now on if the build is fresh (module docstring); which
    engine this process runs: ``compiled``, or ``interpreted`` with the reason.  Idempotent;
    once an engine module is imported, or after ``interpret()``, it changes nothing."""
    if "engine" in _state:
        return _state["engine"]
    loaded = [name for name in COMPILED if name in sys.modules]
    if loaded:
        decided = "interpreted (the engine was imported before the compiled modules were asked for)"
    elif not (build / MANIFEST.name).exists():
        decided = "interpreted (not built: make compiled)"
    elif not fresh(build=build):
        decided = "interpreted (the build is older than the sources: make compiled)"
    else:
        sys.meta_path.insert(0, CompiledFirst(build))
        decided = "compiled"
    _state["engine"] = decided
    return decided


def interpret() -> str:
    """Keep the interpreted engine in this process, whatever ``enable()`` is asked later (the
    reference; ``RuntimeError`` if the compiled modules are already in)."""
    if asked():
        if any(name in sys.modules for name in COMPILED):
            raise RuntimeError("the compiled engine is already imported in this process")
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, CompiledFirst)]
    _state["engine"] = "interpreted (asked for)"
    return _state["engine"]


def asked() -> bool:
    """Whether this process loads the compiled modules (``enable()`` found the build current)."""
    return any(isinstance(finder, CompiledFirst) for finder in sys.meta_path)


def running() -> str:
    """Which engine this process runs, by where ``engines.gbg.state`` was loaded from (it is
    imported here if it was not): ``compiled`` or ``interpreted``."""
    import engines.gbg.state as state

    origin = getattr(state, "__file__", "") or ""
    return "interpreted" if origin.endswith(".py") else "compiled"
