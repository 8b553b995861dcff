"""Which backend plays the rules in this process: one switch, ``GENSTRAT_ENGINE``.

The rules have two implementations: the interpreter (``engines.gbg.state`` and ``phases``), the
readable reference, and the kernel (``engines.gbg.batch_kernel``), which plays many deals of
one game on flat tables in machine code (numba) and is held to the interpreter deal for deal by
a differential test over generated games.  The variable chooses for the whole process:

- ``reference``: every deal on the interpreter, run from its sources (the oracle);
- ``kernel`` (the default): the batch play of the acceptance filter, ``simulate``, the
  screening, the state-space count, the rollouts and the population's play on the kernel, the
  rest on the interpreter; a game the kernel hands back is played on the interpreter;
- ``compiled``: ``kernel``, with the interpreter's hot modules loaded from their mypyc build
  (``arena.compiled_engine``, which refuses a build older than the sources).

The engine reads no environment (``engines/`` is pure): the entry points read the variable
(``arena.compiled_engine.enable()``, which every entry point calls before it imports the
engine: the CLI, the Dagster code location, a pool's spawned workers, the tests) and hand it
to ``choose``; the engine asks ``backend()`` when it plays.  ``using(name)`` sets the backend
for a block of this process (the differential tests run both sides in one process; a forked
pool's workers inherit it).  This module imports nothing of the engine, so that
``arena.compiled_engine`` can read the switch before the compiled modules are asked for.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final, Literal, cast

ENV = "GENSTRAT_ENGINE"
BACKENDS = ("reference", "kernel", "compiled")
DEFAULT: Final = "kernel"

Backend = Literal["reference", "kernel", "compiled"]

_chosen: list[Backend] = []  # innermost ``using`` last
_process: list[Backend] = [DEFAULT]  # what ``choose`` set for this process


def parse(value: str | None) -> Backend:
    """The backend named by ``value`` (None or empty: the default); ``ValueError`` with the
    accepted names otherwise."""
    name = (value or DEFAULT).strip().lower()
    if name not in BACKENDS:
        raise ValueError(f"{ENV}={value!r} is not a backend: use one of {', '.join(BACKENDS)}")
    return cast(Backend, name)


def choose(name: Backend) -> None:
    """The backend of this process from now on (its entry point's reading of ``ENV``)."""
    _process[0] = parse(name)


def backend() -> Backend:
    """The backend this process plays on now (``using``, else what ``choose`` set)."""
    return _chosen[-1] if _chosen else _process[0]


def kernel_plays() -> bool:
    """Whether the kernel plays the batch paths (every backend but ``reference``)."""
    return backend() != "reference"


@contextmanager
def using(name: Backend) -> Iterator[None]:
    """Play on backend ``name`` inside the block (``compiled`` counts as ``kernel`` here: which
    modules a process loads is decided when it starts)."""
    _chosen.append(parse(name))
    try:
        yield
    finally:
        _chosen.pop()
