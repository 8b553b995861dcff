"""The compiled engine: the interpreter's hot modules built by mypyc, loaded only while they
match their sources.

"Compiled" in this project means this and only this: the same Python sources as ``engines/``,
compiled by mypyc into C extensions.  It is not a second implementation of the rules (that is the
kernel, ``engines.gbg.batch_kernel``, which the backend switch also chooses).

The axes spend their time in the engine's plain Python: the interpreter's moves
(``engines.gbg.state``, ``phases``), the fixed-chance trees of the replays
(``engines.gbg.fixed_chance``, ``engines.axes.play``), the worlds and searches of the
information axis and the population's mixtures.  ``tools/build_engine.py`` (``make compiled``,
part of ``make run`` and ``make test``) compiles ``COMPILED`` with mypyc into C extensions under
``build/engine/``: the same code, its annotations enforced, run without the interpreter's
dispatch.  ``engines/`` itself never loads them (``benchmarks/compiled_engine.py`` runs both side
by side and checks that every number is equal; so does ``tests/arena/test_compiled_engine.py``).

``enable()`` is called by the entry points before they import the engine (``pipelines``,
``assets``, the test suite, the benchmarks) and follows the one switch of the process,
``GENSTRAT_ENGINE`` (``engines.backend``): ``compiled`` loads the build, ``kernel`` (the
default) and ``reference`` run the sources.  A build loads only if its record
(``build/engine/manifest.json``: the size, time and sha256 of every source of ``engines/``)
matches the sources now, all of them or none: the compiled modules call each other natively, and
mypyc compiles against the types of the modules they import.  Asked for while out of date (or
missing), it is refused: the process ends with one line naming the first source that differs
and the command that rebuilds (``make compiled``), exit status 2.  Nothing runs on a stale build,
and nothing falls back without saying so.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from engines.backend import ENV, choose, parse  # engines/__init__ and this module import no engine

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
    "engines.gbg.fixed_chance",
    "engines.gbg.rules",
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


def stale(root: Path = ENGINES, build: Path = BUILD) -> str | None:
    """Why the build in ``build`` is not one of the sources now in ``root`` (None: it is): not
    built, an extension missing, or the first source added, removed or changed since (its size
    and time compared first, its sha256 when they moved)."""
    try:
        recorded = json.loads((build / MANIFEST.name).read_text())["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return "not built"
    missing = [path for path in built_files(build) if not path.is_file()]
    if missing:
        return f"{missing[0].name} is missing from the build"
    if not isinstance(recorded, dict):
        return "its record is unreadable"
    paths = {path.relative_to(root).as_posix(): path for path in sorted(root.rglob("*.py"))}
    for name in sorted(set(recorded) - set(paths)):
        return f"engines/{name} is gone since the build"
    for name, path in paths.items():
        entry = recorded.get(name)
        if not isinstance(entry, list) or len(entry) != 3:
            return f"engines/{name} is new since the build"
        stat = path.stat()
        if [stat.st_size, stat.st_mtime_ns] != entry[:2] and _digest(path) != entry[2]:
            return f"engines/{name} changed since the build"
    return None


def fresh(root: Path = ENGINES, build: Path = BUILD) -> bool:
    """Whether a complete build of the sources now in ``root`` sits in ``build``."""
    return stale(root, build) is None


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


def enable(build: Path = BUILD, root: Path = ENGINES) -> str:
    """Follow ``GENSTRAT_ENGINE`` (module docstring); the engine this process runs: ``compiled``,
    ``kernel`` or ``reference``.  A bad name, or ``compiled`` with a build that does not match
    the sources, ends the process with one line (``SystemExit``, status 2).  Idempotent; once an
    engine module is imported, or after ``interpret()``, it changes nothing."""
    if "engine" in _state:
        return _state["engine"]
    try:
        chosen = parse(os.environ.get(ENV))
    except ValueError as error:
        _refuse(str(error))
    choose(chosen)  # the engine reads no environment: it is told
    if chosen != "compiled":
        _state["engine"] = chosen
        return chosen
    loaded = [name for name in COMPILED if name in sys.modules]
    if loaded:
        _refuse(f"{ENV}=compiled, but {loaded[0]} was imported before enable()")
    why = stale(root, build)
    if why is not None:
        _refuse(
            f"{ENV}=compiled, but the compiled engine in {_shown(build)} is out of date "
            f"({why}): run `make compiled`, or set {ENV}=kernel"
        )
    sys.meta_path.insert(0, CompiledFirst(build))
    _state["engine"] = "compiled"
    return "compiled"


def _shown(path: Path) -> str:
    return path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)


def _refuse(message: str) -> NoReturn:
    """End the process with ``message`` on one line of stderr, exit status 2."""
    print(f"genstrat: {message}", file=sys.stderr)
    raise SystemExit(2)


def interpret() -> str:
    """Keep the sources in this process, whatever ``enable()`` is asked later (the reference
    side of the compiled engine's equality test; ``RuntimeError`` if the compiled modules are
    already in).  The kernel still plays unless ``GENSTRAT_ENGINE=reference``."""
    if asked():
        if any(name in sys.modules for name in COMPILED):
            raise RuntimeError("the compiled engine is already imported in this process")
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, CompiledFirst)]
    with contextlib.suppress(ValueError):  # a bad name is enable()'s to refuse
        choose("reference" if parse(os.environ.get(ENV)) == "reference" else "kernel")
    _state["engine"] = "kernel"
    return "kernel"


def asked() -> bool:
    """Whether this process loads the compiled modules (``enable()`` found the build current)."""
    return any(isinstance(finder, CompiledFirst) for finder in sys.meta_path)


def running() -> str:
    """Which engine this process runs, by where ``engines.gbg.state`` was loaded from (it is
    imported here if it was not): ``compiled`` or ``interpreted``."""
    import engines.gbg.state as state

    origin = getattr(state, "__file__", "") or ""
    return "interpreted" if origin.endswith(".py") else "compiled"
