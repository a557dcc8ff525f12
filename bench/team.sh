#!/usr/bin/env bash
# The team engine at scale (docs/team.md): push throughput and query latency on the local 2-node
# SolrCloud cluster (scripts/engine.sh, its own folder and ports), side by side with local brain on
# the same generated corpora (bench/gen_corpus.py, as bench/scale.sh makes them). At each size:
#
#   * push: every passage through the teamindex sink (brain's chunks, synthetic unit vectors:
#     the engine indexes any vectors at the same cost; embedding a million passages for real is
#     a night's work on two cores) — seconds and passages/s; the engine's disk and node RSS after;
#   * lexical query through the engine: warm in process (brain's plan, fusion, signals; one HTTP
#     request) and in a fresh `brain ask --engine` process; k-NN alone (one {!knn} request);
#   * local brain on the same corpus: `lexindex --all` and a fresh `brain ask --mode lex`.
#
#   bench/team.sh                  # needs release binaries (make release), Java 17 and Maven
#
# Env: BENCH_DIR (default /tmp/brain-bench), SIZES (default "3700:74 37000:736", files:MB pairs,
#      about 100k and 1M passages), RUNS (queries per query text, default 5), ENGINE_HEAP (per
#      node, default 2g). Prints a table; never fails on a figure (benchmarks do not gate CI).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
SIZES=${SIZES:-"3700:74 37000:736"}
RUNS=${RUNS:-5}
export ENGINE_DIR=${ENGINE_DIR:-$BENCH_DIR/engine} ENGINE_PORT=${ENGINE_PORT:-28983} ENGINE_HEAP=${ENGINE_HEAP:-2g}
export BRAIN_NOW=2026-04-10T12:00:00Z BRAIN_TELEMETRY=off NO_COLOR=1

. bench/lib.sh
need_bins brain lexindex
cargo build --release -q -p brain-rank --example team_bench || exit 1
bash scripts/engine.sh wipe >/dev/null 2>&1
url=$(bash scripts/engine.sh up | tail -n 1) || exit 1
trap 'rm -f "$BENCH_ERR"; bash scripts/engine.sh down >/dev/null 2>&1' EXIT

settle() { # wait (at most 10 min) until the nodes' merges are done: < 5 % CPU over 5 s
  local end=$((SECONDS + 600)) a b
  cpu() { for n in 1 2; do awk '{print $14 + $15}' "/proc/$(cat "$ENGINE_DIR/node$n.pid")/stat"; done | awk '{s+=$1} END {print s}'; }
  while [ $SECONDS -lt $end ]; do
    a=$(cpu); sleep 5; b=$(cpu)
    [ $((b - a)) -lt 25 ] && return 0   # clock ticks (100/s): 0.25 s of CPU in 5 s
  done
}
node_mb() { ps -o rss= -p "$(cat "$ENGINE_DIR/node$1.pid")" 2>/dev/null | awk '{printf "%.0f", $1/1024}'; }

printf '%-9s %6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n' \
  passages files push_s pass/s disk_MB node1_MB node2_MB lexw_p50 lexw_p95 knn_p50 knn_p95 eng_p50 eng_p95 loc_p50 loc_p95
for size in $SIZES; do
  files=${size%%:*} mb=${size##*:}
  corpus=$BENCH_DIR/scale-zipf-$files-$mb
  [ -d "$corpus" ] || python3 bench/gen_corpus.py "$corpus" --files "$files" --mb "$mb" --vocab zipf >&2 || exit 1
  export BRAIN_HOME=$BENCH_DIR/team-home-$files-$mb
  rm -rf "$BRAIN_HOME"; sessions_home "$corpus"
  printf 'team:\n  engines: {bench: "%s"}\n  shared: [bench]\n  index: bench-%s\n' "$url" "$files" >> "$BRAIN_HOME/brain.yaml"
  "$BIN/lexindex" --all -q >/dev/null 2>&1 || { echo "$0: lexindex failed" >&2; exit 1; }
  # The push, then (after the engine's merges settle) the queries: two runs of the example, the
  # second finding every document sent already.
  push=$("$TARGET/release/examples/team_bench" "$BRAIN_HOME" "$url" "bench-$files" 1) || { echo "$0: team_bench failed" >&2; exit 1; }
  settle
  out=$("$TARGET/release/examples/team_bench" "$BRAIN_HOME" "$url" "bench-$files" "$RUNS") || { echo "$0: team_bench failed" >&2; exit 1; }
  field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$out" "$1"; }
  pfield() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$push" "$1"; }
  disk=$(du -sm "$ENGINE_DIR"/node1 "$ENGINE_DIR"/node2 2>/dev/null | awk '{s+=$1} END {print s+0}')
  n1=$(node_mb 1); n2=$(node_mb 2)
  t=$(fresh_us lex --engine bench); e50=$(pct 0.5 <<<"$t"); e95=$(pct 0.95 <<<"$t")
  t=$(fresh_us lex); l50=$(pct 0.5 <<<"$t"); l95=$(pct 0.95 <<<"$t")
  printf '%-9s %6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n' \
    "$(pfield passages)" "$files" "$(pfield push_s)" "$(pfield passages_per_s)" "$disk" "$n1" "$n2" \
    "$(field lex_p50_ms)" "$(field lex_p95_ms)" "$(field knn_p50_ms)" "$(field knn_p95_ms)" "$e50" "$e95" "$l50" "$l95"
done
echo "engine: SolrCloud 9.10.1, 2 nodes (heap $ENGINE_HEAP each), index of 2 shards x 2 replicas; times in ms unless named; lexw = warm in process, eng = fresh brain ask --engine, loc = fresh local brain ask; load average $(cut -d' ' -f1 /proc/loadavg)"
