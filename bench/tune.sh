#!/usr/bin/env bash
# `brain tune` (issue #24): the time of one trial over SciFact's train split with lexical knobs
# (target <= 2 s on 2 cores: the train and dev parts, 809 queries, scored under a changed
# strategy in the one process that holds the index), and SciFact tuned on train, its test split
# scored once at the end — before and after — with the knobs that moved.
#
#   bench/tune.sh       # needs release binaries: cargo build --release -p brain
#
# Env: BENCH_DIR (default /tmp/brain-bench: the kept evaluation index and the home live there),
#      SCIFACT (default ../shared/ir/scifact), SEEDS (default "1 2 3"), PATIENCE (default 12).
# Prints figures; never fails on one (benchmarks do not gate CI).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
SCIFACT=${SCIFACT:-$ROOT/../shared/ir/scifact}
SEEDS=${SEEDS:-1 2 3}
PATIENCE=${PATIENCE:-12}
[ -x "$BIN/brain" ] || { echo "bench/tune.sh: $BIN/brain missing: cargo build --release -p brain" >&2; exit 1; }
[ -d "$SCIFACT" ] || { echo "bench/tune.sh: no SciFact at $SCIFACT" >&2; exit 1; }
EVAL_HOME=$BENCH_DIR/tune-scifact-index
for seed in $SEEDS; do
  HOME_DIR=$BENCH_DIR/tune-home-$seed
  rm -rf "$HOME_DIR" && mkdir -p "$HOME_DIR"
  BRAIN_HOME=$HOME_DIR "$BIN/brain" tune --set "$SCIFACT" --split train --final-test --seed "$seed" \
    --patience "$PATIENCE" --iterations 60 --eval-home "$EVAL_HOME" --json > "$HOME_DIR/run.jsonl" 2>/dev/null
  python3 - "$HOME_DIR/run.jsonl" "$seed" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
exps = [r for r in rows if r["kind"] == "tune_experiment" and r["decision"] != "baseline"]
s = next(r for r in rows if r["kind"] == "tune_summary")
trial = statistics.median(e["duration_ms"] for e in exps) if exps else float("nan")
q = s["before"]["train"]["queries"] + s["before"]["dev"]["queries"]
(tb, ta) = (s["test"][0]["score"], s["test"][1]["score"]) if s.get("test") else (float("nan"),) * 2
print(f"seed {sys.argv[2]}: {len(exps)} trials, median trial {trial:.0f} ms over {q} queries "
      f"(target <= 2000 ms); kept {s['kept']}, stopped by {s['stopped']}; "
      f"dev {s['before']['dev']['score']:.4f} -> {s['after']['dev']['score']:.4f}; "
      f"test nDCG@10 {tb:.4f} -> {ta:.4f} ({ta - tb:+.4f}); moved {s['moved'] or 'nothing'}")
PY
done
