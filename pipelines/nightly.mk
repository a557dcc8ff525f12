# brain's slow clock (seed 000 §1, seed 004): everything too slow for the Stop hook.
#
#   make -f nightly.mk            # all steps, then doctor; what the schedules run (-j2 is safe)
#   make -f nightly.mk embed      # one step and what it needs
#
#   sessions   catch sessions the Stop hook missed: jsonl2md --new --queue | partition
#   browser    browser history: chrome2md --profile auto | partition        (no browser found: skipped)
#   distill    the distillation queue: brain distill    (BRAIN_DISTILL_COMMAND unset: skipped)
#   extract    keyed records from the distilled sessions: brain extract (the LLM command when set,
#              else the deterministic path; docs/brief.md)
#   reindex    lexindex --all over every collection (after the four above)
#   embed      vecindex --all --budget $(EMBED_BUDGET)  (no model installed: skipped)
#   doctor     brain doctor: runs last, even when a step failed; its row lands in usage.jsonl
#
# Every step is safe to re-run: each stage is incremental and writes atomically. sessions and browser
# run in parallel under -j (they write different collections and take no index lock); the writers of
# the lexical index (distill, extract, reindex) and of the vector store (embed) run one after another, so no
# step ever meets another's lock. Stages run through `brain <stage>`, so they are found the way brain
# finds them (beside brain, <prefix>/libexec/brain, PATH).

SELF := $(lastword $(MAKEFILE_LIST))
SHELL := bash
.SHELLFLAGS := -o pipefail -c

BRAIN ?= brain
BRAIN_HOME ?= $(HOME)/.brain
export BRAIN_HOME
BRAIN_SURFACE ?= cron
export BRAIN_SURFACE
QUEUE ?= $(BRAIN_HOME)/pending_distill.txt
CHROME_PROFILE ?= auto
# Seconds of embedding per run; the rest waits for the next run (docs/vectors.md: ~2.7 h for 10k files).
EMBED_BUDGET ?= 900

.PHONY: all steps sessions browser distill extract reindex embed doctor

all:
	@$(MAKE) --no-print-directory -f $(SELF) -k steps; rc=$$?; \
	$(MAKE) --no-print-directory -f $(SELF) doctor || rc=$$?; exit $$rc

steps: embed

sessions:
	$(BRAIN) jsonl2md --new --queue '$(QUEUE)' --quiet | $(BRAIN) partition --quiet >/dev/null

browser:
	@$(BRAIN) chrome2md --profile '$(CHROME_PROFILE)' | $(BRAIN) partition --quiet >/dev/null; rc=$$?; \
	if [ $$rc -eq 65 ]; then echo "nightly: browser skipped: no browser history found" >&2; exit 0; fi; exit $$rc

distill: sessions
	@if [ -n "$$BRAIN_DISTILL_COMMAND" ]; then $(BRAIN) distill >/dev/null; \
	else echo "nightly: distill skipped: BRAIN_DISTILL_COMMAND is not set (docs/distill.md)" >&2; fi

extract: distill
	$(BRAIN) extract --quiet >/dev/null

reindex: sessions browser extract
	$(BRAIN) lexindex --all

embed: reindex
	@$(BRAIN) vecindex --all --budget $(EMBED_BUDGET) >/dev/null; rc=$$?; \
	if [ $$rc -eq 65 ]; then echo "nightly: embed skipped: no embedding model (brain model fetch)" >&2; exit 0; fi; exit $$rc

doctor:
	$(BRAIN) doctor
