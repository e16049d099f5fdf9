# Two entry points a new user needs: `make run` and `make test` (README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean test-deps

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Exit status 1 means "the doctor has findings", which is a result, not a failure of `make`.
run: $(STAMP)
	@$(BIN)/gpudoctor check; rc=$$?; [ $$rc -le 1 ]

# Debian packages some tests need: slurm-wlm and munge (tests/integration/test_slurm.py), zsh and fish
# (printed commands are run by every shell people paste into: tests/hostile/, tests/unit/test_cmdline.py).
# As root, with apt-get, install the missing ones (GPUDOCTOR_TEST_DEPS=0 skips this); never fail the
# build over it (without them those tests skip and say why).
TEST_DEBS := slurm-wlm:slurmctld munge:munged zsh:zsh fish:fish
test-deps:
	@if [ "$${GPUDOCTOR_TEST_DEPS:-1}" != "0" ] && [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	  missing=""; for pair in $(TEST_DEBS); do pkg=$${pair%%:*}; prog=$${pair##*:}; \
	    { command -v $$prog || [ -x /usr/sbin/$$prog ]; } >/dev/null 2>&1 || missing="$$missing $$pkg"; done; \
	  if [ -n "$$missing" ]; then \
	    echo "installing$$missing for the tests that need them"; \
	    ( export DEBIAN_FRONTEND=noninteractive; timeout 180 apt-get update -qq && timeout 420 apt-get install -y -qq $$missing ) >/tmp/test-deps.log 2>&1 \
	    || echo "could not install$$missing (see /tmp/test-deps.log); the tests that need them will skip"; \
	  fi; \
	fi

test: $(STAMP) test-deps
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/check_speed.py

clean:
	rm -rf $(VENV) build src/*.egg-info
