#!/usr/bin/env bash
# `brain context` latency (issue #23: ≤ 100 ms for a 20,000-token budget on the bench corpus),
# fresh process each time, beside `brain ask` on the same home and queries: medians over RUNS runs
# per query, the block's size, and how the budget was used — without a vector store, then with one
# (random unit vectors for the real chunks, crates/brain-vec/examples/synthetic_store.rs: the
# near-duplicate check reads stored vectors, and what it costs does not depend on what they say).
#
#   bench/context.sh    # needs release binaries: cargo build --release -p brain -p lexindex
#
# Env: BENCH_DIR (default /tmp/brain-bench: the corpus and home live there, never in the repo),
#      FILES / MB (the generated corpus, as bench/ask.sh), RUNS (default 9), BUDGET (default 20000).
# Prints figures; never fails on one (benchmarks do not gate CI).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
FILES=${FILES:-10000}
MB=${MB:-200}
RUNS=${RUNS:-9}
BUDGET=${BUDGET:-20000}
export BRAIN_NOW=2026-04-10T12:00:00Z NO_COLOR=1

for b in brain lexindex; do
  [ -x "$BIN/$b" ] || { echo "bench/context.sh: $BIN/$b missing: cargo build --release -p brain -p lexindex" >&2; exit 1; }
done
[ -n "${EPOCHREALTIME:-}" ] || { echo "$0: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 1; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print 0; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

CORPUS=$BENCH_DIR/corpus-$FILES-$MB
[ -d "$CORPUS" ] || python3 bench/gen_corpus.py "$CORPUS" --files "$FILES" --mb "$MB" || exit 1
export BRAIN_HOME=$BENCH_DIR/context-home
if [ ! -f "$BRAIN_HOME/index/lex/meta.json" ]; then
  mkdir -p "$BRAIN_HOME"
  printf 'version: 1\ncollections:\n  - name: bench\n    path: %s\npartition:\n  default: bench\n' "$CORPUS" > "$BRAIN_HOME/brain.yaml"
  "$BIN/lexindex" --all --quiet || exit 1
fi

QS=("lock contention writer" "retry timeout in the worker queue" "why did the cache migration fail"
    "flaky test panic thread" "deploy branch review" "vector embed model prompt")
time_of() {
  local t=()
  for q in "${QS[@]}"; do
    for _ in $(seq "$RUNS"); do
      local s=${EPOCHREALTIME/./}; "$@" "$q" >/dev/null 2>&1; local e=${EPOCHREALTIME/./}; t+=($(( e - s )))
    done
  done
  printf '%s\n' "${t[@]}" | median | awk '{printf "%.1f", $1 / 1000}'
}
ctx=$(time_of "$BIN/brain" context --budget "$BUDGET")
ask=$(time_of "$BIN/brain" ask -n 10)
echo "brain context --budget $BUDGET p50 ${ctx} ms; brain ask p50 ${ask} ms (${#QS[@]} queries x $RUNS runs; target context <= 100 ms); load average $(cut -d' ' -f1 /proc/loadavg)"
# The same with a vector store: a copy of the home with synthetic vectors.
VHOME=$BENCH_DIR/context-home-vec
if [ ! -f "$VHOME/index/vec/manifest.json" ]; then
  rm -rf "$VHOME" && cp -r "$BRAIN_HOME" "$VHOME"
  cargo build --release -q -p brain-vec --example synthetic_store || exit 1
  "${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/synthetic_store" "$VHOME" || exit 1
fi
ctxv=$(BRAIN_HOME=$VHOME time_of "$BIN/brain" context --budget "$BUDGET")
echo "with a vector store ($(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['chunks'])" "$VHOME/index/vec/manifest.json") rows): brain context --budget $BUDGET p50 ${ctxv} ms (near-duplicates by stored vectors as well as shingles)"
for q in "${QS[@]:0:2}"; do
  "$BIN/brain" context --json --budget "$BUDGET" "$q" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print("  %r: %d of %d tokens (%s), %d items, slack %d, left out %s" % (
    d["task"], d["tokens"], d["budget"], d["tokenizer"], len(d["items"]), d["slack"], d["left_out"]))'
done
