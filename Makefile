# fabricviz -- the two commands of the README:
#   make run    set up (Debian packages, .venv) and open the GUI on the demo fabric
#   make test   set up and run the whole test suite offscreen (no display needed)
#   make test-fast   the same, without the tests marked slow, oracle or gui (under a minute)
#
# Extras: make run ARGS="path/to/fabric.json"   make test PYTEST_ARGS="-k layering -x"   PYTEST_WORKERS=0
#         make setup / make setup-gui / make lint / make clean
#         (make test includes the static checks: tests/test_static.py)
#
# Set-up is idempotent: Debian packages are installed only when missing, and
# pip runs again only when pyproject.toml is newer than .venv/.fabricviz-installed.

SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
ARGS ?=
PYTEST_ARGS ?=
# test files spread over this many processes (pytest-xdist, a file's tests stay together); 0: one process
PYTEST_WORKERS ?= 2

export VENV

.DEFAULT_GOAL := help
.PHONY: help run test test-fast lint setup setup-gui clean

help:
	@echo "make run    set up, then open the fabricviz GUI (ARGS='FILE' to open a fabric)"
	@echo "make test   set up, then run the test suite offscreen (PYTEST_ARGS='...')"
	@echo "make test-fast   set up, then the quick subset: -m 'not slow and not oracle and not gui'"
	@echo "make lint   set up, then only the static checks (ruff, mypy, import-linter)"
	@echo "make setup | setup-gui | clean"

setup:
	@bash scripts/bootstrap.sh

setup-gui:
	@bash scripts/bootstrap.sh --gui

run: setup-gui
	$(VENV)/bin/fabricviz $(ARGS)

# pytest's own exit code is kept (make itself would turn any failure into 2);
# .ci/run reads it from $$PYTEST_RC_FILE to tell "no tests collected" (5) apart.
test: setup
	@rc=0; $(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS) || rc=$$?; \
	if [ -n "$${PYTEST_RC_FILE:-}" ]; then echo "$$rc" > "$$PYTEST_RC_FILE"; fi; \
	if [ "$$rc" -eq 5 ]; then echo "make test: pytest collected no tests (exit code 5)" >&2; fi; \
	exit $$rc

# the quick subset: no test marked slow (over ~2 s alone), oracle (runs OpenSM/ibsim) or gui (a QApplication)
test-fast:
	@$(MAKE) --no-print-directory test PYTEST_ARGS='-m "not slow and not oracle and not gui" $(PYTEST_ARGS)'

# the static checks alone, each tool's own report (make test runs them as tests/test_static.py)
lint: setup
	@rc=0; \
	$(VENV)/bin/ruff check . || rc=1; \
	$(VENV)/bin/mypy || rc=1; \
	$(VENV)/bin/lint-imports || rc=1; \
	exit $$rc

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis .mypy_cache .ruff_cache .import_linter_cache build
	find . -name __pycache__ -type d -prune -not -path './.git/*' -exec rm -rf {} +
