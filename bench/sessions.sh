#!/usr/bin/env bash
# The cost of sessions as units (issue 41; docs/query.md): fresh `brain ask --mode lex -n 10`
# with `pool.session_share` 0 and 0.5 (the default), alternated query by query on bench/hybrid.sh's
# home (run it once first), each configuration a home of its own that shares the index and differs
# only in search_strategy.yaml. With two builds (OLD_BRAIN NEW_BRAIN), the four configurations.
#
#   bench/sessions.sh [OLD_BRAIN] [NEW_BRAIN]   # default: target/release/brain alone
#
# Env: RUNS (default 30 rounds of the six queries), BENCH_DIR, FILES / MB. Prints p50 / p95 and
# the share's cost per build; never fails on a figure.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
RUNS=${RUNS:-30}
HOME_DIR=$BENCH_DIR/hybrid-home-${FILES:-10000}-${MB:-200}
[ -d "$HOME_DIR/index" ] || { echo "bench/sessions.sh: no $HOME_DIR: run bench/hybrid.sh first" >&2; exit 0; }
builds=("$@")
[ ${#builds[@]} -gt 0 ] || builds=("${CARGO_TARGET_DIR:-$ROOT/target}/release/brain")
export BRAIN_NOW=2026-04-10T12:00:00Z BRAIN_TELEMETRY=off NO_COLOR=1
. bench/lib.sh
for share in 0 0.5; do
  h=$BENCH_DIR/sessions-share-$share
  mkdir -p "$h"
  for f in brain.yaml index locks logs state state.sqlite; do ln -sfn "$HOME_DIR/$f" "$h/$f"; done
  printf 'pool:\n  session_share: %s\n' "$share" > "$h/search_strategy.yaml"
done
declare -A T
for _ in $(seq "$RUNS"); do
  for q in "${QUERIES[@]}"; do
    for b in "${!builds[@]}"; do
      for share in 0 0.5; do
        s=${EPOCHREALTIME/./}
        BRAIN_HOME=$BENCH_DIR/sessions-share-$share "${builds[$b]}" ask --mode lex -n 10 "$q" >/dev/null 2>"$BENCH_ERR"
        rc=$?; e=${EPOCHREALTIME/./}
        case $rc in 0) ;; *) echo "bench/sessions.sh: query failed (exit $rc): $q" >&2; cat "$BENCH_ERR" >&2; exit 1;; esac
        T[$b/$share]+="$((e - s)) "
      done
    done
  done
done
for b in "${!builds[@]}"; do
  p0=$(tr ' ' '\n' <<< "${T[$b/0]}" | grep . | median) p5=$(tr ' ' '\n' <<< "${T[$b/0.5]}" | grep . | median)
  q0=$(tr ' ' '\n' <<< "${T[$b/0]}" | grep . | pct 0.95) q5=$(tr ' ' '\n' <<< "${T[$b/0.5]}" | grep . | pct 0.95)
  awk -v b="${builds[$b]}" -v p0="$p0" -v p5="$p5" -v q0="$q0" -v q5="$q5" -v n="$(wc -w <<< "${T[$b/0]}")" 'BEGIN {
    printf "%s: share 0 p50 %.2f ms p95 %s; share 0.5 p50 %.2f ms p95 %s; cost %+.2f ms (%d runs each, alternated)\n",
      b, p0 / 1000, q0, p5 / 1000, q5, (p5 - p0) / 1000, n }'
done
