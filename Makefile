# Two entry points a new user needs: `make run` and `make test` (README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean slurm-deps

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Exit status 1 means "the doctor has findings", which is a result, not a failure of `make`.
run: $(STAMP)
	@$(BIN)/gpudoctor check; rc=$$?; [ $$rc -le 1 ]

# tests/integration/test_slurm.py needs Debian's slurm-wlm and munge: in CI, as root, with apt-get,
# install them; never fail the build over it (without them the test skips and says why).
slurm-deps:
	@if [ "$${CI:-}" = "true" ] && [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	  if { command -v slurmctld || [ -x /usr/sbin/slurmctld ]; } >/dev/null 2>&1 && { command -v munged || [ -x /usr/sbin/munged ]; } >/dev/null 2>&1; then :; else \
	    echo "installing slurm-wlm and munge for tests/integration/test_slurm.py"; \
	    ( export DEBIAN_FRONTEND=noninteractive; timeout 300 apt-get update -qq && timeout 600 apt-get install -y -qq slurm-wlm munge ) >/tmp/slurm-deps.log 2>&1 \
	    || echo "could not install slurm-wlm/munge (see /tmp/slurm-deps.log); the Slurm test will skip"; \
	  fi; \
	fi

test: $(STAMP) slurm-deps
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/check_speed.py

clean:
	rm -rf $(VENV) build src/*.egg-info
