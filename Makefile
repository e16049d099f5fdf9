# Two entry points a new user needs: `make run` and `make test` (README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Two stamps: `make run` needs gpudoctor and its own dependencies only (seconds on a warm pip cache); the test
# tools (pyproject.toml's dependency group `test`: pytest, ruff, mypy, ...) come with the first `make test`.
RUN_STAMP := $(VENV)/.run-installed
STAMP := $(VENV)/.installed

.PHONY: run test test-fast test-tools lint bench clean test-deps mutation gpu-truth verify-indexes

# The venv's pip: `python -m venv` alone runs ensurepip, which installs and byte-compiles pip (and, before Python 3.12,
# setuptools) into it: a third of a fresh `make run`'s CPU time. Where $(PYTHON) has pip 22.3 or newer, that pip
# installs into a venv made without one (`pip --python`, as tests/packaging/scratch.py does); else the venv gets
# its own pip, as `python -m venv` makes it. Evaluated only by the recipes that use it.
OUTER_PIP = $(shell $(PYTHON) -c 'import pip, sys; sys.exit(tuple(map(int, pip.__version__.split(".")[:2])) < (22, 3))' >/dev/null 2>&1 && echo yes)
VENV_PIP = $(if $(OUTER_PIP),$(PYTHON) -m pip --python $(BIN)/python,$(BIN)/python -m pip) --disable-pip-version-check

$(RUN_STAMP): pyproject.toml
	$(PYTHON) -m venv $(if $(OUTER_PIP),--without-pip) $(VENV)
	@# The distribution was called gpudoctor before it became gpudoctor-cli: an old .venv holds both.
	@if ls $(VENV)/lib/python*/site-packages/gpudoctor-[0-9]*.dist-info >/dev/null 2>&1; then \
	  $(VENV_PIP) uninstall --quiet --yes gpudoctor; fi
	@# setuptools prints an information note ("Editable installation. ... folders with the same name as your
	@# package may take precedence") for every editable install of a layout that maps directories into the
	@# package (compat_matrix/, docs/): only that note is silenced, every other warning still shows.
	PYTHONWARNINGS="ignore:Editable installation" $(VENV_PIP) install --quiet --no-compile -e .
	@# Byte-compiled once, here: gpudoctor's own modules (an editable install leaves them to Python, which writes no
	@# cache under PYTHONDONTWRITEBYTECODE=1, set in many images, and then compiles every module of every `check`
	@# again: 0.1 s of a 0.17 s check, bench/README.md) and the dependencies, but pygments' lexers (a third of their
	@# source, a module per language, for rich's syntax highlighting, which gpudoctor never asks for).
	$(BIN)/python -m compileall -q -x '/pygments/lexers/(?!__init__|_mapping)' src/gpudoctor $(VENV)/lib/python*/site-packages
	touch $(RUN_STAMP)

# The test tools: pip 25.1 is the first that installs a dependency group (PEP 735), hence the upgrade (a venv made
# by the outer pip gets its first pip of its own here).
$(STAMP): $(RUN_STAMP)
	@echo "installing the test tools into $(VENV) (pyproject.toml [dependency-groups] test: pytest, hypothesis, jsonschema, ruff, mypy, ...)"
	$(BIN)/python -m pip --version >/dev/null 2>&1 || $(VENV_PIP) install --quiet 'pip>=25.1'
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade 'pip>=25.1'
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --group test
	touch $(STAMP)

test-tools: $(STAMP)

# Byte-compiled again once a module has changed since (a pull, an edit): the install's compile above runs only when
# pyproject.toml changes, and under PYTHONDONTWRITEBYTECODE=1 Python then compiled every changed module at every
# check (26 of a bare check's 128 modules a day after an install: 0.37 s instead of 0.17 s, bench/README.md h214).
# pip and pipx compile a wheel's modules at install, which never change after: an install from the wheel never meets this.
SOURCES := $(wildcard src/gpudoctor/*.py src/gpudoctor/*/*.py src/gpudoctor/*/*/*.py compat_matrix/*.py)
COMPILED := $(VENV)/.compiled
$(COMPILED): $(RUN_STAMP) $(SOURCES)
	$(BIN)/python -m compileall -q src/gpudoctor compat_matrix
	touch $(COMPILED)

# Exit status 1 means "the doctor has findings", which is a result, not a failure of `make`.
run: $(RUN_STAMP) $(COMPILED)
	@$(BIN)/gpudoctor check; rc=$$?; [ $$rc -le 1 ]

# Debian packages some tests need: slurm-wlm and munge (tests/integration/test_slurm.py), zsh and fish
# (printed commands are run by every shell people paste into: tests/hostile/, tests/unit/test_cmdline.py),
# docker.io (tests/integration/test_container.py builds and runs the image of deploy/docker/).
# As root, with apt-get, the missing ones are installed, saying which and why (GPUDOCTOR_TEST_DEPS=0 skips this:
# README.md); never fail the build over it (without them those tests skip and say why).
TEST_DEBS := slurm-wlm:slurmctld munge:munged zsh:zsh fish:fish docker.io:dockerd
test-deps:
	@if [ "$${GPUDOCTOR_TEST_DEPS:-1}" = "0" ]; then \
	  echo "GPUDOCTOR_TEST_DEPS=0: no Debian packages installed; the tests that need them skip and say why"; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	  missing=""; for pair in $(TEST_DEBS); do pkg=$${pair%%:*}; prog=$${pair##*:}; \
	    { command -v $$prog || [ -x /usr/sbin/$$prog ]; } >/dev/null 2>&1 || missing="$$missing $$pkg"; done; \
	  if [ -n "$$missing" ]; then \
	    echo "installing$$missing with apt-get (as root) for the tests that need them: slurm-wlm and munge for"; \
	    echo "  tests/integration/test_slurm.py, zsh and fish to run printed commands in every shell, docker.io for"; \
	    echo "  tests/integration/test_container.py; GPUDOCTOR_TEST_DEPS=0 make test skips this"; \
	    ( export DEBIAN_FRONTEND=noninteractive; timeout 180 apt-get update -qq && timeout 420 apt-get install -y -qq $$missing ) >/tmp/test-deps.log 2>&1 \
	    || echo "could not install$$missing (see /tmp/test-deps.log); the tests that need them will skip"; \
	  fi; \
	fi

# The quality gates (settings in pyproject.toml): lint, formatting and types, before any test runs.
lint: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests
	$(BIN)/mypy

# Two workers (pytest-xdist, in the `test` group): CI has two cores, and most of the suite's time is CPU spent in
# one process (docs/testing.md, "Where the suite's time goes"). --dist loadgroup keeps a file whose tests share a
# module-scoped fixture (a Docker daemon, a scratch environment), and the packaging tests, on one worker
# (tests/conftest.py, _xdist_group); every other test goes to the worker that is free. TEST_WORKERS=auto uses
# every core of a bigger machine; TEST_WORKERS=0 runs in one process (pytest's own output, for debugging).
TEST_WORKERS ?= 2
# PYTHONDONTWRITEBYTECODE (set in many images) also stops pytest from caching the test modules it rewrites for its
# assertion messages: every run, on every worker, parsed and compiled them all again (ten seconds of CPU for
# test-fast's files alone). GPUDOCTOR_TEST_BYTECODE=1 lets pytest's own processes cache them under
# tests/**/__pycache__ (tests/conftest.py); the programs the tests start still see the variable as it was.
PYTEST := GPUDOCTOR_TEST_BYTECODE=1 $(BIN)/python -m pytest
test: $(STAMP) lint test-deps
	$(PYTEST) -q -n $(TEST_WORKERS) --dist loadgroup

# The edit loop (docs/testing.md): the tests not marked slow (tests/conftest.py), in well under a minute on two
# cores (the same workers as `make test`); `make test` still runs them all. The golden record's test is among them
# (tests/test_golden.py).
FAST_PATHS := tests/unit tests/test_architecture.py tests/test_golden.py
test-fast: $(STAMP)
	$(PYTEST) -q -n $(TEST_WORKERS) --dist loadgroup -m "not slow and not packaging" $(FAST_PATHS)

bench: $(STAMP) $(COMPILED)
	$(BIN)/python bench/check_speed.py

# Mutation testing of the rules (docs/testing.md): plants one small bug at a time in a temporary copy of the
# tree and runs the fast tests that reach it. Tens of minutes: not part of `make test` or CI. MUTATION_ARGS
# passes options (MUTATION_ARGS="--sample 400 --jobs 2"); results in build/mutation/.
MUTATION_ARGS ?= --sample 400 --all-of "" --seed 20
mutation: $(STAMP)
	$(BIN)/python tools/mutate.py $(MUTATION_ARGS)

# Ground truth on a real GPU (issue 29, docs/gpu-truth.md): gpudoctor installed from this tree without the network
# and run on the live machine, beside nvidia-smi, a CUDA C reference and a recording of the real NVML; at most
# 7 minutes; results in $$OUT when set, else build/gpu-truth/<time>. Without a GPU it runs against the simulated
# machine and says so. Needs no .venv: PYTHON (python3) is the interpreter whose packages gpudoctor runs with.
GPU_TRUTH_ARGS ?=
gpu-truth:
	$(PYTHON) tools/gpu_truth.py $(GPU_TRUTH_ARGS)

# What the package indexes hold (compat_matrix/indexes.toml), asked again: lists the rows whose answer changed
# and exits 1 when one did (docs/matrix.md, "What the package indexes hold"). Network, a few minutes: never
# part of `make test`. Rebuild the table with `$(BIN)/python tools/index_table.py`.
# $(STAMP): the script drives pip's own finder in-process, tested with the pip (>= 25.1) that stamp installs.
# Then a real wheel's extension (kiwisolver's, ~1.5 MB) is judged as check judges a companion's (tools/real_wheel.py).
verify-indexes: $(STAMP)
	status=0; $(BIN)/python tools/index_table.py --check || status=1; \
	$(BIN)/python tools/real_wheel.py || status=1; exit $$status

clean:
	rm -rf $(VENV) build src/*.egg-info
