#!/usr/bin/env bash
# How every cost grows with the corpus: generated sessions-like corpora (bench/gen_corpus.py, Zipf
# vocabulary by default) of about 10k, 100k and 1M passages (vector chunks of 256 tokens; 20 KB
# files on average), generated on the fly under $BENCH_DIR and never committed. At each size:
#
#   * full `lexindex --all` build (wall, peak RSS) and a no-op re-index;
#   * index size on disk (lexical; vector store: f32 rows + int8 copy + texts + tables);
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

for b in brain lexindex; do
  [ -x "$BIN/$b" ] || { echo "bench/scale.sh: $BIN/$b missing: cargo build --release --workspace --bins" >&2; exit 1; }
done
[ -f "$MODEL/model.safetensors" ] || { echo "bench/scale.sh: no model in $MODEL (make model)" >&2; exit 1; }
export BRAIN_EMBEDDER=local:$MODEL
cargo build --release -q -p brain-vec --example synthetic_store --example scan || exit 1

[ -n "${EPOCHREALTIME:-}" ] || { echo "$0: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 1; }
ms_since() { local e=${EPOCHREALTIME/./}; echo $(( (e - $1) / 1000 )); }
pct() { sort -n | awk -v p="$1" '{a[NR]=$1} END {i=int((NR-1)*p+0.5)+1; printf "%.1f", a[i] / 1000}'; }
rss_mb() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident/ {printf "%.0f", $2/1024}'; }
du_mb() { du -sm "$@" 2>/dev/null | awk '{s+=$1} END {print s+0}'; }

QUERIES=("why did the cache migration fail" "retry timeout in the worker queue" "flaky test panic thread"
         "how do we deploy a branch for review" "lock contention between two writers" "what broke the embedding model")
fresh() { # mode → "p50 p95" in ms over RUNS × queries
  local mode=$1 t=()
  for q in "${QUERIES[@]}"; do
    for _ in $(seq "$RUNS"); do
      local s=${EPOCHREALTIME/./}; "$BIN/brain" ask --mode "$mode" -n 10 "$q" >/dev/null 2>&1; local e=${EPOCHREALTIME/./}; t+=($(( e - s )))
    done
  done
  echo "$(printf '%s\n' "${t[@]}" | pct 0.5) $(printf '%s\n' "${t[@]}" | pct 0.95)"
}

printf '%-8s %6s %6s %8s %8s %7s %7s %7s %7s %7s %7s %7s %7s %8s %7s\n' \
  passages files MB build_s build_MB noop_ms lex_MB vec_MB lex_p50 lex_p95 hyb_p50 hyb_p95 hyb_MB vopen_ms scan_ms
for size in $SIZES; do
  files=${size%%:*} mb=${size##*:}
  corpus=$BENCH_DIR/scale-$VOCAB-$files-$mb
  [ -d "$corpus" ] || python3 bench/gen_corpus.py "$corpus" --files "$files" --mb "$mb" --vocab "$VOCAB" >&2 || exit 1
  export BRAIN_HOME=$BENCH_DIR/scale-home-$VOCAB-$files-$mb
  rm -rf "$BRAIN_HOME"; mkdir -p "$BRAIN_HOME"
  printf 'version: 1\ncollections:\n  - name: bench\n    path: %s\n    role: sessions\npartition:\n  default: bench\n' "$corpus" > "$BRAIN_HOME/brain.yaml"
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
