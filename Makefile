# Two commands do all set-up on a fresh machine with Python 3.11:
#   make book    -- venv from the pinned requirements, every notebook through papermill, HTML
#   make test    -- the test suite, on every core (pytest-xdist), in a shuffled order whose seed
#                   it prints (TEST_ORDER_SEED=N repeats an order; TEST_JOBS=1 runs in one process)
#   make stress  -- the test suite N times (default 20) with every core busy (flaky tests)
#   make pdf     -- the built book (_build/html) as one PDF, _build/pdf/qtheory-companion.pdf
#                   (printed by Debian's chromium; run `make book` first)
# Options: PRESET=quick|paper (default paper), JOBS=N notebooks at a time (default 2),
# SCHEDULER=ADDRESS replications on a Dask cluster, STRICT=1
# to turn Sphinx warnings into errors (CI does).
PYTHON ?= python3
VENV   ?= .venv
PRESET ?= paper
JOBS   ?= 2
STRICT ?=
BIN    := $(VENV)/bin

N      ?= 20
TEST_JOBS ?= auto
TEST_ORDER_SEED ?=

.PHONY: book test stress pdf env clean
env: $(VENV)/.installed

$(VENV)/.installed: requirements.txt constraints.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@# the distribution was called qtheory before 1.0.0: drop that editable install of the same sources
	$(BIN)/python -m pip uninstall --quiet --disable-pip-version-check --yes qtheory 2>/dev/null || true
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

book: $(VENV)/.installed
	$(BIN)/python -m qtheory book --preset $(PRESET) --jobs $(JOBS) $(if $(STRICT),--strict,) $(if $(SCHEDULER),--scheduler $(SCHEDULER),)

test: $(VENV)/.installed
	$(BIN)/python -m pytest -n $(TEST_JOBS) -p randomly $(if $(TEST_ORDER_SEED),--randomly-seed=$(TEST_ORDER_SEED),)

pdf: $(VENV)/.installed
	$(BIN)/python -m qtheory pdf

stress: $(VENV)/.installed
	bash benchmarks/stress_tests.sh $(N)

clean:
	rm -rf _build results book/*/*.ipynb
