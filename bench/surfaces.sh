#!/usr/bin/env bash
# The operator surfaces on a sessions-like corpus: `brain recent` walk_ms (its own figure) and wall
# time, `brain inbox` wall time (write + index one day file into the big index), and `brain stats`
# over a 50,000-row usage log (~8 MB, the rotation size).
#
#   bench/surfaces.sh    # needs release binaries: cargo build --release -p brain -p lexindex
#
# Env: BENCH_DIR (default /tmp/brain-bench), FILES / MB (corpus size, default 10000 / 200), RUNS
#      (default 9), CARGO_TARGET_DIR. Prints medians; never fails on a figure.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
FILES=${FILES:-10000}
MB=${MB:-200}
RUNS=${RUNS:-9}
for b in brain lexindex; do
  [ -x "$BIN/$b" ] || { echo "bench/surfaces.sh: $BIN/$b missing: cargo build --release -p brain -p lexindex" >&2; exit 1; }
done
now_ns() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print 0; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

CORPUS=$BENCH_DIR/surfaces-corpus-$FILES
HOME_DIR=$BENCH_DIR/surfaces-home-$FILES
[ -d "$CORPUS" ] || python3 bench/gen_corpus.py "$CORPUS" --files "$FILES" --mb "$MB" >/dev/null
rm -rf "$HOME_DIR" && mkdir -p "$HOME_DIR"
cat > "$HOME_DIR/brain.yaml" <<YAML
version: 1
collections:
  - {name: bench, path: $CORPUS, glob: "**/*.md", role: sessions, trust: high}
  - {name: inbox, path: inbox, glob: "**/*.md", role: inbox, trust: high}
partition: {default: bench}
YAML
export BRAIN_HOME=$HOME_DIR NO_COLOR=1
"$BIN/lexindex" --all --quiet || exit 1
# Everything landed ten days ago, then a tenth of the corpus again in the last day.
find "$CORPUS" -name '*.md' -print0 | xargs -0 touch -d '10 days ago'
"$BIN/lexindex" --all --quiet || exit 1
find "$CORPUS" -name '*.md' | awk 'NR % 10 == 0' | xargs touch

walk=(); wall=(); inbox=()
for _ in $(seq "$RUNS"); do
  s=$(now_ns); w=$("$BIN/brain" recent --since 24h --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["walk_ms"])')
  wall+=($(( ($(now_ns) - s) / 1000000 ))); walk+=("$w")
  s=$(now_ns); "$BIN/brain" inbox "bench entry $RANDOM about the walk" >/dev/null 2>&1; inbox+=($(( ($(now_ns) - s) / 1000000 )))
done
n=$("$BIN/brain" recent --since 24h --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["n_total"])')
echo "recent --since 24h over $FILES files ($n in the window): walk_ms median $(printf '%s\n' "${walk[@]}" | median), wall median $(printf '%s\n' "${wall[@]}" | median) ms"
echo "inbox (write + index into the $FILES-file index): wall median $(printf '%s\n' "${inbox[@]}" | median) ms"

python3 - "$HOME_DIR/logs/usage.jsonl" <<'PY'
import json, random, sys
random.seed(7)
with open(sys.argv[1], "w") as f:
    for i in range(50000):
        ev = random.choice(["ask", "ask", "ask", "recent", "inbox_write", "get"])
        f.write(json.dumps({"schema": 1, "ts": f"2026-04-{1 + i % 9:02d}T10:00:00Z", "surface": random.choice(["cli", "mcp"]),
                            "event": ev, "latency_ms": random.randint(2, 400), "n_hits": random.randint(0, 10)}) + "\n")
PY
st=()
for _ in $(seq "$RUNS"); do s=$(now_ns); "$BIN/brain" stats --json >/dev/null 2>&1; st+=($(( ($(now_ns) - s) / 1000000 ))); done
echo "stats over 50,000 rows: wall median $(printf '%s\n' "${st[@]}" | median) ms"
