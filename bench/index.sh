#!/usr/bin/env bash
# Indexing benchmark: brain's `lexindex` vs QMD's `qmd collection add` / `qmd update` on the same
# generated corpus (bench/gen_corpus.py: 10,000 sessions-like files, ~200 MB).
#
#   bench/index.sh            # needs release binaries: cargo build --release -p lexindex -p partition
#
# Env: QMD (default bench/.qmd/bin/qmd), BENCH_DIR (default /tmp/brain-bench: corpus and homes live there, never in the repo),
#      FILES / MB (corpus size), VOCAB (pairs, the original random word pairs, default; or zipf,
#      repeated identifiers as in real transcripts: bench/gen_corpus.py), RUNS (default 3 full
#      builds, 5 small runs), CARGO_TARGET_DIR.
# Prints medians and ratios; never fails on a figure (benchmarks do not gate CI).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
FILES=${FILES:-10000}
MB=${MB:-200}
RUNS=${RUNS:-3}
VOCAB=${VOCAB:-pairs}
CORPUS=$BENCH_DIR/corpus-$FILES-$MB
[ "$VOCAB" = pairs ] || CORPUS=$BENCH_DIR/corpus-$VOCAB-$FILES-$MB

for b in lexindex partition; do
  [ -x "$BIN/$b" ] || { echo "bench/index.sh: $BIN/$b missing: cargo build --release -p lexindex -p partition" >&2; exit 1; }
done
[ -d "$CORPUS" ] || python3 bench/gen_corpus.py "$CORPUS" --files "$FILES" --mb "$MB" --vocab "$VOCAB" || exit 1
NFILES=$(find "$CORPUS" -name '*.md' | wc -l)
BYTES=$(find "$CORPUS" -name '*.md' -printf '%s\n' | awk '{s+=$1} END {print s}')

# Timings read bash's own clock (`${EPOCHREALTIME/./}`, microseconds): `$(date …)` forks a process
# per reading, ~1.7 ms that was counted into every timed run.
[ -n "${EPOCHREALTIME:-}" ] || { echo "$0: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 1; }
# time_ms CMD… → wall ms of one run (output discarded)
time_ms() { local s=${EPOCHREALTIME/./}; "$@" >/dev/null 2>&1; local e=${EPOCHREALTIME/./}; echo $(( (e - s) / 1000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
rss_mb() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident/ {printf "%.0f", $2/1024}'; }

HOME_B=$BENCH_DIR/home
export BRAIN_HOME=$HOME_B
rm -rf "$HOME_B"; mkdir -p "$HOME_B"
cat > "$HOME_B/brain.yaml" <<EOF
version: 1
collections:
  - name: bench
    path: $CORPUS
    role: sessions
  - name: brain
    path: corpus/brain
    role: sessions
partition:
  default: brain
  rules:
    - collection: brain
      kind: session
EOF

echo "corpus: $NFILES files, $((BYTES / 1000000)) MB, $VOCAB vocabulary ($CORPUS)"

# 1. Full build (wall, CPU and peak RSS from /usr/bin/time; CPU matters on a shared, loaded machine).
full=(); cpu=(); RSS=0
for _ in $(seq "$RUNS"); do
  /usr/bin/time -f '%e %U %S %M' -o "$BENCH_DIR/time.txt" "$BIN/lexindex" --all --rebuild -q >/dev/null 2>&1
  read -r wall user sys rss < "$BENCH_DIR/time.txt"
  full+=("$(awk -v w="$wall" 'BEGIN {printf "%d", w * 1000}')")
  cpu+=("$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%d", (u + s) * 1000}')")
  RSS=$(( rss / 1024 > RSS ? rss / 1024 : RSS ))
done
FULL=$(printf '%s\n' "${full[@]}" | median)
CPU=$(printf '%s\n' "${cpu[@]}" | median)
echo "brain full build: median ${FULL} ms wall of [${full[*]}] ms, ${CPU} ms CPU; $((NFILES * 1000 / (FULL > 0 ? FULL : 1))) docs/s; $((BYTES / 1000 / (FULL > 0 ? FULL : 1))) MB/s; peak RSS ${RSS} MB; load average $(cut -d' ' -f1 /proc/loadavg)"
echo "index size: $(du -sm "$HOME_B/index/lex" | cut -f1) MB"

# 2. No-change re-index.
noop=()
for _ in $(seq 5); do noop+=("$(time_ms "$BIN/lexindex" --all -q)"); done
NOOP=$(printf '%s\n' "${noop[@]}" | median)
echo "brain no-change lexindex --all: median ${NOOP} ms of [${noop[*]}] ms (target <= 100)"

# 3. Stop-hook path: one new session through partition | lexindex (jsonl2md adds its own cost).
one=()
for i in $(seq 5); do
  rec="{\"schema\":1,\"kind\":\"doc\",\"id\":\"bench-hook-$i-$$\",\"collection\":null,\"path\":\"bench-hook-$i-$$.md\",\"title\":\"Hook session $i\",\"date\":\"2026-04-02T10:00:00Z\",\"source\":{\"type\":\"session\",\"agent\":\"claude\",\"file\":\"~/x.jsonl\"},\"meta\":{\"project\":\"brain\"},\"body\":\"## Conversation\\n\\n**User**: why does parse_config fail in src/config.rs?\\n\\n**Assistant**: run cargo test --workspace.\\n\"}"
  s=${EPOCHREALTIME/./}; printf '%s\n' "$rec" | "$BIN/partition" -q | "$BIN/lexindex" -q; e=${EPOCHREALTIME/./}; one+=($(( (e - s) / 1000 )))
done
ONE=$(printf '%s\n' "${one[@]}" | median)
echo "brain stop-hook path (partition | lexindex, one new doc into a ${NFILES}-doc index): median ${ONE} ms of [${one[*]}] ms (target <= 100)"
if [ -x "$BIN/jsonl2md" ] && [ -d ../shared/corpora ]; then
  sample=$(find ../shared/corpora -name '*.jsonl' -size -200k 2>/dev/null | head -1)
  if [ -n "$sample" ]; then
    hook=()
    for _ in $(seq 5); do
      "$BIN/lexindex" --all -q >/dev/null 2>&1
      rm -rf "$HOME_B/corpus/brain"
      s=${EPOCHREALTIME/./}; "$BIN/jsonl2md" "$sample" 2>/dev/null | "$BIN/partition" -q | "$BIN/lexindex" -q; e=${EPOCHREALTIME/./}; hook+=($(( (e - s) / 1000 )))
      "$BIN/lexindex" --all -q >/dev/null 2>&1
    done
    echo "brain stop-hook path with jsonl2md ($(basename "$sample")): median $(printf '%s\n' "${hook[@]}" | median) ms of [${hook[*]}] ms"
  fi
fi

# 4. QMD on the same corpus (bench/setup-qmd.sh installs it into bench/.qmd).
QMD=${QMD:-$ROOT/bench/.qmd/bin/qmd}
if [ -x "$QMD" ]; then
  QHOME=$BENCH_DIR/qmd-home
  rm -rf "$QHOME"; mkdir -p "$QHOME"
  export XDG_CACHE_HOME=$QHOME/cache XDG_CONFIG_HOME=$QHOME/config
  s=${EPOCHREALTIME/./}; HOME=$QHOME "$QMD" collection add "$CORPUS" --name bench >/dev/null 2>&1; e=${EPOCHREALTIME/./}; QFULL=$(( (e - s) / 1000 ))
  qnoop=()
  for _ in $(seq 3); do qnoop+=("$(HOME=$QHOME time_ms "$QMD" update)"); done
  QNOOP=$(printf '%s\n' "${qnoop[@]}" | median)
  echo "qmd collection add: ${QFULL} ms; qmd update (no change): median ${QNOOP} ms of [${qnoop[*]}] ms"
  echo "ratio full build qmd/brain: $(awk -v a="$QFULL" -v b="$FULL" 'BEGIN {printf "%.1f", a / b}')x (target >= 20x)"
  echo "ratio no-change qmd/brain: $(awk -v a="$QNOOP" -v b="$NOOP" 'BEGIN {printf "%.1f", a / (b > 0 ? b : 1)}')x"
else
  echo "qmd: not installed (run bench/setup-qmd.sh); anchor figures measured earlier: collection add 102 s, no-change update 5.9 s"
  echo "ratio full build vs qmd's 102 s: $(awk -v b="$FULL" 'BEGIN {printf "%.1f", 102000 / b}')x (target >= 20x)"
fi
