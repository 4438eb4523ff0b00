# The README's commands: `make run` starts the app on embedded defaults, `make test` runs every test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint format bench screenshots clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.run-deps: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-deps: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

# Local mode unless the environment says otherwise (then DJANGO_SECRET_KEY etc. must be set).
run: export DJANGO_DEBUG ?= 1
run: $(VENV)/.run-deps
	mkdir -p var
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput -v 0
	$(BIN)/python manage.py demo_setup --url http://$(HOST):$(PORT)/
	HOST=$(HOST) $(BIN)/honcho start -f Procfile -p $(PORT)

test: $(VENV)/.dev-deps
	mkdir -p var
	$(BIN)/pytest $(PYTEST_ARGS)

lint: $(VENV)/.dev-deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(VENV)/.dev-deps
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) var

# Benchmarks write JSON under bench/results/; they are never part of the pass/fail test run.
bench: $(VENV)/.dev-deps
	mkdir -p var
	cd bench && for script in $$(ls *.py | grep -v common.py); do ../$(BIN)/python $$script || exit 1; done

# Writes docs/screenshots/*.png from a browser test (needs Debian's chromium).
screenshots: $(VENV)/.dev-deps
	mkdir -p var
	UPDATE_SCREENSHOTS=1 $(BIN)/pytest tests/browser/test_screenshots.py -q
