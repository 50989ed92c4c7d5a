# Two commands on a fresh machine with only Python 3.11: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench eval samples clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# torch first, pinned to the local CPU build, so the extra never resolves a CUDA build
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev,torch,dask,postgres]'
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m app.cli serve --with-samples

test: $(STAMP)
	$(PY) -m pytest -q

lint: $(STAMP)
	$(PY) -m ruff check .

bench: $(STAMP)
	$(PY) benchmarks/ingest.py
	$(PY) benchmarks/diagnose.py
	$(PY) benchmarks/service.py
	$(PY) benchmarks/audit.py

eval: $(STAMP)
	$(PY) benchmarks/evaluate.py

samples: $(STAMP)
	$(PY) sample_runs/generate.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
