#!/usr/bin/env bash
# Answers do not change: the six bench queries (bench/lib.sh) in every mode, `brain ask --json` of two
# builds side by side on bench/hybrid.sh's home, `took_ms` stripped, compared byte for byte.
#
#   bench/identical.sh OLD_BRAIN NEW_BRAIN     # run bench/hybrid.sh once first (it builds the home)
#
# Env: BENCH_DIR (default /tmp/brain-bench), FILES / MB, MODEL. Prints one line per query and mode
# and a summary; exits 1 when an answer differs (a check to run by hand, never in CI).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OLD=$1 NEW=$2
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
FILES=${FILES:-10000}
MB=${MB:-200}
MODEL=${MODEL:-$ROOT/target/models/all-MiniLM-L6-v2}
export BRAIN_HOME=$BENCH_DIR/hybrid-home-$FILES-$MB BRAIN_NOW=2026-04-10T12:00:00Z BRAIN_TELEMETRY=off NO_COLOR=1
export BRAIN_EMBEDDER=local:$MODEL
. bench/lib.sh
[ -d "$BRAIN_HOME/index" ] || { echo "$0: no home at $BRAIN_HOME: run bench/hybrid.sh first" >&2; exit 1; }
strip() { sed -E 's/"took_ms":[0-9]+/"took_ms":0/'; }
same=0 differ=0
for mode in lex hybrid auto; do
  for q in "${QUERIES[@]}"; do
    a=$("$OLD" ask --json --mode "$mode" -n 10 "$q" 2>/dev/null | strip | sha256sum | cut -c1-16)
    b=$("$NEW" ask --json --mode "$mode" -n 10 "$q" 2>/dev/null | strip | sha256sum | cut -c1-16)
    if [ "$a" = "$b" ]; then same=$((same + 1)); r=same; else differ=$((differ + 1)); r=DIFFERS; fi
    echo "$mode  $r  $a $b  $q"
  done
done
echo "identical: $same of $((same + differ)) answers byte-identical"
[ "$differ" -eq 0 ]
