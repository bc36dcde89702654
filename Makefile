# The same targets on a laptop and in CI (.ci/run calls `make test`).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-test
# `make demo` needs the runtime dependencies only (no test tools: about half the venv's size)
RUNTIME := $(VENV)/.installed-runtime

.PHONY: demo test test-engines test-times lint typecheck bench readme-images clean jvm docs litellm package

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall when the project metadata changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

$(RUNTIME): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUNTIME)

demo: $(RUNTIME)
	$(BIN)/assess demo --out assess-demo

lint: $(STAMP)
	$(BIN)/ruff check assess tests benchmarks
	$(BIN)/ruff format --check assess tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy assess

# The Spark tests need a JVM: installed from the distribution's packages where missing and
# possible (root with apt-get); otherwise they are skipped and say why.
jvm:
	@command -v java >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && apt-get install -y -qq default-jre-headless >/dev/null 2>&1; } || true

# The LiteLLM proxy test (tests/scope/test_litellm_proxy.py) runs litellm[proxy] from PyPI in a
# venv of its own, cached under ${XDG_CACHE_HOME:-~/.cache}/assess-tests (its pins conflict with
# ours): made here once (about 4-8 minutes, 750 MB); where it cannot be installed the test skips.
litellm: $(STAMP)
	$(BIN)/python -m tests.scope.litellm_venv

# One pytest worker per core (pytest-xdist), at most four: each worker starts its own object-store
# servers and Spark (one JVM per worker, about 1 GB). worksteal gives each worker a run of
# consecutive tests (a file's tests stay together) and an idle worker takes half of a busy one's
# remaining run, so a module's shared fixture (a review built once, say) is built once per worker
# at most. The tests are isolated for it: servers bind port 0, files go under tmp_path (see
# docs/development.md). Serially: `make test PYTEST_ARGS=`; the same for test-times.
PYTEST_ARGS ?= -n auto --maxprocesses=4 --dist worksteal
test: lint typecheck jvm litellm package
	$(BIN)/pytest -q $(PYTEST_ARGS)

# The real-engine tests (tests/engines/, marked `engines`; `make test` lists them as skipped):
# llama.cpp's server, llama-cpp-python[server] built from its sdist into a venv of its own under
# ${XDG_CACHE_HOME:-~/.cache}/assess-tests (tests/engines/llama_venv.py). The build takes about
# ten minutes on two cores, once: the built wheel is kept there and later venvs reuse it.
test-engines: $(STAMP)
	$(BIN)/python -m tests.engines.llama_venv
	$(BIN)/pytest -q -s -m engines tests/engines

# The sdist and the wheel build, and their metadata (README included) passes PyPI's checks.
package: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --no-isolation --outdir dist . > /dev/null
	$(BIN)/twine check --strict dist/*

# The documentation site (mkdocs.yml, docs/); `make test` builds it too (tests/test_docs.py).
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

# Where the suite's time goes: wall time, load, the sum of the tests' own times, the slowest ones
test-times: $(STAMP)
	$(BIN)/python benchmarks/test_times.py $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/scope_bench.py --rows 5000000

# The docs' pictures of the demo report and of the portfolio page (needs pdftoppm:
# apt-get install poppler-utils).
readme-images: demo
	pdftoppm -png -r 100 -f 1 -l 2 assess-demo/report.pdf docs/img/report-page
	mv docs/img/report-page-01.png docs/img/report-page-1.png
	mv docs/img/report-page-02.png docs/img/report-page-2.png
	$(BIN)/assess score samples/vendors/incident-like.yaml --json assess-demo/last-quarter.json > /dev/null
	$(BIN)/assess portfolio samples/vendors/*.yaml --previous assess-demo/last-quarter.json --out assess-demo/portfolio > /dev/null
	# a page wide enough for every column (A4 landscape cuts the coverage and trend columns off)
	$(BIN)/python -c "import weasyprint as w; w.HTML('assess-demo/portfolio/portfolio.html').write_pdf('assess-demo/portfolio/portfolio.pdf', stylesheets=[w.CSS(string='@page { size: 400mm 170mm !important; margin: 10mm !important }')])"
	pdftoppm -png -r 90 -x 0 -y 0 -W 1417 -H 400 -singlefile assess-demo/portfolio/portfolio.pdf docs/img/portfolio

clean:
	rm -rf $(VENV) assess-demo build dist site .mypy_cache .pytest_cache .ruff_cache
