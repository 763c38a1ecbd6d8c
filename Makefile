# coworld developer commands. `make help` lists them.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
BIN    := $(VENV)/bin

.PHONY: help install install-dev install-docs demo test test-rust test-python bench lint docs clean

help:  ## list the commands
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "maturin>=1.16,<2"

install: $(PY)  ## build the Rust core (release) into the virtualenv: what running leagues needs
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --quiet

install-dev: $(PY)  ## the same plus the test, dev, cluster and rl extras (OpenSpiel, playwright, Ray, lint, PettingZoo, Gymnasium)
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --extras test,dev,cluster,rl --quiet

install-docs: $(PY)  ## the core plus the docs extra (MkDocs, Material, mkdocstrings)
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --extras docs --quiet

demo: install  ## run the main job on the built-in defaults
	$(BIN)/coworld demo

test: install-dev test-rust test-python  ## every test: cargo test, then pytest

# Only the crate's own tests (there are no doctests or integration tests), in a
# debug build: debug assertions and integer-overflow checks are on, which the
# release build the Python tests use cannot catch (about 1 minute from scratch).
test-rust:
	cargo test --lib --quiet

test-python:
	$(BIN)/pytest

bench: install-dev  ## benchmarks, saved and compared against the last saved run
	$(BIN)/pytest bench --benchmark-enable --benchmark-autosave \
		$$(ls .benchmarks/*/*.json >/dev/null 2>&1 && echo --benchmark-compare --benchmark-compare-fail=mean:25%) \
		-p no:cacheprovider -o addopts=""
	$(PY) bench/versus_openspiel.py

lint: install-dev  ## rustfmt, clippy, ruff, mypy
	cargo fmt --check
	cargo clippy --all-targets --features python -- -D warnings
	$(BIN)/ruff check python tests bench
	$(BIN)/ruff format --check python tests bench
	$(PY) -m mypy.stubtest coworld._core
	$(BIN)/mypy python/coworld --ignore-missing-imports

# --strict: a broken link, anchor, snippet or API reference fails the build.
docs: install-docs  ## build the documentation site (guides and API reference) into site/
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

clean:  ## remove build outputs and the virtualenv
	rm -rf target $(VENV) .pytest_cache .benchmarks site python/coworld/_core*.so
