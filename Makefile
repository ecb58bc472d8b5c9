# anfperf: `make demo` and `make test` set everything up on a machine with only Python >= 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ENGINES := $(VENV)/.engines
# System tools the tests drive for real: Debian package -> a file it installs.
# chromium: the browser check of reports (Playwright drives it; no browser download).
# A headless Java: Spark's (tests/test_store_engines.py reads a store with it).
SYSDEPS := fio:/usr/bin/fio openssh-server:/usr/sbin/sshd iproute2:/bin/ip chromium:/usr/bin/chromium \
	openjdk-17-jre-headless:/usr/bin/java

.PHONY: install install-engines sysdeps test test-quick demo bench lint clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "anfperf needs Python >= 3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	$(BIN)/python -m compileall -q anfperf  # as a wheel install would: see bench
	touch $@

# The engines that read a store in the tests (Spark, Dask): only for them, not for the demo.
# pyspark has no wheel on PyPI: pip builds one from its ~450 MB source (about 1-2 minutes).
install-engines: $(ENGINES)

$(ENGINES): $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,engines]'
	touch $@

sysdeps:
	@missing=""; for dep in $(SYSDEPS); do \
	  pkg=$${dep%%:*}; file=$${dep#*:}; [ -x "$$file" ] || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing$$missing with apt-get"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "anfperf tests need these system packages:$$missing"; \
	    echo "install them, e.g.: sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

lint: install
	$(BIN)/ruff check anfperf tests benchmarks
	$(BIN)/ruff format --check anfperf tests benchmarks

# The suite mostly waits (fio runs, sshd, report kernels, a browser): 3 workers on 2 cores use
# that time; a file's tests (and a notebook's cells) stay on one worker, the longest files
# handed out first (tests/conftest.py, LONGEST_FIRST). Bytecode is written
# even where PYTHONDONTWRITEBYTECODE is set, so that pytest keeps its rewritten test modules
# between runs instead of rewriting them in every worker.
TEST_WORKERS ?= 3
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=15
# Each shipped notebook runs once with its defaults: these through nbval (cell by cell, in
# notebooks/, as a reader opens them), the others in a test that renders them with their
# defaults (tests/test_packaging.py holds the two lists against notebooks/).
NBVAL_NOTEBOOKS := notebooks/benchmark_report.ipynb notebooks/compare_runs.ipynb
test: install install-engines sysdeps lint
	$(PYTEST) tests --nbval-lax --nbval-cell-timeout=600 $(NBVAL_NOTEBOOKS)

# The inner loop: every test not marked slow (no fio, sshd, browser, report kernel, wheel,
# Spark or README run; tests/conftest.py says what is slow), about 1 minute.
test-quick: install
	$(PYTEST) -m "not slow" -p no:nbval tests

# The demo: a real fio sweep of this machine's disk (local executor, no SSH; about 2 minutes),
# stored, modelled and rendered to reports/demo/report.html. `anfperf demo --no-measure` makes
# the same report from the bundled samples.
demo: install sysdeps
	$(BIN)/anfperf demo --out reports/demo

# Every benchmark runs and prints its figures; the target fails at the end if any missed.
# compileall: an editable install leaves the package uncompiled (pip compiles what it copies,
# not a source tree), and with PYTHONDONTWRITEBYTECODE set every report kernel would compile
# anfperf again (0.3 s); a stale .pyc is ignored, never wrong.
BENCHMARKS := bench_ingest bench_models bench_fleet bench_report bench_adaptive
bench: install sysdeps
	@$(BIN)/python -m compileall -q anfperf
	@missed=""; for b in $(BENCHMARKS); do \
	  echo "== benchmarks/$$b.py"; \
	  $(BIN)/python benchmarks/$$b.py || missed="$$missed $$b"; \
	done; \
	if [ -n "$$missed" ]; then echo "benchmarks that missed a target or failed:$$missed"; exit 1; fi

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build *.egg-info
