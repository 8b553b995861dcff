# GENSTRAT: two commands on a fresh machine.
#   make run   - create .venv if missing, install pinned dependencies, materialize the main job (demo profile)
#   make test  - same set-up, then ruff, mypy (engines/) and the whole test suite
#   make ui    - the Dagster UI on http://127.0.0.1:3000
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export DAGSTER_HOME := $(CURDIR)/.dagster_home
export GENSTRAT_DATA := $(CURDIR)/data
export PYTHONHASHSEED := 0

.PHONY: install run test ui lint typecheck pytest bench clean browser

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=/path/to/python3.11'" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

$(DAGSTER_HOME)/dagster.yaml: dagster.yaml
	mkdir -p $(DAGSTER_HOME)
	cp dagster.yaml $(DAGSTER_HOME)/dagster.yaml

install: $(STAMP) $(DAGSTER_HOME)/dagster.yaml

run: install
	$(BIN)/python -m pipelines.run_main

test: install lint typecheck pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

# Headless Chromium (Debian's package) for the end-to-end UI test; installed once if missing.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium (Debian package) for the UI test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

pytest: install browser
	$(BIN)/pytest -q

ui: install
	$(BIN)/dagster dev -h 127.0.0.1 -p 3000 -w workspace.yaml

bench: install
	$(BIN)/genstrat bench engine

clean:
	rm -rf $(VENV) $(DAGSTER_HOME) $(GENSTRAT_DATA)
