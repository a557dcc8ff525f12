#!/usr/bin/env bash
# jsonl2md throughput, incremental no-op and peak RSS (issue: ≥ 200 MB/s on 2 cores; `--new` with
# nothing changed over 10,000 session files ≤ 100 ms; RSS bounded by the largest session).
# Data is generated under bench/out/ (gitignored); the real corpora are read from ../shared in place
# (linked, never copied into the repo).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CARGO_TARGET_DIR:-target}/release/jsonl2md
[ -x "$BIN" ] || cargo build --release -p jsonl2md
OUT=bench/out/jsonl2md
RUNS=${RUNS:-5}
mkdir -p "$OUT"
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# time_run LABEL ARGS... : median wall seconds over $RUNS runs, plus peak RSS of the last run.
time_run() {
  local label=$1; shift
  local times=() rss
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %M' -o "$OUT/time.txt" "$BIN" "$@" >/dev/null 2>"$OUT/stderr.txt"
    read -r t rss <"$OUT/time.txt"
    times+=("$t")
  done
  local med; med=$(printf '%s\n' "${times[@]}" | median)
  echo "$label|$med|$rss|$(grep -o '[0-9.]* MB in' "$OUT/stderr.txt" | head -1 | cut -d' ' -f1)"
}
report() {
  IFS='|' read -r label med rss mb <<<"$1"
  awk -v l="$label" -v m="$med" -v r="$rss" -v mb="$mb" 'BEGIN { printf "%-44s median %6.3f s  %7.1f MB/s  peak RSS %6.1f MB  (%s MB)\n", l, m, (m>0? mb/m : 0), r/1024, mb }'
}

# 1. Real corpora repeated to >= 200 MB (symlinked copies of ../shared/corpora).
REAL=$OUT/real
if [ ! -d "$REAL" ]; then
  mkdir -p "$REAL"
  for i in $(seq 1 11); do
    for a in claude-code codex gemini; do
      mkdir -p "$REAL/$i" && cp -rs "$(cd ../shared/corpora/$a && pwd)" "$REAL/$i/$a"
    done
  done
fi
report "$(time_run 'real corpora x11 (≈225 MB)' "$REAL")"

# 2. >= 1 GB of synthetic transcripts.
SYN=$OUT/synthetic
[ -d "$SYN" ] || python3 bench/gen_sessions.py "$SYN" 1100 2000
report "$(time_run 'synthetic (≈1.1 GB, 2,000 sessions)' "$SYN")"
largest=$(find "$SYN" -type f -printf "%s\n" | sort -n | tail -1); echo "  largest session: $((largest / 1000000)) MB (peak RSS stays bounded by a few sessions in flight, not the corpus)"

# 3. --new with nothing changed over 10,000 session files.
MANY=$OUT/many
[ -d "$MANY" ] || python3 bench/gen_sessions.py "$MANY" 60 10000
export BRAIN_HOME=$OUT/home
rm -rf "$BRAIN_HOME"
"$BIN" -q --new "$MANY" >/dev/null 2>&1
IFS='|' read -r _ med rss _ <<<"$(time_run 'noop' -q --new "$MANY")"
awk -v m="$med" -v r="$rss" 'BEGIN { printf "%-44s median %6.0f ms  peak RSS %6.1f MB\n", "--new, nothing changed, 10,000 sessions", m*1000, r/1024 }'
