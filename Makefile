# brain — build, test, demo, bench. The justfile mirrors these targets.
CARGO ?= cargo
PREFIX ?= $(HOME)/.local
LIBEXEC ?= $(PREFIX)/libexec/brain
STAGES := jsonl2md chrome2md distill-prompt partition lexindex vecindex rank fmt

.PHONY: all build release test golden-update demo bench install clean

all: build

build:
	$(CARGO) build --workspace --bins

release:
	$(CARGO) build --release --workspace --bins

## test: build every binary, then run every unit, golden and conformance test.
test: build
	$(CARGO) test --workspace

## golden-update: rewrite golden/*/*/expected.* from the current binaries; review the diff, commit.
golden-update: build
	GOLDEN_UPDATE=1 $(CARGO) test --workspace --test golden_* -- --test-threads=1

## demo: the main job end to end on bundled sample data, in a temporary home.
demo: release
	bash pipelines/demo.sh

## bench: every benchmark under bench/, figures printed (never gates CI).
bench: release
	bash bench/run.sh

## install: `brain` on PATH, the stage binaries in a libexec folder (never shadowing coreutils' fmt).
install: release
	install -d $(PREFIX)/bin $(LIBEXEC)
	@for b in $(STAGES); do [ -f target/release/$$b ] && install -m 0755 target/release/$$b $(LIBEXEC)/$$b || true; done
	@[ -f target/release/brain ] && install -m 0755 target/release/brain $(PREFIX)/bin/brain || true
	@echo "installed: $(PREFIX)/bin/brain and stages in $(LIBEXEC)"

clean:
	$(CARGO) clean
