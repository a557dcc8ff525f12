#!/usr/bin/env bash
# `brain mcp`: server start to ready (spawn → initialize answered), the first `query` call (opens the
# index), and `query` tool round trips over one warm session (p50, p95) on the generated sessions-like
# corpus (bench/gen_corpus.py, 10,000 files, ~200 MB). Targets (issue 7): round trip p50 <= 10 ms,
# start to ready <= 50 ms.
#
#   bench/mcp.sh        # needs release binaries: cargo build --release -p brain -p lexindex
#
# Env: BENCH_DIR (default /tmp/brain-bench; corpus and home live there, never in the repo), FILES / MB,
#      RUNS (default 20 rounds of every query), STARTS (default 20 cold starts), CARGO_TARGET_DIR,
#      BIN (default target/release; `BIN=target/debug FILES=200 MB=4` smoke-runs it).
# Prints figures; never fails on one (benchmarks do not gate CI).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release}
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
FILES=${FILES:-10000}
MB=${MB:-200}
RUNS=${RUNS:-20}
STARTS=${STARTS:-20}
export BRAIN_NOW=2026-04-10T12:00:00Z BRAIN_TELEMETRY=off

for b in brain lexindex; do
  [ -x "$BIN/$b" ] || { echo "bench/mcp.sh: $BIN/$b missing: cargo build --release -p brain -p lexindex" >&2; exit 1; }
done

CORPUS=$BENCH_DIR/corpus-$FILES-$MB
[ -d "$CORPUS" ] || python3 bench/gen_corpus.py "$CORPUS" --files "$FILES" --mb "$MB" || exit 1
export BRAIN_HOME=$BENCH_DIR/mcp-home-$FILES-$MB
if [ ! -f "$BRAIN_HOME/index/lex/meta.json" ]; then
  mkdir -p "$BRAIN_HOME"
  printf 'version: 1\ncollections:\n  - name: bench\n    path: %s\n    role: sessions\npartition:\n  default: bench\n' "$CORPUS" > "$BRAIN_HOME/brain.yaml"
  "$BIN/lexindex" --all -q || exit 1
fi

python3 - "$BIN/brain" "$RUNS" "$STARTS" <<'PY'
import json, statistics, subprocess, sys, time

brain, runs, starts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
queries = ["lock contention writer", "retry timeout in the worker queue", "parse_config", "cargo test --workspace",
           "why did the cache migration fail", "flaky test panic thread", "vector embed model prompt", "deploy branch review"]
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}

class Session:
    def __init__(self):
        self.p = subprocess.Popen([brain, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # buffered: an unbuffered readline reads one byte per syscall
        self.id = 0
    def request(self, method, params):
        self.id += 1
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}) + "\n").encode())
        self.p.stdin.flush()
        reply = json.loads(self.p.stdout.readline())
        if "error" in reply:
            sys.exit(f"bench/mcp.sh: {method}: {reply['error']}")
        return reply["result"]
    def close(self):
        self.p.stdin.close()
        self.p.wait()

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]

ready = []
for _ in range(starts):
    t = time.perf_counter()
    s = Session()
    s.request("initialize", INIT)
    ready.append((time.perf_counter() - t) * 1000)
    s.close()

s = Session()
s.request("initialize", INIT)
t = time.perf_counter()
first = s.request("tools/call", {"name": "query", "arguments": {"query": queries[0], "limit": 10}})
first_ms = (time.perf_counter() - t) * 1000
hits = len(first["structuredContent"]["results"])
trips = []
for _ in range(runs):
    for q in queries:
        t = time.perf_counter()
        s.request("tools/call", {"name": "query", "arguments": {"query": q, "limit": 10}})
        trips.append((time.perf_counter() - t) * 1000)
s.close()
with open("/proc/loadavg") as f:
    load = f.read().split()[0]
print(f"mcp: start to ready p50 {statistics.median(ready):.1f} ms, p95 {pct(ready, 0.95):.1f} ms ({starts} starts; target <= 50 ms)")
print(f"mcp: first query call (opens the index) {first_ms:.1f} ms ({hits} results)")
print(f"mcp: query round trip, warm session: p50 {statistics.median(trips):.2f} ms, p95 {pct(trips, 0.95):.2f} ms "
      f"({len(queries)} queries x {runs} rounds; target p50 <= 10 ms); load average {load}")
PY
