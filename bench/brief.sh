#!/usr/bin/env bash
# The briefing's latency (issue 40: a fresh process p50 <= 50 ms on a 10k-document home, lexical
# only) and the pre-tool hook's: `brain hook run session-start` and `brain hook run pre-tool`, each
# a fresh process fed the agent's JSON on stdin, exactly as Claude Code runs them, at 1,000 and
# 10,000 generated session files (bench/gen_corpus.py) plus generated keyed records (2 % of the
# files: decisions, facts, open tasks, rejected approaches and failed commands of the corpus's ten
# projects, keys repeating so that later records supersede earlier ones). p50 and p95 over RUNS runs
# for each of five projects; the briefing's size in tokens (cl100k_base) and bytes.
#
#   bench/brief.sh      # needs release binaries: cargo build --release -p brain -p lexindex
#
# Each run is also timed in CPU (user + system of the process). With BIN_B (another build's release
# folder, e.g. main's), every run of this build is paired with one of that build, alternated A B A B
# on the same home, and both are reported with their ratio.
#
# The home also holds what every briefing carries first: a `memory` collection (ME.md, MEMORY.md)
# and three pinned records.
#
# Env: BENCH_DIR (default /tmp/brain-bench), SIZES (default "1000 10000"), RUNS (default 20), BIN_B.
# Prints figures; never fails on one (benchmarks do not gate CI).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
BENCH_DIR=${BENCH_DIR:-/tmp/brain-bench}
SIZES=${SIZES:-1000 10000}
RUNS=${RUNS:-20}
export BRAIN_NOW=2026-04-10T12:00:00Z BRAIN_TELEMETRY=off NO_COLOR=1

. bench/lib.sh
need_bins brain lexindex

PROJECTS=(billing brain infra webapp qmd)

records() { # DIR N: N keyed records over the corpus's projects, dated across its year
  python3 - "$1" "$2" <<'PY'
import os, random, sys
out, n = sys.argv[1], int(sys.argv[2])
random.seed(40)
projects = ["billing", "brain", "docs-site", "dotfiles", "infra", "ml-pipeline", "mobile", "qmd", "search-svc", "webapp"]
kinds = ["decision"] * 4 + ["fact"] * 2 + ["task", "rejected", "failed"]
subjects = ["db.engine", "retry-policy", "cache.ttl", "deploy.branch", "auth.flow", "queue.workers",
            "test.runner", "lock.timeout", "model.default", "index.layout", "cmd.cargo-test", "cmd.npm-install"]
words = "the worker queue retries with backoff while the cache migration keeps its lock and the deploy waits".split()
os.makedirs(out, exist_ok=True)
for i in range(n):
    p, k, s = random.choice(projects), random.choice(kinds), random.choice(subjects)
    day = f"2025-{random.randint(5, 12):02d}-{random.randint(1, 28):02d}" if random.random() < .5 else f"2026-{random.randint(1, 4):02d}-{random.randint(1, 9):02d}"
    text = " ".join(random.choice(words) for _ in range(random.randint(12, 40)))
    key = f"key: {p}:{s}\n" if k != "task" else ""
    with open(os.path.join(out, f"r{i:05d}.md"), "w") as f:
        f.write(f"---\ntitle: {s} {k} {i}\ntype: {k}\n{key}project: {p}\noccurred_at: {day}\ndate: {day}\nconfidence: 0.8\nrefs: [file:src/{s.replace('.', '/')}.rs]\n---\n{s}: {text}.\n")
PY
}

# One run of CMD… with INPUT-JSON on stdin: "wall-µs cpu-µs" (CPU: user + system of the child, as
# bash's own `times` counts the children it waited for: no extra process is timed).
TIMES_F=$(mktemp)
run_us() {
  local c0 c1 s e
  child_cpu; c0=$CPU_US; s=${EPOCHREALTIME/./}
  "${@:2}" <<<"$1" >/dev/null 2>&1
  e=${EPOCHREALTIME/./}; child_cpu; c1=$CPU_US
  echo "$(( e - s )) $(( c1 - c0 ))"
}

# CPU_US: microseconds of user + system time of this shell's waited-for children.
child_cpu() {
  local l u us
  times >"$TIMES_F"
  { read -r _; read -r l; } <"$TIMES_F"
  CPU_US=0
  for u in $l; do
    [[ $u =~ ^([0-9]+)m([0-9]+)\.([0-9]+)s$ ]] || continue
    us=$(( 10#${BASH_REMATCH[1]} * 60000000 + 10#${BASH_REMATCH[2]} * 1000000 + 10#${BASH_REMATCH[3]}000 ))
    CPU_US=$(( CPU_US + us ))
  done
}

for n in $SIZES; do
  mb=$(( n / 50 )); [ "$mb" -ge 1 ] || mb=1
  CORPUS=$BENCH_DIR/corpus-$n-$mb
  [ -d "$CORPUS" ] || python3 bench/gen_corpus.py "$CORPUS" --files "$n" --mb "$mb" || exit 1
  export BRAIN_HOME=$BENCH_DIR/brief-home-$n
  if [ ! -f "$BRAIN_HOME/index/lex/meta.json" ]; then
    rm -rf "$BRAIN_HOME"; mkdir -p "$BRAIN_HOME"
    records "$BRAIN_HOME/records" $(( n / 50 ))
    mkdir -p "$BRAIN_HOME/core"
    printf -- '---\ntitle: About me\n---\nI review every migration myself; small commits; tabs in Go, spaces elsewhere.\n' > "$BRAIN_HOME/core/ME.md"
    printf -- '---\ntitle: Memory\n---\n- Releases are cut on Fridays.\n- The staging database is reset nightly.\n' > "$BRAIN_HOME/core/MEMORY.md"
    for i in 1 2 3; do
      printf -- '---\ntitle: Pinned rule %s\npinned: true\ntype: preference\ndate: 2026-01-0%s\n---\nNever deploy on a Friday (rule %s).\n' "$i" "$i" "$i" > "$BRAIN_HOME/records/pinned-$i.md"
    done
    printf 'version: 1\ncollections:\n  - name: bench\n    path: %s\n    role: sessions\n  - name: records\n    path: %s\n    role: notes\n  - name: core\n    path: %s\n    role: memory\npartition:\n  default: bench\n' \
      "$CORPUS" "$BRAIN_HOME/records" "$BRAIN_HOME/core" > "$BRAIN_HOME/brain.yaml"
    "$BIN/lexindex" --all --quiet || exit 1
  fi
  docs=$(find "$CORPUS" "$BRAIN_HOME/records" -name '*.md' | wc -l)
  start=() pre=() start_b=()
  for p in "${PROJECTS[@]}"; do
    in_start="{\"session_id\":\"b\",\"cwd\":\"/home/u/work/$p\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}"
    in_pre="{\"session_id\":\"b\",\"cwd\":\"/home/u/work/$p\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"cargo test -p $p\"}}"
    for _ in $(seq "$RUNS"); do
      start+=("$(run_us "$in_start" "$BIN/brain" hook run session-start)")
      [ -n "${BIN_B:-}" ] && start_b+=("$(run_us "$in_start" "$BIN_B/brain" hook run session-start)")
      pre+=("$(run_us "$in_pre" "$BIN/brain" hook run pre-tool)")
    done
  done
  col() { cut -d' ' -f"$1"; }
  s50=$(printf '%s\n' "${start[@]}" | col 1 | pct 0.5); s95=$(printf '%s\n' "${start[@]}" | col 1 | pct 0.95)
  c50=$(printf '%s\n' "${start[@]}" | col 2 | pct 0.5)
  p50=$(printf '%s\n' "${pre[@]}" | col 1 | pct 0.5); p95=$(printf '%s\n' "${pre[@]}" | col 1 | pct 0.95)
  pc50=$(printf '%s\n' "${pre[@]}" | col 2 | pct 0.5)
  echo "brief: $docs documents: session-start p50 ${s50} ms wall (p95 ${s95}), ${c50} ms CPU (target p50 <= 50 ms); pre-tool p50 ${p50} ms wall (p95 ${p95}), ${pc50} ms CPU (${#PROJECTS[@]} projects x $RUNS runs, fresh processes); load average $(cut -d' ' -f1 /proc/loadavg); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  if [ -n "${BIN_B:-}" ]; then
    b50=$(printf '%s\n' "${start_b[@]}" | col 1 | pct 0.5); bc50=$(printf '%s\n' "${start_b[@]}" | col 2 | pct 0.5)
    echo "brief: paired with $BIN_B (A B A B): session-start p50 ${b50} ms wall, ${bc50} ms CPU; this build / that = $(python3 -c "print(f'{$s50/$b50:.2f}x wall, {$c50/$bc50:.2f}x CPU')")"
  fi
  for p in "${PROJECTS[@]:0:2}"; do
    "$BIN/brain" brief --project "/home/u/work/$p" --json | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
secs = {}
for i in d["items"]:
    secs[i["section"]] = secs.get(i["section"], 0) + 1
print("  %s: %d of %d tokens (%s), %d bytes, %d items %s, left out %s" % (
    d["task"], d["tokens"], d["budget"], d["tokenizer"], len(d["markdown"].encode()), len(d["items"]), secs, d["left_out"]))'
  done
done
