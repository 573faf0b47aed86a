# Vyre Memory. `make help` lists the targets; CI runs `make test` (see .ci/run).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
TRANSCRIPTS ?= $(HOME)/.claude/projects
Q ?= what did we decide about the portal login

.DEFAULT_GOAL := help
.PHONY: help run test lint format bench demo clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	@touch $@ $(VENV)/.installed

run: $(VENV)/.installed ## Install, ingest ~/.claude/projects (or the demo history) and answer a question (Q="...")
	@if [ -d "$(TRANSCRIPTS)" ]; then \
		$(BIN)/vyre ingest "$(TRANSCRIPTS)" && $(BIN)/vyre search "$(Q)" --limit 5; \
	else \
		echo "no transcripts in $(TRANSCRIPTS): using the demo history in demo/projects (memory in .demo-home)"; \
		VYRE_HOME=$(CURDIR)/.demo-home $(BIN)/vyre ingest demo/projects && \
		VYRE_HOME=$(CURDIR)/.demo-home $(BIN)/vyre search "$(Q)" --limit 5; \
	fi

test: $(VENV)/.installed-dev ## Install and run the test suite
	$(BIN)/python -m pytest -q

lint: $(VENV)/.installed-dev ## ruff and mypy
	$(BIN)/ruff check src tests bench demo
	$(BIN)/mypy

format: $(VENV)/.installed-dev ## Format with ruff
	$(BIN)/ruff format src tests bench demo

bench: $(VENV)/.installed ## Benchmarks that print figures (ingest)
	$(BIN)/python bench/ingest.py

demo: $(VENV)/.installed ## Rewrite the demo history in demo/projects
	$(BIN)/python demo/make_demo.py

clean: ## Remove the virtual environment and caches
	rm -rf $(VENV) .demo-home .pytest_cache .mypy_cache .ruff_cache
