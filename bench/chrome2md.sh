#!/usr/bin/env bash
# chrome2md: a synthetic History of 1,000,000 visits over 3 years → every day (target ≤ 10 s on 2 cores,
# peak RSS ≤ 200 MB), then incremental runs that each find one new visit (target ≤ 100 ms).
# Prints medians of $RUNS runs (default 5) and the peak RSS (/usr/bin/time -v). Never gates CI.
# Needs a release build: `cargo build --release -p chrome2md` (same CARGO_TARGET_DIR), and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${CARGO_TARGET_DIR:-target}/release/chrome2md"
[ -x "$BIN" ] || { echo "chrome2md bench: $BIN missing; run: cargo build --release -p chrome2md" >&2; exit 1; }
RUNS="${RUNS:-5}"
OUT=bench/out/chrome2md
mkdir -p "$OUT"
DB="$OUT/History-1M"
if [ ! -f "$DB" ] || [ bench/chrome_history_gen.py -nt "$DB" ] || [ golden/chrome2md/modern.sql -nt "$DB" ]; then
  echo "generating $DB (1,000,000 visits, 3 years) …"
  start=$EPOCHREALTIME
  python3 bench/chrome_history_gen.py "$DB.tmp" 1000000 1096 && mv "$DB.tmp" "$DB"
  echo "  generated in $(python3 -c "print(f'{$EPOCHREALTIME - $start:.1f}')") s, $(du -m "$DB" | cut -f1) MB"
fi
export TZ=UTC NO_COLOR=1
export BRAIN_HOME="$OUT/home" HOME="$OUT/home"

# run LABEL ARGS…: one timed run; appends "ms rss_kb" to $OUT/LABEL.times
run() {
  local label=$1; shift
  local t0=$EPOCHREALTIME
  /usr/bin/time -v -o "$OUT/time.txt" "$BIN" "$@" > "$OUT/$label.ndjson" 2> "$OUT/$label.stderr"
  local t1=$EPOCHREALTIME
  local rss; rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time.txt")
  echo "$(python3 -c "print(round(($t1 - $t0) * 1000, 1))") $rss" >> "$OUT/$label.times"
}
report() {
  local label=$1 what=$2
  python3 - "$OUT/$label.times" "$what" "$(wc -l < "$OUT/$label.ndjson")" <<'EOF'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
ms = [r[0] for r in rows]
rss = max(r[1] for r in rows) / 1024
print(f"{sys.argv[2]}: median {statistics.median(ms):.1f} ms over {len(ms)} runs "
      f"(min {min(ms):.1f}, max {max(ms):.1f}); peak RSS {rss:.1f} MB; last run emitted {sys.argv[3]} day(s)")
EOF
}

rm -f "$OUT"/*.times
for _ in $(seq "$RUNS"); do run full --history "$DB" --no-state -q; done
report full "full run, 1M visits → all days (--no-state, fresh temp copy)"
tail -n1 "$OUT/full.stderr" 2>/dev/null || true
"$BIN" --history "$DB" --no-state > /dev/null 2> "$OUT/summary.txt"; sed 's/^/  /' "$OUT/summary.txt"

# Incremental: a working copy gets one new visit before each run; the state and the kept snapshot
# live in $BRAIN_HOME.
WORK="$OUT/History-work"
cp "$DB" "$WORK"
rm -rf "$OUT/home"
run first --history "$WORK" -q
report first "first stateful run (all days, snapshot cache created)"
for i in $(seq "$RUNS"); do
  python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute('INSERT INTO visits (url, visit_time, transition) SELECT 5, max(visit_time) + 1000000, 805306368 FROM visits')
c.commit()" "$WORK"
  run incremental --history "$WORK" -q
done
report incremental "incremental run, 1 new visit → 1 changed day"
for _ in $(seq "$RUNS"); do run unchanged --history "$WORK" -q; done
report unchanged "incremental run, nothing new"
