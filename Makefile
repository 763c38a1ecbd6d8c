# coworld developer commands. `make help` lists them.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
BIN    := $(VENV)/bin

.PHONY: help install demo test test-rust test-python bench lint clean

help:  ## list the commands
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "maturin>=1.16,<2"

install: $(PY)  ## build the Rust core (release) into the virtualenv, with test extras
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --extras test,dev,rl --quiet

demo: install  ## run the main job on the built-in defaults
	$(BIN)/coworld demo

test: install test-rust test-python  ## every test: cargo test, then pytest

test-rust:
	cargo test --release --quiet

test-python:
	$(BIN)/pytest

bench: install  ## benchmarks, saved and compared against the last saved run
	$(BIN)/pytest bench --benchmark-enable --benchmark-autosave \
		$$(ls .benchmarks/*/*.json >/dev/null 2>&1 && echo --benchmark-compare --benchmark-compare-fail=mean:25%) \
		-p no:cacheprovider -o addopts=""
	$(PY) bench/versus_openspiel.py

lint: install  ## rustfmt, clippy, ruff
	cargo fmt --check
	cargo clippy --all-targets --features python -- -D warnings
	$(BIN)/ruff check python tests bench
	$(BIN)/ruff format --check python tests bench
	$(PY) -m mypy.stubtest coworld._core
	$(BIN)/mypy python/coworld --ignore-missing-imports

clean:  ## remove build outputs and the virtualenv
	rm -rf target $(VENV) .pytest_cache .benchmarks python/coworld/_core*.so
