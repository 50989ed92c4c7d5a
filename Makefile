# Two commands on a fresh machine with only Python 3.11: `make run` and `make test`.
# `make run` installs only what the service needs; `make test` adds torch (the local CPU build,
# pinned first so no extra ever resolves a CUDA build) and the dev, dask and postgres extras.
# INSTALL=wheel installs the package as a user gets it (not editable): CI tests that.
PYTHON  ?= python3
VENV    := .venv
PY      := $(VENV)/bin/python
INSTALL ?= editable
EDITABLE := $(if $(filter wheel,$(INSTALL)),,-e)
TARGET  := $(EDITABLE) .
RUN_STAMP  := $(VENV)/.run-$(INSTALL)
TEST_STAMP := $(VENV)/.test-$(INSTALL)

.PHONY: run test check lint format typecheck docs docs-serve bench eval eval-quick robustness calibrate samples clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(RUN_STAMP): pyproject.toml setup.py | $(PY)
	$(PY) -m pip install -q $(TARGET)
	touch $@

$(TEST_STAMP): pyproject.toml setup.py | $(PY)
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q $(EDITABLE) '.[dev,docs,torch,dask,postgres,transformers,lightning,keras]'
	touch $@ $(RUN_STAMP)

run: $(RUN_STAMP)
	$(VENV)/bin/lossforensics serve --with-samples

test: $(TEST_STAMP)
	$(PY) -m pytest -q

# The checks CI runs beside the tests: lint, formatting, types, and the docs site.
check: lint typecheck docs

lint: $(TEST_STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: $(TEST_STAMP)
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

typecheck: $(TEST_STAMP)
	$(PY) .ci/typecheck.py

docs: $(TEST_STAMP)
	$(VENV)/bin/mkdocs build --strict --site-dir build/site

docs-serve: $(TEST_STAMP)
	$(VENV)/bin/mkdocs serve

bench: $(TEST_STAMP)
	$(PY) benchmarks/bench.py
	$(PY) benchmarks/performance_page.py

# Every labelled set present, one scoring -> build/eval.json -> docs/accuracy.md.
eval: $(TEST_STAMP)
	$(PY) benchmarks/evaluate.py
	$(PY) benchmarks/accuracy_page.py

# Every labelled set again with its logs rewritten (averaged, thinned, first evaluation dropped):
# how far the verdicts move; writes build/robustness.json and docs/robustness.md.
robustness: $(TEST_STAMP)
	$(PY) benchmarks/robustness.py

# The sets the repository holds (CI).
eval-quick: $(TEST_STAMP)
	$(PY) benchmarks/evaluate.py --quick

# Refit the confidence calibration on the corpus: classifiers/_calibration_table.py and
# docs/img/reliability.png.
calibrate: $(TEST_STAMP)
	$(PY) benchmarks/calibrate.py

samples: $(TEST_STAMP)
	$(PY) sample_runs/generate.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache build dist
