#!/usr/bin/env bash
# Fresh-process `brain ask` p50 of two builds, alternated run by run so both see the same machine
# (a shared VM moves a single run's p50 by a millisecond): the speed check of a refactor.
#
#   bench/ab_fresh.sh OLD_BRAIN NEW_BRAIN      # on bench/hybrid.sh's home (run it once first)
#
# Env: MODE (default lex), RUNS (default 15 rounds of the six queries), BENCH_DIR, FILES / MB,
# MODEL. Prints medians; never fails on a figure.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OLD=$1 NEW=$2
RUNS=${RUNS:-15}
MODE=${MODE:-lex}
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
export BRAIN_HOME=$BENCH_DIR/hybrid-home-${FILES:-10000}-${MB:-200} BRAIN_NOW=2026-04-10T12:00:00Z BRAIN_TELEMETRY=off NO_COLOR=1
export BRAIN_EMBEDDER=local:${MODEL:-$ROOT/target/models/all-MiniLM-L6-v2}
. bench/lib.sh
ta=() tb=()
for _ in $(seq "$RUNS"); do
  for q in "${QUERIES[@]}"; do
    s=${EPOCHREALTIME/./}; "$OLD" ask --mode "$MODE" -n 10 "$q" >/dev/null 2>&1; e=${EPOCHREALTIME/./}; ta+=($((e - s)))
    s=${EPOCHREALTIME/./}; "$NEW" ask --mode "$MODE" -n 10 "$q" >/dev/null 2>&1; e=${EPOCHREALTIME/./}; tb+=($((e - s)))
  done
done
a=$(printf '%s\n' "${ta[@]}" | median) b=$(printf '%s\n' "${tb[@]}" | median)
echo "fresh $MODE p50: old $(awk -v x="$a" 'BEGIN {printf "%.2f", x / 1000}') ms, new $(awk -v x="$b" 'BEGIN {printf "%.2f", x / 1000}') ms (${#ta[@]} runs each, alternated)"
