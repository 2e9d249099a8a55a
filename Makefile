# Two entry points (see README): `make demo` runs the main job on bundled sample data,
# `make test` sets up every language and runs the whole test suite. Both set themselves up.
VENV ?= .venv
PY := $(VENV)/bin/python
LANGUAGES := typescript go rust

# GYM_ORACLE=0 skips the real-Gym tier inside `make test` (it needs a CPython 3.13; see .ci/run).
GYM_ORACLE ?= 1
# pytest-xdist workers for `make test` and `make check`: one more than the cores, since many tests wait on a
# subprocess, a server or the disk (a clean-clone `.ci/run` on 2 cores: 6.5 to 7.7 minutes with 3 workers, 8.3
# to 10 with 2). A file's tests share a worker, so that a module fixture (a server, a local Ray, a build) starts
# once; WORKERS=0 runs in one process.
WORKERS ?= $(shell python3 -c 'import os; print((os.cpu_count() or 1) + 1)')
XDIST := -n $(WORKERS) --dist loadfile

.PHONY: setup demo test check test-python generate lint fuzz fuzz-c docs

setup: $(VENV)/.installed

# The editable install compiles the C pre-check: a change to its source installs again (a stale build would
# lack the functions the Python side calls).
FASTSCAN = bindings/python/verify_contract/check/_fastscan.c

$(VENV)/.installed: pyproject.toml $(FASTSCAN)
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $@

# The demo's own environment: the package alone (no extra), since the demo is one `check` of a bundled file;
# `make setup` (the test extra: Ray, moto, matplotlib, mypy...) is 10 times its size and 4 times its time.
DEMO_VENV ?= .venv-demo

$(DEMO_VENV)/.installed: pyproject.toml $(FASTSCAN)
	python3 -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e .
	touch $@

demo: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/verify-contract check examples/results.jsonl

# Every binding is rendered from templates over the resolved model; the Go output is formatted with gofmt.
generate: setup
	$(PY) -m generators

# The documentation site (README, "Documentation site"): static pages in $(SITE)/ from the resolved model, the
# vectors and SPEC.md, offline; open $(SITE)/index.html or publish the folder (GitHub Pages serves it as it is).
SITE ?= site
docs: setup
	$(VENV)/bin/verify-contract docs --out $(SITE)

lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

# Each language's own script installs its dependencies from its registry, builds, and runs its tests. None needs
# the Python environment, so the three and the Python setup and lint run at once (`make -j`), each one's output
# printed whole when it ends; then the whole suite, which runs what they built.
LANGUAGE_BUILDS := $(addprefix language-,$(LANGUAGES))
.PHONY: languages $(LANGUAGE_BUILDS)
languages: $(LANGUAGE_BUILDS)
$(LANGUAGE_BUILDS): language-%:
	@echo "== $*"
	bash bindings/$*/ci.sh

test:
	$(MAKE) --no-print-directory --output-sync=target -j 5 lint languages
	VERIFY_CONTRACT_REQUIRE_ALL_LANGUAGES=1 VERIFY_CONTRACT_GYM_ORACLE=$(GYM_ORACLE) $(PY) -m pytest $(XDIST) --durations=25

# The quick loop: lint and every test without a marker of pyproject.toml (tests/conftest.py applies them): no
# language toolchain (Go, Rust, Node, Java, the C compiler's builds), no fuzzer, no real Gym or trainer, no drill, nothing
# slow (moto, Ray, fresh virtual environments); no language setup. `make test` runs these too.
QUICK := not (toolchain or fuzz or oracle or drill or trainers or slow or browser)
check: setup lint
	$(PY) -m pytest -q $(XDIST) -m "$(QUICK)"

# The differential fuzzer's long run (the CI-sized run, 20,000 documents, is part of `make test`).
# Needs the conformance runners that `make test` builds. FUZZ_SEED and FUZZ_COUNT pick the run.
FUZZ_SEED ?= 1
FUZZ_COUNT ?= 100000
fuzz: setup
	$(PY) tests/fuzz/differential.py --seed $(FUZZ_SEED) --count $(FUZZ_COUNT)

# Sanitizer fuzzing of the compiled pre-check (tests/fuzz/fastscan): clang's libFuzzer with ASan and UBSan,
# one worker, then the grown corpus replayed against the reference. Needs clang and libclang-rt-14-dev; the
# corpus stays in FUZZ_C_DIR between runs. A short run is part of `make test` (tests/check/test_fastscan_fuzz.py).
FUZZ_C_RUNS ?= 10000000
FUZZ_C_MAX_LEN ?= 1024
FUZZ_C_DIR ?= build/fuzz-fastscan
fuzz-c: setup
	nice -n 10 $(PY) tests/fuzz/fastscan/harness.py --runs $(FUZZ_C_RUNS) --max-len $(FUZZ_C_MAX_LEN) --workdir $(FUZZ_C_DIR)

# The real NeMo Gym releases as oracles (SPEC 4.3): installs nemo-gym 0.5.1, 0.6.0 and 0.7.0 from PyPI into
# venvs cached per user (~/.cache/verify-contract/gym-oracle/, shared by clones) and needs a CPython 3.13 (python3.13, pyenv, or VERIFY_CONTRACT_GYM_PYTHON).
# `make test` runs it too (VERIFY_CONTRACT_GYM_ORACLE=1); a plain `pytest` skips it.
.PHONY: gym-oracle
gym-oracle: setup
	VERIFY_CONTRACT_GYM_ORACLE=1 $(PY) -m pytest tests/gym_oracle -q
