# Shared by the benchmarks (bench/hybrid.sh, bench/scale.sh, the sets' run.sh): sourced, not run,
# with ROOT (the checkout) and BIN (its release binaries) set.
#
#   need_bins NAME…      release binaries present, else a message naming the cargo command, exit 1
#   need_tools NAME…     commands on PATH, else a message naming the missing one, exit 1
#   installed_models     the embedding model folders of target/models, one per line (not the reranker)
#   need_model DIR       the model folder present, else exit 1; exports BRAIN_EMBEDDER=local:DIR
#   sessions_home DIR    a home at $BRAIN_HOME with one `bench` sessions collection in DIR
#   fresh_us MODE [ARG…] one `brain ask --mode MODE -n 10 ARG…` per query of QUERIES, RUNS times each:
#                        wall microseconds, one per line; a query that exits non-zero stops the
#                        whole benchmark with its message (a failed query is not a latency)
#   median, pct P        of numbers on stdin (pct: P in 0..1, printed / 1000, one decimal)
#
# Timings read bash's own clock (`${EPOCHREALTIME/./}`, microseconds) with no command substitution:
# `$(date …)` forks a process per reading, ~1.7 ms that was counted into every timed run (measured
# 2026-11-23: /bin/true timed 2.8 ms that way, 1.0 ms this way).
[ -n "${EPOCHREALTIME:-}" ] || { echo "$0: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 1; }

QUERIES=("why did the cache migration fail" "retry timeout in the worker queue" "flaky test panic thread"
         "how do we deploy a branch for review" "lock contention between two writers" "what broke the embedding model")

BENCH_ERR=$(mktemp); trap 'rm -f "$BENCH_ERR"' EXIT

need_bins() {
  for b in "$@"; do
    [ -x "$BIN/$b" ] || { echo "$0: $BIN/$b missing: cargo build --release --workspace --bins" >&2; exit 1; }
  done
}

need_tools() {
  for t in "$@"; do
    command -v "$t" >/dev/null || { echo "$0: $t missing" >&2; exit 1; }
  done
}

installed_models() {
  local d
  for d in "$ROOT"/target/models/*/; do
    [ -f "$d/model.safetensors" ] || continue
    grep -q ForSequenceClassification "$d/config.json" 2>/dev/null || echo "${d%/}"
  done
  return 0
}

need_model() {
  [ -f "$1/model.safetensors" ] || { echo "$0: no model in $1 (make model)" >&2; exit 1; }
  export BRAIN_EMBEDDER=local:$1
}

sessions_home() {
  mkdir -p "$BRAIN_HOME"
  printf 'version: 1\ncollections:\n  - name: bench\n    path: %s\n    role: sessions\npartition:\n  default: bench\n' "$1" > "$BRAIN_HOME/brain.yaml"
}

fresh_us() {
  local mode=$1 q rc
  shift
  for q in "${QUERIES[@]}"; do
    for _ in $(seq "$RUNS"); do
      local s=${EPOCHREALTIME/./}; "$BIN/brain" ask --mode "$mode" -n 10 "$@" "$q" >/dev/null 2>"$BENCH_ERR"; rc=$?; local e=${EPOCHREALTIME/./}
      # A query that failed has no latency to report: it fails the whole benchmark (a vector store
      # that did not match the model made every hybrid query exit at once, and was timed).
      if [ "$rc" -ne 0 ]; then
        echo "$0: brain ask --mode $mode $* \"$q\" exited $rc: $(head -c 300 "$BENCH_ERR")" >&2
        kill -TERM $$; exit 1
      fi
      echo $(( e - s ))
    done
  done
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
pct() { sort -n | awk -v p="$1" '{a[NR]=$1} END {i=int((NR-1)*p+0.5)+1; printf "%.1f", a[i] / 1000}'; }

# A judged set of translated man pages (bench/multilingual, bench/cjk): SET_DIR gets corpus.jsonl
# built from Debian packages fetched with apt and checked against their pinned sha256, and the
# set's queries and qrels from SRC_DIR. Each PACKAGE is name=version=sha256=lang (the pages under
# usr/share/man/LANG/man1), then the set is evaluated lexically and with each model folder given
# (default: every embedder in target/models).
#   manpage_set SRC_DIR SET_DIR PACKAGE… -- [MODEL_DIR…]
manpage_set() {
  local src=$1 set=$2; shift 2
  local specs=() langs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do specs+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  need_tools apt-get dpkg-deb man col python3
  need_bins brain
  mkdir -p "$set/debs" "$set/qrels"
  for spec in "${specs[@]}"; do
    IFS== read -r name version sha lang <<< "$spec"
    langs+=("$lang")
    [ -s "$set/corpus.jsonl" ] && continue
    local deb=$set/debs/${name}_${version}_all.deb
    [ -f "$deb" ] || (cd "$set/debs" && apt-get download -q "$name=$version" 2>/dev/null)
    echo "$sha  $deb" | sha256sum -c --quiet - || { echo "$src: $deb is not the pinned package" >&2; exit 1; }
    rm -rf "$set/x-$lang" && dpkg-deb -x "$deb" "$set/x-$lang"
  done
  if [ ! -s "$set/corpus.jsonl" ]; then
    python3 bench/multilingual/corpus.py "$set" "${langs[@]}" > "$set/corpus.jsonl.tmp"
    mv "$set/corpus.jsonl.tmp" "$set/corpus.jsonl"
  fi
  cp "$src/queries.jsonl" "$set/queries.jsonl"
  cp "$src/qrels/test.tsv" "$set/qrels/test.tsv"
  echo "$(basename "$src") set: $(wc -l < "$set/corpus.jsonl") pages, $(wc -l < "$set/queries.jsonl") questions"
  local report='^index\|^embed\|^Recall@100'
  echo "== lex"
  "$BIN/brain" eval --defaults --mode lex "$set" 2>&1 | { grep -v "$report" || true; }
  [ $# -gt 0 ] || set -- $(installed_models)
  for model in "$@"; do
    for mode in vec hybrid; do
      echo "== $mode $(basename "$model")"
      "$BIN/brain" eval --defaults --mode "$mode" --embedder "local:$model" "$set" 2>&1 | { grep -v "$report" || true; }
    done
  done
}
