# Two entry points a new user needs: `make run` and `make test` (README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Exit status 1 means "the doctor has findings", which is a result, not a failure of `make`.
run: $(STAMP)
	@$(BIN)/gpudoctor check; rc=$$?; [ $$rc -le 1 ]

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/check_speed.py

clean:
	rm -rf $(VENV) build src/*.egg-info
