"""Compile the engine's hot modules with mypyc into ``build/engine/`` (``arena.compiled_engine``).

    python tools/build_engine.py          # prints one line: the modules compiled and the time
    python tools/build_engine.py --clean  # removes the compiled modules and their record

The modules of ``arena.compiled_engine.COMPILED`` are compiled together (one mypyc group, so
that they call each other natively) in a scratch copy of ``engines/``, with the C compiler the
Python build uses; the extensions are then copied into ``build/engine/`` and
``build/engine/manifest.json`` records every source of ``engines/`` they were built from.  The
record is written last and removed first, so an interrupted build leaves nothing that loads
(``arena.compiled_engine.enable`` loads a build only while it matches the sources).
Exit status 1 with one line when the build fails (no C compiler, a module mypyc rejects);
``GENSTRAT_ENGINE=compiled`` is then refused until a build succeeds, and ``GENSTRAT_ENGINE=kernel``
runs the sources.  About a minute on two cores.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arena.compiled_engine import BUILD, COMPILED, GROUP, MANIFEST, built_files, sources  # noqa: E402


def clean() -> None:
    MANIFEST.unlink(missing_ok=True)  # first: what is left without a record never loads
    for path in built_files():
        path.unlink(missing_ok=True)


def build(verbose: bool) -> float:
    from mypyc.build import mypycify
    from setuptools import Distribution

    started = time.perf_counter()
    record = sources()  # before compiling: the record names what was compiled
    clean()
    with tempfile.TemporaryDirectory(prefix="genstrat-mypyc-") as scratch:
        work = Path(scratch)
        shutil.copytree(REPO / "engines", work / "engines", ignore=_not_sources)
        shutil.copy(REPO / "pyproject.toml", work / "pyproject.toml")  # mypy's settings
        cwd = Path.cwd()
        os.chdir(work)
        try:
            log = io.StringIO()
            with contextlib.redirect_stdout(sys.stdout if verbose else log):
                paths = [name.replace(".", "/") + ".py" for name in COMPILED]
                extensions = mypycify(paths, opt_level="3", group_name=GROUP)
                dist = Distribution({"name": "genstrat-engine", "ext_modules": extensions})
                command = dist.get_command_obj("build_ext")
                command.inplace = True  # type: ignore[attr-defined]
                dist.run_command("build_ext")
        finally:
            os.chdir(cwd)
        for target in built_files():
            built = work / target.relative_to(BUILD)
            if not built.is_file():
                raise RuntimeError(f"mypyc did not produce {built.name}")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(built, target)
    MANIFEST.write_text(json.dumps({"modules": list(COMPILED), "sources": record}, indent=1))
    return time.perf_counter() - started


def _not_sources(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__" or n.endswith((".so", ".json"))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--verbose", action="store_true", help="show the compiler's output")
    args = parser.parse_args()
    if args.clean:
        clean()
        print("build_engine: compiled modules removed; GENSTRAT_ENGINE=kernel runs the sources")
        return 0
    try:
        seconds = build(args.verbose)
    except (Exception, SystemExit) as error:  # mypyc and setuptools exit on compile errors
        clean()
        print(
            f"build_engine: failed ({error}); GENSTRAT_ENGINE=kernel runs the sources",
            file=sys.stderr,
        )
        return 1
    print(f"build_engine: {len(COMPILED)} modules compiled with mypyc in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
