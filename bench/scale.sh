#!/usr/bin/env bash
# How every cost grows with the corpus: generated sessions-like corpora (bench/gen_corpus.py, Zipf
# vocabulary by default) of about 10k, 100k and 1M passages (vector chunks of 256 tokens; 20 KB
# files on average), generated on the fly under $BENCH_DIR and never committed. At each size:
#
#   * full `lexindex --all` build (wall, peak RSS) and a no-op re-index;
#   * index size on disk (lexical; vector store: int8 rows + texts + tables; f32 rows too before schema 3);
#   * `brain ask` in a fresh process: lexical p50/p95, hybrid p50/p95 (model load and query
#     embedding included), peak RSS of a hybrid ask;
#   * the exact vector scan alone (in process, warm): the figure that decides when an
#     approximate index would be needed (docs/vectors.md: exact while a hybrid answer stays
#     under 50 ms).
#
# The vector store holds random unit vectors for the real chunks of every file
# (crates/brain-vec/examples/synthetic_store.rs): embedding a million passages for real is a
# night's work on two cores, and an exact scan costs the same whatever the vectors say.
#
#   bench/scale.sh                  # needs release binaries and the model (make model)
#
# Env: BENCH_DIR (default /tmp/brain-bench), SIZES (default "370:7.4 3700:74 37000:736",
#      files:MB pairs), VOCAB (zipf | pairs), RUNS (fresh queries per query, default 5), MODEL.
# Prints a table; never fails on a figure (benchmarks do not gate CI).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
SIZES=${SIZES:-"370:7.4 3700:74 37000:736"}
VOCAB=${VOCAB:-zipf}
RUNS=${RUNS:-5}
MODEL=${MODEL:-$ROOT/target/models/all-MiniLM-L6-v2}
export BRAIN_NOW=2026-04-10T12:00:00Z BRAIN_TELEMETRY=off NO_COLOR=1

. bench/lib.sh
need_bins brain lexindex
need_model "$MODEL"
cargo build --release -q -p brain-vec --example synthetic_store --example scan || exit 1

ms_since() { local e=${EPOCHREALTIME/./}; echo $(( (e - $1) / 1000 )); }
rss_mb() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident/ {printf "%.0f", $2/1024}'; }
du_mb() { du -sm "$@" 2>/dev/null | awk '{s+=$1} END {print s+0}'; }

fresh() { # mode → "p50 p95" in ms over RUNS × queries
  local t
  t=$(fresh_us "$1")
  echo "$(pct 0.5 <<<"$t") $(pct 0.95 <<<"$t")"
}

printf '%-8s %6s %6s %8s %8s %7s %7s %7s %7s %7s %7s %7s %7s %8s %7s\n' \
  passages files MB build_s build_MB noop_ms lex_MB vec_MB lex_p50 lex_p95 hyb_p50 hyb_p95 hyb_MB vopen_ms scan_ms
for size in $SIZES; do
  files=${size%%:*} mb=${size##*:}
  corpus=$BENCH_DIR/scale-$VOCAB-$files-$mb
  [ -d "$corpus" ] || python3 bench/gen_corpus.py "$corpus" --files "$files" --mb "$mb" --vocab "$VOCAB" >&2 || exit 1
  export BRAIN_HOME=$BENCH_DIR/scale-home-$VOCAB-$files-$mb
  rm -rf "$BRAIN_HOME"; mkdir -p "$BRAIN_HOME"
  sessions_home "$corpus"
  sync
  s=${EPOCHREALTIME/./}
  build_mb=$(rss_mb "$BIN/lexindex" --all -q)
  build_ms=$(ms_since "$s")
  s=${EPOCHREALTIME/./}; "$BIN/lexindex" --all -q >/dev/null 2>&1; noop_ms=$(ms_since "$s")
  "$TARGET/release/examples/synthetic_store" "$BRAIN_HOME" >/dev/null 2>&1 || exit 1
  rows=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['chunks'])" "$BRAIN_HOME/index/vec/manifest.json")
  lex_mb=$(du_mb "$BRAIN_HOME/index/lex" "$BRAIN_HOME/state.sqlite")
  vec_mb=$(du_mb "$BRAIN_HOME/index/vec")
  read -r lex50 lex95 <<<"$(fresh lex)"
  read -r hyb50 hyb95 <<<"$(fresh hybrid)"
  hyb_mb=$(rss_mb "$BIN/brain" ask --mode hybrid -n 10 "${QUERIES[0]}")
  scanout=$("$TARGET/release/examples/scan" "$BRAIN_HOME/index/vec" 2>/dev/null)
  scan=$(printf '%s' "$scanout" | sed -n 's/.*scan p50: \([0-9.]*\) ms.*/\1/p' | head -1)
  open=$(printf '%s' "$scanout" | sed -n 's/.*store open: \([0-9.]*\) ms.*/\1/p' | head -1)
  printf '%-8s %6s %6s %8.1f %8s %7s %7s %7s %7s %7s %7s %7s %7s %8s %7s\n' \
    "$rows" "$files" "$mb" "$(awk -v m="$build_ms" 'BEGIN {print m / 1000}')" "$build_mb" "$noop_ms" "$lex_mb" "$vec_mb" \
    "$lex50" "$lex95" "$hyb50" "$hyb95" "$hyb_mb" "${open:-?}" "${scan:-?}"
done
echo "vocabulary: $VOCAB; times in ms unless named; load average $(cut -d' ' -f1 /proc/loadavg)"
