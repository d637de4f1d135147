# sudoku-pipeline: the everyday commands (`make` or `make help` lists them). On a fresh clone
# the first target creates .venv.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN_STAMP := $(VENV)/.run-stamp
DEV_STAMP := $(VENV)/.dev-stamp

INPUT  ?= data/sample.csv
OUTPUT ?= output
CONFIG ?= configs/default.toml
GENERATED ?= generated
GENERATE_CONFIG ?= configs/generate.toml

.PHONY: help solve-dataset generate test test-slow bench lint venv

help:
	@echo "make solve-dataset [INPUT=data/sample.csv] [OUTPUT=output] [CONFIG=configs/default.toml] [OVERWRITE=1]"
	@echo "                     solve INPUT into OUTPUT (creates .venv on first use); again: continue it"
	@echo "make generate [GENERATED=generated] [GENERATE_CONFIG=configs/generate.toml] [OVERWRITE=1]"
	@echo "                     1,000 new minimal puzzles of mixed grades, a fixed seed (creates .venv)"
	@echo "make test            the test suite (installs the dev extras on first use)"
	@echo "make test-slow       the tests marked slow"
	@echo "make bench           every tools/bench_*.py: figures, never a failure on a time"
	@echo "make lint            ruff, and the import layers (docs/ARCHITECTURE.md)"
	@echo "make help            this list"

# Created once, and again only when pyproject.toml changes: what running needs, then (for the
# tests, benchmarks and lint) the dev extras. uv installs them (in 2 s where pip takes a minute
# on a fresh machine); pip does when uv cannot be had. The venv is made without pip (ensurepip
# took 3 s), and uv is put in it by the pip Python already has (or, failing that, by the
# venv's own pip).
INSTALL = $(BIN)/python -m uv pip install --quiet --python $(BIN)/python $(1) \
	|| { $(BIN)/python -m pip --version >/dev/null 2>&1 || $(BIN)/python -m ensurepip >/dev/null; \
	     $(BIN)/python -m pip install --quiet $(1); }

# The venv, with uv in it when it can be had.
MAKE_VENV = test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV); \
	$(BIN)/python -m uv --version >/dev/null 2>&1 \
	|| $(PYTHON) -m pip --python $(BIN)/python install --quiet uv \
	|| { $(BIN)/python -m ensurepip >/dev/null && $(BIN)/python -m pip install --quiet uv; } \
	|| echo "uv not available: installing with pip"

# Every process a target starts writes the bytecode of the modules it imports, where
# PYTHONDONTWRITEBYTECODE would have each one (each worker, each run a test starts) compile them
# from source again: 1 s of CPU before it does anything. Only what is imported is compiled:
# compiling every installed package's bytecode at install took 4 s of a fresh clone's first run.
unexport PYTHONDONTWRITEBYTECODE

$(RUN_STAMP): pyproject.toml
	$(MAKE_VENV)
	$(call INSTALL,-e .)
	touch $(RUN_STAMP)

# The dev extras hold what running needs too: one install (one resolution) where a run's
# install then the extras took 4 s more.
$(DEV_STAMP): pyproject.toml
	$(MAKE_VENV)
	$(call INSTALL,-e '.[dev]')
	touch $(RUN_STAMP) $(DEV_STAMP)

venv: $(DEV_STAMP)

# A rerun continues a stopped run in $(OUTPUT), or just prints the summary of a finished one.
# After changing INPUT or CONFIG for the same OUTPUT, OVERWRITE=1 replaces the run there
# (deleting only files sudoku-pipeline wrote).
solve-dataset: $(RUN_STAMP)
	@echo "sudoku-pipeline solve-dataset $(INPUT) --output $(OUTPUT) --config $(CONFIG)$(if $(OVERWRITE), --overwrite)"
	@SUDOKU_PIPELINE_OVERWRITE_HINT=OVERWRITE=1 $(BIN)/sudoku-pipeline solve-dataset $(INPUT) --output $(OUTPUT) \
		--config $(CONFIG) $(if $(OVERWRITE),--overwrite)

# The same puzzles at every run (configs/generate.toml fixes the seed); a rerun continues a
# stopped run, or prints the summary of a finished one.
generate: $(RUN_STAMP)
	@echo "sudoku-pipeline generate --output $(GENERATED) --config $(GENERATE_CONFIG)$(if $(OVERWRITE), --overwrite)"
	@SUDOKU_PIPELINE_OVERWRITE_HINT=OVERWRITE=1 $(BIN)/sudoku-pipeline generate --output $(GENERATED) \
		--config $(GENERATE_CONFIG) $(if $(OVERWRITE),--overwrite)

# Two pytest processes (pytest-xdist): most of the suite's time is spent waiting on the runs it
# starts (time limits, killed workers, heartbeats), so two run in about two thirds of the time
# of one, even on 2 cores. TEST_PROCESSES=0 runs the suite in one process.
TEST_PROCESSES ?= 2

test: $(DEV_STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_PROCESSES)

test-slow: $(DEV_STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_PROCESSES) -m slow

# Every tools/bench_*.py, one after the other; they print figures and never fail on a time.
bench: $(DEV_STAMP)
	@for script in tools/bench_*.py; do \
		echo "== $$script"; \
		$(BIN)/python $$script || exit 1; \
	done

# ruff, and the import layers (pyproject.toml, [tool.importlinter]: docs/ARCHITECTURE.md).
lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
