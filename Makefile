# The same targets on a laptop and in CI (.ci/run calls `make test`).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-test

.PHONY: demo test lint typecheck bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall when the project metadata changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/assess demo --out assess-demo

lint: $(STAMP)
	$(BIN)/ruff check assess tests benchmarks
	$(BIN)/ruff format --check assess tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy assess

test: lint typecheck
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/scope_bench.py --rows 5000000

clean:
	rm -rf $(VENV) assess-demo build dist .mypy_cache .pytest_cache .ruff_cache
