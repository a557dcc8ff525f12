#!/usr/bin/env bash
# `brain browse` page times (issue #27: server-side render ≤ 50 ms per page on the 10k-document
# bench corpus, timeline paginated): each page fetched RUNS times from a running release server
# over loopback (curl's total time: render plus a local round trip), medians and the slowest run.
#
#   bench/browse.sh    # needs release binaries: cargo build --release -p brain -p lexindex
#
# Env: BENCH_DIR (default /tmp/brain-bench: corpus and home live there, never in the repo),
#      FILES / MB (the generated corpus, as bench/ask.sh), RUNS (default 15).
# The bench collection is given the `sessions` role, so document links open the turn-by-turn view.
# Prints figures; never fails on one (benchmarks do not gate CI).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
FILES=${FILES:-10000}
MB=${MB:-200}
RUNS=${RUNS:-15}
export NO_COLOR=1
for b in brain lexindex; do
  [ -x "$BIN/$b" ] || { echo "bench/browse.sh: $BIN/$b missing: cargo build --release -p brain -p lexindex" >&2; exit 1; }
done
command -v curl >/dev/null || { echo "bench/browse.sh: needs curl" >&2; exit 1; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print 0; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

CORPUS=$BENCH_DIR/corpus-$FILES-$MB
[ -d "$CORPUS" ] || python3 bench/gen_corpus.py "$CORPUS" --files "$FILES" --mb "$MB" || exit 1
export BRAIN_HOME=$BENCH_DIR/browse-home
if [ ! -f "$BRAIN_HOME/index/lex/meta.json" ]; then
  mkdir -p "$BRAIN_HOME"
  printf 'version: 1\ncollections:\n  - name: bench\n    path: %s\n    role: sessions\npartition:\n  default: bench\n' "$CORPUS" > "$BRAIN_HOME/brain.yaml"
  "$BIN/lexindex" --all --quiet || exit 1
fi
"$BIN/brain" browse --port 0 > "$BENCH_DIR/browse.url" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$BENCH_DIR/browse.url" ] && break; sleep 0.1; done
url=$(head -1 "$BENCH_DIR/browse.url")
base=${url%%/?t=*}
token=${url##*t=}
cookie="brain_browse_${base##*:}=$token"
# A document in the middle of the corpus, and the line of its middle.
doc=$(cd "$CORPUS" && find . -name '*.md' | sort | sed -n "$((FILES / 2))p" | sed 's|^\./||')
lines=$(wc -l < "$CORPUS/$doc")
day=$(sed -n 's/^date: \([0-9-]\{10\}\).*/\1/p' "$CORPUS/$doc" | head -1)
pages=(
  "/"
  "/timeline"
  "/timeline?day=$day&days=31"
  "/search?q=lock+contention+writer&mode=lex"
  "/search?q=why+did+the+cache+migration+fail"
  "/search?q=retry+timeout&since=30d&limit=100"
  "/doc/bench/$doc"
  "/session/bench/$doc?line=$((lines / 2))"
  "/raw/bench/$doc"
  "/entities"
)
echo "brain browse on $FILES documents ($MB MB), $RUNS fetches per page (first fetch dropped: it opens the index)"
printf '%-58s %9s %9s %9s\n' page "p50 ms" "max ms" "KB"
for p in "${pages[@]}"; do
  curl -s -o /dev/null -H "Cookie: $cookie" "$base$p"
  t=()
  for _ in $(seq "$RUNS"); do
    t+=("$(curl -s -o "$BENCH_DIR/browse.page" -w '%{time_total}' -H "Cookie: $cookie" "$base$p")")
  done
  p50=$(printf '%s\n' "${t[@]}" | median)
  max=$(printf '%s\n' "${t[@]}" | sort -n | tail -1)
  kb=$(( $(stat -c %s "$BENCH_DIR/browse.page") / 1024 ))
  label=${p:0:58}
  awk -v l="$label" -v a="$p50" -v m="$max" -v k="$kb" 'BEGIN { printf "%-58s %9.1f %9.1f %9d\n", l, a*1000, m*1000, k }'
done
echo "target: <= 50 ms per page (server-side render); load average $(cut -d' ' -f1 /proc/loadavg)"
