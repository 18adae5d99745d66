# Two commands on a fresh machine with Python 3.11: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test build info bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,official,draw]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/mhmmkg demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

build: $(STAMP)
	$(BIN)/mhmmkg build --src data --out mh-mmkg

info: $(STAMP)
	$(BIN)/mhmmkg info mh-mmkg

bench: $(STAMP)
	for script in bench/bench_*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf mh-mmkg runs build dist *.egg-info .pytest_cache
