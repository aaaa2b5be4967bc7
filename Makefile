# The portal's commands. `make run` installs what serving needs (requirements.lock); `make test` and the
# other development targets add the tools (requirements-dev.lock). Each installs what it needs into .venv.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUNTIME_STAMP := $(VENV)/.runtime-stamp
DEV_STAMP     := $(VENV)/.dev-stamp
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: install install-runtime run ingest serve test test-postgres lint typecheck eval eval-real eval-real-content \
	eval-fresh eval-fresh3 eval-fresh4 eval-fresh5 eval-fresh6 eval-fresh7 eval-fresh8 eval-fresh9 eval-fresh10 eval-fresh11 eval-cross eval-links bench load reindex-load screenshots identity clean FORCE

# Python 3.11 or newer, said in one line before anything is installed (`make clean` works with any).
ifeq ($(filter clean,$(MAKECMDGOALS)),)
PYTHON_VERSION := $(shell $(PYTHON) -c 'import platform; print(platform.python_version())' 2>/dev/null)
ifeq ($(PYTHON_VERSION),)
$(error no $(PYTHON) here: install Python 3.11 or newer and run `make PYTHON=python3.11 $(or $(MAKECMDGOALS),install)`)
endif
ifneq ($(shell $(PYTHON) -c 'import sys; print(sys.version_info >= (3, 11))'),True)
$(error Python 3.11 or newer is needed and $(PYTHON) is $(PYTHON_VERSION): install python3.11 and run `make PYTHON=python3.11 $(or $(MAKECMDGOALS),install)`)
endif
endif

# A .venv made by another interpreter (or none) is rebuilt by scripts/venv.sh.
ifneq ($(shell cat $(VENV)/.interpreter 2>/dev/null),$(shell $(PYTHON) -c 'import os, platform, sys; \
	print(os.path.realpath(sys.executable), platform.python_version())' 2>/dev/null))
STALE_VENV := FORCE
endif

install: $(DEV_STAMP)

install-runtime: $(RUNTIME_STAMP)

# setuptools at the dev lock's pin: the editable install builds without isolation (the venv's own setuptools is
# too old for the PEP 639 licence field), as the Dockerfile's build does.
$(RUNTIME_STAMP): pyproject.toml requirements.lock $(STALE_VENV)
	@scripts/venv.sh $(PYTHON) $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.lock "$$(grep -E '^setuptools==' requirements-dev.lock)"
	@# setuptools' "editable installation" notices are advice for its own developers, not ours.
	PYTHONWARNINGS=ignore::UserWarning $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

$(DEV_STAMP): $(RUNTIME_STAMP) requirements-dev.lock
	$(BIN)/python -m pip install --quiet -r requirements-dev.lock
	touch $@

# Ingests only when content/ or the portal changed since the last ingest into data/ (as the container does).
# Exit code 3 from `faq ingest` means "ingested, but some files were skipped": still serve.
ingest: install-runtime
	$(BIN)/faq ingest --if-changed || [ $$? -eq 3 ]

run: ingest
	$(BIN)/faq serve --host $(HOST) --port $(PORT)

serve: install-runtime
	$(BIN)/faq serve --host $(HOST) --port $(PORT)

lint: install
	$(BIN)/ruff check app measure tests migrations
	$(BIN)/mypy app measure

test: lint
	$(BIN)/pytest

# The API, page and search suites again with their data on PostgreSQL (FAQ_TEST_POSTGRES_URL;
# .ci/run sets it). The PostgreSQL-only tests (publication, replicas, migrations) run in `make test`.
ENGINE_SUITES = tests/web/test_api.py tests/web/test_html.py tests/web/test_pages.py tests/web/test_links.py \
	tests/web/test_http.py tests/web/test_contract.py tests/web/test_interface.py tests/web/test_xss.py \
	tests/search/test_query.py tests/test_docs.py
test-postgres: install
	FAQ_TEST_ENGINE=postgresql $(BIN)/pytest -q $(ENGINE_SUITES)

# Entry ids across real edits: the git histories of measure/identity_sources.tsv replayed as ingests, every old
# id then requested over HTTP. MIRRORS holds the repositories (<owner>+<name>/repo), as the fetch tool leaves them.
MIRRORS ?= ../.mirror
identity: install
	$(BIN)/python -m measure.identity --mirrors $(MIRRORS) --http

# `faq eval` makes the vectors first (kept across runs in data/vectors.db), so the hybrid ranking is measured.
# The project's own queries over the bundled sample (content/, the five seeds), in a scratch folder; more query files with EVAL_QUERIES="FILE …" (e.g. ../shared/eval/queries-dev.tsv).
EVAL_QUERIES ?=
EVAL_SAMPLE := $(or $(TMPDIR),/tmp)/faq-eval-sample
EVAL_IN_SAMPLE := FAQ_DATA_DIR=$(EVAL_SAMPLE)/data FAQ_CONTENT_DIR=$(EVAL_SAMPLE)/content
eval: install
	rm -rf $(EVAL_SAMPLE)/content && mkdir -p $(EVAL_SAMPLE)/content
	cp -r content/. $(EVAL_SAMPLE)/content/
	$(EVAL_IN_SAMPLE) $(BIN)/faq ingest --quiet > /dev/null
	$(EVAL_IN_SAMPLE) $(BIN)/faq eval eval/queries-project.tsv
	$(foreach queries,$(EVAL_QUERIES),$(EVAL_IN_SAMPLE) $(BIN)/faq eval $(queries) &&) true

# Real users' queries over the shared corpora: hybrid, lexical, semantic and the FTS5 trigram baseline side
# by side. The corpora are ingested into a scratch folder (their top-level READMEs describe the gold, not
# FAQs); its data/vectors.db is kept, so a second run embeds nothing.
EVAL_REAL := $(or $(TMPDIR),/tmp)/faq-eval-real
EVAL_IN_REAL := FAQ_DATA_DIR=$(EVAL_REAL)/data FAQ_CONTENT_DIR=$(EVAL_REAL)/content
eval-real: eval-real-content
	$(EVAL_IN_REAL) $(BIN)/faq ingest --quiet > /dev/null || [ $$? -eq 3 ]
	$(EVAL_IN_REAL) $(BIN)/faq eval eval/queries-real.tsv --compare

# The corpora those queries were asked of live outside the repository: CORPORA=DIR (holding real/ and styles/).
CORPORA ?=
eval-real-content: install
	@[ -d "$(CORPORA)/real" ] || { echo "make: give the corpora folder (with real/ and styles/): make $@ CORPORA=DIR" >&2; exit 2; }
	rm -rf $(EVAL_REAL)/content && mkdir -p $(EVAL_REAL)/content
	cd $(CORPORA) && find real styles -mindepth 2 -name '*.md' -exec cp --parents {} $(EVAL_REAL)/content/ \;

# The same, over FAQs and queries the ranking was never tuned on: eval/fresh/ (issue 10); eval/fresh3/, a check
# on settings chosen on the two sets above; eval/fresh4/ to eval/fresh11/, for checking, not for tuning (each
# eval/queries-<set>.SOURCES.md says how it was built). Each is ingested into its own scratch folder.
FRESH_SETS := fresh fresh3 fresh4 fresh5 fresh6 fresh7 fresh8 fresh9 fresh10 fresh11
eval_dir = $(or $(TMPDIR),/tmp)/faq-eval-$(1)
$(addprefix eval-,$(FRESH_SETS)): eval-%: install
	rm -rf $(call eval_dir,$*)/content && mkdir -p $(call eval_dir,$*) && cp -r eval/$* $(call eval_dir,$*)/content
	FAQ_DATA_DIR=$(call eval_dir,$*)/data FAQ_CONTENT_DIR=$(call eval_dir,$*)/content $(BIN)/faq ingest --quiet > /dev/null
	FAQ_DATA_DIR=$(call eval_dir,$*)/data FAQ_CONTENT_DIR=$(call eval_dir,$*)/content \
		$(BIN)/faq eval eval/queries-$*.tsv --compare

# Answers only in the other language: each real query over its corpus with the query's language removed
# (measure/crosslang.py), every set, every ranking beside the FTS5 baseline.
eval-cross: eval-real-content
	$(BIN)/python -m measure.crosslang eval/queries-real.tsv $(EVAL_REAL)/content --compare --work $(EVAL_REAL)/cross \
		--cache $(EVAL_REAL)/data/vectors.db
	$(foreach set,$(FRESH_SETS),$(BIN)/python -m measure.crosslang eval/queries-$(set).tsv eval/$(set) --compare \
		--work $(call eval_dir,$(set))/cross --cache $(call eval_dir,$(set))/data/vectors.db &&) true

# The project's own style fixtures; a gold corpus laid out the same way with CORPUS=DIR.
CORPUS ?= tests/fixtures/styles
eval-links: install
	$(BIN)/faq eval-links $(CORPUS)

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache

bench: install
	$(BIN)/python -m measure.bench

# Searches on two replicas while `faq ingest` publishes five generations: failures and lag.
reindex-load: install
	$(BIN)/python -m measure.reindex_load sqlite
	$(BIN)/python -m measure.reindex_load postgresql

# Mixed traffic at 16/64/128 connections against a local server, beside a static file.
load: install
	$(BIN)/python -m measure.load

# The home, results and entry pages, light and dark, desktop and phone, into docs/screenshots/.
screenshots: install
	$(BIN)/python -m measure.screenshots
