#!/usr/bin/env bash
# jsonl2md on a large Cursor IDE global database (issue #26): a full read, `--new` with nothing
# changed (the database's stats match: not opened), and `--new` after Cursor wrote one composer
# (the database changed as a whole: every composer is fingerprinted from its raw rows, only the
# changed one is parsed and rendered). Medians of $RUNS runs and peak RSS.
# The database is generated under bench/out/ (gitignored) by bench/cursor_db_gen.py:
# $COMPOSERS composers × $BUBBLES bubbles (default 500 × 200 ≈ 116 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CARGO_TARGET_DIR:-target}/release/jsonl2md
[ -x "$BIN" ] || cargo build --release -p jsonl2md
OUT=bench/out/cursor
RUNS=${RUNS:-5}
COMPOSERS=${COMPOSERS:-500}
BUBBLES=${BUBBLES:-200}
USER_DIR=$OUT/User-$COMPOSERS-$BUBBLES
DB=$USER_DIR/globalStorage/state.vscdb
[ -f "$DB" ] || python3 bench/cursor_db_gen.py "$USER_DIR" "$COMPOSERS" "$BUBBLES" >/dev/null
export BRAIN_HOME=$OUT/home
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# run LABEL SETUP ARGS...: SETUP (a shell snippet) runs before each timed run.
run() {
  local label=$1 setup=$2; shift 2
  local times=() rss t
  for _ in $(seq "$RUNS"); do
    eval "$setup"
    /usr/bin/time -f '%e %M' -o "$OUT/time.txt" "$BIN" "$@" >/dev/null 2>"$OUT/stderr.txt"
    read -r t rss <"$OUT/time.txt"
    times+=("$t")
  done
  local med; med=$(printf '%s\n' "${times[@]}" | median)
  awk -v l="$label" -v m="$med" -v r="$rss" 'BEGIN { printf "%-52s median %7.0f ms  peak RSS %6.1f MB\n", l, m*1000, r/1024 }'
  sed -n 's/^jsonl2md: \(.*documents ([0-9]* unchanged\).*/  \1)/p' "$OUT/stderr.txt"
}
mb=$(( $(stat -c %s "$DB") / 1000000 ))
echo "Cursor global database: $COMPOSERS composers × $BUBBLES bubbles, $mb MB"
run "full read" "rm -rf '$BRAIN_HOME'" -q "$USER_DIR"
rm -rf "$BRAIN_HOME"; "$BIN" -q --new "$USER_DIR" >/dev/null 2>&1
run "--new, nothing changed" ":" -q --new "$USER_DIR"
# One composer gains a bubble (the next one each run), as when Cursor records a turn.
n=0
run "--new, one composer changed" 'n=$((n+1)); python3 bench/cursor_db_gen.py --bump "$DB" "$n"' -q --new "$USER_DIR"
