#!/usr/bin/env python3
"""`query` tool round trips over one warm `brain mcp` session, on `$BRAIN_HOME`.

    bench/warm_mcp.py BRAIN [--runs R] [--mode hybrid|lex|vec] [--queries Q...]
    bench/warm_mcp.py OLD_BRAIN NEW_BRAIN [--rounds N] [--runs R] [--mode M] [--queries Q...]

The home and model as bench/hybrid.sh leaves them (run it once first):
BRAIN_HOME=/tmp/brain-bench/hybrid-home-10000-200 BRAIN_EMBEDDER=local:target/models/all-MiniLM-L6-v2
BRAIN_NOW=2026-04-10T12:00:00Z BRAIN_TELEMETRY=off. The queries default to bench/lib.sh's.

One binary: the first query (it opens the index and, for vectors, loads the model), then p50 and
p95 of RUNS rounds of every query (what bench/hybrid.sh prints). Two binaries: N rounds, each a
session of one then of the other, alternated so that both see the same machine; prints the median
over rounds of each one's p50 and p95 and how many rounds the second was faster. On a shared VM the
p50 of one session moves by a millisecond from run to run: compare builds this way, not by two
single runs. Benchmarks print figures; they never fail on one.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time



def bench_queries():
    """The queries of bench/lib.sh (their one owner)."""
    lib = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib.sh")
    out = subprocess.run(["bash", "-c", '. "$1" && printf "%s\\n" "${QUERIES[@]}"', "bash", lib],
                         capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def session(brain, runs, mode, queries):
    """(first ms, sorted round trips in ms) of one `brain mcp` session."""
    # Buffered pipes: an unbuffered readline reads one byte per syscall.
    p = subprocess.Popen([brain, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    n = 0

    def call(method, params):
        nonlocal n
        n += 1
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n").encode())
        p.stdin.flush()
        r = json.loads(p.stdout.readline())
        if "error" in r or r.get("result", {}).get("isError"):
            sys.exit(f"warm_mcp.py: {method}: {r}")
        return r["result"]

    def query(q):
        searches = [{"type": t, "query": q} for t in ("lex", "vec") if mode in ("hybrid", t)]
        call("tools/call", {"name": "query", "arguments": {"searches": searches, "limit": 10}})

    call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "bench", "version": "1"}})
    t = time.perf_counter()
    query(queries[0])
    first = (time.perf_counter() - t) * 1000
    trips = []
    for _ in range(runs):
        for q in queries:
            t = time.perf_counter()
            query(q)
            trips.append((time.perf_counter() - t) * 1000)
    p.stdin.close()
    p.wait()
    return first, sorted(trips)


def p95(trips):
    return trips[int(0.95 * (len(trips) - 1))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("brains", nargs="+", help="one brain binary, or two to compare (old, new)")
    ap.add_argument("--queries", nargs="+", help="the queries (default: bench/lib.sh's six)")
    ap.add_argument("--runs", type=int, default=10, help="rounds of every query per session (default 10)")
    ap.add_argument("--rounds", type=int, default=20, help="alternated sessions per binary when comparing two")
    ap.add_argument("--mode", choices=["hybrid", "lex", "vec"], default="hybrid")
    a = ap.parse_args()
    a.queries = a.queries or bench_queries()
    if len(a.brains) == 1:
        first, trips = session(a.brains[0], a.runs, a.mode, a.queries)
        print(f"{a.mode}: warm MCP session, first {a.mode} query (opens the index{', loads the model' if a.mode != 'lex' else ''}) {first:.1f} ms")
        print(f"{a.mode}: warm MCP session, {a.mode} query round trip p50 {statistics.median(trips):.1f} ms, "
              f"p95 {p95(trips):.1f} ms ({len(a.queries)} queries x {a.runs})")
        return
    if len(a.brains) != 2:
        sys.exit("warm_mcp.py: one brain binary, or two to compare")
    p50s = ([], [])
    p95s = ([], [])
    for _ in range(a.rounds):
        for i, brain in enumerate(a.brains):
            _, trips = session(brain, a.runs, a.mode, a.queries)
            p50s[i].append(statistics.median(trips))
            p95s[i].append(p95(trips))
    for i, brain in enumerate(a.brains):
        print(f"{a.mode}: {brain}: p50 median {statistics.median(p50s[i]):.2f} ms "
              f"(rounds {min(p50s[i]):.2f}-{max(p50s[i]):.2f}), p95 median {statistics.median(p95s[i]):.2f} ms")
    faster = sum(new < old for old, new in zip(*p50s))
    print(f"{a.mode}: the second faster (p50) in {faster} of {a.rounds} alternated rounds")


if __name__ == "__main__":
    main()
